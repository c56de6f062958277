// Assembles the app's dependencies from a database and a token cache: shared by the Node host, the Worker and tests.
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';
import { type App, createApp } from './app.ts';
import type { TokenCache } from './auth/token-cache.ts';
import { createTokenService, type TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { memoryFileRuntime } from './files/runtime.ts';
import type { FileRuntime } from './files/store.ts';
import type { ClientAddressOf } from './http/client-address.ts';
import type { OriginPolicy } from './http/origin.ts';
import type { MailerFactory } from './notify/mailer.ts';
import type { ClientMetadataFetcher } from './oauth/client-metadata.ts';
import { createSecretKeyring, type SecretKeyring } from './secrets/keyring.ts';
import { createUsageRecorder, type UsageRecorder } from './usage.ts';
import { createWebhookRunner, type WebhookRunner } from './webhooks/runner.ts';
import { fetchWebhookSender, type WebhookSender } from './webhooks/send.ts';

export interface Runtime {
  app: App;
  database: Database;
  tokens: TokenService;
  usage: UsageRecorder;
  config: Config;
  /** Stored files: the BlobStore, FILE_MAX_BYTES, the link secret and the host's streaming SHA-256. */
  files: FileRuntime;
  webhooks: WebhookRunner;
  /** Encrypts and reads secrets kept in the database, under SECRETS_KEY (and SECRETS_KEY_PREVIOUS). */
  secrets: SecretKeyring;
}

export function originPolicyFor(config: Config, loopbackOnly: boolean): OriginPolicy {
  const allowed = new Set(config.allowedOrigins);
  if (config.publicUrl) allowed.add(new URL(config.publicUrl).origin);
  return { loopbackOnly, allowedOrigins: allowed };
}

export function createRuntime(options: {
  config: Config;
  database: Database;
  cache: TokenCache;
  loopbackOnly: boolean;
  usageFlush: 'after-response' | 'host';
  now?: () => Date;
  log?: (message: string) => void;
  clientMetadataFetcher?: ClientMetadataFetcher;
  /** A request's client address (limits per client): the Node socket's peer unless given (the Worker's header). */
  clientAddress?: ClientAddressOf;
  /** Test hook between a keyed write's commit and its answer (the Node host's TEST_KILL_AFTER_KEYED_COMMIT). */
  afterKeyedCommit?: () => void;
  /** How bearer tokens are hashed (TokenServiceDeps.hash); WebCrypto unless given. */
  hashToken?: (secret: string) => string | Promise<string>;
  /** The host's stored files (src/files/node.ts, the Worker's R2); blobs in memory unless given. */
  files?: FileRuntime;
  /** Sends webhook requests; the platform's fetch unless given (the Node host passes one that checks DNS answers). */
  webhookSender?: WebhookSender;
  /** The host's SMTP client for account emails (used only with SMTP settings). */
  mailer?: MailerFactory;
}): Runtime {
  const now = options.now ?? (() => new Date());
  const files = options.files ?? memoryFileRuntime(options.config);
  const tokens = createTokenService({
    db: options.database.db,
    cache: options.cache,
    cacheTtlSeconds: options.config.tokenCacheTtlSeconds,
    now,
    ...(options.hashToken ? { hash: options.hashToken } : {}),
  });
  const usage = createUsageRecorder(options.database.db, options.log);
  const secrets = createSecretKeyring(options.config.secretsKey, options.config.secretsKeysPrevious);
  const webhooks = createWebhookRunner({
    db: options.database.db,
    send: options.webhookSender ?? fetchWebhookSender,
    now,
    allowLocal: options.config.webhooksAllowLocal,
    secrets,
    mode: options.usageFlush,
    timing: options.config.webhookTiming,
    log: options.log,
  });
  const app = createApp({
    config: options.config,
    database: options.database,
    tokens,
    usage,
    now,
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    originPolicy: originPolicyFor(options.config, options.loopbackOnly),
    usageFlush: options.usageFlush,
    log: options.log,
    clientMetadataFetcher: options.clientMetadataFetcher,
    clientAddress: options.clientAddress,
    afterKeyedCommit: options.afterKeyedCommit,
    files,
    webhooks,
    mailer: options.mailer,
    secrets,
  });
  return { app, database: options.database, tokens, usage, config: options.config, files, webhooks, secrets };
}
