// Contract: every 401 form on every authenticated surface, health, scope and role refusals, origin checks.
import { describe, expect, it } from 'vitest';
import {
  BASE,
  bearer,
  type ContractHost,
  callDirect,
  errorOf,
  type HostRef,
  mcpCallTool,
  mcpPost,
  ok,
  send,
} from './host.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } },
};

/** The same request on the four authenticated surfaces, with the given Authorization header (or none). */
async function onEverySurface(
  host: ContractHost,
  authorization: string | null,
): Promise<[string, Response][]> {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  return [
    ['MCP', await mcpPost(host, headers, INITIALIZE)],
    [
      'tools/<tool>',
      await send(host, '/api/mcp/tools/listOrganizations', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      }),
    ],
    ['<tool>', await send(host, '/api/mcp/listOrganizations', { method: 'POST', headers })],
    ['health', await send(host, '/api/mcp/v1/health', { headers })],
  ];
}

async function expectUnauthorized(
  host: ContractHost,
  authorization: string | null,
  message: RegExp,
  invalidToken = true,
) {
  for (const [surface, response] of await onEverySurface(host, authorization)) {
    expect(response.status, surface).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge, surface).toMatch(/^Bearer realm="compliance-mcp"/);
    expect(challenge.includes('error="invalid_token"'), surface).toBe(invalidToken);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code, surface).toBe('unauthorized');
    expect(body.error.message, surface).toMatch(message);
  }
}

export function describeAuthContract(hostRef: HostRef): void {
  describe('401 Unauthorized on every surface', () => {
    it('refuses a request without an Authorization header, with a plain challenge', async () => {
      await expectUnauthorized(hostRef(), null, /Missing bearer token/, false);
    });

    it('refuses a token sent without the Bearer scheme, or with another scheme', async () => {
      const host = hostRef();
      await expectUnauthorized(host, host.world.tokens.alice, /Malformed/);
      await expectUnauthorized(host, `Basic ${btoa('alice:secret')}`, /Malformed/);
      await expectUnauthorized(host, `Token ${host.world.tokens.alice}`, /Malformed/);
    });

    it('refuses two spaces after Bearer, a space or tab inside the token and "Bearer" alone', async () => {
      const host = hostRef();
      const token = host.world.tokens.alice;
      await expectUnauthorized(host, `Bearer  ${token}`, /Malformed/);
      await expectUnauthorized(host, `Bearer ${token.slice(0, 10)} ${token.slice(10)}`, /Malformed/);
      await expectUnauthorized(host, `Bearer ${token.slice(0, 10)}\t${token.slice(10)}`, /Malformed/);
      await expectUnauthorized(host, 'Bearer', /Malformed/);
    });

    it('refuses an unknown token of the right shape', async () => {
      await expectUnauthorized(hostRef(), `Bearer cmcp_${'A'.repeat(43)}`, /Unknown API token/);
    });

    it('refuses an expired token', async () => {
      const host = hostRef();
      await expectUnauthorized(host, `Bearer ${host.world.tokens.expired}`, /expired/);
    });

    it('refuses a revoked token', async () => {
      const host = hostRef();
      await expectUnauthorized(host, `Bearer ${host.world.tokens.revoked}`, /revoked/);
    });

    it('never echoes the token in an error', async () => {
      const response = await send(hostRef(), '/api/mcp/v1/health', {
        headers: { authorization: `Bearer cmcp_${'B'.repeat(43)}` },
      });
      const text = `${await response.text()} ${response.headers.get('www-authenticate')}`;
      expect(text).not.toContain('B'.repeat(20));
    });

    it('accepts the scheme in any letter case', async () => {
      const host = hostRef();
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        const response = await send(host, '/api/mcp/v1/health', {
          headers: { authorization: `${scheme} ${host.world.tokens.alice}` },
        });
        expect(response.status, scheme).toBe(200);
      }
    });
  });

  describe('health', () => {
    it('answers status, version, database and time to a valid token', async () => {
      const host = hostRef();
      const response = await send(host, '/api/mcp/v1/health', { headers: bearer(host.world.tokens.alice) });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ status: 'ok', version: '0.1.0', database: 'ok' });
      expect(Math.abs(Date.parse(String(body.time)) - Date.now())).toBeLessThan(60_000);
    });

    it('serves /healthz without a token and without data', async () => {
      const response = await send(hostRef(), '/healthz');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    it('answers an authenticated GET and DELETE on the MCP endpoint with 405 and Allow: POST', async () => {
      const host = hostRef();
      for (const path of ['/api/mcp/v1', '/mcp'])
        for (const method of ['GET', 'DELETE']) {
          const response = await send(host, path, { method, headers: bearer(host.world.tokens.alice) });
          expect(response.status, `${method} ${path}`).toBe(405);
          expect(response.headers.get('allow')).toBe('POST');
        }
    });

    // Claude Desktop opens with a GET and starts OAuth only on a 401 with its challenge (a 405 there ends the
    // connection); other clients open with POST, some with DELETE after a failure: each meets the same 401 first.
    it('authenticates before the method: an unauthenticated GET, DELETE, PUT or POST gets 401 and an absolute resource_metadata', async () => {
      const host = hostRef();
      for (const [path, metadataPath] of [
        ['/api/mcp/v1', '/.well-known/oauth-protected-resource/api/mcp/v1'],
        ['/mcp', '/.well-known/oauth-protected-resource/mcp'],
      ] as const) {
        for (const method of ['GET', 'DELETE', 'PUT', 'POST']) {
          const response = await send(host, `${path}?toolsets=all`, {
            method,
            headers: {
              accept: 'application/json, text/event-stream',
              ...(method === 'POST' || method === 'PUT' ? { 'content-type': 'application/json' } : {}),
            },
            ...(method === 'POST' || method === 'PUT' ? { body: JSON.stringify(INITIALIZE) } : {}),
          });
          expect(response.status, `${method} ${path}`).toBe(401);
          const challenge = response.headers.get('www-authenticate') ?? '';
          const metadata = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
          expect(new URL(metadata).href, `${method} ${path}`).toBe(`${BASE}${metadataPath}`);
          // The document it names answers without a token and names this endpoint as the resource.
          const document = await send(host, new URL(metadata).pathname);
          expect(document.status).toBe(200);
          expect(((await document.json()) as { resource: string }).resource).toBe(`${BASE}${path}`);
        }
      }
    });

    it('refuses a foreign Origin on the MCP endpoint with 403, and accepts its own origin', async () => {
      const host = hostRef();
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      const foreign = await mcpPost(
        host,
        { ...bearer(host.world.tokens.alice), origin: 'https://evil.example' },
        ping,
      );
      expect(foreign.status).toBe(403);
      expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('forbidden');
      const own = await mcpPost(
        host,
        { ...bearer(host.world.tokens.alice), origin: 'http://127.0.0.1:8787' },
        ping,
      );
      expect(own.status).toBe(200);
      expect(await own.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    });
  });

  describe('scope and role', () => {
    it('refuses a write tool to a read-only token with 403 insufficient_scope, and writes nothing', async () => {
      const host = hostRef();
      const name = `read-only attempt ${crypto.randomUUID()}`;
      const result = await callDirect(host, host.world.tokens.aliceRead, 'addVendor', {
        organization_id: host.world.orgAuth,
        name,
      });
      expect(result.status).toBe(403);
      expect(errorOf(result).code).toBe('insufficient_scope');
      const list = await ok<{ total_count: number }>(host, host.world.tokens.alice, 'listVendors', {
        organization_id: host.world.orgAuth,
        filter: { query: name },
      });
      expect(list.total_count).toBe(0);
    });

    it('lets a read-only token read', async () => {
      const host = hostRef();
      const result = await callDirect(host, host.world.tokens.aliceRead, 'listVendors', {
        organization_id: host.world.orgAuth,
      });
      expect(result.status).toBe(200);
    });

    it('refuses a VIEWER writing with 403 insufficient_scope naming the role', async () => {
      const host = hostRef();
      const result = await callDirect(host, host.world.tokens.vic, 'addRisk', {
        organization_id: host.world.orgAuth,
        name: 'R',
        inherent_likelihood: 1,
        inherent_impact: 1,
      });
      expect(result.status).toBe(403);
      expect(errorOf(result).code).toBe('insufficient_scope');
      expect(errorOf(result).message).toContain('VIEWER');
    });

    it('returns a refusal over MCP as an isError tool result with the same code', async () => {
      const host = hostRef();
      // A VIEWER's read_write token lists the write tools (rights differ per organization); a read token does not.
      const result = await mcpCallTool(host, host.world.tokens.vic, 'addVendor', {
        organization_id: host.world.orgAuth,
        name: 'X',
      });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ error: { code: 'insufficient_scope' } });
    });

    it('limits a token restricted to some organizations to those, even where its holder is a member', async () => {
      const host = hostRef();
      const list = await ok<{ organizations: { id: string }[] }>(
        host,
        host.world.tokens.aliceRestricted,
        'listOrganizations',
      );
      expect(list.organizations.map((organization) => organization.id)).toEqual([host.world.orgAuth]);
      const refused = await callDirect(host, host.world.tokens.aliceRestricted, 'listVendors', {
        organization_id: host.world.orgTools,
      });
      expect(refused.status).toBe(404);
      expect(errorOf(refused).code).toBe('not_found');
    });
  });
}
