// A document version's file on the Worker: stored in R2 inline or by upload, replaced on a draft, kept by the
// published version when the next draft takes another, downloaded through the version's signed link with the same
// bytes, and another organization's file answered as missing.
import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema.ts';
import { BASE } from '../contract/host.ts';
import { testDatabase, world } from './helpers.ts';

type Row = Record<string, unknown>;

async function hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const encode = (text: string) => new TextEncoder().encode(text);

async function call(tool: string, args: Row, token = world.tokens.alice): Promise<Row> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return (await response.json()) as Row;
}

async function upload(org: string, token: string, bytes: Uint8Array, name: string): Promise<Row> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/v1/orgs/${org}/files?name=${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: bytes,
    }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: Row }).file;
}

async function download(url: unknown): Promise<{ status: number; bytes: Uint8Array }> {
  const response = await exports.default.fetch(new Request(new URL(String(url), BASE)));
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) };
}

describe('document files on the Worker (R2)', () => {
  it('stores, replaces, keeps per version and serves the file of a document version', async () => {
    const org = world.orgIsolation;
    const [alice] = await testDatabase()
      .db.select({ email: users.email })
      .from(users)
      .where(eq(users.id, world.aliceUserId));
    // The approver is Alice's person; the shared database may hold it already (emails are unique per organization).
    const addedPerson = (await call('addPerson', {
      organization_id: org,
      full_name: `Approver ${crypto.randomUUID()}`,
      email: alice?.email,
    })) as { person?: Row };
    const existing = addedPerson.person
      ? undefined
      : (
          (await call('listPeople', { organization_id: org, filter: { query: alice?.email } })) as {
            people: Row[];
          }
        ).people.find((row) => row.email === alice?.email);
    const person = { person: (addedPerson.person ?? existing) as Row };
    expect(person.person.id).toMatch(/^per_/);
    const first = encode('%PDF-1.7\nrecovery plan, first issue\n');
    const added = (await call('addDocument', {
      organization_id: org,
      title: 'Recovery plan',
      content: 'See the attached plan.',
      content_base64: base64(first),
      file_name: 'recovery.pdf',
      approver_ids: [person.person.id],
    })) as { document: Row };
    const id = added.document.id;
    expect(added.document).toMatchObject({
      version: 1,
      file_name: 'recovery.pdf',
      size: first.byteLength,
      content_type: 'application/pdf',
      sha256: await hex(first),
    });
    const link = (await call('getDocument', { id })).download_url;
    const served = await download(link);
    expect(served.status).toBe(200);
    expect(await hex(served.bytes)).toBe(await hex(first));

    // Replaced on the draft: the old link, bound to version 1 and the first file, stops working.
    const second = encode('%PDF-1.7\nrecovery plan, second issue, with the new site\n');
    const uploaded = await upload(org, world.tokens.alice, second, 'recovery-2.pdf');
    const replaced = (await call('updateDocument', { id, file_id: uploaded.id })) as { document: Row };
    expect(replaced.document).toMatchObject({ version: 1, file_id: uploaded.id, sha256: await hex(second) });
    expect((await download(link)).status).toBe(404);

    // Published, then a new draft with another file: version 1 keeps its file and is the one in force.
    for (const [tool, args] of [
      ['updateDocument', { id, status: 'IN_REVIEW' }],
      ['approveDocument', { id }],
      ['updateDocument', { id, status: 'PUBLISHED' }],
    ] as const)
      expect((await call(tool, args)).error).toBeUndefined();
    const third = encode('draft three\n');
    const draft = (await call('updateDocument', {
      id,
      content_base64: base64(third),
      file_name: 'recovery-3.txt',
    })) as { document: Row };
    expect(draft.document).toMatchObject({ version: 2, status: 'DRAFT', file_name: 'recovery-3.txt' });
    const versions = (await call('listDocumentVersions', { document_id: id })).versions as Row[];
    expect(versions.map((version) => [version.number, version.status, version.file_name])).toEqual([
      [2, 'DRAFT', 'recovery-3.txt'],
      [1, 'PUBLISHED', 'recovery-2.pdf'],
    ]);
    const today = new Date().toISOString().slice(0, 10);
    const inForce = await call('getDocumentInForce', { document_id: id, on: today });
    expect(inForce.version).toMatchObject({ number: 1, file_id: uploaded.id });
    expect(await hex((await download(inForce.download_url)).bytes)).toBe(await hex(second));

    // Bob's organization's file is a missing file here.
    const theirs = await upload(world.orgBob, world.tokens.bob, encode('theirs\n'), 'theirs.txt');
    const crossed = (await call('updateDocument', { id, file_id: theirs.id })) as { error: Row };
    expect(crossed.error).toMatchObject({ code: 'not_found' });
  });
});
