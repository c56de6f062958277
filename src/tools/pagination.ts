// Keyset pagination: opaque cursors over (order column, id), stable while rows are inserted. Every page is an
// index range on (organization_id, <order column>, id) (row values, NULLs as their own range), and total_count
// is counted once, on the first page, up to TOTAL_COUNT_CAP, then carried in the cursor.
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gt,
  or,
  type SQL,
  type Subquery,
  sql,
} from 'drizzle-orm';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { invalidArguments } from '../errors.ts';
import { rememberJson } from './result-json.ts';

export type Direction = 'ASC' | 'DESC';

export interface OrderField {
  column: SQLiteColumn;
  /** The column may hold NULL: NULLs sort first ascending and last descending (as SQLite sorts them). */
  nullable?: boolean;
}

/** total_count counts at most this many matches; beyond it, total_count_capped is true. */
export const TOTAL_COUNT_CAP = 1000;
/** The cap with filter.query: a text count reads the FTS index's matches one by one, so it stops sooner. */
export const TEXT_COUNT_CAP = 100;

export interface CursorPayload {
  /** The list tool that made it (cursors made before it was added have none). */
  l?: string;
  f: string;
  d: Direction;
  /** Order value of the last row of the page; null for a NULL in a nullable order column. */
  v: string | number | null;
  i: string;
  /** total_count and total_count_capped as counted on the first page, with a fingerprint of the organization and filter. */
  t?: number;
  c?: boolean;
  h?: string;
}

const CursorSchema = z.object({
  l: z
    .string()
    .regex(/^((list|get)[A-Z][A-Za-z]{0,60}|myWork)$/)
    .optional(),
  f: z.string(),
  d: z.enum(['ASC', 'DESC']),
  v: z.union([z.string(), z.number(), z.null()]),
  i: z.string(),
  t: z.number().int().min(0).optional(),
  c: z.boolean().optional(),
  h: z.string().optional(),
});

export function encodeCursor(payload: CursorPayload): string {
  const json = JSON.stringify(payload);
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * SQL: the row comes after the cursor's in ascending (`column`, `idColumn`) order, for the small lists of a unique-ish
 * non-null text column (organizations by name, members by email); none for a first page.
 */
export function afterAscending(column: SQLiteColumn, idColumn: SQLiteColumn, cursor: CursorPayload | null) {
  if (!cursor) return undefined;
  const value = String(cursor.v);
  return or(gt(column, value), and(eq(column, value), gt(idColumn, cursor.i)));
}

/** A cursor given to `list` (the list tool's name), for pages sorted by `field` in `direction`. */
export function decodeCursor(
  cursor: string,
  list: string,
  field: string,
  direction: Direction,
): CursorPayload {
  let payload: CursorPayload;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    payload = CursorSchema.parse(JSON.parse(json));
  } catch {
    throw invalidArguments('The cursor is not valid. Pass `next_cursor` from the previous page unchanged.', [
      { path: 'cursor', message: 'Malformed cursor' },
    ]);
  }
  if (payload.l !== undefined && payload.l !== list) {
    throw invalidArguments(
      `The cursor was made by ${payload.l}, not ${list}. Pass each list's next_cursor back to that list, or leave cursor out to start again.`,
      [{ path: 'cursor', message: `Cursor was made by ${payload.l}` }],
    );
  }
  if (payload.f !== field || payload.d !== direction) {
    throw invalidArguments(
      'The cursor belongs to a different order_by. Keep order_by the same across pages.',
      [{ path: 'cursor', message: `Cursor was made for order_by ${payload.f} ${payload.d}` }],
    );
  }
  return payload;
}

/**
 * The index on (organization_id, <column>, id) that every page sorted by `column` walks (further columns after them
 * let a walk test a filter on the index: evidence's valid_until). Found in the table's drizzle schema, so a sort
 * field without its index fails when the tools are built, not at scale.
 */
export function orderIndexName(table: SQLiteTable, column: SQLiteColumn): string {
  const { indexes, name } = getTableConfig(table);
  const columns = getTableColumns(table);
  const wanted = ['organization_id', column.name, 'id'];
  for (const index of indexes) {
    const names = index.config.columns.map((item) =>
      'name' in item && columns[item.name as string] === item ? item.name : null,
    );
    if (wanted.every((item, at) => names[at] === item)) {
      return index.config.name;
    }
  }
  throw new Error(
    `${name}: sorting by ${column.name} needs an index on (organization_id, ${column.name}, id)`,
  );
}

/**
 * One index range of a page, in order. A nullable order column has two: its non-NULL values (a row-value range)
 * and its NULLs (sorted by id), NULLs first ascending and last descending; a page may span both.
 */
export interface PageRange {
  where: SQL | undefined;
  orderBy: SQL[];
}

export function pageRanges(
  field: OrderField | { column: SQL; nullable?: false },
  idColumn: SQLiteColumn | SQL,
  direction: Direction,
  cursor: CursorPayload | null,
): PageRange[] {
  const by = direction === 'ASC' ? asc : desc;
  const op = sql.raw(direction === 'ASC' ? '>' : '<');
  const column = field.column;
  const values: PageRange = {
    where: undefined,
    orderBy: [by(column), by(idColumn)],
  };
  if (!field.nullable) {
    if (cursor) values.where = sql`(${column}, ${idColumn}) ${op} (${cursor.v}, ${cursor.i})`;
    return [values];
  }
  // Cursors issued before NULLs had their own range carried '' for NULL; no date column holds ''.
  const cursorValue = cursor ? (cursor.v === '' ? null : cursor.v) : undefined;
  values.where =
    cursorValue === undefined || cursorValue === null
      ? sql`${column} is not null`
      : sql`${column} is not null and (${column}, ${idColumn}) ${op} (${cursorValue}, ${cursor?.i})`;
  const nulls: PageRange = {
    where:
      cursorValue === null
        ? sql`${column} is null and ${idColumn} ${op} ${cursor?.i}`
        : sql`${column} is null`,
    orderBy: [by(idColumn)],
  };
  if (direction === 'ASC') {
    // NULLs first: a cursor on a value has left them behind.
    return cursorValue === undefined || cursorValue === null ? [nulls, values] : [values];
  }
  // NULLs last: a cursor on a NULL has left every value behind.
  return cursorValue === null ? [nulls] : [values, nulls];
}

export function cursorValue(field: OrderField, row: Record<string, unknown>): string | number | null {
  const value = row[field.column.name];
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : String(value);
}

/** total_count and total_count_capped of one walk through a list. */
export interface CountedTotal {
  total: number;
  capped: boolean;
}

/** From a count that read at most cap + 1 matches. */
export function cappedCount(matches: number, cap: number): CountedTotal {
  return { total: Math.min(matches, cap), capped: matches > cap };
}

/**
 * What a later page's cursor carries from the first page's count, if counted for this same organization and filter;
 * else null (counted again). Never above `cap`: a cursor is the client's to keep, and to edit.
 */
export function carriedCount(
  cursor: CursorPayload | null,
  fingerprint: string,
  cap: number,
): CountedTotal | null {
  return cursor?.t !== undefined && cursor.h === fingerprint
    ? { total: Math.min(cursor.t, cap), capped: cursor.c === true || cursor.t > cap }
    : null;
}

/**
 * A short fingerprint of the organization and the filter, so a cursor's carried total_count is not reused for
 * another organization or filter.
 */
export function filterFingerprint(organizationId: string, filter: unknown): string {
  const text = JSON.stringify([organizationId, filter ?? null]);
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/**
 * A tool result stays within this many tokens (estimated): Claude Code refuses a result over 25,000, and some of the
 * budget goes to the protocol's envelope.
 */
export const RESULT_TOKEN_BUDGET = 20_000;

const NOT_ASCII = /[\u0080-\uffff]/;

/** Rough tokens of a text: ASCII at 4 characters a token, any other character a token of its own. */
export function estimatedTokens(text: string): number {
  if (!NOT_ASCII.test(text)) return Math.ceil(text.length / 4);
  let ascii = 0;
  let other = 0;
  for (let index = 0; index < text.length; index += 1) {
    if (text.charCodeAt(index) < 128) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}

/**
 * How many of a page's items, as answered, fit RESULT_TOKEN_BUDGET: all of them, or the first ones whose JSON stays
 * within it (at least one). A page cut short says so (`page_shortened`) and its next_cursor continues after the
 * last item kept.
 */
export function itemsWithinBudget(items: readonly unknown[]): number {
  // The whole page's JSON first: the items' own estimates add up to at most its estimate + 1.5 per item (each rounds
  // up once and counts one more; the commas and brackets count too), so within that the page fits (the usual case)
  // and its JSON is the one answered (result-json.ts).
  const json = JSON.stringify(items);
  if (estimatedTokens(json) + 2 * items.length <= RESULT_TOKEN_BUDGET) {
    rememberJson(items, json);
    return items.length;
  }
  let tokens = 0;
  for (const [index, item] of items.entries()) {
    tokens += estimatedTokens(JSON.stringify(item)) + 1;
    if (tokens > RESULT_TOKEN_BUDGET) return Math.max(index, 1);
  }
  return items.length;
}

/** The paging fields of a list's answer that is not a register's list tool (those add page_shortened). */
export const pageOutputFields = {
  next_cursor: z.string().nullable().describe('Cursor of the next page, or null.'),
  total_count: z.number().int().describe(`Matches in all pages, at most ${TOTAL_COUNT_CAP}.`),
  total_count_capped: z.boolean().describe('True: more than total_count match.'),
};

export const pageShortenedSchema = z
  .literal(true)
  .optional()
  .describe(
    'Present when this page holds fewer than size records, to keep the result within about 20,000 tokens: next_cursor continues after them.',
  );

/** One page of a small list kept in id order: its rows, the next cursor and the capped count of every match. */
export interface IdPage<T> {
  rows: T[];
  next_cursor: string | null;
  total_count: number;
  total_count_capped: boolean;
}

/**
 * A page of the list tool `list` in id order: `read` gets the rows after an id (null: from the start) up to a limit,
 * `countUpTo` the matches up to a bound. The cursor carries the last id, checked as any list's cursor is.
 */
export async function pageById<T extends { id: string }>(options: {
  list: string;
  size: number;
  cursor: string | undefined;
  read: (afterId: string | null, limit: number) => Promise<T[]>;
  countUpTo: (bound: number) => Promise<number>;
}): Promise<IdPage<T>> {
  const { list, size } = options;
  const after = options.cursor ? decodeCursor(options.cursor, list, 'id', 'ASC').i : null;
  const [rows, matches] = await Promise.all([
    options.read(after, size + 1),
    options.countUpTo(TOTAL_COUNT_CAP + 1),
  ]);
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  const counted = cappedCount(matches, TOTAL_COUNT_CAP);
  return {
    rows: shown,
    next_cursor:
      rows.length > size && last ? encodeCursor({ l: list, f: 'id', d: 'ASC', v: null, i: last.id }) : null,
    total_count: counted.total,
    total_count_capped: counted.capped,
  };
}

/** The rows of `matches` (a select of `1` limited to pageById's bound), counted in one statement: its countUpTo. */
export async function countMatches(db: Db, matches: { as(alias: string): Subquery }): Promise<number> {
  const [total] = await db.select({ n: count() }).from(matches.as('matches'));
  return total?.n ?? 0;
}
