// The Node host's HTTP edge over real sockets on 127.0.0.1: bodies over MAX_BODY_BYTES get a clean 413 (announced,
// chunked, 100-continue) that a client writing its whole body first still reads, the keep-alive connection survives
// it, and slow or idle clients are cut off in bounded time.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { KEEP_ALIVE_GRACE_MS, type RunningServer, startNodeServer } from '../../src/node.ts';

const MAX = 1024 * 1024;
const HEADERS_TIMEOUT_MS = 600;
const REQUEST_TIMEOUT_MS = 1200;
const KEEP_ALIVE_TIMEOUT_MS = 600;
/** Far above the timeouts, far below "never": a loaded machine stretches the first, not the second. */
const CLOSED_WITHIN_MS = 10_000;

let dir: string;
let server: RunningServer;
let port: number;
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-edge-'));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'edge.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    MAX_BODY_BYTES: String(MAX),
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    RATE_LIMIT_PER_MINUTE: '0',
  });
  server = await startNodeServer(config, () => undefined);
  port = Number(new URL(server.url).port);
  token = server.demo?.token ?? '';
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw connection that collects what the server sends and notes when it closes. */
function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const started = Date.now();
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

async function until(check: () => boolean, what: string, timeoutMs = CLOSED_WITHIN_MS): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Complete HTTP responses in `data`: status, headers and JSON body (Content-Length framed). */
function responses(data: string): Array<{ status: number; headers: string; body: string }> {
  const out: Array<{ status: number; headers: string; body: string }> = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return out;
    const headers = rest.slice(0, end);
    if (/^HTTP\/1\.1 100 /.test(headers)) {
      out.push({ status: 100, headers, body: '' });
      rest = rest.slice(end + 4);
      continue;
    }
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? 0);
    if (rest.length < end + 4 + length) return out;
    out.push({
      status: Number(headers.slice(9, 12)),
      headers,
      body: rest.slice(end + 4, end + 4 + length),
    });
    rest = rest.slice(end + 4 + length);
  }
}

function head(extra: string, path = '/api/mcp/tools/listOrganizations'): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}\r\n`;
}
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

function expectTooLarge(response: { status: number; body: string } | undefined): void {
  expect(response?.status).toBe(413);
  expect(JSON.parse(response?.body ?? '{}').error.code).toBe('payload_too_large');
}

describe('Node host: bodies over MAX_BODY_BYTES', () => {
  it('answers 413 with the JSON error to 40 of 40 bodies of MAX_BODY_BYTES + 1 with Content-Length, never a reset', async () => {
    const body = Buffer.alloc(MAX + 1, 'a');
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      try {
        const response = await fetch(`${server.url}/api/mcp/tools/listOrganizations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        const parsed = (await response.json()) as { error: { code: string } };
        outcomes.push(`${response.status} ${parsed.error.code}`);
      } catch (error) {
        outcomes.push(`failed: ${String((error as { cause?: unknown }).cause ?? error)}`);
      }
    }
    expect(outcomes).toEqual(Array.from({ length: 40 }, () => '413 payload_too_large'));
  });

  it('keeps the connection after a 413: the rest of the body is dropped and the next request is answered', async () => {
    const { socket, received } = await open();
    socket.write(head(`Content-Length: ${MAX + 1}\r\n`));
    socket.write(Buffer.alloc(MAX + 1, 'a'));
    await until(() => responses(received()).length === 1, 'the 413');
    socket.write(HEALTH);
    await until(() => responses(received()).length === 2, 'the next answer');
    const [refused, next] = responses(received());
    expectTooLarge(refused);
    expect(refused?.headers).not.toMatch(/connection: close/i);
    expect(next?.status).toBe(200);
    socket.destroy();
  });

  it('refuses a body announced at 100 MB at once, before it is sent, and closes the connection cleanly', async () => {
    const { socket, received, closed } = await open();
    // Only the headers: the answer must not wait for a byte of the body.
    socket.write(head('Content-Length: 104857600\r\n'));
    await until(() => responses(received()).length === 1, 'the 413');
    const [refused] = responses(received());
    expectTooLarge(refused);
    expect(refused?.headers).toMatch(/connection: close/i);
    expect(await closed).toBeLessThan(CLOSED_WITHIN_MS);
  });

  it('answers `Expect: 100-continue` with 413 instead of 100 when the announced body is too large', async () => {
    const { socket, received, closed } = await open();
    socket.write(head('Content-Length: 104857600\r\nExpect: 100-continue\r\n'));
    await closed;
    const all = responses(received());
    expect(all.map((response) => response.status)).toEqual([413]);
    expectTooLarge(all[0]);
    socket.destroy();
  });

  it('stops reading a chunked body at the limit, answers 413 before the body ends, and keeps the connection', async () => {
    const { socket, received } = await open();
    socket.write(head('Transfer-Encoding: chunked\r\n'));
    const chunk = Buffer.alloc(16 * 1024, 'a');
    for (let sent = 0; sent <= MAX; sent += chunk.length) socket.write(`4000\r\n${chunk.toString()}\r\n`);
    // The body is not finished (no last chunk): the 413 can only come from counting.
    await until(() => responses(received()).length === 1, 'the 413 while the body is still open');
    expectTooLarge(responses(received())[0]);
    socket.write('0\r\n\r\n');
    socket.write(HEALTH);
    await until(() => responses(received()).length === 2, 'the next answer');
    expect(responses(received())[1]?.status).toBe(200);
    socket.destroy();
  });

  it('closes a connection whose chunked body goes on growing long after the 413', async () => {
    const { socket, received, closed } = await open();
    socket.write(head('Transfer-Encoding: chunked\r\n'));
    const piece = `4000\r\n${'a'.repeat(16 * 1024)}\r\n`;
    let open_ = true;
    void closed.then(() => {
      open_ = false;
    });
    // Up to 16 MB, and no more once the server has closed the connection.
    for (let sent = 0; sent < 16 * 1024 * 1024 && open_; sent += 16 * 1024) {
      if (!socket.write(piece))
        await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
    }
    expect(await closed).toBeLessThan(CLOSED_WITHIN_MS);
    expectTooLarge(responses(received())[0]);
  });
});

/**
 * The client of the issue: a raw socket that writes the headers, then the body in 64 KB writes that wait for 'drain'
 * when the socket says so (as Node's `http` under axios and got), and reads only once it has written everything.
 * `size` bytes with Content-Length, or as chunks of 64 KB when `chunked`. Resolves to the status line and error code
 * it read (`413 payload_too_large`), or to the error that stopped it and how many body bytes it had written.
 */
function writeWholeThenRead(
  at: { port: number; token: string },
  path: string,
  size: number,
  chunked = false,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(at.port, '127.0.0.1');
    let written = 0;
    let data = '';
    let settled = false;
    const settle = (outcome: string) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    socket.on('error', (error: NodeJS.ErrnoException) => settle(`${error.code} after ${written} bytes`));
    socket.once('connect', async () => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${at.port}\r\nAuthorization: Bearer ${at.token}\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${framing}\r\n\r\n`,
      );
      const piece = Buffer.alloc(64 * 1024, 'a');
      while (written < size && !settled) {
        const part = piece.subarray(0, Math.min(piece.length, size - written));
        const flowing = chunked
          ? [`${part.length.toString(16)}\r\n`, part, '\r\n']
              .map((bytes) => socket.write(bytes))
              .every(Boolean)
          : socket.write(part);
        written += part.length;
        if (!flowing) await new Promise((resume) => socket.once('drain', resume).once('close', resume));
      }
      if (settled) return;
      if (chunked) socket.write('0\r\n\r\n');
      // Only now does it read.
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        data += chunk;
        const [answer] = responses(data);
        if (answer) settle(`${answer.status} ${JSON.parse(answer.body || '{}').error?.code ?? answer.body}`);
      });
      socket.once('end', () => settle(`closed before an answer (${JSON.stringify(data.slice(0, 40))})`));
    });
  });
}

describe('Node host: a client that writes its whole body before reading, beside a CPU-bound process', () => {
  let edge: RunningServer;
  let edgeDir: string;
  let busy: ChildProcess;
  let at: { port: number; token: string };

  beforeAll(async () => {
    edgeDir = mkdtempSync(join(tmpdir(), 'cmcp-edge-whole-'));
    // The defaults (MAX_BODY_BYTES 1 MiB, REQUEST_TIMEOUT_MS 30 s), as the server ran.
    edge = await startNodeServer(
      loadConfig({
        DATABASE_URL: `file:${join(edgeDir, 'edge.db')}`,
        PORT: '0',
        HOST: '127.0.0.1',
        RATE_LIMIT_PER_MINUTE: '0',
      }),
      () => undefined,
    );
    at = { port: Number(new URL(edge.url).port), token: edge.demo?.token ?? '' };
    // A busy loop on another core: the load under which the issue saw the resets.
    busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  });

  afterAll(async () => {
    busy.kill('SIGKILL');
    await edge.close();
    rmSync(edgeDir, { recursive: true, force: true });
  });

  it('reads the 413 in 40 of 40 bodies of 2 MB and 8 MB with Content-Length, one of 100 MB, and a chunked MCP body of 4 MB', async () => {
    const attempts: Array<{ label: string; run: () => Promise<string> }> = [];
    for (const path of ['/api/mcp/tools/listVendors', '/api/mcp/v1'])
      for (const megabytes of [2, 8])
        for (let index = 0; index < 10; index++)
          attempts.push({
            label: `${path} ${megabytes} MB`,
            run: () => writeWholeThenRead(at, path, megabytes * 1024 * 1024),
          });
    // Over DRAIN_BEFORE_CLOSE_BYTES: answered, then the lingering close at once.
    attempts.push({
      label: '/api/mcp/tools/listVendors 100 MB',
      run: () => writeWholeThenRead(at, '/api/mcp/tools/listVendors', 100 * 1024 * 1024),
    });
    attempts.push({
      label: '/api/mcp/v1 4 MB chunked',
      run: () => writeWholeThenRead(at, '/api/mcp/v1', 4 * 1024 * 1024, true),
    });
    // Four at a time.
    const outcomes: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let attempt = attempts[next++]; attempt; attempt = attempts[next++])
          outcomes.push(`${attempt.label}: ${await attempt.run()}`);
      }),
    );
    expect(outcomes.sort()).toEqual(attempts.map(({ label }) => `${label}: 413 payload_too_large`).sort());
  }, 120_000);
});

describe('Node host: slow and idle clients', () => {
  it('closes 200 connections sending a body one byte at a time within bounded time, and serves others meanwhile', async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => open()));
    const timers = slow.map(({ socket }) => {
      socket.write(head('Content-Length: 1000\r\n'));
      return setInterval(() => socket.writable && socket.write('a'), 200);
    });
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const call = await fetch(`${server.url}/api/mcp/tools/listOrganizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(call.status).toBe(200);
      const times = await Promise.all(slow.map(({ closed }) => closed));
      expect(Math.max(...times)).toBeLessThan(CLOSED_WITHIN_MS);
      expect(Math.min(...times)).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      // Node answers 408 before closing a request that ran out of time.
      expect(slow.every(({ received }) => /^HTTP\/1\.1 408 /.test(received()))).toBe(true);
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('closes 200 connections sending their headers one byte at a time, and serves others meanwhile', async () => {
    const slow = await Promise.all(Array.from({ length: 200 }, () => open()));
    const text = head('X-Slow: 1\r\n');
    const timers = slow.map(({ socket }) => {
      let at = 0;
      return setInterval(() => socket.writable && at < text.length && socket.write(text[at++] ?? ''), 100);
    });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const times = await Promise.all(slow.map(({ closed }) => closed));
      expect(Math.max(...times)).toBeLessThan(CLOSED_WITHIN_MS);
      expect(Math.min(...times)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('closes a connection that sends nothing, and an idle keep-alive connection after its answer', async () => {
    const silent = await open();
    const idle = await open();
    idle.socket.write(HEALTH);
    await until(() => responses(idle.received()).length === 1, 'the answer');
    const [answer] = responses(idle.received());
    expect(answer?.status).toBe(200);
    // The answer advertises KEEP_ALIVE_TIMEOUT_MS (in whole seconds, as Node does) once; the server waits longer.
    expect(answer?.headers.match(/\r\nkeep-alive: [^\r]*/gi)).toEqual([
      `\r\nkeep-alive: timeout=${Math.floor(KEEP_ALIVE_TIMEOUT_MS / 1000)}`,
    ]);
    expect(await silent.closed).toBeLessThan(CLOSED_WITHIN_MS);
    const idleFor = await idle.closed;
    expect(idleFor).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_GRACE_MS - 100);
    expect(idleFor).toBeLessThan(KEEP_ALIVE_GRACE_MS + CLOSED_WITHIN_MS);
  });
});
