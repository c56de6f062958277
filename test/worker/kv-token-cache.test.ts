// The KV token cache inside workerd: what is stored, for how long, and the measured window of a revoked token.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createKvTokenCache, KV_MIN_TTL_SECONDS } from '../../src/auth/kv-token-cache.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { hashToken } from '../../src/auth/tokens.ts';
import {
  appTokenService,
  cliTokenService,
  healthStatus,
  kvExpiration,
  newAliceToken,
  testDatabase,
  world,
} from './helpers.ts';

const principal: Principal = {
  tokenId: 'tok_kvtest',
  userId: 'usr_kvtest',
  scope: 'read',
  roles: { org_kvtest: 'EDITOR' },
  expiresAt: null,
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('KV token cache', () => {
  const cache = createKvTokenCache(env.TOKEN_CACHE, () => {});

  it('stores the principal as JSON under the token hash, expiring after KV’s minimum of 60 s', async () => {
    const key = `hash-${crypto.randomUUID()}`;
    await cache.put(key, principal, 10);
    expect(await env.TOKEN_CACHE.get(key, 'json')).toEqual(principal);
    expect(await cache.get(key)).toEqual(principal);
    const expiration = await kvExpiration(env.TOKEN_CACHE, key);
    expect(expiration).toBeGreaterThanOrEqual(nowSeconds() + KV_MIN_TTL_SECONDS - 2);
    expect(expiration).toBeLessThanOrEqual(nowSeconds() + KV_MIN_TTL_SECONDS + 1);
  });

  it('keeps a longer TTL as asked', async () => {
    const key = `hash-${crypto.randomUUID()}`;
    await cache.put(key, principal, 300);
    const expiration = await kvExpiration(env.TOKEN_CACHE, key);
    expect(expiration).toBeGreaterThanOrEqual(nowSeconds() + 298);
    expect(expiration).toBeLessThanOrEqual(nowSeconds() + 301);
  });

  it('stores nothing for a TTL of zero', async () => {
    const key = `hash-${crypto.randomUUID()}`;
    await cache.put(key, principal, 0);
    expect(await env.TOKEN_CACHE.get(key)).toBeNull();
  });

  it('treats a value that is not a principal, or not JSON, as a miss', async () => {
    const shapeless = `hash-${crypto.randomUUID()}`;
    const garbage = `hash-${crypto.randomUUID()}`;
    await env.TOKEN_CACHE.put(shapeless, JSON.stringify({ tokenId: 'tok_x' }));
    await env.TOKEN_CACHE.put(garbage, 'not json');
    expect(await cache.get(shapeless)).toBeNull();
    expect(await cache.get(garbage)).toBeNull();
  });

  it('deletes the key', async () => {
    const key = `hash-${crypto.randomUUID()}`;
    await cache.put(key, principal, 60);
    await cache.delete(key);
    expect(await env.TOKEN_CACHE.get(key)).toBeNull();
  });
});

describe('tokens through the Worker entry', () => {
  it('caches a verified token in KV under its SHA-256 with what authorization needs', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    const key = await hashToken(created.token);
    expect(await env.TOKEN_CACHE.get(key)).toBeNull();
    expect(await healthStatus(created.token)).toBe(200);
    const cached = (await env.TOKEN_CACHE.get(key, 'json')) as Principal;
    expect(cached).toMatchObject({ tokenId: created.id, userId: world.aliceUserId, scope: 'read_write' });
    expect(cached.roles).toEqual({
      [world.orgTools]: 'OWNER',
      [world.orgIsolation]: 'OWNER',
      [world.orgPaging]: 'OWNER',
      [world.orgAuth]: 'OWNER',
    });
    expect(Date.parse(cached.expiresAt ?? '')).toBeGreaterThan(Date.now());
    expect(await kvExpiration(env.TOKEN_CACHE, key)).toBeLessThanOrEqual(nowSeconds() + 61);
    // Never the secret itself.
    expect((await env.TOKEN_CACHE.list()).keys.map((entry) => entry.name)).not.toContain(created.token);
    database.client.close();
  });

  it('still checks expiry on a cache hit', async () => {
    const token = `cmcp_${crypto.randomUUID().replaceAll('-', '')}xyz`;
    const key = await hashToken(token);
    await env.TOKEN_CACHE.put(
      key,
      JSON.stringify({ ...principal, expiresAt: new Date(Date.now() + 60_000).toISOString() }),
    );
    // The cache is trusted while the entry lives: this token exists only in KV.
    expect(await healthStatus(token)).toBe(200);
    await env.TOKEN_CACHE.put(
      key,
      JSON.stringify({ ...principal, expiresAt: new Date(Date.now() - 1000).toISOString() }),
    );
    expect(await healthStatus(token)).toBe(401);
  });

  it('refuses a token revoked through the app on the very next request (same location)', async () => {
    const database = testDatabase();
    const tokens = appTokenService(database, env.TOKEN_CACHE);
    const created = await newAliceToken(tokens);
    expect(await healthStatus(created.token)).toBe(200);
    expect(await env.TOKEN_CACHE.get(await hashToken(created.token))).not.toBeNull();
    const revokedAt = Date.now();
    expect(await tokens.revoke(created.id)).toBe(true);
    expect(await env.TOKEN_CACHE.get(await hashToken(created.token))).toBeNull();
    expect(await healthStatus(created.token)).toBe(401);
    console.info(
      `[revocation window] app path, same location: 401 after ${Date.now() - revokedAt} ms (next request)`,
    );
    database.client.close();
  });

  it('serves a token revoked from the CLI (database only) from KV until the entry expires, at most 60 s', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    expect(await healthStatus(created.token)).toBe(200);
    const expiration = await kvExpiration(env.TOKEN_CACHE, await hashToken(created.token));
    expect(await cliTokenService(database).revoke(created.id)).toBe(true);
    // The documented window: the KV entry is still there and still trusted...
    expect(await healthStatus(created.token)).toBe(200);
    // ...but no longer than its expirationTtl.
    expect((expiration ?? 0) - nowSeconds()).toBeLessThanOrEqual(KV_MIN_TTL_SECONDS);
    database.client.close();
  });

  it('measures the window of a CLI revocation: 401 once the KV entry expires', async () => {
    const database = testDatabase();
    const created = await newAliceToken(cliTokenService(database));
    expect(await healthStatus(created.token)).toBe(200);
    const cachedAt = Date.now();
    expect(await cliTokenService(database).revoke(created.id)).toBe(true);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 90_000) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      status = await healthStatus(created.token);
    }
    const window = Date.now() - revokedAt;
    console.info(
      `[revocation window] CLI path: still accepted for ${(window / 1000).toFixed(1)} s after the revocation ` +
        `(${((Date.now() - cachedAt) / 1000).toFixed(1)} s after the token was cached)`,
    );
    expect(status).toBe(401);
    expect(window).toBeLessThanOrEqual((KV_MIN_TTL_SECONDS + 2) * 1000);
    database.client.close();
  }, 100_000);
});
