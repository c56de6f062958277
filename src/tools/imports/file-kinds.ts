// Kinds that are not registers but travel as files beside them: a questionnaire template (a row per question) and an
// audit's checklist results (a row per requirement). Their files are small (a template holds at most 100 questions,
// a checklist one row per requirement in scope), so a file is read whole (within the import's row limit), every row
// is checked, and the statements go to the same writer as a register import: all rows or none, history rows with
// surface `import` and the call's id. Here the pieces both share: kinds, the header, cells, refusals.
import { invalidArguments } from '../../errors.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import { headerKey } from './columns.ts';
import { emptyReport, type ImportReport, LISTED_ERRORS, type RowError, type TableRows } from './run.ts';
import { unguarded } from './values.ts';

export const FILE_KINDS = ['questionnaire_template', 'audit_checklist_result'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** Every name the CLI and importRecords take for a file kind, as header keys. */
const FILE_KIND_NAMES = new Map<string, FileKind>([
  ['questionnairetemplate', 'questionnaire_template'],
  ['questionnairetemplates', 'questionnaire_template'],
  ['auditchecklistresult', 'audit_checklist_result'],
  ['auditchecklistresults', 'audit_checklist_result'],
  ['auditchecklist', 'audit_checklist_result'],
]);

/** `questionnaire_templates`, `audit checklist`: the file kind, or undefined when it names none. */
export function fileKindNamed(name: string): FileKind | undefined {
  return FILE_KIND_NAMES.get(headerKey(name));
}

export function isFileKind(kind: string): kind is FileKind {
  return (FILE_KINDS as readonly string[]).includes(kind);
}

/** A column of a file kind: its field, the header its export writes, other headers it is known by. */
export interface FileColumn {
  field: string;
  header: string;
  aliases?: readonly string[];
  /** Written by the export for a reader (a requirement's title); skipped by an import. */
  readOnly?: boolean;
}

export type FileImportReport = Omit<ImportReport, 'kind'> & { kind: FileKind };

export interface FileImportOptions {
  organizationId: string;
  dryRun: boolean;
  /** Header -> field, or null to ignore the column (as a register import takes them). */
  columns?: Record<string, string | null>;
  /** The audit whose checklist an audit_checklist_result file fills. */
  auditId?: string;
  /** The tool the history rows name. */
  tool: string;
}

/** A file read whole: its report so far, which cell holds each field, and its rows after the header. */
export interface FileTable {
  report: FileImportReport;
  columnOf: Map<string, number>;
  headerOf: Map<string, string>;
  rows: TableRow[];
}

/**
 * Reads the header against `columns` (any case and spacing; `chosen` maps or ignores a header) and the rows after it.
 * An unknown or doubled column refuses the file, naming it, as a register import does.
 */
export async function readFileTable(
  kind: FileKind,
  table: TableRows,
  columns: readonly FileColumn[],
  options: FileImportOptions,
  what: string,
): Promise<FileTable> {
  const keys = new Map<string, FileColumn>();
  for (const column of columns)
    for (const name of [column.field, column.header, ...(column.aliases ?? [])])
      keys.set(headerKey(name), column);
  const choices = new Map(
    Object.entries(options.columns ?? {}).map(([name, field]) => [headerKey(name), field]),
  );
  const report = emptyReport(kind, options.dryRun);
  const columnOf = new Map<string, number>();
  const headerOf = new Map<string, string>();
  const rows: TableRow[] = [];
  let header: string[] | undefined;
  for await (const row of table) {
    if (header) {
      if (row.cells.some((cell) => cell.trim() !== '')) rows.push(row);
      continue;
    }
    header = row.cells.map((cell) => cell.trim());
    if (header.every((cell) => cell === ''))
      throw invalidArguments('The file has no header row: expected column names on its first row.');
    const unknown: string[] = [];
    header.forEach((text, index) => {
      const key = headerKey(text);
      const choice = choices.get(key);
      const column = choices.has(key)
        ? choice === null || choice === undefined || choice === ''
          ? null
          : keys.get(headerKey(choice))
        : keys.get(key);
      if (column === undefined) unknown.push(text || `(column ${index + 1}, no header)`);
      const status =
        column === null
          ? 'ignored'
          : column === undefined
            ? 'unknown'
            : column.readOnly
              ? 'read_only'
              : 'field';
      report.columns.push({ column: index + 1, header: text, field: column?.field ?? null, status });
      if (!column || column.readOnly) return;
      const earlier = headerOf.get(column.field);
      if (earlier !== undefined)
        throw invalidArguments(
          `Columns "${earlier}" and "${text}" both hold ${column.field}; ignore one of them.`,
          [{ path: `column ${index + 1}`, message: `Same field as column "${earlier}"` }],
        );
      columnOf.set(column.field, index);
      headerOf.set(column.field, text);
    });
    if (unknown.length > 0)
      throw invalidArguments(
        `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}: not a column of ${what}. Map it to a field with columns ({"${unknown[0]}": "<field>"}) or ignore it (""). Columns: ${columns.map((column) => column.header).join(', ')}.`,
        unknown.map((name) => ({ path: name, message: `Unknown column ${name}` })),
      );
  }
  if (!header) throw invalidArguments(`The file is empty: expected a header row, then the rows of ${what}.`);
  if (rows.length === 0)
    throw invalidArguments(`The file has only a header row: no rows of ${what} to import.`);
  report.counts.rows = rows.length;
  return { report, columnOf, headerOf, rows };
}

/** The cell of `field` on a row, the export's formula guard taken off, ends trimmed; undefined without the column. */
export function cellOf(table: FileTable, row: TableRow, field: string): string | undefined {
  const index = table.columnOf.get(field);
  if (index === undefined) return undefined;
  return unguarded(row.cells[index] ?? '').trim();
}

/** A list cell: one item a line when it has line breaks, else `a; b`. */
export function listOf(cell: string | undefined): string[] {
  if (!cell) return [];
  const items = cell.includes('\n') ? cell.split('\n') : cell.split(';');
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** A list as a cell the import reads back: `a; b`, or one a line when an item holds `;`. */
export function listCell(items: readonly string[]): string {
  return items.join(items.some((item) => item.includes(';')) ? '\n' : '; ');
}

/** An error of `row` about `field` (placed at its column, or the row as a whole). */
export function errorAt(table: FileTable, row: number, field: string | null, message: string): RowError {
  return { row, column: field === null ? null : (table.headerOf.get(field) ?? null), field, message };
}

/** Counts each refused row once and lists its errors (the first LISTED_ERRORS; one a row and field). */
export function refuseRows(report: FileImportReport, errors: readonly RowError[]): void {
  const rows = new Set<number>();
  const listed = new Set<string>();
  for (const error of [...errors].sort((a, b) => a.row - b.row)) {
    rows.add(error.row);
    const place = `${error.row}:${error.field ?? ''}`;
    if (listed.has(place)) continue;
    listed.add(place);
    if (report.errors.length >= LISTED_ERRORS) report.errors_truncated = true;
    else report.errors.push(error);
  }
  report.counts.refused += rows.size;
}

/** An enum cell by its code or its label, in any case and spacing. */
export function enumOf<T extends string>(cell: string, labels: Readonly<Record<T, string>>): T | undefined {
  // As headers match, slashes left out too: `Yes/No`, `yes or no` and `YES_NO` all read as YES_NO.
  const key = (text: string) => headerKey(text).replaceAll('/', '');
  const wanted = key(cell);
  return (Object.keys(labels) as T[]).find(
    (code) =>
      key(code) === wanted ||
      key(labels[code]) === wanted ||
      key(labels[code].replace(' or ', ' ')) === wanted,
  );
}
