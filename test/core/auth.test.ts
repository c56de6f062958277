// Bearer authentication on every surface: each 401 form, scope and role refusals, organization restriction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTokens } from '../../src/db/schema.ts';
import {
  BASE,
  callDirect,
  createTestRuntime,
  createToken,
  createWorld,
  errorOf,
  mcpPost,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
};

/** The same request on the three authenticated surfaces, with a given Authorization header (or none). */
async function onEverySurface(authorization: string | null): Promise<Response[]> {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  return [
    await mcpPost(runtime, headers, INITIALIZE),
    await runtime.app.request(`${BASE}/api/mcp/tools/listOrganizations`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    }),
    await runtime.app.request(`${BASE}/api/mcp/listOrganizations`, { method: 'POST', headers }),
    await runtime.app.request(`${BASE}/api/mcp/v1/health`, { headers }),
  ];
}

async function expectUnauthorized(authorization: string | null, message: RegExp, invalidToken = true) {
  for (const response of await onEverySurface(authorization)) {
    expect(response.status, response.url).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer realm="compliance-mcp"/);
    expect(challenge.includes('error="invalid_token"')).toBe(invalidToken);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(message);
  }
}

describe('401 Unauthorized', () => {
  it('refuses a request without an Authorization header', async () => {
    await expectUnauthorized(null, /Missing bearer token/, false);
  });

  it('refuses an empty Authorization header', async () => {
    await expectUnauthorized('', /Missing bearer token/, false);
  });

  it('refuses a token sent without the Bearer prefix', async () => {
    await expectUnauthorized(world.aliceToken, /Malformed/);
  });

  it('refuses another scheme', async () => {
    await expectUnauthorized(`Basic ${btoa('alice:secret')}`, /Malformed/);
    await expectUnauthorized(`Token ${world.aliceToken}`, /Malformed/);
  });

  it('refuses two spaces after Bearer', async () => {
    await expectUnauthorized(`Bearer  ${world.aliceToken}`, /Malformed/);
  });

  it('refuses a stray space or tab inside the token', async () => {
    await expectUnauthorized(
      `Bearer ${world.aliceToken.slice(0, 10)} ${world.aliceToken.slice(10)}`,
      /Malformed/,
    );
    await expectUnauthorized(
      `Bearer ${world.aliceToken.slice(0, 10)}\t${world.aliceToken.slice(10)}`,
      /Malformed/,
    );
  });

  it('refuses "Bearer" with no token', async () => {
    await expectUnauthorized('Bearer', /Malformed/);
  });

  it('refuses characters outside the token charset', async () => {
    await expectUnauthorized(`Bearer ${world.aliceToken}==`, /Malformed/);
    await expectUnauthorized(`Bearer ${world.aliceToken.replace(/.$/, '.')}`, /Malformed/);
  });

  it('refuses an unknown token of the right shape', async () => {
    await expectUnauthorized(`Bearer cmcp_${'A'.repeat(43)}`, /Unknown API token/);
  });

  it('refuses an expired token', async () => {
    const token = await createToken(runtime, world.alice, {
      expiresAt: new Date(Date.now() + 1000).toISOString(),
    });
    const { eq } = await import('drizzle-orm');
    const { hashToken } = await import('../../src/auth/tokens.ts');
    await runtime.database.db
      .update(apiTokens)
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where(eq(apiTokens.token_hash, await hashToken(token)));
    await expectUnauthorized(`Bearer ${token}`, /expired/);
  });

  it('refuses a revoked token at once, even right after it was cached', async () => {
    const token = await createToken(runtime, world.alice);
    expect((await callDirect(runtime, token, 'listOrganizations')).status).toBe(200);
    const [row] = await runtime.tokens.list(world.alice.userId);
    expect(row?.prefix && token.startsWith(row.prefix)).toBe(true);
    expect(await runtime.tokens.revoke(row?.id ?? '')).toBe(true);
    await expectUnauthorized(`Bearer ${token}`, /revoked/);
  });

  it('accepts the scheme in any letter case', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const response = await runtime.app.request(`${BASE}/api/mcp/v1/health`, {
        headers: { authorization: `${scheme} ${world.aliceToken}` },
      });
      expect(response.status).toBe(200);
    }
  });

  it('never echoes the token in an error', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/v1/health`, {
      headers: { authorization: `Bearer cmcp_${'B'.repeat(43)}` },
    });
    const text = `${await response.text()} ${response.headers.get('www-authenticate')}`;
    expect(text).not.toContain('B'.repeat(20));
  });
});

describe('health', () => {
  it('answers status, version, database and time with a valid token', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/v1/health`, {
      headers: { authorization: `Bearer ${world.aliceToken}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ok', version: runtime.config.version, database: 'ok' });
    expect(Date.parse(String(body.time))).not.toBeNaN();
  });

  it('serves /healthz without a token and without data', async () => {
    const response = await runtime.app.request(`${BASE}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('scope and role', () => {
  it('refuses a write tool to a read-only token with 403 insufficient_scope, and writes nothing', async () => {
    const result = await callDirect(runtime, world.aliceReadToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'X',
    });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_scope');
    const list = await ok<{ total_count: number }>(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      filter: { query: 'X' },
    });
    expect(list.total_count).toBe(0);
  });

  it('lets a read-only token read', async () => {
    const result = await callDirect(runtime, world.aliceReadToken, 'listVendors', {
      organization_id: world.orgA,
    });
    expect(result.status).toBe(200);
  });

  it('refuses a VIEWER writing with 403 insufficient_scope naming the role', async () => {
    const result = await callDirect(runtime, world.vicToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'R',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    expect(result.status).toBe(403);
    expect(errorOf(result)).toMatchObject({ code: 'insufficient_scope' });
    expect(errorOf(result).message).toContain('VIEWER');
  });

  it('refuses a VIEWER updating or deleting an existing record', async () => {
    const vendor = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Viewer target',
    });
    for (const [tool, args] of [
      ['updateVendor', { id: vendor.vendor.id, name: 'changed' }],
      ['deleteVendor', { id: vendor.vendor.id }],
    ] as const) {
      const result = await callDirect(runtime, world.vicToken, tool, args);
      expect(result.status).toBe(403);
      expect(errorOf(result).code).toBe('insufficient_scope');
    }
    const still = await ok<{ vendor: { name: string } }>(runtime, world.vicToken, 'getVendor', {
      id: vendor.vendor.id,
    });
    expect(still.vendor.name).toBe('Viewer target');
  });

  it('returns the refusal as a tool error over MCP', async () => {
    const response = await mcpPost(
      runtime,
      { authorization: `Bearer ${world.vicToken}` },
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'addVendor', arguments: { organization_id: world.orgA, name: 'X' } },
      },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      result: { isError: boolean; structuredContent: { error: { code: string } } };
    };
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent.error.code).toBe('insufficient_scope');
  });

  it('limits a token restricted to some organizations to those, even where its holder is a member', async () => {
    const orgC = (await import('../../src/accounts.ts')).createOrganization;
    const other = await orgC(runtime.database.db, new Date(), { name: 'Gamma', ownerId: world.alice.userId });
    const restricted = await createToken(runtime, world.alice, { organizationIds: [world.orgA] });
    const list = await ok<{ organizations: { id: string }[] }>(runtime, restricted, 'listOrganizations');
    expect(list.organizations.map((organization) => organization.id)).toEqual([world.orgA]);
    const refused = await callDirect(runtime, restricted, 'listVendors', { organization_id: other.id });
    expect(refused.status).toBe(404);
    expect(errorOf(refused).code).toBe('not_found');
  });

  it('refuses to create a token restricted to an organization its holder is not in', async () => {
    await expect(
      runtime.tokens.create({
        userId: world.alice.userId,
        name: 'x',
        scope: 'read',
        organizationIds: [world.orgB],
        expiresAt: null,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
