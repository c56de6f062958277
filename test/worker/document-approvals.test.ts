// Document approvals on the Worker: the owner's own approval refused by default, and a rejection with a comment that
// sends the version back to draft, the comment kept in the history (libSQL over HTTP, one batch per decision).
import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema.ts';
import { BASE } from '../contract/host.ts';
import { testDatabase, world } from './helpers.ts';

type Row = Record<string, unknown>;

async function call(tool: string, args: Row): Promise<{ status: number; body: Row }> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return { status: response.status, body: (await response.json()) as Row };
}

/** Alice's person in the organization (the shared database may hold it already: emails are unique per organization). */
async function alicePerson(org: string): Promise<string> {
  const [alice] = await testDatabase()
    .db.select({ email: users.email })
    .from(users)
    .where(eq(users.id, world.aliceUserId));
  const added = await call('addPerson', {
    organization_id: org,
    full_name: `Approver ${crypto.randomUUID()}`,
    email: alice?.email,
  });
  if (added.status === 200) return String((added.body.person as Row).id);
  const listed = await call('listPeople', { organization_id: org, filter: { query: alice?.email } });
  return String((listed.body.people as Row[]).find((row) => row.email === alice?.email)?.id);
}

describe('document approvals on the Worker', () => {
  it("refuses the owner's own approval, and rejects with a comment back to draft", async () => {
    const org = world.orgIsolation;
    const person = await alicePerson(org);
    expect(person).toMatch(/^per_/);
    const added = await call('addDocument', {
      organization_id: org,
      title: `Remote work policy ${crypto.randomUUID()}`,
      content: 'Work from anywhere, securely.',
      status: 'IN_REVIEW',
      owner_id: person,
      approver_ids: [person],
    });
    expect(added.status).toBe(200);
    const id = String((added.body.document as Row).id);

    const own = await call('approveDocument', { id });
    expect(own.status).toBe(403);
    expect((own.body.error as Row).message).toContain('setting allow_document_self_approval');

    const rejected = await call('rejectDocument', { id, comment: 'Name the VPN requirement.' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.document).toMatchObject({ status: 'DRAFT', version: 1 });
    expect(rejected.body.version).toMatchObject({ number: 1, status: 'DRAFT' });
    const history = await call('listChanges', { organization_id: org, filter: { record_id: id } });
    expect((history.body.changes as Row[])[0]).toMatchObject({
      tool: 'rejectDocument',
      surface: 'direct',
      after: {
        status: 'DRAFT',
        rejected_by_id: person,
        rejected_version: 1,
        comment: 'Name the VPN requirement.',
      },
    });
  });
});
