// The OAuth flow end to end: the MCP SDK's client-side OAuth provider against the real Node server, consent in Chromium.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { calculatePKCECodeChallenge } from 'oauth4webapi';
import { afterEach, describe, expect, it } from 'vitest';
import { screenshot, signUp, start, stopAfterEach } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';

stopAfterEach();
/** What this file opens besides the server and browser: the callback server, MCP clients. */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The client application's redirect target: a loopback server that records the query it was sent to. */
async function callbackServer() {
  const received: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // The browser also asks for /favicon.ico.
    if (url.pathname === '/callback') received.push(url);
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>Connected</title><h1>You can close this window.</h1>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cleanups.push(() => new Promise((done) => server.close(done)));
  cleanups.push(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, received };
}

/** An in-memory OAuthClientProvider, as an MCP host application implements it (DCR, PKCE, token storage). */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(private readonly callback: string) {}

  get redirectUrl() {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Test Client',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'sdk-state';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function connect(endpoint: string, provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider }));
  cleanups.push(() => client.close());
  return client;
}

describe('OAuth with the MCP SDK client and consent in Chromium', () => {
  it('registers, gets consent, calls tools, refreshes, and is cut off when revoked in Settings', async () => {
    const { server, page } = await start();
    const callback = await callbackServer();
    const endpoint = `${server.url}/api/mcp/v1`;

    // 1. The SDK meets a 401, discovers the metadata, registers (RFC 7591) and asks to send the person away.
    const provider = new MemoryProvider(callback.url);
    await expect(connect(endpoint, provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^cli_/);
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${server.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    // The SDK's challenge is the S256 of the verifier it kept, as another client library computes it.
    expect(authorizationUrl.searchParams.get('code_challenge')).toBe(
      await calculatePKCECodeChallenge(provider.verifier),
    );
    expect(authorizationUrl.searchParams.get('resource')).toBe(endpoint);

    // 2. In the browser: the person is signed out, signs in, and lands on the consent page.
    await signUp(page, server.url, 'ada@example.com', 'Acme Health');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(authorizationUrl.href);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Connect SDK Test Client?');
    await expect.poll(() => page.locator('main').textContent()).toContain(new URL(callback.url).host);
    await screenshot(page, 'oauth-consent');
    await page.getByLabel(/^read_write/).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.url));
    const returned = callback.received.at(-1) as URL;
    expect(returned.searchParams.get('state')).toBe('sdk-state');
    const code = returned.searchParams.get('code') ?? '';
    expect(code).toMatch(/^cmcpc_/);

    // 3. The SDK exchanges the code (PKCE) and connects with the access token.
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.saved).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read_write' });
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const listed = await client.callTool({ name: 'listOrganizations', arguments: {} });
    expect(listed.isError).toBeFalsy();
    const organizations = (listed.structuredContent as { organizations: { name: string }[] }).organizations;
    expect(organizations.map((organization) => organization.name)).toEqual(['Acme Health']);
    const added = await client.callTool({
      name: 'addVendor',
      arguments: {
        organization_id: (listed.structuredContent as { organizations: { id: string }[] }).organizations[0]
          ?.id,
        name: 'Stripe',
      },
    });
    expect(added.isError).toBeFalsy();

    // 4. An access token the server no longer accepts: the SDK refreshes (rotating the refresh token) and goes on.
    const firstRefresh = provider.saved?.refresh_token;
    provider.saveTokens({
      ...(provider.saved as OAuthTokens),
      access_token: 'cmcp_expiredexpiredexpiredexpired',
    });
    const again = await client.callTool({ name: 'listOrganizations', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(provider.saved?.refresh_token).toBeDefined();
    expect(provider.saved?.refresh_token).not.toBe(firstRefresh);

    // 5. Settings > API Tokens shows the connected client with its last use; revoking it cuts the client off.
    await page.goto(`${server.url}/settings/tokens`);
    const row = page.getByRole('row', { name: /SDK Test Client/ });
    await expect.poll(() => row.textContent()).toMatch(/read & write.*connected/);
    expect(await row.textContent()).not.toContain('never');
    await screenshot(page, 'oauth-connected-clients');
    await row.getByRole('link', { name: 'Revoke SDK Test Client' }).click();
    await page.getByRole('button', { name: 'Revoke access' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('connected client was revoked');
    await expect(client.callTool({ name: 'listOrganizations', arguments: {} })).rejects.toThrow();
  });

  it('sends Deny back to the client as access_denied', async () => {
    const { server, page } = await start();
    const callback = await callbackServer();
    const provider = new MemoryProvider(callback.url);
    await expect(connect(`${server.url}/api/mcp/v1`, provider)).rejects.toBeInstanceOf(UnauthorizedError);
    await signUp(page, server.url, 'ada@example.com', 'Acme Health');
    await page.goto((provider.authorizationUrl as URL).href);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((url) => url.href.startsWith(callback.url));
    const returned = callback.received.at(-1) as URL;
    expect(returned.searchParams.get('error')).toBe('access_denied');
    expect(returned.searchParams.get('state')).toBe('sdk-state');
    expect(returned.searchParams.get('code')).toBeNull();
  });
});
