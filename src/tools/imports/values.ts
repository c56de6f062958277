// A cell of a file as a field's value: numbers, yes/no, dates (ISO, spreadsheet serial numbers, or day/month/year in
// a named order), lists split on semicolons or line breaks. Enums, text and URLs go to the tool's schema as written.
import type { ImportField } from './columns.ts';

/** How dates written day/month/year or month/day/year are read (ISO dates and serial numbers always are). */
export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export type CellValue = { ok: true; value: unknown } | { ok: false; message: string };

/** The CSV export's formula guard (`'=SUM(...)`): one leading quote before a formula character is taken off. */
const GUARDED = /^'+[=+\-@\t\r]/;

export function unguarded(text: string): string {
  return GUARDED.test(text) ? text.slice(1) : text;
}

const YES = new Set(['yes', 'y', 'true', '1', 'x', 'wahr', 'oui', 'ja']);
const NO = new Set(['no', 'n', 'false', '0', 'falsch', 'non', 'nein']);

/** Days between 1899-12-30 (day 0 of spreadsheets' 1900 date system, after its 1900 leap-year bug) and 1970-01-01. */
const SERIAL_EPOCH_DAYS = 25_569;
/** 9999-12-31 as a serial number: the last date spreadsheets know. */
const LAST_SERIAL = 2_958_465;

/** A spreadsheet serial number (days since 1899-12-30, fraction = time of day) as an ISO date. */
export function serialToIsoDate(serial: number): string {
  const days = Math.floor(serial);
  return new Date((days - SERIAL_EPOCH_DAYS) * 86_400_000).toISOString().slice(0, 10);
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isoOf(year: number, month: number, day: number): string | null {
  if (!isCalendarDate(year, month, day)) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A date as the schemas take it (YYYY-MM-DD). */
export function parseDate(text: string, format: DateFormat | undefined): CellValue {
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (iso) {
    const value = isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
    return value ? { ok: true, value } : { ok: false, message: `${text} is not a calendar date` };
  }
  if (/^\d+(\.\d+)?$/.test(text)) {
    const serial = Number(text);
    if (serial >= 1 && serial <= LAST_SERIAL) return { ok: true, value: serialToIsoDate(serial) };
  }
  const parts = /^(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4})$/.exec(text);
  if (parts) {
    const [a, b, c] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
    if ((parts[1] ?? '').length === 4) {
      const value = isoOf(a, b, c);
      if (value) return { ok: true, value };
    } else if (format) {
      const year = (parts[3] ?? '').length === 2 ? 2000 + c : c;
      const value = format === 'DD/MM/YYYY' ? isoOf(year, b, a) : isoOf(year, a, b);
      return value
        ? { ok: true, value }
        : { ok: false, message: `${text} is not a calendar date as ${format}` };
    } else {
      return {
        ok: false,
        message: `${text} is not an ISO date (YYYY-MM-DD); name the file's date format (DD/MM/YYYY or MM/DD/YYYY)`,
      };
    }
  }
  return { ok: false, message: `Expected a date such as 2026-11-25, not "${text}"` };
}

/** Items of a list cell: `a; b` (as exports write lists) or one per line. */
export function splitList(text: string): string[] {
  return text
    .split(/;|\r?\n/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A non-empty cell as a value of the field (references stay text: they are resolved later). */
export function cellValue(field: ImportField, raw: string, format: DateFormat | undefined): CellValue {
  const text = unguarded(raw).trim();
  switch (field.kind) {
    case 'integer':
    case 'number': {
      const compact = text.replace(/[\s\u00a0\u202f]/g, '');
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(compact))
        return { ok: false, message: `Expected a number, not "${text}"` };
      return { ok: true, value: Number(compact) };
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (YES.has(word)) return { ok: true, value: true };
      if (NO.has(word)) return { ok: true, value: false };
      return { ok: false, message: `Expected yes or no, not "${text}"` };
    }
    case 'date':
      return parseDate(text, format);
    case 'list':
    case 'refs':
      return { ok: true, value: splitList(text) };
    default:
      return { ok: true, value: field.kind === 'text' ? unguarded(raw) : text };
  }
}
