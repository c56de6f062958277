// Imports a file of a kind that is not a register (file-kinds.ts): a questionnaire template or an audit's checklist.
import type { SQL } from 'drizzle-orm';
import { importChecklistFile } from '../audit-checklist-file.ts';
import { importTemplateFile } from '../questionnaires/template-file.ts';
import type { ToolContext } from '../types.ts';
import type { FileImportOptions, FileImportReport, FileKind } from './file-kinds.ts';
import type { TableRows } from './run.ts';

/** Reads, checks and plans the file; its statements go to `write` only when every row passed and not on a dry run. */
export function importFileKind(
  ctx: ToolContext,
  kind: FileKind,
  rows: TableRows,
  options: FileImportOptions,
  write: (statements: SQL[]) => Promise<void>,
): Promise<FileImportReport> {
  return kind === 'questionnaire_template'
    ? importTemplateFile(ctx, rows, options, write)
    : importChecklistFile(ctx, rows, options, write);
}
