// Uploads over the Node host's HTTP edge on 127.0.0.1 read their body as the store takes it: while the store is held,
// the server reads at most a few hundred KB from the socket (TCP holds the rest back at the client), and the store
// receives Node's own body chunks, not copies of them (src/http/node-body.ts); released, the upload completes whole.
// A chunked web form, read whole by the size limit before the route, is stored from that copy.
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/node.ts';
import { ok, type TestRuntime } from '../helpers.ts';
import { csrfOf, signedUpRuntime, type WebClient } from '../web/web-client.ts';

const MB = 1024 * 1024;
const SIZE = 16 * MB;
/** What the server may read ahead of a held store: its queue (64 KB), Node's (16 KB) and a socket read or two. */
const READ_AHEAD_BOUND = MB;

const runtimes: TestRuntime[] = [];
/** Ada signed up (a web session and a read_write token) in her organization, with a measure to attach evidence to. */
let ada: {
  runtime: TestRuntime;
  client: WebClient;
  organizationId: string;
  token: string;
  measureId: string;
};
let server: Server;
let url: string;
const sockets: Socket[] = [];

/** The store's put waits for `release()` before it reads a byte; it records whether each chunk is a Node Buffer. */
const store = {
  release: () => {},
  held: Promise.resolve(),
  chunks: 0,
  buffers: 0,
  hold() {
    this.held = new Promise<void>((resolve) => {
      this.release = resolve;
    });
    this.chunks = 0;
    this.buffers = 0;
  },
};

beforeAll(async () => {
  const signedUp = await signedUpRuntime(runtimes);
  const { runtime, token, organizationId } = signedUp;
  const added = await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: 'MFA' });
  ada = { ...signedUp, measureId: String((added.measure as { id: string }).id) };
  const blobs = runtime.files.store;
  const put = blobs.put.bind(blobs);
  blobs.put = async (key, body, options) => {
    await store.held;
    const observed = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          store.chunks += 1;
          if (Buffer.isBuffer(chunk)) store.buffers += 1;
          controller.enqueue(chunk);
        },
      }),
    );
    return put(key, observed, options);
  };
  server = createHttpServer(runtime.app.fetch, runtime.config);
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  for (const item of runtimes) await item.cleanup();
});

const bytesOf = (size: number) => new Uint8Array(size).map((_, index) => (index * 7) % 251);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The measure page's evidence form as a browser posts it (token first, file last), but the file's bytes. */
async function evidenceForm(title: string) {
  const { client, organizationId, measureId } = ada;
  const page = await client.get(`/orgs/${organizationId}/measures/${measureId}`);
  const boundary = '----heldformboundary';
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  return {
    path: `/orgs/${organizationId}/evidence/attach`,
    headers: {
      cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      origin: url,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    head: `${field('_csrf', csrfOf(page.html))}${field('record_id', measureId)}${field('title', title)}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    tail: `\r\n--${boundary}--\r\n`,
  };
}

/** The size and SHA-256 of the evidence with that title, as the API lists it. */
async function storedEvidence(title: string) {
  const { runtime, token, organizationId } = ada;
  const listed = await ok(runtime, token, 'listEvidence', { organization_id: organizationId });
  const found = (listed.evidence as { title: string; size: number; sha256: string }[]).find(
    (item) => item.title === title,
  );
  return found && { size: found.size, sha256: found.sha256 };
}

/** Reads the server-side socket's byte count until it has not moved for 5 looks in a row (the client is blocked). */
async function settledBytesRead(socket: Socket): Promise<number> {
  let last = -1;
  for (let still = 0, looks = 0; still < 5 && looks < 400; looks++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    still = socket.bytesRead === last ? still + 1 : 0;
    last = socket.bytesRead;
  }
  return last;
}

/**
 * Posts head + the file + tail with node:http (64 KB writes, waiting for 'drain'); with the store held, measures what
 * the server read from the socket once the client is blocked; then releases the store and returns the answer.
 */
async function postHeld(
  path: string,
  headers: Record<string, string>,
  head: string,
  file: Uint8Array,
  tail = '',
) {
  store.hold();
  const parts = [
    Buffer.from(head),
    Buffer.from(file.buffer, file.byteOffset, file.byteLength),
    Buffer.from(tail),
  ];
  const length = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const before = sockets.length;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const posted = request(`${url}${path}`, {
      method: 'POST',
      // A connection of its own, so the socket counted is this request's.
      agent: false,
      headers: { ...headers, 'content-length': String(length) },
    });
    posted.on('error', reject);
    posted.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    const all = Buffer.concat(parts);
    let at = 0;
    const write = () => {
      while (at < all.byteLength) {
        const piece = all.subarray(at, at + 64 * 1024);
        at += piece.byteLength;
        if (!posted.write(piece)) return void posted.once('drain', write);
      }
      posted.end();
    };
    write();
  });
  while (sockets.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
  const socket = sockets[sockets.length - 1] as Socket;
  const readWhileHeld = await settledBytesRead(socket);
  store.release();
  return { readWhileHeld, length, ...(await answer) };
}

describe('uploads read as the store takes them (Node host)', () => {
  it('the API upload: at most 1 MB of a 16 MB body read while the store is held, then stored whole', async () => {
    const { organizationId, token } = ada;
    const file = bytesOf(SIZE);
    const result = await postHeld(
      `/api/v1/orgs/${organizationId}/files?name=held.bin`,
      { authorization: `Bearer ${token}` },
      '',
      file,
    );
    expect(result.readWhileHeld).toBeLessThan(READ_AHEAD_BOUND);
    expect(result.status).toBe(201);
    const stored = JSON.parse(result.body) as { file: { size: number; sha256: string } };
    expect(stored.file.size).toBe(SIZE);
    expect(stored.file.sha256).toBe(sha256(file));
    // Node's own chunks reached the store: no copy of the body on the way.
    expect(store.chunks).toBeGreaterThan(0);
    expect(store.buffers).toBe(store.chunks);
  });

  it('the web evidence form: at most 1 MB of a 16 MB form read while the store is held, then stored whole', async () => {
    const file = bytesOf(SIZE);
    const form = await evidenceForm('Held upload');
    const result = await postHeld(form.path, form.headers, form.head, file, form.tail);
    expect(result.readWhileHeld).toBeLessThan(READ_AHEAD_BOUND);
    expect(result.status).toBe(303);
    // Only the file's first bytes, joined to the part's headers when they came in one chunk, may be a copy.
    expect(store.chunks).toBeGreaterThan(100);
    expect(store.chunks - store.buffers).toBeLessThanOrEqual(1);
    expect(await storedEvidence('Held upload')).toEqual({ size: SIZE, sha256: sha256(file) });
  });

  it('a chunked web form (no Content-Length) is read whole up to the limit before the route, then stored', async () => {
    // The store takes the file at once.
    store.hold();
    store.release();
    const file = bytesOf(2 * MB);
    const form = await evidenceForm('Chunked upload');
    const parts = [Buffer.from(form.head), Buffer.from(file), Buffer.from(form.tail)];
    const posted = await fetch(`${url}${form.path}`, {
      method: 'POST',
      headers: form.headers,
      body: new ReadableStream({
        pull(controller) {
          const part = parts.shift();
          if (part) controller.enqueue(part);
          else controller.close();
        },
      }),
      redirect: 'manual',
      duplex: 'half',
    } as RequestInit);
    expect(posted.status).toBe(303);
    expect(await storedEvidence('Chunked upload')).toEqual({ size: 2 * MB, sha256: sha256(file) });
  });
});
