// A multipart/form-data body read as a stream: the part of one field (`file`) handed on as a stream of its bytes,
// the parts before it skipped (at most SKIP_BYTES), nothing buffered but a delimiter's length.
import { AppError } from '../errors.ts';

const HEADER_BYTES = 16 * 1024;
const SKIP_BYTES = 1024 * 1024;
const encoder = new TextEncoder();

function invalid(message: string): AppError {
  return new AppError('invalid_arguments', `Malformed multipart/form-data body: ${message}`);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  const last = haystack.byteLength - needle.byteLength;
  outer: for (
    let at = haystack.indexOf(first as number, from);
    at !== -1 && at <= last;
    at = haystack.indexOf(first as number, at + 1)
  ) {
    for (let index = 1; index < needle.byteLength; index++)
      if (haystack[at + index] !== needle[index]) continue outer;
    return at;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.byteLength === 0) return b;
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

/** The boundary of a multipart/form-data Content-Type, or null when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*;/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match ? ((match[1] ?? match[2]) as string) : null;
}

/** The `name` and `filename` of a Content-Disposition (RFC 6266: filename* in UTF-8 wins over filename). */
export function parseContentDisposition(header: string | undefined): { name?: string; filename?: string } {
  if (!header) return {};
  const out: { name?: string; filename?: string } = {};
  for (const match of header.matchAll(/;\s*([a-z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/gi)) {
    const key = (match[1] as string).toLowerCase();
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '');
    if (key === 'name') out.name = value;
    else if (key === 'filename' && out.filename === undefined) out.filename = value;
    else if (key === 'filename*') {
      const encoded = /^utf-8''(.*)$/i.exec(value)?.[1];
      if (encoded !== undefined) {
        try {
          out.filename = decodeURIComponent(encoded);
        } catch {
          // A malformed filename* leaves the plain filename.
        }
      }
    }
  }
  return out;
}

/**
 * The field's file part of a multipart body: its file name and a stream of its bytes. The parts before it are
 * skipped; null when the body has no such field with a file name.
 */
export async function multipartFile(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  field = 'file',
): Promise<{ filename: string; stream: ReadableStream<Uint8Array> } | null> {
  const reader = body.getReader();
  const dashBoundary = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  let buffer: Uint8Array = new Uint8Array(0);
  let ended = false;
  let skipped = 0;

  async function more(): Promise<void> {
    if (ended) throw invalid('the body ended before its closing boundary.');
    const read = await reader.read();
    if (read.done) {
      ended = true;
      return;
    }
    buffer = concat(buffer, read.value);
  }

  /** Drops bytes up to and including the needle (refusing more than SKIP_BYTES in all). */
  async function skipPast(needle: Uint8Array): Promise<void> {
    for (;;) {
      const at = indexOf(buffer, needle);
      if (at >= 0) {
        skipped += at;
        buffer = buffer.subarray(at + needle.byteLength);
        break;
      }
      const keep = Math.min(buffer.byteLength, needle.byteLength - 1);
      skipped += buffer.byteLength - keep;
      buffer = buffer.subarray(buffer.byteLength - keep);
      if (skipped > SKIP_BYTES) throw invalid(`more than ${SKIP_BYTES} bytes before the "${field}" field.`);
      await more();
    }
    if (skipped > SKIP_BYTES) throw invalid(`more than ${SKIP_BYTES} bytes before the "${field}" field.`);
  }

  try {
    await skipPast(dashBoundary);
    for (;;) {
      while (buffer.byteLength < 2) await more();
      if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
        reader.releaseLock();
        return null;
      }
      let headerEnd = indexOf(buffer, encoder.encode('\r\n\r\n'));
      while (headerEnd < 0) {
        if (buffer.byteLength > HEADER_BYTES) throw invalid('a part has too long headers.');
        await more();
        headerEnd = indexOf(buffer, encoder.encode('\r\n\r\n'));
      }
      const headers = new TextDecoder().decode(buffer.subarray(0, headerEnd)).split('\r\n');
      buffer = buffer.subarray(headerEnd + 4);
      const disposition = headers.find((line) => /^content-disposition\s*:/i.test(line));
      const { name, filename } = parseContentDisposition(disposition?.replace(/^[^:]*:\s*[^;]*/, ''));
      if (name === field && filename !== undefined) return { filename, stream: partStream() };
      await skipPast(delimiter);
    }
  } catch (error) {
    // Not cancelled: the host drops what is left of the body after the answer (src/node.ts).
    reader.releaseLock();
    throw error;
  }

  function partStream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const at = indexOf(buffer, delimiter);
          if (at >= 0) {
            if (at > 0) controller.enqueue(buffer.slice(0, at));
            controller.close();
            // What follows the part (other fields, the closing boundary) is left unread, for the host to drop.
            reader.releaseLock();
            return;
          }
          const safe = buffer.byteLength - (delimiter.byteLength - 1);
          if (safe > 0) {
            controller.enqueue(buffer.slice(0, safe));
            buffer = buffer.subarray(safe);
            return;
          }
          try {
            await more();
          } catch (error) {
            controller.error(error);
            return;
          }
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }
}
