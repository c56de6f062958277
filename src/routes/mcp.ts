// The MCP endpoint, /api/mcp/v1 and its alias /mcp: POST (origin checked, token, body limit) to the MCP surface; other methods 405.
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { dnsRebindingProtection, type OriginPolicy } from '../http/origin.ts';
import { MCP_PATHS } from '../oauth/resource.ts';
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

  for (const path of MCP_PATHS) {
    routes.on(['GET', 'DELETE', 'PUT', 'PATCH'], path, methodNotAllowed);
    routes.post(
      path,
      dnsRebindingProtection(deps.originPolicy),
      deps.authenticate,
      deps.limitBody,
      async (c) => deps.mcp.handle(c.req.raw, c.get('principal'), c.get('requestId')),
    );
  }

  return routes;
}
