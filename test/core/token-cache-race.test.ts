// A revocation that lands while a request is filling the cache must not be undone by that request's cache write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTokenCache, type TokenCache } from '../../src/auth/token-cache.ts';
import { createTestRuntime, createToken, createWorld, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let releasePut: () => void = () => {};
let putStarted: () => void = () => {};
let holdPuts = false;

/** The in-process cache, except that a put can be held until the test releases it. */
function gatedCache(): TokenCache {
  const inner = createMemoryTokenCache();
  return {
    get: (hash) => inner.get(hash),
    delete: (hash) => inner.delete(hash),
    async put(hash, principal, ttl) {
      if (holdPuts) {
        putStarted();
        await new Promise<void>((resolve) => {
          releasePut = resolve;
        });
      }
      await inner.put(hash, principal, ttl);
    },
  };
}

beforeAll(async () => {
  runtime = await createTestRuntime({ cache: gatedCache(), env: { TOKEN_CACHE_TTL_SECONDS: '3600' } });
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

describe('token cache and revocation', () => {
  it('refuses a token revoked while its first request was writing it to the cache', async () => {
    const token = await createToken(runtime, world.alice);
    const [created] = await runtime.tokens.list(world.alice.userId);
    holdPuts = true;
    const reachedPut = new Promise<void>((resolve) => {
      putStarted = resolve;
    });
    const inFlight = runtime.tokens.authenticate(token);
    await reachedPut;
    holdPuts = false;
    expect(await runtime.tokens.revoke(created?.id ?? '')).toBe(true);
    releasePut();
    expect((await inFlight).ok).toBe(false);
    const next = await runtime.tokens.authenticate(token);
    expect(next).toEqual({ ok: false, reason: 'revoked' });
  });

  it('drops rights removed while the first request was writing them to the cache', async () => {
    const token = await createToken(runtime, world.vic);
    holdPuts = true;
    const reachedPut = new Promise<void>((resolve) => {
      putStarted = resolve;
    });
    const inFlight = runtime.tokens.authenticate(token);
    await reachedPut;
    holdPuts = false;
    const { removeMembership } = await import('../../src/accounts.ts');
    await removeMembership(runtime.database.db, new Date(), world.orgA, world.vic.userId);
    await runtime.tokens.invalidateUser(world.vic.userId);
    releasePut();
    await inFlight;
    const next = await runtime.tokens.authenticate(token);
    expect(next.ok && next.principal.roles).toEqual({});
  });
});
