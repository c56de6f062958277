// The contract's view of a host (Node app in process, or the Worker entry in workerd): a fetch and a seeded world.
// Host-neutral: no Node built-ins and no Workers APIs, so both hosts run this very code.
import { expect } from 'vitest';

export const BASE = 'http://127.0.0.1:8787';

/** Users, organizations and tokens seeded before the run (test/contract/seed.node.ts). Each concern has its own org. */
export interface ContractWorld {
  /** Alice (OWNER): every tool on every surface. */
  orgTools: string;
  /** Alice (OWNER): records Bob must not reach. */
  orgIsolation: string;
  /** Alice (OWNER): vendors to page through. */
  orgPaging: string;
  /** Alice (OWNER), Vic (VIEWER): scope and role checks. */
  orgAuth: string;
  /** Bob (OWNER): his only organization. */
  orgBob: string;
  /** Alice's user id, for host tests that create and revoke tokens of their own. */
  aliceUserId: string;
  tokens: {
    alice: string;
    /** Alice's token for the pagination suite: the tools suite spends most of \`alice\`'s calls per minute. */
    alicePaging: string;
    aliceRead: string;
    /** Alice's token restricted to orgAuth. */
    aliceRestricted: string;
    bob: string;
    vic: string;
    expired: string;
    revoked: string;
  };
}

export interface ContractHost {
  fetch(request: Request): Promise<Response>;
  world: ContractWorld;
}

/** What a call needs of a host: its fetch. */
export type Fetcher = Pick<ContractHost, 'fetch'>;

/** The host is built in a beforeAll (Node) or from injected values (Worker): the contract asks for it lazily. */
export type HostRef = () => ContractHost;

export interface DirectResult {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

export type ErrorBody = {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
};

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function send(host: Fetcher, path: string, init: RequestInit = {}): Promise<Response> {
  return host.fetch(new Request(`${BASE}${path}`, init));
}

/** POST /api/mcp/tools/<tool>, or /api/mcp/<tool> with `variant: 'short'`. */
export async function callDirect(
  host: Fetcher,
  token: string | null,
  tool: string,
  args: unknown = {},
  variant: 'tools' | 'short' = 'tools',
): Promise<DirectResult> {
  const path = variant === 'tools' ? `/api/mcp/tools/${tool}` : `/api/mcp/${tool}`;
  const response = await send(host, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : bearer(token)) },
    body: JSON.stringify(args),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** Calls a tool directly and fails unless it answered 200. */
export async function ok<T = Record<string, unknown>>(
  host: Fetcher,
  token: string,
  tool: string,
  args: unknown = {},
): Promise<T> {
  const result = await callDirect(host, token, tool, args);
  if (result.status !== 200)
    throw new Error(`${tool} answered ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body as T;
}

export function errorOf(result: DirectResult): ErrorBody['error'] {
  return (result.body as ErrorBody).error;
}

/** One JSON-RPC message to the MCP endpoint (stateless: no initialize needed). */
export function mcpPost(
  host: ContractHost,
  headers: Record<string, string>,
  message: unknown,
): Promise<Response> {
  return send(host, '/api/mcp/v1?toolsets=all', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

export interface McpToolResult {
  isError?: boolean;
  structuredContent: Record<string, unknown>;
  content: { type: string; text: string }[];
}

let rpcId = 0;

/** tools/call over MCP; fails unless the HTTP answer is a JSON-RPC result. */
export async function mcpCallTool(
  host: ContractHost,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<McpToolResult> {
  rpcId += 1;
  const response = await mcpPost(host, bearer(token), {
    jsonrpc: '2.0',
    id: rpcId,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  expect(response.status, name).toBe(200);
  const body = (await response.json()) as { id: number; result?: McpToolResult; error?: unknown };
  expect(body.id).toBe(rpcId);
  if (!body.result) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(body.error)}`);
  return body.result;
}
