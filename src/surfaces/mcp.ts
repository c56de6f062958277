// MCP Streamable HTTP surface: stateless, JSON responses, a fresh server and transport per request over the tool map.
// 2025-era traffic (2025-03-26..2025-11-25, `initialize` first) is served by @modelcontextprotocol/sdk 1.x; 2026-07-28
// traffic (the per-request `_meta` envelope, `server/discover`) by @modelcontextprotocol/server 2.x. Same tools,
// same seam, same errors. A plain 2025-era tools/call, the bulk of the traffic, is answered here as SDK 1.x answers
// it (plainToolsCall, answerPlainCall), without building its server and transport for the request.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type CallToolRequest,
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool as Tool_,
} from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator as JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  type ListToolsResult as ModernListToolsResult,
  Server as ModernServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { toErrorBody } from '../errors.ts';
import type { Tool, ToolMap } from '../tools/index.ts';
import { exclusionOf, selectionKey, type ToolSelection, toolsetsOf } from '../tools/toolsets.ts';
import { type InvokeDeps, invokeTool } from './invoke.ts';
import { jsonSchemasOf } from './schemas.ts';
import { requestedToolSelection } from './tool-selection.ts';

export const SERVER_INSTRUCTIONS = [
  'Compliance registers of the organizations this token can access. Start with listOrganizations to get an organization_id (org_...); then use the list*/get*/add*/update*/delete* tools of each kind (vendors, risks, measures, obligations, people, frameworks, assets, data classifications, nonconformities, continual improvements, audits) and getComplianceSummary for an overview.',
  'Lists filter on the server (`filter`, all given filters must match; enum filters take a list) and page: pass next_cursor back as cursor until it is null; total_count counts the matches up to 1000, 100 with filter.query (total_count_capped: more).',
  'Enum values: upper case as listed, or lower case with spaces (`not started`). Updates change only the fields given; null clears an optional field; expected_updated_at refuses a change to a record changed since you read it.',
  'A failed call is a result with isError and structuredContent.error {code, message, details}: fix the arguments and retry. Delete tools cannot be undone: confirm with the user first.',
].join(' ');

/**
 * tools/call as the SDK defines it, except that `arguments` is not checked here: checked next by the SDK's own
 * schema (sdkCallParams), a non-object is refused as JSON-RPC "invalid params" (-32602), where a failed parse of this
 * schema is an "internal error" (-32603).
 */
const CallToolRequestLooseSchema = CallToolRequestSchema.extend({
  params: CallToolRequestParamsSchema.extend({ arguments: z.unknown().optional() }),
});

/** tools/call params without `_meta` or `task`, a string name and an object of arguments (or none); else null. */
function plainCallParams(params: unknown): { name: string; arguments?: Record<string, unknown> } | null {
  if (!isPlainObject(params)) return null;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return null;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return null;
  return { name, arguments: args };
}

/**
 * tools/call params as the SDK checks them for a registered tools/call handler: the loose schema first (a failure is
 * an "internal error", -32603), then the SDK's own schema (a failure is "invalid params", -32602).
 */
function sdkCallParams(request: unknown): CallToolRequest['params'] {
  const loose = CallToolRequestLooseSchema.safeParse(request);
  if (!loose.success) throw loose.error;
  const checked = CallToolRequestSchema.safeParse(request);
  if (!checked.success) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${checked.error.message}`);
  }
  return checked.data.params;
}

const JSON_RPC_REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether a request is surely 2025-era traffic, told in a few comparisons (isLegacyRequest's zod checks cost more
 * than the rest of the era's routing): one JSON-RPC request (only its four members, jsonrpc "2.0", a string method,
 * a string or safe integer id) whose params are an object without `_meta` (so no 2026-07-28 envelope claim), with no
 * Mcp-Method or Mcp-Name header and an MCP-Protocol-Version header that is absent or names a revision SDK 1.x serves.
 * isLegacyRequest says legacy for every such request (test/core/mcp-era.test.ts holds the two together); false here
 * leaves the decision to it.
 */
export function plainlyLegacy(headers: Headers, body: unknown): boolean {
  if (!isPlainObject(body)) return false;
  for (const key in body) if (!JSON_RPC_REQUEST_MEMBERS.has(key)) return false;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (params !== undefined && (!isPlainObject(params) || '_meta' in params)) return false;
  if (headers.has('mcp-method') || headers.has('mcp-name')) return false;
  const version = headers.get('mcp-protocol-version');
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** How long a 2026-07-28 client may reuse a tools/list or server/discover answer (ms). */
const LIST_TTL_MS = 5 * 60 * 1000;

/** What the 2026-07-28 server factory needs of the request it serves. */
interface ModernContext {
  selection: ToolSelection;
  principal: Principal;
  call: (name: string, args: unknown) => Promise<CallToolResult>;
}

export interface McpSurface {
  handle(request: Request, principal: Principal, requestId: string): Promise<Response>;
}

export function createMcpSurface(options: {
  tools: ToolMap;
  invoke: InvokeDeps;
  serverName: string;
  version: string;
  jsonSchemaValidator: JsonSchemaValidator;
  /** Every request through the SDKs, plain tools/calls too (test/core/mcp-plain-call.test.ts compares the two). */
  sdkOnly?: boolean;
}): McpSurface {
  const toolsetNames = [...toolsetsOf(options.tools.values()).keys()];
  // tools/list answers per selection (toolsets x read-only), computed once each.
  const listResults = new Map<string, ListToolsResult>();
  function listResultOf(selection: ToolSelection, principal: Principal): ListToolsResult {
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
  }

  /** tools/call for both eras: a tool result (isError for a failed call), or a JSON-RPC error for an unknown tool. */
  async function callTool(
    name: string,
    args: unknown,
    selection: ToolSelection,
    principal: Principal,
    requestId: string,
  ): Promise<CallToolResult> {
    const tool = options.tools.get(name);
    if (!tool) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name}. Call tools/list for the tool names.`,
      );
    }
    // A tool this connection does not list is not callable either: the same error, saying why.
    const excluded = exclusionOf(tool, selection, principal.scope);
    if (excluded) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${tool.name} is not available on this connection: ${excluded}.`,
      );
    }
    const outcome = await invokeTool(options.invoke, tool, args, principal, 'mcp', requestId);
    const structured = outcome.ok ? outcome.result : { ...toErrorBody(outcome.error) };
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      ...(outcome.ok ? {} : { isError: true }),
    };
  }

  // 2026-07-28 (no initialize, no sessions; 2025-era requests never reach it). tools/list depends on the token and
  // the toolsets and changes only with a deployment: cacheable for a while, by this client only.
  const modern = createMcpHandler(
    (context: McpRequestContext) => {
      const modernContext = context.authInfo?.extra?.context as ModernContext | undefined;
      // handle() always passes it; a factory call without it would be a wiring bug.
      if (!modernContext) throw new Error('MCP 2026-07-28 server built without its request context');
      const { selection, principal, call } = modernContext;
      const server = new ModernServer(
        { name: options.serverName, version: options.version, title: 'Compliance MCP' },
        {
          capabilities: { tools: { listChanged: false } },
          instructions: SERVER_INSTRUCTIONS,
          cacheHints: {
            'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
            'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
          },
        },
      );
      // The same JSON as the 2025 answer; the two SDK lines type JSON Schema properties differently.
      server.setRequestHandler(
        'tools/list',
        () => listResultOf(selection, principal) as unknown as ModernListToolsResult,
      );
      server.setRequestHandler('tools/call', (request) =>
        call(request.params.name, request.params.arguments),
      );
      return server;
    },
    // 'auto': a JSON answer unless a handler sends a message before its result (ours send none), then a stream;
    // 'json' would answer the same here, but prints a warning about dropped notifications every time it is built.
    { legacy: 'reject', responseMode: 'auto' },
  );

  return {
    async handle(received, principal, requestId) {
      const parsed = requestedToolSelection(received, toolsetNames);
      if (!parsed.ok) {
        return new Response(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: ErrorCode.InvalidParams, message: parsed.message },
            id: null,
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        );
      }
      const { selection } = parsed;
      const call = (name: string, args: unknown) => callTool(name, args, selection, principal, requestId);
      // The body is read and parsed once, here: the era is decided on the parsed value and both SDKs are handed it,
      // so neither clones the request or reads its body again.
      const body = await readBody(received);
      const plain = options.sdkOnly ? null : plainToolsCall(received, body.parsed);
      if (plain) return answerPlainCall(plain.id, () => call(plain.params.name, plain.params.arguments));
      const request = withJsonAccept(received, body);
      if (!(plainlyLegacy(request.headers, body.parsed) || (await isLegacyRequest(request, body.parsed)))) {
        // 2026-07-28: the SDK's handler answers from a server the factory builds with this request's context.
        const context: ModernContext = { selection, principal, call };
        return modern.fetch(request, {
          authInfo: { token: '', clientId: principal.tokenId, scopes: [], extra: { context } },
          parsedBody: body.parsed,
        });
      }
      const server = new Server(
        { name: options.serverName, version: options.version, title: 'Compliance MCP' },
        {
          capabilities: { tools: { listChanged: false } },
          instructions: SERVER_INSTRUCTIONS,
          jsonSchemaValidator: options.jsonSchemaValidator,
        },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => listResultOf(selection, principal));
      // tools/call is answered by the fallback handler (the SDK's hook for methods without a handler of their own),
      // which the SDK neither parses the request for nor validates the result of: a plain call is checked here in a
      // few comparisons, anything else goes through the SDK's own schemas and fails as it did; our results are
      // CallToolResults by construction (callTool). Every other method without a handler: "Method not found", as the
      // SDK answers it.
      server.fallbackRequestHandler = async (request) => {
        if (request.method !== 'tools/call')
          throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found');
        const params = plainCallParams(request.params) ?? sdkCallParams(request);
        return call(params.name, params.arguments);
      };
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // Not closed afterwards: in JSON response mode the answer is complete when handleRequest resolves, and the
      // transport holds no stream, timer or session; both are garbage with the request. close() would only abort the
      // handler just answered and build an AbortError and a "Connection closed" McpError for nobody, on every call.
      return transport.handleRequest(
        request,
        body.parsed === undefined ? undefined : { parsedBody: body.parsed },
      );
    },
  };
}

/**
 * The tools as tools/list shows them, kept small (every byte is the model's context): the published input schema,
 * an output schema on read tools (write tools return the record as the get tool describes it), all four
 * annotation hints. Titles stay in the tool map (OpenAPI, web): a model needs the name, not a display label.
 */
export function listedTools(tools: Iterable<Tool>): Tool_[] {
  return [...tools].map((tool) => {
    const schemas = jsonSchemasOf(tool);
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: schemas.publishedInput,
      ...(tool.scope === 'read' ? { outputSchema: schemas.mcpOutput } : {}),
      annotations: { ...tool.annotations },
    };
  });
}

/**
 * A JSON-RPC error the SDK sends as is. (The SDK's McpError puts "MCP error <code>: " into its message, which the
 * protocol layer sends and the client's McpError prefixes again: "MCP error -32602: MCP error -32602: ...".)
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A 2025-era tools/call the SDK 1.x transport and server would only pass to our handler (callTool): a POST with a
 * JSON body (the transport's own Content-Type test; it answers any Accept, see withJsonAccept) holding one plain
 * JSON-RPC request (plainlyLegacy: no session, no 2026-07-28 claim, a protocol version it serves) for tools/call
 * with plain params. Null for anything else, which the SDKs answer.
 */
function plainToolsCall(
  request: Request,
  body: unknown,
): { id: string | number; params: NonNullable<ReturnType<typeof plainCallParams>> } | null {
  if (request.method !== 'POST' || !isJsonContentType(request.headers.get('content-type'))) return null;
  if (!plainlyLegacy(request.headers, body) || !isPlainObject(body) || body.method !== 'tools/call')
    return null;
  const params = plainCallParams(body.params);
  return params ? { id: body.id as string | number, params } : null;
}

/**
 * The answer SDK 1.x gives a plain tools/call in JSON response mode (its protocol layer's response or error object,
 * serialized by its transport, 200 with only a Content-Type), without building its server and transport for the
 * request; the result's JSON is written once (callResultJson).
 */
async function answerPlainCall(id: string | number, call: () => Promise<CallToolResult>): Promise<Response> {
  let json: string;
  try {
    json = `{"result":${callResultJson(await call())},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  } catch (caught) {
    const error = (typeof caught === 'object' && caught !== null ? caught : {}) as {
      code?: unknown;
      message?: string;
      data?: unknown;
    };
    json = JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: {
        code: Number.isSafeInteger(error.code) ? error.code : ErrorCode.InternalError,
        message: error.message ?? 'Internal error',
        ...(error.data !== undefined && { data: error.data }),
      },
    });
  }
  return new Response(json, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/**
 * JSON.stringify of a callTool result, whose one text block is the JSON of its structuredContent: that JSON is
 * used as it is rather than made a second time (test/core/mcp-plain-call.test.ts holds the two equal).
 */
export function callResultJson(result: CallToolResult): string {
  const [block] = result.content;
  if (result.content.length !== 1 || block?.type !== 'text' || !('structuredContent' in result)) {
    return JSON.stringify(result);
  }
  const { text } = block;
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${result.isError ? ',"isError":true' : ''}}`;
}

/** A request body read once: its text, and its JSON value when it is JSON (`undefined`: empty or not JSON). */
interface ReadBody {
  text: string;
  parsed: unknown;
}

async function readBody(request: Request): Promise<ReadBody> {
  const text = await request.text();
  if (text.length === 0) return { text, parsed: undefined };
  try {
    return { text, parsed: JSON.parse(text) as unknown };
  } catch {
    return { text, parsed: undefined };
  }
}

/**
 * The request the SDKs see: the received one, whose body has been read. Responses are always JSON, so a client that
 * only accepts application/json (curl, proxies) is served too; and a body that is not JSON is given back as text,
 * for the SDK to answer as it answers any unparseable body.
 */
function withJsonAccept(request: Request, body: ReadBody): Request {
  const accept = request.headers.get('accept') ?? '';
  const acceptsBoth = accept.includes('application/json') && accept.includes('text/event-stream');
  if (acceptsBoth && body.parsed !== undefined) return request;
  const headers = new Headers(request.headers);
  if (!acceptsBoth) headers.set('accept', 'application/json, text/event-stream');
  return new Request(request.url, {
    method: request.method,
    headers,
    signal: request.signal,
    ...(body.parsed === undefined ? { body: body.text } : {}),
  });
}
