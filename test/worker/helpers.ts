// Helpers for the workerd-side tests: the Worker entry, the test database over Hrana HTTP, token services.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { createClient } from '@libsql/client/web';
import { and, eq } from 'drizzle-orm';
import { expect, inject } from 'vitest';
import { issueLink, linkPath, pendingSignUpOf, signUpOf } from '../../src/account-links.ts';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { createKvTokenCache } from '../../src/auth/kv-token-cache.ts';
import { noTokenCache } from '../../src/auth/token-cache.ts';
import { createTokenService, type TokenService } from '../../src/auth/tokens.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { webhookMessages } from '../../src/db/schema.ts';
import worker, { type Env, runtimeFor } from '../../src/worker.ts';
import { browserSession, csrfOf, pageOf } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';

export const world = inject('contractWorld');

/** How many objects the Worker's R2 bucket (FILES) holds. */
export async function blobCount(): Promise<number> {
  const files = (env as unknown as Env).FILES;
  if (!files) throw new Error('wrangler.toml binds no FILES bucket');
  return (await files.list()).objects.length;
}

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

/**
 * A new organization, its owner and a read_write token of theirs, written to the database as the operator CLI does;
 * `label` (one word, e.g. "audits") names them: an email `wk-<label>-...@example.com`, an organization `Worker <label> ...`.
 */
export async function ownedOrganization(
  database: Database,
  label: string,
): Promise<{ organizationId: string; token: string }> {
  const now = new Date();
  const suffix = crypto.randomUUID().slice(0, 8);
  const owner = await createUser(database.db, now, {
    emailVerified: true,
    email: `wk-${label}-${suffix}@example.com`,
    password: 'not used in this test',
    passwordHash: 'x',
  });
  const organization = await createOrganization(database.db, now, {
    name: `Worker ${label} ${suffix}`,
    ownerId: owner.id,
  });
  const { token } = await cliTokenService(database).create({
    userId: owner.id,
    name: `worker ${label}`,
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  return { organizationId: organization.id, token };
}

/** A direct tool call through the Worker entry: its status and JSON body. */
export async function callTool(
  token: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
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

/**
 * A browser over the Worker entry, its pages read whole, from a network of its own (`CF-Connecting-IP`, which
 * Cloudflare sets): the files share one database, so the sign-up counter of one network would be shared too.
 */
export function workerBrowser(
  address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
) {
  const session = browserSession((request) => {
    request.headers.set('cf-connecting-ip', address);
    return exports.default.fetch(request);
  }, BASE);
  return {
    address,
    get: (path: string) => session.send(path).then(pageOf),
    post: (path: string, fields: Record<string, string>) =>
      session
        .send(path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        })
        .then(pageOf),
    /** The form of `path` sent with its CSRF token and `fields`. */
    async submit(path: string, action: string, fields: Record<string, string>) {
      const page = await session.send(path).then(pageOf);
      return session
        .send(action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrfOf(page.html), ...fields }).toString(),
        })
        .then(pageOf);
    },
  };
}

export type WorkerBrowser = ReturnType<typeof workerBrowser>;

/**
 * Signs up through the forms: the sign-up form, then (the database is never empty here) the confirmation link an
 * email would carry, made as the operator's `user verify --link` makes it. Returns the confirmation's answer.
 */
export async function signUpOnWorker(
  person: WorkerBrowser,
  email: string,
  password: string,
  organization?: string,
) {
  const form = await person.submit('/signup', '/signup', {
    name: 'Worker Person',
    email,
    password,
    password_confirm: password,
    ...(organization ? { organization } : {}),
  });
  if (form.status !== 200 || !form.html.includes('Check your email')) return form;
  const { db } = testDatabase();
  const pending = await pendingSignUpOf(db, email, new Date(0));
  const signUp = pending && signUpOf(pending);
  if (!pending || !signUp) throw new Error(`No sign-up of ${email} waits for its link`);
  const { secret } = await issueLink(db, new Date(), { purpose: 'signup', email, userId: null, signUp });
  const path = linkPath('signup', secret);
  return person.submit(path, path, {});
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

/**
 * The webhook message of `endpointId` once delivered, for a test whose Worker (`bindings`) may send to loopback. The
 * files beside it share the outbox, and their runtimes refuse loopback addresses: a run of theirs may claim the
 * message first and put it off for the retry delay (pending, no status code). Each time it is still pending it is made
 * due again and sent by a run with `bindings`; at most `timeout` ms.
 */
export async function deliveredMessage(
  database: Database,
  endpointId: string,
  bindings: Env,
  timeout = 20_000,
) {
  const messageOf = async () =>
    (await database.db.select().from(webhookMessages).where(eq(webhookMessages.endpoint_id, endpointId)))[0];
  await expect
    .poll(
      async () => {
        const message = await messageOf();
        if (message?.status !== 'pending') return message?.status;
        await database.db
          .update(webhookMessages)
          .set({ next_attempt_at: new Date(0).toISOString(), locked_until: null })
          .where(and(eq(webhookMessages.id, message.id), eq(webhookMessages.status, 'pending')));
        await runtimeFor(bindings).webhooks.run(50);
        return (await messageOf())?.status;
      },
      { timeout, interval: 250 },
    )
    .toBe('delivered');
  return messageOf();
}
