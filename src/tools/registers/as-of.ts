// Reads as of a past time: a register's records rebuilt from the change history (record_changes), and the limits of
// that history said in the answer (fields it does not hold, records older than it) rather than guessed.
import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  getTableName,
  gt,
  inArray,
  lte,
  max,
  min,
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
  'Read as things stood at this past time (ISO 8601; a date is its midnight UTC), rebuilt from the change history. Omit for now.',
);

export const asOfNoteSchema = z
  .object({
    time: z.string().describe('The time read (ISO 8601).'),
    history_began: z
      .string()
      .nullable()
      .describe("The organization's first recorded change; nothing earlier is known. Null: no history."),
    not_reconstructed: z
      .array(z.string())
      .describe('Fields history does not hold: shown as read today, not as they were.'),
    notes: z.array(z.string()).describe('Other limits of this answer.'),
  })
  .describe('Given with as_of: what was rebuilt from history and what could not be.');

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

/** The organization's first recorded change and its creation time. */
export async function historyBounds(
  ctx: ToolContext,
  organizationId: string,
): Promise<{ began: string | null; created: string | null }> {
  const [[first], [organization]] = await ctx.db.batch([
    ctx.db
      .select({ at: min(recordChanges.created_at) })
      .from(recordChanges)
      .where(eq(recordChanges.organization_id, organizationId)),
    ctx.db
      .select({ at: organizations.created_at })
      .from(organizations)
      .where(eq(organizations.id, organizationId)),
  ]);
  return { began: first?.at ?? null, created: organization?.at ?? null };
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

const STEP = {
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

/** The ids of `records` of an organization in chunks the SQL variable limit allows. */
function chunks<T>(items: T[], size = 400): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/**
 * Records as they stood at `asOf`. A record that exists now is rebuilt backwards from its current row (each later
 * change undone with its `before`), which also holds for records older than the history; one deleted since is
 * rebuilt forwards from its history (`partial` when that history does not start with its add).
 */
export async function rebuildRecords(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  current: Map<string, Row>,
  goneIds: string[],
  asOf: string,
): Promise<Map<string, RebuiltRecord>> {
  const out = new Map<string, RebuiltRecord>();
  const kind = records.spec.kind;
  const where = (ids: string[]) =>
    and(
      eq(recordChanges.organization_id, organizationId),
      inArray(recordChanges.record_id, ids),
      eq(recordChanges.kind, kind),
    );
  for (const ids of chunks([...current.keys()])) {
    const [later, lastBefore] = await ctx.db.batch([
      ctx.db
        .select(STEP)
        .from(recordChanges)
        .where(and(where(ids), gt(recordChanges.created_at, asOf)))
        .orderBy(desc(recordChanges.created_at), sql`${recordChanges}.rowid desc`),
      ctx.db
        .select({ record_id: recordChanges.record_id, at: max(recordChanges.created_at) })
        .from(recordChanges)
        .where(and(where(ids), lte(recordChanges.created_at, asOf)))
        .groupBy(recordChanges.record_id),
    ]);
    const undo = new Map<string, Step[]>();
    for (const step of later as Step[]) undo.set(step.record_id, [...(undo.get(step.record_id) ?? []), step]);
    const updated = new Map(lastBefore.map((item) => [item.record_id, item.at]));
    for (const id of ids) {
      const now = current.get(id) as Row;
      if (String(now.created_at) > asOf) {
        out.set(id, { row: null, partial: false });
        continue;
      }
      const row: Row = { ...now };
      let existed = true;
      for (const step of undo.get(id) ?? []) {
        if (step.action === 'add') {
          existed = false;
          break;
        }
        assign(records, row, step.before);
      }
      // Nothing undone: today's stamp is exact (a link's touch may be 1 ms past its history row's time).
      if (existed && undo.has(id)) row.updated_at = updated.get(id) ?? row.created_at;
      out.set(id, { row: existed ? row : null, partial: false });
    }
  }
  for (const ids of chunks(goneIds)) {
    const steps = (await ctx.db
      .select(STEP)
      .from(recordChanges)
      .where(and(where(ids), lte(recordChanges.created_at, asOf)))
      .orderBy(asc(recordChanges.created_at), sql`${recordChanges}.rowid`)) as Step[];
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
  // What a deleted record's history does not hold is answered empty (named in the note's not_reconstructed).
  for (const { row } of out.values()) {
    if (!row) continue;
    for (const name of Object.keys(records.selection)) if (!(name in row)) row[name] = null;
    for (const relation of records.spec.relations ?? [])
      if (typeof row[relation.field] !== 'string') row[relation.field] = '[]';
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
