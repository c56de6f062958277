// Client ID Metadata Documents: address checks, the bounded Node fetcher against a local server, the cached flow.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { afterEach, describe, expect, it } from 'vitest';
import { refusedAddress } from '../../src/oauth/addresses.ts';
import {
  ClientMetadataError,
  type ClientMetadataFetcher,
  clientIdUrlProblem,
} from '../../src/oauth/client-metadata.ts';
import { checkedLookup, nodeClientMetadataFetcher } from '../../src/oauth/client-metadata-node.ts';
import { BASE, createTestRuntime, type TestRuntime } from '../helpers.ts';
import { csrfOf, hiddenFieldsOf, manualClock, textOf, WebClient } from '../web/web-client.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const REDIRECT = 'http://127.0.0.1:45454/callback';

/** A local HTTP server answering every request with `answer`; counts the requests. */
async function documentServer(answer: (url: string, res: import('node:http').ServerResponse) => void) {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    answer(req.url ?? '/', res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  cleanups.push(() => server.closeAllConnections());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, state };
}

async function runtimeWith(fetcher: ClientMetadataFetcher, env: Record<string, string> = {}) {
  const clock = manualClock();
  const runtime: TestRuntime = await createTestRuntime({
    now: clock.now,
    env,
    clientMetadataFetcher: fetcher,
  });
  cleanups.push(() => runtime.cleanup());
  const web = new WebClient(runtime);
  await web.signUp('grace@example.com', 'Hopper Labs');
  return { runtime, web, clock };
}

async function authorize(web: WebClient, clientId: string) {
  const verifier = generateRandomCodeVerifier();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: await calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 's',
  });
  return { page: await web.get(`/oauth/authorize?${query}`), verifier, query };
}

describe('address checks', () => {
  it('refuses loopback, private, link-local, shared and mapped addresses, and allows public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '[::ffff:7f00:1]',
      '64:ff9b::a00:1',
    ])
      expect(refusedAddress(address), address).not.toBeNull();
    for (const address of [
      '93.184.216.34',
      '172.32.0.1',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ])
      expect(refusedAddress(address), address).toBeNull();
  });

  it('accepts only https client_id URLs with a path, on public names, outside development', () => {
    expect(clientIdUrlProblem('https://app.example.com/oauth/client.json', false)).toBeNull();
    for (const url of [
      'http://app.example.com/client.json',
      'https://app.example.com/',
      'https://127.0.0.1/client.json',
      'https://[::1]/client.json',
      'https://10.0.0.5/client.json',
      'https://localhost/client.json',
      'https://metadata.internal/client.json',
      'https://user:pw@app.example.com/client.json',
      'https://app.example.com/client.json#x',
    ])
      expect(clientIdUrlProblem(url, false), url).not.toBeNull();
    expect(clientIdUrlProblem('http://127.0.0.1:8000/client.json', true)).toBeNull();
  });

  it('refuses a name that resolves to a loopback address before connecting', async () => {
    const lookup = checkedLookup(false);
    const error = await new Promise<Error | null>((resolve) =>
      lookup('localhost', {}, (problem) => resolve(problem as Error | null)),
    );
    expect(error).toBeInstanceOf(ClientMetadataError);
    expect(error?.message).toContain('loopback');
    const allowed = await new Promise<string>((resolve) =>
      checkedLookup(true)('localhost', {}, (_problem, address) => resolve(String(address))),
    );
    expect(allowed).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe('the Node fetcher', () => {
  const limits = { maxBytes: 1024, timeoutMs: 500, allowLocal: true };

  it('fetches a document with its max-age, and refuses one larger than the cap', async () => {
    const { base } = await documentServer((url, res) => {
      res.setHeader('cache-control', 'public, max-age=600');
      res.end(url === '/big' ? 'x'.repeat(5000) : '{"ok":true}');
    });
    expect(await nodeClientMetadataFetcher(new URL(`${base}/small`), limits)).toEqual({
      status: 200,
      body: '{"ok":true}',
      maxAgeSeconds: 600,
    });
    await expect(nodeClientMetadataFetcher(new URL(`${base}/big`), limits)).rejects.toThrow(
      /larger than 1024/,
    );
  });

  it('gives up after the deadline, does not follow redirects, and refuses loopback outside development', async () => {
    const { base } = await documentServer((url, res) => {
      if (url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/' });
        res.end();
      }
      // Any other path never answers.
    });
    const started = Date.now();
    await expect(nodeClientMetadataFetcher(new URL(`${base}/slow`), limits)).rejects.toThrow(
      /within 500 ms|timed out/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await nodeClientMetadataFetcher(new URL(`${base}/redirect`), limits)).status).toBe(302);
    await expect(
      nodeClientMetadataFetcher(new URL(`${base}/c.json`), { ...limits, allowLocal: false }),
    ).rejects.toThrow(/https/);
  });
});

describe('clients known by their metadata document', () => {
  it('fetches the document in development mode, shows where it is published, caches it, and issues tokens', async () => {
    const { base, state } = await documentServer((_url, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          client_id: `${base}/client.json`,
          client_name: 'Local Agent',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    const { runtime, web } = await runtimeWith(nodeClientMetadataFetcher, {
      OAUTH_ALLOW_LOCAL_CLIENT_METADATA: 'true',
    });
    const clientId = `${base}/client.json`;
    const { page, verifier } = await authorize(web, clientId);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Connect Local Agent?');
    expect(text).toContain(`published at ${new URL(base).host}`);
    const hidden = hiddenFieldsOf(page.html);
    const back = await web.post('/oauth/authorize', {
      ...hidden,
      _csrf: csrfOf(page.html),
      decision: 'allow',
      granted_scope: 'read',
      organization_mode: 'all',
      expires_in_days: '7',
    });
    const code = new URL(back.location ?? '').searchParams.get('code') ?? '';
    const exchanged = await runtime.app.request(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        client_id: clientId,
      }).toString(),
    });
    expect(exchanged.status).toBe(200);
    expect(((await exchanged.json()) as { scope: string }).scope).toBe('read');
    // Consent page, POST and token request: one fetch, the rest from the cache.
    expect(state.requests).toBe(1);
  });

  it('refuses an http client_id outside development and a document naming another client', async () => {
    const { base } = await documentServer((_url, res) => {
      res.end(JSON.stringify({ client_id: 'https://someone.else/client.json', redirect_uris: [REDIRECT] }));
    });
    const strict = await runtimeWith(nodeClientMetadataFetcher);
    const refused = await authorize(strict.web, `${base}/client.json`);
    expect(refused.page.status).toBe(400);
    expect(textOf(refused.page.html)).toContain('must use https');
    const dev = await runtimeWith(nodeClientMetadataFetcher, { OAUTH_ALLOW_LOCAL_CLIENT_METADATA: 'true' });
    const other = await authorize(dev.web, `${base}/client.json`);
    expect(other.page.status).toBe(400);
    expect(other.page.location).toBeNull();
    expect(textOf(other.page.html)).toContain('names another client_id');
  });

  it('re-fetches an https document after its max-age (bounded), through the injected fetcher', async () => {
    const clientId = 'https://agent.example.com/oauth/client.json';
    let fetches = 0;
    let name = 'Agent v1';
    const fetcher: ClientMetadataFetcher = async (url, limits) => {
      fetches += 1;
      expect(url.href).toBe(clientId);
      expect(limits).toEqual({ maxBytes: 16 * 1024, timeoutMs: 5000, allowLocal: false });
      return {
        status: 200,
        body: JSON.stringify({ client_id: clientId, client_name: name, redirect_uris: [REDIRECT] }),
        maxAgeSeconds: 10,
      };
    };
    const { web, clock } = await runtimeWith(fetcher);
    expect(textOf((await authorize(web, clientId)).page.html)).toContain('Connect Agent v1?');
    name = 'Agent v2';
    clock.advance(120);
    // max-age=10 is raised to the 5-minute floor: still the cached copy.
    expect(textOf((await authorize(web, clientId)).page.html)).toContain('Connect Agent v1?');
    clock.advance(200);
    expect(textOf((await authorize(web, clientId)).page.html)).toContain('Connect Agent v2?');
    expect(fetches).toBe(2);
  });
});
