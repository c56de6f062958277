// Upload limits on the Worker (src/files/upload-limits.ts): an organization's files in R2 within ORG_FILES_QUOTA_BYTES
// (413 naming the quota, used and requested bytes; parallel uploads too, the row's insert counting over Hrana), and a
// token's uploads within UPLOADS_PER_MINUTE per isolate (429 with Retry-After), through the upload route and a tool's
// inline file; and the 413 JSON error of a body over MAX_BODY_BYTES on the MCP endpoint.
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts.ts';
import { type Env, runtimeFor } from '../../src/worker.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, fetchWith, newAliceToken, testDatabase, world } from './helpers.ts';

const database = testDatabase();
const bytesOf = (size: number) => new Uint8Array(size).map((_, index) => (index * 11) % 253);

afterEach(() => {
  // The other files use the runtime of the real bindings.
  runtimeFor(env);
});

/** The Worker entry with these settings over the real bindings. */
function fetchWithSettings(request: Request, settings: Partial<Env>): Promise<Response> {
  return fetchWith(request, { ...env, ...settings } as Env);
}

/** A new organization of Alice's and a new token of hers (its principal is read afresh, the organization in it). */
async function freshOrganization() {
  const organization = await createOrganization(database.db, new Date(), {
    name: `Worker uploads ${crypto.randomUUID()}`,
    ownerId: world.aliceUserId,
  });
  const { token } = await newAliceToken(cliTokenService(database));
  return { organizationId: organization.id, token };
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { file?: { size: number }; error?: { code: string; message: string; details?: unknown } };
}

async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Answer['body'],
  };
}

function upload(organizationId: string, token: string, size: number, settings: Partial<Env>) {
  return fetchWithSettings(
    new Request(`${BASE}/api/v1/orgs/${organizationId}/files?name=scan.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: bytesOf(size),
    }),
    settings,
  ).then(answerOf);
}

function addInlineEvidence(
  organizationId: string,
  token: string,
  recordId: string,
  size: number,
  settings: Partial<Env>,
) {
  return fetchWithSettings(
    new Request(`${BASE}/api/mcp/tools/addEvidence`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        organization_id: organizationId,
        title: 'Scan',
        record_ids: [recordId],
        content_base64: btoa(String.fromCharCode(...bytesOf(size))),
        file_name: 'scan.bin',
      }),
    }),
    settings,
  ).then(answerOf);
}

async function measureIn(organizationId: string, token: string, settings: Partial<Env>): Promise<string> {
  const response = await fetchWithSettings(
    new Request(`${BASE}/api/mcp/tools/addMeasure`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: organizationId, name: 'MFA' }),
    }),
    settings,
  );
  return ((await response.json()) as { measure: { id: string } }).measure.id;
}

async function storedOf(organizationId: string) {
  const [row] = await database.db.all<{ files: number; bytes: number }>(
    sql`select count(*) as files, coalesce(sum(size), 0) as bytes from stored_files where organization_id = ${organizationId}`,
  );
  return { files: Number(row?.files), bytes: Number(row?.bytes) };
}

describe('upload limits on the Worker', () => {
  const quota = { ORG_FILES_QUOTA_BYTES: '100000', UPLOADS_PER_MINUTE: '0', UPLOAD_BYTES_PER_MINUTE: '0' };

  it('refuses an upload past the organization quota with 413 naming quota, used and requested bytes', async () => {
    const { organizationId, token } = await freshOrganization();
    expect((await upload(organizationId, token, 60_000, quota)).status).toBe(201);
    const refused = await upload(organizationId, token, 50_000, quota);
    expect(refused.status).toBe(413);
    expect(refused.body.error).toMatchObject({
      code: 'payload_too_large',
      details: { quota_bytes: 100_000, used_bytes: 60_000, requested_bytes: 50_000 },
    });
    expect(refused.body.error?.message).toContain('ORG_FILES_QUOTA_BYTES');
    const measureId = await measureIn(organizationId, token, quota);
    const inline = await addInlineEvidence(organizationId, token, measureId, 50_000, quota);
    expect(inline.status).toBe(413);
    expect(inline.body.error).toMatchObject({ code: 'payload_too_large', details: { used_bytes: 60_000 } });
    expect(await storedOf(organizationId)).toEqual({ files: 1, bytes: 60_000 });
  });

  it('stores only what fits of six parallel uploads that each fit alone', async () => {
    const { organizationId, token } = await freshOrganization();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => upload(organizationId, token, 30_000, quota)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 413, 413, 413]);
    expect(await storedOf(organizationId)).toEqual({ files: 3, bytes: 90_000 });
  });

  it("refuses a token's third file of a minute with 429 and Retry-After, an inline file too", async () => {
    // One window of the rate: not in the last seconds of a wall-clock minute.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const rate = { ORG_FILES_QUOTA_BYTES: '0', UPLOADS_PER_MINUTE: '2', UPLOAD_BYTES_PER_MINUTE: '0' };
    const { organizationId, token } = await freshOrganization();
    const measureId = await measureIn(organizationId, token, rate);
    expect((await upload(organizationId, token, 1000, rate)).status).toBe(201);
    expect((await addInlineEvidence(organizationId, token, measureId, 100, rate)).status).toBe(200);
    for (const refused of [
      await upload(organizationId, token, 1000, rate),
      await addInlineEvidence(organizationId, token, measureId, 100, rate),
    ]) {
      expect(refused.status).toBe(429);
      expect(refused.body.error?.code).toBe('rate_limited');
      expect(refused.body.error?.message).toMatch(/stored 2 files this minute \(UPLOADS_PER_MINUTE\)/);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(refused.body.error?.details).toEqual({ retry_after_seconds: Number(refused.retryAfter) });
    }
    expect(await storedOf(organizationId)).toEqual({ files: 2, bytes: 1100 });
  });
});

describe('a body over MAX_BODY_BYTES on the MCP endpoint', () => {
  it('answers 413 with the JSON error, announced (8 MB) or streamed without a length (4 MB)', async () => {
    const { token } = await freshOrganization();
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const announced = await fetchWithSettings(
      new Request(`${BASE}/api/mcp/v1`, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(8 * 1024 * 1024) },
        body: new Uint8Array(8 * 1024 * 1024).fill(0x61),
      }),
      {},
    );
    const streamed = await fetchWithSettings(
      new Request(`${BASE}/api/mcp/v1`, {
        method: 'POST',
        headers,
        body: new Blob([new Uint8Array(4 * 1024 * 1024).fill(0x61)]).stream(),
        duplex: 'half',
      } as RequestInit),
      {},
    );
    for (const response of [announced, streamed]) {
      expect(response.status).toBe(413);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual({
        error: {
          code: 'payload_too_large',
          message: 'The body is larger than 1048576 bytes (MAX_BODY_BYTES); send a smaller request.',
        },
      });
    }
  });
});
