// A browser stand-in for in-process web tests: a cookie jar, same-origin form posts with the page's CSRF token.
import { expect } from 'vitest';
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

  constructor(
    private readonly runtime: Runtime,
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
    const headers: Record<string, string> = { ...init.headers };
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

  async signUp(email: string, organization?: string, password = PASSWORD): Promise<PageResponse> {
    return this.submit('/signup', '/signup', {
      name: email.split('@')[0] ?? 'someone',
      email,
      password,
      password_confirm: password,
      ...(organization ? { organization } : {}),
    });
  }

  async signIn(email: string, password = PASSWORD): Promise<PageResponse> {
    return this.submit('/login', '/login', { email, password });
  }
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
