// receiveFile: a file's bytes streamed into the BlobStore (counted, hashed, sniffed on the way), then its row.
import { and, eq } from 'drizzle-orm';
import { type Db, selectRow } from '../db/client.ts';
import { storedFiles } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { createTextCheck, SNIFF_BYTES, sanitizeFileName, sniffContentType } from './sniff.ts';
import { type FileRuntime, newStorageKey, streamOf } from './store.ts';
import { fitsQuota, quotaExceeded, storedBytesOf } from './upload-limits.ts';

/** What receiveFile and downloadLink need of a tool's context (or of a route's). */
export interface FileContext {
  db: Db;
  files: FileRuntime;
  now: () => Date;
}

export interface StoredFile {
  id: string;
  name: string;
  size: number;
  content_type: string;
  sha256: string;
  created_at: string;
}

/** The 413 of a file over FILE_MAX_BYTES, or over the smaller limit of the upload (`limit` names it). */
export function fileTooLarge(maxBytes: number, limit = 'FILE_MAX_BYTES'): AppError {
  return new AppError(
    'payload_too_large',
    `The file is larger than ${maxBytes} bytes (${limit}); send a smaller file.`,
  );
}

/**
 * Streams the body into the store under a new random key, counting (over FILE_MAX_BYTES: payload_too_large and
 * nothing left behind), hashing and sniffing on the way; then inserts the stored_files row. A crash between the two
 * leaves a blob without a row, which upkeep removes (src/files/upkeep.ts).
 *
 * The upload limits (src/files/upload-limits.ts) are checked before a byte is read where the size is known (an
 * inline file, `announcedBytes`), else as the bytes stream: the uploader's rate (`uploader`, the token's id; none
 * for the operator's CLI) and the organization's quota, which the row's insert checks again, so parallel uploads
 * cannot pass it together. A refused file leaves no blob and no row.
 */
export async function receiveFile(
  ctx: FileContext,
  organizationId: string,
  body: ReadableStream<Uint8Array> | Uint8Array,
  options: {
    name: string;
    uploader?: string;
    announcedBytes?: number;
    /** A limit below FILE_MAX_BYTES for this upload (a questionnaire's attachments), refused as a file over it. */
    maxBytes?: number;
  },
): Promise<StoredFile> {
  const { files } = ctx;
  const smaller = options.maxBytes !== undefined && options.maxBytes < files.maxBytes;
  const maxBytes = smaller ? (options.maxBytes as number) : files.maxBytes;
  const tooLarge = smaller ? fileTooLarge(maxBytes, 'the limit of this upload') : fileTooLarge(maxBytes);
  const known = body instanceof Uint8Array ? body.byteLength : options.announcedBytes;
  if (known !== undefined && known > maxBytes) throw tooLarge;
  const { uploader } = options;
  if (uploader !== undefined) files.uploadRate.admit(uploader, known);
  const quota = files.orgQuotaBytes;
  const used = quota > 0 ? await storedBytesOf(ctx.db, organizationId) : 0;
  const room = quota > 0 ? quota - used : Number.POSITIVE_INFINITY;
  if (known !== undefined && known > room) throw quotaExceeded(quota, used, known);
  const name = sanitizeFileName(options.name);
  const hash = files.sha256();
  const text = createTextCheck();
  const head = new Uint8Array(SNIFF_BYTES);
  let size = 0;
  // Why the stream was stopped, when this function stopped it.
  let refusal: unknown;

  const counted = (body instanceof Uint8Array ? streamOf(body) : body).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        const total = size + chunk.byteLength;
        try {
          if (total > maxBytes) throw tooLarge;
          if (total > room) throw quotaExceeded(quota, used, total, true);
          if (uploader !== undefined) files.uploadRate.take(uploader, chunk.byteLength);
        } catch (error) {
          refusal = error;
          controller.error(error);
          return;
        }
        if (size < SNIFF_BYTES) head.set(chunk.subarray(0, SNIFF_BYTES - size), size);
        size = total;
        text.update(chunk);
        await hash.update(chunk);
        controller.enqueue(chunk);
      },
    }),
  );

  const key = newStorageKey();
  try {
    await files.store.put(key, counted, {
      contentType: 'application/octet-stream',
      ...(body instanceof Uint8Array ? { size: body.byteLength } : {}),
    });
  } catch (error) {
    await files.store.delete(key).catch(() => undefined);
    throw refusal ?? error;
  }

  const row = {
    id: newId('fil'),
    organization_id: organizationId,
    storage_key: key,
    name,
    size,
    content_type: sniffContentType(head.subarray(0, Math.min(size, SNIFF_BYTES)), name, text.isText()),
    sha256: await hash.digest(),
    created_at: ctx.now().toISOString(),
  };
  let inserted: boolean;
  try {
    if (quota > 0) {
      const rows = await ctx.db
        .insert(storedFiles)
        .select(selectRow(storedFiles, row, fitsQuota(organizationId, size, quota)))
        .returning({ id: storedFiles.id });
      inserted = rows.length > 0;
    } else {
      await ctx.db.insert(storedFiles).values(row);
      inserted = true;
    }
  } catch (error) {
    await files.store.delete(key).catch(() => undefined);
    throw error;
  }
  if (!inserted) {
    // Other uploads took the room while this one streamed.
    await files.store.delete(key).catch(() => undefined);
    throw quotaExceeded(quota, await storedBytesOf(ctx.db, organizationId), size);
  }
  const { organization_id: _organization, storage_key: _key, ...stored } = row;
  return stored;
}

/** Removes a file just stored that nothing will keep (its row, then its blob), instead of leaving it to upkeep. */
export async function discardFile(ctx: FileContext, organizationId: string, fileId: string): Promise<void> {
  const gone = await ctx.db
    .delete(storedFiles)
    .where(and(eq(storedFiles.id, fileId), eq(storedFiles.organization_id, organizationId)))
    .returning({ key: storedFiles.storage_key });
  for (const { key } of gone) await ctx.files.store.delete(key).catch(() => undefined);
}
