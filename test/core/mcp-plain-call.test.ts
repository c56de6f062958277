// A plain 2025-era tools/call is answered by the MCP surface itself, without building SDK 1.x's server and transport
// for it. This holds that answer to the SDK's: the same requests sent to a surface that routes everything through
// the SDKs (sdkOnly) get the same status, Content-Type and body, byte for byte, and the SDK's own client reads them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { createRateLimiter, type RateLimiter } from '../../src/rate-limit.ts';
import { callResultJson, createMcpSurface, type McpSurface } from '../../src/surfaces/mcp.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let principal: Principal;
let fast: McpSurface;
let sdk: McpSurface;
let riskId: string;

function surface(sdkOnly: boolean, rateLimiter: RateLimiter = createRateLimiter(0)): McpSurface {
  return createMcpSurface({
    tools: TOOLS,
    invoke: {
      db: runtime.database.db,
      usage: runtime.usage,
      now: () => new Date(),
      rateLimiter,
      logError: () => {},
    },
    serverName: 'compliance-mcp',
    version: 'test',
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    sdkOnly,
  });
}

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  const auth = await runtime.tokens.authenticate(world.aliceToken);
  if (!auth.ok) throw new Error('no principal');
  principal = auth.principal;
  fast = surface(false);
  sdk = surface(true);
  for (const name of ['Ransomware on the "file" server', 'Laptop theft \u2014 ünïcode \\ backslash']) {
    const added = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name,
      description: 'Line one\nline two\ttabbed',
      inherent_likelihood: 3,
      inherent_impact: 4,
    });
    riskId = added.risk.id;
  }
});

afterAll(async () => {
  await runtime?.cleanup();
});

const call = (name: string, args?: unknown, id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

interface Case {
  name: string;
  /** false: not a plain call, so the SDK answers it on both surfaces. */
  plain?: false;
  body: () => unknown;
  headers?: Record<string, string>;
  query?: string;
}

const CASES: Case[] = [
  { name: 'a list', body: () => call('listRisks', { organization_id: world.orgA }) },
  { name: 'a get, string id', body: () => call('getRisk', { id: riskId }, 'req-7') },
  { name: 'id 0', body: () => call('listOrganizations', {}, 0) },
  { name: 'no arguments', body: () => call('listOrganizations') },
  { name: 'a failed call (not found)', body: () => call('getRisk', { id: `rsk_${'z'.repeat(24)}` }) },
  { name: 'invalid arguments', body: () => call('listRisks', { organization_id: world.orgA, size: 0 }) },
  { name: 'an unknown tool', body: () => call('noSuchTool', {}) },
  { name: 'another organization', body: () => call('listRisks', { organization_id: world.orgB }) },
  { name: 'a write', body: () => call('updateRisk', { id: riskId, note: 'checked "twice"' }, 9) },
  {
    name: 'a tool outside the toolsets asked for',
    body: () => call('listVendors', { organization_id: world.orgA }),
    query: '?toolsets=risks',
  },
  {
    name: 'a write on a read-only connection',
    body: () => call('deleteRisk', { id: riskId }),
    query: '?readonly=true',
  },
  ...['2025-11-25', '2025-06-18', '2025-03-26'].map((version) => ({
    name: `MCP-Protocol-Version ${version}`,
    body: () => call('listOrganizations', {}),
    headers: { 'mcp-protocol-version': version },
  })),
  {
    name: 'Content-Type with a charset',
    body: () => call('listOrganizations', {}),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  },
  {
    name: 'Accept: application/json only',
    body: () => call('listOrganizations', {}),
    headers: { accept: 'application/json' },
  },
  {
    // SDK 1.x in stateless mode ignores a session id: so does the plain answer.
    name: 'an Mcp-Session-Id header',
    body: () => call('listOrganizations', {}),
    headers: { 'mcp-session-id': 'a-session-this-server-never-gave' },
  },
  // Not plain: answered by the SDK on both surfaces, listed to show they still are.
  {
    name: 'Content-Type text/plain',
    plain: false,
    body: () => call('listOrganizations', {}),
    headers: { 'content-type': 'text/plain' },
  },
  {
    name: 'an unsupported MCP-Protocol-Version',
    plain: false,
    body: () => call('listOrganizations', {}),
    headers: { 'mcp-protocol-version': '1999-01-01' },
  },
  { name: 'arguments not an object', plain: false, body: () => call('listOrganizations', [1]) },
  {
    name: 'params with task',
    plain: false,
    body: () => ({
      ...call('listOrganizations', {}),
      params: { name: 'listOrganizations', arguments: {}, task: { ttl: 60_000 } },
    }),
  },
  {
    name: 'params with _meta',
    plain: false,
    body: () => ({
      ...call('listOrganizations', {}),
      params: { name: 'listOrganizations', _meta: { progressToken: 1 } },
    }),
  },
];

async function answer(target: McpSurface, item: Case) {
  const request = new Request(`http://127.0.0.1/api/mcp/v1${item.query ?? ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...item.headers,
    },
    body: JSON.stringify(item.body()),
  });
  const response = await target.handle(request, principal, 'req');
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    headers: [...response.headers.keys()].sort(),
    body: await response.text(),
  };
}

/** Calls of SDK 1.x's transport: the plain answer never makes one. */
const transportCalls = () => vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('plain tools/call, answered without the SDK', () => {
  for (const item of CASES) {
    it(`answers ${item.name} as the SDK does`, async () => {
      const calls = transportCalls();
      // The write case changes the record: each surface gets it once, the SDK first, the same change.
      const bySdk = await answer(sdk, item);
      expect(calls).toHaveBeenCalledTimes(1);
      const byFast = await answer(fast, item);
      // A plain call is answered by the surface itself; anything else goes through the SDK as before.
      expect(calls).toHaveBeenCalledTimes(item.plain === false ? 2 : 1);
      if (item.name === 'a write') {
        // updated_at differs between the two writes; the rest is the same.
        const strip = (body: string) => body.replaceAll(/"updated_at\\?":\\?"[^"\\]*\\?"/g, '');
        expect({ ...byFast, body: strip(byFast.body) }).toEqual({ ...bySdk, body: strip(bySdk.body) });
      } else {
        expect(byFast).toEqual(bySdk);
      }
      expect(bySdk.body.length).toBeGreaterThan(20);
    });
  }

  it('answers a rate-limited call as the SDK does', async () => {
    const limited: RateLimiter = { take: () => 17 };
    const calls = transportCalls();
    const item: Case = {
      name: 'rate limited',
      body: () => call('listRisks', { organization_id: world.orgA }),
    };
    const bySdk = await answer(surface(true, limited), item);
    const byFast = await answer(surface(false, limited), item);
    expect(calls).toHaveBeenCalledTimes(1);
    expect(byFast).toEqual(bySdk);
    const parsed = JSON.parse(byFast.body) as { result: { isError: boolean; structuredContent: unknown } };
    expect(parsed.result.isError).toBe(true);
    expect(JSON.stringify(parsed.result.structuredContent)).toContain('rate_limited');
    expect(JSON.stringify(parsed.result.structuredContent)).toContain('17');
  });

  it('writes a result as JSON.stringify does, its structured JSON reused', () => {
    const structured = {
      risks: [{ id: 'rsk_1', name: 'a "quoted" \\ name\n', score: 12, owner: null }],
      n: 1,
    };
    const text = JSON.stringify(structured);
    const result = { content: [{ type: 'text' as const, text }], structuredContent: structured };
    expect(callResultJson(result)).toBe(JSON.stringify(result));
    const failed = { ...result, isError: true };
    expect(callResultJson(failed)).toBe(JSON.stringify(failed));
    // Any other shape is serialized whole.
    const two = {
      content: [
        { type: 'text' as const, text },
        { type: 'text' as const, text: 'x' },
      ],
    };
    expect(callResultJson(two)).toBe(JSON.stringify(two));
  });

  it('is read by the SDK client over the app, results and errors alike', async () => {
    const client = new Client({ name: 'plain-call-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/api/mcp/v1'), {
        fetch: async (url, init) => runtime.app.fetch(new Request(url, init)),
        requestInit: { headers: { authorization: `Bearer ${world.aliceToken}` } },
      }),
    );
    try {
      const listed = await client.callTool({ name: 'listRisks', arguments: { organization_id: world.orgA } });
      const risks = (listed.structuredContent as { risks: { name: string }[] }).risks;
      expect(risks.map((risk) => risk.name).sort()).toEqual([
        'Laptop theft \u2014 ünïcode \\ backslash',
        'Ransomware on the "file" server',
      ]);
      expect(JSON.parse((listed.content as { text: string }[])[0]?.text ?? '')).toEqual(
        listed.structuredContent,
      );
      const failed = await client.callTool({ name: 'getRisk', arguments: { id: `rsk_${'z'.repeat(24)}` } });
      expect(failed.isError).toBe(true);
      expect((failed.structuredContent as { error: { code: string } }).error.code).toBe('not_found');
      await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(
        /Unknown tool: noSuchTool/,
      );
    } finally {
      await client.close();
    }
  });
});
