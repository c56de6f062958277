// Toolsets: what a connection lists and may call, chosen by the token, the URL or headers; the same in OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import { DEFAULT_TOOLSETS, toolsetOf, toolsetsOf } from '../../src/tools/toolsets.ts';
import { BASE, createTestRuntime, createWorld, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => {
  await runtime.cleanup();
});

/** One JSON-RPC message to the MCP endpoint at `path` (with its query) and the parsed answer. */
async function rpc(token: string, path: string, message: unknown, headers: Record<string, string> = {}) {
  const response = await runtime.app.request(`${BASE}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function listedNames(token: string, path: string, headers: Record<string, string> = {}) {
  const { body } = await rpc(token, path, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
  return (body.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

const names = (predicate: (tool: typeof TOOLS extends ReadonlyMap<string, infer T> ? T : never) => boolean) =>
  [...TOOLS.values()].filter(predicate).map((tool) => tool.name);

describe('toolsets as data', () => {
  it('puts every tool of the map in a toolset', () => {
    expect([...TOOLS.values()].filter((tool) => !toolsetOf(tool)).map((tool) => tool.name)).toEqual([]);
  });

  it('has a core toolset, one per register and history, with these counts', () => {
    const counts = Object.fromEntries(
      [...toolsetsOf(TOOLS.values())].map(([name, tools]) => [name, tools.length]),
    );
    expect(counts).toEqual({
      core: 6,
      vendors: 5,
      risks: 7,
      measures: 5,
      obligations: 5,
      people: 5,
      frameworks: 15,
      assets: 5,
      data_classifications: 5,
      nonconformities: 5,
      continual_improvements: 5,
      audits: 5,
      documents: 8,
      evidence: 5,
      import: 1,
      history: 1,
      tasks: 5,
    });
  });
});

describe('tools/list per connection', () => {
  it('lists the default toolsets without ?toolsets=: under 40 tools, organizations and summary included', async () => {
    const listed = await listedNames(world.aliceToken, '/api/mcp/v1');
    expect(listed).toEqual(names((tool) => DEFAULT_TOOLSETS.includes(toolsetOf(tool) ?? '')));
    expect(listed.length).toBe(38);
    expect(listed).toEqual(expect.arrayContaining(['listOrganizations', 'getComplianceSummary', 'addRisk']));
  });

  it('lists every tool with ?toolsets=all', async () => {
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=all')).toEqual([...TOOLS.keys()]);
  });

  it('lists core plus the asked toolsets, by query or by header', async () => {
    const expected = names((tool) => ['core', 'risks', 'vendors'].includes(toolsetOf(tool) ?? ''));
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=risks,vendors')).toEqual(expected);
    expect(
      await listedNames(world.aliceToken, '/api/mcp/v1', { 'x-mcp-toolsets': 'risks, vendors' }),
    ).toEqual(expected);
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=data-classifications')).toContain(
      'addDataClassification',
    );
  });

  it('lists only read tools to a read token, whatever the request asks', async () => {
    const listed = await listedNames(world.aliceReadToken, '/api/mcp/v1?toolsets=all&readonly=false');
    expect(listed).toEqual(names((tool) => tool.scope === 'read'));
    expect(listed).toHaveLength(40);
  });

  it('narrows a read_write token to read tools with readonly=true or X-MCP-Readonly', async () => {
    const expected = names((tool) => tool.scope === 'read' && toolsetOf(tool) !== undefined);
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=all&readonly=true')).toEqual(expected);
    expect(
      await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=all', { 'x-mcp-readonly': 'true' }),
    ).toEqual(expected);
  });

  it('answers an unknown toolset name with 400 naming the known ones', async () => {
    const { status, body } = await rpc(world.aliceToken, '/api/mcp/v1?toolsets=risks,unicorns', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
    });
    expect(status).toBe(400);
    expect((body.error as { code: number; message: string }).code).toBe(-32602);
    expect((body.error as { message: string }).message).toContain(
      'Unknown toolsets: unicorns. Known: all, default, core',
    );
  });
});

describe('calling a tool the connection does not list', () => {
  const call = (token: string, path: string, name: string, args: unknown) =>
    rpc(token, path, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });

  it('is an unknown tool naming the toolset and how to get it', async () => {
    const { body } = await call(world.aliceToken, '/api/mcp/v1?toolsets=risks', 'listVendors', {
      organization_id: world.orgA,
    });
    expect(body.error).toEqual({
      code: -32602,
      message:
        'Unknown tool: listVendors is not available on this connection: it is in the toolset "vendors", not among this connection\'s (core, risks); connect with ?toolsets=vendors or ?toolsets=all.',
    });
  });

  it('is an unknown tool for a write tool on a read token or a read-only connection, and nothing is written', async () => {
    const byToken = await call(world.aliceReadToken, '/api/mcp/v1?toolsets=all', 'addVendor', {
      organization_id: world.orgA,
      name: 'Read token vendor',
    });
    expect((byToken.body.error as { message: string }).message).toBe(
      'Unknown tool: addVendor is not available on this connection: this API token is read-only (scope "read").',
    );
    const byMode = await call(world.aliceToken, '/api/mcp/v1?readonly=1', 'addVendor', {
      organization_id: world.orgA,
      name: 'Read-only mode vendor',
    });
    expect((byMode.body.error as { message: string }).message).toContain('this connection is read-only');
    const { body } = await call(world.aliceToken, '/api/mcp/v1', 'listVendors', {
      organization_id: world.orgA,
    });
    expect(
      (body.result as { structuredContent: { total_count: number } }).structuredContent.total_count,
    ).toBe(0);
  });
});

describe('OpenAPI mirrors the toolsets', () => {
  async function operations(query: string) {
    const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json${query}`);
    return { status: response.status, body: (await response.json()) as { paths?: Record<string, unknown> } };
  }

  it('lists every tool without a selection, and the chosen toolsets (core included) with ?toolsets=', async () => {
    expect(Object.keys((await operations('')).body.paths ?? {})).toHaveLength(TOOLS.size);
    const chosen = Object.keys((await operations('?toolsets=risks')).body.paths ?? {});
    expect(chosen).toEqual(
      names((tool) => ['core', 'risks'].includes(toolsetOf(tool) ?? '')).map(
        (name) => `/api/mcp/tools/${name}`,
      ),
    );
  });

  it('narrows to read tools with ?readonly=true and combines with ?tools=', async () => {
    const readOnly = Object.keys((await operations('?toolsets=risks&readonly=true')).body.paths ?? {});
    expect(readOnly).toEqual([
      '/api/mcp/tools/listOrganizations',
      '/api/mcp/tools/getOrganization',
      '/api/mcp/tools/listMembers',
      '/api/mcp/tools/listRisks',
      '/api/mcp/tools/getRisk',
      '/api/mcp/tools/getComplianceSummary',
      '/api/mcp/tools/myWork',
    ]);
    const both = Object.keys(
      (await operations('?toolsets=risks&tools=listRisks,listVendors')).body.paths ?? {},
    );
    expect(both).toEqual(['/api/mcp/tools/listRisks']);
  });

  it('refuses an unknown toolset with 400 invalid_arguments', async () => {
    const { status } = await operations('?toolsets=unicorns');
    expect(status).toBe(400);
  });
});
