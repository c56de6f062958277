// createApp(deps): the Hono app shared by both hosts: MCP, direct calls, OpenAPI, health, and the web interface.
import type { jsonSchemaValidator as JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Principal } from './auth/principal.ts';
import { parseBearer, type TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { AppError, describeError, toErrorBody } from './errors.ts';
import { randomBase32 } from './ids.ts';
import { type ClientMetadataFetcher, webClientMetadataFetcher } from './oauth/client-metadata.ts';
import { createOAuthServices } from './oauth/index.ts';
import { acceptsAudience, baseUrlOf, resourceMetadataUrlOf } from './oauth/resource.ts';
import { createOAuthRoutes } from './oauth/routes.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';
import { errorResponse, handleDirectCall } from './surfaces/direct.ts';
import type { InvokeDeps } from './surfaces/invoke.ts';
import { createMcpSurface } from './surfaces/mcp.ts';
import { buildOpenApi } from './surfaces/openapi.ts';
import { type OriginPolicy, refusedOrigin } from './surfaces/origin.ts';
import { TOOLS, type ToolMap } from './tools/index.ts';
import { exclusionOf, parseToolSelection, toolsetsOf } from './tools/toolsets.ts';
import type { UsageRecorder } from './usage.ts';
import { createWebRoutes } from './web/index.tsx';

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
  /** Fetches OAuth client metadata documents; the Node host passes one that checks resolved addresses. */
  clientMetadataFetcher?: ClientMetadataFetcher;
}

export type AppEnv = { Variables: { principal: Principal; requestId: string } };

const WWW_AUTHENTICATE_REALM = 'Bearer realm="compliance-mcp"';

/** The Bearer challenge: realm, where OAuth clients find how to get a token (RFC 9728), and the error if any. */
function bearerChallenge(base: string, error?: { code: string; message: string; scope?: string }): string {
  const parts = [WWW_AUTHENTICATE_REALM, `resource_metadata="${resourceMetadataUrlOf(base)}"`];
  if (error) {
    parts.push(`error="${error.code}"`, `error_description="${error.message.replace(/["\\]/g, "'")}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  return parts.join(', ');
}

function unauthorized(base: string, message: string, invalidToken: boolean): Response {
  const challenge = bearerChallenge(base, invalidToken ? { code: 'invalid_token', message } : undefined);
  return new Response(JSON.stringify(toErrorBody(new AppError('unauthorized', message))), {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
  });
}

const AUTH_MESSAGES = {
  missing: 'Missing bearer token. Send "Authorization: Bearer <API token>" (Settings > API Tokens).',
  malformed:
    'Malformed Authorization header. Send exactly "Bearer <API token>", with no extra spaces or newlines.',
  unknown: 'Unknown API token. Generate a new one in Settings > API Tokens.',
  expired: 'This API token has expired. Generate a new one in Settings > API Tokens.',
  revoked: 'This API token has been revoked. Generate a new one in Settings > API Tokens.',
  audience: 'This token was issued for another resource (RFC 8707 audience); get a token for this server.',
} as const;

/** The 413 of every host: a body larger than MAX_BODY_BYTES, announced or counted. */
export function payloadTooLarge(maxBodyBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The body is larger than ${maxBodyBytes} bytes (MAX_BODY_BYTES); send a smaller request.`,
  );
}

/** A Content-Length above the limit (a chunked body has none; it is counted as it is read, by `bodyLimit`). */
export function announcedTooLarge(contentLength: string | undefined | null, maxBodyBytes: number): boolean {
  return contentLength != null && /^\s*\d+\s*$/.test(contentLength) && Number(contentLength) > maxBodyBytes;
}

/** The OpenAPI document's reader for toolset selection: no token, so no scope narrows what it lists. */
const OPENAPI_READER: Principal = {
  tokenId: '',
  userId: '',
  scope: 'read_write',
  roles: {},
  expiresAt: null,
};

export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const tools = deps.tools ?? TOOLS;
  const log = deps.log ?? ((message: string) => console.error(message));
  const invoke: InvokeDeps = {
    db: deps.database.db,
    usage: deps.usage,
    now,
    rateLimiter: deps.rateLimiter ?? createRateLimiter(deps.config.rateLimitPerMinute),
    // The stack's frames but not its first line: drizzle's messages carry query parameters (hashes, CSRF tokens).
    logError: (requestId, error) => {
      const frames =
        error instanceof Error ? (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)) : [];
      log(
        `[${requestId}] internal error: ${describeError(error)}${frames.length ? `\n${frames.slice(0, 8).join('\n')}` : ''}`,
      );
    },
  };
  const mcp = createMcpSurface({
    tools,
    invoke,
    serverName: 'compliance-mcp',
    version: deps.config.version,
    jsonSchemaValidator: deps.jsonSchemaValidator,
  });
  const openApiByBase = new Map<string, string>();
  const oauth = createOAuthServices({
    db: deps.database.db,
    tokens: deps.tokens,
    now,
    fetcher: deps.clientMetadataFetcher ?? webClientMetadataFetcher,
    allowLocalClientMetadata: deps.config.oauthAllowLocalClientMetadata,
  });

  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const requestId = randomBase32(12);
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('x-request-id', requestId);
  });

  // Refused on the announced length before anything reads the body or asks the database about the token.
  app.use('*', async (c, next) => {
    if (
      !c.req.header('transfer-encoding') &&
      announcedTooLarge(c.req.header('content-length'), deps.config.maxBodyBytes)
    )
      return errorResponse(payloadTooLarge(deps.config.maxBodyBytes));
    await next();
  });

  app.onError((error, c) => {
    // A client that went away mid-body (e.g. cut off by the Node host's request timeout) is no server fault.
    const clientGone =
      c.req.raw.signal?.aborted ||
      (error instanceof Error &&
        error.message === 'aborted' &&
        (error as { code?: unknown }).code === 'ECONNRESET');
    if (!(error instanceof AppError) && !clientGone) invoke.logError(c.get('requestId') ?? '-', error);
    const response = errorResponse(
      error instanceof AppError ? error : new AppError('internal', toErrorBody(error).error.message),
    );
    // RFC 6750 §3.1: the scope that would allow the call, so an OAuth client can ask for it.
    if (error instanceof AppError && error.code === 'insufficient_scope') {
      const base = baseUrlOf(deps.config, c.req.url);
      const challenge = { code: 'insufficient_scope', message: error.message, scope: 'read_write' };
      response.headers.set('www-authenticate', bearerChallenge(base, challenge));
    }
    return response;
  });

  app.route('/', createWebRoutes({ ...deps, tools, invoke, now, oauth }));
  app.route(
    '/',
    createOAuthRoutes({ config: deps.config, oauth, logError: (error) => invoke.logError('oauth', error) }),
  );

  app.notFound(() => errorResponse(new AppError('not_found', 'No such route.')));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/api/mcp/openapi.json', (c) => {
    const base = deps.config.publicUrl ?? new URL(c.req.url).origin;
    const only = c.req.query('tools');
    const toolsets = c.req.query('toolsets');
    const readonly = c.req.query('readonly');
    const key = `${base}|${only ?? ''}|${toolsets ?? ''}|${readonly ?? ''}`;
    let document = openApiByBase.get(key);
    if (!document) {
      let subset = only ? new Set(only.split(',').map((name) => name.trim())) : undefined;
      const unknown = [...(subset ?? [])].filter((name) => !tools.has(name));
      if (unknown.length > 0) {
        throw new AppError('invalid_arguments', `Unknown tools in ?tools=: ${unknown.join(', ')}.`, [
          { path: 'tools', message: `Not a tool: ${unknown.join(', ')}` },
        ]);
      }
      // ?toolsets= and ?readonly= as on the MCP endpoint (no token here: the scope does not narrow it).
      if (toolsets !== undefined || readonly !== undefined) {
        const parsed = parseToolSelection(
          new URL(c.req.url),
          new Headers(),
          toolsetsOf(tools.values()).keys(),
        );
        if (!parsed.ok) {
          throw new AppError('invalid_arguments', parsed.message, [
            { path: 'toolsets', message: parsed.message },
          ]);
        }
        const chosen = [...tools.values()]
          .filter((tool) => exclusionOf(tool, parsed.selection, OPENAPI_READER) === null)
          .map((tool) => tool.name);
        subset = new Set(chosen.filter((name) => !subset || subset.has(name)));
      }
      document = JSON.stringify(buildOpenApi(tools, deps.config.version, base, subset));
      if (openApiByBase.size < 100) openApiByBase.set(key, document);
    }
    return c.body(document, 200, { 'content-type': 'application/json' });
  });

  const limitBody = bodyLimit({
    maxSize: deps.config.maxBodyBytes,
    onError: () => errorResponse(payloadTooLarge(deps.config.maxBodyBytes)),
  });

  async function authenticate(c: Context<AppEnv>, next: () => Promise<void>): Promise<Response | undefined> {
    const header = c.req.header('authorization');
    const base = baseUrlOf(deps.config, c.req.url);
    if (header === undefined || header === '') return unauthorized(base, AUTH_MESSAGES.missing, false);
    const secret = parseBearer(header);
    if (!secret) return unauthorized(base, AUTH_MESSAGES.malformed, true);
    const result = await deps.tokens.authenticate(secret);
    if (!result.ok) return unauthorized(base, AUTH_MESSAGES[result.reason], true);
    const audience = result.principal.audience;
    if (audience !== undefined && !acceptsAudience(base, audience))
      return unauthorized(base, AUTH_MESSAGES.audience, true);
    c.set('principal', result.principal);
    await next();
    // Workers write the call log after the response is sent; the Node host flushes it on an interval.
    if (deps.usageFlush === 'after-response' && deps.usage.pending() > 0) deferred(c, deps.usage.flush());
    return undefined;
  }

  // The MCP endpoint's own error shape (JSON-RPC), as the SDK answers: there is no stream to GET or session to DELETE.
  const methodNotAllowed = () =>
    new Response(
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Method not allowed: this server is stateless, send MCP messages with POST.',
        },
        id: null,
      }),
      { status: 405, headers: { 'content-type': 'application/json', allow: 'POST' } },
    );
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/api/mcp/v1', methodNotAllowed);

  app.get('/api/mcp/v1/health', authenticate, async (c) => {
    let database: 'ok' | 'error' = 'ok';
    try {
      await deps.database.client.execute('select 1');
    } catch (error) {
      database = 'error';
      invoke.logError(c.get('requestId'), error);
    }
    return c.json(
      {
        status: database === 'ok' ? 'ok' : 'degraded',
        version: deps.config.version,
        database,
        time: now().toISOString(),
      },
      database === 'ok' ? 200 : 503,
    );
  });

  app.post(
    '/api/mcp/v1',
    async (c, next) => {
      const refusal = refusedOrigin(c.req.raw, deps.originPolicy);
      if (refusal) return errorResponse(new AppError('forbidden', refusal));
      await next();
    },
    authenticate,
    limitBody,
    async (c) => mcp.handle(c.req.raw, c.get('principal'), c.get('requestId')),
  );

  const direct = { tools, invoke };
  app.post('/api/mcp/tools/:tool', authenticate, limitBody, (c) =>
    handleDirectCall(c, direct, c.req.param('tool'), c.get('principal'), c.get('requestId')),
  );
  app.post('/api/mcp/:tool', authenticate, limitBody, (c) =>
    handleDirectCall(c, direct, c.req.param('tool'), c.get('principal'), c.get('requestId')),
  );
  // Another method on a tool's route: still not a route (the closed set of codes has no 405), but saying how to call.
  app.on(['GET', 'PUT', 'PATCH', 'DELETE'], ['/api/mcp/tools/:tool', '/api/mcp/:tool'], () => {
    const response = errorResponse(
      new AppError(
        'not_found',
        'No such route: tools are called with POST /api/mcp/tools/<tool>, the arguments as a JSON body.',
      ),
    );
    response.headers.set('allow', 'POST');
    return response;
  });

  return app;
}

export type App = ReturnType<typeof createApp>;

function deferred(c: Context, promise: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    // No execution context (Node): the promise runs on its own; errors are logged by the recorder.
    void promise;
  }
}
