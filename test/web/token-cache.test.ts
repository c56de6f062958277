// The revocation bound: a token revoked in the UI is refused at once; revoked elsewhere (CLI), within the cache TTL.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findUserByEmail } from '../../src/accounts.ts';
import { createMemoryTokenCache, noTokenCache } from '../../src/auth/token-cache.ts';
import { createTokenService } from '../../src/auth/tokens.ts';
import { apiTokens } from '../../src/db/schema.ts';
import {
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, inviteAndAccept, manualClock, WebClient } from './web-client.ts';

const TTL_SECONDS = 10;
const runtimes = runtimesCleanedAfterEach();

/** A runtime whose clock (app, token service and the in-process cache alike) the test moves by hand. */
async function setup() {
  const clock = manualClock();
  const runtime = await createTestRuntime({
    now: clock.now,
    cache: createMemoryTokenCache(clock.ms),
    env: { TOKEN_CACHE_TTL_SECONDS: String(TTL_SECONDS) },
  });
  runtimes.push(runtime);
  const actor = await createActor(runtime, 'holder');
  await createOrg(runtime, actor, 'Org');
  const token = await createToken(runtime, actor, {
    expiresAt: new Date(clock.ms() + 30 * 86_400_000).toISOString(),
  });
  const [row] = await runtime.database.db.select().from(apiTokens);
  return { runtime, clock, actor, token, tokenId: row?.id ?? '' };
}

const status = async (runtime: TestRuntime, token: string) =>
  (await callDirect(runtime, token, 'listOrganizations')).status;

describe('token cache bound', () => {
  it('keeps accepting a token revoked by another process (the CLI) until the cache TTL elapses, then refuses it', async () => {
    const { runtime, clock, token, tokenId } = await setup();
    expect(await status(runtime, token)).toBe(200); // verified in the database, cached for 10 s
    clock.advance(2);

    // What `compliance-mcp token revoke` does: its own token service, with no view of the server's cache.
    const cli = createTokenService({
      db: runtime.database.db,
      cache: noTokenCache,
      cacheTtlSeconds: 0,
      now: clock.now,
    });
    expect(await cli.revoke(tokenId)).toBe(true);

    expect(await status(runtime, token)).toBe(200); // served from the cache
    clock.advance(TTL_SECONDS - 2 - 1); // 9 s after it was cached: still in the cache
    expect(await status(runtime, token)).toBe(200);
    clock.advance(1); // 10 s: the entry is gone, the database says revoked
    const refused = await callDirect(runtime, token, 'listOrganizations');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('refuses a token revoked in the database without touching the cache right after the TTL, never before', async () => {
    const { runtime, clock, token, tokenId } = await setup();
    expect(await status(runtime, token)).toBe(200);
    await runtime.database.db
      .update(apiTokens)
      .set({ revoked_at: clock.now().toISOString() })
      .where(eq(apiTokens.id, tokenId));
    const seen: number[] = [];
    for (let second = 0; second <= TTL_SECONDS; second++) {
      seen.push(await status(runtime, token));
      // Re-caching must not happen on a hit, or the bound would slide forever.
      clock.advance(1);
    }
    expect(seen).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 401]);
  });

  it('refuses an expired token at once, cached or not (expiry is checked on every call)', async () => {
    const { runtime, clock, actor } = await setup();
    const shortLived = await createToken(runtime, actor, {
      expiresAt: new Date(clock.ms() + 5_000).toISOString(),
    });
    expect(await status(runtime, shortLived)).toBe(200);
    clock.advance(5);
    expect(await status(runtime, shortLived)).toBe(401);
  });

  it('refuses a token revoked in the web interface from the very next call', async () => {
    const clock = manualClock();
    const runtime = await createTestRuntime({
      now: clock.now,
      cache: createMemoryTokenCache(clock.ms),
      env: { TOKEN_CACHE_TTL_SECONDS: '3600' }, // even with a long TTL
    });
    runtimes.push(runtime);
    const client = new WebClient(runtime);
    await client.signUp('ada@example.com', 'Org');
    const created = await client.submit('/settings/tokens/new', '/settings/tokens', {
      name: 'to revoke',
      scope: 'read',
      organization_mode: 'all',
      expires_in_days: '30',
    });
    const token = /cmcp_[A-Za-z0-9_-]{43}/.exec(created.html)?.[0] ?? '';
    expect(await status(runtime, token)).toBe(200);
    expect(await status(runtime, token)).toBe(200); // a cache hit
    const [row] = await runtime.database.db.select().from(apiTokens);
    const confirm = await client.get(`/settings/tokens/${row?.id}/revoke`);
    await client.post(`/settings/tokens/${row?.id}/revoke`, { _csrf: csrfOf(confirm.html) });
    expect(await status(runtime, token)).toBe(401);
  });

  it('drops cached rights when a membership changes in the web interface', async () => {
    const clock = manualClock();
    const runtime = await createTestRuntime({
      now: clock.now,
      cache: createMemoryTokenCache(clock.ms),
      env: { TOKEN_CACHE_TTL_SECONDS: '3600' },
    });
    runtimes.push(runtime);
    const owner = new WebClient(runtime);
    await owner.signUp('owner@example.com', 'Org');
    const organizationId =
      /\/orgs\/(org_[a-z0-9]+)/.exec((await owner.get('/orgs')).location ?? '')?.[1] ?? '';
    const member = new WebClient(runtime);
    await member.signUp('member@example.com');
    await inviteAndAccept(owner, member, organizationId, 'member@example.com', 'VIEWER');
    const created = await member.submit('/settings/tokens/new', '/settings/tokens', {
      name: 'member token',
      scope: 'read',
      organization_mode: 'all',
      expires_in_days: '30',
    });
    const token = /cmcp_[A-Za-z0-9_-]{43}/.exec(created.html)?.[0] ?? '';
    const before = await callDirect(runtime, token, 'listOrganizations');
    expect((before.body.organizations as unknown[]).length).toBe(1);

    const userId = (await findUserByEmail(runtime.database.db, 'member@example.com'))?.id ?? '';
    const confirm = await owner.get(`/orgs/${organizationId}/members/${userId}/remove`);
    await owner.post(`/orgs/${organizationId}/members/${userId}/remove`, { _csrf: csrfOf(confirm.html) });
    const after = await callDirect(runtime, token, 'listOrganizations');
    expect(after.body.organizations).toEqual([]);
    expect((await callDirect(runtime, token, 'listRisks', { organization_id: organizationId })).status).toBe(
      404,
    );
  });
});
