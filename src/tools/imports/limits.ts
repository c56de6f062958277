// What one import through a request may build, so its memory follows the request's byte limit on both hosts
// (docs/security.md, "Input limits"). The CLI streams a file of any size a chunk at a time and takes neither limit.
import { invalidArguments } from '../../errors.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import type { TableRows } from './engine.ts';

/**
 * Rows (after the header) one importRecords call takes: its batch is built in memory, ~3.5 KB a row, so 10,000 rows
 * stay within a Worker isolate's 128 MB (a 1 MiB body of short rows could otherwise carry 150,000).
 */
export const MAX_IMPORT_ROWS = 10_000;

/** Characters of cells a file uploaded to the web import may give (the CSV text it becomes): 8 per byte of the limit. */
export const importCharactersFor = (maxBodyBytes: number): number => 8 * maxBodyBytes;

export interface ImportLimits {
  maxRows: number;
  /** Characters of all cells together; none when the text is in the request already (bounded by its size). */
  maxCharacters?: number;
}

const format = (count: number) => count.toLocaleString('en');

/** The rows of a table, refused at the first row over `maxRows` (the header not counted) or over `maxCharacters`. */
export async function* withinImportLimits(rows: TableRows, limits: ImportLimits): AsyncGenerator<TableRow> {
  let count = -1;
  let characters = 0;
  for await (const row of rows) {
    count++;
    if (count > limits.maxRows)
      throw invalidArguments(
        `The file has more than ${format(limits.maxRows)} rows, the most one import takes: import it in parts, or with the CLI (compliance-mcp import), which takes any number.`,
        [{ path: `row ${row.number}`, message: `More than ${limits.maxRows} rows` }],
      );
    for (const cell of row.cells) characters += cell.length;
    if (limits.maxCharacters !== undefined && characters > limits.maxCharacters)
      throw invalidArguments(
        `The file's cells hold more than ${format(limits.maxCharacters)} characters, the most one upload may give: import it in parts, or with the CLI (compliance-mcp import), which takes any size.`,
        [{ path: `row ${row.number}`, message: `More than ${limits.maxCharacters} characters` }],
      );
    yield row;
  }
}
