// GET /api/mcp/openapi.json (the OpenAPI document of the direct calls) and GET /api/mcp/functions.json (function
// definitions for OpenAI, Gemini or Anthropic), each built once per base URL and selection.
import { type Context, Hono } from 'hono';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { baseUrlOf } from '../oauth/resource.ts';
import { connectionListing, pickedListing, TOOL_TOKEN_BUDGETS } from '../surfaces/connection.ts';
import { buildFunctions, functionCostOf, functionFormatOf } from '../surfaces/functions.ts';
import { instructionsFor } from '../surfaces/instructions.ts';
import { buildOpenApi, describedToolNames, type OpenApiQuery } from '../surfaces/openapi.ts';
import { parseToolSelection } from '../surfaces/tool-selection.ts';
import type { ToolMap } from '../tools/index.ts';
import { type ToolSelection, toolsetsOf } from '../tools/toolsets.ts';

const TRUE_VALUES = new Set(['1', 'true', 'yes']);

/** The toolsets and read-only mode a request asks for (as on the MCP endpoint; the core alone by default). */
function selectionOf(tools: ToolMap, c: Context): ToolSelection {
  const parsed = parseToolSelection(
    { toolsets: c.req.query('toolsets'), readonly: c.req.query('readonly') },
    toolsetsOf(tools.values()).keys(),
  );
  if (!parsed.ok)
    throw new AppError('invalid_arguments', parsed.message, [{ path: 'toolsets', message: parsed.message }]);
  return parsed.selection;
}

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

  // The definitions a function-calling app hands its model: as an MCP connection lists them (the core, or toolsets
  // within the budget, the rest through findTools and the call tools), or the tools named with ?tools=.
  routes.get('/api/mcp/functions.json', (c) => {
    const format = functionFormatOf(c.req.query('format'));
    const costOf = functionCostOf(format);
    return serve(c, format, (names) => {
      const listing = c.req.query('tools')
        ? pickedListing(
            deps.tools.values(),
            [...deps.tools.values()].filter((tool) => names?.has(tool.name)),
            TRUE_VALUES.has((c.req.query('readonly') ?? '').toLowerCase()),
            costOf,
          )
        : connectionListing(deps.tools.values(), selectionOf(deps.tools, c), 'read_write', costOf);
      if ('overBudget' in listing) {
        const message = `These tools' definitions are about ${listing.overBudget.toLocaleString('en')} tokens, over ${TOOL_TOKEN_BUDGETS.selection.toLocaleString('en')}: name fewer, or leave ?tools= out for the core with findTools and the call tools, which reach every tool.`;
        throw new AppError('invalid_arguments', message, [{ path: 'tools', message }]);
      }
      return buildFunctions(listing.tools, format, instructionsFor(listing));
    });
  });

  return routes;
}
