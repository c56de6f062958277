// filter.query: a substring search in a register's text columns that folds case and accents (`securite` finds
// "Sécurité", `ÉCOLE` finds "école"). What the user types is always one literal string: FTS5 syntax (quotes, *, NEAR,
// -, parentheses, AND/OR/NOT), LIKE and GLOB wildcards have no effect.
//
// The FTS5 trigram indexes (migrations/0002_fts_search.sql, remade with remove_diacritics by 0017) fold Unicode case
// and Latin diacritics. The query is folded the same way here (FOLDED_LETTERS: every character whose fold is an ASCII
// letter, test/core/search.test.ts checks every code point against the index). Text of 3 characters or more has two
// exact forms, chosen by the list page for what they cost (src/tools/registers/text-pages.ts):
// - `matches`: the rows of the index. Its cost grows with the number of matches in the whole table, so it serves
//   sparse matches (and counting, which stops at the cap).
// - `rowTest`: a test of one row, for walking a sort index until a page is full. Its cost grows with the rows walked,
//   so it serves dense matches. For a query that folds to ASCII it is LIKE (ASCII case folded), and, for a row whose
//   text is not all ASCII (where a letter may carry an accent), the index probed at that row. For other text it is
//   the index's rows again.
// Shorter text cannot be looked up in a trigram index: LIKE, and for a row not all ASCII, GLOB with each letter's
// folds as a character class.
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

/**
 * The characters outside ASCII whose fold by the trigram index (remove_diacritics 1) is an ASCII letter, by letter:
 * Latin letters with diacritics, and the long s, Kelvin and Angstrom signs.
 */
export const FOLDED_LETTERS: Readonly<Record<string, string>> = {
  a: 'ÀÁÂÃÄÅàáâãäåĀāĂăĄąǍǎǞǟǺǻȀȁȂȃȦȧḀḁẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặ\u212b',
  b: 'ḂḃḄḅḆḇ',
  c: 'ÇçĆćĈĉĊċČčḈḉ',
  d: 'ĎďḊḋḌḍḎḏḐḑḒḓ',
  e: 'ÈÉÊËèéêëĒēĔĕĖėĘęĚěȄȅȆȇȨȩḔḕḖḗḘḙḚḛḜḝẸẹẺẻẼẽẾếỀềỂểỄễỆệ',
  f: 'Ḟḟ',
  g: 'ĜĝĞğĠġĢģǦǧǴǵḠḡ',
  h: 'ĤĥȞȟḢḣḤḥḦḧḨḩḪḫẖ',
  i: 'ÌÍÎÏìíîïĨĩĪīĬĭĮįİǏǐȈȉȊȋḬḭḮḯỈỉỊị',
  j: 'Ĵĵǰ',
  k: 'ĶķǨǩḰḱḲḳḴḵ\u212a',
  l: 'ĹĺĻļĽľḶḷḸḹḺḻḼḽ',
  m: 'ḾḿṀṁṂṃ',
  n: 'ÑñŃńŅņŇňǸǹṄṅṆṇṈṉṊṋ',
  o: 'ÒÓÔÕÖòóôõöŌōŎŏŐőƠơǑǒǪǫǬǭȌȍȎȏȪȫȬȭȮȯȰȱṌṍṎṏṐṑṒṓỌọỎỏỐốỒồỔổỖỗỘộỚớỜờỞởỠỡỢợ',
  p: 'ṔṕṖṗ',
  r: 'ŔŕŖŗŘřȐȑȒȓṘṙṚṛṜṝṞṟ',
  s: 'ŚśŜŝŞşŠšſȘșṠṡṢṣṤṥṦṧṨṩẛ',
  t: 'ŢţŤťȚțṪṫṬṭṮṯṰṱẗ',
  u: 'ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųƯưǓǔǕǖǗǘǙǚǛǜȔȕȖȗṲṳṴṵṶṷṸṹṺṻỤụỦủỨứỪừỬửỮữỰự',
  v: 'ṼṽṾṿ',
  w: 'ŴŵẀẁẂẃẄẅẆẇẈẉẘ',
  x: 'ẊẋẌẍ',
  y: 'ÝýÿŶŷŸȲȳẎẏẙỲỳỴỵỶỷỸỹ',
  z: 'ŹźŻżŽžẐẑẒẓẔẕ',
};

/** Each character of FOLDED_LETTERS with its letter. */
export const FOLDS_TO_ASCII: [string, string][] = Object.entries(FOLDED_LETTERS).flatMap(([letter, folds]) =>
  [...folds].map((character): [string, string] => [character, letter]),
);

const FOLD = new Map(FOLDS_TO_ASCII);

/** The query as the index reads it, as far as ASCII goes: each character that folds to an ASCII letter replaced. */
export function foldedQuery(text: string): string {
  let out = '';
  for (const character of text) out += FOLD.get(character) ?? character;
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
const ALL_ASCII = /^[\x00-\x7f]*$/;

/** SQL: the column holds a character outside ASCII (its bytes outnumber its characters); false for NULL. */
function notAllAscii(column: SQLiteColumn): SQL {
  return sql`length(cast(${column} as blob)) > length(${column})`;
}

/**
 * A GLOB pattern finding `text` (ASCII) anywhere, each letter as the class of its forms (`[eEÈÉ...]`), any other
 * character matched as itself (GLOB's own `*`, `?` and `[` inside a class).
 */
function foldingGlob(text: string): string {
  let pattern = '*';
  for (const character of text) {
    const letter = character.toLowerCase();
    const folds = FOLDED_LETTERS[letter];
    if (folds !== undefined || letter !== character.toUpperCase())
      pattern += `[${letter}${letter.toUpperCase()}${folds ?? ''}]`;
    else
      pattern += character === '*' || character === '?' || character === '[' ? `[${character}]` : character;
  }
  return `${pattern}*`;
}

/** A LIKE pattern finding `text` anywhere. */
function likePattern(text: string): string {
  let pattern = '%';
  for (const char of text) pattern += char === '\\' || char === '%' || char === '_' ? `\\${char}` : char;
  return `${pattern}%`;
}

export function textSearch(table: SQLiteTable, columns: SQLiteColumn[], text: string): TextSearch {
  const folded = foldedQuery(text);
  const ascii = ALL_ASCII.test(folded);
  const pattern = likePattern(folded);
  const like = or(...columns.map((column) => sql`${column} like ${pattern} escape '\\'`)) as SQL;
  if ([...folded].length < MIN_INDEXED_QUERY_LENGTH) {
    if (!ascii) return { rowTest: like, index: null };
    // A row with an accented letter: its columns against the letters' classes (only those rows: LIKE is cheaper).
    const glob = foldingGlob(folded);
    const folding = or(
      ...columns.map((column) => sql`(${notAllAscii(column)} and ${column} glob ${glob})`),
    ) as SQL;
    return { rowTest: sql`(${like} or ${folding})`, index: null };
  }
  const fts = sql.identifier(searchTableName(table));
  const phrase = ftsPhrase(folded);
  const matches = sql`${table}.rowid in (select rowid from ${fts} where ${fts} match ${phrase})`;
  const first = sql`${fts} cross join ${table} on ${table}.rowid = ${fts}.rowid and ${fts} match ${phrase}`;
  // The index at this row only: it seeks each trigram's list to the rowid, whatever the length of the text.
  const probe = sql`exists (select 1 from ${fts} where ${fts} match ${phrase} and ${fts}.rowid = ${table}.rowid)`;
  const anyNotAscii = or(...columns.map(notAllAscii)) as SQL;
  return {
    rowTest: ascii ? sql`(${like} or (${anyNotAscii} and ${probe}))` : matches,
    index: { matches, first, rowid: sql`${fts}.rowid` },
  };
}
