// XLSX (Office Open XML) workbooks read as rows of text, on Node and in workerd alike: the zip's directory read by
// hand, its parts inflated with fflate under a byte budget (inflate.ts: a zip bomb stops at its limit), their XML read
// with saxes as it inflates (the workbook itself, compressed, is in memory; of its parts only the shared strings are
// kept). Every cell comes out as text: shared and inline strings, numbers as JavaScript writes them, booleans
// TRUE/FALSE, cells with a date format as ISO dates; a formula cell gives its cached value and is never evaluated.
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { invalidArguments } from '../../errors.ts';
import { CSV_LIMITS, type TableRow } from './csv-reader.ts';
import { type InflateBudget, type InflateLimits, inflateBudget } from './inflate.ts';

interface ZipEntry {
  method: number;
  compressedSize: number;
  dataStart: number;
}

const notXlsx = () =>
  invalidArguments('The file is not an XLSX workbook. Save it as .xlsx (Excel 2007 or later) or as CSV.');

/** The entries of a zip by name, from its central directory (no ZIP64: workbooks of over 4 GB are refused). */
function zipEntries(bytes: Uint8Array): Map<string, ZipEntry> {
  if (bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0)
    throw invalidArguments(
      'This is an .xls file (Excel 97-2003), which is not read: save it as .xlsx or as CSV.',
    );
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 65_557); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw notXlsx();
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries = new Map<string, ZipEntry>();
  const decoder = new TextDecoder();
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) throw notXlsx();
    const method = view.getUint16(at + 10, true);
    const compressedSize = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) throw notXlsx();
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    entries.set(name.replace(/^\//, ''), { method, compressedSize, dataStart });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const MIB = 1024 * 1024;

/**
 * What a workbook of `fileBytes` bytes may inflate to (docs/security.md, "Input limits"): 16 times its size a part
 * and 32 times in all (counted from 1 MiB for a smaller file: 16 and 32 MiB), and no part more than 100 times its
 * compressed size once past 1 MiB. A spreadsheet program's parts compress 3 to 30 times; a zip bomb 1,000.
 */
export function xlsxInflateLimits(fileBytes: number): InflateLimits {
  const base = Math.max(fileBytes, MIB);
  return { maxEntryBytes: 16 * base, maxTotalBytes: 32 * base, maxRatio: 100 };
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** Parses XML text, calling `open`, `text` and `close` with element names stripped of their prefixes. */
function xmlParser(handlers: {
  open(name: string, attributes: Record<string, string>): void;
  text?(text: string): void;
  close?(name: string): void;
}): SaxesParser {
  const parser = new SaxesParser();
  parser.on('opentag', (tag: SaxesTagPlain) =>
    handlers.open(localName(tag.name), tag.attributes as Record<string, string>),
  );
  if (handlers.text) {
    const text = handlers.text;
    parser.on('text', text);
    parser.on('cdata', text);
  }
  if (handlers.close) {
    const close = handlers.close;
    parser.on('closetag', (tag) => close(localName(tag.name)));
  }
  parser.on('error', () => {
    throw invalidArguments('The workbook holds XML that cannot be read; open it and save it again.');
  });
  return parser;
}

/**
 * An entry inflated into `parser` through the budget: each call pushes the next `piece` compressed bytes (the last
 * call the rest) and answers whether any are left.
 */
function entryFeeder(
  bytes: Uint8Array,
  entry: ZipEntry,
  budget: InflateBudget,
  name: string,
  parser: SaxesParser,
): (piece: number) => boolean {
  const decoder = new TextDecoder();
  const inflating = budget.entry(name, entry.method, (chunk, final) => {
    parser.write(decoder.decode(chunk, { stream: !final }));
    if (final) parser.close();
  });
  const data = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  let at = 0;
  return (piece) => {
    const end = Math.min(at + piece, data.byteLength);
    inflating.push(data.subarray(at, end), end >= data.byteLength);
    at = end;
    return at < data.byteLength;
  };
}

/** Parses a part's XML as it inflates: only what `handlers` keep stays in memory. */
function parsePart(
  bytes: Uint8Array,
  entry: ZipEntry,
  budget: InflateBudget,
  name: string,
  handlers: Parameters<typeof xmlParser>[0],
): void {
  entryFeeder(bytes, entry, budget, name, xmlParser(handlers))(Number.POSITIVE_INFINITY);
}

/** Built-in number formats that show dates or times. */
const DATE_FORMAT_IDS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54,
  55, 56, 57, 58,
]);

/** Excel keeps a custom number format to 255 characters: a longer code is no format it wrote. */
const MAX_FORMAT_CODE_LENGTH = 255;

/**
 * A custom format code that shows a date or time: d, m, y, h or s outside quotes, brackets and escapes. A quote or
 * bracket left open runs to the end of the code (so the pattern never reads the rest again from each one: linear).
 */
function isDateFormatCode(code: string): boolean {
  if (code.length > MAX_FORMAT_CODE_LENGTH) return false;
  const bare = code.replace(/"[^"]*(?:"|$)|\[[^\]]*(?:\]|$)|\\.|_.|\*./g, '');
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

/** Parses the named part of the workbook as it inflates, if the workbook has it (answers whether it does). */
type PartReader = (name: string, handlers: Parameters<typeof xmlParser>[0]) => boolean;

/** For each cell style index, whether it formats its number as a date. */
function dateStyles(readPart: PartReader): boolean[] {
  const custom = new Map<number, string>();
  const styles: boolean[] = [];
  let inCellXfs = false;
  readPart('xl/styles.xml', {
    open(name, attributes) {
      if (name === 'numFmt') custom.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) {
        const id = Number(attributes.numFmtId ?? 0);
        const code = custom.get(id);
        styles.push(code !== undefined ? isDateFormatCode(code) : DATE_FORMAT_IDS.has(id));
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return styles;
}

/** The shared strings (their total bounded by the part's inflate limit). */
function sharedStrings(readPart: PartReader): string[] {
  const strings: string[] = [];
  let current: string | null = null;
  let inText = false;
  let phonetic = 0;
  readPart('xl/sharedStrings.xml', {
    open(name) {
      if (name === 'si') current = '';
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0) inText = true;
    },
    text(text) {
      if (inText && current !== null) current += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') {
        strings.push(current ?? '');
        current = null;
      }
    },
  });
  return strings;
}

/** Column letters of a cell reference (`AB12`) as a 0-based index. */
function columnIndex(reference: string): number {
  let index = 0;
  for (const char of reference) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    index = index * 26 + (code - 64);
  }
  return index - 1;
}

/** A serial number (days since 1899-12-30, or since 1904-01-01) as an ISO date, with the time if it has one. */
function serialToIso(serial: number, date1904: boolean): string {
  const days = serial + (date1904 ? 1462 : 0);
  const time = Math.round((days - 25_569) * 86_400) * 1000;
  const iso = new Date(time).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19);
}

export interface WorkbookSheets {
  names: string[];
}

/** The zip's entries and a reader of its parts, all inflated under one budget (xlsxInflateLimits). */
function workbookParts(bytes: Uint8Array) {
  const entries = zipEntries(bytes);
  const budget = inflateBudget(xlsxInflateLimits(bytes.byteLength), 'The workbook');
  const readPart: PartReader = (name, handlers) => {
    const entry = entries.get(name);
    if (entry) parsePart(bytes, entry, budget, name, handlers);
    return entry !== undefined;
  };
  return { entries, budget, readPart };
}

/** Where a workbook keeps a sheet, and what its cells need: strings, date styles, date system. */
function openWorkbook(bytes: Uint8Array, sheet: string | undefined) {
  const { entries, budget, readPart } = workbookParts(bytes);
  const sheets: { name: string; relation: string }[] = [];
  let date1904 = false;
  const hasWorkbook = readPart('xl/workbook.xml', {
    open(name, attributes) {
      if (name === 'sheet')
        sheets.push({
          name: attributes.name ?? '',
          relation: Object.entries(attributes).find(([key]) => localName(key) === 'id')?.[1] ?? '',
        });
      else if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attributes.date1904 ?? '');
    },
  });
  if (!hasWorkbook) throw notXlsx();
  const targets = new Map<string, string>();
  readPart('xl/_rels/workbook.xml.rels', {
    open(name, attributes) {
      if (name === 'Relationship' && attributes.Id && attributes.Target)
        targets.set(attributes.Id, attributes.Target);
    },
  });
  const chosen =
    sheet === undefined
      ? sheets[0]
      : (sheets.find((item) => item.name === sheet) ??
        sheets.find((item) => item.name.toLowerCase() === sheet.trim().toLowerCase()));
  if (!chosen)
    throw invalidArguments(
      sheet === undefined
        ? 'The workbook has no sheet.'
        : `The workbook has no sheet named "${sheet}"; its sheets: ${sheets.map((item) => `"${item.name}"`).join(', ')}.`,
    );
  const target = targets.get(chosen.relation) ?? '';
  const path = target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
  const entry = entries.get(path);
  if (!entry) throw notXlsx();
  return {
    path,
    entry,
    budget,
    strings: sharedStrings(readPart),
    dates: dateStyles(readPart),
    date1904,
    sheets: sheets.map((item) => item.name),
  };
}

/** The names of a workbook's sheets, in order. */
export function xlsxSheetNames(bytes: Uint8Array): string[] {
  const names: string[] = [];
  const found = workbookParts(bytes).readPart('xl/workbook.xml', {
    open(name, attributes) {
      if (name === 'sheet') names.push(attributes.name ?? '');
    },
  });
  if (!found) throw notXlsx();
  return names;
}

/** Compressed bytes fed to the inflater at a time: rows come out as each piece is read. */
const PIECE = 64 * 1024;

/** The rows of a sheet (the first, or the one named), each cell as text; empty rows are left out. */
export async function* readXlsxRows(bytes: Uint8Array, sheet?: string): AsyncGenerator<TableRow> {
  const book = openWorkbook(bytes, sheet);
  let rows: TableRow[] = [];
  let row: string[] | null = null;
  let rowNumber = 0;
  let cell: { column: number; type: string; style: number } | null = null;
  let value = '';
  let inValue = false;
  let inline = false;
  let phonetic = 0;
  let column = -1;
  const parser = xmlParser({
    open(name, attributes) {
      if (name === 'row') {
        rowNumber = attributes.r ? Number(attributes.r) : rowNumber + 1;
        row = [];
        column = -1;
      } else if (name === 'c' && row) {
        column = attributes.r ? columnIndex(attributes.r) : column + 1;
        if (column >= CSV_LIMITS.maxColumns)
          throw invalidArguments(
            `Row ${rowNumber} has more than ${CSV_LIMITS.maxColumns} columns; a register has far fewer.`,
          );
        cell = { column, type: attributes.t ?? 'n', style: Number(attributes.s ?? 0) };
        value = '';
      } else if (name === 'v' && cell) inValue = true;
      else if (name === 'is' && cell) inline = true;
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && inline && phonetic === 0) inValue = true;
    },
    text(text) {
      if (inValue) {
        value += text;
        if (value.length > CSV_LIMITS.maxFieldLength) throw cellTooLong();
      }
    },
    close(name) {
      if (name === 'v' || name === 't') inValue = false;
      else if (name === 'is') inline = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'c' && cell && row) {
        const text = cellText(cell.type, cell.style, value);
        // A shared string is as long as its part allows: the cell that shows it is held to a cell's limit.
        if (text.length > CSV_LIMITS.maxFieldLength) throw cellTooLong();
        row[cell.column] = text;
        cell = null;
      } else if (name === 'row' && row) {
        const cells = Array.from(row, (item) => item ?? '');
        if (cells.some((item) => item !== '')) rows.push({ number: rowNumber, cells });
        row = null;
      }
    },
  });
  function cellTooLong() {
    return invalidArguments(
      `A cell of row ${rowNumber} is longer than ${CSV_LIMITS.maxFieldLength} characters.`,
    );
  }
  function cellText(type: string, style: number, raw: string): string {
    switch (type) {
      case 's':
        return book.strings[Number(raw)] ?? '';
      case 'b':
        return raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
      case 'inlineStr':
      case 'str':
      case 'e':
      case 'd':
        return raw;
      default: {
        if (raw === '') return '';
        const number = Number(raw);
        if (Number.isNaN(number)) return raw;
        return book.dates[style] ? serialToIso(number, book.date1904) : String(number);
      }
    }
  }
  const feed = entryFeeder(bytes, book.entry, book.budget, book.path, parser);
  while (feed(PIECE)) {
    yield* rows;
    rows = [];
  }
  yield* rows;
}
