// OpenAPI 3.1 description of the direct-call surface, generated from the tool map (custom-GPT actions, wrappers).
import { AppError } from '../errors.ts';
import type { ToolMap } from '../tools/index.ts';
import { exclusionOf, toolsetsOf } from '../tools/toolsets.ts';
import { ERROR_JSON_SCHEMA, jsonSchemasOf } from './schemas.ts';
import { parseToolSelection } from './tool-selection.ts';

// Custom-GPT actions refuse operation descriptions over 300 characters, and import at most 30 operations.
const MAX_OPERATION_DESCRIPTION = 300;
export const MAX_GPT_ACTIONS_OPERATIONS = 30;

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const sentenceEnd = cut.lastIndexOf('. ');
  return sentenceEnd > max / 2 ? cut.slice(0, sentenceEnd + 1) : `${cut.trimEnd()}…`;
}

const documentedError = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The query of GET /api/mcp/openapi.json: `?tools=a,b`, and `?toolsets=` / `?readonly=` as on the MCP endpoint. */
export interface OpenApiQuery {
  tools?: string;
  toolsets?: string;
  readonly?: string;
}

/**
 * The names of the tools a document describes, or undefined for all of them: those `?tools=` names, narrowed to the
 * toolsets asked for (read tools only with `?readonly=`). There is no token here, so no scope narrows it.
 */
export function describedToolNames(tools: ToolMap, query: OpenApiQuery): Set<string> | undefined {
  const named = query.tools ? new Set(query.tools.split(',').map((name) => name.trim())) : undefined;
  const unknown = [...(named ?? [])].filter((name) => !tools.has(name));
  if (unknown.length > 0) {
    throw new AppError('invalid_arguments', `Unknown tools in ?tools=: ${unknown.join(', ')}.`, [
      { path: 'tools', message: `Not a tool: ${unknown.join(', ')}` },
    ]);
  }
  if (query.toolsets === undefined && query.readonly === undefined) return named;
  const parsed = parseToolSelection(query, toolsetsOf(tools.values()).keys());
  if (!parsed.ok) {
    throw new AppError('invalid_arguments', parsed.message, [{ path: 'toolsets', message: parsed.message }]);
  }
  const chosen = [...tools.values()]
    .filter((tool) => exclusionOf(tool, parsed.selection, 'read_write') === null)
    .map((tool) => tool.name);
  return new Set(chosen.filter((name) => !named || named.has(name)));
}

export function buildOpenApi(tools: ToolMap, version: string, baseUrl: string, only?: Set<string>) {
  const paths: Record<string, unknown> = {};
  for (const tool of tools.values()) {
    if (only && !only.has(tool.name)) continue;
    const schemas = jsonSchemasOf(tool);
    paths[`/api/mcp/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: tool.title,
        description: shorten(tool.description, MAX_OPERATION_DESCRIPTION),
        tags: [tool.scope === 'read' ? 'read' : 'write'],
        'x-openai-isConsequential': tool.scope === 'write',
        ...(tool.scope === 'write' && { parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }] }),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: schemas.publishedInput,
              ...(tool.example ? { example: tool.example } : {}),
            },
          },
        },
        responses: {
          '200': {
            description: 'The tool result.',
            content: { 'application/json': { schema: schemas.output } },
          },
          '400': documentedError('invalid_json or invalid_arguments (details list each problem).'),
          '401': documentedError('Token missing, malformed, unknown, expired or revoked.'),
          '403': documentedError('insufficient_scope: read-only token or role too low.'),
          '404': documentedError('not_found: record or organization not reachable with this token.'),
          '409': documentedError('invalid_transition or conflict.'),
          '413': documentedError("payload_too_large: the body is over the server's limit (MAX_BODY_BYTES)."),
          '415': documentedError('unsupported_media_type: send Content-Type: application/json.'),
          '429': documentedError('rate_limited; see Retry-After.'),
          '500': documentedError('internal: logged with the request id; retry later.'),
        },
      },
    };
  }
  const operations = Object.keys(paths).length;
  // Said where the person importing it reads: which smaller document a custom GPT takes.
  const tooManyForGpt =
    operations > MAX_GPT_ACTIONS_OPERATIONS
      ? ` This document has ${operations} operations; a custom GPT imports at most ${MAX_GPT_ACTIONS_OPERATIONS}: choose toolsets (?toolsets=risks,measures) or read tools only (?readonly=true).`
      : '';
  return {
    openapi: '3.1.0',
    info: {
      title: 'Compliance MCP: direct tool calls',
      version,
      description: `Every MCP tool of the compliance service as a plain HTTP POST with a JSON object of arguments. Authenticate with \`Authorization: Bearer <API token>\`. Start with listOrganizations to get an organization_id. null means "not given".${tooManyForGpt}`,
    },
    servers: [{ url: baseUrl }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API token from Settings > API Tokens.' },
      },
      schemas: { Error: ERROR_JSON_SCHEMA },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retried write safe: the same key within 24 hours answers with the first result and writes nothing; the same key with other arguments is 409 conflict.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        },
      },
    },
    paths,
  };
}
