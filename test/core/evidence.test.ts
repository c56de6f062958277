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

describe("a record's evidence, read from its links in order (FilterSpec.lead)", () => {
  it('pages through one record in both directions as the unfiltered list orders the same items, counting them', async () => {
    const measure = await addRecord(world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Pager',
    });
    const other = await addRecord(world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Other',
    });
    const mine: string[] = [];
    for (let index = 0; index < 7; index++) {
      const item = await addEvidence({
        title: `Paged ${index}`,
        url: `https://example.com/paged/${index}`,
        record_ids: index % 3 === 2 ? [other] : [measure],
      });
      if (index % 3 !== 2) mine.push(String(item.id));
    }
    // Linked afterwards by an update: its link is written after the item.
    const late = await addEvidence({ title: 'Paged late', url: 'https://example.com/paged/late' });
    await ok(runtime, world.aliceToken, 'updateEvidence', {
      id: late.id,
      record_ids: [measure],
    });
    mine.push(String(late.id));
    const all = (
      await ok(runtime, world.aliceToken, 'listEvidence', { organization_id: world.orgA, size: 100 })
    ).evidence as Row[];
    const expected = all.map((item) => String(item.id)).filter((id) => mine.includes(id));
    expect(expected).toHaveLength(mine.length);
    for (const direction of ['DESC', 'ASC'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const body = await ok(runtime, world.aliceToken, 'listEvidence', {
          organization_id: world.orgA,
          filter: { record_id: measure },
          order_by: { field: 'created_at', direction },
          size: 2,
          ...(cursor ? { cursor } : {}),
        });
        expect(body.total_count).toBe(mine.length);
        seen.push(...(body.evidence as Row[]).map((item) => String(item.id)));
        cursor = (body.next_cursor as string | null) ?? undefined;
        pages += 1;
      } while (cursor && pages < 10);
      expect(seen).toEqual(direction === 'DESC' ? expected : [...expected].reverse());
    }
    // With another filter the links still lead; the count tests each item too.
    const links = await ok(runtime, world.aliceToken, 'listEvidence', {
      organization_id: world.orgA,
      filter: { record_id: measure, kind: 'LINK', expired: false },
    });
    expect((links.evidence as Row[]).map((item) => item.id)).toEqual(expected);
    expect(links.total_count).toBe(mine.length);
    // Another organization's token reads nothing of it, by the same filter.
    const foreign = await callDirect(runtime, world.bobToken, 'listEvidence', {
      organization_id: world.orgB,
      filter: { record_id: measure },
    });
    expect(foreign.status).toBe(200);
    expect([(foreign.body as Row).evidence, (foreign.body as Row).total_count]).toEqual([[], 0]);
  });

  it("keeps a link's copy of its item's created_at whichever row is written first, and when the item's changes", async () => {
    const { client } = runtime.database;
    const id = newId('evd');
    const measure = await addRecord(world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Raw',
    });
    await client.execute({
      sql: 'insert into evidence_records (evidence_id, record_id, organization_id) values (?, ?, ?)',
      args: [id, measure, world.orgA],
    });
    const copy = async () =>
      (
        await client.execute({
          sql: 'select created_at from evidence_records where evidence_id = ?',
          args: [id],
        })
      ).rows[0]?.created_at;
    expect(await copy()).toBeNull();
    await client.execute({
      sql: `insert into evidence (id, organization_id, title, kind, url, collected_on, created_at, updated_at)
        values (?, ?, 'Raw', 'LINK', 'https://example.com/raw', '2026-01-01', '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000Z')`,
      args: [id, world.orgA],
    });
    expect(await copy()).toBe('2026-01-02T03:04:05.000Z');
    await client.execute({
      sql: "update evidence set created_at = '2026-02-03T00:00:00.000Z' where id = ?",
      args: [id],
    });
    expect(await copy()).toBe('2026-02-03T00:00:00.000Z');
    const second = await addRecord(world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Raw 2',
    });
    await client.execute({
      sql: 'insert into evidence_records (evidence_id, record_id, organization_id) values (?, ?, ?)',
      args: [id, second, world.orgA],
    });
    const both = await client.execute({
      sql: 'select created_at from evidence_records where evidence_id = ? order by record_id',
      args: [id],
    });
    expect(both.rows.map((row) => row.created_at)).toEqual([
      '2026-02-03T00:00:00.000Z',
      '2026-02-03T00:00:00.000Z',
    ]);
  });
});
