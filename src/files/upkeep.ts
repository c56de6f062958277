// Upkeep of stored files (Node: at start and hourly; Worker: its hourly Cron Trigger): a blob without a row is what a
// crash between storing the bytes and writing the row leaves, removed after ORPHAN_BLOB_HOURS; a row no referrer
// points at (an upload nothing kept) is removed after UNREFERENCED_ROW_HOURS, row first, then its blob.
import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { storedFiles } from '../db/schema.ts';
import { FILE_REFERRERS, type FileReferrer } from './referrers.ts';
import type { BlobStore } from './store.ts';

export const ORPHAN_BLOB_HOURS = 1;
export const UNREFERENCED_ROW_HOURS = 24;
const BATCH = 100;

export interface FileUpkeepResult {
  rowsDeleted: number;
  blobsDeleted: number;
}

async function deleteUnreferencedRows(db: Db, store: BlobStore, cutoff: string, referrers: FileReferrer[]) {
  const unreferenced = referrers.map(
    ({ table, column }) =>
      sql`not exists (select 1 from ${sql.identifier(table)} where ${sql.identifier(table)}.${sql.identifier(column)} = ${storedFiles.id})`,
  );
  const deleted = await db
    .delete(storedFiles)
    .where(sql.join([sql`${storedFiles.created_at} < ${cutoff}`, ...unreferenced], sql` and `))
    .returning({ key: storedFiles.storage_key });
  for (const { key } of deleted) await store.delete(key);
  return deleted.length;
}

async function deleteOrphanBlobs(db: Db, store: BlobStore, cutoff: Date) {
  let deleted = 0;
  let candidates: string[] = [];
  const sweep = async () => {
    const known = await db
      .select({ key: storedFiles.storage_key })
      .from(storedFiles)
      .where(inArray(storedFiles.storage_key, candidates));
    const kept = new Set(known.map((row) => row.key));
    for (const key of candidates) {
      if (kept.has(key)) continue;
      await store.delete(key);
      deleted += 1;
    }
    candidates = [];
  };
  for await (const blob of store.list()) {
    if (blob.uploadedAt >= cutoff) continue;
    candidates.push(blob.key);
    if (candidates.length >= BATCH) await sweep();
  }
  if (candidates.length > 0) await sweep();
  return deleted;
}

export async function fileUpkeep(
  db: Db,
  store: BlobStore,
  now: Date,
  referrers: FileReferrer[] = FILE_REFERRERS,
): Promise<FileUpkeepResult> {
  const rowCutoff = new Date(now.getTime() - UNREFERENCED_ROW_HOURS * 3_600_000).toISOString();
  const rowsDeleted = await deleteUnreferencedRows(db, store, rowCutoff, referrers);
  const blobsDeleted = await deleteOrphanBlobs(
    db,
    store,
    new Date(now.getTime() - ORPHAN_BLOB_HOURS * 3_600_000),
  );
  return { rowsDeleted, blobsDeleted };
}
