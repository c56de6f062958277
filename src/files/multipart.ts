// A multipart/form-data body read as a stream: the part of one field (`file`) handed on as a stream of its bytes,
// the parts before it skipped (at most SKIP_BYTES), nothing buffered but a delimiter's length, the bytes handed on
// as views of the body's own chunks.
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

/**
 * Where the longest end of `haystack` that begins `needle` starts (a needle the next chunk may complete), else the
 * haystack's length: the bytes before it are data, whatever comes next.
 */
function partialStart(haystack: Uint8Array, needle: Uint8Array): number {
  const end = haystack.byteLength;
  for (
    let at = haystack.indexOf(needle[0] as number, Math.max(0, end - needle.byteLength + 1));
    at !== -1;
    at = haystack.indexOf(needle[0] as number, at + 1)
  ) {
    let matched = 1;
    while (at + matched < end && haystack[at + matched] === needle[matched]) matched++;
    if (at + matched === end) return at;
  }
  return end;
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

/** One part of a multipart body: its field name, file name (undefined for a plain field) and bytes. */
export interface MultipartPart {
  name: string | undefined;
  filename: string | undefined;
  /** The part's bytes, read as they arrive; what is left unread is skipped when the next part is asked for. */
  stream: ReadableStream<Uint8Array>;
}

/** The parts of a multipart body, one at a time, in order (a part's bytes are never buffered whole). */
export interface MultipartReader {
  /** The next part (the one before is skipped as far as it was not read), or null after the closing boundary. */
  next(): Promise<MultipartPart | null>;
  /** Releases the body once the current part's bytes are read, the rest left for the host to drop. */
  releaseAfterPart(): void;
  /** Leaves the rest of the body unread, for the host to drop. */
  release(): void;
}

/**
 * Reads a multipart body part by part. At most `maxSkippedBytes` (default 1 MiB) of preamble and of parts left
 * unread may be skipped in all, so a client cannot make the server read on for nothing.
 */
export function multipartReader(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: { maxSkippedBytes?: number; skipMessage?: string } = {},
): MultipartReader {
  const reader = body.getReader();
  const dashBoundary = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const headerEnd = encoder.encode('\r\n\r\n');
  const maxSkipped = options.maxSkippedBytes ?? SKIP_BYTES;
  let buffer: Uint8Array = new Uint8Array(0);
  let ended = false;
  let released = false;
  let skipped = 0;
  let started = false;
  let closed = false;
  /** The part being read, until its delimiter has been consumed. */
  let open: { done: boolean; last: boolean } | null = null;

  const release = () => {
    if (released) return;
    released = true;
    reader.releaseLock();
  };

  async function more(): Promise<void> {
    if (ended) throw invalid('the body ended before its closing boundary.');
    const read = await reader.read();
    if (read.done) {
      ended = true;
      return;
    }
    buffer = concat(buffer, read.value);
  }

  const skipError = () =>
    invalid(options.skipMessage ?? `more than ${maxSkipped} bytes in parts that were not read.`);

  /** Drops bytes up to and including the needle (refusing more than maxSkipped in all). */
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
      if (skipped > maxSkipped) throw skipError();
      await more();
    }
    if (skipped > maxSkipped) throw skipError();
  }

  function partStream(part: { done: boolean; last: boolean }): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const at = indexOf(buffer, delimiter);
          if (at >= 0) {
            if (at > 0) controller.enqueue(buffer.subarray(0, at));
            buffer = buffer.subarray(at + delimiter.byteLength);
            part.done = true;
            controller.close();
            if (part.last) release();
            return;
          }
          // Handed on as views of the body's chunks, not copies; only a chunk ending in the start of a delimiter
          // is joined to the next one.
          const safe = partialStart(buffer, delimiter);
          if (safe > 0) {
            controller.enqueue(buffer.subarray(0, safe));
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
      cancel: async (reason) => {
        if (!released) await reader.cancel(reason);
      },
    });
  }

  async function next(): Promise<MultipartPart | null> {
    if (closed) return null;
    try {
      if (!started) {
        started = true;
        await skipPast(dashBoundary);
      } else if (open && !open.done) await skipPast(delimiter);
      open = null;
      while (buffer.byteLength < 2) await more();
      if (buffer[0] === 0x2d && buffer[1] === 0x2d) {
        closed = true;
        return null;
      }
      let end = indexOf(buffer, headerEnd);
      while (end < 0) {
        if (buffer.byteLength > HEADER_BYTES) throw invalid('a part has too long headers.');
        await more();
        end = indexOf(buffer, headerEnd);
      }
      const headers = new TextDecoder().decode(buffer.subarray(0, end)).split('\r\n');
      buffer = buffer.subarray(end + headerEnd.byteLength);
      const disposition = headers.find((line) => /^content-disposition\s*:/i.test(line));
      const { name, filename } = parseContentDisposition(disposition?.replace(/^[^:]*:\s*[^;]*/, ''));
      const part = { done: false, last: false };
      open = part;
      return { name, filename, stream: partStream(part) };
    } catch (error) {
      // Not cancelled: the host drops what is left of the body after the answer (src/node.ts).
      release();
      throw error;
    }
  }

  function releaseAfterPart(): void {
    if (!open || open.done) release();
    else open.last = true;
  }

  return { next, release, releaseAfterPart };
}

/**
 * The field's file part of a multipart body: its file name and a stream of its bytes. The parts before it are
 * skipped (at most 1 MiB); null when the body has no such field with a file name. What follows the part (other
 * fields, the closing boundary) is left unread, for the host to drop.
 */
export async function multipartFile(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  field = 'file',
): Promise<{ filename: string; stream: ReadableStream<Uint8Array> } | null> {
  const parts = multipartReader(body, boundary, {
    skipMessage: `more than ${SKIP_BYTES} bytes before the "${field}" field.`,
  });
  for (let part = await parts.next(); part; part = await parts.next())
    if (part.name === field && part.filename !== undefined) {
      parts.releaseAfterPart();
      return { filename: part.filename, stream: part.stream };
    }
  parts.release();
  return null;
}
