// The importRecords tool (MCP, direct calls, the web upload): a CSV given inline, imported into one register in one
// batch (all rows or none), with a dry run that answers what would be created, updated and refused.
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { AppError, invalidArguments } from '../../errors.ts';
import { caseInsensitiveEnum, idOf } from '../fields.ts';
import type { Registers } from '../registers/builder.ts';
import { kindNamed, type RegisterKind } from '../registers/spec.ts';
import { createCsvReader } from '../tables/csv-reader.ts';
import { CREATE_ANNOTATIONS, defineTool, type Tool, type ToolContext } from '../types.ts';
import {
  type ImportOptions,
  type ImportReport,
  type ImportWriter,
  importTable,
  type RowError,
  type TableRows,
} from './engine.ts';
import { importFileKind } from './file-kind-import.ts';
import {
  FILE_KINDS,
  type FileImportOptions,
  type FileImportReport,
  type FileKind,
  fileKindNamed,
  isFileKind,
} from './file-kinds.ts';
import { MAX_IMPORT_ROWS, withinImportLimits } from './limits.ts';
import { isGuardFailure } from './statements.ts';
import { DATE_FORMATS } from './values.ts';

export const IMPORT_TOOLSET = 'import';

/** A writer that keeps every statement for one batch at the end. */
export function batchWriter(): ImportWriter & { statements: SQL[] } {
  const statements: SQL[] = [];
  return {
    statements,
    async write(chunk) {
      statements.push(...chunk);
    },
  };
}

/** The rows of a CSV text. */
export function* csvRows(text: string): Generator<import('../tables/csv-reader.ts').TableRow> {
  const reader = createCsvReader();
  yield* reader.push(text);
  yield* reader.end();
}

/** Where a refused row's error is: `row 3, column "Owner", field owner_id`. */
function placeText(error: RowError): string {
  const column = error.column ? `, column "${error.column}"` : '';
  const field = error.field ? `, field ${error.field}${error.column ? '' : ' (no column)'}` : '';
  return `row ${error.row}${column}${field}`;
}

/** Refuses the whole file when a row is refused (a dry run answers the report instead). */
export function refusalOf(report: Pick<ImportReport, 'counts' | 'errors' | 'errors_truncated'>): AppError {
  const { refused, rows } = report.counts;
  const listed = report.errors.slice(0, 3).map((error) => `${placeText(error)}: ${error.message}`);
  return invalidArguments(
    `Nothing was imported: ${refused} of ${rows} rows are refused (${listed.join('; ')}${refused > 3 || report.errors_truncated ? '; ...' : ''}). Fix them, or run with dry_run for the whole list.`,
    report.errors.map((error) => ({
      path: placeText(error),
      message: error.message,
    })),
  );
}

/**
 * Imports `rows` in one batch: the writes, their history rows and the call's log row, so that all land or none.
 * A guard that fails (a record read by the plan changed before the batch) is a conflict.
 */
export async function importInOneBatch(
  ctx: ToolContext,
  registers: Registers,
  kind: RegisterKind,
  rows: TableRows,
  options: ImportOptions,
): Promise<ImportReport & { written: boolean }> {
  const writer = batchWriter();
  const report = await importTable(ctx, registers, kind, rows, options, writer);
  if (options.dryRun) return { ...report, written: false };
  if (report.counts.refused > 0) throw refusalOf(report);
  if (writer.statements.length === 0) return { ...report, written: false };
  await runImportBatch(ctx, writer.statements);
  return { ...report, written: true };
}

/** A file kind (a questionnaire template, an audit's checklist) imported in one batch, as a register's file. */
export async function importFileInOneBatch(
  ctx: ToolContext,
  kind: FileKind,
  rows: TableRows,
  options: FileImportOptions,
): Promise<FileImportReport & { written: boolean }> {
  let statements: SQL[] = [];
  const report = await importFileKind(ctx, kind, rows, options, async (planned) => {
    statements = planned;
  });
  if (options.dryRun) return { ...report, written: false };
  if (report.counts.refused > 0) throw refusalOf(report);
  if (statements.length === 0) return { ...report, written: false };
  await runImportBatch(ctx, statements);
  return { ...report, written: true };
}

/** The statements, the call's log row after them, in one batch; a failed guard is a conflict. */
async function runImportBatch(ctx: ToolContext, statements: readonly SQL[]): Promise<void> {
  const items = [...statements.map((statement) => ctx.db.run(statement)), ...ctx.writeExtras(sql`1`)];
  try {
    await ctx.db.batch(items as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  } catch (error) {
    if (isGuardFailure(error))
      throw new AppError(
        'conflict',
        'Records this file updates or refers to changed while it was imported; nothing was written. Retry.',
      );
    throw error;
  }
}

const KINDS = [
  'vendor',
  'risk',
  'measure',
  'control_test',
  'obligation',
  'person',
  'framework',
  'asset',
  'data_classification',
  'nonconformity',
  'continual_improvement',
  'audit',
  'requirement',
  'access_review_entry',
  'management_review',
] as const satisfies readonly RegisterKind[];

const count = (what: string) => z.number().int().describe(what);

export function importRecordsTool(registers: Registers): Tool {
  const specs = Object.values(registers).map((register) => register.spec);
  /** `risk`, `risks`, `Data classifications`: the register's kind, as the CLI takes it (kindNamed). */
  const kindSchema = z.preprocess(
    (value) =>
      typeof value === 'string' ? (kindNamed(specs, value) ?? fileKindNamed(value) ?? value) : value,
    z.enum([...KINDS, ...FILE_KINDS]),
  );
  return defineTool({
    name: 'importRecords',
    title: 'Import records from CSV',
    description:
      "Create or update many records of one register from CSV (header row; columns by field name or label; references by id or name; at most 10,000 rows), or questionnaire templates, or an audit's checklist results (audit_id). All rows or none; dry_run: report only.",
    scope: 'write',
    toolset: IMPORT_TOOLSET,
    annotations: CREATE_ANNOTATIONS,
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
      kind: kindSchema.describe(
        'Register, e.g. risks; or questionnaire_template (a row per question) or audit_checklist_result (a row per requirement).',
      ),
      audit_id: idOf('aud', 'Audit')
        .optional()
        .describe('audit_checklist_result only: the audit whose checklist the file fills (`aud_...`).'),
      csv: z.string().min(1).describe('CSV text; a row with an id updates that record.'),
      dry_run: z.boolean().default(false).describe('true: report, write nothing.'),
      // "" rather than null ignores a column: null means "not given" for every argument (invoke.ts).
      columns: z
        .record(z.string(), z.string())
        .optional()
        .describe('Header -> field; "" ignores the column.'),
      date_format: caseInsensitiveEnum(DATE_FORMATS).optional().describe('How to read d/m/y dates.'),
      create_people: z.boolean().default(false).describe('Create people named but not found.'),
    }),
    output: z.object({
      kind: z.string().describe('Register.'),
      dry_run: z.boolean().describe('Nothing was written.'),
      written: z.boolean().describe('The rows were written.'),
      counts: z
        .object({
          rows: count('Rows read.'),
          created: count('New records.'),
          updated: count('Changed records.'),
          unchanged: count('Rows equal to their record.'),
          refused: count('Rows with errors.'),
          people_created: count('People created.'),
          warnings: count('Warnings of rows written.'),
        })
        .describe('How many.'),
      columns: z
        .array(
          z
            .object({
              column: z.number().int().describe('1-based.'),
              header: z.string().describe('Header.'),
              field: z.string().nullable().describe('Field it fills.'),
              status: z.string().describe('id, field, read_only, ignored.'),
            })
            .describe('A column.'),
        )
        .describe('How each column was read.'),
      errors: z
        .array(
          z
            .object({
              row: z.number().int().describe('Row (header = 1).'),
              column: z.string().nullable().describe('Header.'),
              field: z.string().nullable().describe('Field it is about.'),
              message: z.string().describe('Why.'),
            })
            .describe('A refusal.'),
        )
        .describe('Refused rows, first 100.'),
      errors_truncated: z.boolean().describe('More errors than listed.'),
      warnings: z
        .array(
          z
            .object({
              row: z.number().int().describe('Row (header = 1).'),
              column: z.string().nullable().describe('Header.'),
              field: z.string().nullable().describe('Field it is about.'),
              message: z.string().describe('The problem and the fix.'),
            })
            .describe('A warning.'),
        )
        .describe('Rows written with a softer problem, first 100: tell the user.'),
      people_created: z
        .array(z.object({ full_name: z.string(), email: z.string() }).describe('A person.'))
        .describe('First 100.'),
    }),
    async run(ctx, input) {
      const options: ImportOptions = {
        organizationId: input.organization_id,
        dryRun: input.dry_run,
        createPeople: input.create_people,
        tool: 'importRecords',
        ...(input.columns ? { columns: ignoredAsNull(input.columns) } : {}),
        ...(input.date_format ? { dateFormat: input.date_format } : {}),
      };
      const rows = withinImportLimits(csvRows(input.csv), { maxRows: MAX_IMPORT_ROWS });
      if (input.audit_id !== undefined && input.kind !== 'audit_checklist_result')
        throw invalidArguments('audit_id goes with kind audit_checklist_result only.', [
          { path: 'audit_id', message: `Not with kind ${input.kind}` },
        ]);
      if (isFileKind(input.kind))
        return importFileInOneBatch(ctx, input.kind, rows, {
          organizationId: input.organization_id,
          dryRun: input.dry_run,
          tool: 'importRecords',
          ...(input.columns ? { columns: ignoredAsNull(input.columns) } : {}),
          ...(input.audit_id ? { auditId: input.audit_id } : {}),
        });
      return importInOneBatch(ctx, registers, input.kind, rows, options);
    },
  });
}

/** The import engine's column choices: "" (ignore the column) as null. */
function ignoredAsNull(columns: Record<string, string>): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(columns).map(([header, field]) => [header, field === '' ? null : field]),
  );
}
