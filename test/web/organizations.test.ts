// Organizations in the web interface: isolation (404 across organizations), members and their rules, activity.
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/accounts.ts';
import { memberships } from '../../src/db/schema.ts';
import { callDirect, createTestRuntime, ok, type TestRuntime } from '../helpers.ts';
import { csrfOf, firstOrganizationId, textOf, WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.cleanup();
});

/** Alice owns "Alpha"; Bob signed up later and created "Bravo"; Carol has an account and no organization. */
async function world() {
  const runtime = await createTestRuntime();
  runtimes.push(runtime);
  const alice = new WebClient(runtime);
  await alice.signUp('alice@example.com', 'Alpha');
  const alpha = await firstOrganizationId(alice);
  const bob = new WebClient(runtime);
  await bob.signUp('bob@example.com');
  const created = await bob.submit('/orgs/new', '/orgs', { name: 'Bravo', description: 'Bob’s company' });
  const bravo = /^\/orgs\/(org_[a-z0-9]+)$/.exec(created.location ?? '')?.[1] ?? '';
  const carol = new WebClient(runtime);
  await carol.signUp('carol@example.com');
  const userId = async (email: string) => (await findUserByEmail(runtime.database.db, email))?.id ?? '';
  return { runtime, alice, bob, carol, alpha, bravo, userId };
}

async function addMember(owner: WebClient, organizationId: string, email: string, role: string) {
  return owner.submit(`/orgs/${organizationId}/members`, `/orgs/${organizationId}/members`, { email, role });
}

async function tokenFor(client: WebClient): Promise<string> {
  const page = await client.submit('/settings/tokens/new', '/settings/tokens', {
    name: 'test',
    scope: 'read_write',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  return /cmcp_[A-Za-z0-9_-]{43}/.exec(page.html)?.[0] ?? '';
}

describe('organizations', () => {
  it('creates an organization with its creator as OWNER and lands on its summary', async () => {
    const { runtime, bob, bravo, userId } = await world();
    const rows = await runtime.database.db
      .select()
      .from(memberships)
      .where(eq(memberships.organization_id, bravo));
    expect(rows).toEqual([
      expect.objectContaining({ user_id: await userId('bob@example.com'), role: 'OWNER' }),
    ]);
    const page = await bob.get(`/orgs/${bravo}`);
    expect(textOf(page.html)).toContain('Bravo Compliance summary');
  });

  it('switches organization with the switcher, and only to the person’s own organizations', async () => {
    const { alice, alpha, bravo } = await world();
    await alice.submit('/orgs/new', '/orgs', { name: 'Another' });
    const page = await alice.get(`/orgs/${alpha}`);
    expect(page.html).toContain('<label for="org-switcher">Organization</label>');
    expect([...page.html.matchAll(/<option value="(org_[a-z0-9]+)"/g)]).toHaveLength(2);
    expect((await alice.get(`/orgs/switch?organization_id=${alpha}`)).location).toBe(`/orgs/${alpha}`);
    expect((await alice.get(`/orgs/switch?organization_id=${bravo}`)).location).toBe('/orgs');
  });

  it('answers 404 for every page of an organization the person is not a member of', async () => {
    const { runtime, alice, bob, bravo } = await world();
    const bobToken = await tokenFor(bob);
    const vendor = await ok<{ vendor: { id: string } }>(runtime, bobToken, 'addVendor', {
      organization_id: bravo,
      name: 'Secret Vendor',
    });
    for (const path of [
      `/orgs/${bravo}`,
      `/orgs/${bravo}/vendors`,
      `/orgs/${bravo}/risks?min_residual_score=1`,
      `/orgs/${bravo}/vendors/${vendor.vendor.id}`,
      `/orgs/${bravo}/members`,
      `/orgs/${bravo}/activity`,
      '/orgs/org_0000000000000000000000zz',
      '/orgs/not-an-id/vendors',
    ]) {
      const page = await alice.get(path);
      expect(page.status, path).toBe(404);
      expect(page.html).not.toContain('Secret Vendor');
      expect(page.html).not.toContain('Bravo');
    }
    const csrf = csrfOf((await alice.get('/settings/tokens')).html);
    expect(
      (await alice.post(`/orgs/${bravo}/members`, { _csrf: csrf, email: 'alice@example.com', role: 'OWNER' }))
        .status,
    ).toBe(404);
    expect(
      await runtime.database.db.select().from(memberships).where(eq(memberships.organization_id, bravo)),
    ).toHaveLength(1);
  });

  it('answers 404 for another organization’s record shown under one’s own organization', async () => {
    const { runtime, alice, alpha, bob, bravo } = await world();
    const vendor = await ok<{ vendor: { id: string } }>(runtime, await tokenFor(bob), 'addVendor', {
      organization_id: bravo,
      name: 'Secret Vendor',
    });
    const page = await alice.get(`/orgs/${alpha}/vendors/${vendor.vendor.id}`);
    expect(page.status).toBe(404);
    expect(page.html).not.toContain('Secret Vendor');
  });
});

describe('members', () => {
  it('lets an owner add an existing user by email with a role, and that user then sees the organization', async () => {
    const { alice, alpha, carol } = await world();
    const added = await addMember(alice, alpha, 'Carol@Example.com', 'EDITOR');
    expect(added.location).toBe(`/orgs/${alpha}/members?done=added`);
    const page = textOf((await alice.follow(added)).html);
    expect(page).toContain('The member was added.');
    expect(page).toMatch(/carol@example\.com EDITOR/);
    expect((await carol.get('/orgs')).location).toBe(`/orgs/${alpha}`);
    expect((await carol.get(`/orgs/${alpha}`)).status).toBe(200);
  });

  it('explains an unknown email and an existing member instead of failing', async () => {
    const { alice, alpha } = await world();
    const unknown = await addMember(alice, alpha, 'nobody@example.com', 'VIEWER');
    expect(unknown.status).toBe(422);
    expect(textOf(unknown.html)).toContain('There is no account with the email nobody@example.com');
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');
    const again = await addMember(alice, alpha, 'carol@example.com', 'ADMIN');
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toContain('already a member');
  });

  it('lets only owners and admins manage members, and only owners touch owners', async () => {
    const { runtime, alice, alpha, bob, carol, userId } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'ADMIN');
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');

    const viewerPage = await carol.get(`/orgs/${alpha}/members`);
    expect(viewerPage.status).toBe(200);
    expect(textOf(viewerPage.html)).toContain('Only owners and admins can add or change members.');
    const byViewer = await carol.post(`/orgs/${alpha}/members`, {
      _csrf: csrfOf(viewerPage.html),
      email: 'x@example.com',
      role: 'VIEWER',
    });
    expect(byViewer.status).toBe(403);

    const adminGrantsOwner = await bob.submit(
      `/orgs/${alpha}/members`,
      `/orgs/${alpha}/members/${await userId('carol@example.com')}/role`,
      {
        role: 'OWNER',
      },
    );
    expect(adminGrantsOwner.status).toBe(403);
    expect(textOf(adminGrantsOwner.html)).toContain('Only an owner can make someone an owner.');
    const adminDemotesOwner = await bob.submit(
      `/orgs/${alpha}/members`,
      `/orgs/${alpha}/members/${await userId('alice@example.com')}/role`,
      {
        role: 'VIEWER',
      },
    );
    expect(adminDemotesOwner.status).toBe(403);
    const adminPromotes = await bob.submit(
      `/orgs/${alpha}/members`,
      `/orgs/${alpha}/members/${await userId('carol@example.com')}/role`,
      {
        role: 'EDITOR',
      },
    );
    expect(adminPromotes.location).toBe(`/orgs/${alpha}/members?done=role`);
    const roles = await runtime.database.db
      .select()
      .from(memberships)
      .where(eq(memberships.organization_id, alpha));
    expect(Object.fromEntries(roles.map((row) => [row.user_id, row.role]))).toEqual({
      [await userId('alice@example.com')]: 'OWNER',
      [await userId('bob@example.com')]: 'ADMIN',
      [await userId('carol@example.com')]: 'EDITOR',
    });
  });

  it('refuses to demote or remove the last owner, with the reason on the page', async () => {
    const { alice, alpha, userId } = await world();
    const aliceId = await userId('alice@example.com');
    const demote = await alice.submit(`/orgs/${alpha}/members`, `/orgs/${alpha}/members/${aliceId}/role`, {
      role: 'ADMIN',
    });
    expect(demote.status).toBe(409);
    expect(textOf(demote.html)).toContain('An organization keeps at least one OWNER');
    const remove = await alice.submit(
      `/orgs/${alpha}/members/${aliceId}/remove`,
      `/orgs/${alpha}/members/${aliceId}/remove`,
      {},
    );
    expect(remove.status).toBe(409);
    expect(textOf(remove.html)).toContain('An organization keeps at least one OWNER');
    expect((await alice.get(`/orgs/${alpha}`)).status).toBe(200);
  });

  it('removes a member after a confirmation step, and their token loses the organization at once', async () => {
    const { runtime, alice, alpha, carol, userId } = await world();
    await addMember(alice, alpha, 'carol@example.com', 'EDITOR');
    const token = await tokenFor(carol);
    expect((await callDirect(runtime, token, 'listVendors', { organization_id: alpha })).status).toBe(200);
    const carolId = await userId('carol@example.com');
    const confirm = await alice.get(`/orgs/${alpha}/members/${carolId}/remove`);
    expect(textOf(confirm.html)).toContain('Remove carol@example.com from Alpha?');
    const removed = await alice.post(`/orgs/${alpha}/members/${carolId}/remove`, {
      _csrf: csrfOf(confirm.html),
    });
    expect(removed.location).toBe(`/orgs/${alpha}/members?done=removed`);
    expect((await callDirect(runtime, token, 'listVendors', { organization_id: alpha })).status).toBe(404);
    expect((await carol.get(`/orgs/${alpha}`)).status).toBe(404);
  });
});

describe('activity', () => {
  it('shows owners and admins every call in the organization, and refuses other roles', async () => {
    const { runtime, alice, alpha, carol } = await world();
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');
    const token = await tokenFor(carol);
    await callDirect(runtime, token, 'listRisks', { organization_id: alpha });
    await alice.get(`/orgs/${alpha}/vendors`); // a web page view is a call too (surface web)

    const page = await alice.get(`/orgs/${alpha}/activity`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toMatch(/HTTP \(direct\) listRisks carol@example\.com test ok/);
    expect(text).toMatch(/Web listVendors alice@example\.com web session ok/);
    expect(page.html).not.toContain(token);
    expect((await carol.get(`/orgs/${alpha}/activity`)).status).toBe(403);
  });
});
