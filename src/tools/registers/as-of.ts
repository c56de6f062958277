// Reads as of a past time: a register's records rebuilt from the change history (record_changes), and the limits of
// that history said in the answer (fields it does not hold, records older than it) rather than guessed.
import {
  and,
  eq,
  getTableColumns,
  getTableName,
  inArray,
  type Placeholder,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { organizations, recordChanges } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { instantSchema } from '../changes.ts';
import type { ToolContext } from '../types.ts';
import type { RegisterRecords } from './records.ts';
import type { Row } from './spec.ts';

/** The `as_of` argument of the read tools. */
export const asOfSchema = instantSchema.describe(
  'A past time (ISO 8601; a date is its midnight UTC): read as things stood then, from history. Omit for now.',
);

export const asOfNoteSchema = z
  .object({
    time: z.string().describe('The time read (ISO 8601).'),
    history_began: z.string().nullable().describe('First recorded change; null: no history.'),
    not_reconstructed: z.array(z.string()).describe('Fields shown as today, not as they were.'),
    notes: z.array(z.string()).describe('Other limits.'),
  })
  .describe('With as_of: the limits of the rebuild.');

export type AsOfNote = z.output<typeof asOfNoteSchema>;

/** A history step as the rebuild reads it. */
interface Step {
  record_id: string;
  action: string;
  before: Row | null;
  after: Row | null;
  created_at: string;
}

/** A record rebuilt: null when it did not exist then; `partial` when it predates its history and is gone now. */
export interface RebuiltRecord {
  row: Row | null;
  partial: boolean;
}

/** Refuses an as_of later than now: the future is not in the history. */
export function checkAsOf(ctx: ToolContext, asOf: string): void {
  const now = ctx.now().toISOString();
  if (asOf > now)
    throw new AppError(
      'invalid_arguments',
      `as_of ${asOf} is in the future (now ${now}): give a past time, or omit as_of for now.`,
      [{ path: 'as_of', message: 'In the future' }],
    );
}

/** A context whose clock reads `asOf`: derived fields (overdue, due) are computed for that day. */
export function contextAt(ctx: ToolContext, asOf: string): ToolContext {
  const at = new Date(asOf);
  return { ...ctx, now: () => at };
}

/** The organization's first recorded change and its creation time, in one statement. */
export async function historyBounds(
  ctx: ToolContext,
  organizationId: string,
): Promise<{ began: string | null; created: string | null }> {
  const [row] = await ctx.db.all<{ began: string | null; created: string | null }>(
    sql`select (select min(${recordChanges.created_at}) from ${recordChanges} where ${recordChanges.organization_id} = ${organizationId}) as began,
          (select ${organizations.created_at} from ${organizations} where ${organizations.id} = ${organizationId}) as created`,
  );
  return { began: row?.began ?? null, created: row?.created ?? null };
}

/** The fields of a register its history does not hold: kept by triggers, computed by reads, or inverse lists. */
export function fieldsNotInHistory(records: RegisterRecords): string[] {
  const { spec, columns } = records;
  const out = Object.entries(spec.fields)
    .filter(([name, field]) => field.maintained || (field.derived && !(name in columns)))
    .map(([name]) => name);
  for (const relation of spec.relations ?? []) if (relation.inverse) out.push(relation.field);
  return out;
}

/** The note of an answer read as of `asOf`. */
export async function asOfNote(
  ctx: ToolContext,
  organizationId: string,
  asOf: string,
  notReconstructed: string[],
  notes: string[] = [],
): Promise<AsOfNote> {
  const { began, created } = await historyBounds(ctx, organizationId);
  const more = [...notes];
  if (created !== null && asOf < created)
    more.push(`The organization was created at ${created}, after as_of.`);
  else if (began === null)
    more.push('The organization has no recorded change: records are shown as they are now.');
  else if (asOf < began)
    more.push(
      `as_of is before the history began (${began}): records older than it show their earliest recorded state.`,
    );
  return { time: asOf, history_began: began, not_reconstructed: notReconstructed, notes: more };
}

const _STEP = {
  record_id: recordChanges.record_id,
  action: recordChanges.action,
  before: recordChanges.before,
  after: recordChanges.after,
  created_at: recordChanges.created_at,
};

/** A history value put in a row as the register's reads give it: relation lists as JSON text. */
function assign(records: RegisterRecords, row: Row, values: Row | null): void {
  if (!values) return;
  const relations = new Set((records.spec.relations ?? []).map((relation) => relation.field));
  for (const [name, value] of Object.entries(values))
    row[name] = relations.has(name) && Array.isArray(value) ? JSON.stringify(value) : value;
}

/** A value of json_each as the tools hold it: arrays and objects parsed, JSON booleans as booleans. */
function jsonValue(type: string, value: unknown): unknown {
  if (type === 'true') return true;
  if (type === 'false') return false;
  if (type === 'null') return null;
  if ((type === 'array' || type === 'object') && typeof value === 'string') return JSON.parse(value);
  return value;
}

/** The ids of `records` of an organization in chunks the SQL variable limit allows. */
function chunks<T>(items: T[], size = 400): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/**
 * A record's history rows on either side of a time, as SQL reads them: the last at or before it
 * `[action, created_at, state]` and the first after it `[action, state, before]`, JSON arrays (null: none; `next`
 * is not read when `prev` holds a state, which alone answers).
 */
export interface Neighbours {
  prev: string | null;
  next: string | null;
}

/** SQL: the Neighbours of the record whose id is `id` (a column of the outer query, or a value). */
export function neighboursOf(
  organizationId: string | Placeholder,
  kind: string,
  asOf: string | Placeholder,
  id: SQL,
): { prev: SQL; next: SQL } {
  const of = (values: SQL, side: SQL, order: SQL) =>
    sql`(select ${values} from ${recordChanges} as c indexed by record_changes_record_idx
          where c.record_id = ${id} and c.organization_id = ${organizationId} and c.kind = ${kind} and ${side}
          order by ${order} limit 1)`;
  const before = [sql`c.created_at <= ${asOf}`, sql`c.created_at desc, c.rowid desc`] as const;
  const prevHasState = of(sql`c.state is not null`, ...before);
  return {
    prev: of(sql`json_array(c.action, c.created_at, json(c.state))`, ...before),
    next: sql`case when ${prevHasState} then null else ${of(
      sql`json_array(c.action, json(c.state), json(c.before))`,
      sql`c.created_at > ${asOf}`,
      sql`c.created_at, c.rowid`,
    )} end`,
  };
}

/** A history state (record_changes.state, stored values) as a row holds it: every state key, absent ones null. */
function stateRow(records: RegisterRecords, row: Row, state: Row): void {
  const relations = new Set((records.spec.relations ?? []).map((relation) => relation.field));
  for (const name of records.stateKeys) {
    const value = state[name] ?? null;
    const column = records.columns[name];
    if (relations.has(name)) row[name] = JSON.stringify(Array.isArray(value) ? value : []);
    else row[name] = value === null || !column ? value : column.mapFromDriverValue(value);
  }
}

type Side = [string, unknown, unknown];

/**
 * A record read from its Neighbours: from the last change at or before the time (its state, or a delete), from the
 * first change after it (that state with the change's `before` undone; an add: it did not exist), or today's row when
 * nothing changed since; undefined when those rows hold no state (history written before states were kept).
 */
function fromNeighbours(
  records: RegisterRecords,
  organizationId: string,
  id: string,
  now: Row | undefined,
  neighbours: Neighbours,
): RebuiltRecord | undefined {
  const prev = neighbours.prev === null ? null : (JSON.parse(neighbours.prev) as Side);
  if (prev?.[0] === 'delete') return { row: null, partial: false };
  const base = (): Row => (now ? { ...now } : { id, organization_id: organizationId });
  if (prev && prev[2] !== null) {
    const row = base();
    stateRow(records, row, prev[2] as Row);
    row.updated_at ??= prev[1];
    return { row, partial: false };
  }
  const next = neighbours.next === null ? null : (JSON.parse(neighbours.next) as Side);
  // Nothing changed since: today's row, its stamp exact.
  if (!next) return now ? { row: { ...now }, partial: false } : undefined;
  if (next[0] === 'add') return { row: null, partial: false };
  if (next[1] === null || next[0] === 'delete') return undefined;
  const row = base();
  stateRow(records, row, next[1] as Row);
  assign(records, row, next[2] as Row | null);
  row.updated_at = prev?.[1] ?? row.created_at;
  return { row, partial: false };
}

/**
 * Records as they stood at `asOf`. Each history row written since states were kept holds the record's whole state
 * after it: a record is read from the rows beside `asOf` (fromNeighbours), one indexed lookup each side, whatever the
 * number of its changes. The others are rebuilt by undoing changes (rebuildByUndo). `known`: the Neighbours of
 * current records already read with their rows (a list page reads them in its own query).
 */
export async function rebuildRecords(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  current: Map<string, Row>,
  goneIds: string[],
  asOf: string,
  known?: Map<string, Neighbours>,
): Promise<Map<string, RebuiltRecord>> {
  const out = new Map<string, RebuiltRecord>();
  const kind = records.spec.kind;
  const ids: string[] = [];
  const undoCurrent = new Map<string, Row>();
  const undoGone: string[] = [];
  const resolve = (id: string, neighbours: Neighbours) => {
    const now = current.get(id);
    const rebuilt = fromNeighbours(records, organizationId, id, now, neighbours);
    if (rebuilt) out.set(id, rebuilt);
    else if (now) undoCurrent.set(id, now);
    else undoGone.push(id);
  };
  for (const [id, now] of current) {
    const neighbours = known?.get(id);
    if (String(now.created_at) > asOf) out.set(id, { row: null, partial: false });
    else if (neighbours) resolve(id, neighbours);
    else ids.push(id);
  }
  ids.push(...goneIds);
  for (const part of chunks(ids)) {
    const found = (await neighboursStatement(ctx, kind).all({
      organization: organizationId,
      asOf,
      ids: JSON.stringify(part),
    })) as (Neighbours & { id: string })[];
    for (const item of found) resolve(item.id, item);
  }
  if (undoCurrent.size > 0 || undoGone.length > 0)
    for (const [id, rebuilt] of await rebuildByUndo(
      ctx,
      records,
      organizationId,
      undoCurrent,
      undoGone,
      asOf,
    ))
      out.set(id, rebuilt);
  // In the order given: today's records, then those deleted since.
  const ordered = new Map<string, RebuiltRecord>();
  for (const id of [...current.keys(), ...goneIds])
    ordered.set(id, out.get(id) ?? { row: null, partial: false });
  // What a deleted record's history does not hold is answered empty (named in the note's not_reconstructed).
  for (const { row } of ordered.values()) {
    if (!row) continue;
    for (const name of Object.keys(records.selection)) if (!(name in row)) row[name] = null;
    for (const relation of records.spec.relations ?? [])
      if (typeof row[relation.field] !== 'string') row[relation.field] = '[]';
  }
  return ordered;
}

/** The Neighbours of records by id (a JSON array of ids), prepared once per database and kind. */
const NEIGHBOURS = new WeakMap<
  ToolContext['db'],
  Map<string, { all(values: Record<string, unknown>): Promise<unknown> }>
>();

function neighboursStatement(ctx: ToolContext, kind: string) {
  let statements = NEIGHBOURS.get(ctx.db);
  if (!statements) {
    statements = new Map();
    NEIGHBOURS.set(ctx.db, statements);
  }
  let statement = statements.get(kind);
  if (!statement) {
    const { prev, next } = neighboursOf(
      sql.placeholder('organization'),
      kind,
      sql.placeholder('asOf'),
      sql`j.value`,
    );
    statement = ctx.db
      .select({
        id: sql<string>`j.value`,
        prev: sql<string | null>`${prev}`,
        next: sql<string | null>`${next}`,
      })
      .from(sql`json_each(${sql.placeholder('ids')}) as j`)
      .prepare();
    statements.set(kind, statement);
  }
  return statement;
}

/**
 * Today's rows of a register with their Neighbours at `asOf` read in the same query (rebuildRecords' `known`):
 * the selection to read and how to split what it read.
 */
export function withNeighbours(
  records: RegisterRecords,
  organizationId: string | Placeholder,
  asOf: string | Placeholder,
) {
  const { prev, next } = neighboursOf(organizationId, records.spec.kind, asOf, sql`${records.table.id}`);
  return {
    selection: {
      ...records.selection,
      [PREV]: sql<string | null>`${prev}`,
      [NEXT]: sql<string | null>`${next}`,
    },
    split(read: Row[]): { rows: Row[]; known: Map<string, Neighbours> } {
      const known = new Map<string, Neighbours>();
      const rows = read.map(({ [PREV]: prev, [NEXT]: next, ...row }) => {
        known.set(String(row.id), {
          prev: (prev ?? null) as string | null,
          next: (next ?? null) as string | null,
        });
        return row;
      });
      return { rows, known };
    },
  };
}

const PREV = '__as_of_prev';
const NEXT = '__as_of_next';

/**
 * Records as they stood at `asOf` from history rows without states. A record that exists now is rebuilt backwards
 * from its current row (each later change undone with its `before`), which also holds for records older than the
 * history; one deleted since is rebuilt forwards from its history (`partial` when that history does not start with
 * its add).
 */
async function rebuildByUndo(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  current: Map<string, Row>,
  goneIds: string[],
  asOf: string,
): Promise<Map<string, RebuiltRecord>> {
  const out = new Map<string, RebuiltRecord>();
  const kind = records.spec.kind;
  const _where = (ids: string[]) =>
    and(
      eq(recordChanges.organization_id, organizationId),
      inArray(recordChanges.record_id, ids),
      eq(recordChanges.kind, kind),
    );
  const _byRecord = sql`${recordChanges} indexed by record_changes_record_idx`;
  for (const ids of chunks([...current.keys()])) {
    // Per record and field, the `before` of the first change after asOf: the value it had then. One grouped pass in
    // SQL over the record's later changes (the bare columns of min() come from the row holding the minimum).
    const undone = await ctx.db.all<{ record_id: string; key: string; type: string; value: unknown }>(
      sql`select c.record_id as record_id, j.key as key, j.type as type, j.value as value, min(c.created_at) as at
          from ${recordChanges} as c indexed by record_changes_record_idx, json_each(c.before) as j
          where c.record_id in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )}) and c.organization_id = ${organizationId} and c.kind = ${kind} and c.created_at > ${asOf}
          group by c.record_id, j.key`,
    );
    const undo = new Map<string, Row>();
    for (const item of undone) {
      const values = undo.get(item.record_id) ?? {};
      values[item.key] = jsonValue(item.type, item.value);
      undo.set(item.record_id, values);
    }
    const changed = [...undo.keys()];
    const lastBefore =
      changed.length === 0
        ? []
        : await ctx.db.all<{ record_id: string; at: string | null }>(
            sql`select j.value as record_id, (select c.created_at from ${recordChanges} as c indexed by record_changes_record_idx
                  where c.record_id = j.value and c.organization_id = ${organizationId} and c.created_at <= ${asOf}
                  order by c.created_at desc limit 1) as at
                from json_each(${JSON.stringify(changed)}) as j`,
          );
    const updated = new Map(lastBefore.map((item) => [item.record_id, item.at]));
    for (const id of ids) {
      const now = current.get(id) as Row;
      if (String(now.created_at) > asOf) {
        out.set(id, { row: null, partial: false });
        continue;
      }
      const row: Row = { ...now };
      const values = undo.get(id);
      if (values) {
        assign(records, row, values);
        // Nothing undone: today's stamp is exact (a link's touch may be 1 ms past its history row's time).
        row.updated_at = updated.get(id) ?? row.created_at;
      }
      out.set(id, { row, partial: false });
    }
  }
  for (const ids of chunks(goneIds)) {
    const read = await ctx.db.all<{
      record_id: string;
      action: string;
      before: string | null;
      after: string | null;
      created_at: string;
    }>(
      sql`select c.record_id as record_id, c.action as action, c.before as before, c.after as after, c.created_at as created_at
          from ${recordChanges} as c indexed by record_changes_record_idx
          where c.record_id in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )}) and c.organization_id = ${organizationId} and c.kind = ${kind} and c.created_at <= ${asOf}
          order by c.created_at, c.rowid`,
    );
    const steps: Step[] = read.map((step) => ({
      ...step,
      before: step.before === null ? null : (JSON.parse(step.before) as Row),
      after: step.after === null ? null : (JSON.parse(step.after) as Row),
    }));
    const rows = new Map<string, RebuiltRecord>();
    for (const step of steps) {
      const rebuilt = rows.get(step.record_id) ?? { row: null, partial: false };
      if (step.action === 'add') {
        rebuilt.row = { id: step.record_id, organization_id: organizationId, created_at: step.created_at };
        rebuilt.partial = false;
        assign(records, rebuilt.row, step.after);
      } else if (step.action === 'delete') {
        rebuilt.row = null;
      } else {
        if (!rebuilt.row) {
          // A record older than its history: only the fields its changes name are known.
          rebuilt.row = { id: step.record_id, organization_id: organizationId, created_at: null };
          rebuilt.partial = true;
          assign(records, rebuilt.row, step.before);
        }
        assign(records, rebuilt.row, step.after);
      }
      if (rebuilt.row) rebuilt.row.updated_at = step.created_at;
      rows.set(step.record_id, rebuilt);
    }
    for (const id of ids) out.set(id, rows.get(id) ?? { row: null, partial: false });
  }
  return out;
}

/** The organization of a record that history knows (a deleted one), or null. */
export async function organizationInHistory(
  ctx: ToolContext,
  id: string,
  kind: string,
): Promise<string | null> {
  const [row] = await ctx.db
    .select({ organization_id: recordChanges.organization_id })
    .from(recordChanges)
    .where(and(eq(recordChanges.record_id, id), eq(recordChanges.kind, kind)))
    .limit(1);
  return row?.organization_id ?? null;
}

/**
 * Of rebuilt rows, the ids matching SQL conditions written over the register's table: the rows are given to SQLite
 * as a common table expression of the table's own name, so a filter's SQL reads them instead of today's rows.
 */
export async function matchingRebuilt(
  ctx: ToolContext,
  records: RegisterRecords,
  rows: Row[],
  conditions: ReturnType<typeof sql>[],
): Promise<Set<string>> {
  if (conditions.length === 0 || rows.length === 0) return new Set(rows.map((row) => String(row.id)));
  const columns = Object.entries(getTableColumns(records.table) as Record<string, SQLiteColumn>).filter(
    ([name]) => name in records.columns,
  );
  const name = sql.identifier(getTableName(records.table));
  const projected = sql.join(
    columns.map(([key, column]) => sql`value ->> ${`$.${key}`} as ${sql.identifier(column.name)}`),
    sql`, `,
  );
  const out = new Set<string>();
  for (const part of chunks(rows, 500)) {
    const json = JSON.stringify(
      part.map((row) =>
        Object.fromEntries(
          columns.map(([key, column]) => [key, row[key] == null ? null : column.mapToDriverValue(row[key])]),
        ),
      ),
    );
    const found = await ctx.db.all<{ id: string }>(
      sql`with ${name} as (select ${projected} from json_each(${json})) select ${name}."id" as id from ${name} where ${and(...conditions)}`,
    );
    for (const { id } of found) out.add(id);
  }
  return out;
}
