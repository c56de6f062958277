// Helpers for the workerd-side tests: the Worker entry, the test database over Hrana HTTP, token services.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { createClient } from '@libsql/client/web';
import { inject } from 'vitest';
import { createKvTokenCache } from '../../src/auth/kv-token-cache.ts';
import { noTokenCache } from '../../src/auth/token-cache.ts';
import { createTokenService, type TokenService } from '../../src/auth/tokens.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import worker, { type Env } from '../../src/worker.ts';
import { BASE } from '../contract/host.ts';

export const world = inject('contractWorld');

/** The database the Worker uses (or another served one), reached the same way: over HTTP with the auth token. */
export function testDatabase(url = inject('libsqlUrl')): Database {
  return createDatabase(createClient({ url, authToken: inject('libsqlAuthToken') }));
}

/** Tokens as the web interface on the Worker handles them: revocation deletes the KV entry. */
export function appTokenService(database: Database, kv: KVNamespace): TokenService {
  return createTokenService({
    db: database.db,
    cache: createKvTokenCache(kv),
    cacheTtlSeconds: 60,
    now: () => new Date(),
  });
}

/** Tokens as the operator CLI handles them: it cannot reach KV, so it only writes the database. */
export function cliTokenService(database: Database): TokenService {
  return createTokenService({
    db: database.db,
    cache: noTokenCache,
    cacheTtlSeconds: 0,
    now: () => new Date(),
  });
}

export async function newAliceToken(
  tokens: TokenService,
  userId = world.aliceUserId,
): Promise<{ id: string; token: string }> {
  const created = await tokens.create({
    userId,
    name: `worker test ${crypto.randomUUID()}`,
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  return { id: created.id, token: created.token };
}

/** GET /api/mcp/v1/health through the Worker entry: the cheapest authenticated request. */
export async function healthStatus(token: string): Promise<number> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/v1/health`, { headers: { authorization: `Bearer ${token}` } }),
  );
  await response.body?.cancel();
  return response.status;
}

/** The expiry (epoch seconds) KV holds for a key, as `list` reports it. */
export async function kvExpiration(kv: KVNamespace, key: string): Promise<number | undefined> {
  const listed = await kv.list({ prefix: key });
  return listed.keys.find((entry) => entry.name === key)?.expiration;
}

/** Runs the Cron Trigger's handler as the runtime does, and waits for what it left running (waitUntil). */
export async function runScheduled(
  bindings: Env,
  controller = createScheduledController({ cron: '17 * * * *' }),
): Promise<void> {
  const ctx = createExecutionContext();
  const scheduled = worker.scheduled as unknown as (
    controller: ScheduledController,
    env: Env,
    ctx: ExecutionContext,
  ) => Promise<void>;
  await scheduled(controller, bindings, ctx);
  await waitOnExecutionContext(ctx);
}

/** Calls the default export as the runtime does, with its own env and execution context. */
export async function fetchWith(request: Request, bindings: Env): Promise<Response> {
  const ctx = createExecutionContext();
  // workers-types' handler signature wants its own Request/Response declarations; they are the same classes here.
  const fetch = worker.fetch as unknown as (
    request: Request,
    env: Env,
    ctx: ExecutionContext,
  ) => Promise<Response>;
  const response = await fetch(request, bindings, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}
