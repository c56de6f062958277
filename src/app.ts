// createApp(deps): the Hono app shared by both hosts, put together from middleware (src/http/) and routes (src/routes/).
import type { jsonSchemaValidator as JsonSchemaValidator } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import type { TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { internalErrorLogger } from './errors.ts';
import { memoryFileRuntime } from './files/runtime.ts';
import type { FileRuntime } from './files/store.ts';
import { isFileUploadPath } from './files/upload-limits.ts';
import { bearerAuth } from './http/bearer-auth.ts';
import { limitBody, refuseAnnouncedTooLarge } from './http/body-limit.ts';
import { deliverWebhooksAfterResponse, flushCallLogAfterResponse } from './http/call-log-flush.ts';
import { type ClientAddressOf, proxiedClientAddress, socketClientAddress } from './http/client-address.ts';
import type { AppEnv } from './http/env.ts';
import { errorHandler, routeNotFound } from './http/error-handler.ts';
import type { OriginPolicy } from './http/origin.ts';
import { requestId } from './http/request-id.ts';
import { createAccountMail } from './notify/account-mail.ts';
import type { MailerFactory } from './notify/mailer.ts';
import { type ClientMetadataFetcher, webClientMetadataFetcher } from './oauth/client-metadata.ts';
import { createOAuthServices } from './oauth/index.ts';
import { createOAuthRoutes } from './oauth/routes.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';
import { createDirectRoutes } from './routes/direct.ts';
import { createFileRoutes } from './routes/files.ts';
import { createHealthRoutes } from './routes/health.ts';
import { createMcpRoutes } from './routes/mcp.ts';
import { createOpenApiRoutes } from './routes/openapi.ts';
import { createSecretKeyring, type SecretKeyring } from './secrets/keyring.ts';
import type { InvokeDeps } from './surfaces/invoke.ts';
import { createMcpSurface } from './surfaces/mcp.ts';
import { TOOLS, type ToolMap } from './tools/index.ts';
import type { UsageRecorder } from './usage.ts';
import { createWebRoutes } from './web/index.tsx';
import { isWebUpload } from './web/uploads.ts';
import { createWebhookRunner, type WebhookRunner } from './webhooks/runner.ts';
import { fetchWebhookSender } from './webhooks/send.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  tokens: TokenService;
  usage: UsageRecorder;
  jsonSchemaValidator: JsonSchemaValidator;
  originPolicy: OriginPolicy;
  now?: () => Date;
  tools?: ToolMap;
  rateLimiter?: RateLimiter;
  log?: (message: string) => void;
  /** `after-response`: flush the call log after each request (Workers, via waitUntil); `host`: the host flushes it. */
  usageFlush?: 'after-response' | 'host';
  /** Test hook: runs between a keyed write's commit and its answer (InvokeDeps.afterKeyedCommit). */
  afterKeyedCommit?: () => void;
  /** A request's client address, for limits per client (OAuth): the Node socket's peer unless given. */
  clientAddress?: ClientAddressOf;
  /** Fetches OAuth client metadata documents; the Node host passes one that checks resolved addresses. */
  clientMetadataFetcher?: ClientMetadataFetcher;
  /** Stored files; blobs in memory unless given. */
  files?: FileRuntime;
  /** Runs webhook deliveries; by default one over the platform's fetch, run after the response (as on the Worker). */
  webhooks?: WebhookRunner;
  /** Sends account emails (confirmations, resets, invitations) when the config has SMTP settings. */
  mailer?: MailerFactory;
  /** Secrets kept encrypted in the database (webhook signing secrets); by default under the config's keys. */
  secrets?: SecretKeyring;
}

/** Messages a run started right after a write sends on the Worker, within that request's subrequest budget. */
export const AFTER_WRITE_DELIVERIES = 5;

export function createApp(deps: AppDeps) {
  const { config, database } = deps;
  const now = deps.now ?? (() => new Date());
  const tools = deps.tools ?? TOOLS;
  const files = deps.files ?? memoryFileRuntime(config);
  const logError = internalErrorLogger(deps.log ?? ((message: string) => console.error(message)));
  // As the Node host reads it (src/node.ts): CLIENT_ADDRESS_HEADER behind a proxy, else the socket's peer.
  const clientAddress =
    deps.clientAddress ??
    (config.clientAddressHeader ? proxiedClientAddress(config.clientAddressHeader) : socketClientAddress);
  const secrets = deps.secrets ?? createSecretKeyring(config.secretsKey, config.secretsKeysPrevious);
  const webhooks =
    deps.webhooks ??
    createWebhookRunner({
      db: database.db,
      send: fetchWebhookSender,
      now,
      allowLocal: config.webhooksAllowLocal,
      secrets,
      mode: deps.usageFlush ?? 'after-response',
      timing: config.webhookTiming,
      log: deps.log,
    });
  const invoke: InvokeDeps = {
    db: database.db,
    usage: deps.usage,
    now,
    // Its minutes are the service's clock, like every other time the service keeps.
    rateLimiter: deps.rateLimiter ?? createRateLimiter(config.rateLimitPerMinute, () => now().getTime()),
    logError,
    afterKeyedCommit: deps.afterKeyedCommit,
    files,
    afterWrite: () => webhooks.afterWrite(),
    // A mailed link needs the service's address (PUBLIC_URL): a run has no request to take one from.
    mailLinks: Boolean(config.mail && config.publicUrl),
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  };
  const oauth = createOAuthServices({
    db: database.db,
    tokens: deps.tokens,
    now,
    fetcher: deps.clientMetadataFetcher ?? webClientMetadataFetcher,
    allowLocalClientMetadata: config.oauthAllowLocalClientMetadata,
    clientAddress,
  });
  const mcp = createMcpSurface({
    tools,
    invoke,
    serverName: 'compliance-mcp',
    version: config.version,
    jsonSchemaValidator: deps.jsonSchemaValidator,
    fastPath: config.mcpFastPath,
  });
  const guard = { authenticate: bearerAuth(deps), limitBody: limitBody(config.maxBodyBytes) };

  const app = new Hono<AppEnv>();
  app.use('*', requestId());
  const refuseTooLarge = refuseAnnouncedTooLarge(config.maxBodyBytes);
  // A file uploaded in the web interface is refused by the same limit, on its announced length too, with a page.
  // The upload route (src/routes/files.ts) refuses a file over FILE_MAX_BYTES itself.
  app.use('*', (c, next) =>
    isWebUpload(c.req.path) || isFileUploadPath(c.req.path) ? next() : refuseTooLarge(c, next),
  );
  if (deps.usageFlush === 'after-response') {
    app.use('/api/mcp/*', flushCallLogAfterResponse(deps.usage));
    app.use('*', deliverWebhooksAfterResponse(webhooks, AFTER_WRITE_DELIVERIES, logError));
  }
  app.onError(errorHandler({ config, logError }));
  app.notFound(routeNotFound);

  const accountMail = createAccountMail(config, deps.mailer, deps.log ?? ((line) => console.error(line)));
  app.route(
    '/',
    createWebRoutes({
      ...deps,
      tools,
      invoke,
      now,
      oauth,
      secrets,
      accountMail,
      clientAddress,
    }),
  );
  app.route('/', createOAuthRoutes({ config, oauth, logError: (error) => logError('oauth', error) }));
  app.route('/', createHealthRoutes({ database, version: config.version, now, logError, ...guard }));
  app.route('/', createOpenApiRoutes({ config, tools }));
  // Before the direct routes: /api/mcp/:tool would take /api/mcp/v1 too.
  app.route('/', createMcpRoutes({ mcp, originPolicy: deps.originPolicy, ...guard }));
  app.route('/', createDirectRoutes({ tools, invoke, ...guard }));
  app.route('/', createFileRoutes({ db: database.db, files, now, invoke, authenticate: guard.authenticate }));
  return app;
}

export type App = ReturnType<typeof createApp>;
