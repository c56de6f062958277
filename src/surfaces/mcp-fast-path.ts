// The plainest and most frequent 2025-era request, one tools/call, answered without building the SDK's server and
// transport for it, as they answer it (docs/mcp.md: why it stays, behind MCP_FAST_PATH; held to the SDK by
// test/core/mcp-differential.test.ts on a generated corpus).
import {
  type CallToolResult,
  isJsonContentType,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';

/** A tools/call the SDK would only hand to the tools/call handler: its id, the tool's name and its arguments. */
export interface PlainCall {
  id: string | number;
  name: string;
  arguments: Record<string, unknown> | undefined;
}

const JSON_RPC_REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A 2025-era request (the SDK's isLegacyRequest said so) that the SDK's transport and server would pass straight to
 * the tools/call handler: a JSON body (the transport's own Content-Type test) holding one JSON-RPC request (its four
 * members only, a string or safe integer id) for tools/call whose params are a string name and an object of
 * arguments (or none), nothing else (no `_meta`, no `task`); an MCP-Protocol-Version header absent or one the SDK
 * serves. Null for anything else, which the SDK answers.
 */
export function plainToolsCall(request: Request, body: unknown): PlainCall | null {
  if (!isJsonContentType(request.headers.get('content-type'))) return null;
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!isPlainObject(body)) return null;
  for (const key in body) if (!JSON_RPC_REQUEST_MEMBERS.has(key)) return null;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || !isPlainObject(params)) return null;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return null;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return null;
  return { id: id as string | number, name, arguments: args };
}

/**
 * The answer the SDK gives a plain tools/call in JSON response mode: its protocol layer's response or error object,
 * serialized by its transport, 200 with only a Content-Type. The result's JSON is written once (callResultJson).
 */
export async function answerPlainCall(
  id: string | number,
  call: () => Promise<CallToolResult>,
): Promise<Response> {
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
        code: Number.isSafeInteger(error.code) ? error.code : ProtocolErrorCode.InternalError,
        message: error.message ?? 'Internal error',
        ...(error.data !== undefined && { data: error.data }),
      },
    });
  }
  return new Response(json, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/**
 * JSON.stringify of a tools/call result whose one text block is the JSON of its structuredContent (what the tool
 * handlers return): that JSON is used as it is rather than made a second time.
 */
export function callResultJson(result: CallToolResult): string {
  const [block] = result.content;
  if (result.content.length !== 1 || block?.type !== 'text' || !('structuredContent' in result)) {
    return JSON.stringify(result);
  }
  const { text } = block;
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${result.isError ? ',"isError":true' : ''}}`;
}
