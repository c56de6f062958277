// GET /api/mcp/openapi.json (the OpenAPI document of the direct calls) and GET /api/mcp/functions.json (function
// definitions for OpenAI, Gemini or Anthropic), each built once per base URL and selection.
import { type Context, Hono } from 'hono';
import type { Config } from '../config.ts';
import { baseUrlOf } from '../oauth/resource.ts';
import { buildFunctions, functionFormatOf } from '../surfaces/functions.ts';
import { buildOpenApi, describedToolNames, type OpenApiQuery } from '../surfaces/openapi.ts';
import type { ToolMap } from '../tools/index.ts';

/** Documents kept, at most (the key holds query strings a client chooses). */
const MAX_CACHED_DOCUMENTS = 100;

export function createOpenApiRoutes(deps: { config: Config; tools: ToolMap }) {
  const routes = new Hono();
  const documents = new Map<string, string>();

  /** The document for this request's selection (`?tools=`, `?toolsets=`, `?readonly=`), from the cache if built. */
  function serve(c: Context, kind: string, build: (names: Set<string> | undefined, base: string) => unknown) {
    const base = baseUrlOf(deps.config, c.req.url);
    const query: OpenApiQuery = {
      tools: c.req.query('tools'),
      toolsets: c.req.query('toolsets'),
      readonly: c.req.query('readonly'),
    };
    const key = `${kind}|${base}|${query.tools ?? ''}|${query.toolsets ?? ''}|${query.readonly ?? ''}`;
    let document = documents.get(key);
    if (!document) {
      document = JSON.stringify(build(describedToolNames(deps.tools, query), base));
      if (documents.size < MAX_CACHED_DOCUMENTS) documents.set(key, document);
    }
    return c.body(document, 200, { 'content-type': 'application/json' });
  }

  routes.get('/api/mcp/openapi.json', (c) =>
    serve(c, 'openapi', (names, base) => buildOpenApi(deps.tools, deps.config.version, base, names)),
  );

  routes.get('/api/mcp/functions.json', (c) => {
    const format = functionFormatOf(c.req.query('format'));
    return serve(c, format, (names) =>
      buildFunctions(
        [...deps.tools.values()].filter((tool) => !names || names.has(tool.name)),
        format,
      ),
    );
  });

  return routes;
}
