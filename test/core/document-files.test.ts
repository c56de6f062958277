// A document version's attached file: given inline or by an upload's file_id, replaced and removed on a draft, never
// changed on an approved or published version (an edit starts the next draft, which inherits it), read with its facts
// and a signed link bound to the version, kept by upkeep, and never one of another organization.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFiles } from '../../src/db/schema.ts';
import { fileUpkeep } from '../../src/files/upkeep.ts';
import { newId } from '../../src/ids.ts';
import {
  type Actor,
  BASE,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-02-01T09:00:00.000Z');
let alice: Actor;
let org: string;
let otherOrg: string;
let aliceToken: string;
let bobToken: string;
let approver: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Files Org');
  otherOrg = await createOrg(runtime, bob, 'Other Org');
  aliceToken = await createToken(runtime, alice);
  bobToken = await createToken(runtime, bob);
  const person = await ok(runtime, aliceToken, 'addPerson', {
    organization_id: org,
    full_name: 'Alice Approver',
    email: alice.email,
  });
  approver = String((person.person as Row).id);
});

afterAll(async () => {
  await runtime?.cleanup();
});

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

async function upload(orgId: string, token: string, name: string, text: string): Promise<Row> {
  const response = await runtime.app.fetch(
    new Request(`${BASE}/api/v1/orgs/${orgId}/files?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: text,
    }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: Row }).file;
}

async function download(url: unknown): Promise<{ status: number; bytes: Uint8Array }> {
  const response = await runtime.app.fetch(new Request(new URL(String(url), BASE)));
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function addDocument(values: Row): Promise<Row> {
  const body = await ok(runtime, aliceToken, 'addDocument', {
    organization_id: org,
    title: 'Backup policy',
    approver_ids: [approver],
    ...values,
  });
  return body.document as Row;
}

const update = async (id: unknown, values: Row) =>
  (await ok(runtime, aliceToken, 'updateDocument', { id, ...values })).document as Row;
const get = (id: unknown) => ok(runtime, aliceToken, 'getDocument', { id });
const versions = async (id: unknown) =>
  (await ok(runtime, aliceToken, 'listDocumentVersions', { document_id: id })).versions as Row[];

/** Approves and publishes the document's latest version at `iso`. */
async function publishAt(id: unknown, iso: string) {
  clock = new Date(iso);
  await update(id, { status: 'IN_REVIEW' });
  await ok(runtime, aliceToken, 'approveDocument', { id });
  await update(id, { status: 'PUBLISHED' });
}

describe('a draft version carries a file', () => {
  it('takes an inline file beside the Markdown: its facts, and a link that gives the same bytes', async () => {
    const text = 'Backups run nightly and are kept 35 days.\n';
    const document = await addDocument({
      content: '# Backups',
      content_base64: base64(text),
      file_name: 'backup-policy.txt',
    });
    expect(document).toMatchObject({
      version: 1,
      status: 'DRAFT',
      content: '# Backups',
      file_name: 'backup-policy.txt',
      size: Buffer.byteLength(text),
      sha256: sha256(text),
    });
    expect(String(document.file_id)).toMatch(/^fil_/);
    expect(String(document.content_type)).toMatch(/^text\/plain/);
    const got = await get(document.id);
    const [version] = await versions(document.id);
    expect(version).toMatchObject({
      number: 1,
      file_id: document.file_id,
      file_name: 'backup-policy.txt',
      size: Buffer.byteLength(text),
      sha256: sha256(text),
    });
    // The link is bound to the version: its id is the link's subject.
    expect(String(got.download_url)).toContain(`.${String(version?.id)}.`);
    expect(String(got.download_expires_at) > clock.toISOString()).toBe(true);
    const file = await download(got.download_url);
    expect(file.status).toBe(200);
    expect(new TextDecoder().decode(file.bytes)).toBe(text);
    expect(sha256(file.bytes)).toBe(sha256(text));
  });

  it('takes an uploaded file_id, replaces it and removes it on the same draft, with history rows', async () => {
    const first = await upload(org, aliceToken, 'plan v1.pdf', '%PDF-1.7\n%first\n');
    const second = await upload(org, aliceToken, 'plan v2.pdf', '%PDF-1.7\n%second draft\n');
    const document = await addDocument({ title: 'Continuity plan', file_id: first.id });
    expect(document).toMatchObject({ file_id: first.id, content: null, content_type: 'application/pdf' });
    const oldLink = (await get(document.id)).download_url;
    expect((await download(oldLink)).status).toBe(200);

    const replaced = await update(document.id, { file_id: second.id });
    expect(replaced).toMatchObject({ version: 1, file_id: second.id, file_name: 'plan v2.pdf', size: 23 });
    // The version no longer holds the first file: its link stops working.
    expect((await download(oldLink)).status).toBe(404);
    const secondBytes = await download((await get(document.id)).download_url);
    expect(new TextDecoder().decode(secondBytes.bytes)).toBe('%PDF-1.7\n%second draft\n');

    // null means "not given" for every argument; clear removes the file.
    expect(await update(document.id, { file_id: null })).toMatchObject({ file_id: second.id });
    const removed = await update(document.id, { clear: ['file_id'] });
    expect(removed).toMatchObject({ version: 1, file_id: null, file_name: null, size: null, sha256: null });
    expect(await get(document.id)).toMatchObject({ download_url: null, download_expires_at: null });
    expect((await versions(document.id))[0]).toMatchObject({ number: 1, file_id: null, file_name: null });

    const changes = (
      await ok(runtime, aliceToken, 'listChanges', {
        organization_id: org,
        filter: { record_id: document.id },
      })
    ).changes as Row[];
    const fileChanges = changes
      .filter((change) => change.action === 'update')
      .map((change) => [(change.before as Row).file_id, (change.after as Row).file_id])
      .reverse();
    expect(fileChanges).toEqual([
      [first.id, second.id],
      [second.id, null],
    ]);
  });

  it('refuses an inline file together with a file_id, or without its name', async () => {
    const document = await addDocument({ title: 'Refusals' });
    const both = await callDirect(runtime, aliceToken, 'updateDocument', {
      id: document.id,
      file_id: newId('fil'),
      content_base64: base64('x'),
      file_name: 'x.txt',
    });
    expect(errorOf(both).code).toBe('invalid_arguments');
    const nameless = await callDirect(runtime, aliceToken, 'updateDocument', {
      id: document.id,
      content_base64: base64('x'),
    });
    expect(errorOf(nameless).code).toBe('invalid_arguments');
    expect((await get(document.id)).document).toMatchObject({ file_id: null });
  });
});

describe('approved and published versions', () => {
  it("never change their file: an edit starts the next draft, which inherits the file unless replaced; the version in force on a date has that version's file", async () => {
    clock = new Date('2026-03-01T09:00:00.000Z');
    const v1Text = 'Incident response v1\n';
    const v2Text = 'Incident response v2, with the new on-call rota\n';
    const document = await addDocument({
      title: 'Incident response plan',
      content: 'Summary v1',
      content_base64: base64(v1Text),
      file_name: 'irp.txt',
    });
    const v1File = document.file_id;
    await publishAt(document.id, '2026-03-02T09:00:00.000Z');

    // A content edit of the published version: version 2, a draft, with version 1's file.
    clock = new Date('2026-03-05T09:00:00.000Z');
    const draft = await update(document.id, { content: 'Summary v2' });
    expect(draft).toMatchObject({ version: 2, status: 'DRAFT', published_version: 1, file_id: v1File });

    // A new file on the draft changes version 2 only.
    const replaced = await update(document.id, { content_base64: base64(v2Text), file_name: 'irp-v2.txt' });
    expect(replaced).toMatchObject({ version: 2, file_name: 'irp-v2.txt', sha256: sha256(v2Text) });
    const listed = await versions(document.id);
    expect(listed.map((version) => [version.number, version.status, version.file_name])).toEqual([
      [2, 'DRAFT', 'irp-v2.txt'],
      [1, 'PUBLISHED', 'irp.txt'],
    ]);
    await publishAt(document.id, '2026-03-10T09:00:00.000Z');

    // A file change alone on the published version 2 starts version 3, refused together with a status change.
    clock = new Date('2026-03-12T09:00:00.000Z');
    const mixed = await callDirect(runtime, aliceToken, 'updateDocument', {
      id: document.id,
      clear: ['file_id'],
      status: 'RETIRED',
    });
    expect(errorOf(mixed).code).toBe('invalid_transition');
    const third = await update(document.id, { clear: ['file_id'] });
    expect(third).toMatchObject({ version: 3, status: 'DRAFT', published_version: 2, file_id: null });
    expect((await versions(document.id)).map((version) => [version.number, version.file_name])).toEqual([
      [3, null],
      [2, 'irp-v2.txt'],
      [1, 'irp.txt'],
    ]);

    const inForce = async (on: string) =>
      ok(runtime, aliceToken, 'getDocumentInForce', { document_id: document.id, on });
    const march3 = await inForce('2026-03-03');
    expect(march3.version).toMatchObject({ number: 1, file_id: v1File, sha256: sha256(v1Text) });
    expect(new TextDecoder().decode((await download(march3.download_url)).bytes)).toBe(v1Text);
    const march11 = await inForce('2026-03-11');
    expect(march11.version).toMatchObject({ number: 2, file_name: 'irp-v2.txt' });
    const bytes = (await download(march11.download_url)).bytes;
    expect(sha256(bytes)).toBe(sha256(v2Text));
    expect(await inForce('2026-02-01')).toEqual({
      version: null,
      download_url: null,
      download_expires_at: null,
      // A generated document's JSON copy (src/tools/controlled-outputs.ts); none here.
      data_download_url: null,
    });
  });
});

describe('retired documents', () => {
  it('refuse a new file like new content', async () => {
    const document = await addDocument({ title: 'Old policy', content: 'Text.' });
    await publishAt(document.id, '2026-03-20T09:00:00.000Z');
    await update(document.id, { status: 'RETIRED' });
    const refused = errorOf(
      await callDirect(runtime, aliceToken, 'updateDocument', {
        id: document.id,
        content_base64: base64('late\n'),
        file_name: 'late.txt',
      }),
    );
    expect(refused.code).toBe('invalid_transition');
    expect(refused.message).toBe('A RETIRED document cannot change its file. Add a new document instead.');
    expect((await get(document.id)).document).toMatchObject({ status: 'RETIRED', file_id: null });
  });
});

describe('organizations and upkeep', () => {
  it("answers another organization's file exactly like a missing one, on add and update", async () => {
    clock = new Date('2026-04-01T09:00:00.000Z');
    const theirs = await upload(otherOrg, bobToken, 'secret.pdf', '%PDF-1.7\n%theirs\n');
    const document = await addDocument({ title: 'Vendor policy' });
    const attempt = async (tool: string, fileId: unknown) =>
      errorOf(
        await callDirect(
          runtime,
          aliceToken,
          tool,
          tool === 'addDocument'
            ? { organization_id: org, title: 'x', file_id: fileId }
            : { id: document.id, file_id: fileId },
        ),
      );
    for (const tool of ['addDocument', 'updateDocument']) {
      const missingId = newId('fil');
      const crossed = await attempt(tool, theirs.id);
      const missing = await attempt(tool, missingId);
      expect(JSON.parse(JSON.stringify(crossed).replaceAll(String(theirs.id), '<id>'))).toEqual(
        JSON.parse(JSON.stringify(missing).replaceAll(missingId, '<id>')),
      );
      expect(crossed.code).toBe('not_found');
    }
    expect((await get(document.id)).document).toMatchObject({ file_id: null });
  });

  it('keeps a file only a document version points at, and removes an upload nothing kept', async () => {
    clock = new Date('2026-05-01T09:00:00.000Z');
    const kept = await upload(org, aliceToken, 'kept.txt', 'kept by a version\n');
    const dropped = await upload(org, aliceToken, 'dropped.txt', 'kept by nothing\n');
    const document = await addDocument({ title: 'Kept', file_id: kept.id });
    // Version 2 (a draft) no longer has the file; version 1 (published) still does.
    await publishAt(document.id, '2026-05-01T10:00:00.000Z');
    await update(document.id, { clear: ['file_id'] });
    const later = new Date('2026-05-03T09:00:00.000Z');
    await fileUpkeep(runtime.database.db, runtime.files.store, later);
    const rows = await runtime.database.db.select({ id: storedFiles.id }).from(storedFiles);
    const ids = rows.map((row) => row.id);
    expect(ids).toContain(kept.id);
    expect(ids).not.toContain(dropped.id);
  });
});
