// Cloudflare Worker host: the same app over libSQL HTTP (@libsql/client/web) with the token cache in a KV namespace.
import type {
  ExportedHandler,
  KVNamespace,
  R2Bucket,
  ExecutionContext as WorkerExecutionContext,
  Response as WorkerResponse,
} from '@cloudflare/workers-types';
import { createClient } from '@libsql/client/web';
import { z } from 'zod';
import { createKvTokenCache, KV_MIN_TTL_SECONDS } from './auth/kv-token-cache.ts';
import { type Config, loadConfig } from './config.ts';
import { createDatabase } from './db/client.ts';
import { scheduledUpkeep } from './db/search-maintenance.ts';
import { AppError, toErrorBody } from './errors.ts';
import { createR2BlobStore } from './files/r2.ts';
import { fileRuntime } from './files/runtime.ts';
import { createS3BlobStore } from './files/s3.ts';
import { type BlobStore, unconfiguredBlobStore } from './files/store.ts';
import { fileUpkeep } from './files/upkeep.ts';
import { cloudflareClientAddress } from './http/client-address.ts';
import { workerMailer } from './notify/mailer-worker.ts';
import { describeReport, notifyOnce } from './notify/schedule.ts';
import { purgeUnusedClients } from './oauth/purge.ts';
import { createRuntime, type Runtime } from './runtime.ts';
import { purgeExpiredIdempotencyKeys } from './surfaces/idempotency.ts';
import { reencryptEndpointSecrets } from './webhooks/secrets.ts';
import { CRON_DELIVERIES, DELIVERY_CRON, UPKEEP_CRON } from './worker-crons.ts';
import { withUploadReads } from './worker-uploads.ts';

// Workers refuse code generation; zod would only probe for it, this makes that explicit.
z.config({ jitless: true });

/**
 * The Worker's string settings (wrangler.toml [vars] and `wrangler secret put`), listed once: the Env type, the
 * configuration handed to loadConfig and the check that rebuilds the runtime when a setting changes all read this list.
 * The Node host reads the same names from its environment (docs/operations.md, Configuration).
 */
const STRING_SETTINGS = [
  /** libSQL server: `libsql://<db>.turso.io`, `https://sqld.example.com`, or the dev server `http://127.0.0.1:<port>`. */
  'LIBSQL_URL',
  /** Secret: the libSQL auth token (Turso: `turso db tokens create`). */
  'LIBSQL_AUTH_TOKEN',
  /** The URL clients reach the Worker at: the OAuth issuer and token audience (required unless LOOPBACK_ONLY). */
  'PUBLIC_URL',
  'ALLOWED_ORIGINS',
  /** Seconds a verified token stays in KV; KV's minimum (60) applies. */
  'TOKEN_CACHE_TTL_SECONDS',
  'RATE_LIMIT_PER_MINUTE',
  'MAX_BODY_BYTES',
  /** `true` under `npm run dev:worker`: Host and Origin must be loopback, as on the Node host bound to 127.0.0.1. */
  'LOOPBACK_ONLY',
  /** `false`: every MCP request through the SDK (docs/mcp.md); default true, as on Node. */
  'MCP_FAST_PATH',
  /** Notification email: SMTP_URL, or SMTP_HOST and the others; SMTP_PASSWORD is a secret. */
  'SMTP_URL',
  'SMTP_HOST',
  'SMTP_PORT',
  'SMTP_USER',
  'SMTP_PASSWORD',
  'SMTP_SECURE',
  /** `true` only for an SMTP relay on a trusted network: the session may go without TLS (docs/security.md). */
  'SMTP_INSECURE',
  'MAIL_FROM',
  'FILE_MAX_BYTES',
  /** Upload limits: an organization's stored bytes, a token's files and bytes a minute. */
  'ORG_FILES_QUOTA_BYTES',
  'UPLOADS_PER_MINUTE',
  'UPLOAD_BYTES_PER_MINUTE',
  /** Webhook retries: the first wait, and how long a run holds a message it sends. */
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_CLAIM_MS',
  /** Secret: signs download links; set it (`wrangler secret put FILES_LINK_SECRET`) so every isolate shares it. */
  'FILES_LINK_SECRET',
  /** Without the R2 binding FILES, an S3-compatible bucket. */
  'FILES_S3_URL',
  'FILES_S3_ACCESS_KEY_ID',
  'FILES_S3_SECRET_ACCESS_KEY',
  'FILES_S3_REGION',
  /** Development only (`npm run dev:worker`): http:// and loopback webhook URLs are accepted and called. */
  'WEBHOOKS_ALLOW_LOCAL',
  /** Who may sign up in the web interface: `open` (default), `invite-only`, `closed` (docs/security.md). */
  'SIGNUP',
  /** Trust pages on their own hostnames: `trust.acme.example=acme,...` (docs/trust-page.md). */
  'TRUST_PAGE_HOSTS',
  /**
   * Secret (`wrangler secret put SECRETS_KEY`): encrypts webhook signing secrets in the database (docs/security.md).
   * Without it the Worker serves everything else and refuses to add webhook endpoints or rotate their secrets.
   */
  'SECRETS_KEY',
  /** Secret: keys from before a rotation, comma-separated; they only read, until the hourly upkeep re-encrypts. */
  'SECRETS_KEY_PREVIOUS',
] as const;

/** Bindings of the Worker: the string settings above, the KV token cache and the R2 bucket of stored files. */
export type Env = { [Name in (typeof STRING_SETTINGS)[number]]?: string } & {
  /** KV namespace caching verified tokens: key = SHA-256 of the token, value = principal JSON. */
  TOKEN_CACHE: KVNamespace;
  /** R2 bucket of stored files (wrangler.toml [[r2_buckets]]); without it, FILES_S3_* name an S3-compatible bucket. */
  FILES?: R2Bucket;
};

/** The settings as loadConfig reads them: the Worker's names for the database, and the defaults only it has. */
function configSettings(env: Env): Record<string, string | undefined> {
  const settings: Record<string, string | undefined> = {};
  for (const name of STRING_SETTINGS) settings[name] = env[name];
  const { LIBSQL_URL, LIBSQL_AUTH_TOKEN, LOOPBACK_ONLY: _loopback, ...rest } = settings;
  return {
    ...rest,
    DATABASE_URL: LIBSQL_URL,
    DATABASE_AUTH_TOKEN: LIBSQL_AUTH_TOKEN,
    TOKEN_CACHE_TTL_SECONDS: env.TOKEN_CACHE_TTL_SECONDS ?? String(KV_MIN_TTL_SECONDS),
    // Without a secret of its own, one derived from the database's (the same in every isolate, unlike a random one).
    FILES_LINK_SECRET:
      env.FILES_LINK_SECRET ?? (env.LIBSQL_AUTH_TOKEN ? `file links of ${env.LIBSQL_AUTH_TOKEN}` : undefined),
  };
}

/** The R2 binding, else the S3-compatible bucket of FILES_S3_*, else a store that says neither is set. */
function workerBlobStore(env: Env, config: Config): BlobStore {
  if (env.FILES) return createR2BlobStore(env.FILES);
  if (config.filesS3) return createS3BlobStore(config.filesS3);
  return unconfiguredBlobStore(
    'Stored files need the R2 binding FILES (wrangler.toml [[r2_buckets]]) or FILES_S3_URL and its keys.',
  );
}

function buildRuntime(env: Env): Runtime {
  if (!env.LIBSQL_URL) {
    throw new Error(
      'LIBSQL_URL is not set: point it at a libSQL server (Turso, sqld, or `npm run dev:worker`).',
    );
  }
  // The OAuth issuer and the resource tokens are bound to must not come from a Host header (src/oauth/resource.ts).
  if (!env.PUBLIC_URL && env.LOOPBACK_ONLY !== 'true') {
    throw new Error(
      "PUBLIC_URL is not set: set it to the URL clients reach this Worker at (e.g. https://compliance.example.com), so the OAuth issuer and token audience never come from a request's Host header (LOOPBACK_ONLY=true, as `npm run dev:worker` sets, serves loopback names only).",
    );
  }
  const config = loadConfig(configSettings(env));
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
    files: fileRuntime(config, workerBlobStore(env, config)),
    mailer: workerMailer,
    clientAddress: cloudflareClientAddress,
  });
}

/**
 * The notification engine's run on the Worker (src/notify/engine.ts): email by worker-mailer over a TCP socket, at
 * most EMAILS_PER_RUN a run so a run stays within the subrequest budget.
 */
export async function runNotificationsOnWorker(runtime: Runtime, now: Date) {
  const report = await notifyOnce({
    db: runtime.database.db,
    config: runtime.config,
    mailer: workerMailer,
    now,
    log: (line) => console.error(line),
  });
  console.log(describeReport(report));
  return report;
}

/** Endpoint rows the hourly upkeep encrypts again at most (one read and one batch per 200; the rest next hour). */
const UPKEEP_SECRETS = 200;

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
      withUploadReads(request as unknown as Request),
      env,
      ctx as WorkerExecutionContext,
    );
    return response as unknown as WorkerResponse;
  },

  // The Cron Triggers (wrangler.toml [triggers]): every minute, webhook deliveries (at most CRON_DELIVERIES messages,
  // within the subrequest budget: docs/worker.md); every 10 minutes notifications (runNotificationsOnWorker); hourly,
  // also what the Node host does on its timer, within a budget of requests (src/db/search-maintenance.ts,
  // scheduledUpkeep). A failure fails the run (Cron Events shows it) and is not retried at once: the next run tries
  // again.
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
    const failures: unknown[] = [];
    try {
      await runNotificationsOnWorker(runtime, new Date(controller.scheduledTime));
    } catch (error) {
      failures.push(error);
      console.error(`notifications failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (controller.cron === UPKEEP_CRON || controller.cron === '') {
      // Stored files first (src/files/upkeep.ts); a failure there is logged and the rest still runs.
      if (env.FILES || runtime.config.filesS3) {
        try {
          const files = await fileUpkeep(runtime.database.db, runtime.files.store, new Date());
          console.log(
            `upkeep: stored files: ${files.rowsDeleted} unreferenced file(s) and ${files.blobsDeleted} blob(s) without a row removed`,
          );
        } catch (error) {
          failures.push(error);
          console.error(
            `stored files upkeep failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      // OAuth clients never or no longer used (src/oauth/purge.ts), as the Node host does hourly.
      try {
        const purged = await purgeUnusedClients(runtime.database.db, new Date(controller.scheduledTime));
        console.log(`upkeep: unused OAuth clients forgotten: ${purged.length}`);
      } catch (error) {
        failures.push(error);
        console.error(
          `purging unused OAuth clients failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      // Webhook secrets from before encryption, or under a SECRETS_KEY_PREVIOUS key, encrypted under SECRETS_KEY.
      if (runtime.secrets.available) {
        try {
          const sealed = await reencryptEndpointSecrets(runtime.database.db, runtime.secrets, UPKEEP_SECRETS);
          if (sealed > 0)
            console.log(`upkeep: ${sealed} webhook endpoint secret(s) encrypted under SECRETS_KEY`);
        } catch (error) {
          failures.push(error);
          console.error(`secrets upkeep failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      try {
        const { merged, unfinished } = await scheduledUpkeep(runtime.database.client);
        const expiredKeys = await purgeExpiredIdempotencyKeys(runtime.database.db, new Date());
        console.log(
          `upkeep: statistics refreshed; search indexes merged: ${merged.join(', ') || 'none'}${unfinished ? '; the merge carries on at the next run' : ''}; expired idempotency keys purged: ${expiredKeys}`,
        );
      } catch (error) {
        failures.push(error);
        console.error(`upkeep failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length > 0) {
      controller.noRetry();
      throw failures[0];
    }
  },
} satisfies ExportedHandler<Env>;
