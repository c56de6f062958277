// OAuth on the Worker host in workerd: metadata, consent, token exchange, refusals; grants in libSQL, cache in KV.
import { env, exports } from 'cloudflare:workers';
import { eq, like } from 'drizzle-orm';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../src/auth/tokens.ts';
import { apiTokens, oauthClients, oauthGrants } from '../../src/db/schema.ts';
import { METADATA_FETCH_LIMITS, REGISTRATION_LIMITS } from '../../src/oauth/clients.ts';
import { runtimeFor } from '../../src/worker.ts';
import { csrfOf } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { fetchWith, runScheduled, signUpOnWorker, testDatabase, workerBrowser } from './helpers.ts';

const REDIRECT = 'https://chatgpt.com/connector_platform_oauth_redirect';
const MCP = `${BASE}/api/mcp/v1`;

/** A browser stand-in over the Worker entry: its pages read whole, same-origin form posts. */
const browser = () => workerBrowser();

async function json(path: string, init: RequestInit = {}) {
  const response = await exports.default.fetch(new Request(`${BASE}${path}`, init));
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

function form(path: string, fields: Record<string, string>) {
  return json(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A signed-up person (through the web forms) and a registered public client. */
async function setup() {
  const person = browser();
  const email = `oauth-${crypto.randomUUID()}@example.com`;
  const created = await signUpOnWorker(person, email, 'correct horse battery staple', 'Worker Org');
  expect(created.status).toBe(303);
  const registered = await json('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'ChatGPT',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(registered.status).toBe(201);
  return { person, clientId: registered.body.client_id as string };
}

/** Consent (Allow) in the web interface, then the code exchange; returns the token response. */
async function connect(person: ReturnType<typeof browser>, clientId: string) {
  const verifier = generateRandomCodeVerifier();
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'w',
    resource: MCP,
  };
  const page = await person.get(`/oauth/authorize?${new URLSearchParams(params)}`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('Connect ChatGPT?');
  const back = await person.post('/oauth/authorize', {
    ...params,
    scope: 'read',
    _csrf: csrfOf(page.html),
    decision: 'allow',
    granted_scope: 'read',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  const code = new URL(back.location ?? '').searchParams.get('code') ?? '';
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  };
  return { exchange, verifier, code };
}

function listOrganizations(token: string) {
  return json('/api/mcp/tools/listOrganizations', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('OAuth on the Worker', () => {
  it('publishes the metadata and points 401s at it', async () => {
    const resource = await json('/.well-known/oauth-protected-resource/api/mcp/v1');
    expect(resource.body).toMatchObject({ resource: MCP, authorization_servers: [BASE] });
    const server = await json('/.well-known/oauth-authorization-server');
    expect(server.body).toMatchObject({ issuer: BASE, token_endpoint: `${BASE}/oauth/token` });
    const refused = await json('/api/mcp/tools/listOrganizations', { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(
      `resource_metadata="${BASE}/.well-known/oauth-protected-resource/api/mcp/v1"`,
    );
  });

  it('exchanges a code for tokens kept in the database and cached in KV, and refuses the code a second time', async () => {
    const { person, clientId } = await setup();
    const { exchange } = await connect(person, clientId);
    const issued = await form('/oauth/token', exchange);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    const access = issued.body.access_token as string;
    const listed = await listOrganizations(access);
    expect(listed.status).toBe(200);
    expect(
      (listed.body.organizations as { name: string }[]).map((organization) => organization.name),
    ).toEqual(['Worker Org']);

    const database = testDatabase();
    const [row] = await database.db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.token_hash, await hashToken(access)));
    expect(row?.resource).toBe(MCP);
    const grant = await database.db.query.oauthGrants.findFirst({
      where: eq(oauthGrants.id, row?.grant_id ?? ''),
    });
    expect(grant).toMatchObject({ client_id: clientId, scope: 'read', revoked_at: null });
    const cached = (await env.TOKEN_CACHE.get(await hashToken(access), 'json')) as {
      audience?: string;
    } | null;
    expect(cached?.audience).toBe(MCP);

    // The same code again: refused, and the tokens it issued stop working at once (KV entry dropped).
    const again = await form('/oauth/token', exchange);
    expect(again.body.error).toBe('invalid_grant');
    expect(await env.TOKEN_CACHE.get(await hashToken(access))).toBeNull();
    expect((await listOrganizations(access)).status).toBe(401);
    database.client.close();
  });

  it('refuses a bad verifier, a wrong redirect URI and another resource', async () => {
    const { person, clientId } = await setup();
    const cases: [Record<string, string>, string][] = [
      [{ code_verifier: 'x'.repeat(43) }, 'invalid_grant'],
      [{ redirect_uri: 'https://chatgpt.com/elsewhere' }, 'invalid_grant'],
      [{ resource: 'https://other.example/api/mcp/v1' }, 'invalid_target'],
    ];
    for (const [override, error] of cases) {
      const { exchange } = await connect(person, clientId);
      const refused = await form('/oauth/token', { ...exchange, ...override });
      expect(refused.status, JSON.stringify(override)).toBe(400);
      expect(refused.body.error).toBe(error);
    }
  });

  it('rotates refresh tokens and revokes: a revoked access token is refused from the next call', async () => {
    const { person, clientId } = await setup();
    const { exchange } = await connect(person, clientId);
    const first = (await form('/oauth/token', exchange)).body;
    const second = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      client_id: clientId,
    });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const access = second.body.access_token as string;
    expect((await listOrganizations(access)).status).toBe(200);
    const revoked = await form('/oauth/revoke', { token: access, client_id: clientId });
    expect(revoked.status).toBe(200);
    expect((await listOrganizations(access)).status).toBe(401);
    // The replaced refresh token presented again ends the grant.
    const reused = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      client_id: clientId,
    });
    expect(reused.body.error).toBe('invalid_grant');
    const current = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: second.body.refresh_token as string,
      client_id: clientId,
    });
    expect(current.body.error).toBe('invalid_grant');
  });
});

/** A request as Cloudflare's edge hands it over: CF-Connecting-IP names the visitor. */
function fromVisitor(path: string, address: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('cf-connecting-ip', address);
  return exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers }));
}

function registerFrom(address: string) {
  return fromVisitor('/oauth/register', address, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
}

/** A visitor address of its own for each run (the database outlives a run's files). */
function freshAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(2));
  return `2001:db8:${bytes[0]?.toString(16)}:${bytes[1]?.toString(16)}::1`;
}

describe('OAuth on the Worker under anonymous load', () => {
  it('refuses a flood of registrations from one visitor while another still registers', async () => {
    const flooder = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < REGISTRATION_LIMITS.perKey; i++) {
      const answer = await registerFrom(flooder);
      statuses.push(answer.status);
      await answer.body?.cancel();
    }
    const last = await registerFrom(flooder);
    expect(statuses).toEqual(Array(REGISTRATION_LIMITS.perKey).fill(201));
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await last.json()) as { error: string }).error).toBe('temporarily_unavailable');
    const other = await registerFrom(freshAddress());
    expect(other.status).toBe(201);
    expect(((await other.json()) as { client_id: string }).client_id).toMatch(/^cli_/);
  });

  it('stores nothing for anonymous authorize requests with fresh client metadata URLs, and limits their fetches per visitor', async () => {
    const flooder = freshAddress();
    const prefix = `https://agent-${crypto.randomUUID()}`;
    // The documents' hosts answer 404 (no network here); every other fetch (the database) goes through.
    const realFetch = globalThis.fetch;
    const documentFetches: string[] = [];
    const fetched = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.startsWith(prefix)) return realFetch(input, init);
      documentFetches.push(url);
      return Promise.resolve(new Response('not here', { status: 404 }));
    });
    const statuses: number[] = [];
    try {
      for (let i = 0; i < METADATA_FETCH_LIMITS.perKey + 5; i++) {
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: `${prefix}-${i}.example.com/client.json`,
          redirect_uri: REDIRECT,
          code_challenge: 'c'.repeat(43),
          code_challenge_method: 'S256',
        });
        const answer = await fromVisitor(`/oauth/authorize?${query}`, flooder);
        await answer.body?.cancel();
        statuses.push(answer.status);
      }
      // Each fetched document is refused (HTTP 404: 400 page); past the visitor's limit nothing is fetched: 429.
      expect(statuses).toEqual([...Array(METADATA_FETCH_LIMITS.perKey).fill(400), ...Array(5).fill(429)]);
      expect(documentFetches).toHaveLength(METADATA_FETCH_LIMITS.perKey);
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: `${prefix}-other.example.com/c.json`,
      });
      const other = await fromVisitor(`/oauth/authorize?${query}`, freshAddress());
      await other.body?.cancel();
      expect(other.status).toBe(400);
      expect(documentFetches).toHaveLength(METADATA_FETCH_LIMITS.perKey + 1);
    } finally {
      fetched.mockRestore();
    }
    const database = testDatabase();
    const stored = await database.db
      .select({ id: oauthClients.client_id })
      .from(oauthClients)
      .where(like(oauthClients.client_id, `${prefix}%`));
    expect(stored).toEqual([]);
    database.client.close();
  });

  it('does not end a grant for a made-up refresh token naming it', async () => {
    const { person, clientId } = await setup();
    const { exchange } = await connect(person, clientId);
    const first = (await form('/oauth/token', exchange)).body;
    const refresh = first.refresh_token as string;
    const grantId = /^cmcpr_(grt_[a-z0-9]+)\./.exec(refresh)?.[1] ?? '';
    const forged = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: `cmcpr_${grantId}.${'A'.repeat(43)}`,
      client_id: clientId,
    });
    expect(forged.body.error).toBe('invalid_grant');
    expect((await listOrganizations(first.access_token as string)).status).toBe(200);
    const renewed = await form('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    expect(renewed.status).toBe(200);
  });

  it('takes its issuer from PUBLIC_URL, never from the Host; without PUBLIC_URL it serves only as a loopback dev server', async () => {
    const spoofed = await exports.default.fetch(
      new Request('http://evil.example/.well-known/oauth-authorization-server'),
    );
    expect(((await spoofed.json()) as { issuer: string }).issuer).toBe(BASE);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const unset = await fetchWith(new Request(`${BASE}/.well-known/oauth-authorization-server`), {
        ...env,
        PUBLIC_URL: undefined,
      });
      expect(unset.status).toBe(500);
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('PUBLIC_URL is not set'));
      const dev = await fetchWith(
        new Request('http://evil.example:8787/.well-known/oauth-authorization-server'),
        {
          ...env,
          PUBLIC_URL: undefined,
          LOOPBACK_ONLY: 'true',
        },
      );
      expect(((await dev.json()) as { issuer: string }).issuer).toBe('http://127.0.0.1:8787');
    } finally {
      logged.mockRestore();
      // Later tests use the runtime of the real bindings again.
      runtimeFor(env);
    }
  });

  it('forgets clients nobody used from its hourly Cron Trigger', async () => {
    const database = testDatabase();
    const clientId = `cli_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
    await database.db.insert(oauthClients).values({
      client_id: clientId,
      kind: 'registered',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      metadata: '{}',
      created_at: new Date(Date.now() - 25 * 3_600_000).toISOString(),
    });
    const logged = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await runScheduled(env);
      expect(logged).toHaveBeenCalledWith(
        expect.stringMatching(/^upkeep: unused OAuth clients forgotten: [1-9]/),
      );
    } finally {
      logged.mockRestore();
    }
    expect(await database.db.select().from(oauthClients).where(eq(oauthClients.client_id, clientId))).toEqual(
      [],
    );
    database.client.close();
  });
});
