// A browser stand-in for in-process web tests: a cookie jar, same-origin form posts with the page's CSRF token.
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { issueLink, linkPath, pendingSignUpOf, signUpOf } from '../../src/account-links.ts';
import { normalizeEmail } from '../../src/accounts.ts';
import { invitations } from '../../src/db/schema.ts';
import type { Runtime } from '../../src/runtime.ts';
import { BASE, createTestRuntime, type TestRuntime } from '../helpers.ts';

export const PASSWORD = 'correct horse battery staple';

export type Fields = Record<string, string | string[]>;

export interface PageResponse {
  status: number;
  html: string;
  headers: Headers;
  location: string | null;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  /** Sent with every request, e.g. the client's address (`x-real-ip` under CLIENT_ADDRESS_HEADER). */
  readonly headers: Record<string, string> = {};

  constructor(
    readonly runtime: Runtime,
    readonly base = BASE,
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      const expired = attributes.some((attribute) => /^max-age=0$/i.test(attribute)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    path: string,
    init: RequestInit & { headers?: Record<string, string> } = {},
  ): Promise<PageResponse> {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    const response = await this.runtime.app.request(`${this.base}${path}`, { ...init, headers });
    this.remember(response);
    return {
      status: response.status,
      html: await response.text(),
      headers: response.headers,
      location: response.headers.get('location'),
    };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request(path, { headers });
  }

  /** Follows redirects (GET) like a browser, up to 5. */
  async follow(first: PageResponse): Promise<PageResponse> {
    let page = first;
    for (let hop = 0; hop < 5 && page.location; hop++) page = await this.get(page.location);
    return page;
  }

  /** POSTs a form as a same-origin browser would (Origin header, urlencoded body). */
  post(
    path: string,
    fields: Fields,
    options: { origin?: string | null; headers?: Record<string, string> } = {},
  ) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...options.headers,
    };
    const origin = options.origin === undefined ? new URL(this.base).origin : options.origin;
    if (origin !== null) headers.origin = origin;
    return this.request(path, { method: 'POST', body: body.toString(), headers });
  }

  /** Loads the page holding the form, then submits it with that page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Fields): Promise<PageResponse> {
    const page = await this.get(pagePath);
    expect(page.status, `GET ${pagePath}`).toBe(200);
    return this.post(action, { _csrf: csrfOf(page.html), ...fields });
  }

  /** Sends the sign-up form only: the first account is signed in; later ones get "Check your email". */
  async signUpForm(email: string, organization?: string, password = PASSWORD): Promise<PageResponse> {
    return this.submit('/signup', '/signup', {
      name: email.split('@')[0] ?? 'someone',
      email,
      password,
      password_confirm: password,
      ...(organization ? { organization } : {}),
    });
  }

  /**
   * Signs up as a person would: the form, then (for any account but the instance's first) the confirmation link the
   * email would carry, made as the operator's `user verify --link` makes it. Returns the last answer.
   */
  async signUp(email: string, organization?: string, password = PASSWORD): Promise<PageResponse> {
    const form = await this.signUpForm(email, organization, password);
    if (form.status !== 200 || !textOf(form.html).includes('Check your email')) return form;
    return this.openLink(await signUpLinkOf(this.runtime, email));
  }

  /** Opens a confirmation or reset link's page and sends its form (with `fields`, e.g. the new password). */
  async openLink(path: string, fields: Fields = {}): Promise<PageResponse> {
    const page = await this.get(path);
    if (page.status !== 200) return page;
    return this.post(path, { _csrf: csrfOf(page.html), ...fields });
  }

  async signIn(email: string, password = PASSWORD): Promise<PageResponse> {
    return this.submit('/login', '/login', { email, password });
  }
}

/**
 * The way into an organization: `owner` invites `email` from the members page, `member` (signed in with that address)
 * accepts on the Invitations page. Returns the acceptance's answer.
 */
export async function inviteAndAccept(
  owner: WebClient,
  member: WebClient,
  organizationId: string,
  email: string,
  role: string,
  options: { earlierTokens?: boolean } = {},
): Promise<PageResponse> {
  const members = `/orgs/${organizationId}/members`;
  const sent = await owner.submit(members, members, { email, role });
  expect(sent.status, textOf(sent.html)).toBe(303);
  return acceptInvitation(member, organizationId, email, options);
}

/** `member` accepts the open invitation of `email` to the organization on the Invitations page. */
export async function acceptInvitation(
  member: WebClient,
  organizationId: string,
  email: string,
  options: { earlierTokens?: boolean } = {},
): Promise<PageResponse> {
  const [invitation] = await member.runtime.database.db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(eq(invitations.organization_id, organizationId), eq(invitations.email, normalizeEmail(email))),
    );
  if (!invitation) throw new Error(`No invitation of ${email} to ${organizationId}`);
  return member.submit('/invitations', `/invitations/${invitation.id}/accept`, {
    ...(options.earlierTokens ? { earlier_tokens: 'yes' } : {}),
  });
}

/** A fresh link for the newest sign-up of `email` waiting for its link (what `user verify --link` prints). */
export async function signUpLinkOf(runtime: Runtime, email: string): Promise<string> {
  const db = runtime.database.db;
  const pending = await pendingSignUpOf(db, normalizeEmail(email), new Date(0));
  const signUp = pending && signUpOf(pending);
  if (!pending || !signUp) throw new Error(`No sign-up of ${email} waits for its link`);
  const { secret } = await issueLink(db, new Date(pending.created_at), {
    purpose: 'signup',
    email: pending.email,
    userId: null,
    signUp,
  });
  return linkPath('signup', secret);
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('No CSRF field on the page');
  return match[1];
}

/** The hidden inputs of a page's forms, by name (e.g. to resubmit the OAuth consent form). */
export function hiddenFieldsOf(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)].map((match) => [
      match[1] as string,
      (match[2] as string).replace(/&amp;/g, '&'),
    ]),
  );
}

/** The text of a page without tags, whitespace collapsed: for asserting on what a person reads. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The organization id a first sign-up lands on (`/orgs` redirects to it). */
export async function firstOrganizationId(client: WebClient): Promise<string> {
  const page = await client.get('/orgs');
  const match = /^\/orgs\/(org_[a-z0-9]+)$/.exec(page.location ?? '');
  if (!match?.[1])
    throw new Error(`/orgs did not redirect to an organization (${page.status} ${page.location})`);
  return match[1];
}

/** A clock the test moves by hand. */
export function manualClock(start = new Date()) {
  let time = start.getTime();
  return {
    now: () => new Date(time),
    ms: () => time,
    advance(seconds: number) {
      time += seconds * 1000;
    },
  };
}

/** Ada signs up with an organization (Acme Health) and generates a read_write token for all her organizations. */
export async function signUpWithToken(runtime: Runtime) {
  const client = new WebClient(runtime);
  await client.signUp('ada@example.com', 'Acme Health');
  const organizationId = await firstOrganizationId(client);
  const page = await client.submit('/settings/tokens/new', '/settings/tokens', {
    name: 'seeding',
    scope: 'read_write',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  const token = /cmcp_[A-Za-z0-9_-]{43}/.exec(page.html)?.[0] ?? '';
  return { client, organizationId, token };
}

/** A fresh test runtime (tracked in `runtimes` for clean-up) where Ada has signed up and holds a read_write token. */
export async function signedUpRuntime(runtimes: TestRuntime[]) {
  const runtime = await createTestRuntime();
  runtimes.push(runtime);
  return { runtime, ...(await signUpWithToken(runtime)) };
}
