// Where the bytes of stored files live: one BlobStore interface, backends per host (disk.ts on Node, s3.ts on both,
// r2.ts in the Worker, memory here for tests), and the file settings a runtime carries (FileRuntime).
import { AppError } from '../errors.ts';
import { randomBase32 } from '../ids.ts';
import type { UploadRate } from './upload-limits.ts';

export interface BlobRange {
  start: number;
  /** Inclusive, as in an HTTP Range; the end of the blob when absent. */
  end?: number;
}

export interface StoredBlob {
  /** The bytes asked for: the whole blob, or the range. */
  body: ReadableStream<Uint8Array>;
  /** The whole blob's size in bytes (a range's length is end - start + 1). */
  size: number;
}

export interface BlobListing {
  key: string;
  uploadedAt: Date;
}

export interface BlobStore {
  /** Stores the stream under the key; rejects (leaving nothing under the key) if the stream errors. */
  put(
    key: string,
    body: ReadableStream<Uint8Array>,
    options: { contentType: string; size?: number },
  ): Promise<void>;
  /** The blob or a range of it; null when no blob has the key. A range must start inside the blob. */
  get(key: string, range?: BlobRange): Promise<StoredBlob | null>;
  /** Removes the blob; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every blob (under the prefix), in no particular order, with when it was stored. */
  list(prefix?: string): AsyncIterable<BlobListing>;
}

/** Streaming SHA-256: node:crypto on Node, crypto.DigestStream in workerd (the host's wiring chooses). */
export interface Sha256Stream {
  update(chunk: Uint8Array): void | Promise<void>;
  /** Lower-case hex of the digest. */
  digest(): Promise<string>;
}

/** What a runtime carries for stored files. */
export interface FileRuntime {
  store: BlobStore;
  /** FILE_MAX_BYTES: the largest file accepted. */
  maxBytes: number;
  /** ORG_FILES_QUOTA_BYTES: what an organization's stored files may take together (0: no quota). */
  orgQuotaBytes: number;
  /** Each token's uploads a minute (UPLOADS_PER_MINUTE, UPLOAD_BYTES_PER_MINUTE), per process or isolate. */
  uploadRate: UploadRate;
  /** Signs download links (HMAC-SHA-256). */
  linkSecret: string;
  /** PUBLIC_URL: download links are absolute when set (else paths, unless the caller gives a base). */
  publicUrl?: string;
  sha256(): Sha256Stream;
}

/** A store for a host given none: every use fails with the reason (e.g. no R2 binding and no S3 settings). */
export function unconfiguredBlobStore(reason: string): BlobStore {
  const fail = async (): Promise<never> => {
    throw new Error(reason);
  };
  return {
    put: fail,
    get: fail,
    delete: fail,
    // biome-ignore lint/correctness/useYield: fails before the first item
    async *list() {
      throw new Error(reason);
    },
  };
}

/** A random link secret, for a host given none (links then last until the process or isolate ends). */
export function randomLinkSecret(): string {
  return randomBase32(52);
}

export const DEFAULT_FILE_MAX_BYTES = 25 * 1024 * 1024;

/** A new storage key: random, never derived from the file's name; two characters of fan-out for directory stores. */
export function newStorageKey(): string {
  const body = randomBase32(32);
  return `${body.slice(0, 2)}/${body.slice(2)}`;
}

const KEY_PATTERN = /^[0-9a-z]{2}\/[0-9a-z]{30}$/;

/** Keys this app makes; a store refuses anything else, so no key can reach outside its directory or bucket prefix. */
export function checkStorageKey(key: string): string {
  if (!KEY_PATTERN.test(key)) throw new AppError('internal', 'Not a storage key.');
  return key;
}

export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The stream of one byte array. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * A byte stream read `chunkBytes` at a time through a BYOB reader; a stream that is not a byte stream is returned as
 * it is. workerd hands a request body's default reader 4 KiB chunks (256 reads and trips through the stream pipeline
 * per MB); the Worker reads uploads this way (src/worker.ts, README "Stored files").
 */
export function inChunksOf(
  stream: ReadableStream<Uint8Array>,
  chunkBytes: number,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    return stream;
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read(new Uint8Array(chunkBytes));
          if (done) return controller.close();
          if (value.byteLength > 0) return controller.enqueue(value);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads a whole stream into one array (tests and small blobs only). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    total += chunk.byteLength;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The first part buffer of partsOf; it doubles as bytes arrive, up to the part size. */
const FIRST_PART_BUFFER_BYTES = 64 * 1024;

/**
 * The stream cut into parts of exactly `partSize` bytes, the last one shorter (or the only one): what the S3 and R2
 * multipart uploads send, holding one part in memory at a time. A part's buffer grows with the bytes that arrive
 * (doubling), so a 1 MB file takes about 1 MB, not a whole part (8 MiB for R2 and S3: 100 uploads at once in one
 * Worker isolate allocated 800 MiB).
 */
export async function* partsOf(
  stream: ReadableStream<Uint8Array>,
  partSize: number,
): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  let part = new Uint8Array(Math.min(partSize, FIRST_PART_BUFFER_BYTES));
  let filled = 0;
  let yielded = false;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    let offset = 0;
    while (offset < chunk.byteLength) {
      if (filled === part.byteLength) {
        const grown = new Uint8Array(Math.min(partSize, part.byteLength * 2));
        grown.set(part);
        part = grown;
      }
      const take = Math.min(part.byteLength - filled, chunk.byteLength - offset);
      part.set(chunk.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === partSize) {
        yield part;
        yielded = true;
        part = new Uint8Array(Math.min(partSize, FIRST_PART_BUFFER_BYTES));
        filled = 0;
      }
    }
  }
  if (filled > 0 || !yielded) yield part.subarray(0, filled);
}

/** Blobs in memory: the default of a runtime given no store (tests, scratch runtimes). */
export function createMemoryBlobStore(now: () => Date = () => new Date()): BlobStore & { size(): number } {
  const blobs = new Map<string, { bytes: Uint8Array; uploadedAt: Date }>();
  return {
    async put(key, body) {
      checkStorageKey(key);
      const bytes = await readAll(body);
      blobs.set(key, { bytes, uploadedAt: now() });
    },
    async get(key, range) {
      const blob = blobs.get(checkStorageKey(key));
      if (!blob) return null;
      const size = blob.bytes.byteLength;
      const bytes = range ? blob.bytes.subarray(range.start, (range.end ?? size - 1) + 1) : blob.bytes;
      return { body: streamOf(bytes), size };
    },
    async delete(key) {
      blobs.delete(checkStorageKey(key));
    },
    async *list(prefix = '') {
      for (const [key, blob] of [...blobs])
        if (key.startsWith(prefix)) yield { key, uploadedAt: blob.uploadedAt };
    },
    size: () => blobs.size,
  };
}
