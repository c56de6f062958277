// Upload limits (src/files/upload-limits.ts) on every upload path of the Node host's app: the API upload route, a
// tool's inline file and the web evidence form. An organization's stored files stay within ORG_FILES_QUOTA_BYTES
// (payload_too_large naming the quota, the bytes used and the bytes asked), parallel uploads included; a token stores
// at most UPLOADS_PER_MINUTE files and UPLOAD_BYTES_PER_MINUTE bytes a minute (rate_limited with Retry-After). A
// refused file leaves no blob and no row; a size known in advance is refused before a byte of the body is read.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUploadRate } from '../../src/files/upload-limits.ts';
import {
  BASE,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, signUpWithToken, textOf, type WebClient } from '../web/web-client.ts';

const runtimes: TestRuntime[] = [];

afterAll(async () => {
  for (const runtime of runtimes) await runtime.cleanup();
});

async function runtimeWith(env: Record<string, string>): Promise<TestRuntime> {
  const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0', ...env } });
  runtimes.push(runtime);
  return runtime;
}

/** An organization of its own, with its owner's read_write token. */
async function freshOrganization(runtime: TestRuntime) {
  const owner = await createActor(runtime, 'owner');
  const organizationId = await createOrg(runtime, owner, 'Uploads');
  return { owner, organizationId, token: await createToken(runtime, owner) };
}

const bytesOf = (size: number) => new Uint8Array(size).map((_, index) => (index * 7) % 251);

/** A body that hands out its bytes only when pulled, counting them: 0 pulled = refused before reading. */
function countedBody(size: number) {
  const bytes = bytesOf(size);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= size) return controller.close();
        const chunk = bytes.subarray(pulled, Math.min(size, pulled + 16 * 1024));
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

/** POST /api/v1/orgs/<org>/files with a raw body, its length announced or not. */
async function upload(
  runtime: TestRuntime,
  organizationId: string,
  token: string,
  size: number,
  announce: boolean,
) {
  const body = countedBody(size);
  const response = await runtime.app.request(`${BASE}/api/v1/orgs/${organizationId}/files?name=scan.bin`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/octet-stream',
      ...(announce ? { 'content-length': String(size) } : {}),
    },
    body: body.stream,
    duplex: 'half',
  } as RequestInit);
  const json = (await response.json()) as {
    file?: { size: number };
    error?: { code: string; message: string; details?: Record<string, number> };
  };
  return {
    status: response.status,
    json,
    retryAfter: response.headers.get('retry-after'),
    pulled: body.pulled(),
  };
}

/** What an organization holds: stored files' rows and bytes, and the store's blobs (of every organization). */
async function storedOf(runtime: TestRuntime, organizationId: string) {
  const [row] = await runtime.database.db.all<{ files: number; bytes: number }>(
    sql`select count(*) as files, coalesce(sum(size), 0) as bytes from stored_files where organization_id = ${organizationId}`,
  );
  let blobs = 0;
  for await (const _ of runtime.files.store.list()) blobs++;
  return { files: Number(row?.files), bytes: Number(row?.bytes), blobs };
}

/** Waits out the last seconds of a wall-clock minute, so a test's uploads share one window of the upload rate. */
async function withinOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function addEvidenceArgs(organizationId: string, recordId: string, size: number) {
  return {
    organization_id: organizationId,
    title: 'Access review',
    record_ids: [recordId],
    content_base64: Buffer.from(bytesOf(size)).toString('base64'),
    file_name: 'review.bin',
  };
}

async function measureIn(runtime: TestRuntime, token: string, organizationId: string): Promise<string> {
  const added = await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: 'MFA' });
  return String((added.measure as { id: string }).id);
}

/** The web evidence form of a measure, posted with a file of `size` bytes. */
async function postEvidenceForm(client: WebClient, organizationId: string, measureId: string, size: number) {
  const csrf = csrfOf((await client.get(`/orgs/${organizationId}/measures/${measureId}`)).html);
  const body = new FormData();
  body.append('_csrf', csrf);
  body.append('record_id', measureId);
  body.append('title', 'Access review');
  body.append('file', new File([bytesOf(size)], 'review.bin'));
  return client.request(`/orgs/${organizationId}/evidence/attach`, {
    method: 'POST',
    body,
    headers: { origin: new URL(client.base).origin },
  });
}

describe('the organization quota (ORG_FILES_QUOTA_BYTES)', () => {
  const QUOTA = 100_000;
  let runtime: TestRuntime;

  beforeAll(async () => {
    runtime = await runtimeWith({
      ORG_FILES_QUOTA_BYTES: String(QUOTA),
      FILE_MAX_BYTES: '200000',
      UPLOADS_PER_MINUTE: '0',
      UPLOAD_BYTES_PER_MINUTE: '0',
    });
  });

  it('refuses an upload announced past it before reading a byte, naming the quota, used and requested bytes', async () => {
    const { organizationId, token } = await freshOrganization(runtime);
    const first = await upload(runtime, organizationId, token, 60_000, true);
    expect([first.status, first.json.file?.size]).toEqual([201, 60_000]);
    const before = await storedOf(runtime, organizationId);
    const refused = await upload(runtime, organizationId, token, 50_000, true);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toEqual({
      code: 'payload_too_large',
      message:
        "This organization's stored files may take 100000 bytes (ORG_FILES_QUOTA_BYTES): 60000 are taken and " +
        'this file needs 50000. Remove files it no longer needs (evidence, document versions) or ask the operator ' +
        'for a larger quota.',
      details: { quota_bytes: QUOTA, used_bytes: 60_000, requested_bytes: 50_000 },
    });
    expect(refused.pulled).toBe(0);
    expect(await storedOf(runtime, organizationId)).toEqual(before);
    // What still fits is taken.
    expect((await upload(runtime, organizationId, token, 40_000, true)).status).toBe(201);
  });

  it('cuts a body of unannounced length where it passes the quota, and keeps nothing of it', async () => {
    const { organizationId, token } = await freshOrganization(runtime);
    expect((await upload(runtime, organizationId, token, 70_000, false)).status).toBe(201);
    const before = await storedOf(runtime, organizationId);
    const refused = await upload(runtime, organizationId, token, 50_000, false);
    expect(refused.status).toBe(413);
    expect(refused.json.error?.code).toBe('payload_too_large');
    expect(refused.json.error?.message).toMatch(/70000 are taken and this file needs at least \d+\./);
    expect(refused.json.error?.details).toMatchObject({ quota_bytes: QUOTA, used_bytes: 70_000 });
    expect(refused.json.error?.details?.requested_bytes).toBeGreaterThan(30_000);
    expect(await storedOf(runtime, organizationId)).toEqual(before);
  });

  it('lets eight parallel uploads that each fit alone store only what fits together', async () => {
    const { organizationId, token } = await freshOrganization(runtime);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        upload(runtime, organizationId, token, 30_000, index % 2 === 0),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 413, 413, 413, 413, 413]);
    const held = await storedOf(runtime, organizationId);
    expect([held.files, held.bytes]).toEqual([3, 90_000]);
  });

  it("holds for a tool's inline file and for the web evidence form, with a page a person can read", async () => {
    const { client, organizationId, token } = await signUpWithToken(runtime);
    const measureId = await measureIn(runtime, token, organizationId);
    expect((await postEvidenceForm(client, organizationId, measureId, 80_000)).status).toBe(303);
    const inline = await callDirect(
      runtime,
      token,
      'addEvidence',
      addEvidenceArgs(organizationId, measureId, 30_000),
    );
    expect(inline.status).toBe(413);
    expect(inline.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { quota_bytes: QUOTA, used_bytes: 80_000, requested_bytes: 30_000 },
    });
    const before = await storedOf(runtime, organizationId);
    const page = await postEvidenceForm(client, organizationId, measureId, 30_000);
    expect(page.status).toBe(413);
    expect(textOf(page.html)).toMatch(
      /stored files may take 100000 bytes \(ORG_FILES_QUOTA_BYTES\): 80000 are taken and this file needs at least \d+/,
    );
    expect(await storedOf(runtime, organizationId)).toEqual(before);
  });
});

describe('the upload rate of a token (UPLOADS_PER_MINUTE, UPLOAD_BYTES_PER_MINUTE)', () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    runtime = await runtimeWith({
      UPLOADS_PER_MINUTE: '3',
      UPLOAD_BYTES_PER_MINUTE: '100000',
      ORG_FILES_QUOTA_BYTES: '0',
    });
  });

  it('refuses the fourth file of a minute with 429 and Retry-After; another token of the organization still uploads', async () => {
    await withinOneMinute();
    const { owner, organizationId, token } = await freshOrganization(runtime);
    const firstThree = [];
    for (let index = 0; index < 3; index++)
      firstThree.push(await upload(runtime, organizationId, token, 1000, true));
    expect(firstThree.map((answer) => answer.status)).toEqual([201, 201, 201]);
    const refused = await upload(runtime, organizationId, token, 1000, true);
    expect(refused.status).toBe(429);
    expect(refused.json.error?.code).toBe('rate_limited');
    expect(refused.json.error?.message).toMatch(
      /^This token has stored 3 files this minute \(UPLOADS_PER_MINUTE\); retry in \d+ s\.$/,
    );
    const wait = Number(refused.retryAfter);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused.json.error?.details).toEqual({ retry_after_seconds: wait });
    expect(refused.pulled).toBe(0);
    const second = await createToken(runtime, owner);
    expect((await upload(runtime, organizationId, second, 1000, true)).status).toBe(201);
  });

  it('refuses bytes past the minute: before reading when announced, cut and kept nowhere when streamed', async () => {
    await withinOneMinute();
    const { organizationId, token } = await freshOrganization(runtime);
    expect((await upload(runtime, organizationId, token, 60_000, true)).status).toBe(201);
    const before = await storedOf(runtime, organizationId);
    const announced = await upload(runtime, organizationId, token, 50_000, true);
    expect(announced.status).toBe(429);
    expect(announced.json.error?.message).toMatch(
      /^This token may store 100000 bytes a minute \(UPLOAD_BYTES_PER_MINUTE\): 60000 are taken this minute and this file needs 50000; retry in \d+ s\.$/,
    );
    expect(announced.pulled).toBe(0);
    const streamed = await upload(runtime, organizationId, token, 50_000, false);
    expect(streamed.status).toBe(429);
    expect(streamed.json.error?.code).toBe('rate_limited');
    expect(Number(streamed.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await storedOf(runtime, organizationId)).toEqual(before);
  });

  it("counts a tool's inline files and the web forms of a signed-in user, whose refusal page says when to retry", async () => {
    await withinOneMinute();
    const { client, organizationId, token } = await signUpWithToken(runtime);
    const measureId = await measureIn(runtime, token, organizationId);
    const inline = [];
    for (let index = 0; index < 4; index++)
      inline.push(
        await callDirect(runtime, token, 'addEvidence', addEvidenceArgs(organizationId, measureId, 100)),
      );
    expect(inline.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(inline[3]?.headers.get('retry-after')).toMatch(/^\d+$/);
    const pages = [];
    for (let index = 0; index < 4; index++)
      pages.push(await postEvidenceForm(client, organizationId, measureId, 100));
    expect(pages.map((page) => page.status)).toEqual([303, 303, 303, 429]);
    expect(Number(pages[3]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(textOf(pages[3]?.html ?? '')).toMatch(
      /This token has stored 3 files this minute \(UPLOADS_PER_MINUTE\); retry in \d+ s\./,
    );
  });
});

describe('createUploadRate', () => {
  it('starts every token afresh at the next minute, and counts files and bytes per token', () => {
    let now = Date.UTC(2026, 10, 20, 9, 0, 10);
    const rate = createUploadRate({ uploadsPerMinute: 2, uploadBytesPerMinute: 1000 }, () => now);
    rate.admit('a');
    rate.take('a', 600);
    rate.admit('a', 400);
    expect(() => rate.admit('a')).toThrow(/stored 2 files this minute \(UPLOADS_PER_MINUTE\); retry in 50 s/);
    expect(() => rate.take('a', 401)).toThrow(/UPLOAD_BYTES_PER_MINUTE/);
    rate.admit('b', 1000);
    now += 50_000;
    rate.admit('a', 1000);
    rate.take('a', 1000);
    expect(() => rate.take('a', 1)).toThrow(/retry in 60 s/);
  });

  it('lets everything through when both limits are 0', () => {
    const rate = createUploadRate({ uploadsPerMinute: 0, uploadBytesPerMinute: 0 });
    for (let index = 0; index < 1000; index++) {
      rate.admit('a', 1e9);
      rate.take('a', 1e9);
    }
    expect(() => rate.admit('a', 1e12)).not.toThrow();
  });
});
