// The read strategies of a list page: a walk along the sort index, and for text the FTS index can find, a count of
// its matches followed by a dense walk or a sparse read of the matches, whichever their density makes cheap.
import type { InArgs } from '@libsql/client';
import { and, asc, count, desc, eq, fillPlaceholders, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { clientOf } from '../../db/client.ts';
import { rowMapper } from '../../db/rows.ts';
import {
  type CountedTotal,
  type CursorPayload,
  cappedCount,
  cursorValue,
  type Direction,
  type OrderField,
  type PageRange,
  pageRanges,
} from '../pagination.ts';
import type { TextSearch } from '../search.ts';
import type { ToolContext } from '../types.ts';
import type { RegisterRecords } from './records.ts';
import { type FilterLead, type Row, SPARSE_ID } from './spec.ts';

/** What the reads of one list page share. */
export interface ListPage {
  organizationId: string;
  orderField: OrderField;
  orderIndex: string;
  /** The sort field's name (created_at, name, ...). */
  fieldName: string;
  direction: Direction;
  /** The organization and every filter but filter.query. */
  filtered: SQL | undefined;
  /** The same as a first page's count reads it (each filter's `count` form where it has one: FilterSpec). */
  countFiltered: SQL | undefined;
  /** Every filter but filter.query, without the organization (for rows already walked within it). */
  filters: SQL | undefined;
  size: number;
  /** The key ranges the page reads, in order (one, or two around NULLs of a nullable sort field). */
  ranges: PageRange[];
  /** total_count carried from the first page by the cursor; null on a first page, which counts. */
  carried: CountedTotal | null;
  /** The most matches a count reads. */
  cap: number;
  /** The cursor the page starts after; null on a first page. */
  cursor: CursorPayload | null;
  /** A filter's own matches (FilterSpec.matches), read instead of the walk while they are few. */
  sparse?: SQL | undefined;
  /** A link filter's links, read in the page's order instead of the walk (FilterSpec.lead). */
  lead?: PageLead | undefined;
}

/** FilterSpec.lead for this page: the link's column of its sort field; `alone`: no other filter (its links counted). */
export interface PageLead extends FilterLead {
  column: SQLiteColumn;
  alone: boolean;
}

/** A page's rows (size + 1 at most: one more tells there is a next page) and total_count. */
export interface PageRows {
  rows: Row[];
  counted: CountedTotal;
}

type BatchList = [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]];

/**
 * Statements run as one batch (one transaction, as db.batch runs them) on the database's client, their rows left to
 * the caller to map: a list page's rows go through a mapper made once per register (listRowMapper), not drizzle's
 * mapping, which asks what each field is for every row.
 */
function runBatch(ctx: ToolContext, statements: Rendered[]) {
  return clientOf(ctx.db).batch(
    statements.map(({ sql: text, params }) => ({ sql: text, args: params as InArgs })),
  );
}

const listRowMappers = new WeakMap<RegisterRecords, ReturnType<typeof rowMapper>>();

/** The mapper of a register's list rows (its listSelection). */
function listRowMapper(records: RegisterRecords) {
  let mapper = listRowMappers.get(records);
  if (!mapper) {
    mapper = rowMapper(records.listSelection);
    listRowMappers.set(records, mapper);
  }
  return mapper;
}

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

/**
 * A page without an indexed text search: each range walks the sort index (INDEXED BY: a filter's own index would
 * need a sort of all its matches), `rowTest` (short text) tested on each row; counted with it on a first page.
 */
export async function walkedPage(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  rowTest: SQL | undefined,
): Promise<PageRows> {
  if (page.lead) return ledPage(ctx, records, { ...page, lead: page.lead }, rowTest);
  if (page.sparse) {
    const sparse = await sparseFilterPage(ctx, records, { ...page, sparse: page.sparse }, rowTest);
    if (sparse) return sparse;
  }
  // A page without filters (the most frequent call) runs statements rendered once per shape; others are built.
  const statements =
    page.filters === undefined && rowTest === undefined
      ? unfilteredStatements(ctx, records, page)
      : builtStatements(ctx, records, page, rowTest);
  const results = await runBatch(ctx, statements);
  const walks = page.ranges.length;
  const mapRow = listRowMapper(records);
  return {
    rows: results.slice(0, walks).flatMap((result) => result.rows.map(mapRow)),
    counted: page.carried ?? cappedCount(Number(results[walks]?.rows[0]?.[0] ?? 0), page.cap),
  };
}

/** A walked page's statements, built for this page. */
export function builtStatements(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  rowTest: SQL | undefined,
): Rendered[] {
  return walkQueries(ctx, records, page, rowTest, page.ranges, page.size + 1).map((query) => query.toSQL());
}

/** A page's walks along its ranges, `rowTest` (short text) tested on each row, and on a first page its count. */
function walkQueries(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  rowTest: SQL | undefined,
  ranges: PageRange[],
  limit: number | Placeholder,
) {
  const where = and(page.filtered, rowTest);
  const walks = ranges.map((range) => walkRange(ctx, records, page, where, range, limit));
  return [...walks, ...(page.carried ? [] : [countQuery(ctx, records, page, rowTest)])];
}

/** A first page's count: at most cap + 1 matches read, in no order. */
function countQuery(ctx: ToolContext, records: RegisterRecords, page: ListPage, rowTest: SQL | undefined) {
  return ctx.db.select({ total: count() }).from(
    ctx.db
      .select({ one: sql`1` })
      .from(records.table)
      .where(and(page.countFiltered, rowTest))
      .limit(page.cap + 1)
      .as('matches'),
  );
}

/** A page's reads, one per range, of the records joined to `from` (ids found there, in `id`), size + 1 kept. */
function joinedReads(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  from: SQL,
  id: SQL,
  ranges: PageRange[],
  rowTest: SQL | undefined,
) {
  return ranges.map((range) =>
    ctx.db
      .select(records.listSelection)
      .from(from)
      .where(and(sql`${records.table.id} = ${id}`, page.filtered, rowTest, range.where))
      .orderBy(...range.orderBy)
      .limit(page.size + 1),
  );
}

/** Marks the sparse filter read, which sorts the few matches of a filter (FilterSpec.matches): see test/core/query-plans. */
export const SPARSE_FILTER_MARK = '/* sparse filter matches, sorted */';

/**
 * A page of a filter that matches few records (FilterSpec.matches): at most cap + 1 of its matches read from their
 * own index and counted, and in the same batch the page read from them (each looked up by id, sorted, size + 1
 * kept), with a first page's count. O(matches) whatever the register's size. Null when the filter matches more than
 * the cap: the page is then walked along its sort index like any other.
 */
async function sparseFilterPage(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage & { sparse: SQL },
  rowTest: SQL | undefined,
): Promise<PageRows | null> {
  const { table } = records;
  const matched = sql.identifier('sparse_matches');
  const id = sql.identifier(SPARSE_ID);
  const limited = sql`(select distinct ${id} from (${page.sparse}) limit ${page.cap + 1}) as ${matched}`;
  const found = ctx.db.select({ n: count() }).from(sql`${limited} ${sql.raw(SPARSE_FILTER_MARK)}`);
  const joined = sql`${limited} cross join ${table} ${sql.raw(SPARSE_FILTER_MARK)}`;
  const reads = joinedReads(ctx, records, page, joined, sql`${matched}.${id}`, page.ranges, rowTest);
  const counting = page.carried ? [] : [countQuery(ctx, records, page, rowTest)];
  const [matches, ...rest] = (await ctx.db.batch([
    found,
    ...counting,
    ...reads,
  ] as unknown as BatchList)) as Row[][];
  if (Number(matches?.[0]?.n ?? 0) > page.cap) return null;
  const total = page.carried ? null : rest.shift();
  return {
    rows: rest.flat().slice(0, page.size + 1),
    counted: page.carried ?? cappedCount(Number(total?.[0]?.total ?? 0), page.cap),
  };
}

/** Marks the led read, which walks a link filter's links in the page's order: see test/core/query-plans. */
export const LED_FILTER_MARK = '/* link filter, led by its links */';

/**
 * A page of a link filter whose links carry the sort key (FilterSpec.lead): the links walked along their index in
 * the page's order (renamed in a subquery, so the record's columns keep their names), each record looked up and
 * tested against the other filters, size + 1 kept. A first page's count reads the links too (alone when no other
 * filter applies, else each record looked up): O(matches) up to the cap, never a walk of the register.
 */
async function ledPage(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage & { lead: PageLead },
  rowTest: SQL | undefined,
): Promise<PageRows> {
  const { lead, table } = { lead: page.lead, table: records.table };
  const links = sql.identifier('lead_links');
  const id = sql`${links}.${sql.identifier('lead_id')}`;
  const key = sql`${links}.${sql.identifier('lead_key')}`;
  const from = sql`(select ${lead.id} as ${sql.identifier('lead_id')}, ${lead.column} as ${sql.identifier('lead_key')} from ${lead.table} indexed by ${sql.identifier(lead.index)} where ${lead.where}) as ${links} cross join ${table} ${sql.raw(LED_FILTER_MARK)}`;
  const ranges = pageRanges({ column: key }, id, page.direction, page.cursor);
  const reads = joinedReads(ctx, records, page, from, id, ranges, rowTest);
  // The count starts from the links too: alone, they are the matches; else each record is looked up and tested.
  const matches =
    lead.alone && !rowTest
      ? ctx.db
          .select({ one: sql`1` })
          .from(sql`${lead.table} indexed by ${sql.identifier(lead.index)}`)
          .where(lead.where)
      : ctx.db
          .select({ one: sql`1` })
          .from(from)
          .where(and(sql`${table.id} = ${id}`, page.filtered, rowTest));
  const counting = page.carried
    ? []
    : [ctx.db.select({ total: count() }).from(matches.limit(page.cap + 1).as('matches'))];
  const [first, ...rest] = (await ctx.db.batch([...reads, ...counting] as unknown as BatchList)) as Row[][];
  const total = page.carried ? null : rest.pop();
  return {
    rows: [first ?? [], ...rest].flat().slice(0, page.size + 1),
    counted: page.carried ?? cappedCount(Number(total?.[0]?.total ?? 0), page.cap),
  };
}

/** Rendered statements of unfiltered pages, by register and shape: their values are placeholders. */
const unfilteredShapes = new WeakMap<RegisterRecords, Map<string, Rendered[]>>();

interface Rendered {
  sql: string;
  params: unknown[];
}

/**
 * The statements of a page without filters, rendered once per shape (sort field, direction, where the cursor stands,
 * counted or carried) with placeholders for the organization, the cursor's key and the limit, and filled for this
 * page: the same SQL and arguments walkQueries would build, without building them on every call.
 */
export function unfilteredStatements(ctx: ToolContext, records: RegisterRecords, page: ListPage): Rendered[] {
  const { cursor } = page;
  // On a nullable sort field, a cursor on a NULL ('' in older cursors) reads other ranges (pageRanges).
  const atNull =
    page.orderField.nullable === true && cursor !== null && (cursor.v === null || cursor.v === '');
  const key = `${page.fieldName} ${page.direction} ${cursor ? (atNull ? 'null' : 'value') : 'first'} ${page.carried ? 'carried' : 'counted'}`;
  let shapes = unfilteredShapes.get(records);
  if (!shapes) {
    shapes = new Map();
    unfilteredShapes.set(records, shapes);
  }
  let rendered = shapes.get(key);
  if (!rendered) {
    const marked = cursor && {
      ...cursor,
      v: atNull ? cursor.v : (sql.placeholder('v') as unknown as string),
      i: sql.placeholder('i') as unknown as string,
    };
    const ranges = pageRanges(page.orderField, records.table.id, page.direction, marked);
    const where = and(eq(records.table.organization_id, sql.placeholder('organization')), undefined);
    const shape = { ...page, filtered: where, countFiltered: where };
    rendered = walkQueries(ctx, records, shape, undefined, ranges, sql.placeholder('limit')).map((query) =>
      query.toSQL(),
    );
    shapes.set(key, rendered);
  }
  const values = { organization: page.organizationId, v: cursor?.v, i: cursor?.i, limit: page.size + 1 };
  return rendered.map(({ sql: text, params }) => ({ sql: text, params: fillPlaceholders(params, values) }));
}

/**
 * A page of text the FTS index can find: counted first (reading the index's matches, at most cap + 1), so the page
 * is read the way its density makes cheap. Over a remote database each read is a round trip: the dense reads go
 * with the first page's count, and a walk's probe with its walk.
 */
export async function indexedTextPage(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  search: TextSearch & { index: NonNullable<TextSearch['index']> },
): Promise<PageRows> {
  const remote = isRemote(ctx);
  // The count reads its matches from the end of the rowids the page starts at, when the sort follows them: an
  // embedded dense first page then passes over the rows it knows do not match (a remote one has sent its walks
  // with the count).
  const descending = !remote && WRITE_ORDERED_FIELDS.has(page.fieldName) && page.direction === 'DESC';
  const counting = textMatchesQuery(ctx, records, search.index, page.filtered, page.cap, descending);
  let dense: DenseTextReads | null = null;
  let prefetched: Row[][] | null = null;
  let found: { total: number; rowids: string; edge: number } | null = null;
  const denseReads = () => {
    const known = found && !remote ? { rowids: found.rowids, edge: Number(found.edge), descending } : null;
    return denseTextReads(ctx, records, page, search.rowTest, remote, known);
  };
  if (!page.carried && remote) {
    dense = denseReads();
    const [first, ...rest] = (await ctx.db.batch([
      counting,
      ...dense.walks,
      ...dense.probes,
    ] as unknown as BatchList)) as Row[][];
    found = (first?.[0] ?? null) as typeof found;
    prefetched = rest;
  } else if (!page.carried) [found = null] = await counting;
  const counted = page.carried ?? cappedCount(Number(found?.total ?? 0), page.cap);
  // The rowids were read by another statement: each row is tested again, as it may have changed since.
  const sparse = found ? { rowids: found.rowids, test: search.rowTest } : search.index.matches;
  const rows = counted.capped
    ? await denseTextPage(ctx, records, page, search.index.matches, dense ?? denseReads(), prefetched)
    : await sparseTextPage(ctx, records, page, sparse, page.ranges, page.size + 1);
  return { rows, counted };
}

/** One range of a list page read along its sort index (INDEXED BY), `where` tested on each row, size + 1 rows. */
function walkRange(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  where: SQL | undefined,
  range: PageRange,
  limit: number | Placeholder = page.size + 1,
) {
  return ctx.db
    .select(records.listSelection)
    .from(sql`${records.table} indexed by ${sql.identifier(page.orderIndex)}`)
    .where(and(where, range.where))
    .orderBy(...range.orderBy)
    .limit(limit);
}

/**
 * The matches of a text search, for total_count: the FTS index's matches read first, in rowid order (`descending`:
 * from the largest), each checked against its row, stopping after cap + 1. Their rowids: a sparse first page is
 * read from them, a dense one passes over the rows it knows do not match. `edge`: the last rowid read.
 */
function textMatchesQuery(
  ctx: ToolContext,
  records: RegisterRecords,
  index: NonNullable<TextSearch['index']>,
  filtered: SQL | undefined,
  cap: number,
  descending: boolean,
) {
  const found = ctx.db
    .select({ rowid: sql<number>`${records.table}.rowid`.as('found_rowid') })
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
  records: RegisterRecords,
  page: ListPage,
  matches: SQL | { rowids: string; test: SQL },
  ranges: PageRange[],
  limit: number,
): Promise<Row[]> {
  if (ranges.length === 0 || limit <= 0) return Promise.resolve([]);
  const { table } = records;
  const match =
    'rowids' in matches
      ? and(sql`${table}.rowid in (select value from json_each(${matches.rowids}))`, matches.test)
      : matches;
  const reads = ranges.map((range) =>
    ctx.db
      .select(records.listSelection)
      .from(sql`${table} not indexed ${sql.raw(SPARSE_TEXT_MARK)}`)
      .where(and(page.filtered, match, range.where))
      .orderBy(...range.orderBy)
      .limit(limit),
  );
  return ctx.db.batch(reads as unknown as BatchList).then((results) => (results as Row[][]).flat());
}

type DenseTextReads = ReturnType<typeof denseTextReads>;

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
  records: RegisterRecords,
  page: ListPage,
  rowTest: SQL,
  withProbes: boolean,
  known: KnownMatches | null,
) {
  const { table } = records;
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
    walks: page.ranges.map((range) =>
      ctx.db
        .select(records.listSelection)
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
    probes: withProbes ? page.ranges.map(probe) : [],
    probe,
  };
}

/**
 * A page of dense text matches from `denseTextReads` (read here unless `prefetched`: the walks' rows, then the
 * probes'). Past a walk's fence the matches are sparse: the rest of the page is read from the FTS index.
 */
async function denseTextPage(
  ctx: ToolContext,
  records: RegisterRecords,
  page: ListPage,
  matches: SQL,
  reads: DenseTextReads,
  prefetched: Row[][] | null,
): Promise<Row[]> {
  const { ranges } = page;
  const results =
    prefetched ??
    ((await ctx.db.batch([...reads.walks, ...reads.probes] as unknown as BatchList)) as Row[][]);
  const rows: Row[] = [];
  for (const [at, range] of ranges.entries()) {
    rows.push(...(results[at] ?? []));
    if (rows.length > page.size) break;
    const [last] = reads.probes.length > 0 ? (results[ranges.length + at] ?? []) : await reads.probe(range);
    if (!last) continue; // the walk finished its range
    const after = pageRanges(page.orderField, records.table.id, page.direction, {
      f: '',
      d: page.direction,
      v: cursorValue(page.orderField, last),
      i: String(last.id),
    });
    rows.push(...(await sparseTextPage(ctx, records, page, matches, after, page.size + 1 - rows.length)));
    break;
  }
  return rows;
}
