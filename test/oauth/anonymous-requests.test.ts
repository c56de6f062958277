// OAuth under anonymous load: nothing stored for strangers, fetches and registrations limited per client address (a
// flood from one address leaves the others alone), forged refresh tokens, and an issuer no Host header moves.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, eq } from 'drizzle-orm';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { afterEach, describe, expect, it } from 'vitest';
import { randomBase64Url } from '../../src/auth/crypto.ts';
import { loadConfig } from '../../src/config.ts';
import { oauthClients, oauthGrants } from '../../src/db/schema.ts';
import { startNodeServer } from '../../src/node.ts';
import type { ClientMetadataFetcher } from '../../src/oauth/client-metadata.ts';
import {
  METADATA_CACHE_ENTRIES,
  METADATA_FETCH_LIMITS,
  REGISTRATION_LIMITS,
} from '../../src/oauth/clients.ts';
import { purgeUnusedClients } from '../../src/oauth/purge.ts';
import { BASE, createTestRuntime, type TestRuntime } from '../helpers.ts';
import { csrfOf, hiddenFieldsOf, manualClock, WebClient } from '../web/web-client.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REDIRECT = 'https://agent.example.com/callback';

/** The env the Node adapter gives a request whose TCP peer is `address`. */
function fromAddress(address: string) {
  return { incoming: { socket: { remoteAddress: address } } };
}

/** A fetcher that serves a valid document for any client_id URL, counting what it was asked for. */
function documentsForAnyUrl() {
  const fetched: string[] = [];
  const fetcher: ClientMetadataFetcher = async (url) => {
    fetched.push(url.href);
    return {
      status: 200,
      body: JSON.stringify({ client_id: url.href, client_name: 'Agent', redirect_uris: [REDIRECT] }),
      maxAgeSeconds: null,
    };
  };
  return { fetcher, fetched };
}

async function runtimeWith(options: { fetcher?: ClientMetadataFetcher; env?: Record<string, string> } = {}) {
  const clock = manualClock();
  const runtime = await createTestRuntime({
    now: clock.now,
    env: options.env ?? {},
    ...(options.fetcher ? { clientMetadataFetcher: options.fetcher } : {}),
  });
  cleanups.push(() => runtime.cleanup());
  return { runtime, clock };
}

async function authorizeQuery(clientId: string) {
  const verifier = generateRandomCodeVerifier();
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 's',
  });
}

/** GET /oauth/authorize with no session, from `address`. */
async function anonymousAuthorize(runtime: TestRuntime, clientId: string, address: string) {
  const response = await runtime.app.request(
    `${BASE}/oauth/authorize?${await authorizeQuery(clientId)}`,
    {},
    fromAddress(address),
  );
  await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

async function storedClients(runtime: TestRuntime): Promise<number> {
  const [row] = await runtime.database.db.select({ value: count() }).from(oauthClients);
  return row?.value ?? 0;
}

async function register(runtime: TestRuntime, address: string) {
  const response = await runtime.app.request(
    `${BASE}/oauth/register`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    },
    fromAddress(address),
  );
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, string>,
  };
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
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** A signed-in person allows `clientId`; returns the tokens of the code exchange (with `auth` for a confidential one). */
async function connect(
  runtime: TestRuntime,
  web: WebClient,
  clientId: string,
  auth: { form?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const verifier = generateRandomCodeVerifier();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const page = await web.get(`/oauth/authorize?${query}`);
  expect(page.status, page.html.slice(0, 200)).toBe(200);
  const back = await web.post('/oauth/authorize', {
    ...hiddenFieldsOf(page.html),
    _csrf: csrfOf(page.html),
    decision: 'allow',
    granted_scope: 'read',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  const code = new URL(back.location ?? '').searchParams.get('code') ?? '';
  const issued = await token(
    runtime,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      ...auth.form,
    },
    auth.headers,
  );
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return { access: issued.body.access_token as string, refresh: issued.body.refresh_token as string };
}

async function listOrganizations(runtime: TestRuntime, access: string): Promise<number> {
  const response = await runtime.app.request(`${BASE}/api/mcp/tools/listOrganizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}` },
  });
  await response.body?.cancel();
  return response.status;
}

/** A request to the Node host from a chosen local address, with any Host header. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** A Node host on 127.0.0.1 over a fresh database (with `env`), stopped after the test. */
async function startNodeHost(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-node-host-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startNodeServer(
    loadConfig({
      DATABASE_URL: `file:${join(dir, 'node.db')}`,
      HOST: '127.0.0.1',
      PORT: '0',
      SEED_DEMO: 'false',
      ...env,
    }),
    () => {},
  );
  cleanups.push(() => server.close());
  return server;
}

/** A public client's registration sent to a Node host over HTTP; its status. */
async function registerOverHttp(
  serverUrl: string,
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<number> {
  const answer = await send(`${serverUrl}/oauth/register`, {
    method: 'POST',
    ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  return answer.status;
}

describe('anonymous authorize requests with client metadata URLs', () => {
  it('stores no client for 200 of them with fresh URLs, and fetches for one address only up to its limit', async () => {
    const { fetcher, fetched } = documentsForAnyUrl();
    const { runtime } = await runtimeWith({ fetcher });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 200; i++) {
      const answer = await anonymousAuthorize(
        runtime,
        `https://agent-${i}.example.com/client.json`,
        '203.0.113.7',
      );
      statuses.push(answer.status);
      retryAfter ??= answer.retryAfter;
    }
    expect(await storedClients(runtime)).toBe(0);
    expect(fetched).toHaveLength(METADATA_FETCH_LIMITS.perKey);
    // The first ones go on to the sign-in page; the rest are told to wait, without a fetch.
    expect(statuses.filter((status) => status === 303)).toHaveLength(METADATA_FETCH_LIMITS.perKey);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - METADATA_FETCH_LIMITS.perKey);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(METADATA_FETCH_LIMITS.windowMs / 1000);
    // Another address is not locked out by that flood; the same address, written IPv4-mapped, still is.
    expect(
      (await anonymousAuthorize(runtime, 'https://other.example.com/client.json', '198.51.100.4')).status,
    ).toBe(303);
    expect(
      (await anonymousAuthorize(runtime, 'https://third.example.com/client.json', '::ffff:203.0.113.7'))
        .status,
    ).toBe(429);
    // An IPv6 client counts by its /64: rotating addresses inside it does not buy more fetches.
    const v6 = [];
    for (let i = 0; i <= METADATA_FETCH_LIMITS.perKey; i++)
      v6.push(
        (
          await anonymousAuthorize(
            runtime,
            `https://v6-${i}.example.com/client.json`,
            `2001:db8:1:2::${i + 1}`,
          )
        ).status,
      );
    expect(v6.filter((status) => status === 429)).toHaveLength(1);
    expect(await storedClients(runtime)).toBe(0);
  });

  it('keeps at most METADATA_CACHE_ENTRIES documents in memory: the least recently used is fetched again', async () => {
    const { fetcher, fetched } = documentsForAnyUrl();
    const { runtime } = await runtimeWith({ fetcher });
    const total = METADATA_CACHE_ENTRIES + 44;
    for (let i = 0; i < total; i++) {
      const answer = await anonymousAuthorize(
        runtime,
        `https://agent-${i}.example.com/client.json`,
        `192.0.2.${i % 200}`,
      );
      expect(answer.status).toBe(303);
    }
    expect(fetched).toHaveLength(total);
    expect(await storedClients(runtime)).toBe(0);
    // The newest is still held; the oldest was let go and is fetched again.
    await anonymousAuthorize(runtime, `https://agent-${total - 1}.example.com/client.json`, '192.0.2.250');
    expect(fetched).toHaveLength(total);
    await anonymousAuthorize(runtime, 'https://agent-0.example.com/client.json', '192.0.2.251');
    expect(fetched).toHaveLength(total + 1);
  });

  it('stores a client known by its document once a person consents, and forgets clients nobody used after a day', async () => {
    const { fetcher } = documentsForAnyUrl();
    const { runtime, clock } = await runtimeWith({ fetcher });
    const web = new WebClient(runtime);
    await web.signUp('grace@example.com', 'Hopper Labs');
    const consented = 'https://consented.example.com/client.json';
    await anonymousAuthorize(runtime, consented, '203.0.113.8');
    expect(await storedClients(runtime)).toBe(0);
    const { access } = await connect(runtime, web, consented);
    const rows = await runtime.database.db.select().from(oauthClients);
    expect(rows.map((row) => [row.client_id, row.kind])).toEqual([[consented, 'metadata_document']]);
    const unused = (await register(runtime, '203.0.113.8')).body.client_id as string;
    // A stored document client without a grant (as anonymous requests left them before): also forgotten.
    await runtime.database.db.insert(oauthClients).values({
      client_id: 'https://left-over.example.com/client.json',
      kind: 'metadata_document',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      metadata: '{}',
      created_at: clock.now().toISOString(),
      refresh_after: clock.now().toISOString(),
    });
    expect(await purgeUnusedClients(runtime.database.db, new Date(clock.ms() + 23 * 3_600_000))).toEqual([]);
    expect(
      (await purgeUnusedClients(runtime.database.db, new Date(clock.ms() + 25 * 3_600_000))).sort(),
    ).toEqual([unused, 'https://left-over.example.com/client.json'].sort());
    expect((await runtime.database.db.select().from(oauthClients)).map((row) => row.client_id)).toEqual([
      consented,
    ]);
    expect(await listOrganizations(runtime, access)).toBe(200);
  });
});

describe('dynamic registration limits', () => {
  it('refuses a flood from one address while another address still registers', async () => {
    const { runtime } = await runtimeWith();
    const flood = [];
    for (let i = 0; i < REGISTRATION_LIMITS.perKey + 5; i++)
      flood.push(await register(runtime, '203.0.113.9'));
    expect(flood.filter((answer) => answer.status === 201)).toHaveLength(REGISTRATION_LIMITS.perKey);
    const refused = flood.at(-1);
    expect(refused?.status).toBe(429);
    expect(refused?.body.error).toBe('temporarily_unavailable');
    expect(refused?.body.error_description).toMatch(/^Too many client registrations from your address/);
    expect(Number(refused?.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused?.retryAfter)).toBeLessThanOrEqual(REGISTRATION_LIMITS.windowMs / 1000);
    const other = await register(runtime, '198.51.100.5');
    expect(other.status).toBe(201);
    expect(other.body.client_id).toMatch(/^cli_/);
  });

  it('lets no parallel burst from one address past its limit', async () => {
    const { runtime } = await runtimeWith();
    const answers = await Promise.all(
      Array.from({ length: REGISTRATION_LIMITS.perKey + 10 }, () => register(runtime, '203.0.113.10')),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(REGISTRATION_LIMITS.perKey);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(10);
  });

  it('has room in all for 50 addresses at their limit, then refuses everyone until the window turns', async () => {
    const { runtime, clock } = await runtimeWith();
    const addresses = REGISTRATION_LIMITS.total / REGISTRATION_LIMITS.perKey;
    expect(addresses).toBe(50);
    // 49 addresses used their limit just now (written directly: a thousand requests would only take longer).
    const createdAt = clock.now().toISOString();
    await runtime.database.db.insert(oauthClients).values(
      Array.from({ length: REGISTRATION_LIMITS.total - REGISTRATION_LIMITS.perKey }, (_, i) => ({
        client_id: `cli_seeded${String(i).padStart(14, '0')}`,
        kind: 'registered' as const,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none' as const,
        metadata: '{}',
        created_at: createdAt,
        registered_by: `seeded address ${Math.floor(i / REGISTRATION_LIMITS.perKey)}`,
      })),
    );
    const fiftieth = [];
    for (let i = 0; i < REGISTRATION_LIMITS.perKey; i++)
      fiftieth.push((await register(runtime, '10.0.50.1')).status);
    expect(fiftieth).toEqual(Array(REGISTRATION_LIMITS.perKey).fill(201));
    const refused = await register(runtime, '198.51.100.6');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBe(REGISTRATION_LIMITS.windowMs / 1000);
    clock.advance(REGISTRATION_LIMITS.windowMs / 1000 + 1);
    expect((await register(runtime, '198.51.100.6')).status).toBe(201);
  });
});

describe('refresh tokens naming a known grant', () => {
  it('a made-up refresh token with a public client and a grant id does not end the grant', async () => {
    const { runtime } = await runtimeWith();
    const web = new WebClient(runtime);
    await web.signUp('ada@example.com', 'Acme Health');
    const clientId = (await register(runtime, '203.0.113.11')).body.client_id as string;
    const { access, refresh } = await connect(runtime, web, clientId);
    // The grant id is no secret: it shows in Settings > API Tokens links, logs, the refresh token's own prefix.
    const grantId = /^cmcpr_(grt_[a-z0-9]+)\./.exec(refresh)?.[1] ?? '';
    expect(grantId).toMatch(/^grt_/);
    const forged = await token(runtime, {
      grant_type: 'refresh_token',
      refresh_token: `cmcpr_${grantId}.${randomBase64Url(32)}`,
      client_id: clientId,
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_grant');
    const grant = await runtime.database.db.query.oauthGrants.findFirst({
      where: eq(oauthGrants.id, grantId),
    });
    expect(grant?.revoked_at).toBeNull();
    expect(await listOrganizations(runtime, access)).toBe(200);
    const renewed = await token(runtime, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    expect(renewed.status).toBe(200);
    // A token the grant did issue, replaced since, still ends it (reuse detection).
    const replayed = await token(runtime, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    expect(replayed.body.error).toBe('invalid_grant');
    expect(await listOrganizations(runtime, renewed.body.access_token as string)).toBe(401);
  });

  it('a confidential client that proves itself with its secret ends its grant with a token it does not hold', async () => {
    const { runtime } = await runtimeWith();
    const web = new WebClient(runtime);
    await web.signUp('ada@example.com', 'Acme Health');
    const registered = await runtime.app.request(`${BASE}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Server app', redirect_uris: [REDIRECT] }),
    });
    const { client_id: clientId, client_secret: secret } = (await registered.json()) as Record<
      string,
      string
    >;
    const auth = { form: { client_secret: secret as string } };
    const { access, refresh } = await connect(runtime, web, clientId as string, auth);
    const grantId = /^cmcpr_(grt_[a-z0-9]+)\./.exec(refresh)?.[1] ?? '';
    const withoutSecret = await token(runtime, {
      grant_type: 'refresh_token',
      refresh_token: `cmcpr_${grantId}.${randomBase64Url(32)}`,
      client_id: clientId as string,
    });
    expect(withoutSecret.status).toBe(401);
    expect(await listOrganizations(runtime, access)).toBe(200);
    const withSecret = await token(runtime, {
      grant_type: 'refresh_token',
      refresh_token: `cmcpr_${grantId}.${randomBase64Url(32)}`,
      client_id: clientId as string,
      client_secret: secret as string,
    });
    expect(withSecret.body.error).toBe('invalid_grant');
    expect(await listOrganizations(runtime, access)).toBe(401);
  });
});

describe('the issuer without PUBLIC_URL', () => {
  async function issuerAt(runtime: TestRuntime, origin: string) {
    const response = await runtime.app.request(`${origin}/.well-known/oauth-authorization-server`);
    return ((await response.json()) as { issuer: string }).issuer;
  }

  it('does not follow a Host header naming another host; loopback names are followed', async () => {
    const { runtime } = await runtimeWith();
    expect(await issuerAt(runtime, 'http://evil.example:8787')).toBe('http://127.0.0.1:8787');
    expect(await issuerAt(runtime, 'http://evil.example')).toBe('http://127.0.0.1');
    expect(await issuerAt(runtime, 'http://localhost:8787')).toBe('http://localhost:8787');
    expect(await issuerAt(runtime, 'http://[::1]:8787')).toBe('http://[::1]:8787');
    const resource = await runtime.app.request(
      'http://evil.example:8787/.well-known/oauth-protected-resource/mcp',
    );
    expect(await resource.json()).toMatchObject({
      resource: 'http://127.0.0.1:8787/mcp',
      authorization_servers: ['http://127.0.0.1:8787'],
    });
    const challenge = await runtime.app.request('http://evil.example:8787/api/mcp/tools/listOrganizations', {
      method: 'POST',
    });
    expect(challenge.headers.get('www-authenticate')).toContain(
      'resource_metadata="http://127.0.0.1:8787/.well-known/oauth-protected-resource/api/mcp/v1"',
    );
  });

  it('uses PUBLIC_URL whatever the Host header says', async () => {
    const { runtime } = await runtimeWith({ env: { PUBLIC_URL: 'https://compliance.example.com' } });
    expect(await issuerAt(runtime, 'http://evil.example')).toBe('https://compliance.example.com');
    expect(await issuerAt(runtime, 'http://localhost:8787')).toBe('https://compliance.example.com');
  });
});

describe('the Node host', () => {
  it('refuses to start on a non-loopback HOST without PUBLIC_URL, before it opens the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmcp-issuer-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'node.db');
    // A TEST-NET address: had the check not refused, listening would fail rather than open a public socket.
    const config = loadConfig({
      DATABASE_URL: `file:${file}`,
      HOST: '192.0.2.1',
      PORT: '0',
      SEED_DEMO: 'false',
    });
    await expect(startNodeServer(config, () => {})).rejects.toThrow(
      /^PUBLIC_URL is not set and HOST 192\.0\.2\.1 is not a loopback address/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('counts registrations by the socket peer (not a header), and its issuer ignores a spoofed Host', async () => {
    const server = await startNodeHost();
    const flood = [];
    for (let i = 0; i <= REGISTRATION_LIMITS.perKey; i++)
      // A header naming another address each time changes nothing on the Node host.
      flood.push(
        await registerOverHttp(server.url, {
          localAddress: '127.0.0.2',
          headers: { 'cf-connecting-ip': `198.51.100.${i}` },
        }),
      );
    expect(flood.filter((status) => status === 201)).toHaveLength(REGISTRATION_LIMITS.perKey);
    expect(flood.at(-1)).toBe(429);
    expect(await registerOverHttp(server.url, { localAddress: '127.0.0.3' })).toBe(201);
    const port = new URL(server.url).port;
    const issuers = [];
    for (const host of ['evil.example', `evil.example:${port}`, `localhost:${port}`]) {
      const metadata = await send(`${server.url}/.well-known/oauth-authorization-server`, {
        headers: { host },
      });
      issuers.push((JSON.parse(metadata.body) as { issuer: string }).issuer);
    }
    expect(issuers).toEqual(['http://127.0.0.1', `http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  });

  it('behind a reverse proxy (CLIENT_ADDRESS_HEADER), counts by the address the proxy appended', async () => {
    const server = await startNodeHost({ CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' });
    // Every request comes from the proxy's socket; the client may put anything first, the proxy appends the peer.
    const registerVia = (forwardedFor: string) =>
      registerOverHttp(server.url, { headers: { 'x-forwarded-for': forwardedFor } });
    const flood = [];
    for (let i = 0; i <= REGISTRATION_LIMITS.perKey; i++)
      flood.push(await registerVia(`198.51.100.${i}, 203.0.113.1`));
    expect(flood.filter((status) => status === 201)).toHaveLength(REGISTRATION_LIMITS.perKey);
    expect(flood.at(-1)).toBe(429);
    expect(await registerVia('203.0.113.2')).toBe(201);
  });
});
