// Evidence files on the Worker: the tools (direct and MCP) store files in the R2 binding (miniflare's local bucket),
// getEvidence's signed link serves the same bytes, and another organization reaches neither the items nor the files.
import { env, exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { storedFiles } from '../../src/db/schema.ts';
import { downloadLink } from '../../src/files/links.ts';
import { newId } from '../../src/ids.ts';
import { runtimeFor } from '../../src/worker.ts';
import { BASE, type ContractHost, callDirect, errorOf, mcpCallTool, ok } from '../contract/host.ts';
import { testDatabase, world } from './helpers.ts';

type Row = Record<string, unknown>;

const host: ContractHost = { fetch: (request) => exports.default.fetch(request), world };
const org = world.orgIsolation;

/** A 1x1 PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG = Uint8Array.from(atob(PNG_BASE64), (char) => char.charCodeAt(0));
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const base64Of = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

async function addEvidence(args: Row, token = world.tokens.alice, organizationId = org): Promise<Row> {
  const body = await ok(host, token, 'addEvidence', { organization_id: organizationId, ...args });
  return body.evidence as Row;
}

async function getEvidence(id: unknown, token = world.tokens.alice): Promise<Row> {
  return ok(host, token, 'getEvidence', { id });
}

/** The Worker's answer to a download link (a path or an absolute url). */
function download(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return exports.default.fetch(new Request(new URL(url, BASE), { headers }));
}

async function upload(organizationId: string, token: string, body: BodyInit, name: string): Promise<Row> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/v1/orgs/${organizationId}/files?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body,
    }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: Row }).file;
}

/** An error answer with an id it names replaced, to compare the answers about two ids. */
function withoutId(error: unknown, id: string): unknown {
  return JSON.parse(JSON.stringify(error).replaceAll(id, '<id>'));
}

describe('evidence files on the Worker (R2)', () => {
  it('an MCP tools/call stores an inline PNG; its signed link serves the same bytes as an attachment, ranges too', async () => {
    const measure = await ok(host, world.tokens.alice, 'addMeasure', {
      organization_id: org,
      name: 'MFA on the Worker',
    });
    const measureId = (measure.measure as Row).id;
    const result = await mcpCallTool(host, world.tokens.alice, 'addEvidence', {
      organization_id: org,
      title: 'MFA settings screenshot',
      content_base64: PNG_BASE64,
      file_name: 'mfa settings.png',
      record_ids: [measureId],
      valid_until: '2099-12-31',
    });
    expect(result.isError).toBeFalsy();
    const item = result.structuredContent.evidence as Row;
    expect(item).toMatchObject({
      kind: 'FILE',
      url: null,
      file_name: 'mfa settings.png',
      size: PNG.byteLength,
      content_type: 'image/png',
      sha256: await hex(PNG),
      record_ids: [measureId],
      expired: false,
    });
    expect(String(item.file_id)).toMatch(/^fil_[0-9a-z]{24}$/);
    // The bytes are in the R2 bucket under the random storage key of the file's row, not under its name.
    const [row] = await testDatabase()
      .db.select({ key: storedFiles.storage_key })
      .from(storedFiles)
      .where(eq(storedFiles.id, String(item.file_id)));
    expect(row?.key).toMatch(/^[0-9a-z]{2}\/[0-9a-z]{30}$/);
    const object = await env.FILES?.get(String(row?.key));
    expect([...new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0))]).toEqual([...PNG]);
    const got = await getEvidence(item.id);
    expect(got.text).toBeUndefined();
    expect(String(got.download_expires_at) > new Date().toISOString()).toBe(true);
    const url = String(got.download_url);
    expect(url).toContain(`/files/${item.file_id}.${item.id}.${org}.`);

    const response = await download(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="mfa settings.png"; filename*=UTF-8''mfa%20settings.png`,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes]).toEqual([...PNG]);
    expect(await hex(bytes)).toBe(item.sha256);

    const part = await download(url, { range: 'bytes=0-7' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-7/${PNG.byteLength}`);
    expect([...new Uint8Array(await part.arrayBuffer())]).toEqual(PNG_SIGNATURE);

    const owner = await ok(host, world.tokens.alice, 'getMeasure', { id: measureId });
    expect((owner.measure as Row).evidence_ids).toEqual([item.id]);
  });

  it('a text file inline comes back as text from getEvidence, and its download is the same text', async () => {
    const text = 'MFA enforced for all 42 accounts on 2026-09-30.\n';
    const item = await addEvidence({
      title: 'MFA report',
      content_base64: base64Of(text),
      file_name: 'mfa-report.txt',
    });
    expect(item).toMatchObject({
      kind: 'FILE',
      size: text.length,
      sha256: await hex(new TextEncoder().encode(text)),
    });
    expect(String(item.content_type)).toMatch(/^text\/plain/);
    const got = await getEvidence(item.id);
    expect(got.text).toBe(text);
    const response = await download(String(got.download_url));
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(text);
  });

  it('takes a file uploaded to the files route by its file_id, superseded by a newer file, then deleted', async () => {
    const first = new TextEncoder().encode('%PDF-1.7\npenetration test 2025\n');
    const stored = await upload(org, world.tokens.alice, first, 'pentest-2025.pdf');
    const old = await addEvidence({ title: 'Penetration test 2025', file_id: stored.id });
    expect(old).toMatchObject({
      kind: 'FILE',
      file_id: stored.id,
      file_name: 'pentest-2025.pdf',
      content_type: 'application/pdf',
      size: first.byteLength,
      sha256: stored.sha256,
      superseded_by: null,
    });
    expect(stored.sha256).toBe(await hex(first));
    const oldLink = String((await getEvidence(old.id)).download_url);
    expect([...new Uint8Array(await (await download(oldLink)).arrayBuffer())]).toEqual([...first]);

    const second = new TextEncoder().encode('%PDF-1.7\npenetration test 2026, retest included\n');
    const newer = await upload(org, world.tokens.alice, second, 'pentest-2026.pdf');
    const next = await addEvidence({
      title: 'Penetration test 2026',
      file_id: newer.id,
      supersedes_id: old.id,
    });
    expect(next).toMatchObject({ supersedes_id: old.id, sha256: await hex(second) });
    expect(((await getEvidence(old.id)).evidence as Row).superseded_by).toBe(next.id);
    const listed = await ok(host, world.tokens.alice, 'listEvidence', {
      organization_id: org,
      filter: { supersedes_id: old.id },
    });
    expect((listed.evidence as Row[]).map((row) => row.id)).toEqual([next.id]);
    const newLink = String((await getEvidence(next.id)).download_url);
    expect(await hex(new Uint8Array(await (await download(newLink)).arrayBuffer()))).toBe(newer.sha256);

    await ok(host, world.tokens.alice, 'deleteEvidence', { id: next.id });
    const gone = await callDirect(host, world.tokens.alice, 'getEvidence', { id: next.id });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).code).toBe('not_found');
    expect(((await getEvidence(old.id)).evidence as Row).superseded_by).toBeNull();
  });

  it("another organization's token cannot list or get the evidence, nor use its file_id: answers as missing", async () => {
    const item = await addEvidence({
      title: 'Signed DPA',
      content_base64: base64Of('signed by both parties'),
      file_name: 'dpa.txt',
    });
    const missing = newId('evd');
    for (const tool of ['getEvidence', 'deleteEvidence']) {
      const crossed = await callDirect(host, world.tokens.bob, tool, { id: item.id });
      const absent = await callDirect(host, world.tokens.bob, tool, { id: missing });
      expect(crossed.status, tool).toBe(404);
      expect(withoutId(errorOf(crossed), String(item.id)), tool).toEqual(withoutId(errorOf(absent), missing));
    }
    const listed = await callDirect(host, world.tokens.bob, 'listEvidence', { organization_id: org });
    expect(listed.status).toBe(404);
    expect(errorOf(listed).code).toBe('not_found');
    const own = await ok(host, world.tokens.bob, 'listEvidence', { organization_id: world.orgBob });
    expect((own.evidence as Row[]).map((row) => row.id)).not.toContain(item.id);

    const useFile = (fileId: string) =>
      callDirect(host, world.tokens.bob, 'addEvidence', {
        organization_id: world.orgBob,
        title: 'Borrowed',
        file_id: fileId,
      });
    const crossedFile = await useFile(String(item.file_id));
    const missingFile = await useFile(newId('fil'));
    expect(crossedFile.status).toBe(404);
    expect(errorOf(crossedFile)).toEqual(errorOf(missingFile));
    expect(errorOf(crossedFile).code).toBe('not_found');
    // Nothing was added to Bob's organization by the refused calls.
    const after = await ok(host, world.tokens.bob, 'listEvidence', {
      organization_id: world.orgBob,
      filter: { query: 'Borrowed' },
    });
    expect(after.evidence).toEqual([]);
  });

  it('a download link altered to another organization, or expired, answers the same 404', async () => {
    const item = await addEvidence({
      title: 'Backup restore log',
      content_base64: base64Of('restore of 2026-10-01 complete'),
      file_name: 'restore.txt',
    });
    const url = String((await getEvidence(item.id)).download_url);
    expect((await download(url)).status).toBe(200);

    const altered = await download(url.replace(org, world.orgBob));
    expect(altered.status).toBe(404);
    const linkAt = (now: number) =>
      downloadLink(
        { files: runtimeFor(env).files, now: () => new Date(now) },
        { organizationId: org, fileId: String(item.file_id), subjectId: String(item.id) },
      );
    // The same signer's link made now works; made an hour ago (10 minutes' validity), it has expired.
    expect((await download((await linkAt(Date.now())).url)).status).toBe(200);
    const expired = await download((await linkAt(Date.now() - 3_600_000)).url);
    expect(expired.status).toBe(404);
    expect(await expired.json()).toEqual(await altered.json());
    expect(altered.headers.get('content-disposition')).toBeNull();
  });
});
