// Record forms generated from the register specs and their add/update tools' input schemas; values to arguments.
import type { AppError } from '../../errors.ts';
import { jsonSchemasOf } from '../../surfaces/schemas.ts';
import { normalizeText } from '../../tools/fields.ts';
import type { RegisterKind } from '../../tools/index.ts';
import type { LinkTools } from '../../tools/registers/link-tools.ts';
import {
  allowedStates,
  fieldHintOf,
  fieldLabelOf,
  type RegisterSpec,
  singleTargetOf,
} from '../../tools/registers/spec.ts';
import type { FormBody } from '../forms.tsx';
import { valueLabel } from '../labels.ts';
import type { RegisterPage } from '../register-pages.ts';

export type FormFieldKind =
  | 'text'
  | 'textarea'
  | 'enum'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'date'
  | 'url'
  | 'email'
  | 'list'
  | 'ref'
  | 'refs';

export interface FormField {
  name: string;
  label: string;
  kind: FormFieldKind;
  /** Must be given on add and cannot be emptied on edit. */
  required: boolean;
  /** May be emptied on edit (the update tool's `clear` names it). */
  nullable: boolean;
  options: string[];
  min?: number;
  max?: number;
  maxLength?: number;
  description: string;
  /** ref/refs: the register the ids point into. */
  target?: RegisterKind;
  /** The value filled in on add when the person leaves the field alone. */
  defaultValue?: string;
  /** refs set through link/unlink tools (a risk's measure_ids) rather than the add/update arguments. */
  links?: LinkTools;
}

/** What the person typed or chose, as strings: redisplayed as is when the tool refuses them. */
export type FormValues = Record<string, string | string[]>;

interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** Arguments the form never shows: the record's identity and the stale-form guard travel as hidden fields. */
const HIDDEN_ARGUMENTS = new Set(['organization_id', 'id', 'expected_updated_at', 'clear']);
const LONG_TEXT = 500;

function kindOf(schema: JsonSchema, target: RegisterKind | undefined): FormFieldKind {
  if (schema.type === 'array') return target ? 'refs' : 'list';
  if (target) return 'ref';
  if (schema.enum) return 'enum';
  if (schema.type === 'integer') return 'integer';
  if (schema.type === 'number') return 'number';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$' || schema.format === 'date') return 'date';
  if (schema.format === 'uri') return 'url';
  if (schema.format === 'email') return 'email';
  if ((schema.maxLength ?? 0) > LONG_TEXT) return 'textarea';
  return 'text';
}

function targetOf(spec: RegisterSpec, name: string): RegisterKind | undefined {
  const relation = spec.relations?.find((item) => item.field === name);
  // A list of records of several kinds has no one picker: it is typed as ids.
  return spec.fields[name]?.ref ?? (relation ? singleTargetOf(relation) : undefined);
}

const formCache = new WeakMap<RegisterPage, FormField[]>();

/**
 * The fields of a kind's add and edit forms, in the add tool's order: what its JSON Schema says (required, enum,
 * integer bounds, dates, URLs, lists), which register a reference points into, labels and hints for people (all
 * from the spec), and relation lists that only their link tools change (a risk's measures).
 */
export function formFieldsOf(page: RegisterPage): FormField[] {
  const cached = formCache.get(page);
  if (cached) return cached;
  const { spec, tools } = page;
  const addInput = jsonSchemasOf(tools.add).input as JsonSchema;
  const updateInput = jsonSchemasOf(tools.update).input as JsonSchema;
  const required = new Set(addInput.required ?? []);
  const clearable = new Set(updateInput.properties?.clear?.items?.enum ?? []);
  const properties = { ...updateInput.properties, ...addInput.properties };
  const fields: FormField[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const fieldSpec = spec.fields[name];
    // Arguments for programs (an inline file's base64) and fields the record page edits itself stay out.
    if (
      HIDDEN_ARGUMENTS.has(name) ||
      fieldSpec?.ownControl ||
      (spec.addArguments?.onUpdate && name in spec.addArguments.shape)
    )
      continue;
    const schema = raw;
    const target = targetOf(spec, name);
    const field: FormField = {
      name,
      label: fieldLabelOf(spec, name),
      kind: kindOf(schema, target),
      required: required.has(name),
      nullable: clearable.has(name),
      options: schema.enum ?? [],
      description: fieldHintOf(spec, name),
    };
    if (schema.minimum !== undefined) field.min = schema.minimum;
    if (schema.maximum !== undefined) field.max = schema.maximum;
    if (schema.maxLength !== undefined) field.maxLength = schema.maxLength;
    if (target) field.target = target;
    if (fieldSpec?.mode === 'default' && fieldSpec.defaultValue !== undefined) {
      const value = fieldSpec.defaultValue;
      if (typeof value === 'string' || typeof value === 'number') field.defaultValue = String(value);
    }
    fields.push(field);
  }
  for (const links of tools.links) {
    const { relation } = links;
    fields.push({
      name: relation.field,
      label: fieldLabelOf(spec, relation.field),
      kind: 'refs',
      required: false,
      nullable: true,
      options: [],
      description: fieldHintOf(spec, relation.field),
      ...(singleTargetOf(relation) ? { target: singleTargetOf(relation) } : {}),
      links,
    });
  }
  formCache.set(page, fields);
  return fields;
}

/** Reads the form's fields from a posted body. */
export function valuesFromBody(fields: FormField[], body: FormBody): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const raw = body[field.name];
    const all = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
      (item): item is string => typeof item === 'string',
    );
    values[field.name] = field.kind === 'refs' ? all.flatMap(splitIds) : (all[0] ?? '');
  }
  return values;
}

/** A record's current values, as the edit form shows them. */
export function valuesFromRecord(fields: FormField[], record: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = record[field.name];
    if (field.kind === 'refs') values[field.name] = Array.isArray(value) ? value.map(String) : [];
    else if (field.kind === 'list')
      values[field.name] = Array.isArray(value) ? value.map(String).join('\n') : '';
    else if (field.kind === 'boolean') values[field.name] = value === true ? 'true' : '';
    else values[field.name] = value === null || value === undefined ? '' : String(value);
  }
  return values;
}

/** The add form's starting values: each field's default. */
export function defaultValues(fields: FormField[]): FormValues {
  return Object.fromEntries(
    fields.map((field) => [field.name, field.kind === 'refs' ? [] : (field.defaultValue ?? '')]),
  );
}

function splitIds(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

function single(values: FormValues, name: string): string {
  const value = values[name];
  return typeof value === 'string' ? value.trim() : '';
}

/**
 * The tool arguments for what the person entered. Empty fields are left out on add (so defaults apply) and
 * cleared on edit (named in `clear`, or an empty list); a required field left empty is passed on so the tool
 * refuses it and the form can say so next to the field. Values that do not parse are passed as typed, for the same
 * reason.
 */
export function argumentsFromValues(
  fields: FormField[],
  values: FormValues,
  mode: 'add' | 'update',
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const clear: string[] = [];
  for (const field of fields) {
    if (field.links) continue;
    if (field.kind === 'refs') {
      const ids = values[field.name];
      const list = Array.isArray(ids) ? ids : [];
      if (mode === 'update' || list.length > 0) args[field.name] = list;
      continue;
    }
    const text = single(values, field.name);
    if (field.kind === 'boolean') {
      args[field.name] = text === 'true' || text === 'on';
      continue;
    }
    if (field.kind === 'list') {
      const items = text
        .split(/[\n,]/)
        .map((item) => item.trim())
        .filter(Boolean);
      if (mode === 'update' || items.length > 0) args[field.name] = items;
      continue;
    }
    if (text === '') {
      if (mode === 'add' && !field.required) continue;
      if (mode === 'update' && field.nullable) clear.push(field.name);
      else args[field.name] = '';
      continue;
    }
    if (field.kind === 'integer' || field.kind === 'number') {
      args[field.name] = numberProblem(field, text) ? text : Number(text);
      continue;
    }
    args[field.name] = text;
  }
  if (clear.length > 0) args.clear = clear;
  return args;
}

/** A refused call, laid out for the form: messages next to the fields they concern, the rest above the form. */
export interface FormErrors {
  fields: Record<string, string>;
  form: string | null;
  /** The record changed since the form was loaded: offer to reload it. */
  stale: boolean;
}

export function formErrorsOf(error: AppError, fields: FormField[], values: FormValues): FormErrors {
  const names = new Set(fields.map((field) => field.name));
  const out: FormErrors = { fields: {}, form: null, stale: false };
  const details = error.details;
  if (error.code === 'invalid_transition' && details && typeof details === 'object' && 'field' in details) {
    const name = String((details as { field: unknown }).field);
    if (names.has(name)) out.fields[name] = error.message;
    else out.form = error.message;
    return out;
  }
  if (Array.isArray(details)) {
    for (const detail of details as { path?: unknown; message?: unknown }[]) {
      const name = String(detail.path ?? '').split('.')[0] ?? '';
      const message = String(detail.message ?? '');
      if (!names.has(name)) {
        out.form = out.form ? `${out.form} ${message}` : error.message;
        continue;
      }
      const field = fields.find((item) => item.name === name);
      const typed = values[name];
      const text = typeof typed === 'string' ? typed.trim() : '';
      const empty = typed === undefined || (typeof typed === 'string' ? text === '' : typed.length === 0);
      // What the form itself knows is wrong with what was typed, in its words; else the tool's message.
      const explained =
        field && empty && field.required
          ? 'This field is required.'
          : ((field && !empty ? (numberProblem(field, text) ?? lengthProblem(field, text)) : null) ??
            message);
      out.fields[name] = out.fields[name] ? `${out.fields[name]} ${explained}` : explained;
    }
    if (Object.keys(out.fields).length === 0 && !out.form) out.form = error.message;
    else if (error.code !== 'invalid_arguments' && !out.form) out.form = error.message;
    return out;
  }
  out.form = error.message;
  out.stale = error.code === 'conflict';
  return out;
}

/** For a text field, that the typed text (as the tool will normalise it) is longer than it takes. */
function lengthProblem(field: FormField, text: string): string | null {
  if (field.maxLength === undefined || field.kind === 'list') return null;
  const length = normalizeText(text, field.kind === 'textarea').length;
  return length > field.maxLength
    ? `At most ${field.maxLength.toLocaleString('en')} characters; this has ${length.toLocaleString('en')}.`
    : null;
}

/** For a number field, why the typed text is not a number of its kind (it goes to the tool as typed). */
function numberProblem(field: FormField, text: string): string | null {
  if (field.kind === 'integer') return /^[-+]?\d+$/.test(text) ? null : 'Enter a whole number.';
  if (field.kind === 'number') return /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? null : 'Enter a number.';
  return null;
}

/**
 * The fields of a record's edit form: a state field offers only the states allowed from the record's (the spec's
 * transitions, as the update tool checks them), and its hint says which.
 */
export function editFieldsOf(
  page: RegisterPage,
  fields: FormField[],
  record: Record<string, unknown>,
): FormField[] {
  return fields.map((field) => {
    const transitions = page.spec.transitions?.[field.name];
    const current = record[field.name];
    if (!transitions || typeof current !== 'string' || field.kind !== 'enum') return field;
    const options = allowedStates(page.spec, field.name, current, field.options);
    if (options.length === field.options.length) return field;
    const next = options.filter((option) => option !== current).map(valueLabel);
    const moves =
      next.length === 0
        ? `${valueLabel(current)} is final: it does not change any more.`
        : `From ${valueLabel(current)} it can move to ${next.join(' or ')} only.`;
    return { ...field, options, description: field.description ? `${field.description} ${moves}` : moves };
  });
}
