// One typed configuration, parsed once from the environment of the host and passed in.
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default('file:./data/compliance.db'),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  SEED_DEMO: booleanFlag.default(true),
  /** Public base URL (e.g. https://compliance.example.com); used in OpenAPI `servers` and allowed origins. */
  PUBLIC_URL: z.url().optional(),
  /** Extra origins allowed to call the MCP endpoint from a browser. */
  ALLOWED_ORIGINS: commaList.default([]),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** How long a verified token stays in the cache before the database is asked again. */
  TOKEN_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  /** Tool calls allowed per token per minute; 0 disables the limit. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Development only: OAuth client_id URLs over http and on loopback or private addresses are fetched. */
  OAUTH_ALLOW_LOCAL_CLIENT_METADATA: booleanFlag.default(false),
  /** Development only: webhook endpoints over http and on loopback or private addresses are accepted and called. */
  WEBHOOKS_ALLOW_LOCAL: booleanFlag.default(false),
  /** Node host: how often due webhook deliveries are looked for (a write also starts a run at once). */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(100).default(5_000),
  /** A plain 2025-era MCP tools/call is answered without building the SDK's server for it (docs/mcp.md). */
  MCP_FAST_PATH: booleanFlag.default(true),
  /** Node host: a connection must have sent a request's headers within this time. */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Node host: a connection must have sent a whole request (headers and body) within this time. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Node host: an idle keep-alive connection is closed after this time without a new request. */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
});

export interface Config {
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  host: string;
  port: number;
  seedDemo: boolean;
  publicUrl: string | undefined;
  allowedOrigins: string[];
  maxBodyBytes: number;
  tokenCacheTtlSeconds: number;
  rateLimitPerMinute: number;
  oauthAllowLocalClientMetadata: boolean;
  /** Development only: http:// and loopback or private webhook URLs (WEBHOOKS_ALLOW_LOCAL). */
  webhooksAllowLocal: boolean;
  /** Node host: the webhook delivery timer's period. */
  webhookPollMs: number;
  /** Answer a plain 2025-era tools/call without the SDK's server and transport (MCP_FAST_PATH, default true). */
  mcpFastPath: boolean;
  /** Node host's HTTP timeouts (the Worker's connections are Cloudflare's). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  version: string;
}

export const VERSION = '0.1.0';

/** A database URL fit for logs: no user:password@ and no query string (which may carry `authToken=`). */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '');
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(withoutEmpty(env));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const value = parsed.data;
  if (value.HEADERS_TIMEOUT_MS > value.REQUEST_TIMEOUT_MS) {
    throw new Error(
      'Invalid configuration: HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS (the headers are part of the request)',
    );
  }
  return {
    databaseUrl: value.DATABASE_URL,
    databaseAuthToken: value.DATABASE_AUTH_TOKEN,
    host: value.HOST,
    port: value.PORT,
    seedDemo: value.SEED_DEMO,
    publicUrl: value.PUBLIC_URL?.replace(/\/+$/, ''),
    allowedOrigins: value.ALLOWED_ORIGINS,
    maxBodyBytes: value.MAX_BODY_BYTES,
    tokenCacheTtlSeconds: value.TOKEN_CACHE_TTL_SECONDS,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    oauthAllowLocalClientMetadata: value.OAUTH_ALLOW_LOCAL_CLIENT_METADATA,
    webhooksAllowLocal: value.WEBHOOKS_ALLOW_LOCAL,
    webhookPollMs: value.WEBHOOK_POLL_MS,
    mcpFastPath: value.MCP_FAST_PATH,
    headersTimeoutMs: value.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: value.KEEP_ALIVE_TIMEOUT_MS,
    version: VERSION,
  };
}

// An empty variable means "not set", so `PORT= npm start` falls back to the default.
function withoutEmpty(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}
