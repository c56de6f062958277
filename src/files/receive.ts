// receiveFile: a file's bytes streamed into the BlobStore (counted, hashed, sniffed on the way), then its row.
import type { Db } from '../db/client.ts';
import { storedFiles } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { createTextCheck, SNIFF_BYTES, sanitizeFileName, sniffContentType } from './sniff.ts';
import { type FileRuntime, newStorageKey, streamOf } from './store.ts';

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

/** The 413 of a file over FILE_MAX_BYTES. */
export function fileTooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The file is larger than ${maxBytes} bytes (FILE_MAX_BYTES); send a smaller file.`,
  );
}

/**
 * Streams the body into the store under a new random key, counting (over FILE_MAX_BYTES: payload_too_large and
 * nothing left behind), hashing and sniffing on the way; then inserts the stored_files row. A crash between the two
 * leaves a blob without a row, which upkeep removes (src/files/upkeep.ts).
 */
export async function receiveFile(
  ctx: FileContext,
  organizationId: string,
  body: ReadableStream<Uint8Array> | Uint8Array,
  options: { name: string },
): Promise<StoredFile> {
  const { files } = ctx;
  const tooLarge = fileTooLarge(files.maxBytes);
  if (body instanceof Uint8Array && body.byteLength > files.maxBytes) throw tooLarge;
  const name = sanitizeFileName(options.name);
  const hash = files.sha256();
  const text = createTextCheck();
  const head = new Uint8Array(SNIFF_BYTES);
  let size = 0;
  let over = false;

  const counted = (body instanceof Uint8Array ? streamOf(body) : body).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (size + chunk.byteLength > files.maxBytes) {
          over = true;
          controller.error(tooLarge);
          return;
        }
        if (size < SNIFF_BYTES) head.set(chunk.subarray(0, SNIFF_BYTES - size), size);
        size += chunk.byteLength;
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
    throw over ? tooLarge : error;
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
  try {
    await ctx.db.insert(storedFiles).values(row);
  } catch (error) {
    await files.store.delete(key).catch(() => undefined);
    throw error;
  }
  const { organization_id: _organization, storage_key: _key, ...stored } = row;
  return stored;
}
