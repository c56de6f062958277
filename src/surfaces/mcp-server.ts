// The MCP server over the tool map, for one request: tools/list and tools/call of its connection, the instructions.
// One @modelcontextprotocol/server 2.x `Server` serves both eras (src/surfaces/mcp.ts routes the traffic to it).
import {
  type CallToolResult,
  type jsonSchemaValidator as JsonSchemaValidator,
  type ListToolsResult,
  type Tool as McpTool,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.ts';
import { toErrorBody } from '../errors.ts';
import { ID_PREFIXES } from '../ids.ts';
import type { Tool, ToolMap } from '../tools/index.ts';
import { resultJson } from '../tools/result-json.ts';
import { exclusionOf, selectionKey, type ToolSelection } from '../tools/toolsets.ts';
import { IDEMPOTENCY_META_KEY } from './idempotency.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';
import { jsonSchemasOf } from './schemas.ts';

const ID_KIND_LABELS: Record<string, string> = { token: 'API token', call: 'tool call' };

/** Every id prefix a client meets, with its kind ("rsk_ risk"): tools/list leaves id formats out of descriptions. */
const ID_KINDS = Object.entries(ID_PREFIXES)
  .filter(([kind]) => !kind.startsWith('oauth_'))
  .map(([kind, prefix]) => `${prefix}_ ${ID_KIND_LABELS[kind] ?? kind.replace('_', ' ')}`)
  .join(', ');

export const SERVER_INSTRUCTIONS = [
  'Compliance registers of the organizations this token can access. Start with listOrganizations to get an organization_id (org_...); then use the list*/get*/add*/update*/delete* tools of each kind (vendors, risks, measures, obligations, people, frameworks, assets, data classifications, nonconformities, continual improvements, audits) and getComplianceSummary for an overview.',
  `Ids carry their kind's prefix: ${ID_KINDS}. \`id\` is the tool's own kind (getRisk: rsk_...); an argument named after a kind takes its ids (measure_id: msr_..., vendor_ids: ven_...); owner_id and every *_owner_id is a person (per_...).`,
  "Every record has id, organization_id, created_at and updated_at, and the fields its kind's get tool lists (getRisk's risk); list, add and update tools return the same records.",
  'Lists filter on the server (`filter`: all given filters must match; an enum filter takes a list, any of its values matches; query is case-insensitive), sort with order_by {field, direction ASC or DESC} (default created_at DESC) and page: size 1..100 (default 20); pass next_cursor back as cursor until it is null; total_count counts the matches up to 1000, 100 with filter.query (total_count_capped: more); page_shortened: fewer than size, to keep a result within about 20,000 tokens.',
  'null means "not given" for every argument (leave it out or send null). Enum values are upper case, as listed. Updates change only the fields given, with the values and bounds of the add tool (null leaves a field as it is); `clear` lists the fields to empty; expected_updated_at (the updated_at you read) refuses the change, as conflict, if the record changed since.',
  'A failed call is a result with isError and structuredContent.error {code, message, details}: fix the arguments and retry. Delete tools cannot be undone: confirm with the user first.',
].join(' ');

/** How long a 2026-07-28 client may reuse a tools/list or server/discover answer (ms); 2025 answers carry no hint. */
const LIST_TTL_MS = 5 * 60 * 1000;

/** What the server says it is, in either era. */
export function serverInfoOf(options: Pick<McpServerOptions, 'serverName' | 'version'>) {
  return { name: options.serverName, version: options.version, title: 'Compliance MCP' };
}

/** What it can do: tools, whose list changes only with a deployment. */
export const MCP_CAPABILITIES = { tools: { listChanged: false } };

/** The request a server is built for: what its connection lists and may call, who asks, and the request's id. */
export interface McpConnection {
  selection: ToolSelection;
  principal: Principal;
  requestId: string;
  /** The request's Idempotency-Key header, if any (a tools/call's `_meta` key is the other way to give one). */
  idempotencyHeader?: string | null;
}

export interface McpServerOptions {
  tools: ToolMap;
  invoke: InvokeDeps;
  serverName: string;
  version: string;
  jsonSchemaValidator: JsonSchemaValidator;
}

/**
 * The tools as tools/list shows them, kept small (every byte is the model's context): the published input schema,
 * an output schema on read tools (write tools return the record as the get tool describes it), all four
 * annotation hints. Titles stay in the tool map (OpenAPI, web): a model needs the name, not a display label.
 */
export function listedTools(tools: Iterable<Tool>): McpTool[] {
  return [...tools].map((tool) => {
    const schemas = jsonSchemasOf(tool);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: schemas.mcpInput,
      ...(tool.scope === 'read' ? { outputSchema: schemas.mcpOutput } : {}),
      annotations: { ...tool.annotations },
    };
  });
}

/**
 * A JSON-RPC error the SDK sends as is. (The SDK's ProtocolError puts "MCP error <code>: " into its message, which the
 * protocol layer sends and the client's error prefixes again: "MCP error -32602: MCP error -32602: ...".)
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** tools/list and tools/call of a connection, whatever serves them (the SDK's Server here; SDK 1.x in a test). */
export interface McpToolHandlers {
  list(connection: McpConnection): ListToolsResult;
  /** A tool result (isError for a failed call); throws a JSON-RPC error for a tool unknown or not on the connection. */
  call(connection: McpConnection, name: string, args: unknown, meta?: unknown): Promise<CallToolResult>;
}

export function createMcpToolHandlers(options: Pick<McpServerOptions, 'tools' | 'invoke'>): McpToolHandlers {
  // tools/list answers per selection (toolsets x read-only), computed once each.
  const listResults = new Map<string, ListToolsResult>();
  return {
    list({ selection, principal }) {
      const key = selectionKey(selection, principal.scope);
      let result = listResults.get(key);
      if (!result) {
        const listed = [...options.tools.values()].filter(
          (tool) => exclusionOf(tool, selection, principal.scope) === null,
        );
        result = { tools: listedTools(listed) };
        listResults.set(key, result);
      }
      return result;
    },

    async call({ selection, principal, requestId, idempotencyHeader }, name, args, meta) {
      const tool = options.tools.get(name);
      if (!tool) {
        throw new JsonRpcError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${name}. Call tools/list for the tool names.`,
        );
      }
      // A tool this connection does not list is not callable either: the same error, saying why.
      const excluded = exclusionOf(tool, selection, principal.scope);
      if (excluded) {
        throw new JsonRpcError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${tool.name} is not available on this connection: ${excluded}.`,
        );
      }
      const idempotency =
        idempotencyHeader || meta
          ? {
              header: idempotencyHeader,
              meta: (meta as Record<string, unknown> | undefined)?.[IDEMPOTENCY_META_KEY],
            }
          : undefined;
      const outcome = await invokeTool(
        options.invoke,
        tool,
        args,
        principal,
        'mcp',
        requestId,
        undefined,
        idempotency,
      );
      const structured = outcome.ok ? outcome.result : { ...toErrorBody(outcome.error) };
      return {
        content: [{ type: 'text', text: resultJson(structured) }],
        structuredContent: structured,
        ...(outcome.ok ? {} : { isError: true }),
      };
    },
  };
}

/** Builds the server of one request, for either era, over the tool handlers. */
export function createMcpServerFactory(
  options: McpServerOptions,
  handlers: McpToolHandlers,
): (connection: McpConnection) => Server {
  return (connection) => {
    const server = new Server(serverInfoOf(options), {
      capabilities: MCP_CAPABILITIES,
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: options.jsonSchemaValidator,
      // tools/list depends on the token and the toolsets and changes only with a deployment: a 2026-07-28 client may
      // reuse it for a while, for itself only. The 2025 revisions have no such hint (the SDK adds it to modern answers).
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
      },
    });
    server.setRequestHandler('tools/list', () => handlers.list(connection));
    server.setRequestHandler('tools/call', (request) =>
      handlers.call(connection, request.params.name, request.params.arguments, request.params._meta),
    );
    return server;
  };
}
