// A register's columns as files carry them: what an import can write (from the add tool's schema and the spec), the
// headers each is known by (API name, the web interface's label, the readable export's header), and the matching of
// a file's header row to them.
import { jsonSchemasOf } from '../../surfaces/schemas.ts';
import type { RegisterTools } from '../registers/builder.ts';
import {
  fieldLabelOf,
  type RegisterKind,
  type RegisterSpec,
  type RelationSpec,
  singleTargetOf,
} from '../registers/spec.ts';

export type ImportFieldKind =
  | 'text'
  | 'enum'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date'
  | 'list'
  | 'ref'
  | 'refs';

/** A field an import writes. */
export interface ImportField {
  name: string;
  label: string;
  kind: ImportFieldKind;
  /** ref/refs: the register it points into. */
  target?: RegisterKind;
  /** Set on new records only (a requirement's framework). */
  fixed: boolean;
  /** Optional: an empty cell clears it on an update. */
  nullable: boolean;
  /** refs kept by link tools (a risk's measure_ids) or by add/update (an asset's vendor_ids). */
  relation?: RelationSpec;
  /** enum: the values, upper case. */
  options: readonly string[];
}

interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  pattern?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
}

function kindOf(schema: JsonSchema, target: RegisterKind | undefined): ImportFieldKind {
  const options = schema.anyOf?.filter((option) => option.type !== 'null');
  const only = options?.length === 1 && options[0] ? options[0] : schema;
  if (only.type === 'array') return target ? 'refs' : 'list';
  if (target) return 'ref';
  if (only.enum) return 'enum';
  if (only.type === 'integer') return 'integer';
  if (only.type === 'number') return 'number';
  if (only.type === 'boolean') return 'boolean';
  if (only.pattern === '^\\d{4}-\\d{2}-\\d{2}$') return 'date';
  return 'text';
}

function enumOf(schema: JsonSchema): string[] {
  const options = schema.anyOf?.filter((option) => option.type !== 'null');
  const only = options?.length === 1 && options[0] ? options[0] : schema;
  return only.enum ?? [];
}

const fieldCache = new WeakMap<RegisterSpec, ImportField[]>();

/** The fields an import of this register writes, in the add tool's order, then the lists kept by link tools. */
export function importFieldsOf(tools: RegisterTools): ImportField[] {
  const cached = fieldCache.get(tools.spec);
  if (cached) return cached;
  const { spec } = tools;
  const properties = (jsonSchemasOf(tools.add).input as JsonSchema).properties ?? {};
  const fields: ImportField[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    if (name === 'organization_id' || spec.fields[name]?.notImported) continue;
    const relation = spec.relations?.find((item) => item.field === name);
    // A list of records of several kinds is imported by id (the prefix tells the kind).
    const target = spec.fields[name]?.ref ?? (relation ? singleTargetOf(relation) : undefined);
    fields.push({
      name,
      label: fieldLabelOf(spec, name),
      kind: kindOf(schema, target),
      ...(target ? { target } : {}),
      fixed: spec.fields[name]?.fixed === true,
      nullable: spec.fields[name]?.mode === 'optional' || relation !== undefined,
      ...(relation ? { relation } : {}),
      options: enumOf(schema),
    });
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable || relation.inverse || !relation.links) continue;
    fields.push({
      name: relation.field,
      label: fieldLabelOf(spec, relation.field),
      kind: 'refs',
      ...(singleTargetOf(relation) ? { target: singleTargetOf(relation) } : {}),
      fixed: false,
      nullable: true,
      relation,
      options: [],
    });
  }
  fieldCache.set(spec, fields);
  return fields;
}

/** Columns a file may carry that an import reads but never writes: derived values, timestamps, the organization. */
export function readOnlyFieldsOf(spec: RegisterSpec): string[] {
  return [
    'organization_id',
    ...Object.entries(spec.fields)
      .filter(([, field]) => field.derived || field.notImported)
      .map(([name]) => name),
    ...(spec.relations ?? []).filter((relation) => relation.inverse).map((relation) => relation.field),
    'created_at',
    'updated_at',
  ];
}

/** The header of a reference's companion column that names a person by email: "Owner email". */
export function emailHeaderOf(label: string): string {
  return `${label} email`;
}

/** "Owner", "owner_id", " OWNER-ID " -> one key: case, spaces, underscores, hyphens and dots do not matter. */
export function headerKey(header: string): string {
  return header
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.]+/g, '');
}

/** What a column of the file holds. */
export type ColumnTarget =
  | { kind: 'id' }
  | { kind: 'field'; field: string; byEmail?: boolean }
  | { kind: 'read_only'; field: string }
  | { kind: 'ignored' }
  | { kind: 'unknown' };

export interface ColumnMatch {
  /** 1-based, as a spreadsheet counts. */
  column: number;
  header: string;
  target: ColumnTarget;
}

const keyCache = new WeakMap<RegisterSpec, Map<string, ColumnTarget>>();

/** Every header a column of this register is known by, as a key (headerKey). */
function columnKeys(tools: RegisterTools): Map<string, ColumnTarget> {
  const cached = keyCache.get(tools.spec);
  if (cached) return cached;
  const { spec } = tools;
  const keys = new Map<string, ColumnTarget>();
  const add = (header: string, target: ColumnTarget) => {
    const key = headerKey(header);
    if (!keys.has(key)) keys.set(key, target);
  };
  add('id', { kind: 'id' });
  add(`${spec.label} id`, { kind: 'id' });
  for (const field of importFieldsOf(tools)) {
    add(field.name, { kind: 'field', field: field.name });
    add(field.label, { kind: 'field', field: field.name });
    if (field.target === 'person' && field.kind === 'ref') {
      add(emailHeaderOf(field.label), { kind: 'field', field: field.name, byEmail: true });
      add(`${field.name.replace(/_id$/, '')}_email`, { kind: 'field', field: field.name, byEmail: true });
    }
    if (field.target) add(`${field.label} id`, { kind: 'field', field: field.name });
    if (field.target) add(`${field.label} ids`, { kind: 'field', field: field.name });
  }
  for (const name of readOnlyFieldsOf(spec)) {
    add(name, { kind: 'read_only', field: name });
    add(fieldLabelOf(spec, name), { kind: 'read_only', field: name });
  }
  add('organization', { kind: 'read_only', field: 'organization_id' });
  keyCache.set(spec, keys);
  return keys;
}

/**
 * Matches each header to a column of the register. `chosen` (header -> field name or label, or null to ignore it)
 * overrides the match of the headers it names.
 */
export function matchColumns(
  tools: RegisterTools,
  header: readonly string[],
  chosen: Readonly<Record<string, string | null>> = {},
): ColumnMatch[] {
  const keys = columnKeys(tools);
  const choices = new Map(Object.entries(chosen).map(([name, value]) => [headerKey(name), value]));
  return header.map((text, index) => {
    const key = headerKey(text);
    let target: ColumnTarget = keys.get(key) ?? { kind: 'unknown' };
    if (choices.has(key)) {
      const choice = choices.get(key);
      target =
        choice === null || choice === undefined || choice === ''
          ? { kind: 'ignored' }
          : (keys.get(headerKey(choice)) ?? { kind: 'unknown' });
    }
    return { column: index + 1, header: text, target };
  });
}

/** What a match says in a report: the field's API name, `id`, or null. */
export function matchedField(match: ColumnMatch): string | null {
  const { target } = match;
  if (target.kind === 'id') return 'id';
  if (target.kind === 'field') return target.byEmail ? `${target.field} (email)` : target.field;
  if (target.kind === 'read_only') return target.field;
  return null;
}
