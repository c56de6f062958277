// The MCP endpoint, /api/mcp/v1: POST (origin checked, token, body limit) to the MCP surface; other methods 405.
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { dnsRebindingProtection, type OriginPolicy } from '../http/origin.ts';
import { MCP_PATH } from '../oauth/resource.ts';
import type { McpSurface } from '../surfaces/mcp.ts';

/** The endpoint's own error shape (JSON-RPC), as the SDK answers: there is no stream to GET or session to DELETE. */
function methodNotAllowed(): Response {
  return new Response(
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
}

export function createMcpRoutes(deps: {
  mcp: McpSurface;
  originPolicy: OriginPolicy;
  authenticate: MiddlewareHandler<AppEnv>;
  limitBody: MiddlewareHandler;
}) {
  const routes = new Hono<AppEnv>();

  routes.on(['GET', 'DELETE', 'PUT', 'PATCH'], MCP_PATH, methodNotAllowed);

  routes.post(
    MCP_PATH,
    dnsRebindingProtection(deps.originPolicy),
    deps.authenticate,
    deps.limitBody,
    async (c) => deps.mcp.handle(c.req.raw, c.get('principal'), c.get('requestId')),
  );

  return routes;
}
