// The MCP server over the tool map, for one request: tools/list and tools/call of its connection, the instructions.
// One @modelcontextprotocol/server 2.x `Server` serves both eras (src/surfaces/mcp.ts routes the traffic to it).
import {
  type CallToolResult,
  type jsonSchemaValidator as JsonSchemaValidator,
  type ListResourcesResult,
  type ListToolsResult,
  type Tool as McpTool,
  ProtocolErrorCode,
  type ReadResourceResult,
  Server,
} from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.ts';
import {
  APPS_EXTENSION_ID,
  listedViewResources,
  readViewResource,
  toolViewMeta,
} from '../chat-views/index.ts';
import { toErrorBody } from '../errors.ts';
import type { Tool, ToolMap } from '../tools/index.ts';
import { resultJson } from '../tools/result-json.ts';
import { selectionKey, type ToolSelection, unreachableReason } from '../tools/toolsets.ts';
import { type ConnectionListing, connectionListing, estimatedTokens } from './connection.ts';
import { IDEMPOTENCY_META_KEY } from './idempotency.ts';
import { instructionsFor } from './instructions.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';
import { jsonSchemasOf } from './schemas.ts';

/** How long a 2026-07-28 client may reuse a tools/list or server/discover answer (ms); 2025 answers carry no hint. */
const LIST_TTL_MS = 5 * 60 * 1000;

/** What the server says it is, in either era. */
export function serverInfoOf(options: Pick<McpServerOptions, 'serverName' | 'version'>) {
  return { name: options.serverName, version: options.version, title: 'Compliance MCP' };
}

/**
 * What it can do: tools, and the views of the MCP Apps extension as resources (docs/clients.md); both lists change
 * only with a deployment.
 */
export const MCP_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  extensions: { [APPS_EXTENSION_ID]: {} },
};

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
 * The tools as tools/list shows them, kept small (every byte is the model's context): the title (top level and in
 * the annotations, where connector directories read it), the published input schema, an output schema on read tools
 * (write tools return the record as the get tool describes it), all four annotation hints.
 */
export function listedTools(tools: Iterable<Tool>): McpTool[] {
  return [...tools].map(listedTool);
}

function listedTool(tool: Tool): McpTool {
  const schemas = jsonSchemasOf(tool);
  const meta = toolViewMeta(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.mcpInput,
    ...(tool.scope === 'read' ? { outputSchema: schemas.mcpOutput } : {}),
    annotations: { title: tool.title, ...tool.annotations },
    // A tool with a chat view names it; its result stays the whole answer for hosts that render none.
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A tool's definition in tools/list, in tokens (estimatedTokens): what a connection's budget counts. */
const mcpCosts = new WeakMap<Tool, number>();
export function mcpCostOf(tool: Tool): number {
  let cost = mcpCosts.get(tool);
  if (cost === undefined) {
    cost = estimatedTokens(listedTool(tool));
    mcpCosts.set(tool, cost);
  }
  return cost;
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
  /** The server instructions of the connection, generated from what it lists. */
  instructions(connection: McpConnection): string;
  /** A tool result (isError for a failed call); throws a JSON-RPC error for a tool unknown or not reachable. */
  call(connection: McpConnection, name: string, args: unknown, meta?: unknown): Promise<CallToolResult>;
  /** resources/list: the chat views (they hold no data: the same on every connection). */
  listResources(): ListResourcesResult;
  /** resources/read of a view; throws a JSON-RPC error (invalid params, resource not found) for any other uri. */
  readResource(uri: string): Promise<ReadResourceResult>;
}

/** What a connection lists, its tools/list answer and its instructions, computed once per selection. */
interface ListedConnection {
  listing: ConnectionListing;
  result: ListToolsResult;
  instructions: string;
}

export function createMcpToolHandlers(options: Pick<McpServerOptions, 'tools' | 'invoke'>): McpToolHandlers {
  const listed = new Map<string, ListedConnection>();
  const listedFor = ({ selection, principal }: McpConnection): ListedConnection => {
    const key = selectionKey(selection, principal.scope);
    let entry = listed.get(key);
    if (!entry) {
      const listing = connectionListing(options.tools.values(), selection, principal.scope, mcpCostOf);
      entry = {
        listing,
        result: { tools: listedTools(listing.tools) },
        instructions: instructionsFor(listing),
      };
      listed.set(key, entry);
    }
    return entry;
  };
  const resources: ListResourcesResult = { resources: listedViewResources() };
  return {
    list: (connection) => listedFor(connection).result,
    listResources: () => resources,
    async readResource(uri) {
      const read = await readViewResource(uri);
      // Invalid params on every revision, as 2026-07-28 requires (the SDK maps -32002 to it anyway).
      if (!read) throw new JsonRpcError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`);
      return read;
    },
    instructions: (connection) => listedFor(connection).instructions,

    async call({ selection, principal, requestId, idempotencyHeader }, name, args, meta) {
      const tool = options.tools.get(name);
      if (!tool) {
        throw new JsonRpcError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${name}. Call tools/list for the tool names.`,
        );
      }
      // Any tool the connection may call answers, listed or not (findTools reaches them all); a write on a read-only
      // token or connection is an unknown tool, saying why.
      const unreachable = unreachableReason(tool, selection, principal.scope);
      if (unreachable) {
        throw new JsonRpcError(
          ProtocolErrorCode.InvalidParams,
          `Unknown tool: ${tool.name} is not available on this connection: ${unreachable}.`,
        );
      }
      const idempotency =
        idempotencyHeader || meta
          ? {
              header: idempotencyHeader,
              meta: (meta as Record<string, unknown> | undefined)?.[IDEMPOTENCY_META_KEY],
            }
          : undefined;
      // A read-only connection acts as a read token: no call tool or discovery reaches a write through it.
      const acting =
        selection.readonly && principal.scope !== 'read'
          ? { ...principal, scope: 'read' as const }
          : principal;
      const outcome = await invokeTool(
        options.invoke,
        tool,
        args,
        acting,
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
      instructions: handlers.instructions(connection),
      jsonSchemaValidator: options.jsonSchemaValidator,
      // tools/list depends on the token and the toolsets and changes only with a deployment: a 2026-07-28 client may
      // reuse it for a while, for itself only. The 2025 revisions have no such hint (the SDK adds it to modern answers).
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/read': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
      },
    });
    server.setRequestHandler('tools/list', () => handlers.list(connection));
    server.setRequestHandler('tools/call', (request) =>
      handlers.call(connection, request.params.name, request.params.arguments, request.params._meta),
    );
    server.setRequestHandler('resources/list', () => handlers.listResources());
    server.setRequestHandler('resources/read', (request) => handlers.readResource(request.params.uri));
    return server;
  };
}
