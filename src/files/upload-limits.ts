// Upload limits: an organization's stored files within ORG_FILES_QUOTA_BYTES (counted from their sizes), and each
// token's uploads within UPLOADS_PER_MINUTE and UPLOAD_BYTES_PER_MINUTE (per process or isolate, as the call rate).
import { eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { storedFiles } from '../db/schema.ts';
import { AppError } from '../errors.ts';

/** The bytes an organization's stored files take together. */
export async function storedBytesOf(db: Db, organizationId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<number>`coalesce(sum(${storedFiles.size}), 0)` })
    .from(storedFiles)
    .where(eq(storedFiles.organization_id, organizationId));
  return Number(row?.bytes ?? 0);
}

/** Holds when a file of `size` bytes still fits the organization's quota: the condition of its row's insert. */
export function fitsQuota(organizationId: string, size: number, quotaBytes: number): SQL {
  return sql`(select coalesce(sum(${storedFiles.size}), 0) from ${storedFiles} where ${storedFiles.organization_id} = ${organizationId}) + ${size} <= ${quotaBytes}`;
}

/**
 * The 413 of a file that would take the organization past its quota: the quota, the bytes stored and the bytes the
 * file needs (`atLeast`: it was cut off as it streamed, so it needs at least that).
 */
export function quotaExceeded(
  quotaBytes: number,
  usedBytes: number,
  requestedBytes: number,
  atLeast = false,
): AppError {
  return new AppError(
    'payload_too_large',
    `This organization's stored files may take ${quotaBytes} bytes (ORG_FILES_QUOTA_BYTES): ${usedBytes} are ` +
      `taken and this file needs ${atLeast ? 'at least ' : ''}${requestedBytes}. Remove files it no longer needs ` +
      '(evidence, document versions) or ask the operator for a larger quota.',
    { quota_bytes: quotaBytes, used_bytes: usedBytes, requested_bytes: requestedBytes },
  );
}

/** A token's uploads in the current minute (per process or isolate). */
export interface UploadRate {
  /** One more file for `key`, of `announcedBytes` when known: rate_limited (Retry-After) when it passes the minute's. */
  admit(key: string, announcedBytes?: number): void;
  /** `bytes` more of an admitted file, as they stream in: rate_limited once they pass the minute's bytes. */
  take(key: string, bytes: number): void;
}

const WINDOW_MS = 60_000;
/** Keys remembered at most; past that the windows start afresh (a coarse guard, as the call rate). */
const MAX_KEYS = 10_000;

export function createUploadRate(
  limits: { uploadsPerMinute: number; uploadBytesPerMinute: number },
  now: () => number = Date.now,
): UploadRate {
  const windows = new Map<string, { start: number; files: number; bytes: number }>();
  const windowOf = (key: string) => {
    const time = now();
    const start = time - (time % WINDOW_MS);
    let window = windows.get(key);
    if (!window || window.start !== start) {
      if (windows.size >= MAX_KEYS) windows.clear();
      window = { start, files: 0, bytes: 0 };
      windows.set(key, window);
    }
    return { window, wait: Math.ceil((start + WINDOW_MS - time) / 1000) };
  };
  const refuse = (wait: number, what: string) =>
    new AppError('rate_limited', `${what}; retry in ${wait} s.`, { retry_after_seconds: wait });
  const { uploadsPerMinute: files, uploadBytesPerMinute: bytes } = limits;
  return {
    admit(key, announcedBytes) {
      const { window, wait } = windowOf(key);
      if (files > 0 && window.files >= files)
        throw refuse(wait, `This token has stored ${files} files this minute (UPLOADS_PER_MINUTE)`);
      if (bytes > 0 && window.bytes + (announcedBytes ?? 0) > bytes)
        throw refuse(
          wait,
          `This token may store ${bytes} bytes a minute (UPLOAD_BYTES_PER_MINUTE): ${window.bytes} are ` +
            `taken this minute and this file needs ${announcedBytes ?? 'more'}`,
        );
      window.files += 1;
    },
    take(key, taken) {
      const { window, wait } = windowOf(key);
      if (bytes > 0 && window.bytes + taken > bytes)
        throw refuse(
          wait,
          `This token may store ${bytes} bytes a minute (UPLOAD_BYTES_PER_MINUTE), and this file goes past them`,
        );
      window.bytes += taken;
    },
  };
}

/** No limits (contexts without a runtime's files). */
export const NO_UPLOAD_LIMITS: UploadRate = { admit() {}, take() {} };

/** Room for a multipart body's boundaries and part headers beyond FILE_MAX_BYTES. */
export const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;

const FILE_UPLOAD_PATH = /^\/api\/v1\/orgs\/[^/]+\/files\/?$/;

/** Whether a request path is the upload route (src/routes/files.ts), whose bodies may be as large as FILE_MAX_BYTES. */
export function isFileUploadPath(path: string): boolean {
  return FILE_UPLOAD_PATH.test(path);
}

/** The largest body the upload routes read: a file of FILE_MAX_BYTES in a multipart body. */
export function uploadBodyLimit(fileMaxBytes: number): number {
  return fileMaxBytes + MULTIPART_ALLOWANCE_BYTES;
}
