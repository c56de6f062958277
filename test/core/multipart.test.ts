// The streamed multipart reader (src/files/multipart.ts): every split of a body into chunks gives the same parts, and
// a file part's bytes are handed on as views of the body's chunks, not copies.
import { describe, expect, it } from 'vitest';
import { multipartFile, multipartReader } from '../../src/files/multipart.ts';
import { readAll } from '../../src/files/store.ts';

const BOUNDARY = 'xYzBoundary';
const encoder = new TextEncoder();

function form(file: Uint8Array): Uint8Array {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nA title\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`,
  );
  const tail = encoder.encode(
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="after"\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
  );
  const body = new Uint8Array(head.byteLength + file.byteLength + tail.byteLength);
  body.set(head);
  body.set(file, head.byteLength);
  body.set(tail, head.byteLength + file.byteLength);
  return body;
}

function streamOfChunks(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

/** `bytes` cut at the given offsets, each piece in an ArrayBuffer of its own. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const ends = [...offsets, bytes.byteLength];
  return ends.map((end, index) => bytes.slice(index === 0 ? 0 : ends[index - 1], end));
}

describe('multipart reader', () => {
  it('reads the same fields and file however the body is cut, a delimiter or its CR LF split included', async () => {
    // The file holds near-delimiters: CR LF, CR LF dashes, the boundary without its dashes.
    const file = encoder.encode(`\r\n-\r\n--xYzBound\r\r\n--xYzBoundar${BOUNDARY}\r\n--x\r`);
    const body = form(file);
    for (let at = 1; at < body.byteLength; at++) {
      const parts = multipartReader(streamOfChunks(cut(body, [at])), BOUNDARY);
      const title = await parts.next();
      expect(await new Response(title?.stream).text()).toBe('A title');
      const part = await parts.next();
      expect(part?.filename).toBe('a.bin');
      expect(await readAll(part?.stream as ReadableStream<Uint8Array>)).toEqual(file);
      const after = await parts.next();
      expect(after?.name).toBe('after');
      expect(await new Response(after?.stream).text()).toBe('x');
      expect(await parts.next()).toBeNull();
    }
  });

  it("hands a file's bytes on as views of the body's chunks: only the chunk holding the part's headers is copied", async () => {
    const file = new Uint8Array(64 * 1024 * 8).map((_, index) => (index * 7) % 251);
    const body = form(file);
    const chunks = cut(body, [100, 200, ...Array.from({ length: 8 }, (_, index) => 300 + index * 64 * 1024)]);
    const buffers = new Set(chunks.map((chunk) => chunk.buffer));
    const found = await multipartFile(streamOfChunks(chunks), BOUNDARY);
    expect(found?.filename).toBe('a.bin');
    const pieces: Uint8Array[] = [];
    for await (const piece of (found as { stream: ReadableStream<Uint8Array> })
      .stream as unknown as AsyncIterable<Uint8Array>)
      pieces.push(piece);
    expect(Buffer.compare(Buffer.concat(pieces), file)).toBe(0);
    const copies = pieces.filter((piece) => !buffers.has(piece.buffer as ArrayBuffer));
    expect(copies.length).toBeLessThanOrEqual(1);
    expect(pieces.length).toBeGreaterThanOrEqual(8);
  });
});
