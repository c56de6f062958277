// The columns whose values are stored_files ids: a file referenced by none of them for a day is removed by upkeep.
// Each kind that keeps files adds its column here (evidence.file_id, document_versions.file_id and data_file_id,
// audits.report_file_id, vendor_questionnaire_files.file_id).
import { and, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { LinkClaims } from './links.ts';

export interface FileReferrer {
  /** SQL table name. */
  table: string;
  /** SQL column name holding a stored_files id. */
  column: string;
  /**
   * The id prefix of the table's rows when download links are made through them (their id is the link's subject)
   * and the row's file may change (a draft document version): such a link is good only while the row holds the file.
   */
  subjectPrefix?: string;
}

export const FILE_REFERRERS: FileReferrer[] = [
  { table: 'evidence', column: 'file_id' },
  { table: 'document_versions', column: 'file_id', subjectPrefix: 'dcv' },
  // A generated version's machine-readable copy (src/tools/controlled-outputs.ts).
  { table: 'document_versions', column: 'data_file_id', subjectPrefix: 'dcv' },
  // An audit's report (src/tools/audits.ts); its index audits_report_file_idx keeps this check a lookup.
  { table: 'audits', column: 'report_file_id' },
  // A file a vendor's contact attached to a questionnaire's answer (src/tools/questionnaires/attachments.ts).
  { table: 'vendor_questionnaire_files', column: 'file_id' },
];

/**
 * Whether a download link's subject still holds its file: true for subjects whose file never changes (an evidence
 * item), else whether the subject's row (of the link's organization) points at the file now.
 */
export async function subjectHoldsFile(
  db: Db,
  claims: LinkClaims,
  referrers: FileReferrer[] = FILE_REFERRERS,
): Promise<boolean> {
  const prefix = claims.subjectId.slice(0, claims.subjectId.indexOf('_'));
  // A subject may hold files in several columns (a version's file and its JSON copy): any of them.
  const columns = referrers.filter((item) => item.subjectPrefix === prefix);
  const [referrer] = columns;
  if (!referrer) return true;
  const table = sql.identifier(referrer.table);
  const [row] = await db.all<{ one: number }>(
    sql`select 1 as one from ${table} where ${and(
      sql`${table}.id = ${claims.subjectId}`,
      or(...columns.map((item) => sql`${table}.${sql.identifier(item.column)} = ${claims.fileId}`)),
      sql`${table}.organization_id = ${claims.organizationId}`,
    )} limit 1`,
  );
  return row !== undefined;
}
