// The register spec (one per organization-scoped kind) and the builder of its list/get/add/update/delete tools.
import { and, asc, count, desc, eq, getTableColumns, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { selectRow } from '../db/client.ts';
import { AppError, notFound } from '../errors.ts';
import { ID_PREFIXES, type IdPrefix, newId, randomBase32 } from '../ids.ts';
import { requireOrganization } from './access.ts';
import { changeAfterWrite, changesOfRows } from './changes.ts';
import {
  cursorSchema,
  directionSchema,
  idOf,
  longText,
  PAGE_SIZE,
  sizeSchema,
  timestampSchema,
} from './fields.ts';
import {
  type CountedTotal,
  type CursorPayload,
  cappedCount,
  carriedCount,
  cursorValue,
  type Direction,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  type OrderField,
  orderIndexName,
  type PageRange,
  pageRanges,
  TEXT_COUNT_CAP,
  TOTAL_COUNT_CAP,
} from './pagination.ts';
import { type TextSearch, textSearch } from './search.ts';
import {
  CHANGED_A_ROW,
  CREATE_ANNOTATIONS,
  DELETE_ANNOTATIONS,
  defineTool,
  READ_ANNOTATIONS,
  RECORD_SCHEMAS,
  SAME_AS_ADD,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from './types.ts';

export type RegisterKind =
  | 'vendor'
  | 'risk'
  | 'measure'
  | 'obligation'
  | 'person'
  | 'framework'
  | 'asset'
  | 'data_classification'
  | 'nonconformity'
  | 'continual_improvement'
  | 'audit';

export type Row = Record<string, unknown>;

export type RegisterTable = SQLiteTable &
  Record<'id' | 'organization_id' | 'created_at' | 'updated_at', SQLiteColumn>;

export interface FieldSpec {
  schema: z.ZodType;
  /** required: must be given on add; optional: nullable, may be cleared with null; default: filled on add. */
  mode: 'required' | 'optional' | 'default';
  defaultValue?: unknown;
  /** The field holds the id of another record of the same organization. */
  ref?: RegisterKind;
  /** Derived by the service: shown in output, refused on input. */
  derived?: boolean;
}

export const required = (schema: z.ZodType, ref?: RegisterKind): FieldSpec => ({
  schema,
  mode: 'required',
  ref,
});
export const optional = (schema: z.ZodType, ref?: RegisterKind): FieldSpec => ({
  schema,
  mode: 'optional',
  ref,
});
export const withDefault = (schema: z.ZodType, defaultValue: unknown): FieldSpec => ({
  schema,
  mode: 'default',
  defaultValue,
});
export const derived = (schema: z.ZodType): FieldSpec => ({ schema, mode: 'required', derived: true });

/** A many-to-many link stored in a join table, exposed as an array of ids (e.g. an asset's `vendor_ids`). */
export interface RelationSpec {
  field: string;
  table: SQLiteTable;
  ownerColumn: SQLiteColumn;
  targetColumn: SQLiteColumn;
  organizationColumn: SQLiteColumn;
  target: RegisterKind;
  /** Set through add/update (true) or only through dedicated tools such as linkRiskMeasure (false). */
  writable: boolean;
  description: string;
}

export interface FilterSpec {
  schema: z.ZodType;
  where(value: unknown, today: string): SQL | undefined;
}

export function filter<T>(
  schema: z.ZodType<T>,
  where: (value: T, today: string) => SQL | undefined,
): FilterSpec {
  return { schema, where: (value, today) => where(value as T, today) };
}

/** A filter on an enum column: one value or a list of values (any of them). */
export function enumFilter(values: z.ZodType<string>, column: SQLiteColumn, description: string): FilterSpec {
  return filter(z.union([values, z.array(values).min(1).max(20)]).describe(description), (value) =>
    Array.isArray(value) ? inArray(column, value) : eq(column, value),
  );
}

export interface RegisterSpec {
  kind: RegisterKind;
  prefix: IdPrefix;
  /** Human label, singular and plural: "data classification", "data classifications". */
  label: string;
  labelPlural: string;
  /** Tool-name nouns: getDataClassification / listDataClassifications. */
  noun: string;
  nounPlural: string;
  /** Response keys: `data_classification` / `data_classifications`. */
  key: string;
  listKey: string;
  table: RegisterTable;
  /** One sentence saying what this kind is, for the tool descriptions. */
  about: string;
  fields: Record<string, FieldSpec>;
  relations?: RelationSpec[];
  /** Fields unique within an organization (e.g. a person's email): a duplicate is a `conflict`. */
  unique?: string[];
  /** Columns searched by `filter.query` (case-insensitive substring). */
  search?: SQLiteColumn[];
  filters?: Record<string, FilterSpec>;
  /** Sort fields besides created_at and updated_at, which every register has. */
  orderFields: Record<string, OrderField>;
  /** Validates a change and fills derived columns; `current` is null on add. */
  prepare?(next: Row, current: Row | null): void;
  /** Adds derived output fields (e.g. `overdue`). */
  present?(row: Row, today: string): Row;
  /** Extra sentences for the descriptions. */
  hints?: { list?: string; add?: string; update?: string };
  /** A realistic add example, shown in the OpenAPI document of the add tool. */
  example: Record<string, unknown>;
}

/** Who points at a kind: used to keep references consistent when a record is deleted. */
export interface Reference {
  table: RegisterTable | SQLiteTable;
  column: SQLiteColumn;
  onDelete: 'set_null' | 'restrict' | 'delete_rows';
  label: string;
  /** The register whose records hold the reference field (set_null/restrict), for their change history. */
  kind?: RegisterKind;
  /** For a link row pointing at the deleted record: whose list it is part of, for that record's history. */
  listOf?: { kind: RegisterKind; field: string; relation: RelationSpec };
}

export type ReferenceGraph = Map<RegisterKind, Reference[]>;

export function buildReferenceGraph(specs: RegisterSpec[]): ReferenceGraph {
  const graph: ReferenceGraph = new Map();
  const add = (kind: RegisterKind, reference: Reference) =>
    graph.set(kind, [...(graph.get(kind) ?? []), reference]);
  for (const spec of specs) {
    const columns = getTableColumns(spec.table);
    for (const [name, field] of Object.entries(spec.fields)) {
      const column = columns[name];
      if (!field.ref || !column) continue;
      add(field.ref, {
        table: spec.table,
        column,
        onDelete: field.mode === 'required' ? 'restrict' : 'set_null',
        label: spec.labelPlural,
        kind: spec.kind,
      });
    }
    for (const relation of spec.relations ?? []) {
      add(relation.target, {
        table: relation.table,
        column: relation.targetColumn,
        onDelete: 'delete_rows',
        label: '',
        listOf: { kind: spec.kind, field: relation.field, relation },
      });
      add(spec.kind, {
        table: relation.table,
        column: relation.ownerColumn,
        onDelete: 'delete_rows',
        label: '',
      });
    }
  }
  return graph;
}

export type TableOf = (kind: RegisterKind) => RegisterTable;

// ---- schema builders --------------------------------------------------------------------------------

function outputFieldSchema(field: FieldSpec): z.ZodType {
  return field.mode === 'optional' ? field.schema.nullable() : field.schema;
}

export function recordSchema(spec: RegisterSpec): z.ZodObject {
  const shape: Record<string, z.ZodType> = {
    id: z.string().describe(`Id of the ${spec.label} (\`${spec.prefix}_...\`).`),
    organization_id: z.string().describe('Id of the organization it belongs to (`org_...`).'),
  };
  for (const [name, field] of Object.entries(spec.fields)) shape[name] = outputFieldSchema(field);
  for (const relation of spec.relations ?? [])
    shape[relation.field] = z.array(z.string()).describe(relation.description);
  shape.created_at = timestampSchema.describe('When it was created (ISO 8601).');
  shape.updated_at = timestampSchema.describe(
    'When it was last changed (ISO 8601); pass as expected_updated_at.',
  );
  return z.object(shape).describe(`${article(spec.label) === 'an' ? 'An' : 'A'} ${spec.label}.`);
}

/** An ISO 8601 date and time with its offset (`Z` or `+hh:mm`), as updated_at is written: not any text Date.parse reads. */
function isIsoTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

function addShape(spec: RegisterSpec): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {
    organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
  };
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.derived) continue;
    if (field.mode === 'required') shape[name] = field.schema;
    else if (field.mode === 'default') shape[name] = field.schema.default(field.defaultValue as never);
    else shape[name] = field.schema.nullable().optional();
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable) shape[relation.field] = relationInput(relation).optional();
  }
  return shape;
}

function updateShape(spec: RegisterSpec): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {
    id: idOf(spec.prefix, capitalize(spec.label)).describe(`\`${spec.prefix}_...\` id.`),
  };
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.derived) continue;
    const schema = describedInAdd(field.schema);
    shape[name] = (field.mode === 'optional' ? schema.nullable() : schema).optional();
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable) shape[relation.field] = describedInAdd(relationInput(relation)).optional();
  }
  shape.expected_updated_at = timestampSchema
    .refine(isIsoTime, 'Expected the updated_at you read, an ISO 8601 time such as 2026-03-01T09:30:00.000Z')
    .optional()
    .describe('The updated_at you read; if it changed since: conflict.');
  return shape;
}

/**
 * An update tool's field is the add tool's: its type and values are published once, in the add tool (the update
 * tool says "as in addX"; tools/list stays small). State fields keep their description: it names the transitions.
 */
function describedInAdd(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & { out?: z.ZodType };
  const isState = def.type === 'pipe' && def.out?._zod.def.type === 'enum';
  return schema.meta({ ...(isState ? {} : { description: undefined }), [SAME_AS_ADD]: true });
}

function relationInput(relation: RelationSpec): z.ZodType {
  const item = idOf(ID_PREFIXES[relation.target], capitalize(relation.target.replace('_', ' ')));
  return z.array(item).max(100).describe(`${relation.description} Replaces the whole list when given.`);
}

function filterSchema(spec: RegisterSpec): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  if (spec.search?.length) {
    // Normalised as stored text is (no NUL or other control character reaches the search).
    shape.query = longText(200, 1)
      .optional()
      .describe(`Searches ${spec.search.map((column) => column.name).join(', ')} (any case).`);
  }
  for (const [name, item] of Object.entries(spec.filters ?? {})) shape[name] = item.schema.optional();
  return z.strictObject(shape).optional().describe('All given must match.');
}

function orderBySchema(spec: RegisterSpec): z.ZodType {
  const fields = Object.keys(orderFieldsOf(spec)) as [string, ...string[]];
  return z
    .strictObject({
      field: z.enum(fields).describe('Field.'),
      direction: directionSchema.default('DESC').describe('Direction.'),
    })
    .optional()
    .describe('Sort; default created_at DESC.');
}

/** What the reads of one list page share. */
interface ListPage {
  organizationId: string;
  orderField: OrderField;
  orderIndex: string;
  direction: Direction;
  /** The organization and every filter but filter.query. */
  filtered: SQL | undefined;
  /** Every filter but filter.query, without the organization (for rows already walked within it). */
  filters: SQL | undefined;
  size: number;
}

type BatchList = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/** The database is reached over the network (each read a round trip), not embedded in this process. */
function isRemote(ctx: ToolContext): boolean {
  const client = (ctx.db as { $client?: { protocol?: string } }).$client;
  return client?.protocol !== 'file';
}

/**
 * A dense text walk reads at most this many index entries per row of the page before it calls the matches sparse
 * (fewer than 1 in this many rows) and reads the rest of the page from the FTS index.
 */
const DENSE_WALK_ROWS_PER_ROW = 200;

/**
 * Sort fields whose order follows the order records were written in (and so their rowids): a text search's count
 * reads the FTS index's matches from the end a page in this order starts at (see `KnownMatches`).
 */
const WRITE_ORDERED_FIELDS = new Set(['created_at', 'updated_at']);

/**
 * The matches a first page's count read (cap + 1 of them, in rowid order from one end): every match on that side of
 * `edge`, so a dense walk passes over the other rows there without reading them. `descending`: the matches with the
 * largest rowids (every match at or above `edge`); otherwise the smallest (every match at or below it).
 */
interface KnownMatches {
  rowids: string;
  edge: number;
  descending: boolean;
}

/** Marks the sparse text read, the one list statement that sorts (its matches only): see test/core/query-plans. */
export const SPARSE_TEXT_MARK = '/* sparse text matches, sorted */';

// ---- tool builder -----------------------------------------------------------------------------------

export function orderFieldsOf(spec: RegisterSpec): Record<string, OrderField> {
  return {
    created_at: { column: spec.table.created_at },
    updated_at: { column: spec.table.updated_at },
    ...spec.orderFields,
  };
}

export function registerTools(spec: RegisterSpec, graph: ReferenceGraph, tableOf: TableOf): Tool[] {
  const { table } = spec;
  const orderFields = orderFieldsOf(spec);
  const orderIndexes = Object.fromEntries(
    Object.entries(orderFields).map(([name, field]) => [name, orderIndexName(table, field.column)]),
  );
  const { write_nonce: nonceColumn, ...columns } = getTableColumns(table);
  if ((spec.relations ?? []).some((relation) => relation.writable) && !nonceColumn) {
    throw new Error(`${spec.kind}: a register with writable relations needs a write_nonce column`);
  }
  const record = recordSchema(spec);
  RECORD_SCHEMAS.set(record, { label: spec.label, spelledOutIn: `get${spec.noun}` });
  const Label = capitalize(spec.label);
  const relationColumns = Object.fromEntries(
    (spec.relations ?? []).map((relation) => [
      relation.field,
      sql<string>`(select json_group_array(${relation.targetColumn}) from ${relation.table} where ${relation.ownerColumn} = ${table.id})`,
    ]),
  );
  const selection = { ...columns, ...relationColumns };
  // The same columns as SQL expressions: list pages read `<table> indexed by <sort index>`, which drizzle does not
  // know as the table itself (it would refuse plain column references).
  const listSelection = {
    ...Object.fromEntries(
      Object.entries(columns).map(([name, column]) => [name, sql`${column}`.mapWith(column)]),
    ),
    ...relationColumns,
  };

  function today(ctx: ToolContext): string {
    return ctx.now().toISOString().slice(0, 10);
  }

  function present(row: Row, ctx: ToolContext): Row {
    const out: Row = { ...row };
    for (const relation of spec.relations ?? []) {
      const raw = row[relation.field];
      const ids = typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : [];
      out[relation.field] = ids.filter((id): id is string => typeof id === 'string').sort();
    }
    return spec.present ? spec.present(out, today(ctx)) : out;
  }

  /** The values a history entry shows: every stored field and every relation list (sorted ids). */
  function historyValues(row: Row): Row {
    const out: Row = {};
    for (const name of Object.keys(spec.fields)) if (name in columns) out[name] = row[name] ?? null;
    for (const relation of spec.relations ?? []) out[relation.field] = idList(row[relation.field]);
    return out;
  }

  /** Only the fields whose value differs, before and after. */
  function changedValues(before: Row, after: Row): { before: Row; after: Row } {
    const changed = Object.keys(after).filter(
      (name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]),
    );
    return {
      before: Object.fromEntries(changed.map((name) => [name, before[name]])),
      after: Object.fromEntries(changed.map((name) => [name, after[name]])),
    };
  }

  // get/update/delete read the record by id on every call: the statement is built once per database handle.
  const byIdStatements = new WeakMap<ToolContext['db'], ReturnType<typeof prepareById>>();
  function prepareById(db: ToolContext['db']) {
    return db
      .select(selection)
      .from(table)
      .where(eq(table.id, sql.placeholder('id')))
      .limit(1)
      .prepare();
  }

  async function load(ctx: ToolContext, id: string, mode: 'read' | 'write'): Promise<Row> {
    let byId = byIdStatements.get(ctx.db);
    if (!byId) {
      byId = prepareById(ctx.db);
      byIdStatements.set(ctx.db, byId);
    }
    const [row] = await byId.all({ id });
    if (!row) throw notFound(Label);
    requireOrganization(ctx, String(row.organization_id), mode, Label);
    return row;
  }

  /** Checks that referenced records exist in the same organization (one round trip for all of them). */
  async function checkReferences(ctx: ToolContext, organizationId: string, values: Row): Promise<void> {
    const checks: { path: string; kind: RegisterKind; ids: string[] }[] = [];
    for (const [name, field] of Object.entries(spec.fields)) {
      const value = values[name];
      if (field.ref && typeof value === 'string') checks.push({ path: name, kind: field.ref, ids: [value] });
    }
    for (const relation of spec.relations ?? []) {
      const value = values[relation.field];
      if (Array.isArray(value) && value.length > 0) {
        checks.push({ path: relation.field, kind: relation.target, ids: [...new Set(value.map(String))] });
      }
    }
    if (checks.length === 0) return;
    const queries = checks.map(({ kind, ids }) => {
      const target = tableOf(kind);
      return ctx.db
        .select({ id: target.id })
        .from(target)
        .where(and(eq(target.organization_id, organizationId), inArray(target.id, ids)));
    });
    const results = await ctx.db.batch(queries as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
    checks.forEach((check, index) => {
      const found = new Set((results[index] as { id: string }[]).map((row) => row.id));
      const missing = check.ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new AppError(
          'not_found',
          `${check.path}: no ${check.kind.replace('_', ' ')} ${missing.join(', ')} in this organization.`,
          [{ path: check.path, message: `Not found in this organization: ${missing.join(', ')}` }],
        );
      }
    });
  }

  /** SQL: `id` is a record of `kind` in the organization. */
  function existsInOrganization(kind: RegisterKind, organizationId: string, id: string): SQL {
    const target = tableOf(kind);
    return sql`exists (select 1 from ${target} where ${target.id} = ${id} and ${target.organization_id} = ${organizationId})`;
  }

  /**
   * SQL: every record the row's reference fields point at still exists. Part of the write statement itself, so a
   * record deleted between the checks and the write cannot be left pointed at.
   */
  function referencesExist(organizationId: string, values: Row): SQL {
    const conditions = Object.entries(spec.fields)
      .filter(([name, field]) => field.ref && typeof values[name] === 'string')
      .map(([name, field]) =>
        existsInOrganization(field.ref as RegisterKind, organizationId, String(values[name])),
      );
    return conditions.length > 0 ? sql.join(conditions, sql` and `) : sql`1`;
  }

  /**
   * Statements that set the relation lists given in `values`. With a `nonce` (an update), each runs only if the
   * record carries that nonce, i.e. only if the batch's update is the one that landed: a refused update
   * (conflict) leaves the lists as they were.
   */
  function relationWrites(ctx: ToolContext, id: string, organizationId: string, values: Row, nonce?: string) {
    const landed = nonce
      ? sql`exists (select 1 from ${table} where ${table.id} = ${id} and ${nonceColumn} = ${nonce})`
      : sql`exists (select 1 from ${table} where ${table.id} = ${id})`;
    const statements: BatchItem<'sqlite'>[] = [];
    for (const relation of spec.relations ?? []) {
      const value = values[relation.field];
      if (!relation.writable || !Array.isArray(value)) continue;
      if (nonce)
        statements.push(ctx.db.delete(relation.table).where(and(eq(relation.ownerColumn, id), landed)));
      for (const targetId of new Set(value.map(String))) {
        const row: Row = {
          [relation.ownerColumn.name]: id,
          [relation.targetColumn.name]: targetId,
          [relation.organizationColumn.name]: organizationId,
        };
        const condition = sql`${landed} and ${existsInOrganization(relation.target, organizationId, targetId)}`;
        statements.push(ctx.db.insert(relation.table).select(selectRow(relation.table, row, condition)));
      }
    }
    return statements;
  }

  /** After a guarded write wrote nothing: names the reference that vanished, or reports a conflict. */
  async function referenceVanished(ctx: ToolContext, organizationId: string, values: Row): Promise<never> {
    await checkReferences(ctx, organizationId, values);
    throw new AppError('conflict', `A record this ${spec.label} points at changed meanwhile. Retry.`);
  }

  /** Refuses a value that another record of the organization already has in a unique field. */
  async function checkUnique(ctx: ToolContext, organizationId: string, values: Row, exceptId: string | null) {
    for (const name of spec.unique ?? []) {
      const column = columns[name];
      const value = values[name];
      if (!column || value === undefined || value === null) continue;
      const [clash] = await ctx.db
        .select({ id: table.id })
        .from(table)
        .where(
          and(
            eq(table.organization_id, organizationId),
            eq(column, value),
            exceptId ? ne(table.id, exceptId) : undefined,
          ),
        )
        .limit(1);
      if (clash) {
        throw new AppError(
          'conflict',
          `Another ${spec.label} of this organization already has ${name} ${String(value)} (${clash.id}).`,
          [{ path: name, message: 'Already used in this organization' }],
        );
      }
    }
  }

  function columnValues(values: Row): Row {
    const out: Row = {};
    for (const name of Object.keys(values)) if (name in columns) out[name] = values[name];
    return out;
  }

  const filterArgument = filterSchema(spec);
  const listInput = z.strictObject({
    organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
    filter: filterArgument,
    order_by: orderBySchema(spec),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  });

  const listName = `list${spec.nounPlural}`;
  const list = defineTool({
    name: listName,
    title: `List ${spec.labelPlural}`,
    description: [`List an organization's ${spec.labelPlural}. ${spec.about}`, spec.hints?.list ?? '']
      .filter(Boolean)
      .join(' '),
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: spec.listKey,
    input: listInput,
    output: z.object({
      [spec.listKey]: z.array(record).describe('This page.'),
      next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
      total_count: z
        .number()
        .int()
        .nonnegative()
        .describe(
          `Matches on all pages, counted on the first page, at most ${TOTAL_COUNT_CAP} (${TEXT_COUNT_CAP} with filter.query).`,
        ),
      total_count_capped: z.boolean().describe('True: more than total_count match.'),
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      const conditions: (SQL | undefined)[] = [];
      let search: TextSearch | null = null;
      const filterValues = (input.filter ?? {}) as Row;
      for (const [name, value] of Object.entries(filterValues)) {
        if (value === undefined) continue;
        if (name === 'query') search = textSearch(table, spec.search ?? [], String(value));
        else conditions.push(spec.filters?.[name]?.where(value, today(ctx)));
      }
      const orderArgument = input.order_by as { field: string; direction: Direction } | undefined;
      const fieldName = orderArgument?.field ?? 'created_at';
      const direction: Direction = orderArgument?.direction ?? 'DESC';
      const orderField = orderFields[fieldName];
      const orderIndex = orderIndexes[fieldName];
      if (!orderField || !orderIndex) throw new AppError('invalid_arguments', `Cannot sort by ${fieldName}.`);
      const size = input.size ?? PAGE_SIZE.default;
      const filters = and(...conditions);
      const filtered = and(eq(table.organization_id, input.organization_id), filters);
      const cursor = input.cursor ? decodeCursor(input.cursor, listName, fieldName, direction) : null;
      const fingerprint = filterFingerprint(input.organization_id, input.filter);
      const cap = search ? TEXT_COUNT_CAP : TOTAL_COUNT_CAP;
      // total_count: counted on the first page (at most cap + 1 matches read), then carried in the cursor.
      const carried = carriedCount(cursor, fingerprint, cap);
      const ranges = pageRanges(orderField, table.id, direction, cursor);
      const page: ListPage = {
        organizationId: input.organization_id,
        orderField,
        orderIndex,
        direction,
        filtered,
        filters,
        size,
      };
      let rows: Row[];
      let counted: CountedTotal;
      if (search?.index) {
        // Text the FTS index can find: counted first (reading the index's matches, at most cap + 1), so the page is
        // read the way its density makes cheap.
        // Over a remote database each read is a round trip: the dense reads go with the first page's count, and a
        // walk's probe with its walk.
        const remote = isRemote(ctx);
        // The count reads its matches from the end of the rowids the page starts at, when the sort follows them:
        // an embedded dense first page then passes over the rows it knows do not match (a remote one has sent its
        // walks with the count).
        const descending = !remote && WRITE_ORDERED_FIELDS.has(fieldName) && direction === 'DESC';
        const counting = textMatchesQuery(ctx, search.index, filtered, cap, descending);
        let dense: ReturnType<typeof denseTextReads> | null = null;
        let prefetched: Row[][] | null = null;
        let found: { total: number; rowids: string; edge: number } | null = null;
        const denseReads = () => {
          const known =
            found && !remote ? { rowids: found.rowids, edge: Number(found.edge), descending } : null;
          return denseTextReads(ctx, page, search.rowTest, ranges, remote, known);
        };
        if (!carried && remote) {
          dense = denseReads();
          const [first, ...rest] = (await ctx.db.batch([
            counting,
            ...dense.walks,
            ...dense.probes,
          ] as unknown as BatchList)) as Row[][];
          found = (first?.[0] ?? null) as typeof found;
          prefetched = rest;
        } else if (!carried) [found = null] = await counting;
        counted = carried ?? cappedCount(Number(found?.total ?? 0), cap);
        // The rowids were read by another statement: each row is tested again, as it may have changed since.
        const sparse = found ? { rowids: found.rowids, test: search.rowTest } : search.index.matches;
        rows = counted.capped
          ? await denseTextPage(ctx, page, search.index.matches, ranges, dense ?? denseReads(), prefetched)
          : await sparseTextPage(ctx, page, sparse, ranges, size + 1);
      } else {
        // Each range walks the sort index (INDEXED BY: a filter's own index would need a sort of all its matches).
        const where = and(filtered, search?.rowTest);
        const walks = ranges.map((range) => walkRange(ctx, page, where, range));
        const counting = carried
          ? []
          : [
              ctx.db.select({ total: count() }).from(
                ctx.db
                  .select({ one: sql`1` })
                  .from(table)
                  .where(where)
                  .limit(cap + 1)
                  .as('matches'),
              ),
            ];
        const results = await ctx.db.batch([...walks, ...counting] as unknown as BatchList);
        rows = (results.slice(0, walks.length) as Row[][]).flat();
        counted = carried ?? cappedCount(Number((results[walks.length] as Row[])[0]?.total ?? 0), cap);
      }
      const { total: total_count, capped: total_count_capped } = counted;
      const shown = rows.slice(0, size);
      const last = shown.at(-1);
      const payload = (row: Row): CursorPayload => ({
        l: listName,
        f: fieldName,
        d: direction,
        v: cursorValue(orderField, row),
        i: String(row.id),
        t: total_count,
        c: total_count_capped,
        h: fingerprint,
      });
      return {
        [spec.listKey]: shown.map((row) => present(row, ctx)),
        next_cursor: rows.length > size && last ? encodeCursor(payload(last)) : null,
        total_count,
        total_count_capped,
      };
    },
  });

  /** One range of a list page read along its sort index (INDEXED BY), `where` tested on each row, size + 1 rows. */
  function walkRange(ctx: ToolContext, page: ListPage, where: SQL | undefined, range: PageRange) {
    return ctx.db
      .select(listSelection)
      .from(sql`${table} indexed by ${sql.identifier(page.orderIndex)}`)
      .where(and(where, range.where))
      .orderBy(...range.orderBy)
      .limit(page.size + 1);
  }

  /**
   * The matches of a text search, for total_count: the FTS index's matches read first, in rowid order (`descending`:
   * from the largest), each checked against its row, stopping after cap + 1. Their rowids: a sparse first page is
   * read from them, a dense one passes over the rows it knows do not match. `edge`: the last rowid read.
   */
  function textMatchesQuery(
    ctx: ToolContext,
    index: NonNullable<TextSearch['index']>,
    filtered: SQL | undefined,
    cap: number,
    descending: boolean,
  ) {
    const found = ctx.db
      .select({ rowid: sql<number>`${table}.rowid`.as('found_rowid') })
      .from(index.first)
      .where(filtered)
      .orderBy(descending ? desc(index.rowid) : asc(index.rowid))
      .limit(cap + 1)
      .as('found');
    return ctx.db
      .select({
        total: count(),
        rowids: sql<string>`json_group_array(${found.rowid})`,
        edge: sql<number>`${descending ? sql`min` : sql`max`}(${found.rowid})`,
      })
      .from(found);
  }

  /**
   * A page of sparse text matches (at most about the count cap, or few past a dense walk's fence): every match in
   * the ranges, looked up by rowid (NOT INDEXED: no other index), sorted, size + 1 kept. O(matches). `matches`: the
   * FTS index's (read again), or the rowids a first page's count just read (a JSON array) with the row test.
   */
  function sparseTextPage(
    ctx: ToolContext,
    page: ListPage,
    matches: SQL | { rowids: string; test: SQL },
    ranges: PageRange[],
    limit: number,
  ): Promise<Row[]> {
    if (ranges.length === 0 || limit <= 0) return Promise.resolve([]);
    const match =
      'rowids' in matches
        ? and(sql`${table}.rowid in (select value from json_each(${matches.rowids}))`, matches.test)
        : matches;
    const reads = ranges.map((range) =>
      ctx.db
        .select(listSelection)
        .from(sql`${table} not indexed ${sql.raw(SPARSE_TEXT_MARK)}`)
        .where(and(page.filtered, match, range.where))
        .orderBy(...range.orderBy)
        .limit(limit),
    );
    return ctx.db.batch(reads as unknown as BatchList).then((results) => (results as Row[][]).flat());
  }

  /**
   * The reads of a page of dense text matches (more than the count cap): each range walks its sort index testing
   * each row, at most DENSE_WALK_ROWS_PER_ROW x (size + 1) index entries (a co-routine over the covering index, each
   * rowid joined to its row; rows come out in the index's order). A walk that ends short either finished its range
   * or reached that fence, which its probe tells: the row at the fence, if any. `withProbes`: the probes are read
   * with the walks (one round trip); otherwise only after a walk that ended short. `known`: the walks pass over the
   * index entries the first page's count knows are not matches, without reading their rows (a known match is
   * tested again: it may have changed since).
   */
  function denseTextReads(
    ctx: ToolContext,
    page: ListPage,
    rowTest: SQL,
    ranges: PageRange[],
    withProbes: boolean,
    known: KnownMatches | null,
  ) {
    const fence = DENSE_WALK_ROWS_PER_ROW * (page.size + 1);
    const walkedRowid = sql.identifier('walked_rowid');
    const walked = sql.identifier('walked');
    const inRange = (range: PageRange) => and(eq(table.organization_id, page.organizationId), range.where);
    const index = sql`${table} indexed by ${sql.identifier(page.orderIndex)}`;
    const column = page.orderField.column;
    const probe = (range: PageRange) =>
      ctx.db
        .select({ [column.name]: sql`${column}`.mapWith(column), id: sql<string>`${table.id}` })
        .from(index)
        .where(inRange(range))
        .orderBy(...range.orderBy)
        .limit(1)
        .offset(fence - 1);
    return {
      walks: ranges.map((range) =>
        ctx.db
          .select(listSelection)
          .from(
            sql`(select rowid as ${walkedRowid} from ${index} where ${inRange(range)} order by ${sql.join(range.orderBy, sql`, `)} limit ${fence}) as ${walked} cross join ${table}`,
          )
          .where(
            and(
              sql`${table}.rowid = ${walked}.${walkedRowid}`,
              // Only the walked rowid: tested before the row is looked up. The count was another statement: a row
              // edited to match since, on its known side, is passed over (README: as if edited just after the page).
              known
                ? sql`(${walked}.${walkedRowid} ${sql.raw(known.descending ? '<' : '>')} ${known.edge} or ${walked}.${walkedRowid} in (select value from json_each(${known.rowids})))`
                : undefined,
              page.filters,
              rowTest,
            ),
          )
          .limit(page.size + 1),
      ),
      probes: withProbes ? ranges.map(probe) : [],
      probe,
    };
  }

  /**
   * A page of dense text matches from `denseTextReads` (read here unless `prefetched`: the walks' rows, then the
   * probes'). Past a walk's fence the matches are sparse: the rest of the page is read from the FTS index.
   */
  async function denseTextPage(
    ctx: ToolContext,
    page: ListPage,
    matches: SQL,
    ranges: PageRange[],
    reads: ReturnType<typeof denseTextReads>,
    prefetched: Row[][] | null,
  ): Promise<Row[]> {
    const results =
      prefetched ??
      ((await ctx.db.batch([...reads.walks, ...reads.probes] as unknown as BatchList)) as Row[][]);
    const rows: Row[] = [];
    for (const [at, range] of ranges.entries()) {
      rows.push(...(results[at] ?? []));
      if (rows.length > page.size) break;
      const [last] = reads.probes.length > 0 ? (results[ranges.length + at] ?? []) : await reads.probe(range);
      if (!last) continue; // the walk finished its range
      const after = pageRanges(page.orderField, table.id, page.direction, {
        f: '',
        d: page.direction,
        v: cursorValue(page.orderField, last),
        i: String(last.id),
      });
      rows.push(...(await sparseTextPage(ctx, page, matches, after, page.size + 1 - rows.length)));
      break;
    }
    return rows;
  }

  const idInput = () =>
    z.strictObject({
      id: idOf(spec.prefix, Label).describe(`\`${spec.prefix}_...\` id.`),
    });
  const single = z.object({ [spec.key]: record });

  const get = defineTool({
    name: `get${spec.noun}`,
    title: `Get ${spec.label}`,
    description: `Get one ${spec.label} by id.`,
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: spec.listKey,
    input: idInput(),
    output: single,
    async run(ctx, input) {
      return { [spec.key]: present(await load(ctx, input.id, 'read'), ctx) };
    },
  });

  const add = defineTool({
    name: `add${spec.noun}`,
    title: `Add ${spec.label}`,
    description: [`Create ${article(spec.label)} ${spec.label} and return it.`, spec.hints?.add ?? '']
      .filter(Boolean)
      .join(' '),
    scope: 'write',
    annotations: CREATE_ANNOTATIONS,
    toolset: spec.listKey,
    input: z.strictObject(addShape(spec)),
    example: spec.example,
    output: single,
    async run(ctx, input) {
      const { organization_id, ...values } = input as Row & { organization_id: string };
      requireOrganization(ctx, organization_id, 'write');
      await checkReferences(ctx, organization_id, values);
      await checkUnique(ctx, organization_id, values, null);
      const timestamp = ctx.now().toISOString();
      const id = newId(spec.prefix);
      const next: Row = {};
      for (const [name, field] of Object.entries(spec.fields)) {
        if (!field.derived)
          next[name] = values[name] ?? (field.mode === 'default' ? field.defaultValue : null);
      }
      spec.prepare?.(next, null);
      const row = {
        ...columnValues(next),
        id,
        organization_id,
        created_at: timestamp,
        updated_at: timestamp,
      };
      const [inserted] = await ctx.db.batch([
        ctx.db
          .insert(table)
          .select(selectRow(table, row, referencesExist(organization_id, next)))
          .returning({ id: table.id }),
        changeAfterWrite(ctx, {
          tool: `add${spec.noun}`,
          kind: spec.kind,
          recordId: id,
          organizationId: organization_id,
          action: 'add',
          before: null,
          after: historyValues({ ...values, ...next }),
          at: timestamp,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        ...relationWrites(ctx, id, organization_id, values),
      ]);
      if ((inserted as unknown[]).length === 0) await referenceVanished(ctx, organization_id, values);
      return { [spec.key]: present(await load(ctx, id, 'read'), ctx) };
    },
  });

  const update = defineTool({
    name: `update${spec.noun}`,
    title: `Update ${spec.label}`,
    description: [
      `Change ${article(spec.label)} ${spec.label}: id + fields to change as in add${spec.noun} (null clears one).`,
      spec.hints?.update ?? '',
    ]
      .filter(Boolean)
      .join(' '),
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: spec.listKey,
    input: z.strictObject(updateShape(spec)),
    output: single,
    async run(ctx, input) {
      const { id, expected_updated_at, ...changes } = input as Row & {
        id: string;
        expected_updated_at?: string;
      };
      const current = await load(ctx, id, 'write');
      const organizationId = String(current.organization_id);
      // Compared as instants: the same time written with an offset, or without milliseconds, is no conflict.
      if (
        expected_updated_at !== undefined &&
        Date.parse(expected_updated_at) !== Date.parse(String(current.updated_at))
      ) {
        throw new AppError(
          'conflict',
          `This ${spec.label} changed since ${expected_updated_at} (now ${String(current.updated_at)}). Get it again and retry.`,
        );
      }
      const provided = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      await checkReferences(ctx, organizationId, provided);
      await checkUnique(ctx, organizationId, provided, id);
      const next: Row = { ...current, ...provided };
      spec.prepare?.(next, current);
      const change = changedValues(historyValues(current), historyValues(next));
      const sameColumns = Object.keys(columns).every(
        (name) => JSON.stringify(current[name] ?? null) === JSON.stringify(next[name] ?? null),
      );
      // Nothing would change: no write, so updated_at stays (a client holding it keeps a valid expected_updated_at)
      // and no empty change lands in the history. The record is the row just read.
      if (Object.keys(change.before).length === 0 && sameColumns)
        return { [spec.key]: present(current, ctx) };
      const previous = String(current.updated_at);
      const now = ctx.now().toISOString();
      // Strictly later than the previous value, so optimistic checks never see two versions with one stamp.
      const updatedAt = now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
      const set: Row = { ...columnValues(next), updated_at: updatedAt };
      for (const fixed of ['id', 'organization_id', 'created_at']) delete set[fixed];
      const nonce = nonceColumn ? randomBase32(16) : undefined;
      if (nonce) set.write_nonce = nonce;
      const [updated] = await ctx.db.batch([
        ctx.db
          .update(table)
          .set(set as never)
          .where(and(eq(table.id, id), eq(table.updated_at, previous), referencesExist(organizationId, next)))
          .returning({ id: table.id }),
        changeAfterWrite(ctx, {
          tool: `update${spec.noun}`,
          kind: spec.kind,
          recordId: id,
          organizationId,
          action: 'update',
          ...change,
          at: updatedAt,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        ...relationWrites(ctx, id, organizationId, provided, nonce),
      ]);
      if ((updated as unknown[]).length === 0) {
        await checkReferences(ctx, organizationId, next);
        throw new AppError(
          'conflict',
          `This ${spec.label} was changed by another request at the same time. Get it again and retry.`,
        );
      }
      return { [spec.key]: present(await load(ctx, id, 'read'), ctx) };
    },
  });

  const references = graph.get(spec.kind) ?? [];
  const remove = defineTool({
    name: `delete${spec.noun}`,
    title: `Delete ${spec.label}`,
    description: [
      `Delete ${article(spec.label)} ${spec.label}; cannot be undone.`,
      references.some((reference) => reference.onDelete === 'set_null')
        ? `Fields pointing at it are cleared.`
        : '',
      references.some((reference) => reference.onDelete === 'restrict')
        ? `Refused (conflict) while ${references
            .filter((reference) => reference.onDelete === 'restrict')
            .map((reference) => reference.label)
            .join(', ')} still point at it.`
        : '',
    ]
      .filter(Boolean)
      .join(' '),
    scope: 'write',
    annotations: DELETE_ANNOTATIONS,
    toolset: spec.listKey,
    input: idInput(),
    output: z
      .object({ id: z.string().describe('Id of the deleted record.'), deleted: z.literal(true) })
      .describe('{id, deleted: true}'),
    async run(ctx, input) {
      const current = await load(ctx, input.id, 'write');
      const restricting = references.filter((reference) => reference.onDelete === 'restrict');
      const refuseIfReferenced = async () => {
        for (const reference of restricting) {
          const [row] = await ctx.db
            .select({ n: count() })
            .from(reference.table)
            .where(eq(reference.column, input.id));
          if (row && row.n > 0) {
            throw new AppError(
              'conflict',
              `Cannot delete this ${spec.label}: ${reference.label} still point at it (${row.n}). Delete or change those first.`,
            );
          }
        }
      };
      await refuseIfReferenced();
      // The same checks inside the statements: a reference added meanwhile keeps the record, and the clean-up of
      // the records that pointed at it runs only once it is really gone.
      const unreferenced = restricting.map(
        (reference) =>
          sql`not exists (select 1 from ${reference.table} where ${reference.column} = ${input.id})`,
      );
      const gone = sql`not exists (select 1 from ${table} where ${table.id} = ${input.id})`;
      const now = ctx.now().toISOString();
      const cleanup: BatchItem<'sqlite'>[] = references
        .filter((reference) => reference.onDelete !== 'restrict')
        .map((reference) => {
          const where = and(eq(reference.column, input.id), gone);
          if (reference.onDelete === 'delete_rows') return ctx.db.delete(reference.table).where(where);
          // Clearing the field changes those records: their updated_at moves, so stale updates of them conflict.
          const touched = 'updated_at' in getTableColumns(reference.table) ? { updated_at: now } : {};
          return ctx.db
            .update(reference.table)
            .set({ [reference.column.name]: null, ...touched } as never)
            .where(where);
        });
      const tool = `delete${spec.noun}`;
      const [deleted] = await ctx.db.batch([
        ctx.db
          .delete(table)
          .where(and(eq(table.id, input.id), ...unreferenced))
          .returning({ id: table.id }),
        changeAfterWrite(ctx, {
          tool,
          kind: spec.kind,
          recordId: input.id,
          organizationId: String(current.organization_id),
          action: 'delete',
          before: historyValues(current),
          after: null,
          at: now,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        // Before the clean-up: the records it changes get their own history rows.
        ...references.flatMap((reference) => cascadeChanges(ctx, tool, reference, input.id, gone, now)),
        ...cleanup,
      ]);
      if ((deleted as unknown[]).length === 0) {
        await refuseIfReferenced();
        throw notFound(Label);
      }
      return { id: input.id, deleted: true as const };
    },
  });

  return [list, get, add, update, remove];
}

/**
 * History rows for the records a delete changes besides the deleted one: those whose reference field it clears,
 * and those whose relation list (e.g. an asset's vendor_ids) loses it. Run before the clean-up, only once the
 * record is gone.
 */
function cascadeChanges(
  ctx: ToolContext,
  tool: string,
  reference: Reference,
  deletedId: string,
  gone: SQL,
  at: string,
): BatchItem<'sqlite'>[] {
  const where = and(eq(reference.column, deletedId), gone) as SQL;
  if (reference.onDelete === 'set_null' && reference.kind) {
    const referring = reference.table as RegisterTable;
    return [
      changesOfRows(ctx, {
        tool,
        kind: reference.kind,
        table: referring,
        idColumn: referring.id,
        organizationColumn: referring.organization_id,
        before: sql`json_object(${reference.column.name}, ${reference.column})`,
        after: sql`json_object(${reference.column.name}, null)`,
        at,
        where,
      }),
    ];
  }
  if (reference.onDelete === 'delete_rows' && reference.listOf) {
    const { kind, field, relation } = reference.listOf;
    // The owner's list as a sorted JSON array, with or without the deleted id; `inner` aliases the link table so
    // the bare column names refer to the outer row.
    const target = sql`inner_link.${sql.identifier(relation.targetColumn.name)}`;
    const owner = sql`inner_link.${sql.identifier(relation.ownerColumn.name)}`;
    const list = (withDeleted: boolean) =>
      sql`json((select json_group_array(x) from (select ${target} as x from ${relation.table} as inner_link where ${owner} = ${relation.ownerColumn}${withDeleted ? sql`` : sql` and ${target} != ${deletedId}`} order by x)))`;
    return [
      changesOfRows(ctx, {
        tool,
        kind,
        table: relation.table,
        idColumn: relation.ownerColumn,
        organizationColumn: relation.organizationColumn,
        before: sql`json_object(${field}, ${list(true)})`,
        after: sql`json_object(${field}, ${list(false)})`,
        at,
        where,
      }),
    ];
  }
  return [];
}

/** A relation list as stored or read back (JSON text or array): unique ids, sorted. */
function idList(raw: unknown): string[] {
  const ids = typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : Array.isArray(raw) ? raw : [];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))].sort();
}

/** "a" or "an" before a label. */
export function article(label: string): 'a' | 'an' {
  return /^[aeiou]/i.test(label) ? 'an' : 'a';
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
