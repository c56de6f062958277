// Test helpers: a migrated temporary database, the app built by the same runtime factory, users, tokens, calls.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach } from 'vitest';
import { createOrganization, createUser, setMembership } from '../src/accounts.ts';
import { hashPassword } from '../src/auth/passwords.ts';
import type { Role, TokenScope } from '../src/auth/principal.ts';
import { createMemoryTokenCache, type TokenCache } from '../src/auth/token-cache.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { nodeFileRuntime } from '../src/files/node.ts';
import type { MailerFactory } from '../src/notify/mailer.ts';
import type { ClientMetadataFetcher } from '../src/oauth/client-metadata.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { prepareNodeSecrets } from '../src/secrets/node-key.ts';
import type { DirectResult, Fetcher } from './contract/host.ts';
import * as contract from './contract/host.ts';

export const BASE = 'http://127.0.0.1:8787';

export interface TestRuntime extends Runtime {
  cleanup(): Promise<void>;
}

let template: Promise<string> | undefined;

/** A migrated database file, made once per test process: copying it takes ~2 ms, migrating ~45 ms. */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmcp-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'template.db');
    const database = await openNodeDatabase(`file:${path}`);
    await migrateDatabase(database);
    // Everything into the main file, so that copying that file alone copies the database.
    await database.client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    database.client.close();
    return path;
  })();
  return template;
}

export async function createTestRuntime(
  options: {
    env?: Record<string, string>;
    now?: () => Date;
    cache?: TokenCache;
    loopbackOnly?: boolean;
    clientMetadataFetcher?: ClientMetadataFetcher;
    mailer?: MailerFactory;
  } = {},
): Promise<TestRuntime> {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-test-'));
  const file = join(dir, 'test.db');
  const given: Config = loadConfig({ DATABASE_URL: `file:${file}`, ...options.env });
  // The default temporary file starts as a copy of the migrated template; another DATABASE_URL is migrated.
  const copied = given.databaseUrl === `file:${file}`;
  if (copied) copyFileSync(await migratedTemplate(), file);
  const database = await openNodeDatabase(given.databaseUrl);
  if (!copied) await migrateDatabase(database);
  // As the Node host: SECRETS_KEY, else a key file made beside the database.
  const { config } = await prepareNodeSecrets(given, database);
  const runtime = createRuntime({
    config,
    database,
    cache: options.cache ?? createMemoryTokenCache(),
    loopbackOnly: options.loopbackOnly ?? true,
    usageFlush: 'host',
    now: options.now,
    log: () => {},
    clientMetadataFetcher: options.clientMetadataFetcher,
    files: nodeFileRuntime(config),
    mailer: options.mailer,
  });
  return {
    ...runtime,
    async cleanup() {
      await runtime.usage.flush();
      database.client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The runtimes a test file makes, each cleaned up (closed, its files removed) after the test that pushed it:
 * `const runtimes = runtimesCleanedAfterEach();` at the top of the file, then `runtimes.push(runtime)`.
 */
export function runtimesCleanedAfterEach(): TestRuntime[] {
  const runtimes: TestRuntime[] = [];
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.cleanup();
  });
  return runtimes;
}

export interface Actor {
  userId: string;
  email: string;
}

let counter = 0;

/** The password of every actor; its hash (at the suite's setting, test/password-cost.ts) is derived once per test process. */
export const ACTOR_PASSWORD = 'correct horse battery';
let actorPasswordHash: Promise<string> | undefined;

export async function createActor(runtime: Runtime, name = 'user'): Promise<Actor> {
  counter += 1;
  const email = `${name}-${counter}-${Date.now()}@example.com`;
  actorPasswordHash ??= hashPassword(ACTOR_PASSWORD);
  const user = await createUser(runtime.database.db, new Date(), {
    emailVerified: true,
    email,
    password: ACTOR_PASSWORD,
    passwordHash: await actorPasswordHash,
    name,
  });
  return { userId: user.id, email };
}

export async function createOrg(runtime: Runtime, owner: Actor, name = 'Org'): Promise<string> {
  return (await createOrganization(runtime.database.db, new Date(), { name, ownerId: owner.userId })).id;
}

export async function addMember(
  runtime: Runtime,
  organizationId: string,
  actor: Actor,
  role: Role,
): Promise<void> {
  // Test setup, the operator's way (no invitation); reached by the actor's tokens whenever they were made, as the
  // runtime's clock may not be the wall clock.
  await setMembership(runtime.database.db, new Date(), organizationId, actor.userId, role, {
    earlierTokens: true,
  });
}

export async function createToken(
  runtime: Runtime,
  actor: Actor,
  options: { scope?: TokenScope; organizationIds?: string[] | null; expiresAt?: string | null } = {},
): Promise<string> {
  const created = await runtime.tokens.create({
    userId: actor.userId,
    name: 'test token',
    scope: options.scope ?? 'read_write',
    organizationIds: options.organizationIds ?? null,
    expiresAt:
      options.expiresAt === undefined ? new Date(Date.now() + 86_400_000).toISOString() : options.expiresAt,
  });
  return created.token;
}

/**
 * A runtime without a rate limit and two organizations, each owned by its own person with a token: `org` (named
 * `name`) for the test, `otherOrg` to check that nothing crosses over.
 */
export async function twoOrganizations(name: string) {
  const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  return {
    runtime,
    org: await createOrg(runtime, alice, name),
    otherOrg: await createOrg(runtime, bob, 'Other Org'),
    token: await createToken(runtime, alice),
    otherToken: await createToken(runtime, bob),
  };
}

export { type DirectResult, errorOf } from './contract/host.ts';

/** The runtime's app as the contract's fetcher (in process, no socket). */
export function fetcherOf(runtime: Runtime): Fetcher {
  return { fetch: async (request) => runtime.app.fetch(request) };
}

/** POST /api/mcp/tools/<tool> (or /api/mcp/<tool> with `variant: 'short'`). */
export function callDirect(
  runtime: Runtime,
  token: string | null,
  tool: string,
  args: unknown = {},
  variant: 'tools' | 'short' = 'tools',
): Promise<DirectResult> {
  return contract.callDirect(fetcherOf(runtime), token, tool, args, variant);
}

/** Calls a tool directly and fails the test unless it answered 200. */
export function ok<T = Record<string, unknown>>(
  runtime: Runtime,
  token: string,
  tool: string,
  args: unknown = {},
) {
  return contract.ok<T>(fetcherOf(runtime), token, tool, args);
}

/** An SDK 1.x MCP client whose HTTP goes to `app.fetch` in process. */
export async function mcpClient(runtime: Runtime, token: string, query = '?toolsets=all'): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp/v1${query}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => runtime.app.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

/** A @modelcontextprotocol/client 2.x client pinned to 2026-07-28 at `/api/mcp/v1?<query>`, in process. */
export async function modernMcpClient(
  runtime: Runtime,
  token: string,
  query = 'toolsets=all',
  name = 'modern-test-client',
): Promise<ModernClient> {
  const client = new ModernClient(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new ModernTransport(new URL(`${BASE}/api/mcp/v1?${query}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: async (input, init) => runtime.app.fetch(new Request(input, init)),
    }),
  );
  return client;
}

/** Sends one JSON-RPC message to the MCP endpoint and returns the HTTP response. */
export function mcpPost(runtime: Runtime, headers: Record<string, string>, body: unknown): Promise<Response> {
  return Promise.resolve(
    runtime.app.request(`${BASE}/api/mcp/v1?toolsets=all`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** A standard world: Alice owns org A, Bob owns org B, Vic is VIEWER in A; tokens for each. */
export async function createWorld(runtime: Runtime) {
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  const vic = await createActor(runtime, 'vic');
  const orgA = await createOrg(runtime, alice, 'Alpha Corp');
  const orgB = await createOrg(runtime, bob, 'Beta Corp');
  await addMember(runtime, orgA, vic, 'VIEWER');
  return {
    alice,
    bob,
    vic,
    orgA,
    orgB,
    aliceToken: await createToken(runtime, alice),
    aliceReadToken: await createToken(runtime, alice, { scope: 'read' }),
    bobToken: await createToken(runtime, bob),
    vicToken: await createToken(runtime, vic),
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;
