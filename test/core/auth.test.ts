// Bearer authentication beyond the host contract (test/contract/auth.ts, run on this host by contract.node.test.ts):
// an empty header, characters outside the token charset, revocation of a cached token, a VIEWER's updates and
// deletes, and tokens restricted to an organization their holder is not in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constantTimeEqual } from '../../src/auth/crypto.ts';
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
  it('refuses an empty Authorization header', async () => {
    await expectUnauthorized('', /Missing bearer token/, false);
  });

  it('refuses characters outside the token charset', async () => {
    await expectUnauthorized(`Bearer ${world.aliceToken}==`, /Malformed/);
    await expectUnauthorized(`Bearer ${world.aliceToken.replace(/.$/, '.')}`, /Malformed/);
  });

  it('refuses a revoked token at once, even right after it was cached', async () => {
    const token = await createToken(runtime, world.alice);
    expect((await callDirect(runtime, token, 'listOrganizations')).status).toBe(200);
    const [row] = await runtime.tokens.list(world.alice.userId);
    expect(row?.prefix && token.startsWith(row.prefix)).toBe(true);
    expect(await runtime.tokens.revoke(row?.id ?? '')).toBe(true);
    await expectUnauthorized(`Bearer ${token}`, /revoked/);
  });
});

describe('scope and role', () => {
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

describe('constantTimeEqual', () => {
  it('is true only for the same string, whatever the lengths and characters', () => {
    const hash = `${'a'.repeat(63)}b`;
    expect(constantTimeEqual(hash, `${'a'.repeat(63)}b`)).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('ünïcødé ✓', 'ünïcødé ✓')).toBe(true);
    // One code unit differs, first or last.
    expect(constantTimeEqual(hash, `b${'a'.repeat(62)}b`)).toBe(false);
    expect(constantTimeEqual(hash, 'a'.repeat(64))).toBe(false);
    // A prefix, or the same text with what reads as 0 past the end of the shorter one.
    expect(constantTimeEqual(hash, hash.slice(0, 63))).toBe(false);
    expect(constantTimeEqual('abc', 'abc\u0000')).toBe(false);
    expect(constantTimeEqual('', '\u0000')).toBe(false);
    // Characters beyond one byte, and code units whose low bits match.
    expect(constantTimeEqual('é', 'e')).toBe(false);
    expect(constantTimeEqual('\u0101', '\u0001')).toBe(false);
    expect(constantTimeEqual('\ud83d\ude00', '\ud83d\ude01')).toBe(false);
  });
});
