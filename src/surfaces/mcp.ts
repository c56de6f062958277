// MCP Streamable HTTP surface: stateless, JSON responses, one @modelcontextprotocol/server 2.x server per request over
// the tool map (src/surfaces/mcp-server.ts). The SDK's own isLegacyRequest tells the eras apart (docs/mcp.md):
// 2025-era traffic (`initialize` first, 2024-11-05..2025-11-25) goes to the server over the SDK's web-standard
// transport in JSON response mode, but for a plain tools/call, answered by the fast path (mcp-fast-path.ts) when
// MCP_FAST_PATH is on; 2026-07-28 traffic (the per-request `_meta` envelope, `server/discover`) goes to the SDK's
// createMcpHandler. Same tools, same seam, same errors.
import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  ProtocolErrorCode,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Principal } from '../auth/principal.ts';
import { toolsetsOf } from '../tools/toolsets.ts';
import { IDEMPOTENCY_HEADER } from './idempotency.ts';
import { answerPlainCall, plainToolsCall } from './mcp-fast-path.ts';
import {
  createMcpServerFactory,
  createMcpToolHandlers,
  type McpConnection,
  type McpServerOptions,
} from './mcp-server.ts';
import { requestedToolSelection } from './tool-selection.ts';

export interface McpSurface {
  handle(request: Request, principal: Principal, requestId: string): Promise<Response>;
}

/** Answers one 2025-era request of a connection (`parsedBody`: the body's JSON, undefined when it is none). */
export type LegacyServing = (
  request: Request,
  connection: McpConnection,
  parsedBody: unknown,
) => Promise<Response>;

/** The SDK's Server over its web-standard transport, stateless, in JSON response mode. */
function serveWithServer(serverFor: (connection: McpConnection) => Server): LegacyServing {
  return async (request, connection, parsedBody) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await serverFor(connection).connect(transport);
    // Not closed afterwards: in JSON response mode the answer is complete when handleRequest resolves, and the
    // transport holds no stream, timer or session; both are garbage with the request.
    return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
  };
}

export function createMcpSurface(
  options: McpServerOptions & {
    /** Answer a plain 2025-era tools/call without the SDK's server and transport (MCP_FAST_PATH). */
    fastPath: boolean;
    /** Serves 2025-era traffic instead of the 2.x Server: the SDK 1.x reference of mcp-differential.test.ts. */
    serveLegacy?: LegacyServing;
  },
): McpSurface {
  const toolsetNames = [...toolsetsOf(options.tools.values()).keys()];
  const handlers = createMcpToolHandlers(options);
  const serverFor = createMcpServerFactory(options, handlers);
  const serveLegacy = options.serveLegacy ?? serveWithServer(serverFor);

  // 2026-07-28: no initialize, no sessions; 2025-era requests never reach it. The factory gets the request's
  // connection through authInfo, the one value the handler passes on to it.
  const modern = createMcpHandler(
    (context: McpRequestContext) => {
      const connection = context.authInfo?.extra?.connection as McpConnection | undefined;
      // handle() always passes it; a factory call without it would be a wiring bug.
      if (!connection) throw new Error('MCP 2026-07-28 server built without its connection');
      return serverFor(connection);
    },
    // 'auto': a JSON answer unless a handler sends a message before its result (ours send none), then a stream;
    // 'json' would answer the same here, but prints a warning about dropped notifications every time it is built.
    { legacy: 'reject', responseMode: 'auto' },
  );

  return {
    async handle(received, principal, requestId) {
      const parsed = requestedToolSelection(received, toolsetNames);
      if (!parsed.ok) return selectionRefused(parsed.message);
      const connection: McpConnection = {
        selection: parsed.selection,
        principal,
        requestId,
        idempotencyHeader: received.headers.get(IDEMPOTENCY_HEADER),
      };
      // The body is read and parsed once, here: the era is decided on the parsed value and the SDK is handed it, so
      // nothing clones the request or reads its body again.
      const body = await readBody(received);
      const request = withJsonAccept(received, body);
      // A plain tools/call is 2025-era by the SDK's own rules (no `_meta`, so no envelope claim; no modern
      // MCP-Protocol-Version header), so the fast path answers it before isLegacyRequest, whose schema checks cost
      // about as much as the rest of the MCP layer (test/core/mcp-era.test.ts holds the two together).
      const plain = options.fastPath ? plainToolsCall(request, body.parsed) : null;
      if (plain)
        return answerPlainCall(plain.id, () => handlers.call(connection, plain.name, plain.arguments));
      if (!(await isLegacyRequest(request, body.parsed))) {
        return modern.fetch(request, {
          authInfo: { token: '', clientId: principal.tokenId, scopes: [], extra: { connection } },
          parsedBody: body.parsed,
        });
      }
      return serveLegacy(request, connection, body.parsed);
    },
  };
}

/** An unknown toolset name: HTTP 400 with a JSON-RPC invalid-params error naming the known ones. */
function selectionRefused(message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: ProtocolErrorCode.InvalidParams, message }, id: null }),
    { status: 400, headers: { 'content-type': 'application/json' } },
  );
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
 * The request the SDK sees: the received one, whose body has been read. Responses are always JSON, so a client that
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
