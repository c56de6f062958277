// Organizations in the web interface: isolation (404 across organizations), members and their rules, activity.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findUserByEmail, setMembership } from '../../src/accounts.ts';
import { invitations, memberships } from '../../src/db/schema.ts';
import { callDirect, createTestRuntime, ok, runtimesCleanedAfterEach, type TestRuntime } from '../helpers.ts';
import {
  acceptInvitation,
  csrfOf,
  firstOrganizationId,
  inviteAndAccept,
  textOf,
  WebClient,
} from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

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
  const clients = new Map([
    ['bob@example.com', bob],
    ['carol@example.com', carol],
  ]);
  /** `owner` invites `email` (bob or carol) with `role`, and that person accepts. */
  const addMember = (owner: WebClient, organizationId: string, email: string, role: string) =>
    inviteAndAccept(owner, clients.get(email) as WebClient, organizationId, email, role);
  return { runtime, alice, bob, carol, alpha, bravo, userId, addMember };
}

async function invite(owner: WebClient, organizationId: string, email: string, role: string) {
  return owner.submit(`/orgs/${organizationId}/members`, `/orgs/${organizationId}/members`, { email, role });
}

/** The role form of one member as the members page shows it: its CSRF token and the role it shows (if any). */
async function roleForm(client: WebClient, organizationId: string, userId: string) {
  const page = await client.get(`/orgs/${organizationId}/members`);
  const form = new RegExp(`action="/orgs/${organizationId}/members/${userId}/role"[\\s\\S]*?</form>`).exec(
    page.html,
  )?.[0];
  const shown = form ? /name="current_role" value="([A-Z]+)"/.exec(form)?.[1] : undefined;
  return { _csrf: csrfOf(page.html), ...(shown ? { current_role: shown } : {}) };
}

/** Changes a member's role through the members page, as a person would (the form carries the role it showed). */
async function changeRole(client: WebClient, organizationId: string, userId: string, role: string) {
  const form = await roleForm(client, organizationId, userId);
  return client.post(`/orgs/${organizationId}/members/${userId}/role`, { ...form, role });
}

/**
 * Makes every statement wait for the event loop first, as a round trip to a remote libSQL server does, so that
 * concurrent requests interleave between their statements (the embedded client would run each to the end).
 */
function withRoundTrips(runtime: TestRuntime): void {
  const client = runtime.database.client;
  const execute = client.execute.bind(client);
  const batch = client.batch.bind(client);
  const roundTrip = () => new Promise((resolve) => setTimeout(resolve, 1));
  client.execute = (async (...args: Parameters<typeof execute>) => {
    await roundTrip();
    return execute(...args);
  }) as typeof client.execute;
  client.batch = async (...args: Parameters<typeof batch>) => {
    await roundTrip();
    return batch(...args);
  };
}

async function ownersOf(runtime: TestRuntime, organizationId: string): Promise<string[]> {
  const rows = await runtime.database.db
    .select()
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.role, 'OWNER')));
  return rows.map((row) => row.user_id);
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
  it('lets an owner invite an address with a role; the person sees the organization once they accept', async () => {
    const { runtime, alice, alpha, carol, userId } = await world();
    const sent = await invite(alice, alpha, 'Carol@Example.com', 'EDITOR');
    expect(sent.location).toBe(`/orgs/${alpha}/members`);
    const page = textOf((await alice.follow(sent)).html);
    expect(page).toContain('Invitation sent to carol@example.com as EDITOR.');
    expect(page).toMatch(
      /Invitations Address Role Invited by Open until Manage carol@example\.com EDITOR alice/,
    );
    // Not a member before accepting: nothing of Alpha reaches Carol.
    expect((await carol.get(`/orgs/${alpha}`)).status).toBe(404);
    expect(textOf((await carol.follow(await carol.get('/orgs'))).html)).toContain(
      'An invitation is waiting for you',
    );
    const accepted = await acceptInvitation(carol, alpha, 'carol@example.com');
    expect(accepted.location).toBe(`/orgs/${alpha}`);
    expect(textOf((await carol.get(`/orgs/${alpha}`)).html)).toContain('You joined Alpha.');
    const rows = await runtime.database.db
      .select()
      .from(memberships)
      .where(
        and(
          eq(memberships.organization_id, alpha),
          eq(memberships.user_id, await userId('carol@example.com')),
        ),
      );
    expect(rows).toEqual([expect.objectContaining({ role: 'EDITOR', earlier_tokens: false })]);
    expect(textOf((await alice.get(`/orgs/${alpha}/members`)).html)).toMatch(/carol@example\.com EDITOR/);
  });

  it('answers an invitation alike whether or not the address has an account, and explains an existing member', async () => {
    const { alice, alpha, addMember } = await world();
    const unknown = await invite(alice, alpha, 'nobody@example.com', 'VIEWER');
    expect(unknown.status).toBe(303);
    const unknownPage = textOf((await alice.follow(unknown)).html);
    const known = await invite(alice, alpha, 'carol@example.com', 'VIEWER');
    expect(known.status).toBe(303);
    const knownPage = textOf((await alice.follow(known)).html);
    const notice = (page: string) =>
      page.slice(page.indexOf('Invitation sent'), page.indexOf(' Members Roles'));
    expect(notice(unknownPage)).toBe(
      'Invitation sent to nobody@example.com as VIEWER. They join when they accept it on their Invitations page, after signing in with that address.',
    );
    expect(notice(knownPage)).toBe(notice(unknownPage).replace('nobody', 'carol'));
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');
    const again = await invite(alice, alpha, 'carol@example.com', 'ADMIN');
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toContain(
      'carol@example.com is already a member. Change their role in the table',
    );
    const invalid = await invite(alice, alpha, 'not an address', 'ADMIN');
    expect(invalid.status).toBe(422);
    expect(textOf(invalid.html)).toContain('Not an email address: not an address');
  });

  it('lets only owners and admins manage members, and only owners touch owners', async () => {
    const { runtime, alice, alpha, bob, carol, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'ADMIN');
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');

    const viewerPage = await carol.get(`/orgs/${alpha}/members`);
    expect(viewerPage.status).toBe(200);
    expect(textOf(viewerPage.html)).toContain('Only owners and admins can invite or change members.');
    const byViewer = await carol.post(`/orgs/${alpha}/members`, {
      _csrf: csrfOf(viewerPage.html),
      email: 'x@example.com',
      role: 'VIEWER',
    });
    expect(byViewer.status).toBe(403);

    const adminGrantsOwner = await changeRole(bob, alpha, await userId('carol@example.com'), 'OWNER');
    expect(adminGrantsOwner.status).toBe(403);
    expect(textOf(adminGrantsOwner.html)).toContain('Only an owner can make someone an owner.');
    const adminDemotesOwner = await changeRole(bob, alpha, await userId('alice@example.com'), 'VIEWER');
    expect(adminDemotesOwner.status).toBe(403);
    const adminPromotes = await changeRole(bob, alpha, await userId('carol@example.com'), 'EDITOR');
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
    const demote = await changeRole(alice, alpha, aliceId, 'ADMIN');
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
    const { runtime, alice, alpha, carol, userId, addMember } = await world();
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

/**
 * Of two owners acting on each other at once, one succeeds; the other is refused: by the last-owner rule, or (if
 * it started after the first had finished) because it is no longer an owner, or no longer a member.
 */
function expectOneWinner(responses: { status: number; html: string }[]): void {
  const winners = responses.filter((response) => response.status === 303);
  expect(winners, responses.map((response) => response.status).join(', ')).toHaveLength(1);
  for (const response of responses.filter((item) => item.status !== 303)) {
    expect([403, 404, 409]).toContain(response.status);
    if (response.status === 409)
      expect(textOf(response.html)).toContain('An organization keeps at least one OWNER');
  }
}

describe('members changed concurrently', () => {
  it('leaves exactly one OWNER when two owners demote each other at the same time', async () => {
    const { runtime, alice, alpha, bob, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'OWNER');
    const aliceId = await userId('alice@example.com');
    const bobId = await userId('bob@example.com');
    const aliceForm = await roleForm(alice, alpha, bobId);
    const bobForm = await roleForm(bob, alpha, aliceId);
    withRoundTrips(runtime);
    const responses = await Promise.all([
      alice.post(`/orgs/${alpha}/members/${bobId}/role`, { ...aliceForm, role: 'ADMIN' }),
      bob.post(`/orgs/${alpha}/members/${aliceId}/role`, { ...bobForm, role: 'ADMIN' }),
    ]);
    expect(await ownersOf(runtime, alpha)).toHaveLength(1);
    expectOneWinner(responses);
  });

  it('leaves exactly one OWNER when two owners remove each other at the same time', async () => {
    const { runtime, alice, alpha, bob, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'OWNER');
    const aliceId = await userId('alice@example.com');
    const bobId = await userId('bob@example.com');
    const aliceConfirm = await alice.get(`/orgs/${alpha}/members/${bobId}/remove`);
    const bobConfirm = await bob.get(`/orgs/${alpha}/members/${aliceId}/remove`);
    withRoundTrips(runtime);
    const responses = await Promise.all([
      alice.post(`/orgs/${alpha}/members/${bobId}/remove`, { _csrf: csrfOf(aliceConfirm.html) }),
      bob.post(`/orgs/${alpha}/members/${aliceId}/remove`, { _csrf: csrfOf(bobConfirm.html) }),
    ]);
    expect(await ownersOf(runtime, alpha)).toHaveLength(1);
    expectOneWinner(responses);
  });

  it('does not re-add a member whose stale role form is sent while (or after) they are removed', async () => {
    const { runtime, alice, alpha, userId, addMember } = await world();
    await addMember(alice, alpha, 'carol@example.com', 'EDITOR');
    const carolId = await userId('carol@example.com');
    const form = await roleForm(alice, alpha, carolId);
    const confirm = await alice.get(`/orgs/${alpha}/members/${carolId}/remove`);
    withRoundTrips(runtime);
    const [removed, changed] = await Promise.all([
      alice.post(`/orgs/${alpha}/members/${carolId}/remove`, { _csrf: csrfOf(confirm.html) }),
      alice.post(`/orgs/${alpha}/members/${carolId}/role`, { ...form, role: 'ADMIN' }),
    ]);
    const carolRows = () =>
      runtime.database.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.organization_id, alpha), eq(memberships.user_id, carolId)));
    // Whichever came first, the removal stands: the role form changes a membership, it never creates one.
    expect(removed.status).toBe(303);
    expect([303, 404, 409]).toContain(changed.status);
    expect(await carolRows()).toEqual([]);
    const late = await alice.post(`/orgs/${alpha}/members/${carolId}/role`, { ...form, role: 'ADMIN' });
    expect(late.status).toBe(404);
    expect(await carolRows()).toEqual([]);
  });

  /**
   * Runs `meanwhile` once, just before the first statement (or batch) that deletes a membership (after the route's
   * checks).
   */
  function beforeMembershipDelete(runtime: TestRuntime, meanwhile: () => Promise<unknown>): void {
    const client = runtime.database.client;
    const execute = client.execute.bind(client);
    const batch = client.batch.bind(client);
    let pending = true;
    const sqlOf = (statement: unknown) =>
      typeof statement === 'string' ? statement : String((statement as { sql?: unknown }).sql);
    const pause = async (statement: unknown) => {
      if (pending && /^delete from "memberships"/i.test(sqlOf(statement))) {
        pending = false;
        await meanwhile();
      }
    };
    client.execute = (async (...args: Parameters<typeof execute>) => {
      await pause(args[0]);
      return execute(...args);
    }) as typeof client.execute;
    client.batch = async (...args: Parameters<typeof batch>) => {
      await pause(args[0][0]);
      return batch(...args);
    };
  }

  it('removes a member whose role changed between the check and the removal, if the remover manages both roles', async () => {
    const { runtime, alice, alpha, userId, addMember } = await world();
    await addMember(alice, alpha, 'carol@example.com', 'EDITOR');
    const carolId = await userId('carol@example.com');
    const confirm = await alice.get(`/orgs/${alpha}/members/${carolId}/remove`);
    beforeMembershipDelete(runtime, () =>
      setMembership(runtime.database.db, new Date(), alpha, carolId, 'ADMIN'),
    );
    const removed = await alice.post(`/orgs/${alpha}/members/${carolId}/remove`, {
      _csrf: csrfOf(confirm.html),
    });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe(`/orgs/${alpha}/members?done=removed`);
    const rows = await runtime.database.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organization_id, alpha), eq(memberships.user_id, carolId)));
    expect(rows).toEqual([]);
  });

  it('never lets an admin remove someone who became an OWNER between the check and the removal', async () => {
    const { runtime, alice, alpha, bob, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'ADMIN');
    await addMember(alice, alpha, 'carol@example.com', 'EDITOR');
    const carolId = await userId('carol@example.com');
    const confirm = await bob.get(`/orgs/${alpha}/members/${carolId}/remove`);
    beforeMembershipDelete(runtime, () =>
      setMembership(runtime.database.db, new Date(), alpha, carolId, 'OWNER'),
    );
    const refused = await bob.post(`/orgs/${alpha}/members/${carolId}/remove`, {
      _csrf: csrfOf(confirm.html),
    });
    expect(refused.status).toBe(409);
    expect(textOf(refused.html)).toContain('changed meanwhile');
    const rows = await runtime.database.db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organization_id, alpha), eq(memberships.user_id, carolId)));
    expect(rows).toEqual([{ role: 'OWNER' }]);
  });

  it('refuses a role form whose member changed since the page was shown, asking to reload', async () => {
    const { runtime, alice, alpha, bob, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'ADMIN');
    await addMember(alice, alpha, 'carol@example.com', 'VIEWER');
    const carolId = await userId('carol@example.com');
    const stale = await roleForm(bob, alpha, carolId); // shows VIEWER
    expect(stale.current_role).toBe('VIEWER');
    expect((await changeRole(alice, alpha, carolId, 'ADMIN')).status).toBe(303);
    const response = await bob.post(`/orgs/${alpha}/members/${carolId}/role`, { ...stale, role: 'EDITOR' });
    expect(response.status).toBe(409);
    expect(textOf(response.html)).toContain('changed meanwhile');
    expect(textOf(response.html)).toContain('Reload');
    const [row] = await runtime.database.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organization_id, alpha), eq(memberships.user_id, carolId)));
    expect(row?.role).toBe('ADMIN');
  });

  it('keeps the last OWNER when the operator’s add-or-change (CLI member add) demotes two owners at once', async () => {
    const { runtime, alice, alpha, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'OWNER');
    const aliceId = await userId('alice@example.com');
    const bobId = await userId('bob@example.com');
    withRoundTrips(runtime);
    const results = await Promise.allSettled([
      setMembership(runtime.database.db, new Date(), alpha, aliceId, 'ADMIN'),
      setMembership(runtime.database.db, new Date(), alpha, bobId, 'EDITOR'),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((result) => result.status === 'rejected');
    expect(String(refused?.reason)).toContain('An organization keeps at least one OWNER');
    expect(await ownersOf(runtime, alpha)).toHaveLength(1);
    // Adding someone new, or re-stating an owner's role, still works.
    await setMembership(runtime.database.db, new Date(), alpha, await userId('carol@example.com'), 'VIEWER');
    const [owner] = await ownersOf(runtime, alpha);
    await setMembership(runtime.database.db, new Date(), alpha, owner ?? '', 'OWNER');
    expect(await ownersOf(runtime, alpha)).toEqual([owner]);
  });

  it('keeps one invitation per address when two managers invite it at the same time, and never re-invites a member', async () => {
    const { runtime, alice, alpha, bob, carol, userId, addMember } = await world();
    await addMember(alice, alpha, 'bob@example.com', 'ADMIN');
    const ownerForm = csrfOf((await alice.get(`/orgs/${alpha}/members`)).html);
    const adminForm = csrfOf((await bob.get(`/orgs/${alpha}/members`)).html);
    withRoundTrips(runtime);
    const [byOwner, byAdmin] = await Promise.all([
      alice.post(`/orgs/${alpha}/members`, { _csrf: ownerForm, email: 'carol@example.com', role: 'OWNER' }),
      bob.post(`/orgs/${alpha}/members`, { _csrf: adminForm, email: 'carol@example.com', role: 'VIEWER' }),
    ]);
    expect([byOwner.status, byAdmin.status]).toEqual([303, 303]);
    const pending = await runtime.database.db
      .select({ role: invitations.role })
      .from(invitations)
      .where(eq(invitations.organization_id, alpha));
    expect(pending).toHaveLength(1);
    const role = pending[0]?.role;
    expect(['OWNER', 'VIEWER']).toContain(role);
    expect((await acceptInvitation(carol, alpha, 'carol@example.com')).status).toBe(303);
    const [row] = await runtime.database.db
      .select()
      .from(memberships)
      .where(
        and(
          eq(memberships.organization_id, alpha),
          eq(memberships.user_id, await userId('carol@example.com')),
        ),
      );
    expect(row?.role).toBe(role);
    // A member is never invited again (an invitation never overwrites a role): the table changes roles.
    const again = await bob.submit(`/orgs/${alpha}/members`, `/orgs/${alpha}/members`, {
      email: 'carol@example.com',
      role: 'VIEWER',
    });
    expect(again.status).toBe(409);
    expect(textOf(again.html)).toContain('already a member');
  });
});

describe('activity', () => {
  it('shows owners and admins every call in the organization, and refuses other roles', async () => {
    const { runtime, alice, alpha, carol, addMember } = await world();
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
