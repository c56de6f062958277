// OAuth 2.1 authorization server in process: metadata, registration, consent, code + PKCE, refresh, revocation.
import { eq, inArray } from 'drizzle-orm';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.ts';
import { apiTokens, oauthClients, oauthCodes, oauthGrants, toolCalls } from '../../src/db/schema.ts';
import { CODE_SECONDS } from '../../src/oauth/resource.ts';
import { BASE, createTestRuntime, runtimesCleanedAfterEach, type TestRuntime } from '../helpers.ts';
import {
  csrfOf,
  firstOrganizationId,
  hiddenFieldsOf,
  inviteAndAccept,
  manualClock,
  signUpLinkOf,
  textOf,
  WebClient,
} from '../web/web-client.ts';

const runtimes = runtimesCleanedAfterEach();

const REDIRECT = 'https://claude.ai/api/mcp/auth_callback';
const MCP = `${BASE}/api/mcp/v1`;

async function setup(env: Record<string, string> = {}) {
  const clock = manualClock();
  const runtime = await createTestRuntime({ now: clock.now, env });
  runtimes.push(runtime);
  const web = new WebClient(runtime);
  await web.signUp('ada@example.com', 'Acme Health');
  const organizationId = await firstOrganizationId(web);
  return { runtime, web, clock, organizationId };
}

async function register(runtime: TestRuntime, metadata: Record<string, unknown>, path = '/oauth/register') {
  const response = await runtime.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function publicClient(runtime: TestRuntime, redirect = REDIRECT): Promise<string> {
  const { status, body } = await register(runtime, {
    client_name: 'Claude',
    redirect_uris: [redirect],
    token_endpoint_auth_method: 'none',
  });
  expect(status).toBe(201);
  return body.client_id as string;
}

/** A verifier and its S256 challenge, computed by a client library (oauth4webapi), not by the server's code. */
async function pkce() {
  const verifier = generateRandomCodeVerifier();
  return { verifier, challenge: await calculatePKCECodeChallenge(verifier) };
}

function authorizeQuery(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-123',
    scope: 'read read_write',
    resource: MCP,
    ...extra,
  }).toString();
}

/** Opens the consent page and submits it; returns the redirect back to the client. */
async function consent(web: WebClient, query: string, fields: Record<string, string | string[]> = {}) {
  const page = await web.get(`/oauth/authorize?${query}`);
  expect(page.status, page.html.slice(0, 300)).toBe(200);
  const hidden = hiddenFieldsOf(page.html);
  const answer = await web.post('/oauth/authorize', {
    ...hidden,
    _csrf: csrfOf(page.html),
    decision: 'allow',
    granted_scope: 'read_write',
    organization_mode: 'all',
    expires_in_days: '30',
    ...fields,
  });
  expect(answer.status).toBe(303);
  return new URL(answer.location ?? '');
}

async function token(
  runtime: TestRuntime,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const response = await runtime.app.request(`${BASE}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string | number> };
}

function exchange(
  runtime: TestRuntime,
  clientId: string,
  code: string,
  verifier: string,
  override: Record<string, string> = {},
) {
  return token(runtime, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
    ...override,
  });
}

function refreshWith(
  runtime: TestRuntime,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
) {
  return token(runtime, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    ...extra,
  });
}

async function codeFor(
  web: WebClient,
  clientId: string,
  extra: Record<string, string> = {},
  fields: Record<string, string | string[]> = {},
) {
  const { verifier, challenge } = await pkce();
  const back = await consent(web, authorizeQuery(clientId, challenge, extra), fields);
  return { code: back.searchParams.get('code') ?? '', verifier, back };
}

async function tokensFor(runtime: TestRuntime, web: WebClient, clientId: string) {
  const { code, verifier } = await codeFor(web, clientId);
  const answer = await exchange(runtime, clientId, code, verifier, { resource: MCP });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return {
    access: answer.body.access_token as string,
    refresh: answer.body.refresh_token as string,
    body: answer.body,
  };
}

async function listOrganizations(runtime: TestRuntime, accessToken: string, base = BASE) {
  const response = await runtime.app.request(`${base}/api/mcp/tools/listOrganizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: response.status, response, body: (await response.json()) as Record<string, unknown> };
}

describe('metadata', () => {
  it('publishes protected resource metadata at the root and path-suffixed URLs, and the server metadata', async () => {
    const { runtime } = await setup();
    const suffixed = await (
      await runtime.app.request(`${BASE}/.well-known/oauth-protected-resource/api/mcp/v1`)
    ).json();
    expect(suffixed).toMatchObject({
      resource: MCP,
      authorization_servers: [BASE],
      scopes_supported: ['read', 'propose', 'read_write'],
      bearer_methods_supported: ['header'],
    });
    const root = await (await runtime.app.request(`${BASE}/.well-known/oauth-protected-resource`)).json();
    expect(root).toMatchObject({ resource: BASE, authorization_servers: [BASE] });
    const server = await runtime.app.request(`${BASE}/.well-known/oauth-authorization-server`);
    expect(server.headers.get('access-control-allow-origin')).toBe('*');
    expect(await server.json()).toMatchObject({
      issuer: BASE,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });

  it('uses PUBLIC_URL in the documents and in the 401 challenge', async () => {
    const { runtime } = await setup({ PUBLIC_URL: 'https://compliance.example.com' });
    const server = (await (
      await runtime.app.request(`${BASE}/.well-known/oauth-authorization-server`)
    ).json()) as {
      issuer: string;
    };
    expect(server.issuer).toBe('https://compliance.example.com');
    const refused = await runtime.app.request(`${BASE}/api/mcp/v1`, { method: 'POST' });
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="compliance-mcp", resource_metadata="https://compliance.example.com/.well-known/oauth-protected-resource/api/mcp/v1"',
    );
  });

  it('answers 401 with resource_metadata on every API surface, and names the scope on 403 insufficient_scope', async () => {
    const { runtime, web, organizationId } = await setup();
    for (const path of ['/api/mcp/v1', '/api/mcp/tools/listOrganizations']) {
      const response = await runtime.app.request(`${BASE}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer cmcp_unknownunknownunknown' },
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="compliance-mcp", resource_metadata="http:\/\/127\.0\.0\.1:8787\/\.well-known\/oauth-protected-resource\/api\/mcp\/v1", error="invalid_token"/,
      );
    }
    const clientId = await publicClient(runtime);
    const { code, verifier } = await codeFor(web, clientId);
    await web.get('/');
    const issued = await exchange(runtime, clientId, code, verifier);
    expect(issued.body.scope).toBe('read_write');
    // A read-only grant calling a write tool.
    const read = await codeFor(web, clientId, { scope: 'read' }, { granted_scope: 'read' });
    const readToken = await exchange(runtime, clientId, read.code, read.verifier);
    expect(readToken.body.scope).toBe('read');
    const write = await runtime.app.request(`${BASE}/api/mcp/tools/addVendor`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readToken.body.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: organizationId, name: 'X' }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(write.headers.get('www-authenticate')).toContain('scope="read_write"');
  });
});

describe('authorization code with PKCE', () => {
  it('sends a signed-out person to sign in first, then back to the consent page', async () => {
    const { runtime } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    const stranger = new WebClient(runtime);
    const first = await stranger.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    expect(first.status).toBe(303);
    const login = new URL(first.location ?? '', BASE);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('next')).toBe(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
  });

  it('brings a person who signs up on the way back to the consent page', async () => {
    const { runtime } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    const newcomer = new WebClient(runtime);
    const login = await newcomer.follow(
      await newcomer.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`),
    );
    const link = /href="(\/signup\?next=[^"]+)"/.exec(login.html)?.[1]?.replace(/&amp;/g, '&');
    expect(link).toBeDefined();
    const signup = await newcomer.get(link as string);
    const next = /name="next" value="([^"]+)"/.exec(signup.html)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toBe(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const created = await newcomer.post('/signup', {
      _csrf: csrfOf(signup.html),
      name: 'Grace',
      email: 'grace@example.com',
      password: 'correct horse battery staple',
      password_confirm: 'correct horse battery staple',
      next: next as string,
    });
    // A later account is made when its address is confirmed: the link brings the person back to the consent page.
    expect(textOf(created.html)).toContain('Check your email');
    const confirmed = await newcomer.openLink(await signUpLinkOf(runtime, 'grace@example.com'));
    expect(confirmed.location).toBe(next);
    expect(textOf((await newcomer.get(next as string)).html)).toContain('Connect Claude?');
  });

  it('issues tokens that work like API tokens: hashed, scoped to the chosen organizations, logged', async () => {
    const { runtime, web, organizationId } = await setup();
    // A second organization the grant will not include.
    await web.submit('/orgs/new', '/orgs', { name: 'Acme Labs' });
    const clientId = await publicClient(runtime);
    const { verifier, challenge } = await pkce();
    const page = await web.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const text = textOf(page.html);
    expect(text).toContain('Connect Claude?');
    expect(text).toContain('claude.ai');
    expect(text).toContain('registered by the app itself');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://claude.ai");
    const back = await consent(web, authorizeQuery(clientId, challenge), {
      granted_scope: 'read',
      organization_mode: 'some',
      organizations: [organizationId],
    });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('iss')).toBe(BASE);
    const answer = await exchange(runtime, clientId, back.searchParams.get('code') ?? '', verifier, {
      resource: MCP,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    const access = answer.body.access_token as string;
    expect(access).toMatch(/^cmcp_/);
    expect(answer.body.refresh_token).toMatch(/^cmcpr_/);

    const listed = await listOrganizations(runtime, access);
    expect(listed.status).toBe(200);
    const organizations = listed.body.organizations as { id: string }[];
    expect(organizations.map((organization) => organization.id)).toEqual([organizationId]);

    const [row] = await runtime.database.db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.token_hash, await hashToken(access)));
    expect(row).toMatchObject({
      scope: 'read',
      organization_ids: [organizationId],
      resource: MCP,
      name: 'Claude',
    });
    expect(row?.grant_id).toMatch(/^grt_/);
    expect(JSON.stringify(row)).not.toContain(access);
    expect(Date.parse(row?.expires_at ?? '') - Date.parse(row?.created_at ?? '')).toBe(3600_000);
    await runtime.usage.flush();
    const calls = await runtime.database.db
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.token_id, row?.id ?? ''));
    expect(calls.map((call) => call.tool)).toEqual(['listOrganizations']);

    // Settings > API Tokens: a connected client with its last use; its access tokens are not listed as API tokens.
    const settings = textOf((await web.get('/settings/tokens')).html);
    expect(settings).toContain('You have no API tokens yet.');
    expect(settings).toMatch(/Connected clients .* Claude claude\.ai read Acme Health .* connected/);
  });

  it('sends Deny back to the client as access_denied with the state, and issues nothing', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    const back = await consent(web, authorizeQuery(clientId, challenge), { decision: 'deny' });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
    expect(back.searchParams.get('code')).toBeNull();
    expect(await runtime.database.db.select().from(oauthGrants)).toEqual([]);
  });

  it('refuses the consent form without its CSRF token or from another site', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    const fields = Object.fromEntries(new URLSearchParams(authorizeQuery(clientId, challenge)));
    const noToken = await web.post('/oauth/authorize', { ...fields, decision: 'allow' });
    expect(noToken.status).toBe(403);
    const page = await web.get(`/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    const crossSite = await web.post(
      '/oauth/authorize',
      { ...fields, _csrf: csrfOf(page.html), decision: 'allow' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(noToken.location).toBeNull();
    expect(await runtime.database.db.select().from(oauthGrants)).toEqual([]);
  });

  it('never redirects to an unregistered redirect_uri or for an unknown client (no open redirect)', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    for (const query of [
      authorizeQuery(clientId, challenge, { redirect_uri: 'https://evil.example/callback' }),
      authorizeQuery(clientId, challenge, { redirect_uri: `${REDIRECT}/` }),
      authorizeQuery(clientId, challenge, { redirect_uri: `${REDIRECT}?x=1` }),
      authorizeQuery('cli_unknownunknownunknown1', challenge),
    ]) {
      const page = await web.get(`/oauth/authorize?${query}`);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.html).not.toContain('evil.example');
    }
  });

  it('requires PKCE with S256 and a response_type of code, answering at the redirect URI', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { challenge } = await pkce();
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: '' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
    ];
    for (const [extra, error] of cases) {
      const page = await web.get(`/oauth/authorize?${authorizeQuery(clientId, challenge, extra)}`);
      expect(page.status).toBe(303);
      const back = new URL(page.location ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('state')).toBe('state-123');
    }
  });
});

describe('refusals at the token endpoint', () => {
  it('refuses a wrong redirect_uri, a bad verifier, another client, and an unknown code', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const other = await publicClient(runtime);
    const attempts: [Record<string, string>, string][] = [
      [{ redirect_uri: 'https://claude.ai/other' }, 'invalid_grant'],
      [{ code_verifier: generateRandomCodeVerifier() }, 'invalid_grant'],
      [{ code_verifier: 'short' }, 'invalid_grant'],
      [{ client_id: other }, 'invalid_grant'],
    ];
    for (const [override, error] of attempts) {
      const { code, verifier } = await codeFor(web, clientId);
      const answer = await token(runtime, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
        ...override,
      });
      expect(answer.status, JSON.stringify(override)).toBe(400);
      expect(answer.body.error).toBe(error);
      // The code is spent even by a failed attempt.
      const retry = await exchange(runtime, clientId, code, verifier);
      expect(retry.body.error).toBe('invalid_grant');
    }
    const unknown = await exchange(runtime, clientId, 'cmcpc_nothing', generateRandomCodeVerifier());
    expect(unknown.body.error).toBe('invalid_grant');
    const unsupported = await token(runtime, { grant_type: 'password', client_id: clientId });
    expect(unsupported.body.error).toBe('unsupported_grant_type');
  });

  it('refuses a reused code and revokes the tokens the first use issued', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { code, verifier } = await codeFor(web, clientId);
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    };
    const first = await token(runtime, form);
    expect(first.status).toBe(200);
    expect((await listOrganizations(runtime, first.body.access_token as string)).status).toBe(200);
    const second = await token(runtime, form);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await listOrganizations(runtime, first.body.access_token as string)).status).toBe(401);
    const refreshed = await refreshWith(runtime, clientId, first.body.refresh_token as string);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('refuses a code after five minutes', async () => {
    const { runtime, web, clock } = await setup();
    const clientId = await publicClient(runtime);
    const { code, verifier } = await codeFor(web, clientId);
    clock.advance(301);
    const answer = await exchange(runtime, clientId, code, verifier);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    expect(String(answer.body.error_description)).toContain('expired');
  });

  it('deletes codes a day after they expired, when the next code is made', async () => {
    const { runtime, web, clock } = await setup();
    const clientId = await publicClient(runtime);
    const old = await codeFor(web, clientId);
    clock.advance(CODE_SECONDS + 86_400 + 1);
    await web.signIn('ada@example.com'); // the session idled out meanwhile
    await codeFor(web, clientId);
    const codes = await runtime.database.db.select().from(oauthCodes);
    expect(codes).toHaveLength(1);
    expect(codes[0]?.code_hash).not.toBe(await hashToken(old.code));
  });

  it('refuses a resource other than this server, at the token endpoint and at the API', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { code, verifier } = await codeFor(web, clientId);
    const wrong = await exchange(runtime, clientId, code, verifier, {
      resource: 'https://other.example/api/mcp/v1',
    });
    expect(wrong.body.error).toBe('invalid_target');
    // A token bound to this server reached under another name (another host sharing the database) is refused.
    const { access } = await tokensFor(runtime, web, clientId);
    expect((await listOrganizations(runtime, access)).status).toBe(200);
    const elsewhere = await listOrganizations(runtime, access, 'http://localhost:9999');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(JSON.stringify(elsewhere.body)).toContain('another resource');
  });
});

describe('refresh and revocation', () => {
  it('keeps a connection for all organizations to those of the moment of consent, refresh after refresh', async () => {
    const { runtime, web, clock, organizationId } = await setup();
    const clientId = await publicClient(runtime);
    const first = await tokensFor(runtime, web, clientId);
    const names = async (access: string) =>
      ((await listOrganizations(runtime, access)).body.organizations as { id: string }[]).map(
        (row) => row.id,
      );
    expect(await names(first.access)).toEqual([organizationId]);
    // Ada joins Beta after connecting the app: the connection does not widen to it, not even on refresh.
    const owner = new WebClient(runtime);
    await owner.signUp('owner@example.com', 'Beta');
    const beta = await firstOrganizationId(owner);
    clock.advance(60);
    await inviteAndAccept(owner, web, beta, 'ada@example.com', 'VIEWER');
    const refreshed = await refreshWith(runtime, clientId, first.refresh);
    expect(refreshed.status).toBe(200);
    expect(await names(refreshed.body.access_token as string)).toEqual([organizationId]);
    // A connection made after joining reaches both.
    const later = await tokensFor(runtime, web, clientId);
    expect((await names(later.access)).sort()).toEqual([organizationId, beta].sort());
  });

  it('rotates the refresh token, and a replaced one presented again ends the grant', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const first = await tokensFor(runtime, web, clientId);
    const second = await refreshWith(runtime, clientId, first.refresh);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh);
    expect(second.body.access_token).not.toBe(first.access);
    expect(second.body.scope).toBe('read_write');
    expect((await listOrganizations(runtime, second.body.access_token as string)).status).toBe(200);
    // Narrowing the scope on refresh is allowed, widening is not.
    const narrowed = await refreshWith(runtime, clientId, second.body.refresh_token as string, {
      scope: 'read',
    });
    expect(narrowed.body.scope).toBe('read');
    const reused = await refreshWith(runtime, clientId, first.refresh);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    for (const access of [
      first.access,
      second.body.access_token as string,
      narrowed.body.access_token as string,
    ])
      expect((await listOrganizations(runtime, access)).status).toBe(401);
    const newest = await refreshWith(runtime, clientId, narrowed.body.refresh_token as string);
    expect(newest.body.error).toBe('invalid_grant');
  });

  it('revokes at the revocation endpoint: an access token alone, a refresh token with its grant', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const otherClient = await publicClient(runtime);
    const { access, refresh } = await tokensFor(runtime, web, clientId);
    const revoke = (form: Record<string, string>) =>
      runtime.app.request(`${BASE}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    // Another client cannot revoke it (and learns nothing: the answer is 200 either way).
    expect((await revoke({ token: access, client_id: otherClient })).status).toBe(200);
    expect((await listOrganizations(runtime, access)).status).toBe(200);
    expect((await revoke({ token: access, client_id: clientId })).status).toBe(200);
    expect((await listOrganizations(runtime, access)).status).toBe(401);
    const renewed = await refreshWith(runtime, clientId, refresh);
    expect(renewed.status).toBe(200);
    expect((await revoke({ token: renewed.body.refresh_token as string, client_id: clientId })).status).toBe(
      200,
    );
    expect((await listOrganizations(runtime, renewed.body.access_token as string)).status).toBe(401);
    expect((await revoke({ token: 'whatever-unknown', client_id: clientId })).status).toBe(200);
  });

  it('revokes the grant from Settings > API Tokens: its tokens and refresh token stop working', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { access, refresh } = await tokensFor(runtime, web, clientId);
    const list = await web.get('/settings/tokens');
    const revokeLink = /href="(\/settings\/connected-clients\/grt_[a-z0-9]+\/revoke)"/.exec(list.html)?.[1];
    expect(revokeLink).toBeDefined();
    const done = await web.submit(revokeLink as string, revokeLink as string, {});
    expect(done.location).toBe('/settings/tokens?done=client-revoked');
    const refused = await listOrganizations(runtime, access);
    expect(refused.status).toBe(401);
    // The way back is in the client (reconnect), not in Settings > API Tokens.
    expect((refused.body.error as { message: string }).message).toBe(
      'This connection was revoked or ended. Reconnect the client: it opens the sign-in and consent page again.',
    );
    const refreshed = await refreshWith(runtime, clientId, refresh);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect(textOf((await web.get('/settings/tokens')).html)).toMatch(/Claude .* revoked/);
  });

  it('expires access tokens after an hour and the grant at the chosen expiry', async () => {
    const { runtime, web, clock } = await setup();
    const clientId = await publicClient(runtime);
    const { access, refresh } = await tokensFor(runtime, web, clientId);
    clock.advance(3601);
    const expired = await listOrganizations(runtime, access);
    expect(expired.status).toBe(401);
    expect((expired.body.error as { message: string }).message).toBe(
      'This access token has expired. The client refreshes it by itself; if it cannot, reconnect it (sign in and allow it again).',
    );
    expect(expired.response.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const renewed = await refreshWith(runtime, clientId, refresh);
    expect(renewed.status).toBe(200);
    clock.advance(30 * 86_400);
    const late = await refreshWith(runtime, clientId, renewed.body.refresh_token as string);
    expect(late.body.error).toBe('invalid_grant');
  });
});

describe('dynamic client registration', () => {
  it('refuses redirect URIs that are not https, loopback http or an app scheme', async () => {
    const { runtime } = await setup();
    for (const uri of [
      'http://evil.example/cb',
      'javascript:alert(1)',
      'https://claude.ai/cb#frag',
      'not a url',
    ]) {
      const { status, body } = await register(runtime, {
        redirect_uris: [uri],
        token_endpoint_auth_method: 'none',
      });
      expect(status, uri).toBe(400);
      expect(body.error).toBe('invalid_redirect_uri');
    }
    for (const uri of [
      'http://127.0.0.1:33418/callback',
      'http://localhost:6274/oauth/callback',
      'cursor://anysphere.cursor-mcp/oauth',
    ]) {
      expect(
        (await register(runtime, { redirect_uris: [uri], token_endpoint_auth_method: 'none' })).status,
        uri,
      ).toBe(201);
    }
  });

  it('gives confidential clients a secret that the token endpoint checks (Basic and form)', async () => {
    const { runtime, web } = await setup();
    const registered = await register(runtime, { client_name: 'ChatGPT', redirect_uris: [REDIRECT] });
    expect(registered.status).toBe(201);
    expect(registered.body.token_endpoint_auth_method).toBe('client_secret_basic');
    const { client_id: clientId, client_secret: secret } = registered.body as {
      client_id: string;
      client_secret: string;
    };
    expect(secret).toMatch(/^cmcps_/);
    const { code, verifier } = await codeFor(web, clientId);
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const basic = (password: string) => `Basic ${btoa(`${clientId}:${password}`)}`;
    const wrong = await token(runtime, form, { authorization: basic('wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const missing = await token(runtime, { ...form, client_id: clientId });
    expect(missing.status).toBe(401);
    const ok = await token(runtime, form, { authorization: basic(secret) });
    expect(ok.status).toBe(200);
    const refreshed = await refreshWith(runtime, clientId, ok.body.refresh_token as string, {
      client_secret: secret,
    });
    expect(refreshed.status).toBe(200);
  });
});

/** tools/list of the MCP endpoint at `path`, as names. */
async function listedAt(runtime: TestRuntime, path: string, accessToken: string) {
  const response = await runtime.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { tools: { name: string }[] } };
  return body.result.tools.map((tool) => tool.name);
}

// Reported ways Claude and ChatGPT connectors fail against remote MCP servers: one test each, named after it.
describe('connector pitfalls', () => {
  it('a relative resource_metadata: the 401 challenge names an absolute URL, for /api/mcp/v1 and for /mcp', async () => {
    const { runtime } = await setup({ PUBLIC_URL: 'https://compliance.example.com' });
    for (const path of ['/api/mcp/v1', '/mcp']) {
      const refused = await runtime.app.request(`${BASE}${path}?toolsets=all`, { method: 'POST' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer realm="compliance-mcp", resource_metadata="https://compliance.example.com/.well-known/oauth-protected-resource${path}"`,
      );
      const document = (await (
        await runtime.app.request(`${BASE}/.well-known/oauth-protected-resource${path}`)
      ).json()) as { resource: string };
      expect(document.resource).toBe(`https://compliance.example.com${path}`);
    }
  });

  it('a 404 on the path-suffixed metadata (then <issuer>/authorize): every discovery variant answers the server metadata', async () => {
    const { runtime } = await setup();
    const root = await (await runtime.app.request(`${BASE}/.well-known/oauth-authorization-server`)).json();
    const variants = [
      '/.well-known/oauth-authorization-server/api/mcp/v1',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration/api/mcp/v1',
      '/.well-known/openid-configuration/mcp',
      '/api/mcp/v1/.well-known/openid-configuration',
      '/mcp/.well-known/openid-configuration',
      '/api/mcp/v1/.well-known/oauth-authorization-server',
    ];
    for (const path of variants) {
      const response = await runtime.app.request(`${BASE}${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json(), path).toEqual(root);
    }
  });

  it('clients that ignore the metadata: /register, /authorize and /token at the root work as under /oauth', async () => {
    const { runtime, web } = await setup();
    const registered = await register(
      runtime,
      { client_name: 'Root client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      '/register',
    );
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id as string;
    const { verifier, challenge } = await pkce();
    const query = authorizeQuery(clientId, challenge);
    const redirected = await runtime.app.request(`${BASE}/authorize?${query}`);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`/oauth/authorize?${query}`);
    const back = await consent(web, query);
    const response = await runtime.app.request(`${BASE}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }).toString(),
    });
    expect(response.status).toBe(200);
    const issued = (await response.json()) as { access_token: string };
    expect((await listOrganizations(runtime, issued.access_token)).status).toBe(200);
    const revoked = await runtime.app.request(`${BASE}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued.access_token, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await listOrganizations(runtime, issued.access_token)).status).toBe(401);
  });

  it('a server whose MCP path is not /mcp: /mcp is an alias, with the same toolsets, and a token for either path works on both', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { code, verifier } = await codeFor(web, clientId, { resource: `${BASE}/mcp?toolsets=risks` });
    const issued = await exchange(runtime, clientId, code, verifier, { resource: `${BASE}/mcp` });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const access = issued.body.access_token as string;
    expect(issued.body.resource).toBe(`${BASE}/mcp`);
    const viaAlias = await listedAt(runtime, '/mcp?toolsets=risks', access);
    expect(viaAlias).toContain('listRisks');
    expect(viaAlias).not.toContain('listVendors');
    expect(await listedAt(runtime, '/api/mcp/v1?toolsets=risks', access)).toEqual(viaAlias);
    expect(await listedAt(runtime, '/mcp', access)).toEqual(await listedAt(runtime, '/api/mcp/v1', access));
    expect((await runtime.app.request(`${BASE}/mcp`)).status).toBe(401);
    const authorized = { headers: { authorization: `Bearer ${access}` } };
    expect((await runtime.app.request(`${BASE}/mcp`, authorized)).status).toBe(405);
  });

  it('no invalid_client (401) for an unknown or purged client, so the client never re-registers: the token endpoint says invalid_client', async () => {
    const { runtime, web } = await setup();
    const unknown = await token(runtime, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT,
      code_verifier: 'y'.repeat(43),
      client_id: 'mcp_client_that_was_never_registered',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    // A client whose registration is gone (purged) presenting its refresh token.
    const clientId = await publicClient(runtime);
    const { refresh } = await tokensFor(runtime, web, clientId);
    const { db } = runtime.database;
    const grantIds = (await db.select().from(oauthGrants).where(eq(oauthGrants.client_id, clientId))).map(
      (grant) => grant.id,
    );
    await db.delete(apiTokens).where(inArray(apiTokens.grant_id, grantIds));
    await db.delete(oauthCodes).where(inArray(oauthCodes.grant_id, grantIds));
    await db.delete(oauthGrants).where(eq(oauthGrants.client_id, clientId));
    await db.delete(oauthClients).where(eq(oauthClients.client_id, clientId));
    const purged = await refreshWith(runtime, clientId, refresh);
    expect(purged.status).toBe(401);
    expect(purged.body.error).toBe('invalid_client');
  });

  it('the resource parameter not echoed: the token response names the resource, on exchange and refresh', async () => {
    const { runtime, web } = await setup();
    const clientId = await publicClient(runtime);
    const { body, refresh } = await tokensFor(runtime, web, clientId);
    expect(body.resource).toBe(MCP);
    const refreshed = await refreshWith(runtime, clientId, refresh);
    expect(refreshed.body.resource).toBe(MCP);
  });

  it('token endpoint auth methods not published: the server metadata lists them, and PKCE S256', async () => {
    const { runtime } = await setup();
    const server = (await (
      await runtime.app.request(`${BASE}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(server.token_endpoint_auth_methods_supported).toEqual([
      'none',
      'client_secret_post',
      'client_secret_basic',
    ]);
    expect(server.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('the redirect URIs Claude and ChatGPT use are accepted at registration', async () => {
    const { runtime } = await setup();
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'https://claude.com/api/mcp/auth_callback',
      'https://chatgpt.com/connector_platform_oauth_redirect',
    ]) {
      const { status, body } = await register(runtime, {
        client_name: 'Connector',
        redirect_uris: [uri],
        token_endpoint_auth_method: 'none',
      });
      expect(status, uri).toBe(201);
      expect(body.redirect_uris).toEqual([uri]);
    }
  });
});
