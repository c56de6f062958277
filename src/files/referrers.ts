// The columns whose values are stored_files ids: a file referenced by none of them for a day is removed by upkeep.
// Each kind that keeps files adds its column here (evidence.file_id, document_versions.file_id).

export interface FileReferrer {
  /** SQL table name. */
  table: string;
  /** SQL column name holding a stored_files id. */
  column: string;
}

export const FILE_REFERRERS: FileReferrer[] = [{ table: 'evidence', column: 'file_id' }];
