// filter.query: a case-insensitive substring search in a register's text columns, through its FTS5 trigram index
// (migrations/0002_fts_search.sql) for 3 characters or more, through LIKE for shorter text. What the user types is
// always one literal string: FTS5 syntax (quotes, *, NEAR, -, parentheses, AND/OR/NOT) has no effect.
import { getTableName, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';

/** The trigram tokenizer indexes 3-character substrings: shorter text cannot be looked up in it. */
export const MIN_INDEXED_QUERY_LENGTH = 3;

export function searchTableName(table: SQLiteTable): string {
  return `${getTableName(table)}_fts`;
}

/** An FTS5 string literal: the whole text as one phrase, `"` doubled, so no character is an operator. */
export function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** SQL: a row of `table` with `text` inside one of `columns` (case-insensitive; see the file comment). */
export function searchCondition(table: SQLiteTable, columns: SQLiteColumn[], text: string): SQL | undefined {
  if ([...text].length >= MIN_INDEXED_QUERY_LENGTH) {
    const fts = sql.identifier(searchTableName(table));
    return sql`${table}.rowid in (select rowid from ${fts} where ${fts} match ${ftsPhrase(text)})`;
  }
  // One or two characters: the index cannot help, and the page walks its sort index anyway.
  const pattern = `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return or(...columns.map((column) => sql`${column} like ${pattern} escape '\\'`));
}
