// HTTP routes of stored files: POST /api/v1/orgs/<org_id>/files (bearer, write) stores a file's bytes as they stream
// in, through the seam as the storeFile call (src/files/store-file-tool.ts); GET /files/<token> (a signed link, no
// bearer) sends them back as an attachment, by range when asked.
import { and, eq } from 'drizzle-orm';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Db } from '../db/client.ts';
import { storedFiles } from '../db/schema.ts';
import { AppError, errorResponse } from '../errors.ts';
import { verifyLink } from '../files/links.ts';
import { multipartBoundary, multipartFile, parseContentDisposition } from '../files/multipart.ts';
import { fileTooLarge } from '../files/receive.ts';
import { subjectHoldsFile } from '../files/referrers.ts';
import type { FileRuntime } from '../files/store.ts';
import { storeFileTool } from '../files/store-file-tool.ts';
import { uploadBodyLimit } from '../files/upload-limits.ts';
import type { AppEnv } from '../http/env.ts';
import { requestBody } from '../http/request-body.ts';
import { type InvokeDeps, invokeTool } from '../surfaces/invoke.ts';

const LINK_GONE = 'No such download link, or it has expired; ask for a new link.';

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` of a blob of `size` bytes; null for none or several ranges, 'unsatisfiable'. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  // The spaces after a number only with the number: two runs of spaces side by side would backtrack quadratically.
  const match = header ? /^\s*bytes\s*=\s*(?:(\d+)\s*)?-\s*(?:(\d+)\s*)?$/i.exec(header) : null;
  if (!match || (match[1] === undefined && match[2] === undefined)) return null;
  if (match[1] === undefined) {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === undefined ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** `attachment` with an ASCII fallback name and the UTF-8 one (RFC 6266). */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function createFileRoutes(deps: {
  db: Db;
  files: FileRuntime;
  now: () => Date;
  invoke: InvokeDeps;
  authenticate: MiddlewareHandler<AppEnv>;
}) {
  const { db, files, now } = deps;
  const routes = new Hono<AppEnv>();

  routes.post('/api/v1/orgs/:org/files', deps.authenticate, async (c) => {
    const boundary = multipartBoundary(c.req.header('content-type'));
    const length = c.req.header('content-length');
    const announced = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    if (announced !== undefined && announced > (boundary ? uploadBodyLimit(files.maxBytes) : files.maxBytes))
      throw fileTooLarge(files.maxBytes);
    const body = requestBody(c) ?? new Uint8Array(0);
    let name: string | undefined;
    let stream: ReadableStream<Uint8Array> | Uint8Array = body;
    if (boundary) {
      if (body instanceof Uint8Array) throw new AppError('invalid_arguments', 'The multipart body is empty.');
      const part = await multipartFile(body, boundary);
      if (!part)
        throw new AppError('invalid_arguments', 'The multipart body has no "file" field with a file name.');
      name = part.filename;
      stream = part.stream;
    } else {
      name = c.req.query('name') ?? parseContentDisposition(c.req.header('content-disposition')).filename;
      if (name === undefined)
        throw new AppError(
          'invalid_arguments',
          'Name the file: ?name=<file name>, a Content-Disposition header with filename=, or a multipart/form-data "file" field.',
        );
    }
    // A raw body's length is the file's: the upload limits are checked on it before a byte is read.
    const outcome = await invokeTool(
      deps.invoke,
      storeFileTool,
      {
        organization_id: c.req.param('org'),
        name,
        ...(boundary || announced === undefined ? {} : { announced_bytes: announced }),
      },
      c.get('principal'),
      'direct',
      c.get('requestId'),
      undefined,
      undefined,
      stream,
    );
    if (!outcome.ok) throw outcome.error;
    return c.json(outcome.result, 201);
  });

  routes.get('/files/:token', async (c) => {
    const gone = () => {
      const response = errorResponse(new AppError('not_found', LINK_GONE));
      response.headers.set('cache-control', 'no-store');
      return response;
    };
    const claims = await verifyLink(files.linkSecret, c.req.param('token'), now());
    if (!claims || !(await subjectHoldsFile(db, claims))) return gone();
    const [row] = await db
      .select()
      .from(storedFiles)
      .where(and(eq(storedFiles.id, claims.fileId), eq(storedFiles.organization_id, claims.organizationId)))
      .limit(1);
    if (!row) return gone();
    const headers = new Headers({
      'content-type': row.content_type,
      'content-disposition': attachmentDisposition(row.name),
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
      'referrer-policy': 'no-referrer',
      'accept-ranges': 'bytes',
      etag: `"${row.sha256}"`,
    });
    const ifRange = c.req.header('if-range');
    const range =
      ifRange === undefined || ifRange === `"${row.sha256}"`
        ? parseRange(c.req.header('range'), row.size)
        : null;
    if (range === 'unsatisfiable') {
      headers.set('content-range', `bytes */${row.size}`);
      return new Response(null, { status: 416, headers });
    }
    const blob = await files.store.get(row.storage_key, range ?? undefined);
    if (!blob) return gone();
    if (c.req.method === 'HEAD') {
      await blob.body.cancel();
      headers.set('content-length', String(range ? range.end - range.start + 1 : row.size));
      return new Response(null, { status: range ? 206 : 200, headers });
    }
    if (range) {
      headers.set('content-range', `bytes ${range.start}-${range.end}/${row.size}`);
      headers.set('content-length', String(range.end - range.start + 1));
      return new Response(blob.body, { status: 206, headers });
    }
    headers.set('content-length', String(row.size));
    return new Response(blob.body, { status: 200, headers });
  });

  return routes;
}
