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
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';
import { errorResponse, handleDirectCall } from './surfaces/direct.ts';
import type { InvokeDeps } from './surfaces/invoke.ts';
import { createMcpSurface } from './surfaces/mcp.ts';
import { buildOpenApi } from './surfaces/openapi.ts';
import { type OriginPolicy, refusedOrigin } from './surfaces/origin.ts';
import { TOOLS, type ToolMap } from './tools/index.ts';
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
}

export type AppEnv = { Variables: { principal: Principal; requestId: string } };

const WWW_AUTHENTICATE_REALM = 'Bearer realm="compliance-mcp"';

function unauthorized(message: string, invalidToken: boolean): Response {
  const challenge = invalidToken
    ? `${WWW_AUTHENTICATE_REALM}, error="invalid_token", error_description="${message.replace(/["\\]/g, "'")}"`
    : WWW_AUTHENTICATE_REALM;
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
} as const;

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

  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const requestId = randomBase32(12);
    c.set('requestId', requestId);
    await next();
    c.res.headers.set('x-request-id', requestId);
  });

  app.onError((error, c) => {
    if (!(error instanceof AppError)) invoke.logError(c.get('requestId') ?? '-', error);
    return errorResponse(
      error instanceof AppError ? error : new AppError('internal', toErrorBody(error).error.message),
    );
  });

  app.route('/', createWebRoutes({ ...deps, tools, invoke, now }));

  app.notFound(() => errorResponse(new AppError('not_found', 'No such route.')));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  app.get('/api/mcp/openapi.json', (c) => {
    const base = deps.config.publicUrl ?? new URL(c.req.url).origin;
    const only = c.req.query('tools');
    const key = `${base}|${only ?? ''}`;
    let document = openApiByBase.get(key);
    if (!document) {
      const subset = only ? new Set(only.split(',').map((name) => name.trim())) : undefined;
      const unknown = [...(subset ?? [])].filter((name) => !tools.has(name));
      if (unknown.length > 0) {
        throw new AppError('invalid_arguments', `Unknown tools in ?tools=: ${unknown.join(', ')}.`, [
          { path: 'tools', message: `Not a tool: ${unknown.join(', ')}` },
        ]);
      }
      document = JSON.stringify(buildOpenApi(tools, deps.config.version, base, subset));
      if (openApiByBase.size < 100) openApiByBase.set(key, document);
    }
    return c.body(document, 200, { 'content-type': 'application/json' });
  });

  const limitBody = bodyLimit({
    maxSize: deps.config.maxBodyBytes,
    onError: () =>
      errorResponse(
        new AppError('payload_too_large', `The body is larger than ${deps.config.maxBodyBytes} bytes.`),
      ),
  });

  async function authenticate(c: Context<AppEnv>, next: () => Promise<void>): Promise<Response | undefined> {
    const header = c.req.header('authorization');
    if (header === undefined || header === '') return unauthorized(AUTH_MESSAGES.missing, false);
    const secret = parseBearer(header);
    if (!secret) return unauthorized(AUTH_MESSAGES.malformed, true);
    const result = await deps.tokens.authenticate(secret);
    if (!result.ok) return unauthorized(AUTH_MESSAGES[result.reason], true);
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
