// The Worker's uploads read in large chunks (src/worker.ts). A module of its own: a Worker's module may export only
// handlers.

import { inChunksOf } from './files/store.ts';
import { isFileUploadPath } from './files/upload-limits.ts';
import { isWebUpload } from './web/uploads.ts';

/** How much of an upload's body one read takes (workerd's default reader takes 4 KiB). */
export const UPLOAD_READ_BYTES = 64 * 1024;

/**
 * An upload (the files route, a web upload form) with its body read UPLOAD_READ_BYTES at a time; other requests as
 * they are. With 4 KiB reads, 100 parallel 1 MB uploads kept workerd's event loop busy for seconds without looking at
 * its sockets or timers, and it closed keep-alive connections whose next request had already arrived (README,
 * "Development").
 */
export function withUploadReads<R extends Request>(request: R): R {
  if (request.method !== 'POST' || !request.body) return request;
  const path = new URL(request.url).pathname;
  if (!isFileUploadPath(path) && !isWebUpload(path)) return request;
  return new Request(request, {
    body: inChunksOf(request.body, UPLOAD_READ_BYTES),
    duplex: 'half',
  } as RequestInit) as R;
}
