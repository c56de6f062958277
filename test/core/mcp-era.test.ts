// Which era serves a request: the SDK's own check (isLegacyRequest) decides, and the endpoint follows it: 2025-era
// traffic to the Server over the web-standard transport, the rest to the 2026-07-28 handler.
import { isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { plainToolsCall } from '../../src/surfaces/mcp-fast-path.ts';
import { createTestRuntime, createWorld, mcpPost, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  // Without the fast path, every 2025-era request goes through the transport, which shows the era it was given.
  runtime = await createTestRuntime({ env: { MCP_FAST_PATH: 'false' } });
  world = await createWorld(runtime);
});

afterAll(async () => {
  await runtime.cleanup();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const CLAIM = 'io.modelcontextprotocol/protocolVersion';
const envelope = {
  [CLAIM]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listRisks', arguments: {} } };

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  /** What isLegacyRequest answers, and so which era serves it. */
  legacy: boolean;
}

const CASES: Case[] = [
  { name: 'tools/call', body: call, legacy: true },
  ...['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].map((version) => ({
    name: `tools/call with MCP-Protocol-Version ${version}`,
    body: call,
    headers: { 'mcp-protocol-version': version },
    legacy: true,
  })),
  { name: 'string id', body: { ...call, id: 'a-1' }, legacy: true },
  { name: 'id 0', body: { ...call, id: 0 }, legacy: true },
  { name: 'negative id', body: { ...call, id: -5 }, legacy: true },
  {
    name: 'tools/list without params',
    body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    legacy: true,
  },
  {
    name: 'empty params',
    body: { jsonrpc: '2.0', id: 2, method: 'ping', params: {} },
    legacy: true,
  },
  {
    name: 'initialize',
    body: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
    legacy: true,
  },
  // Legacy too: _meta without the envelope claim, notifications, posted responses, batches.
  {
    name: '_meta with a progress token',
    body: { ...call, params: { ...call.params, _meta: { progressToken: 1 } } },
    legacy: true,
  },
  {
    name: 'notification',
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    legacy: true,
  },
  { name: 'posted response', body: { jsonrpc: '2.0', id: 1, result: {} }, legacy: true },
  { name: 'batch', body: [call], legacy: true },
  // Not legacy: the 2026-07-28 handler answers (or rejects) these.
  {
    name: 'envelope claim',
    body: { ...call, params: { ...call.params, _meta: envelope } },
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'listRisks' },
    legacy: false,
  },
  {
    name: 'envelope claim, no headers',
    body: { ...call, params: { ...call.params, _meta: envelope } },
    legacy: false,
  },
  {
    name: 'modern MCP-Protocol-Version header without an envelope',
    body: call,
    headers: { 'mcp-protocol-version': '2026-07-28' },
    legacy: false,
  },
  {
    name: 'unknown future revision in the header',
    body: call,
    headers: { 'mcp-protocol-version': '2030-01-01' },
    legacy: false,
  },
  { name: 'extra member', body: { ...call, extra: 1 }, legacy: false },
  { name: 'fractional id', body: { ...call, id: 1.5 }, legacy: false },
  { name: 'null id', body: { ...call, id: null }, legacy: false },
  { name: 'jsonrpc 1.0', body: { ...call, jsonrpc: '1.0' }, legacy: false },
  { name: 'method not a string', body: { ...call, method: 5 }, legacy: false },
  { name: 'params an array', body: { ...call, params: [1] }, legacy: false },
  { name: 'not JSON-RPC', body: { foo: 1 }, legacy: false },
  { name: 'null body', body: null, legacy: false },
];

describe('the era of a request', () => {
  it('has cases the fast path answers', () => {
    const plain = CASES.filter(({ body, headers = {} }) => {
      const request = new Request('http://127.0.0.1/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
      });
      return plainToolsCall(request, body) !== null;
    });
    expect(plain.map(({ name }) => name)).toEqual([
      'tools/call',
      'tools/call with MCP-Protocol-Version 2025-11-25',
      'tools/call with MCP-Protocol-Version 2025-06-18',
      'tools/call with MCP-Protocol-Version 2025-03-26',
      'tools/call with MCP-Protocol-Version 2024-11-05',
      'string id',
      'id 0',
      'negative id',
    ]);
  });

  it.each(CASES)('$name', async ({ body, headers = {}, legacy }) => {
    const request = new Request('http://127.0.0.1/api/mcp/v1', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    expect(await isLegacyRequest(request, body)).toBe(legacy);
    // The fast path, which answers before isLegacyRequest is asked, takes only requests the SDK calls 2025-era.
    if (plainToolsCall(request, body) !== null) expect(legacy).toBe(true);
    // The 2026-07-28 handler never builds this transport: it is called for 2025-era traffic only.
    const legacyTransport = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const response = await mcpPost(
      runtime,
      { authorization: `Bearer ${world.aliceToken}`, ...headers },
      body,
    );
    expect(response.status).toBeLessThan(500);
    expect(legacyTransport).toHaveBeenCalledTimes(legacy ? 1 : 0);
  });
});
