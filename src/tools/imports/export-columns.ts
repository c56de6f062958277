// A register's columns as exports write them: readable (the web interface's labels for headers, values in words,
// referenced records by name, a person's email beside their name) or with the API's names and codes. A readable
// export imports back: its headers are among those an import matches, and a name that would not find its record
// again (shared by two records, holding the list separator, none) is written as the id.
import type { RegisterTools } from '../registers/builder.ts';
import { recordSchema } from '../registers/schemas.ts';
import {
  fieldLabelOf,
  kindOfId,
  nameFieldsOf,
  type RegisterKind,
  type RegisterSpec,
  type Row,
  targetsOf,
} from '../registers/spec.ts';
import type { XlsxCell } from '../tables/xlsx-writer.ts';
import { emailHeaderOf, importFieldsOf } from './columns.ts';

export type ExportHeaders = 'labels' | 'api';

/** How a referenced record is written in a readable export: its name where that finds it again, else its id. */
export type NameBook = Map<RegisterKind, Map<string, { text: string; email?: string }>>;

export interface ExportColumn {
  header: string;
  cell(row: Row): XlsxCell;
}

/** The registers a register's records point into (fields and relation lists). */
export function referencedKinds(spec: RegisterSpec): Set<RegisterKind> {
  const kinds = new Set<RegisterKind>();
  for (const field of Object.values(spec.fields)) if (field.ref) kinds.add(field.ref);
  for (const relation of spec.relations ?? []) for (const kind of targetsOf(relation)) kinds.add(kind);
  return kinds;
}

/** A record's name: its name fields joined with a space. */
export function recordName(spec: RegisterSpec, record: Row): string {
  return nameFieldsOf(spec)
    .map((field) => record[field])
    .filter((value) => typeof value === 'string' && value !== '')
    .join(' ');
}

/** The name book of some registers' records (each read whole, through `records`). */
export async function nameBookOf(
  registers: Iterable<RegisterTools>,
  records: (tools: RegisterTools) => AsyncIterable<Row>,
): Promise<NameBook> {
  const book: NameBook = new Map();
  for (const tools of registers) {
    const { spec } = tools;
    const entries = new Map<string, { text: string; email?: string }>();
    const uses = new Map<string, number>();
    for await (const record of records(tools)) {
      const name = recordName(spec, record);
      const email = spec.kind === 'person' && typeof record.email === 'string' ? record.email : undefined;
      entries.set(String(record.id), { text: name, ...(email ? { email } : {}) });
      uses.set(name, (uses.get(name) ?? 0) + 1);
    }
    for (const [id, entry] of entries) {
      const findable = entry.text !== '' && !entry.text.includes(';') && uses.get(entry.text) === 1;
      if (!findable) entry.text = id;
    }
    book.set(spec.kind, entries);
  }
  return book;
}

/** "IN_TREATMENT" -> "In treatment": an enum value as the web interface words it (imports take either). */
export function enumLabel(code: string): string {
  const words = code.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isDate = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** The columns of an export of `tools`' register. */
export function exportColumnsOf(
  tools: RegisterTools,
  headers: ExportHeaders,
  book: NameBook,
): ExportColumn[] {
  const { spec } = tools;
  // `labels` names the referenced records for a reader of one answer; an export writes names in their own columns.
  const names = Object.keys(recordSchema(spec).shape).filter(
    (name) => name !== 'organization_id' && name !== 'labels',
  );
  if (headers === 'api') return names.map((name) => ({ header: name, cell: (row) => apiCell(row[name]) }));
  const importable = new Map(importFieldsOf(tools).map((field) => [field.name, field]));
  const columns: ExportColumn[] = [];
  for (const name of names) {
    const header = fieldLabelOf(spec, name);
    const relation = spec.relations?.find((item) => item.field === name);
    const ref = spec.fields[name]?.ref;
    const targets = ref ? [ref] : relation ? targetsOf(relation) : [];
    if (targets.length > 0) {
      const named = (id: unknown) => {
        if (typeof id !== 'string') return '';
        const kind = kindOfId(targets, id);
        return (kind && book.get(kind)?.get(id)?.text) ?? id;
      };
      columns.push({
        header,
        cell: (row) => {
          const value = row[name];
          return Array.isArray(value) ? value.map(named).join('; ') : named(value);
        },
      });
      if (spec.fields[name]?.ref === 'person')
        columns.push({
          header: emailHeaderOf(header),
          cell: (row) => {
            const id = row[name];
            return typeof id === 'string' ? (book.get('person')?.get(id)?.email ?? '') : '';
          },
        });
      continue;
    }
    const field = importable.get(name);
    const options = field?.options ?? [];
    columns.push({
      header,
      cell: (row) => {
        const value = row[name];
        if (value === null || value === undefined) return null;
        if (typeof value === 'boolean') return value ? 'yes' : 'no';
        if (typeof value === 'number') return value;
        if (Array.isArray(value)) return value.map(String).join('; ');
        if (typeof value === 'string' && options.includes(value)) return enumLabel(value);
        if (isDate(value)) return { date: value };
        if (typeof value === 'string' && /^[A-Z][A-Z_]+$/.test(value) && spec.fields[name]?.derived)
          return enumLabel(value);
        return typeof value === 'object' ? JSON.stringify(value) : String(value);
      },
    });
  }
  return columns;
}

function apiCell(value: unknown): XlsxCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('; ');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A cell as CSV text takes it (dates as ISO text). */
export function cellText(cell: XlsxCell): string | number | null {
  return cell !== null && typeof cell === 'object' ? cell.date : cell;
}
