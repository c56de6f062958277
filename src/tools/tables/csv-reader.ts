// CSV as RFC 4180 writes it (quotes doubled inside quoted fields, CRLF or LF), read incrementally: text is pushed in
// pieces of any size and whole rows come out, so a file of any size is read with one row in memory. The separator
// is found on the first line (comma, semicolon as European spreadsheets save, or tab as "Unicode text" does).
import { invalidArguments } from '../../errors.ts';

/** A row of the file and its number (the header is row 1), counted in records, not lines. */
export interface TableRow {
  number: number;
  cells: string[];
}

export interface CsvLimits {
  /** More columns than this on a row is an error (a file of 10,000 columns says so at its first row). */
  maxColumns: number;
  /** A field longer than this is an error: a quote never closed cannot swallow the rest of a file into memory. */
  maxFieldLength: number;
}

export const CSV_LIMITS: CsvLimits = { maxColumns: 500, maxFieldLength: 100_000 };

const SEPARATORS = [',', ';', '\t'] as const;

/** The separator used most outside quotes on the first line; a comma when none is. */
function separatorOf(firstLine: string): string {
  let best = ',';
  let bestCount = 0;
  for (const separator of SEPARATORS) {
    let count = 0;
    let quoted = false;
    for (const char of firstLine) {
      if (char === '"') quoted = !quoted;
      else if (!quoted && char === separator) count++;
    }
    if (count > bestCount) {
      best = separator;
      bestCount = count;
    }
  }
  return best;
}

export interface CsvReader {
  /** Reads a piece of text; answers the rows it completed. */
  push(text: string): TableRow[];
  /** The end of the text: the last row, or an error for a quote left open. */
  end(): TableRow[];
  /** The separator in use (known once the first line has been read). */
  readonly separator: string | undefined;
}

export function createCsvReader(limits: CsvLimits = CSV_LIMITS): CsvReader {
  let separator: string | undefined;
  let pending = ''; // text seen before the separator is known
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let afterQuote = false;
  let rowNumber = 1;
  let quoteStart = { row: 0, column: 0 };
  let started = false;
  let lineFeedEnded = false;
  let out: TableRow[] = [];

  const where = () => `row ${rowNumber}, column ${row.length + 1}`;
  const endField = () => {
    row.push(field);
    field = '';
    fieldStarted = false;
    afterQuote = false;
    if (row.length > limits.maxColumns) {
      throw invalidArguments(
        `Row ${rowNumber} has more than ${limits.maxColumns} columns; a register has far fewer. Check the file and its separator.`,
        [{ path: `row ${rowNumber}`, message: `More than ${limits.maxColumns} columns` }],
      );
    }
  };
  const endRow = () => {
    endField();
    // Blank lines say nothing.
    if (row.length > 1 || row[0] !== '') out.push({ number: rowNumber, cells: row });
    rowNumber++;
    row = [];
  };
  const tooLong = () =>
    invalidArguments(
      `The field at ${quoted ? `row ${quoteStart.row}, column ${quoteStart.column}` : where()} is longer than ${limits.maxFieldLength} characters${quoted ? ' (a quote that is never closed?)' : ''}.`,
      [{ path: where(), message: 'Field too long' }],
    );

  function read(text: string) {
    let at = 0;
    if (!started) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) at = 1; // a byte-order mark
    }
    const sep = separator as string;
    let runStart = -1; // start of a run of plain characters appended to `field` at once
    const flush = (end: number) => {
      if (runStart >= 0) {
        field += text.slice(runStart, end);
        runStart = -1;
      }
    };
    for (; at < text.length; at++) {
      const char = text[at];
      if (lineFeedEnded && char !== '\n') lineFeedEnded = false;
      if (quoted) {
        if (char === '"') {
          flush(at);
          quoted = false;
          afterQuote = true;
        } else if (runStart < 0) runStart = at;
        continue;
      }
      if (char === '"') {
        flush(at);
        if (afterQuote) {
          // "" inside a quoted field: a quote, and the field goes on quoted.
          field += '"';
          quoted = true;
          afterQuote = false;
        } else if (!fieldStarted) {
          quoted = true;
          fieldStarted = true;
          quoteStart = { row: rowNumber, column: row.length + 1 };
        } else field += char; // a stray quote inside an unquoted field is kept as text
      } else if (char === sep) {
        flush(at);
        endField();
      } else if (char === '\n' && lineFeedEnded) {
        // The LF of a CR LF split between two pieces: that line has ended already.
        lineFeedEnded = false;
        continue;
      } else if (char === '\n' || char === '\r') {
        flush(at);
        if (char === '\r' && text[at + 1] === '\n') at++;
        else if (char === '\r' && at + 1 === text.length) lineFeedEnded = true;
        endRow();
        continue;
      } else {
        afterQuote = false;
        fieldStarted = true;
        if (runStart < 0) runStart = at;
      }
      if (field.length + (runStart >= 0 ? at - runStart : 0) > limits.maxFieldLength) throw tooLong();
    }
    flush(text.length);
    if (field.length > limits.maxFieldLength) throw tooLong();
  }

  return {
    get separator() {
      return separator;
    },
    push(text) {
      out = [];
      if (separator === undefined) {
        pending += text;
        const lineEnd = pending.search(/[\r\n]/);
        if (lineEnd < 0 && pending.length < limits.maxFieldLength * 2) return [];
        separator = separatorOf(lineEnd < 0 ? pending : pending.slice(0, lineEnd));
        const all = pending;
        pending = '';
        read(all);
      } else read(text);
      return out;
    },
    end() {
      out = [];
      if (separator === undefined) {
        separator = separatorOf(pending);
        read(pending);
        pending = '';
      }
      if (quoted) {
        throw invalidArguments(
          `The CSV has a quote that is never closed: row ${quoteStart.row}, column ${quoteStart.column}.`,
          [{ path: `row ${quoteStart.row}, column ${quoteStart.column}`, message: 'Unbalanced quote' }],
        );
      }
      if (field !== '' || row.length > 0) endRow();
      return out;
    },
  };
}

/** The rows of a whole CSV text (cells only). */
export function parseCsv(text: string, limits?: CsvLimits): string[][] {
  const reader = createCsvReader(limits);
  return [...reader.push(text), ...reader.end()].map((row) => row.cells);
}

/**
 * Text of a file as a spreadsheet program saved it: UTF-8 (with or without a byte-order mark) or UTF-16 with its
 * byte-order mark ("Unicode text"). Bytes that are not valid UTF-8 are an error naming the encoding to use.
 */
export function decodeTableBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalidArguments(
      'The file is not UTF-8 text (nor UTF-16 with a byte-order mark). Save it as "CSV UTF-8" and upload it again.',
    );
  }
}
