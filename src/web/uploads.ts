// Web forms that carry a file, read as a stream behind their CSRF check instead of whole before it.
//
// The signed-in middleware (src/web/index.tsx) checks every POST's CSRF token by parsing its body, which for a
// multipart upload would read the whole file into memory before the route even runs. For a multipart POST to a path
// in WEB_UPLOAD_PATHS it checks only where the form comes from (Origin / Sec-Fetch-Site, as for every POST) and leaves
// the token to the route, which must read the body with readUploadForm (a file streamed on, e.g. into receiveFile) or
// readWholeForm (a file read whole, as the register import does):
// - the FIRST part must be the `_csrf` field holding the session's token (put <CsrfField> first in the form); any
//   other first part, a missing or wrong token answers the "Form expired" 403 page and nothing more is read;
// - readUploadForm then reads the plain fields in order up to the file part and hands its bytes on as a stream:
//   fields after the file are not read, so the file input comes LAST in the form.
// Meanwhile hono's body readers (c.req.parseBody, formData, text...) fail on such a request, so a route cannot read
// the form past the check by mistake. Adopting it for another form: add its path to WEB_UPLOAD_PATHS (to
// WEB_FILE_UPLOAD_PATHS as well when its file goes to the blob store: its body may then be as large as
// FILE_MAX_BYTES), order the form as above and read it with one of the two functions; test/web/uploads.test.ts
// posts a forged token to every signed-in route.
import type { Context } from 'hono';
import { AppError } from '../errors.ts';
import { type MultipartReader, multipartBoundary, multipartReader } from '../files/multipart.ts';
import { requestBody } from '../http/request-body.ts';
import { importCharactersFor, MAX_IMPORT_ROWS, withinImportLimits } from '../tools/imports/limits.ts';
import { decodeTableBytes } from '../tools/tables/csv-reader.ts';
import { csvLine } from '../tools/tables/csv-writer.ts';
import { readXlsxRows } from '../tools/tables/xlsx-reader.ts';
import type { WebEnv } from './context.ts';
import { CSRF_FIELD, csrfTokenMatches } from './csrf.ts';
import type { FormBody } from './forms.tsx';
import { errorPage } from './render.tsx';

/** The evidence upload (src/web/evidence.tsx): its file goes to the blob store. */
const EVIDENCE_UPLOAD_PATH = /^\/orgs\/[^/]+\/evidence\/attach$/;
/**
 * A register's import (src/web/registers/import-page.tsx), and a questionnaire template's
 * (`/orgs/<org>/questionnaire-templates/import`): its file is read whole (at most MAX_BODY_BYTES).
 */
const IMPORT_UPLOAD_PATH = /^\/orgs\/[^/]+\/[^/]+\/import$/;

/** A document version's file (src/web/registers/document-details.tsx): its file goes to the blob store. */
const DOCUMENT_FILE_PATH = /^\/orgs\/[^/]+\/documents\/doc_[0-9a-z]+\/file$/;

/**
 * A questionnaire link's form and its attach button (src/web/public/questionnaires.tsx): public, so no session
 * middleware defers anything; listed for the body limits (the Node host's edge lets a file's size through) and the
 * Worker's reads of uploads. Its route reads it with readStreamedForm against the form cookie, and limits its body.
 */
const QUESTIONNAIRE_FORM_PATH = /^\/q\/[A-Za-z0-9_-]{1,100}(?:\/attach|\/remove)?$/;

/** An audit checklist's file (src/web/file-kind-exports.tsx): read whole (at most MAX_BODY_BYTES), as an import's. */
const CHECKLIST_IMPORT_PATH = /^\/orgs\/[^/]+\/audits\/aud_[0-9a-z]+\/checklist\/import$/;

/** Form paths whose multipart POST is read by readUploadForm or readWholeForm, past the middleware's token check. */
export const WEB_UPLOAD_PATHS: readonly RegExp[] = [
  EVIDENCE_UPLOAD_PATH,
  DOCUMENT_FILE_PATH,
  IMPORT_UPLOAD_PATH,
  CHECKLIST_IMPORT_PATH,
  QUESTIONNAIRE_FORM_PATH,
];
/** Those whose file is streamed into the blob store: their bodies may be as large as a file (FILE_MAX_BYTES). */
export const WEB_FILE_UPLOAD_PATHS: readonly RegExp[] = [
  EVIDENCE_UPLOAD_PATH,
  DOCUMENT_FILE_PATH,
  QUESTIONNAIRE_FORM_PATH,
];

export function isWebUpload(path: string): boolean {
  return WEB_UPLOAD_PATHS.some((pattern) => pattern.test(path));
}

export function isWebFileUpload(path: string): boolean {
  return WEB_FILE_UPLOAD_PATHS.some((pattern) => pattern.test(path));
}

/** Plain fields of an upload form, all together (the file apart). */
const MAX_FIELD_BYTES = 64 * 1024;
/** The token's part, read before anything else: a token is 43 characters. */
const MAX_TOKEN_BYTES = 1024;

/** The 403 of a form whose CSRF token is missing or not the session's. */
export function formExpiredPage(c: Context<WebEnv>): Response | Promise<Response> {
  return errorPage(
    c,
    403,
    'Form expired',
    'This form could not be verified (it may come from an old page or another site). Go back, reload the page and try again.',
  );
}

/** Whether the middleware leaves this POST's token to the route: a multipart body on an upload path. */
export function defersCsrfCheck(c: Context<WebEnv>): boolean {
  return isWebUpload(c.req.path) && multipartBoundary(c.req.header('content-type')) !== null;
}

const BODY_READERS = ['arrayBuffer', 'blob', 'formData', 'json', 'text', 'parsedBody'] as const;

/**
 * Marks the request as one whose token the route checks, and makes hono's body readers fail on it (so nothing
 * reads the form but readUploadForm and readWholeForm, which check the token first).
 */
export function deferCsrfCheck(c: Context<WebEnv>): void {
  c.set('uploadCsrf', 'pending');
  const cache = c.req.bodyCache as Record<string, unknown>;
  for (const key of BODY_READERS)
    Object.defineProperty(cache, key, {
      enumerable: true,
      // A thenable rejected only when read: hono looks whether a cached body is there before it reads one.
      get: () => ({
        // biome-ignore lint/suspicious/noThenProperty: a lazily rejected promise-like, as hono awaits the cache.
        then: (onFulfilled?: (value: never) => unknown, onRejected?: (reason: unknown) => unknown) =>
          Promise.reject(
            new Error(`${c.req.path}: an upload form is read with readUploadForm or readWholeForm`),
          ).then(onFulfilled, onRejected),
      }),
    });
}

/** A part's bytes as text, refused over `limit` bytes. */
async function textOfPart(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new AppError('invalid_arguments', 'A field of the form is too long.');
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** The parts after a first part holding `expected` (the session's token, a public form's cookie), or the 403 page. */
async function partsAfterToken(
  c: Context<WebEnv>,
  expected: string | undefined,
): Promise<MultipartReader | Response> {
  const boundary = multipartBoundary(c.req.header('content-type'));
  const body = requestBody(c);
  if (!boundary || !body) return formExpiredPage(c);
  const parts = multipartReader(body, boundary);
  const first = await parts.next();
  const token =
    first?.name === CSRF_FIELD && first.filename === undefined
      ? await textOfPart(first.stream, MAX_TOKEN_BYTES)
      : undefined;
  if (!csrfTokenMatches(token, expected)) {
    parts.release();
    return formExpiredPage(c);
  }
  c.set('uploadCsrf', 'checked');
  return parts;
}

/** The stream, or null when it ends without a byte (a file input left empty sends an empty part). */
async function nonEmpty(stream: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array> | null> {
  const reader = stream.getReader();
  let first = await reader.read();
  while (!first.done && first.value.byteLength === 0) first = await reader.read();
  if (first.done) return null;
  let pending: Uint8Array | null = first.value;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(pending);
        pending = null;
        return;
      }
      const read = await reader.read();
      if (read.done) controller.close();
      else controller.enqueue(read.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export interface UploadForm {
  /** The plain fields before the file part (the first value of each name). */
  fields: Record<string, string>;
  /** The file part's name and bytes, as they arrive; null when the form carries no file (or an empty one). */
  file: { name: string; stream: ReadableStream<Uint8Array> } | null;
}

/**
 * An upload form read past its CSRF check: the plain fields up to the `fileField` part (at most 64 KB together),
 * then that part's bytes as a stream. The "Form expired" 403 page when the first part is not the session's token.
 */
export async function readUploadForm(c: Context<WebEnv>, fileField = 'file'): Promise<UploadForm | Response> {
  if (c.get('uploadCsrf') !== 'pending') {
    // Not multipart: the middleware has read and checked the body already.
    const body = await c.req.parseBody();
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) if (typeof value === 'string') fields[name] = value;
    const file = body[fileField];
    return {
      fields,
      file: file instanceof File && file.size > 0 ? { name: file.name, stream: file.stream() } : null,
    };
  }
  return readStreamedForm(c, c.get('session').csrfToken, fileField);
}

/**
 * A multipart form whose first part must hold `expected` (else the "Form expired" 403 page): its plain fields up to
 * the `fileField` part (at most `maxFieldBytes` together), then that part's bytes as a stream. readUploadForm reads
 * the signed-in forms with it; a public form passes its double-submit cookie (src/web/public/questionnaires.tsx).
 */
export async function readStreamedForm(
  c: Context<WebEnv>,
  expected: string | undefined,
  fileField = 'file',
  maxFieldBytes = MAX_FIELD_BYTES,
): Promise<UploadForm | Response> {
  const parts = await partsAfterToken(c, expected);
  if (parts instanceof Response) return parts;
  const fields: Record<string, string> = {};
  let room = maxFieldBytes;
  for (let part = await parts.next(); part; part = await parts.next()) {
    if (part.name === fileField && part.filename !== undefined) {
      parts.releaseAfterPart();
      const stream = part.filename === '' ? null : await nonEmpty(part.stream);
      return { fields, file: stream ? { name: part.filename, stream } : null };
    }
    const value = await textOfPart(part.stream, room);
    room -= new TextEncoder().encode(value).byteLength;
    if (part.name !== undefined && part.filename === undefined && !(part.name in fields))
      fields[part.name] = value;
  }
  parts.release();
  return { fields, file: null };
}

/**
 * A form read whole past its CSRF check, as `c.req.parseBody({ all: true })` gives it (a file as a File); for forms
 * whose file is used whole anyway (the body limit of the path bounds it). The "Form expired" 403 page as above.
 */
export async function readWholeForm(c: Context<WebEnv>): Promise<FormBody | Response> {
  if (c.get('uploadCsrf') !== 'pending') return (await c.req.parseBody({ all: true })) as FormBody;
  const parts = await partsAfterToken(c, c.get('session').csrfToken);
  if (parts instanceof Response) return parts;
  const body: FormBody = {};
  for (let part = await parts.next(); part; part = await parts.next()) {
    if (part.name === undefined) continue;
    const value =
      part.filename === undefined
        ? await new Response(part.stream).text()
        : new File([await new Response(part.stream).arrayBuffer()], part.filename);
    const before = body[part.name];
    body[part.name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  parts.release();
  return body;
}

/**
 * The uploaded file as CSV text: CSV as saved (UTF-8 or UTF-16), or an XLSX workbook's sheet, whose text is held to
 * the rows an import takes and to 8 characters per byte of the upload limit (an XLSX inflates).
 */
export async function csvOfFile(file: File, sheet: string, maxBodyBytes: number): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const isZip = bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (!isZip && !/\.xlsx$/i.test(file.name)) return decodeTableBytes(bytes);
  let csv = '';
  const rows = withinImportLimits(readXlsxRows(bytes, sheet || undefined), {
    maxRows: MAX_IMPORT_ROWS,
    maxCharacters: importCharactersFor(maxBodyBytes),
  });
  for await (const row of rows) csv += csvLine(row.cells);
  return csv;
}
