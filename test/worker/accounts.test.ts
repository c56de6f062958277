// Accounts on the Worker host in workerd: sign-up, reset and invitations answer alike whether or not an address has
// an account; membership is an invitation the invitee accepts; sign-in is throttled per address and CF-Connecting-IP.
import { exports } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/accounts.ts';
import { invitations, memberships } from '../../src/db/schema.ts';
import { BASE } from '../contract/host.ts';
import {
  cliTokenService,
  signUpOnWorker,
  testDatabase,
  type WorkerBrowser,
  workerBrowser,
} from './helpers.ts';

const PASSWORD = 'correct horse battery staple';

/** A fresh address on the shared database. */
const address = (name: string) => `${name}-${crypto.randomUUID()}@example.com`;

/** The text a person reads, tags dropped and the address named replaced. */
function masked(html: string, email: string): string {
  return html
    .replace(/<input type="hidden" name="_csrf" value="[^"]*"\s*\/?>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll(email, 'EMAIL')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An owner (signed up and signed in through the forms) of a new organization, and that organization's id. */
async function owner(): Promise<{ browser: WorkerBrowser; email: string; organizationId: string }> {
  const browser = workerBrowser();
  const email = address('owner');
  expect((await signUpOnWorker(browser, email, PASSWORD, 'Worker Accounts Org')).status).toBe(303);
  const organizationId =
    /^\/orgs\/(org_[a-z0-9]+)$/.exec((await browser.get('/orgs')).location ?? '')?.[1] ?? '';
  expect(organizationId).toMatch(/^org_/);
  return { browser, email, organizationId };
}

async function organizationsOf(token: string): Promise<string[]> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/listOrganizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  const body = (await response.json()) as { organizations?: { id: string }[] };
  return (body.organizations ?? []).map((row) => row.id);
}

describe('accounts on the Worker', () => {
  it('answers sign-up and a password reset the same for a taken and a free address', async () => {
    const taken = address('taken');
    expect((await signUpOnWorker(workerBrowser(), taken, PASSWORD)).status).toBe(303);
    const free = address('free');
    const signUp = async (email: string) =>
      workerBrowser().submit('/signup', '/signup', { email, password: PASSWORD, password_confirm: PASSWORD });
    const [takenAnswer, freeAnswer] = [await signUp(taken), await signUp(free)];
    expect([takenAnswer.status, freeAnswer.status]).toEqual([200, 200]);
    expect(masked(takenAnswer.html, taken)).toBe(masked(freeAnswer.html, free));
    expect(masked(takenAnswer.html, taken)).toContain('Check your email');
    const reset = async (email: string) => workerBrowser().submit('/reset', '/reset', { email });
    const [takenReset, freeReset] = [await reset(taken), await reset(free)];
    expect([takenReset.status, freeReset.status]).toEqual([200, 200]);
    expect(masked(takenReset.html, taken)).toBe(masked(freeReset.html, free));
  });

  it('answers an invitation alike, and lets nothing reach the invitee before they accept', async () => {
    const { browser, organizationId } = await owner();
    const invitee = workerBrowser();
    const email = address('invitee');
    expect((await signUpOnWorker(invitee, email, PASSWORD, 'Invitee Home')).status).toBe(303);
    const members = `/orgs/${organizationId}/members`;
    const notice = async (target: string) => {
      const sent = await browser.submit(members, members, { email: target, role: 'EDITOR' });
      expect(sent.status).toBe(303);
      const page = masked((await browser.get(members)).html, target);
      return page.slice(page.indexOf('Invitation sent'), page.indexOf(' Members Roles'));
    };
    const unknown = address('nobody');
    expect(await notice(email)).toBe(await notice(unknown));

    const { db } = testDatabase();
    const user = await findUserByEmail(db, email);
    const token = await cliTokenService(testDatabase()).create({
      userId: user?.id ?? '',
      name: 'invitee token',
      scope: 'read',
      organizationIds: null,
      expiresAt: null,
    });
    expect(await organizationsOf(token.token)).not.toContain(organizationId);
    expect((await invitee.get(`/orgs/${organizationId}`)).status).toBe(404);

    const [invitation] = await db
      .select({ id: invitations.id })
      .from(invitations)
      .where(and(eq(invitations.organization_id, organizationId), eq(invitations.email, email)));
    const accepted = await invitee.submit('/invitations', `/invitations/${invitation?.id}/accept`, {
      earlier_tokens: 'yes',
    });
    expect(accepted.location).toBe(`/orgs/${organizationId}`);
    // Opened to earlier tokens at acceptance: the token made before reaches it now (its KV entry was dropped).
    expect(await organizationsOf(token.token)).toContain(organizationId);
    const again = await invitee.submit('/invitations', `/invitations/${invitation?.id}/accept`, {});
    expect(again.status).toBe(404);

    const left = await invitee.submit(`/orgs/${organizationId}/leave`, `/orgs/${organizationId}/leave`, {});
    expect(left.status).toBe(303);
    expect(await organizationsOf(token.token)).not.toContain(organizationId);
    const rows = await db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, user?.id ?? '')));
    expect(rows).toEqual([]);
  });

  it('throttles sign-in per address and client network: a stranger never locks the owner out', async () => {
    const { email } = await owner();
    const stranger = workerBrowser('203.0.113.50');
    const statuses: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++)
      statuses.push(
        (await stranger.submit('/login', '/login', { email, password: `guess ${attempt}` })).status,
      );
    expect(statuses).toEqual([422, 422, 422, 422, 429, 429]);
    expect((await stranger.submit('/login', '/login', { email, password: PASSWORD })).status).toBe(429);
    const elsewhere = workerBrowser('198.51.100.50');
    expect((await elsewhere.submit('/login', '/login', { email, password: PASSWORD })).status).toBe(303);
  });
});
