// CSV as written for people and spreadsheets (exports of registers, history, frameworks, file kinds) and read back by
// the import engine (src/tools/tables/csv-reader.ts).

/**
 * Cells a spreadsheet would run as a formula start with one of these; such a cell gets a leading quote. Text that
 * already starts with quotes before one gets one more, so that an import, which takes one off, reads it back as it was.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break; text that a spreadsheet would
 * read as a formula (=, +, -, @, tab, CR first) is prefixed with `'`. Lists become `a; b`; null is empty.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = Array.isArray(value)
    ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('; ')
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Excel opens a CSV as UTF-8 only with a byte-order mark. */
export const CSV_BOM = '\uFEFF';
