// Stored files over the Node host's HTTP edge on 127.0.0.1: upload (raw and multipart) and signed download (range,
// attachment, nosniff), organization isolation, and early answers (413, 431) that clients writing with node:http
// read instead of EPIPE, thanks to the lingering close.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { toolCalls } from '../../src/db/schema.ts';
import { downloadLink } from '../../src/files/links.ts';
import { type RunningServer, startNodeServer } from '../../src/node.ts';
import { createActor, createOrg, createToken } from '../helpers.ts';

const MAX_BODY = 1024 * 1024;
const FILE_MAX = 3 * 1024 * 1024;

let dir: string;
let server: RunningServer;
let port: number;
let orgA: string;
let orgB: string;
let tokenA: string;
let tokenB: string;
let readTokenA: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-files-http-'));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'files.db')}`,
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    MAX_BODY_BYTES: String(MAX_BODY),
    FILE_MAX_BYTES: String(FILE_MAX),
    RATE_LIMIT_PER_MINUTE: '0',
  });
  server = await startNodeServer(config, () => undefined);
  port = Number(new URL(server.url).port);
  const alice = await createActor(server.runtime, 'alice');
  const bob = await createActor(server.runtime, 'bob');
  orgA = await createOrg(server.runtime, alice, 'Alpha');
  orgB = await createOrg(server.runtime, bob, 'Beta');
  tokenA = await createToken(server.runtime, alice);
  readTokenA = await createToken(server.runtime, alice, { scope: 'read' });
  tokenB = await createToken(server.runtime, bob);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytesOf = (size: number) => new Uint8Array(size).map((_, index) => (index * 7) % 256);

interface UploadAnswer {
  file: { id: string; name: string; size: number; content_type: string; sha256: string };
  error: { code: string; message: string };
}

async function upload(
  org: string,
  token: string,
  body: BodyInit,
  headers: Record<string, string> = {},
  query = '',
) {
  const response = await fetch(`${server.url}/api/v1/orgs/${org}/files${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, json: (await response.json()) as UploadAnswer };
}

async function linkFor(org: string, fileId: string) {
  return downloadLink(
    { files: server.runtime.files, now: () => new Date() },
    { organizationId: org, fileId, subjectId: 'evd_aaaaaaaaaaaaaaaaaaaaaaaa', baseUrl: server.url },
  );
}

describe('upload and download', () => {
  it('stores a raw body named by ?name= and serves it back as an attachment, whole and by range', async () => {
    const bytes = bytesOf(200_000);
    const { status, json } = await upload(
      orgA,
      tokenA,
      bytes,
      { 'content-type': 'image/svg+xml' },
      '?name=scan%20%C3%A9.bin',
    );
    expect(status).toBe(201);
    expect(json.file).toMatchObject({
      name: 'scan é.bin',
      size: 200_000,
      content_type: 'application/octet-stream',
      sha256: sha256(bytes),
    });
    const { url, expires_at } = await linkFor(orgA, json.file.id);
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/octet-stream');
    expect(whole.headers.get('content-disposition')).toBe(
      `attachment; filename="scan _.bin"; filename*=UTF-8''scan%20%C3%A9.bin`,
    );
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(bytes));

    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/200000');
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual([...bytes.slice(100, 200)]);
    const suffix = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(suffix.headers.get('content-range')).toBe('bytes 199995-199999/200000');
    expect((await suffix.arrayBuffer()).byteLength).toBe(5);
    const beyond = await fetch(url, { headers: { range: 'bytes=200000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */200000');
  });

  it('stores the file field of a multipart body, with its file name, the other fields skipped', async () => {
    const html = new TextEncoder().encode('<html><body><script>alert(1)</script></body></html>');
    const form = new FormData();
    form.append('title', 'Screenshot');
    form.append('file', new Blob([html], { type: 'text/html' }), 'evil.html');
    form.append('after', 'ignored');
    const { status, json } = await upload(orgA, tokenA, form);
    expect(status).toBe(201);
    expect(json.file).toMatchObject({
      name: 'evil.html',
      size: html.byteLength,
      content_type: 'text/plain; charset=utf-8',
    });
    const download = await fetch((await linkFor(orgA, json.file.id)).url);
    expect(download.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(download.headers.get('content-disposition')?.startsWith('attachment;')).toBe(true);
    expect(await download.text()).toBe(new TextDecoder().decode(html));
  });

  it('takes the name from Content-Disposition and refuses a body without one', async () => {
    const named = await upload(orgA, tokenA, 'a,b\n1,2\n', {
      'content-disposition': 'attachment; filename="risks.csv"',
    });
    expect(named.json.file).toMatchObject({ name: 'risks.csv', content_type: 'text/csv; charset=utf-8' });
    const unnamed = await upload(orgA, tokenA, 'x');
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.error.code).toBe('invalid_arguments');
  });

  it('answers 413 payload_too_large over FILE_MAX_BYTES, announced or streamed, and keeps nothing', async () => {
    const rows = async () =>
      (await server.runtime.database.client.execute('select count(*) as n from stored_files')).rows[0]?.n;
    const before = await rows();
    const announced = await upload(orgA, tokenA, bytesOf(FILE_MAX + 1), {}, '?name=big.bin');
    expect(announced.status).toBe(413);
    expect(announced.json.error.code).toBe('payload_too_large');
    expect(announced.json.error.message).toContain('FILE_MAX_BYTES');
    const big = bytesOf(FILE_MAX + 100_000);
    const streamed = await upload(
      orgA,
      tokenA,
      new ReadableStream({
        start(controller) {
          for (let offset = 0; offset < big.byteLength; offset += 65_536)
            controller.enqueue(big.slice(offset, offset + 65_536));
          controller.close();
        },
      }),
      {},
      '?name=big.bin',
    );
    expect(streamed.status).toBe(413);
    expect(streamed.json.error.code).toBe('payload_too_large');
    const exact = await upload(orgA, tokenA, bytesOf(FILE_MAX), {}, '?name=exact.bin');
    expect(exact.status).toBe(201);
    expect(await rows()).toBe(Number(before) + 1);
  });
});

describe('isolation', () => {
  it('refuses uploads into an organization the token does not reach, by read tokens and without a token', async () => {
    const other = await upload(orgA, tokenB, 'x', {}, '?name=x.txt');
    expect(other.status).toBe(404);
    expect(other.json.error.code).toBe('not_found');
    const missing = await upload('org_aaaaaaaaaaaaaaaaaaaaaaaa', tokenB, 'x', {}, '?name=x.txt');
    expect(missing).toEqual(other);
    expect((await upload(orgA, readTokenA, 'x', {}, '?name=x.txt')).json.error.code).toBe(
      'insufficient_scope',
    );
    const anonymous = await fetch(`${server.url}/api/v1/orgs/${orgA}/files?name=x`, {
      method: 'POST',
      body: 'x',
    });
    expect(anonymous.status).toBe(401);
  });

  it('passes every upload through the seam: logged as a storeFile call with its outcome, counted as a call', async () => {
    const stored = await upload(orgB, tokenB, 'logged', {}, '?name=logged.txt');
    expect(stored.status).toBe(201);
    await upload(orgA, readTokenA, 'x', {}, '?name=x.txt');
    await server.runtime.usage.flush();
    const calls = await server.runtime.database.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.tool, 'storeFile'), eq(toolCalls.organization_id, orgB)));
    expect(calls.map((call) => `${call.surface} ${call.outcome}`)).toEqual(['direct ok']);
    const refused = await server.runtime.database.db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.tool, 'storeFile'), eq(toolCalls.outcome, 'insufficient_scope')));
    expect(refused.length).toBeGreaterThan(0);
  });

  it("serves organization A's file only through a link of A; a link altered to B's file fails like a missing one", async () => {
    const a = (await upload(orgA, tokenA, 'alpha secret', {}, '?name=a.txt')).json.file;
    const b = (await upload(orgB, tokenB, 'beta secret', {}, '?name=b.txt')).json.file;
    const linkA = (await linkFor(orgA, a.id)).url;
    expect(await (await fetch(linkA)).text()).toBe('alpha secret');
    // A link made for organization A naming B's file (as a caller that checked A's rights would make it) finds nothing.
    const crossed = await fetch((await linkFor(orgA, b.id)).url);
    expect(crossed.status).toBe(404);
    const crossedBody = await crossed.json();
    const altered = await fetch(linkA.replace(a.id, b.id));
    expect(altered.status).toBe(404);
    expect(await altered.json()).toEqual(crossedBody);
    const expired = await downloadLink(
      { files: server.runtime.files, now: () => new Date(Date.now() - 3_600_000) },
      { organizationId: orgA, fileId: a.id, subjectId: 'evd_aaaaaaaaaaaaaaaaaaaaaaaa', baseUrl: server.url },
    );
    const late = await fetch(expired.url);
    expect(late.status).toBe(404);
    expect(await late.json()).toEqual(crossedBody);
  });
});

/** A POST written with node:http as axios and got write it; the status once the answer was read whole, or the error. */
function nodeHttpPost(
  path: string,
  size: number,
  options: { stream?: boolean; headers?: Record<string, string> } = {},
): Promise<string> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: string) => {
      if (!settled) resolve(outcome);
      settled = true;
    };
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: {
        authorization: `Bearer ${tokenA}`,
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        settle(`${res.statusCode} ${body.includes('payload_too_large') ? 'payload_too_large' : ''}`.trim()),
      );
      res.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    });
    req.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    if (!options.stream) {
      req.end(Buffer.alloc(size, 1));
      return;
    }
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (sent >= size) {
          req.end(piece);
          return;
        }
        if (!req.write(piece)) {
          req.once('drain', write);
          return;
        }
      }
    };
    write();
  });
}

describe('early answers are read by node:http clients (lingering close)', () => {
  const TOOL = '/api/mcp/tools/listOrganizations';

  it.each([
    [2, 10],
    [8, 10],
  ])('%i MB bodies over MAX_BODY_BYTES: every one of %i reads 413', async (megabytes, tries) => {
    const outcomes: string[] = [];
    for (let index = 0; index < tries; index++)
      outcomes.push(await nodeHttpPost(TOOL, megabytes * 1024 * 1024));
    expect(outcomes).toEqual(Array(tries).fill('413 payload_too_large'));
  });

  it('100 MB bodies, written in one piece and streamed: each reads 413', async () => {
    const size = 100 * 1024 * 1024;
    expect(await nodeHttpPost(TOOL, size)).toBe('413 payload_too_large');
    expect(await nodeHttpPost(TOOL, size, { stream: true })).toBe('413 payload_too_large');
  });

  it('uploads over FILE_MAX_BYTES: 8 MB and 100 MB read 413', async () => {
    const path = `/api/v1/orgs/${orgA}/files?name=big.bin`;
    const outcomes: string[] = [];
    for (let index = 0; index < 5; index++) outcomes.push(await nodeHttpPost(path, 8 * 1024 * 1024));
    outcomes.push(await nodeHttpPost(path, 100 * 1024 * 1024, { stream: true }));
    expect(outcomes).toEqual(Array(6).fill('413 payload_too_large'));
  });

  it('a request with 100 KB of headers and an 8 MB body reads 431', async () => {
    const outcome = await nodeHttpPost(TOOL, 8 * 1024 * 1024, {
      headers: { 'x-padding': 'a'.repeat(100 * 1024) },
    });
    expect(outcome).toBe('431');
  });
});
