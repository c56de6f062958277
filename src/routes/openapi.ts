// GET /api/mcp/openapi.json: the OpenAPI document of the direct calls, built once per base URL and selection.
import { Hono } from 'hono';
import type { Config } from '../config.ts';
import { baseUrlOf } from '../oauth/resource.ts';
import { buildOpenApi, describedToolNames, type OpenApiQuery } from '../surfaces/openapi.ts';
import type { ToolMap } from '../tools/index.ts';

/** Documents kept, at most (the key holds query strings a client chooses). */
const MAX_CACHED_DOCUMENTS = 100;

export function createOpenApiRoutes(deps: { config: Config; tools: ToolMap }) {
  const routes = new Hono();
  const documents = new Map<string, string>();

  routes.get('/api/mcp/openapi.json', (c) => {
    const base = baseUrlOf(deps.config, c.req.url);
    const query: OpenApiQuery = {
      tools: c.req.query('tools'),
      toolsets: c.req.query('toolsets'),
      readonly: c.req.query('readonly'),
    };
    const key = `${base}|${query.tools ?? ''}|${query.toolsets ?? ''}|${query.readonly ?? ''}`;
    let document = documents.get(key);
    if (!document) {
      const names = describedToolNames(deps.tools, query);
      document = JSON.stringify(buildOpenApi(deps.tools, deps.config.version, base, names));
      if (documents.size < MAX_CACHED_DOCUMENTS) documents.set(key, document);
    }
    return c.body(document, 200, { 'content-type': 'application/json' });
  });

  return routes;
}
