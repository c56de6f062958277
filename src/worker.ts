// Cloudflare Worker host: the same app over libSQL HTTP (@libsql/client/web) with the token cache in a KV namespace.
import type {
  ExportedHandler,
  KVNamespace,
  ExecutionContext as WorkerExecutionContext,
  Response as WorkerResponse,
} from '@cloudflare/workers-types';
import { createClient } from '@libsql/client/web';
import { z } from 'zod';
import { createKvTokenCache, KV_MIN_TTL_SECONDS } from './auth/kv-token-cache.ts';
import { loadConfig } from './config.ts';
import { createDatabase } from './db/client.ts';
import { scheduledUpkeep } from './db/search-maintenance.ts';
import { AppError, toErrorBody } from './errors.ts';
import { createRuntime, type Runtime } from './runtime.ts';

// Workers refuse code generation; zod would only probe for it, this makes that explicit.
z.config({ jitless: true });

/** Bindings of the Worker (wrangler.toml [vars], [[kv_namespaces]], and `wrangler secret put`). */
export interface Env {
  /** libSQL server: `libsql://<db>.turso.io`, `https://sqld.example.com`, or the dev server `http://127.0.0.1:<port>`. */
  LIBSQL_URL?: string;
  /** Secret: the libSQL auth token (Turso: `turso db tokens create`). */
  LIBSQL_AUTH_TOKEN?: string;
  /** KV namespace caching verified tokens: key = SHA-256 of the token, value = principal JSON. */
  TOKEN_CACHE: KVNamespace;
  PUBLIC_URL?: string;
  ALLOWED_ORIGINS?: string;
  /** Seconds a verified token stays in KV; KV's minimum (60) applies. */
  TOKEN_CACHE_TTL_SECONDS?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  MAX_BODY_BYTES?: string;
  /** `true` under `npm run dev:worker`: Host and Origin must be loopback, as on the Node host bound to 127.0.0.1. */
  LOOPBACK_ONLY?: string;
  /** `false`: every MCP request through the SDK (docs/mcp.md); default true, as on Node. */
  MCP_FAST_PATH?: string;
  /** Development only (`npm run dev:worker`): http:// and loopback webhook URLs are accepted and called. */
  WEBHOOKS_ALLOW_LOCAL?: string;
}

/** The Cron Trigger that runs webhook deliveries (wrangler.toml); any other one runs the hourly upkeep. */
export const DELIVERY_CRON = '* * * * *';
/**
 * Messages one cron run sends: 2 database requests + one fetch each = 42 subrequests, under the Free plan's 50 per
 * invocation (docs/worker.md).
 */
export const CRON_DELIVERIES = 40;

const STRING_SETTINGS = [
  'LIBSQL_URL',
  'LIBSQL_AUTH_TOKEN',
  'PUBLIC_URL',
  'ALLOWED_ORIGINS',
  'TOKEN_CACHE_TTL_SECONDS',
  'RATE_LIMIT_PER_MINUTE',
  'MAX_BODY_BYTES',
  'LOOPBACK_ONLY',
  'MCP_FAST_PATH',
  'WEBHOOKS_ALLOW_LOCAL',
] as const;

function buildRuntime(env: Env): Runtime {
  if (!env.LIBSQL_URL) {
    throw new Error(
      'LIBSQL_URL is not set: point it at a libSQL server (Turso, sqld, or `npm run dev:worker`).',
    );
  }
  const config = loadConfig({
    DATABASE_URL: env.LIBSQL_URL,
    DATABASE_AUTH_TOKEN: env.LIBSQL_AUTH_TOKEN,
    PUBLIC_URL: env.PUBLIC_URL,
    ALLOWED_ORIGINS: env.ALLOWED_ORIGINS,
    TOKEN_CACHE_TTL_SECONDS: env.TOKEN_CACHE_TTL_SECONDS ?? String(KV_MIN_TTL_SECONDS),
    RATE_LIMIT_PER_MINUTE: env.RATE_LIMIT_PER_MINUTE,
    MAX_BODY_BYTES: env.MAX_BODY_BYTES,
    MCP_FAST_PATH: env.MCP_FAST_PATH,
    WEBHOOKS_ALLOW_LOCAL: env.WEBHOOKS_ALLOW_LOCAL,
  });
  // No client-side queue (see docs/worker.md, "Concurrency"): the client's default limit of 20 in-flight statements
  // is one queue per isolate, and a queued statement is started by whichever request frees a slot, so its fetch
  // belongs to that request; workerd cancels it when that request ends, the waiting request hangs and its slot is
  // never freed. Without the queue each statement's fetch starts in its own request, under workerd's per-request
  // limits (6 open connections at once, the rest wait inside that request).
  const client = createClient({
    url: config.databaseUrl,
    authToken: config.databaseAuthToken,
    concurrency: Number.POSITIVE_INFINITY,
  });
  return createRuntime({
    config,
    database: createDatabase(client),
    cache: createKvTokenCache(env.TOKEN_CACHE),
    loopbackOnly: env.LOOPBACK_ONLY === 'true',
    usageFlush: 'after-response',
  });
}

// One runtime per isolate: the app, tool schemas and libSQL client are built on the first request, not on each.
let current: { env: Env; settings: string; runtime: Runtime } | undefined;

export function runtimeFor(env: Env): Runtime {
  if (current?.env === env) return current.runtime;
  const settings = JSON.stringify(STRING_SETTINGS.map((name) => env[name] ?? null));
  if (current?.settings !== settings) current = { env, settings, runtime: buildRuntime(env) };
  else current = { ...current, env };
  return current.runtime;
}

function logMisconfiguration(error: unknown): void {
  console.error(`worker configuration: ${error instanceof Error ? error.message : String(error)}`);
}

function misconfigured(error: unknown): Response {
  logMisconfiguration(error);
  const message = 'The server is misconfigured; its log says which setting is wrong.';
  return new Response(JSON.stringify(toErrorBody(new AppError('internal', message))), {
    status: 500,
    headers: { 'content-type': 'application/json' },
  });
}

export default {
  async fetch(request, env, ctx) {
    let runtime: Runtime;
    try {
      runtime = runtimeFor(env);
    } catch (error) {
      return misconfigured(error) as unknown as WorkerResponse;
    }
    // workers-types and the DOM lib describe the same Request/Response classes under different declarations.
    const response = await runtime.app.fetch(
      request as unknown as Request,
      env,
      ctx as WorkerExecutionContext,
    );
    return response as unknown as WorkerResponse;
  },

  // The Cron Triggers (wrangler.toml [triggers]): every minute, webhook deliveries (at most CRON_DELIVERIES messages,
  // within the subrequest budget: docs/worker.md); hourly, what the Node host does on its timer, within a budget of
  // requests (src/db/search-maintenance.ts, scheduledUpkeep). A failure fails the run (Cron Events shows it) and is
  // not retried at once: the next run tries again.
  async scheduled(controller, env) {
    let runtime: Runtime;
    try {
      runtime = runtimeFor(env);
    } catch (error) {
      controller.noRetry();
      logMisconfiguration(error);
      throw error;
    }
    if (controller.cron === DELIVERY_CRON) {
      const run = await runtime.webhooks.run(CRON_DELIVERIES);
      if (run.sent > 0)
        console.log(
          `webhooks: ${run.sent} sent, ${run.delivered} delivered, ${run.retrying} to retry, ${run.failed} failed`,
        );
      return;
    }
    try {
      const { merged, unfinished } = await scheduledUpkeep(runtime.database.client);
      console.log(
        `upkeep: statistics refreshed; search indexes merged: ${merged.join(', ') || 'none'}${unfinished ? '; the merge carries on at the next run' : ''}`,
      );
    } catch (error) {
      controller.noRetry();
      console.error(`upkeep failed: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  },
} satisfies ExportedHandler<Env>;
