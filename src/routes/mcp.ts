// The MCP endpoint, /api/mcp/v1 and its alias /mcp: origin and token checked before the method, then POST (body
// limit) to the MCP surface and any other method 405.
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

/** Every method but POST and OPTIONS (a CORS preflight never carries credentials): 401 without a token, else 405. */
const OTHER_METHODS = ['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH'];

export function createMcpRoutes(deps: {
  mcp: McpSurface;
  originPolicy: OriginPolicy;
  authenticate: MiddlewareHandler<AppEnv>;
  limitBody: MiddlewareHandler;
}) {
  const routes = new Hono<AppEnv>();

  const checkOrigin = dnsRebindingProtection(deps.originPolicy);
  for (const path of MCP_PATHS) {
    // Authentication before the method: a client that opens with GET (Claude Desktop does) must meet the 401 and its
    // WWW-Authenticate challenge to start OAuth; only an authenticated GET or DELETE learns there is no stream.
    routes.on(OTHER_METHODS, path, checkOrigin, deps.authenticate, methodNotAllowed);
    routes.post(path, checkOrigin, deps.authenticate, deps.limitBody, async (c) =>
      deps.mcp.handle(c.req.raw, c.get('principal'), c.get('requestId')),
    );
  }

  return routes;
}
