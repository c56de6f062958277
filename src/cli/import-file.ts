// `compliance-mcp import`: a CSV (or XLSX) file of any size imported into one register of an organization, as its
// first owner. The file is read as a stream, a chunk of rows at a time, and written chunk by chunk inside ONE write
// transaction that commits only if every row passed (else it rolls back): memory holds a chunk, not the file.
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { type SQLWrapper, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { invalidArguments, notFound } from '../errors.ts';
import {
  type ImportOptions,
  type ImportReport,
  importTable,
  type TableRows,
} from '../tools/imports/engine.ts';
import { exportFileKind } from '../tools/imports/file-kind-export.ts';
import { importFileKind } from '../tools/imports/file-kind-import.ts';
import type {
  FileImportReport,
  FileKind,
  FileImportOptions as KindImportOptions,
} from '../tools/imports/file-kinds.ts';
import { MAX_IMPORT_ROWS, withinImportLimits } from '../tools/imports/limits.ts';
import { refusalOf } from '../tools/imports/tool.ts';
import type { DateFormat } from '../tools/imports/values.ts';
import { REGISTERS } from '../tools/index.ts';
import type { RegisterKind } from '../tools/registers/spec.ts';
import { createCsvReader, type TableRow } from '../tools/tables/csv-reader.ts';
import { CSV_BOM, csvLine } from '../tools/tables/csv-writer.ts';
import { readXlsxRows } from '../tools/tables/xlsx-reader.ts';
import { cliContext } from './context.ts';

/** The text of a CSV file as it is read: UTF-8 (a BOM or none) or UTF-16 with its BOM, decoded piece by piece. */
async function* csvFileRows(path: string): AsyncGenerator<TableRow> {
  const reader = createCsvReader();
  let decoder: TextDecoder | undefined;
  try {
    for await (const chunk of createReadStream(path, {
      highWaterMark: 256 * 1024,
    }) as AsyncIterable<Buffer>) {
      let bytes: Uint8Array = chunk;
      if (!decoder) {
        const utf16 =
          bytes[0] === 0xff && bytes[1] === 0xfe
            ? 'utf-16le'
            : bytes[0] === 0xfe && bytes[1] === 0xff
              ? 'utf-16be'
              : null;
        decoder = new TextDecoder(utf16 ?? 'utf-8', { fatal: true });
        if (utf16) bytes = bytes.subarray(2);
      }
      yield* reader.push(decoder.decode(bytes, { stream: true }));
    }
    if (decoder) yield* reader.push(decoder.decode());
  } catch (error) {
    if (error instanceof TypeError && /encoded|decode/i.test(error.message))
      throw invalidArguments(
        'The file is not UTF-8 text (nor UTF-16 with a byte-order mark). Save it as "CSV UTF-8".',
      );
    throw error;
  }
  yield* reader.end();
}

export interface FileImportOptions {
  organizationId: string;
  kind: RegisterKind;
  file: string;
  dryRun: boolean;
  createPeople: boolean;
  dateFormat?: DateFormat;
  sheet?: string;
}

/** The rows of the file: CSV streamed, XLSX (a zip, read whole) with its sheet's XML streamed. */
async function rowsOfFile(options: { file: string; sheet?: string }): Promise<TableRows> {
  const info = await stat(options.file);
  if (info.size === 0)
    throw invalidArguments('The file is empty: expected a header row, then one row per record.');
  if (/\.xlsx$/i.test(options.file) || options.sheet !== undefined)
    return readXlsxRows(new Uint8Array(await readFile(options.file)), options.sheet);
  return csvFileRows(options.file);
}

export async function importRecordsFile(
  db: Db,
  now: () => Date,
  options: FileImportOptions,
): Promise<ImportReport & { written: boolean }> {
  const ctx = await cliContext(db, options.organizationId, now, 'importRecords');
  const importOptions: ImportOptions = {
    organizationId: options.organizationId,
    dryRun: options.dryRun,
    createPeople: options.createPeople,
    tool: 'importRecords',
    ...(options.dateFormat ? { dateFormat: options.dateFormat } : {}),
  };
  const rows = await rowsOfFile(options);
  if (options.dryRun) {
    const report = await importTable(ctx, REGISTERS, options.kind, rows, importOptions, {
      write: async () => {},
    });
    return { ...report, written: false };
  }
  // Everything goes through the transaction, reads too (an embedded database has one connection, which it holds):
  // it takes the write lock at once and keeps it until it commits or rolls back. The call-log row comes from the
  // context, as for any write, and commits with the rows.
  let report: ImportReport | undefined;
  await db.transaction(async (tx) => {
    const inTransaction = { ...ctx, db: tx as unknown as Db };
    report = await importTable(inTransaction, REGISTERS, options.kind, rows, importOptions, {
      async write(statements) {
        for (const statement of statements) await tx.run(statement);
      },
    });
    if (report.counts.refused > 0) throw refusalOf(report);
    for (const item of ctx.writeExtras(sql`1`)) await tx.run((item as unknown as SQLWrapper).getSQL());
  });
  if (!report) throw new Error('import: no report');
  return { ...report, written: report.counts.created + report.counts.updated > 0 };
}

export interface FileKindFileOptions {
  organizationId: string;
  kind: FileKind;
  file: string;
  dryRun: boolean;
  auditId?: string;
  sheet?: string;
}

/**
 * `import --kind questionnaire_templates|audit_checklist`: the file (CSV or XLSX, at most MAX_IMPORT_ROWS rows: these
 * files are small) checked whole, then written in one transaction with the call-log row, or not at all.
 */
export async function importFileKindFile(
  db: Db,
  now: () => Date,
  options: FileKindFileOptions,
): Promise<FileImportReport & { written: boolean }> {
  const ctx = await cliContext(db, options.organizationId, now, 'importRecords');
  const fileOptions: KindImportOptions = {
    organizationId: options.organizationId,
    dryRun: options.dryRun,
    tool: 'importRecords',
    ...(options.auditId ? { auditId: options.auditId } : {}),
  };
  const rows = withinImportLimits(await rowsOfFile(options), { maxRows: MAX_IMPORT_ROWS });
  let written = false;
  const report = await db.transaction(async (tx) => {
    const inTransaction = { ...ctx, db: tx as unknown as Db };
    const planned = await importFileKind(
      inTransaction,
      options.kind,
      rows,
      fileOptions,
      async (statements) => {
        for (const statement of statements) await tx.run(statement);
        for (const item of ctx.writeExtras(sql`1`)) await tx.run((item as unknown as SQLWrapper).getSQL());
        written = true;
      },
    );
    if (planned.counts.refused > 0 && !options.dryRun) throw refusalOf(planned);
    return planned;
  });
  return { ...report, written };
}

/** `export`: a template's or an audit checklist's file (CSV, or JSON for a .json name), read as the owner. */
export async function exportFileKindFile(
  db: Db,
  now: () => Date,
  options: { organizationId: string; kind: FileKind; id: string; file: string },
): Promise<{ kind: FileKind; file: string; rows: number }> {
  const ctx = await cliContext(db, options.organizationId, now, 'export');
  const exported = await exportFileKind(
    (tool, input) => {
      const parsed = tool.input.safeParse(input);
      if (!parsed.success)
        throw invalidArguments(parsed.error.issues.map((issue) => issue.message).join('; '));
      return tool.run(ctx, parsed.data) as Promise<Record<string, unknown>>;
    },
    options.kind,
    options.id,
  );
  if (exported.organizationId !== options.organizationId)
    throw notFound(options.kind === 'questionnaire_template' ? 'Questionnaire template' : 'Audit');
  const json = /\.json$/i.test(options.file);
  await writeFile(
    options.file,
    json
      ? `${JSON.stringify(exported.json, null, 2)}\n`
      : CSV_BOM + exported.rows.map((row) => csvLine(row)).join(''),
  );
  return { kind: options.kind, file: options.file, rows: exported.rows.length - 1 };
}
