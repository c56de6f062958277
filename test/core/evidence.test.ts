// Evidence: links and files attached to records; immutable once stored, superseded by newer items, never reached
// from another organization (the same answers as a missing record), files downloaded only through signed links.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import {
  BASE,
  callDirect,
  createTestRuntime,
  createWorld,
  errorOf,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let world: World;
let measureA: string;
let riskA: string;
let measureB: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
  measureA = await addRecord(world.aliceToken, 'addMeasure', { organization_id: world.orgA, name: 'MFA' });
  riskA = await addRecord(world.aliceToken, 'addRisk', {
    organization_id: world.orgA,
    name: 'Phishing',
    inherent_likelihood: 3,
    inherent_impact: 4,
  });
  measureB = await addRecord(world.bobToken, 'addMeasure', { organization_id: world.orgB, name: 'MFA' });
});

afterAll(async () => {
  await runtime.cleanup();
});

async function addRecord(token: string, tool: string, args: Row): Promise<string> {
  const body = await ok(runtime, token, tool, args);
  return String((Object.values(body)[0] as Row).id);
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function addEvidence(args: Row, token = world.aliceToken): Promise<Row> {
  const body = await ok(runtime, token, 'addEvidence', {
    organization_id: world.orgA,
    title: 'Evidence',
    ...args,
  });
  return body.evidence as Row;
}

/** An error answer with an id it names replaced, to compare the answers about two ids. */
function withoutId(error: unknown, id: string): unknown {
  return JSON.parse(JSON.stringify(error).replaceAll(id, '<id>'));
}

async function download(url: string): Promise<Response> {
  return runtime.app.fetch(new Request(new URL(url, BASE)));
}

describe('evidence links', () => {
  it('adds a link for several records of different kinds, each of which lists it', async () => {
    const item = await addEvidence({
      title: 'MFA settings screenshot',
      url: 'https://intranet.example.com/mfa.png',
      record_ids: [measureA, riskA],
      valid_until: '2099-01-31',
    });
    expect(item).toMatchObject({
      kind: 'LINK',
      url: 'https://intranet.example.com/mfa.png',
      file_id: null,
      sha256: null,
      collected_on: new Date().toISOString().slice(0, 10),
      valid_until: '2099-01-31',
      expired: false,
      superseded_by: null,
      record_ids: [measureA, riskA].sort(),
    });
    const measure = await ok(runtime, world.aliceToken, 'getMeasure', { id: measureA });
    expect((measure.measure as Row).evidence_ids).toContain(item.id);
    const risk = await ok(runtime, world.aliceToken, 'getRisk', { id: riskA });
    expect((risk.risk as Row).evidence_ids).toContain(item.id);
    const got = await ok(runtime, world.aliceToken, 'getEvidence', { id: item.id });
    expect(got.download_url).toBeNull();
    expect(got.text).toBeUndefined();
  });

  it('refuses a url that is not http(s), and an item with neither or both of url and file', async () => {
    const call = (args: Row) =>
      callDirect(runtime, world.aliceToken, 'addEvidence', {
        organization_id: world.orgA,
        title: 'x',
        ...args,
      });
    expect(errorOf(await call({ url: 'javascript:alert(1)' })).code).toBe('invalid_arguments');
    expect(errorOf(await call({ url: 'file:///etc/passwd' })).code).toBe('invalid_arguments');
    expect(errorOf(await call({})).message).toBe('Give a url (LINK) or a file (FILE), not both.');
    const both = await call({
      url: 'https://example.com/a',
      content_base64: base64('hello'),
      file_name: 'a.txt',
    });
    expect(errorOf(both).message).toBe('Give one of url, file_id or content_base64.');
    expect(errorOf(await call({ content_base64: base64('hello') })).message).toBe(
      'An inline file needs both content_base64 and file_name.',
    );
  });
});

describe('evidence files', () => {
  it('stores a small inline file: facts from the bytes, text and a signed attachment download from getEvidence', async () => {
    const text = 'MFA enforced for all 42 accounts.\n';
    const item = await addEvidence({
      title: 'MFA report',
      content_base64: base64(text),
      file_name: '../MFA report.txt',
      record_ids: [measureA],
    });
    expect(item).toMatchObject({
      kind: 'FILE',
      url: null,
      size: Buffer.byteLength(text),
      sha256: sha256(text),
    });
    expect(String(item.file_id)).toMatch(/^fil_/);
    expect(String(item.content_type)).toMatch(/^text\/plain/);
    expect(String(item.file_name)).not.toContain('/');
    const got = await ok(runtime, world.aliceToken, 'getEvidence', { id: item.id });
    expect(got.text).toBe(text);
    expect(String(got.download_expires_at) > new Date().toISOString()).toBe(true);
    const response = await download(String(got.download_url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(text);
  });

  it('takes a file_id from the upload route, of its own organization only (another one is a missing file)', async () => {
    const upload = (org: string, token: string) =>
      runtime.app.fetch(
        new Request(`${BASE}/api/v1/orgs/${org}/files?name=policy.pdf`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
          body: '%PDF-1.7\n%fake\n',
        }),
      );
    const mine = (await (await upload(world.orgA, world.aliceToken)).json()) as { file: Row };
    const theirs = (await (await upload(world.orgB, world.bobToken)).json()) as { file: Row };
    const item = await addEvidence({ title: 'Policy', file_id: mine.file.id });
    expect(item).toMatchObject({ kind: 'FILE', file_id: mine.file.id, content_type: 'application/pdf' });
    const got = await ok(runtime, world.aliceToken, 'getEvidence', { id: item.id });
    expect(got.text).toBeUndefined();
    const call = (fileId: string) =>
      callDirect(runtime, world.aliceToken, 'addEvidence', {
        organization_id: world.orgA,
        title: 'x',
        file_id: fileId,
      });
    const crossed = errorOf(await call(String(theirs.file.id)));
    const missing = errorOf(await call(newId('fil')));
    expect(crossed).toEqual(missing);
    expect(crossed.code).toBe('not_found');
  });
});

describe('immutability', () => {
  it('changes title, description, dates and links, with history rows, but never the url or the file', async () => {
    const item = await addEvidence({ url: 'https://example.com/v1', title: 'Pen test 2026' });
    const updated = await ok(runtime, world.aliceToken, 'updateEvidence', {
      id: item.id,
      title: 'Penetration test 2026',
      valid_until: '2027-06-30',
      record_ids: [measureA],
    });
    expect(updated.evidence).toMatchObject({
      title: 'Penetration test 2026',
      valid_until: '2027-06-30',
      url: 'https://example.com/v1',
      record_ids: [measureA],
    });
    for (const field of ['url', 'file_id', 'content_base64']) {
      const refused = await callDirect(runtime, world.aliceToken, 'updateEvidence', {
        id: item.id,
        [field]: field === 'url' ? 'https://example.com/v2' : newId('fil'),
      });
      expect(errorOf(refused).code, field).toBe('invalid_arguments');
    }
    const changes = await ok(runtime, world.aliceToken, 'listChanges', {
      organization_id: world.orgA,
      filter: { record_id: item.id },
    });
    const actions = (changes.changes as Row[]).map((change) => change.action).sort();
    expect(actions).toEqual(['add', 'update']);
  });

  it('a newer item supersedes an older one, and no item supersedes itself or a newer one', async () => {
    const old = await addEvidence({ url: 'https://example.com/2025' });
    const next = await addEvidence({ url: 'https://example.com/2026', supersedes_id: old.id });
    const got = await ok(runtime, world.aliceToken, 'getEvidence', { id: old.id });
    expect((got.evidence as Row).superseded_by).toBe(next.id);
    for (const [id, supersedes] of [
      [old.id, old.id],
      [old.id, next.id],
    ]) {
      const refused = await callDirect(runtime, world.aliceToken, 'updateEvidence', {
        id,
        supersedes_id: supersedes,
      });
      expect(errorOf(refused).message).toBe('An evidence item cannot supersede itself or a newer item.');
    }
    await ok(runtime, world.aliceToken, 'deleteEvidence', { id: next.id });
    const after = await ok(runtime, world.aliceToken, 'getEvidence', { id: old.id });
    expect((after.evidence as Row).superseded_by).toBeNull();
  });
});

describe('isolation', () => {
  it("another organization cannot list, get, update, delete, link to or supersede A's evidence: answers as missing", async () => {
    const item = await addEvidence({
      content_base64: base64('secret'),
      file_name: 'secret.txt',
      record_ids: [measureA],
    });
    const missing = newId('evd');
    for (const tool of ['getEvidence', 'deleteEvidence']) {
      const crossed = await callDirect(runtime, world.bobToken, tool, { id: item.id });
      const absent = await callDirect(runtime, world.bobToken, tool, { id: missing });
      expect(crossed.status, tool).toBe(404);
      expect(errorOf(crossed), tool).toEqual(errorOf(absent));
    }
    const update = await callDirect(runtime, world.bobToken, 'updateEvidence', { id: item.id, title: 'x' });
    expect(errorOf(update)).toEqual(
      errorOf(await callDirect(runtime, world.bobToken, 'updateEvidence', { id: missing, title: 'x' })),
    );
    const listed = await callDirect(runtime, world.bobToken, 'listEvidence', { organization_id: world.orgA });
    expect(errorOf(listed).code).toBe('not_found');
    const own = await ok(runtime, world.bobToken, 'listEvidence', {
      organization_id: world.orgB,
      filter: { record_id: measureA },
    });
    expect(own.evidence).toEqual([]);
    // Bob's evidence cannot point at Alice's measure, nor supersede Alice's item.
    const add = (args: Row) =>
      callDirect(runtime, world.bobToken, 'addEvidence', {
        organization_id: world.orgB,
        title: 'x',
        url: 'https://example.com/x',
        ...args,
      });
    const otherMeasure = newId('msr');
    expect(withoutId(errorOf(await add({ record_ids: [measureA] })), measureA)).toEqual(
      withoutId(errorOf(await add({ record_ids: [otherMeasure] })), otherMeasure),
    );
    expect(withoutId(errorOf(await add({ supersedes_id: item.id })), String(item.id))).toEqual(
      withoutId(errorOf(await add({ supersedes_id: missing })), missing),
    );
    await ok(runtime, world.bobToken, 'addEvidence', {
      organization_id: world.orgB,
      title: 'own',
      url: 'https://example.com/own',
      record_ids: [measureB],
    });
    // A download link names its organization: changing it to Bob's breaks the signature (404, as an expired one).
    const got = await ok(runtime, world.aliceToken, 'getEvidence', { id: item.id });
    const url = String(got.download_url);
    const crossedLink = url.replace(world.orgA, world.orgB);
    expect((await download(crossedLink)).status).toBe(404);
    expect((await download(url)).status).toBe(200);
  });

  it('a read-only token reads evidence but cannot add it', async () => {
    const item = await addEvidence({ url: 'https://example.com/read' });
    await ok(runtime, world.aliceReadToken, 'getEvidence', { id: item.id });
    const refused = await callDirect(runtime, world.aliceReadToken, 'addEvidence', {
      organization_id: world.orgA,
      title: 'x',
      url: 'https://example.com/x',
    });
    expect(errorOf(refused).code).toBe('insufficient_scope');
  });
});
