// The MCP endpoint's quick era check (plainlyLegacy) against the SDK's own (isLegacyRequest): whatever the quick check
// calls 2025-era traffic, the SDK routes as 2025-era traffic too; everything else is left to the SDK.
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { plainlyLegacy } from '../../src/surfaces/mcp.ts';

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
  /** What plainlyLegacy answers. */
  plain: boolean;
  /** What isLegacyRequest answers. */
  legacy: boolean;
}

const CASES: Case[] = [
  { name: 'tools/call', body: call, plain: true, legacy: true },
  ...['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].map((version) => ({
    name: `tools/call with MCP-Protocol-Version ${version}`,
    body: call,
    headers: { 'mcp-protocol-version': version },
    plain: true,
    legacy: true,
  })),
  { name: 'string id', body: { ...call, id: 'a-1' }, plain: true, legacy: true },
  { name: 'id 0', body: { ...call, id: 0 }, plain: true, legacy: true },
  { name: 'negative id', body: { ...call, id: -5 }, plain: true, legacy: true },
  {
    name: 'tools/list without params',
    body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    plain: true,
    legacy: true,
  },
  {
    name: 'empty params',
    body: { jsonrpc: '2.0', id: 2, method: 'ping', params: {} },
    plain: true,
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
    plain: true,
    legacy: true,
  },
  // Left to the SDK: legacy for it, but not told in a few comparisons.
  {
    name: '_meta with a progress token',
    body: { ...call, params: { ...call.params, _meta: { progressToken: 1 } } },
    plain: false,
    legacy: true,
  },
  {
    name: 'notification',
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    plain: false,
    legacy: true,
  },
  { name: 'posted response', body: { jsonrpc: '2.0', id: 1, result: {} }, plain: false, legacy: true },
  { name: 'batch', body: [call], plain: false, legacy: true },
  // Not legacy: the 2026-07-28 handler answers (or rejects) these.
  {
    name: 'envelope claim',
    body: { ...call, params: { ...call.params, _meta: envelope } },
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'listRisks' },
    plain: false,
    legacy: false,
  },
  {
    name: 'envelope claim, no headers',
    body: { ...call, params: { ...call.params, _meta: envelope } },
    plain: false,
    legacy: false,
  },
  {
    name: 'modern MCP-Protocol-Version header without an envelope',
    body: call,
    headers: { 'mcp-protocol-version': '2026-07-28' },
    plain: false,
    legacy: false,
  },
  {
    name: 'unknown future revision in the header',
    body: call,
    headers: { 'mcp-protocol-version': '2030-01-01' },
    plain: false,
    legacy: false,
  },
  { name: 'extra member', body: { ...call, extra: 1 }, plain: false, legacy: false },
  { name: 'fractional id', body: { ...call, id: 1.5 }, plain: false, legacy: false },
  { name: 'null id', body: { ...call, id: null }, plain: false, legacy: false },
  { name: 'jsonrpc 1.0', body: { ...call, jsonrpc: '1.0' }, plain: false, legacy: false },
  { name: 'method not a string', body: { ...call, method: 5 }, plain: false, legacy: false },
  { name: 'params an array', body: { ...call, params: [1] }, plain: false, legacy: false },
  { name: 'not JSON-RPC', body: { foo: 1 }, plain: false, legacy: false },
  { name: 'null body', body: null, plain: false, legacy: false },
];

describe('plainlyLegacy', () => {
  it.each(CASES)('$name', async ({ body, headers = {}, plain, legacy }) => {
    const request = new Request('http://127.0.0.1/api/mcp/v1', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    expect(plainlyLegacy(request.headers, body)).toBe(plain);
    expect(await isLegacyRequest(request, body)).toBe(legacy);
    // The property the endpoint relies on: the quick check never calls legacy what the SDK would not.
    if (plainlyLegacy(request.headers, body)) expect(await isLegacyRequest(request, body)).toBe(true);
  });
});
