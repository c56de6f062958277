// One typed configuration, parsed once from the environment of the host and passed in.
import { z } from 'zod';
import { parseSecretsKey } from './secrets/keyring.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

/** `host=slug`: a DNS name (letters, digits, dots, hyphens; optional :port) and a trust page slug. */
const TRUST_HOST_ENTRY = /^[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?=[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/;

const SECRETS_KEY_FORMAT =
  'must be 32 bytes in base64 or 64 hex digits (make one with `npx compliance-mcp secrets new-key` or `openssl rand -base64 32`)';

const EnvSchema = z.object({
  DATABASE_URL: z.string().min(1).default('file:./data/compliance.db'),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  SEED_DEMO: booleanFlag.default(true),
  /** Public base URL (e.g. https://compliance.example.com); used in OpenAPI `servers` and allowed origins. */
  PUBLIC_URL: z.url().optional(),
  /**
   * Node host behind a reverse proxy: the header the proxy puts the client's address in (`X-Forwarded-For`, whose
   * last entry is taken, or e.g. `X-Real-IP`). Unset: the socket's peer. Only for a proxy that sets it itself.
   */
  CLIENT_ADDRESS_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, 'a header name')
    .transform((name) => name.toLowerCase())
    .optional(),
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
  /** The wait after a delivery's first failure; each later wait is 4 times the one before, at most 6 h. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** How long a run holds a message it sends; must outlast a send's 10 s deadline. A run killed meanwhile frees it then. */
  WEBHOOK_CLAIM_MS: z.coerce.number().int().min(15_000).default(60_000),
  /** A plain 2025-era MCP tools/call is answered without building the SDK's server for it (docs/mcp.md). */
  MCP_FAST_PATH: booleanFlag.default(true),
  /** Tests only (Node host): the process kills itself right after a keyed write commits, before it answers. */
  TEST_KILL_AFTER_KEYED_COMMIT: booleanFlag.default(false),
  /** Node host: a connection must have sent a request's headers within this time. */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Node host: a connection must have sent a whole request (headers and body) within this time. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Node host: an idle keep-alive connection is closed after this time without a new request. */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** SMTP server for notification emails: `smtp://user:password@host:587` or `smtps://...:465`; or the five below. */
  SMTP_URL: z.string().optional(),
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** true: TLS from the start (port 465); false: plain, then STARTTLS, which the server must offer. */
  SMTP_SECURE: booleanFlag.optional(),
  /** Only for a relay on a trusted network: without TLS (no STARTTLS offered), the password is sent in the clear. */
  SMTP_INSECURE: booleanFlag.default(false),
  /** Sender of notification emails, e.g. `Compliance <compliance@example.com>`. */
  MAIL_FROM: z.string().optional(),
  /** Node host: how often the notification engine runs (seconds). */
  NOTIFY_INTERVAL_SECONDS: z.coerce.number().int().min(10).default(300),
  /** Node host: the directory of stored files (default `files` beside an embedded database, else ./data/files). */
  FILES_DIR: z.string().min(1).optional(),
  /** The largest file accepted (upload route, evidence and documents). */
  FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(25 * 1024 * 1024),
  /** Any S3-compatible store (R2, S3, MinIO) instead of the directory: bucket URL (path style) and keys. */
  FILES_S3_URL: z.url().optional(),
  FILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  FILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  FILES_S3_REGION: z.string().min(1).default('auto'),
  /** Signs download links; every instance serving the same files needs the same one (default: random per process). */
  FILES_LINK_SECRET: z.string().min(16).optional(),
  /** Who may create an account in the web interface (docs/security.md): anyone, invited addresses, or nobody. */
  SIGNUP: z.enum(['open', 'invite-only', 'closed']).default('open'),
  /** What an organization's stored files may take together (bytes, default 10 GiB); 0 = no quota. */
  ORG_FILES_QUOTA_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 1024 * 1024 * 1024),
  /** Files a token may store per minute (per process or isolate); 0 disables the limit. */
  UPLOADS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Bytes a token may store per minute (per process or isolate, default 512 MiB); 0 disables the limit. */
  UPLOAD_BYTES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(512 * 1024 * 1024),
  /**
   * Trust pages on their own hostnames: `trust.acme.example=acme,...` (host=slug); that host serves only the page
   * of the slug, at its root. The host's DNS and TLS are the operator's.
   */
  TRUST_PAGE_HOSTS: commaList
    .refine(
      (entries) => entries.every((entry) => TRUST_HOST_ENTRY.test(entry)),
      'each entry is host=slug, e.g. trust.acme.example=acme',
    )
    .default([]),
  /** Encrypts secrets kept in the database (webhook signing secrets): 32 bytes, base64 or hex (docs/security.md). */
  SECRETS_KEY: z
    .string()
    .refine((text) => parseSecretsKey(text) !== null, SECRETS_KEY_FORMAT)
    .optional(),
  /** Keys from before a rotation, comma-separated: they still read what they encrypted until `secrets rotate`. */
  SECRETS_KEY_PREVIOUS: commaList
    .refine((keys) => keys.every((text) => parseSecretsKey(text) !== null), SECRETS_KEY_FORMAT)
    .default([]),
});

export type SignUpPolicy = 'open' | 'invite-only' | 'closed';

/** Where notification emails go out; null = notifications are in-app only. */
export interface MailSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
  /** SMTP_INSECURE: a session without TLS is allowed (else implicit TLS or STARTTLS, or nothing is sent). */
  insecure: boolean;
  from: string;
}

export interface S3Settings {
  /** The bucket's URL, path style: https://<account>.r2.cloudflarestorage.com/<bucket>, http://127.0.0.1:9000/<bucket>. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface Config {
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  host: string;
  port: number;
  seedDemo: boolean;
  publicUrl: string | undefined;
  /** Node host: the header a reverse proxy names the client's address in (lower case); undefined = the socket's peer. */
  clientAddressHeader: string | undefined;
  allowedOrigins: string[];
  maxBodyBytes: number;
  tokenCacheTtlSeconds: number;
  rateLimitPerMinute: number;
  oauthAllowLocalClientMetadata: boolean;
  /** Development only: http:// and loopback or private webhook URLs (WEBHOOKS_ALLOW_LOCAL). */
  webhooksAllowLocal: boolean;
  /** Node host: the webhook delivery timer's period. */
  webhookPollMs: number;
  /** Webhook retries and claims (WEBHOOK_RETRY_BASE_MS, WEBHOOK_CLAIM_MS). */
  webhookTiming: { retryBaseMs: number; claimMs: number };
  /** Answer a plain 2025-era tools/call without the SDK's server and transport (MCP_FAST_PATH, default true). */
  mcpFastPath: boolean;
  /** Tests only: the Node host dies (SIGKILL) between a keyed write's commit and its answer (TEST_KILL_AFTER_KEYED_COMMIT). */
  testKillAfterKeyedCommit: boolean;
  /** Node host's HTTP timeouts (the Worker's connections are Cloudflare's). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  mail: MailSettings | null;
  notifyIntervalMs: number;
  /** Node host's directory of stored files (FILES_DIR). */
  filesDir: string;
  fileMaxBytes: number;
  /** FILES_S3_*: stored files in an S3-compatible bucket instead of filesDir (Node) or the R2 binding (Worker). */
  filesS3: S3Settings | undefined;
  filesLinkSecret: string | undefined;
  /** SIGNUP: `open` (default), `invite-only` (addresses with a pending invitation) or `closed` (the CLI only). */
  signUp: SignUpPolicy;
  /** ORG_FILES_QUOTA_BYTES, UPLOADS_PER_MINUTE, UPLOAD_BYTES_PER_MINUTE (src/files/upload-limits.ts); 0 = none. */
  orgFilesQuotaBytes: number;
  uploadsPerMinute: number;
  uploadBytesPerMinute: number;
  /** TRUST_PAGE_HOSTS: a lower-case Host header (with its port, if any) to the slug of the trust page it serves. */
  trustPageHosts: ReadonlyMap<string, string>;
  /** SECRETS_KEY (the Node host fills it from its key file beside an embedded database: src/secrets/node-key.ts). */
  secretsKey: string | undefined;
  /** SECRETS_KEY_PREVIOUS: keys that only read (a rotation under way). */
  secretsKeysPrevious: string[];
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
    clientAddressHeader: value.CLIENT_ADDRESS_HEADER,
    allowedOrigins: value.ALLOWED_ORIGINS,
    maxBodyBytes: value.MAX_BODY_BYTES,
    tokenCacheTtlSeconds: value.TOKEN_CACHE_TTL_SECONDS,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    oauthAllowLocalClientMetadata: value.OAUTH_ALLOW_LOCAL_CLIENT_METADATA,
    webhooksAllowLocal: value.WEBHOOKS_ALLOW_LOCAL,
    webhookPollMs: value.WEBHOOK_POLL_MS,
    webhookTiming: { retryBaseMs: value.WEBHOOK_RETRY_BASE_MS, claimMs: value.WEBHOOK_CLAIM_MS },
    mcpFastPath: value.MCP_FAST_PATH,
    testKillAfterKeyedCommit: value.TEST_KILL_AFTER_KEYED_COMMIT,
    headersTimeoutMs: value.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: value.KEEP_ALIVE_TIMEOUT_MS,
    mail: mailSettingsOf(value),
    notifyIntervalMs: value.NOTIFY_INTERVAL_SECONDS * 1000,
    filesDir: value.FILES_DIR ?? filesDirBeside(value.DATABASE_URL),
    fileMaxBytes: value.FILE_MAX_BYTES,
    filesS3: s3Settings(value),
    filesLinkSecret: value.FILES_LINK_SECRET,
    signUp: value.SIGNUP,
    orgFilesQuotaBytes: value.ORG_FILES_QUOTA_BYTES,
    uploadsPerMinute: value.UPLOADS_PER_MINUTE,
    uploadBytesPerMinute: value.UPLOAD_BYTES_PER_MINUTE,
    trustPageHosts: new Map(
      value.TRUST_PAGE_HOSTS.map((entry) => {
        const [host = '', slug = ''] = entry.split('=');
        return [host.toLowerCase(), slug];
      }),
    ),
    secretsKey: value.SECRETS_KEY?.trim(),
    secretsKeysPrevious: value.SECRETS_KEY_PREVIOUS,
    version: VERSION,
  };
}

function mailSettingsOf(value: z.infer<typeof EnvSchema>): MailSettings | null {
  let settings: Omit<MailSettings, 'from' | 'insecure'> | null = null;
  if (value.SMTP_URL) {
    let url: URL;
    try {
      url = new URL(value.SMTP_URL);
    } catch {
      throw new Error('Invalid configuration: SMTP_URL is not a URL (smtp://user:password@host:587)');
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
      throw new Error('Invalid configuration: SMTP_URL must start with smtp:// or smtps://');
    const secure = value.SMTP_SECURE ?? url.protocol === 'smtps:';
    settings = {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : secure ? 465 : 587,
      secure,
      user: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
    };
  } else if (value.SMTP_HOST) {
    const secure = value.SMTP_SECURE ?? value.SMTP_PORT === 465;
    settings = {
      host: value.SMTP_HOST,
      port: value.SMTP_PORT ?? (secure ? 465 : 587),
      secure,
      user: value.SMTP_USER,
      password: value.SMTP_PASSWORD,
    };
  }
  if (!settings) return null;
  if (!value.MAIL_FROM)
    throw new Error('Invalid configuration: MAIL_FROM is required with SMTP settings (the sender address)');
  return { ...settings, insecure: value.SMTP_INSECURE, from: value.MAIL_FROM };
}

/** `files` beside an embedded database file (file:./data/compliance.db -> ./data/files), else ./data/files. */
function filesDirBeside(databaseUrl: string): string {
  const match = /^file:(.*[/\\])?[^/\\]*$/.exec(databaseUrl.replace(/\?.*$/, ''));
  if (!match || databaseUrl === 'file::memory:') return './data/files';
  return `${match[1] ?? './'}files`;
}

function s3Settings(value: z.infer<typeof EnvSchema>): S3Settings | undefined {
  if (!value.FILES_S3_URL) return undefined;
  if (!value.FILES_S3_ACCESS_KEY_ID || !value.FILES_S3_SECRET_ACCESS_KEY)
    throw new Error(
      'Invalid configuration: FILES_S3_URL needs FILES_S3_ACCESS_KEY_ID and FILES_S3_SECRET_ACCESS_KEY',
    );
  return {
    url: value.FILES_S3_URL.replace(/\/+$/, ''),
    accessKeyId: value.FILES_S3_ACCESS_KEY_ID,
    secretAccessKey: value.FILES_S3_SECRET_ACCESS_KEY,
    region: value.FILES_S3_REGION,
  };
}

// An empty variable means "not set", so `PORT= npm start` falls back to the default.
function withoutEmpty(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') out[key] = value;
  return out;
}
