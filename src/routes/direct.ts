// Direct calls: POST /api/mcp/tools/<tool> and its variant POST /api/mcp/<tool>, a JSON object of arguments each.
import { Hono, type MiddlewareHandler } from 'hono';
import { AppError, errorResponse } from '../errors.ts';
import type { AppEnv } from '../http/env.ts';
import { callDirect } from '../surfaces/direct.ts';
import type { InvokeDeps } from '../surfaces/invoke.ts';
import type { ToolMap } from '../tools/index.ts';
import { resultJson } from '../tools/result-json.ts';

const TOOL_ROUTES = ['/api/mcp/tools/:tool', '/api/mcp/:tool'] as const;

export function createDirectRoutes(deps: {
  tools: ToolMap;
  invoke: InvokeDeps;
  authenticate: MiddlewareHandler<AppEnv>;
  limitBody: MiddlewareHandler;
}) {
  const routes = new Hono<AppEnv>();

  for (const path of TOOL_ROUTES) {
    routes.post(path, deps.authenticate, deps.limitBody, async (c) => {
      const result = await callDirect(
        deps,
        c.req.param('tool'),
        c.req.raw,
        c.get('principal'),
        c.get('requestId'),
      );
      // c.json's answer, its JSON written once (a list page's items as measured: result-json.ts).
      return c.body(resultJson(result), 200, { 'Content-Type': 'application/json' });
    });
  }

  // Another method on a tool's route: still not a route (the closed set of codes has no 405), but saying how to call.
  routes.on(['GET', 'PUT', 'PATCH', 'DELETE'], [...TOOL_ROUTES], () => {
    const response = errorResponse(
      new AppError(
        'not_found',
        'No such route: tools are called with POST /api/mcp/tools/<tool>, the arguments as a JSON body.',
      ),
    );
    response.headers.set('allow', 'POST');
    return response;
  });

  return routes;
}
