// A register's get and list tools read as of a past time: the record, or a page of the records that existed then
// (created_at order, the filters applied to the rebuilt values), with the note of what history could not give.
import { and, asc, desc, eq, getTableColumns, gt, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { recordChanges } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { PAGE_SIZE } from '../fields.ts';
import {
  type CursorPayload,
  cappedCount,
  carriedCount,
  type Direction,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  TEXT_COUNT_CAP,
  TOTAL_COUNT_CAP,
} from '../pagination.ts';
import type { ToolContext } from '../types.ts';
import {
  asOfNote,
  checkAsOf,
  contextAt,
  fieldsNotInHistory,
  matchingRebuilt,
  organizationInHistory,
  rebuildRecords,
  withNeighbours,
} from './as-of.ts';
import { carriesLabels, type RegisterRecords } from './records.ts';
import type { Row } from './spec.ts';

/** The most records one as-of page rebuilds before it answers (fewer rows, with a cursor to go on). */
const WALK_LIMIT = 5_000;

const LABELS_NOTE = 'labels are the names the referenced records have today.';

function notesOf(records: RegisterRecords): string[] {
  return carriesLabels(records.spec) ? [LABELS_NOTE] : [];
}

/** A rebuilt row as the tools answer it, for the as-of day; labels only of the ids it holds then. */
function presentAt(records: RegisterRecords, row: Row, at: ToolContext): Row {
  const out = records.present(row, at);
  if (out.labels && typeof out.labels === 'object') {
    const held = new Set<string>();
    for (const value of Object.values(out)) {
      if (typeof value === 'string') held.add(value);
      else if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') held.add(item);
    }
    out.labels = Object.fromEntries(
      Object.entries(out.labels as Record<string, string>).filter(([id]) => held.has(id)),
    );
  }
  return out;
}

/** getX with as_of: the record as it stood then, or not_found naming the time when it did not exist. */
export async function getRecordAsOf(
  ctx: ToolContext,
  records: RegisterRecords,
  id: string,
  asOf: string,
): Promise<{ record: Row; at: ToolContext; note: Awaited<ReturnType<typeof asOfNote>> }> {
  checkAsOf(ctx, asOf);
  let current: Row | null = null;
  try {
    current = await records.load(ctx, id, 'read');
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'not_found') throw error;
  }
  const organizationId = current
    ? String(current.organization_id)
    : await organizationInHistory(ctx, id, records.spec.kind);
  if (!organizationId) throw notFound(records.title);
  requireOrganization(ctx, organizationId, 'read', records.title);
  const rebuilt = (
    await rebuildRecords(
      ctx,
      records,
      organizationId,
      current ? new Map([[id, current]]) : new Map(),
      current ? [] : [id],
      asOf,
    )
  ).get(id);
  if (!rebuilt?.row)
    throw new AppError('not_found', `${records.title} ${id} did not exist at ${asOf} (as_of).`);
  const at = contextAt(ctx, asOf);
  const notes = notesOf(records);
  if (rebuilt.partial)
    notes.push(
      'This record is older than its history and deleted since: only the fields its recorded changes name are known, the others are null.',
    );
  return {
    record: presentAt(records, rebuilt.row, at),
    at,
    note: await asOfNote(ctx, organizationId, asOf, fieldsNotInHistory(records), notes),
  };
}

interface Position {
  at: string;
  id: string;
}

/** A candidate of the walk: a record now in the table (its row), or one deleted since (its id only). */
interface Candidate extends Position {
  row: Row | null;
}

const after = (a: Position, b: Position, direction: Direction) =>
  direction === 'DESC'
    ? a.at < b.at || (a.at === b.at && a.id < b.id)
    : a.at > b.at || (a.at === b.at && a.id > b.id);

/**
 * listX with as_of: the records that existed at `asOf` in created_at order, rebuilt, the filter applied to the rebuilt
 * values; a walk over today's rows created by then and the records deleted since.
 */
export async function listPageAsOf(
  ctx: ToolContext,
  records: RegisterRecords,
  name: string,
  input: {
    organization_id: string;
    filter?: Record<string, unknown>;
    order_by?: { field: string; direction: Direction };
    size?: number;
    cursor?: string;
  },
  asOf: string,
): Promise<Row> {
  const { spec, table } = records;
  checkAsOf(ctx, asOf);
  const organizationId = input.organization_id;
  if (input.order_by && input.order_by.field !== 'created_at')
    throw new AppError(
      'invalid_arguments',
      `With as_of a list is sorted by created_at only (not ${input.order_by.field}): values that changed since cannot be sorted by an index.`,
      [{ path: 'order_by.field', message: 'Only created_at with as_of' }],
    );
  const direction: Direction = input.order_by?.direction ?? 'DESC';
  const at = contextAt(ctx, asOf);
  const day = records.today(at);
  const conditions: SQL[] = [];
  let query: string | null = null;
  for (const [filterName, value] of Object.entries(input.filter ?? {})) {
    if (value === undefined) continue;
    if (filterName === 'query') query = String(value).toLowerCase();
    else {
      const condition = spec.filters?.[filterName]?.where(value, day);
      if (condition) conditions.push(condition);
    }
  }
  const keyOf = new Map(
    Object.entries(getTableColumns(table) as Record<string, SQLiteColumn>).map(([key, column]) => [
      column,
      key,
    ]),
  );
  const searched = (spec.search ?? []).map((column) => keyOf.get(column) ?? column.name);
  const filtering = conditions.length > 0 || query !== null;
  const deleted = await deletedSince(ctx, records, organizationId, asOf);
  const { split } = withNeighbours(records, organizationId, asOf);
  const older = deleted.filter((item) => item.at === null).length;
  const gone: Position[] = deleted
    .filter((item): item is Position => item.at !== null)
    .sort((a, b) => (after(a, b, direction) ? 1 : after(b, a, direction) ? -1 : 0));

  /** Walks from `from`, rebuilding, until `want` matches or `limit` records; answers them and where it stopped. */
  async function walk(from: Position | null, want: number, limit: number) {
    const matches: Row[] = [];
    let position = from;
    let walked = 0;
    let exhausted = false;
    while (matches.length < want && walked < limit) {
      // A filter's first read is the page's size (most pages of a filter that matches much end there), then 4x.
      const chunk = Math.min(
        Math.max(want - matches.length, 20) * (filtering && walked > 0 ? 4 : 1),
        limit - walked,
      );
      const { rows, known } = split(
        (await walkStatement(ctx, records, direction, position !== null).all({
          organization: organizationId,
          asOf,
          at: position?.at ?? '',
          id: position?.id ?? '',
          limit: chunk,
        })) as Row[],
      );
      const last = rows.at(-1);
      const end: Position | null =
        rows.length === chunk && last ? { at: String(last.created_at), id: String(last.id) } : null;
      const candidates: Candidate[] = rows.map((row) => ({
        at: String(row.created_at),
        id: String(row.id),
        row: row as Row,
      }));
      for (const item of gone)
        if ((!position || after(item, position, direction)) && (!end || !after(item, end, direction)))
          candidates.push({ ...item, row: null });
      candidates.sort((a, b) => (after(a, b, direction) ? 1 : after(b, a, direction) ? -1 : 0));
      const rebuilt = await rebuildRecords(
        ctx,
        records,
        organizationId,
        new Map(candidates.flatMap((item) => (item.row ? [[item.id, item.row] as [string, Row]] : []))),
        candidates.filter((item) => !item.row).map((item) => item.id),
        asOf,
        known,
      );
      const rebuiltRows = candidates.map((item) => ({ item, row: rebuilt.get(item.id)?.row ?? null }));
      const kept = await matchingRebuilt(
        ctx,
        records,
        rebuiltRows.flatMap(({ row }) => (row ? [row] : [])),
        conditions,
      );
      let full = false;
      for (const { item, row } of rebuiltRows) {
        walked++;
        position = { at: item.at, id: item.id };
        if (!row || !kept.has(item.id)) continue;
        if (
          query !== null &&
          !searched.some((key) =>
            String(row[key] ?? '')
              .toLowerCase()
              .includes(query),
          )
        )
          continue;
        matches.push(row);
        if (matches.length >= want) {
          full = true;
          break;
        }
      }
      if (full) break;
      if (!end) {
        exhausted = true;
        break;
      }
      position = end;
    }
    return { matches, position, exhausted };
  }

  const size = input.size ?? PAGE_SIZE.default;
  const cursor = input.cursor ? decodeCursor(input.cursor, name, 'created_at', direction) : null;
  const fingerprint = filterFingerprint(organizationId, [input.filter ?? null, asOf]);
  const cap = query !== null ? TEXT_COUNT_CAP : TOTAL_COUNT_CAP;
  const page = await walk(cursor ? { at: String(cursor.v), id: cursor.i } : null, size + 1, WALK_LIMIT);
  let counted = carriedCount(cursor, fingerprint, cap);
  if (!counted) {
    if (!filtering) {
      const [row] = await ctx.db.all<{ n: number }>(
        sql`select count(*) as n from (select 1 from ${table} where ${table.organization_id} = ${organizationId} and ${table.created_at} <= ${asOf} limit ${cap + 1})`,
      );
      counted = cappedCount(Number(row?.n ?? 0) + gone.length, cap);
    } else {
      // With a filter, only what this page walked is counted: exact when the walk reached the end.
      counted = { total: Math.min(page.matches.length, cap), capped: !page.exhausted };
    }
  }
  const shown = page.matches.slice(0, size);
  const last = shown.at(-1);
  // After the last row shown when there is more; after the last record walked when the walk stopped at its limit.
  const stop: Position | null =
    page.matches.length > size && last
      ? { at: String(last.created_at), id: String(last.id) }
      : page.exhausted
        ? null
        : page.position;
  const payload = (position: Position): CursorPayload => ({
    l: name,
    f: 'created_at',
    d: direction,
    v: position.at,
    i: position.id,
    t: counted.total,
    c: counted.capped,
    h: fingerprint,
  });
  const notes = notesOf(records);
  if (filtering)
    notes.push(
      `Filters apply to the rebuilt values; filters that look at other records (links) read them as they are today. total_count counts the matches of the records this first page examined; total_count_capped: more records were not examined.`,
    );
  if (older > 0)
    notes.push(
      `${older} record(s) deleted after as_of are older than the history (their creation time is unknown) and are not listed.`,
    );
  return {
    [spec.listKey]: shown.map((row) => presentAt(records, row, at)),
    next_cursor: stop ? encodeCursor(payload(stop)) : null,
    total_count: counted.total,
    total_count_capped: counted.capped,
    as_of: await asOfNote(ctx, organizationId, asOf, fieldsNotInHistory(records), notes),
  };
}

/** The records of the register deleted after `asOf` that existed then: id and creation time (null: before history). */
async function deletedSince(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  asOf: string,
): Promise<{ id: string; at: string | null }[]> {
  // Raw SQL: on this path of every as-of page, the query builder costs more than the query.
  return ctx.db.all<{ id: string; at: string | null }>(
    sql`select c.record_id as id, added.created_at as at from ${recordChanges} as c
        left join ${recordChanges} as added on added.organization_id = ${organizationId}
          and added.record_id = c.record_id and added.action = 'add'
        where c.organization_id = ${organizationId} and c.kind = ${records.spec.kind} and c.action = 'delete'
          and c.created_at > ${asOf} and (added.created_at is null or added.created_at <= ${asOf})`,
  );
}

/** A walk's read of today's rows with their Neighbours: prepared once per database, register, direction and start. */
const WALKS = new WeakMap<
  ToolContext['db'],
  Map<string, { all(values: Record<string, unknown>): Promise<unknown> }>
>();

function walkStatement(ctx: ToolContext, records: RegisterRecords, direction: Direction, from: boolean) {
  let statements = WALKS.get(ctx.db);
  if (!statements) {
    statements = new Map();
    WALKS.set(ctx.db, statements);
  }
  const key = `${records.spec.kind} ${direction} ${from}`;
  let statement = statements.get(key);
  if (!statement) {
    const { table } = records;
    const at = sql.placeholder('at');
    const id = sql.placeholder('id');
    const beyond = !from
      ? undefined
      : direction === 'DESC'
        ? or(lt(table.created_at, at), and(eq(table.created_at, at), lt(table.id, id)))
        : or(gt(table.created_at, at), and(eq(table.created_at, at), gt(table.id, id)));
    const order =
      direction === 'DESC'
        ? [desc(table.created_at), desc(table.id)]
        : [asc(table.created_at), asc(table.id)];
    const organization = sql.placeholder('organization');
    const asOf = sql.placeholder('asOf');
    statement = ctx.db
      .select(withNeighbours(records, organization, asOf).selection)
      .from(table)
      .where(and(eq(table.organization_id, organization), lte(table.created_at, asOf), beyond))
      .orderBy(...order)
      .limit(sql.placeholder('limit'))
      .prepare();
    statements.set(key, statement);
  }
  return statement;
}

/**
 * Every record of a register in an organization as it stood at `asOf` (today's rows created by then, and those
 * deleted since), rebuilt: for the whole-register views (heat map, statement of applicability), not paged.
 */
export async function rebuildRegister(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  asOf: string,
  where?: SQL,
): Promise<Row[]> {
  const { table } = records;
  const neighbours = withNeighbours(records, organizationId, asOf);
  const [read, deleted] = await Promise.all([
    ctx.db
      .select(neighbours.selection)
      .from(table)
      .where(and(eq(table.organization_id, organizationId), lte(table.created_at, asOf), where)),
    deletedSince(ctx, records, organizationId, asOf),
  ]);
  const { rows, known } = neighbours.split(read as Row[]);
  const rebuilt = await rebuildRecords(
    ctx,
    records,
    organizationId,
    new Map(rows.map((row) => [String(row.id), row])),
    deleted.map((item) => item.id),
    asOf,
    known,
  );
  return [...rebuilt.values()].flatMap(({ row }) => (row ? [row] : []));
}
