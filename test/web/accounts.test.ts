// Accounts in the web interface: sign-up, sign-in, throttling, sessions (cookie, expiry, sign-out), password, CSRF.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/accounts.ts';
import { sha256Hex } from '../../src/auth/crypto.ts';
import { accountLinks, memberships, sessions, signInAttempts, users } from '../../src/db/schema.ts';
import { safeNext } from '../../src/web/account/routes.tsx';
import { SESSION_ABSOLUTE_SECONDS, SESSION_IDLE_SECONDS } from '../../src/web/sessions.ts';
import { createTestRuntime, runtimesCleanedAfterEach } from '../helpers.ts';
import {
  csrfOf,
  firstOrganizationId,
  manualClock,
  PASSWORD,
  signUpLinkOf,
  textOf,
  WebClient,
} from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup(clock = manualClock(), env: Record<string, string> = {}) {
  const runtime = await createTestRuntime({ now: clock.now, env });
  runtimes.push(runtime);
  return { runtime, clock, client: new WebClient(runtime) };
}

describe('sign-up', () => {
  it('makes the first user of an empty instance OWNER of the organization they name', async () => {
    const { runtime, client } = await setup();
    expect((await client.get('/')).location).toBe('/signup');
    const page = await client.get('/signup');
    expect(textOf(page.html)).toContain('This instance has no users yet');
    expect(page.html).toContain('name="organization"');

    const response = await client.signUp('founder@example.com', 'Acme Health');
    expect(response.status).toBe(303);
    const organizationId = await firstOrganizationId(client);
    const [user] = await runtime.database.db
      .select()
      .from(users)
      .where(eq(users.email, 'founder@example.com'));
    const rows = await runtime.database.db
      .select()
      .from(memberships)
      .where(eq(memberships.user_id, user?.id ?? ''));
    expect(rows).toEqual([expect.objectContaining({ organization_id: organizationId, role: 'OWNER' })]);
    expect(user?.password_hash).toMatch(/^scrypt\$n=\d+,r=8,p=\d+\$[0-9a-f]{32}\$[0-9a-f]{64}$/);

    const home = await client.get(`/orgs/${organizationId}`);
    expect(home.status).toBe(200);
    expect(textOf(home.html)).toContain('Acme Health');
    expect(textOf(home.html)).toContain('your role: OWNER');
  });

  it('gives later sign-ups an account without an organization unless they name one', async () => {
    const { runtime, client } = await setup();
    await client.signUp('founder@example.com', 'Acme');
    const second = new WebClient(runtime);
    const page = await second.get('/signup');
    expect(page.html).toContain('<label for="organization">New organization (optional)</label>');
    expect(page.html).not.toMatch(/id="organization"[^>]*required/);
    expect((await second.signUp('later@example.com')).status).toBe(303);
    const welcome = await second.get('/orgs');
    expect(welcome.status).toBe(200);
    expect(textOf(welcome.html)).toContain('You are not a member of any organization yet');
    const [user] = await runtime.database.db.select().from(users).where(eq(users.email, 'later@example.com'));
    expect(
      await runtime.database.db
        .select()
        .from(memberships)
        .where(eq(memberships.user_id, user?.id ?? '')),
    ).toEqual([]);

    const third = new WebClient(runtime);
    await third.signUp('starter@example.com', 'Startup Ltd');
    const organizationId = await firstOrganizationId(third);
    expect(textOf((await third.get(`/orgs/${organizationId}`)).html)).toContain(
      'Startup Ltd Compliance summary · your role: OWNER',
    );
  });

  it('refuses differing passwords, short passwords, a bad address and a missing organization name', async () => {
    const { client, runtime } = await setup();
    const mismatch = await client.submit('/signup', '/signup', {
      email: 'a@example.com',
      password: PASSWORD,
      password_confirm: `${PASSWORD}x`,
      organization: 'Org',
    });
    expect(mismatch.status).toBe(422);
    expect(textOf(mismatch.html)).toContain('The two passwords differ');
    const short = await client.signUpForm('a@example.com', 'Org', 'short');
    expect(short.status).toBe(422);
    expect(textOf(short.html)).toContain('at least 10 characters');
    const noOrganization = await client.signUpForm('a@example.com');
    expect(noOrganization.status).toBe(422);
    expect(textOf(noOrganization.html)).toContain('Name your organization.');
    const badAddress = await client.signUpForm('not an address', 'Org');
    expect(badAddress.status).toBe(422);
    expect(textOf(badAddress.html)).toContain('Not an email address: not an address');
    // The form keeps what was typed (but never a password).
    expect(badAddress.html).toContain('value="not an address"');
    expect(await runtime.database.db.select().from(users)).toEqual([]);
    expect(await runtime.database.db.select().from(accountLinks)).toEqual([]);
  });

  it('confirms the first account at once, and makes later ones only when their link is opened', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('founder@example.com', 'Acme');
    const founder = await findUserByEmail(runtime.database.db, 'founder@example.com');
    expect(founder?.email_verified_at).not.toBeNull();
    const later = new WebClient(runtime);
    const form = await later.signUpForm('later@example.com', 'Later Ltd');
    expect(form.status).toBe(200);
    expect(textOf(form.html)).toContain(
      'This instance sends no email, so its operator confirms new accounts: ask them to run compliance-mcp user verify later@example.com',
    );
    expect(later.cookies.has('cmcp_session')).toBe(false);
    expect(await findUserByEmail(runtime.database.db, 'later@example.com')).toBeUndefined();
    const [pending] = await runtime.database.db.select().from(accountLinks);
    // Only hashes are kept: the link's secret and the password.
    expect(pending?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(pending?.details)).not.toContain(PASSWORD);
    const confirmed = await later.openLink(await signUpLinkOf(runtime, 'later@example.com'));
    expect(confirmed.location).toBe('/orgs');
    const user = await findUserByEmail(runtime.database.db, 'later@example.com');
    expect(user?.email_verified_at).not.toBeNull();
    const organizationId = await firstOrganizationId(later);
    expect(textOf((await later.get(`/orgs/${organizationId}`)).html)).toContain('Later Ltd');
    // And the password is the one typed at sign-up.
    expect((await new WebClient(runtime).signIn('later@example.com')).status).toBe(303);
  });

  it('allows 10 sign-ups per 15 minutes from one network, every attempt counted, then 429 with Retry-After', async () => {
    const { runtime, clock } = await setup(manualClock(), { CLIENT_ADDRESS_HEADER: 'x-real-ip' });
    const from = (address: string) => {
      const client = new WebClient(runtime);
      client.headers['x-real-ip'] = address;
      return client;
    };
    expect((await from('192.0.2.1').signUpForm('founder@example.com', 'Org')).status).toBe(303);
    // Refused forms count too: a refused attempt is never given back.
    expect((await from('192.0.2.1').signUpForm('not an email', 'Org')).status).toBe(422);
    for (let index = 3; index <= 10; index++) {
      expect((await from('192.0.2.1').signUpForm(`user${index}@example.com`, 'Org')).status).toBe(200);
      clock.advance(10);
    }
    const refused = await from('192.0.2.1').signUpForm('late@example.com', 'Org');
    expect(refused.status).toBe(429);
    expect(textOf(refused.html)).toContain('Too many requests from your network (10 within 15 minutes)');
    // The first of the 10 was 80 seconds ago: it leaves the window 820 seconds from now.
    expect(Number(refused.headers.get('retry-after'))).toBe(15 * 60 - 80);
    // Another network is not held back.
    expect((await from('198.51.100.7').signUpForm('late@example.com', 'Org')).status).toBe(200);
    clock.advance(15 * 60 - 80);
    expect((await from('192.0.2.1').signUpForm('later@example.com', 'Org')).status).toBe(200);
  });

  it('counts sign-ups sent in parallel before hashing any password, and makes one first account', async () => {
    const { runtime } = await setup();
    const clients = Array.from({ length: 14 }, () => new WebClient(runtime));
    const forms = await Promise.all(
      clients.map(async (client) => csrfOf((await client.get('/signup')).html)),
    );
    const responses = await Promise.all(
      clients.map((client, index) =>
        client.post('/signup', {
          _csrf: forms[index] ?? '',
          email: `burst${index}@example.com`,
          password: PASSWORD,
          password_confirm: PASSWORD,
          organization: 'Org',
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 303)).toHaveLength(1);
    expect(responses.filter((response) => response.status === 200)).toHaveLength(9);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(4);
    expect(await runtime.database.db.select().from(users)).toHaveLength(1);
    expect(await runtime.database.db.select().from(accountLinks)).toHaveLength(9);
  });

  it('refuses a sign-in with a non-address without counting or hashing it', async () => {
    const { runtime } = await setup();
    const client = new WebClient(runtime);
    for (let attempt = 1; attempt <= 6; attempt++)
      expect((await client.signIn('signup:all', 'x')).status).toBe(422);
    expect(await runtime.database.db.select().from(signInAttempts)).toEqual([]);
  });

  it('closes sign-up with SIGNUP=closed, and lets only invited addresses in with SIGNUP=invite-only', async () => {
    const closed = await setup(manualClock(), { SIGNUP: 'closed' });
    const page = await closed.client.get('/signup');
    expect(textOf(page.html)).toContain('Sign-up is closed');
    expect(page.html).not.toContain('action="/signup"');
    expect((await closed.client.get('/')).location).toBe('/login');
    const form = await closed.client.post('/signup', {
      _csrf: csrfOf((await closed.client.get('/login')).html),
      email: 'a@example.com',
      password: PASSWORD,
      password_confirm: PASSWORD,
      organization: 'Org',
    });
    expect(form.status).toBe(403);
    expect(await closed.runtime.database.db.select().from(users)).toEqual([]);

    const { runtime } = await setup(manualClock(), { SIGNUP: 'invite-only' });
    const founder = new WebClient(runtime);
    await founder.signUp('founder@example.com', 'Org');
    const organizationId = await firstOrganizationId(founder);
    // Uninvited: the same answer, but no link is ever good for an account.
    const stranger = new WebClient(runtime);
    expect(textOf((await stranger.signUpForm('stranger@example.com')).html)).toContain('Check your email');
    const refused = await stranger.openLink(await signUpLinkOf(runtime, 'stranger@example.com'));
    expect(refused.status).toBe(403);
    expect(textOf(refused.html)).toContain(
      'This instance accepts invited addresses only, and no invitation for stranger@example.com is open.',
    );
    expect(await findUserByEmail(runtime.database.db, 'stranger@example.com')).toBeUndefined();
    // Invited: the link makes the account.
    await founder.submit(`/orgs/${organizationId}/members`, `/orgs/${organizationId}/members`, {
      email: 'guest@example.com',
      role: 'VIEWER',
    });
    const guest = new WebClient(runtime);
    expect((await guest.signUp('guest@example.com')).location).toBe('/orgs');
    expect(await findUserByEmail(runtime.database.db, 'guest@example.com')).toBeDefined();
  });
});

/** Targets after sign-in that must not leave the site (or break the Location header). */
const offSite = [
  '//evil.example',
  '/\\evil.example',
  '/\t/evil.example/x',
  '/\n/x',
  '/\r\nset-cookie: x=1',
  '/.//evil.example',
  '/%2e//evil.example',
  'https://evil.example',
  'javascript:alert(1)',
  '',
];

describe('sign-in and sessions', () => {
  it('sets an HttpOnly SameSite=Lax session cookie whose value is stored only as its SHA-256', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    const response = await client.signIn('ada@example.com');
    expect(response.status).toBe(303);
    expect(response.location).toBe('/');
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('cmcp_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const value = client.cookies.get('cmcp_session') ?? '';
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
    const stored = await runtime.database.db.select().from(sessions);
    expect(stored.map((row) => row.id_hash)).toContain(await sha256Hex(value));
    expect(stored.map((row) => row.id_hash)).not.toContain(value);
  });

  it('marks the cookie Secure with the __Host- prefix when the request came over HTTPS', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime, 'https://compliance.example.com');
    const response = await client.signIn('ada@example.com');
    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((line) => line.startsWith('__Host-cmcp_session='));
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/HttpOnly/);
    expect((await client.get('/settings/tokens')).status).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same message', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const wrong = await new WebClient(runtime).signIn('ada@example.com', 'not the password');
    const unknown = await new WebClient(runtime).signIn('nobody@example.com', 'not the password');
    expect(wrong.status).toBe(422);
    expect(unknown.status).toBe(422);
    expect(textOf(wrong.html)).toContain('The email or the password is not correct.');
    expect(textOf(unknown.html)).toContain('The email or the password is not correct.');
    expect(wrong.headers.getSetCookie().some((line) => line.startsWith('cmcp_session='))).toBe(false);
  });

  it('slows an (email, network) pair down after 5 failures, doubling the wait, even for the right password', async () => {
    const { runtime, clock } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect((await client.signIn('ada@example.com', `guess ${attempt}`)).status).toBe(422);
      clock.advance(60);
    }
    const fifth = await client.signIn('ada@example.com', 'guess 5');
    expect(fifth.status).toBe(429);
    expect(textOf(fifth.html)).toContain(
      'Too many failed sign-ins for this email address from your network. Try again in 1 minute.',
    );
    expect(Number(fifth.headers.get('retry-after'))).toBe(60);

    const right = await client.signIn('ada@example.com');
    expect(right.status).toBe(429);
    expect(right.headers.getSetCookie().some((line) => line.startsWith('cmcp_session='))).toBe(false);

    clock.advance(59);
    expect((await client.signIn('ada@example.com')).status).toBe(429);
    clock.advance(1);
    // One more try; wrong again: the wait doubles.
    const sixth = await client.signIn('ada@example.com', 'guess 6');
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get('retry-after'))).toBe(120);
    clock.advance(120);
    const after = await client.signIn('ada@example.com');
    expect(after.status).toBe(303);
    expect(client.cookies.has('cmcp_session')).toBe(true);
  });

  it('locks unknown emails alike, so the lock says nothing about which accounts exist', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const statuses = async (email: string) => {
      const client = new WebClient(runtime);
      const seen: string[] = [];
      for (let attempt = 1; attempt <= 6; attempt++) {
        const response = await client.signIn(email, 'x');
        seen.push(`${response.status} ${textOf(response.html).replace(email, 'EMAIL').slice(0, 400)}`);
      }
      return seen;
    };
    expect(await statuses('ghost@example.com')).toEqual(await statuses('ada@example.com'));
    const rows = await runtime.database.db
      .select()
      .from(signInAttempts)
      .where(eq(signInAttempts.email, 'signin:ghost@example.com'));
    expect(rows).toHaveLength(5); // refused attempts are not even checked
  });

  it('counts a burst of parallel wrong passwords before checking any, so it gets no more than 5 guesses', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    const csrf = csrfOf((await client.get('/login')).html);
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) =>
        client.post('/login', { _csrf: csrf, email: 'ada@example.com', password: `guess ${attempt}` }),
      ),
    );
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(15);
    expect(statuses.every((status) => status === 422 || status === 429)).toBe(true);
    const rows = await runtime.database.db
      .select()
      .from(signInAttempts)
      .where(eq(signInAttempts.email, 'signin:ada@example.com'));
    expect(rows.length).toBeLessThanOrEqual(5); // only the checked passwords are recorded
    const right = await client.signIn('ada@example.com');
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('resets the count after a successful sign-in', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    for (let attempt = 1; attempt <= 4; attempt++) await client.signIn('ada@example.com', 'wrong');
    expect((await client.signIn('ada@example.com')).status).toBe(303);
    const other = new WebClient(runtime);
    for (let attempt = 1; attempt <= 4; attempt++)
      expect((await other.signIn('ada@example.com', 'wrong')).status).toBe(422);
  });

  it('sends a signed-out visitor to the sign-in page and back to where they were going', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    const page = await client.get('/settings/tokens');
    expect(page.status).toBe(303);
    expect(page.location).toBe('/login?next=%2Fsettings%2Ftokens');
    const login = await client.get(page.location ?? '');
    const response = await client.post('/login', {
      _csrf: csrfOf(login.html),
      email: 'ada@example.com',
      password: PASSWORD,
      next: '/settings/tokens',
    });
    expect(response.location).toBe('/settings/tokens');
  });

  it('never redirects off the site after sign-in', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    for (const next of ['//evil.example/', 'https://evil.example/', ...offSite]) {
      const client = new WebClient(runtime);
      const login = await client.get('/login');
      const response = await client.post('/login', {
        _csrf: csrfOf(login.html),
        email: 'ada@example.com',
        password: PASSWORD,
        next,
      });
      expect(response.location).toBe('/');
    }
  });

  it('keeps only a path on this site as the target after sign-in (safeNext)', () => {
    for (const next of offSite) expect(safeNext(next), JSON.stringify(next)).toBe('/');
    expect(safeNext(undefined)).toBe('/');
    expect(safeNext('/orgs/org_x/risks?x=1')).toBe('/orgs/org_x/risks?x=1');
    expect(safeNext('/orgs/org_x/risks?q=a%20b#top')).toBe('/orgs/org_x/risks?q=a%20b#top');
  });

  it('redirects a signed-in visitor of /login?next= only within the site, never with a broken header', async () => {
    const { client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    for (const next of offSite) {
      const page = await client.get(`/login?next=${encodeURIComponent(next)}`);
      expect(page.status, JSON.stringify(next)).toBe(303);
      expect(page.location, JSON.stringify(next)).toBe('/');
    }
    // The raw forms from the report: %09 and %0a decoded into the query value.
    for (const query of ['/%09/evil.example/x', '/%0a/x', '/%0d%0a/x']) {
      const page = await client.get(`/login?next=${query}`);
      expect(page.status, query).toBe(303);
      expect(page.location, query).toBe('/');
    }
    const legit = await client.get(`/login?next=${encodeURIComponent('/orgs/org_x/risks?x=1')}`);
    expect(legit.location).toBe('/orgs/org_x/risks?x=1');
  });

  it('ends a session after 12 idle hours', async () => {
    const { runtime, clock, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    clock.advance(SESSION_IDLE_SECONDS - 60);
    expect((await client.get('/settings/tokens')).status).toBe(200);
    clock.advance(SESSION_IDLE_SECONDS - 60); // active a moment ago: still in
    expect((await client.get('/settings/tokens')).status).toBe(200);
    clock.advance(SESSION_IDLE_SECONDS);
    const page = await client.get('/settings/tokens');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/^\/login/);
    expect(await runtime.database.db.select().from(sessions)).toEqual([]);
  });

  it('ends a session 7 days after sign-in however active it is', async () => {
    const { clock, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    let elapsed = 0;
    while (elapsed + 6 * 3600 < SESSION_ABSOLUTE_SECONDS) {
      clock.advance(6 * 3600);
      elapsed += 6 * 3600;
      expect((await client.get('/settings/tokens')).status).toBe(200);
    }
    clock.advance(SESSION_ABSOLUTE_SECONDS - elapsed);
    expect((await client.get('/settings/tokens')).status).toBe(303);
  });

  it('signs out by deleting the session, so the old cookie is worthless', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const cookie = client.cookies.get('cmcp_session') ?? '';
    const page = await client.get('/settings/tokens');
    const response = await client.post('/logout', { _csrf: csrfOf(page.html) });
    expect(response.location).toBe('/login?signed_out');
    expect(client.cookies.has('cmcp_session')).toBe(false);
    expect(await runtime.database.db.select().from(sessions)).toEqual([]);
    const replay = new WebClient(runtime);
    replay.cookies.set('cmcp_session', cookie);
    expect((await replay.get('/settings/tokens')).status).toBe(303);
  });
});

describe('password change', () => {
  it('needs the current password, then replaces it and signs out the other sessions', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const elsewhere = new WebClient(runtime);
    await elsewhere.signIn('ada@example.com');
    expect((await elsewhere.get('/settings/tokens')).status).toBe(200);

    const wrong = await client.submit('/settings/password', '/settings/password', {
      current_password: 'not it at all',
      new_password: 'a brand new passphrase',
      new_password_confirm: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(422);
    expect(textOf(wrong.html)).toContain('The current password is not correct');

    const changed = await client.submit('/settings/password', '/settings/password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
      new_password_confirm: 'a brand new passphrase',
    });
    expect(changed.status).toBe(200);
    expect(textOf(changed.html)).toContain('Your password was changed');
    expect((await client.get('/settings/tokens')).status).toBe(200);
    expect((await elsewhere.get('/settings/tokens')).status).toBe(303);
    expect((await new WebClient(runtime).signIn('ada@example.com')).status).toBe(422);
    expect((await new WebClient(runtime).signIn('ada@example.com', 'a brand new passphrase')).status).toBe(
      303,
    );
  });

  it('is not locked by strangers’ failed sign-ins for the same email', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const stranger = new WebClient(runtime);
    for (let attempt = 1; attempt <= 6; attempt++)
      await stranger.signIn('ada@example.com', `guess ${attempt}`);
    expect((await stranger.signIn('ada@example.com', 'guess 7')).status).toBe(429);

    const changed = await client.submit('/settings/password', '/settings/password', {
      current_password: PASSWORD,
      new_password: 'a brand new passphrase',
      new_password_confirm: 'a brand new passphrase',
    });
    expect(changed.status).toBe(200);
    expect(textOf(changed.html)).toContain('Your password was changed');
  });

  it('limits wrong current passwords to 5 in 15 minutes per user, apart from sign-ins', async () => {
    const { runtime, clock, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const change = (current: string) =>
      client.submit('/settings/password', '/settings/password', {
        current_password: current,
        new_password: 'a brand new passphrase',
        new_password_confirm: 'a brand new passphrase',
      });
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await change(`wrong ${attempt}`)).status).toBe(422);
      clock.advance(60);
    }
    const locked = await change(PASSWORD);
    expect(locked.status).toBe(429);
    expect(textOf(locked.html)).toContain('Too many wrong passwords');
    expect(Number(locked.headers.get('retry-after'))).toBe(10 * 60);
    // Signing in is a different counter: still possible, from here or elsewhere.
    expect((await new WebClient(runtime).signIn('ada@example.com')).status).toBe(303);
    clock.advance(10 * 60);
    expect((await change(PASSWORD)).status).toBe(200);
  });

  it('counts parallel wrong current passwords before checking them', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const csrf = csrfOf((await client.get('/settings/password')).html);
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) =>
        client.post('/settings/password', {
          _csrf: csrf,
          current_password: `wrong ${attempt}`,
          new_password: 'a brand new passphrase',
          new_password_confirm: 'a brand new passphrase',
        }),
      ),
    );
    expect(burst.filter((response) => response.status === 422).length).toBeLessThanOrEqual(5);
    expect(burst.filter((response) => response.status === 429).length).toBeGreaterThanOrEqual(15);
    const rows = await runtime.database.db.select().from(signInAttempts);
    expect(rows.filter((row) => row.email.startsWith('password-change:'))).toHaveLength(5);
    expect(rows.filter((row) => row.email === 'ada@example.com')).toEqual([]);
  });
});

describe('CSRF', () => {
  it('refuses a signed-in POST without the token, with a wrong one, or with another session’s', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const other = new WebClient(runtime);
    await other.signUp('bob@example.com');
    const otherToken = csrfOf((await other.get('/settings/tokens/new')).html);
    const fields = { name: 'sneaky', scope: 'read_write', organization_mode: 'all', expires_in_days: '90' };

    for (const csrf of [undefined, 'x'.repeat(43), otherToken]) {
      const response = await client.post('/settings/tokens', csrf ? { ...fields, _csrf: csrf } : fields);
      expect(response.status).toBe(403);
      expect(textOf(response.html)).toContain('This form could not be verified');
    }
    expect(
      await runtime.tokens.list((await findUserByEmail(runtime.database.db, 'ada@example.com'))?.id ?? ''),
    ).toEqual([]);
    const ok = await client.submit('/settings/tokens/new', '/settings/tokens', fields);
    expect(ok.status).toBe(201);
  });

  it('guards every signed-in form: without the token nothing changes', async () => {
    const { runtime, client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const organizationId = await firstOrganizationId(client);
    await new WebClient(runtime).signUp('bob@example.com');
    const created = await client.submit('/settings/tokens/new', '/settings/tokens', {
      name: 'keep',
      scope: 'read',
      organization_mode: 'all',
      expires_in_days: '30',
    });
    const tokenId = /\/settings\/tokens\/(tok_[a-z0-9]+)/.exec(
      (await client.get('/settings/tokens')).html,
    )?.[1];
    expect(created.status).toBe(201);
    const attempts: [string, Record<string, string>][] = [
      ['/orgs', { name: 'Forged' }],
      [`/orgs/${organizationId}/members`, { email: 'bob@example.com', role: 'OWNER' }],
      [`/settings/tokens/${tokenId}/revoke`, {}],
      [
        '/settings/password',
        { current_password: PASSWORD, new_password: 'x'.repeat(12), new_password_confirm: 'x'.repeat(12) },
      ],
      ['/logout', {}],
    ];
    for (const [path, fields] of attempts) expect((await client.post(path, fields)).status, path).toBe(403);
    expect(await runtime.database.db.select().from(memberships)).toHaveLength(1);
    expect(
      (
        await runtime.tokens.list((await findUserByEmail(runtime.database.db, 'ada@example.com'))?.id ?? '')
      )[0]?.state,
    ).toBe('active');
    expect((await client.get('/settings/tokens')).status).toBe(200); // still signed in, same password
    expect((await new WebClient(runtime).signIn('ada@example.com')).status).toBe(303);
  });

  it('refuses a POST from another origin even with the right token', async () => {
    const { client } = await setup();
    await client.signUp('ada@example.com', 'Org');
    const csrf = csrfOf((await client.get('/settings/tokens/new')).html);
    const fields = { _csrf: csrf, name: 'x', scope: 'read', organization_mode: 'all', expires_in_days: '90' };
    const crossOrigin = await client.post('/settings/tokens', fields, { origin: 'https://evil.example' });
    expect(crossOrigin.status).toBe(403);
    expect(textOf(crossOrigin.html)).toContain('sent from another site');
    const crossSite = await client.post('/settings/tokens', fields, {
      origin: null,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    const noOrigin = await client.post('/settings/tokens', fields, { origin: null });
    expect(noOrigin.status).toBe(201);
  });

  it('protects the sign-in form too (login CSRF), with a token bound to a cookie', async () => {
    const { runtime } = await setup();
    await new WebClient(runtime).signUp('ada@example.com', 'Org');
    const client = new WebClient(runtime);
    const noToken = await client.post('/login', { email: 'ada@example.com', password: PASSWORD });
    expect(noToken.status).toBe(403);
    const page = await client.get('/login');
    const token = csrfOf(page.html);
    const fresh = new WebClient(runtime); // has no form cookie
    expect(
      (await fresh.post('/login', { _csrf: token, email: 'ada@example.com', password: PASSWORD })).status,
    ).toBe(403);
    expect(
      (await client.post('/login', { _csrf: token, email: 'ada@example.com', password: PASSWORD })).status,
    ).toBe(303);
  });
});
