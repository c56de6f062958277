// filter.query: a case-insensitive substring search in a register's text columns. What the user types is always one
// literal string: FTS5 syntax (quotes, *, NEAR, -, parentheses, AND/OR/NOT) and LIKE wildcards have no effect.
//
// Text of 3 characters or more has two exact forms, chosen by the list page for what they cost (src/tools/register.ts):
// - `matches`: the rows of the register's FTS5 trigram index (migrations/0002_fts_search.sql). Its cost grows with the
//   number of matches in the whole table, so it serves sparse matches (and counting, which stops at the cap).
// - `rowTest`: a test of one row, for walking a sort index until a page is full. Its cost grows with the rows walked,
//   so it serves dense matches. For text in ASCII it is LIKE, which finds exactly what the trigram index finds: LIKE
//   folds ASCII letters, the index folds Unicode letters, and the only characters whose fold is an ASCII letter are
//   U+017F (long s -> s) and U+212A (Kelvin sign -> k), matched by a looser LIKE and then replaced
//   (test/core/search.test.ts checks every code point). For other text it is the index's rows again.
// Shorter text cannot be looked up in a trigram index: LIKE only (ASCII letters folded).
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

export interface TextSearch {
  /** SQL: the row of `table` contains the text (any form; cheap per row when the text is ASCII or short). */
  rowTest: SQL;
  /** The FTS index's reads; null for text too short for the index. */
  index: {
    /** SQL: the row is one of the index's matches (all of them read first, then looked up). */
    matches: SQL;
    /** FROM: the index's matches in rowid order, each joined to its row (lazily: a LIMIT stops the reading). */
    first: SQL;
    /** The index's rowid in `first`, to order by (the index reads either way without sorting). */
    rowid: SQL;
  } | null;
}

/** Characters outside ASCII whose trigram-index fold is an ASCII letter, with that letter. */
export const FOLDS_TO_ASCII: [string, string][] = [
  ['\u017f', 's'],
  ['\u212a', 'k'],
];

/** A LIKE pattern finding `text` anywhere; `wild` letters match any one character (`_`). */
function likePattern(text: string, wild: Set<string> = new Set()): string {
  let pattern = '%';
  for (const char of text) {
    if (char === '\\' || char === '%' || char === '_') pattern += `\\${char}`;
    else pattern += wild.has(char.toLowerCase()) ? '_' : char;
  }
  return `${pattern}%`;
}

export function textSearch(table: SQLiteTable, columns: SQLiteColumn[], text: string): TextSearch {
  const pattern = likePattern(text);
  // The characters that fold to a letter of the text. A row passes a first LIKE where those letters match any
  // character (as fast as the plain one), then the exact one, plain or with those characters replaced.
  const folds = FOLDS_TO_ASCII.filter(([, to]) => text.toLowerCase().includes(to));
  const loose = likePattern(text, new Set(folds.map(([, to]) => to)));
  const like = (fold: boolean) =>
    or(
      ...columns.map((column) => {
        const plain = sql`${column} like ${pattern} escape '\\'`;
        if (!fold || folds.length === 0) return plain;
        let replaced: SQL = sql`${column}`;
        for (const [from, to] of folds) replaced = sql`replace(${replaced}, ${from}, ${to})`;
        return sql`(${column} like ${loose} escape '\\' and (${plain} or ${replaced} like ${pattern} escape '\\'))`;
      }),
    ) as SQL;
  if ([...text].length < MIN_INDEXED_QUERY_LENGTH) {
    return { rowTest: like(false), index: null };
  }
  const fts = sql.identifier(searchTableName(table));
  const phrase = ftsPhrase(text);
  const matches = sql`${table}.rowid in (select rowid from ${fts} where ${fts} match ${phrase})`;
  const first = sql`${fts} cross join ${table} on ${table}.rowid = ${fts}.rowid and ${fts} match ${phrase}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  const ascii = /^[\x00-\x7f]*$/.test(text);
  return { rowTest: ascii ? like(true) : matches, index: { matches, first, rowid: sql`${fts}.rowid` } };
}
