// MCP 2026-07-28 beside the 2025 revisions on one endpoint: a @modelcontextprotocol/client 2.x client negotiates the
// modern era (server/discover, per-request envelope), SDK 1.x clients keep the 2025 handshake.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionListing } from '../../src/surfaces/connection.ts';
import { mcpCostOf } from '../../src/surfaces/mcp-server.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { isCore, toolsetOf } from '../../src/tools/toolsets.ts';
import {
  BASE,
  createTestRuntime,
  createWorld,
  mcpClient,
  mcpPost,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => {
  await runtime.cleanup();
});

interface Exchange {
  method: string;
  status: number;
  headers: Headers;
  requestHeaders: Headers;
  body: Record<string, unknown>;
}

/** A 2.x client pinned to 2026-07-28, its HTTP in process, every exchange recorded. */
async function modernClient(token: string, query = 'toolsets=all') {
  const exchanges: Exchange[] = [];
  const client = new ModernClient(
    { name: 'modern-test-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new ModernTransport(new URL(`${BASE}/api/mcp/v1?${query}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const sent = (await request.clone().json()) as { method?: string };
      const response = await runtime.app.fetch(request);
      const text = await response.clone().text();
      exchanges.push({
        method: sent.method ?? '',
        status: response.status,
        headers: response.headers,
        requestHeaders: request.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      });
      return response;
    },
  });
  await client.connect(transport);
  return { client, exchanges };
}

const lastOf = (exchanges: Exchange[], method: string) => exchanges.filter((e) => e.method === method).at(-1);

describe('MCP 2026-07-28', () => {
  it('negotiates the modern era with server/discover: no initialize, no session', async () => {
    const { client, exchanges } = await modernClient(world.aliceToken);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(exchanges.map((e) => e.method)).toEqual(['server/discover']);
    const discover = client.getDiscoverResult();
    expect(discover?.supportedVersions).toContain('2026-07-28');
    expect(discover?.capabilities).toEqual({
      tools: { listChanged: false },
      resources: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/ui': {} },
    });
    const result = exchanges[0]?.body.result as { _meta: Record<string, { name: string }> };
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'compliance-mcp' });
    expect(discover?.instructions).toMatch(/^Compliance registers/);
    expect(exchanges[0]?.headers.get('mcp-session-id')).toBeNull();
    await client.close();
  });

  it('lists the tools of the connection (token and toolsets), cacheable privately', async () => {
    const { client, exchanges } = await modernClient(world.aliceReadToken, 'toolsets=risks');
    const { tools } = await client.listTools();
    const expected = [...TOOLS.values()]
      .filter((tool) => tool.scope === 'read' && (isCore(tool) || toolsetOf(tool) === 'risks'))
      .map((tool) => tool.name)
      .sort();
    expect(expected.length).toBeGreaterThan(3);
    expect(tools.map((tool) => tool.name).sort()).toEqual(expected);
    const listRisks = tools.find((tool) => tool.name === 'listRisks');
    expect(listRisks?.inputSchema.type).toBe('object');
    expect(listRisks?.outputSchema).toBeDefined();

    const list = lastOf(exchanges, 'tools/list');
    expect(list?.requestHeaders.get('mcp-method')).toBe('tools/list');
    // One JSON answer, not a stream: no handler sends anything before its result.
    expect(list?.headers.get('content-type')).toBe('application/json');
    const result = list?.body.result as { ttlMs: number; cacheScope: string };
    expect(result.ttlMs).toBe(300_000);
    expect(result.cacheScope).toBe('private');

    // The same list as a 2025 client of the same connection gets.
    const legacy = await runtime.app.fetch(
      new Request(`${BASE}/api/mcp/v1?toolsets=risks`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${world.aliceReadToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    );
    const legacyBody = (await legacy.json()) as { result: Record<string, unknown> };
    expect(legacyBody.result).not.toHaveProperty('ttlMs');
    expect((legacyBody.result.tools as { name: string }[]).map((tool) => tool.name).sort()).toEqual(expected);
    await client.close();
  });

  it('calls tools: structuredContent on success, an isError result for bad arguments', async () => {
    const { client } = await modernClient(world.aliceToken);
    const added = await client.callTool({
      name: 'addRisk',
      arguments: {
        organization_id: world.orgA,
        name: 'Modern era risk',
        inherent_likelihood: 3,
        inherent_impact: 4,
      },
    });
    expect(added.isError).toBeFalsy();
    const { risk } = added.structuredContent as {
      risk: { id: string; name: string; organization_id: string };
    };
    expect(risk.id).toMatch(/^rsk_/);
    expect(risk.name).toBe('Modern era risk');
    expect(risk.organization_id).toBe(world.orgA);
    expect(JSON.parse((added.content as { text: string }[])[0]?.text ?? '')).toEqual({ risk, warnings: [] });

    const read = await client.callTool({
      name: 'getRisk',
      arguments: { id: risk.id },
    });
    expect((read.structuredContent as { risk: { name: string } }).risk.name).toBe('Modern era risk');

    const bad = await client.callTool({
      name: 'listRisks',
      arguments: { organization_id: world.orgA, filter: { status: 'NOT_A_STATUS' } },
    });
    expect(bad.isError).toBe(true);
    const error = (bad.structuredContent as { error: { code: string; details: { path: string }[] } }).error;
    expect(error.code).toBe('invalid_arguments');
    expect(error.details[0]?.path).toBe('filter.status');

    const foreign = await client.callTool({ name: 'listRisks', arguments: { organization_id: world.orgB } });
    expect(foreign.isError).toBe(true);
    expect((foreign.structuredContent as { error: { code: string } }).error.code).toBe('not_found');
    await client.close();
  });

  it('answers an unknown tool, or one outside the connection, with one JSON-RPC invalid-params error', async () => {
    const { client, exchanges } = await modernClient(world.aliceReadToken);
    await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(
      /Unknown tool: noSuchTool\. Call tools\/list/,
    );
    const unknown = lastOf(exchanges, 'tools/call')?.body.error as { code: number; message: string };
    expect(unknown).toEqual({
      code: -32602,
      message: 'Unknown tool: noSuchTool. Call tools/list for the tool names.',
    });
    await expect(
      client.callTool({ name: 'addRisk', arguments: { organization_id: world.orgA, name: 'x' } }),
    ).rejects.toThrow(/Unknown tool: addRisk is not available on this connection/);
    await client.close();
  });

  it('keeps the endpoint checks: no token is 401, a foreign Origin 403, bad toolsets 400', async () => {
    const discover = {
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        },
      },
    };
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
    expect((await mcpPost(runtime, headers, discover)).status).toBe(401);
    const auth = { ...headers, authorization: `Bearer ${world.aliceToken}` };
    expect((await mcpPost(runtime, { ...auth, origin: 'https://evil.example' }, discover)).status).toBe(403);
    const ok = await mcpPost(runtime, auth, discover);
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { result: { supportedVersions: string[] } };
    expect(body.result.supportedVersions).toContain('2026-07-28');
    const badToolsets = await runtime.app.request(`${BASE}/api/mcp/v1?toolsets=nope`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(discover),
    });
    expect(badToolsets.status).toBe(400);
  });
});

describe('2025 revisions beside it', () => {
  it('serves an SDK 1.x client at 2025-11-25 as before', async () => {
    const client = await mcpClient(runtime, world.aliceToken);
    expect(client.getServerVersion()?.name).toBe('compliance-mcp');
    const { tools } = await client.listTools();
    const listing = connectionListing(
      TOOLS.values(),
      { toolsets: 'all', readonly: false },
      'read_write',
      mcpCostOf,
    );
    expect(tools.map((tool) => tool.name)).toEqual(listing.tools.map((tool) => tool.name));
    const result = await client.callTool({ name: 'listOrganizations', arguments: {} });
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it('serves the 2025-03-26 handshake and a 2025-03-26 tools/call', async () => {
    const auth = { authorization: `Bearer ${world.aliceToken}` };
    const init = await mcpPost(runtime, auth, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const initBody = (await init.json()) as { result: { protocolVersion: string } };
    expect(initBody.result.protocolVersion).toBe('2025-03-26');
    const call = await mcpPost(
      runtime,
      { ...auth, 'mcp-protocol-version': '2025-03-26' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'listOrganizations', arguments: {} } },
    );
    const body = (await call.json()) as {
      result: { structuredContent: { organizations: { id: string }[] } };
    };
    expect(body.result.structuredContent.organizations.map((org) => org.id)).toEqual([world.orgA]);
  });
});
