// Toolsets: what a connection lists and may call, chosen by the token, the URL or headers; the same in OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionListing, TOOL_TOKEN_BUDGETS } from '../../src/surfaces/connection.ts';
import { mcpCostOf } from '../../src/surfaces/mcp-server.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { DEFAULT_TOOLSETS, isCore, toolsetOf, toolsetsOf } from '../../src/tools/toolsets.ts';
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
      core: 10,
      access_reviews: 10,
      vendors: 5,
      // Risks (5) and their measure links (2).
      risks: 7,
      risk_acceptances: 5,
      vendor_assessments: 5,
      measures: 5,
      control_tests: 5,
      obligations: 5,
      people: 5,
      // With publishStatementOfApplicability.
      frameworks: 16,
      assets: 5,
      data_classifications: 5,
      nonconformities: 5,
      continual_improvements: 5,
      audits: 5,
      // getAuditProgramme, recordAuditChecklistResult, listAuditChecklist.
      audit_programme: 3,
      // With publishRiskRegister and publishRiskTreatmentPlan.
      documents: 15,
      evidence: 5,
      import: 1,
      // listChanges and getRiskHeatMap (reads as of a date).
      history: 2,
      tasks: 6,
      settings: 2,
      incidents: 15,
      privacy: 15,
      catalogs: 6,
      // With gatherManagementReviewInputs.
      management_reviews: 6,
      // Templates (5) and questionnaires sent (5).
      vendor_questionnaires: 10,
      // Settings, what is shown, access requests.
      trust_page: 5,
      // listProposals, getProposal, proposeWrite.
      proposals: 3,
    });
  });
});

/** What connectionListing lists for a selection, as names. */
function expectedListing(
  toolsets: ReadonlySet<string> | 'all',
  readonly = false,
  scope: 'read' | 'read_write' = 'read_write',
) {
  return connectionListing(TOOLS.values(), { toolsets, readonly }, scope, mcpCostOf);
}

describe('tools/list per connection', () => {
  it('lists the core alone at the bare URL: organizations, summary, my work, people, findRecords, discovery', async () => {
    const listed = await listedNames(world.aliceToken, '/api/mcp/v1');
    expect(listed).toEqual(names(isCore));
    expect(listed).toEqual([
      'listOrganizations',
      'getOrganization',
      'findRecords',
      'findTools',
      'callReadTool',
      'callWriteTool',
      'callDestructiveTool',
      'listMembers',
      'listPeople',
      'getPerson',
      'getComplianceSummary',
      'myWork',
    ]);
  });

  it('lists the core and then whole toolsets, the default ones first, within the budget with ?toolsets=all', async () => {
    const listing = expectedListing('all');
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=all')).toEqual(
      listing.tools.map((tool) => tool.name),
    );
    expect(listing.toolsets.slice(0, DEFAULT_TOOLSETS.length)).toEqual(DEFAULT_TOOLSETS);
    expect(listing.tokens).toBeLessThanOrEqual(TOOL_TOKEN_BUDGETS.selection);
    // What did not fit is named, and stays reachable.
    expect(listing.leftOut.length).toBeGreaterThan(0);
    expect([...listing.toolsets, ...listing.leftOut].sort()).toEqual(
      [...toolsetsOf(TOOLS.values()).keys()].filter((name) => name !== 'core').sort(),
    );
  });

  it('lists core plus the asked toolsets, by query or by header', async () => {
    const expected = names((tool) => isCore(tool) || ['risks', 'vendors'].includes(toolsetOf(tool) ?? ''));
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=risks,vendors')).toEqual(expected);
    expect(
      await listedNames(world.aliceToken, '/api/mcp/v1', { 'x-mcp-toolsets': 'risks, vendors' }),
    ).toEqual(expected);
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=data-classifications')).toContain(
      'addDataClassification',
    );
    expect(await listedNames(world.aliceToken, '/api/mcp/v1?toolsets=default')).toEqual(
      names((tool) => isCore(tool) || DEFAULT_TOOLSETS.includes(toolsetOf(tool) ?? '')),
    );
  });

  it('lists only read tools to a read token, whatever the request asks', async () => {
    const listed = await listedNames(world.aliceReadToken, '/api/mcp/v1?toolsets=all&readonly=false');
    expect(listed).toEqual(expectedListing('all', false, 'read').tools.map((tool) => tool.name));
    expect(listed.filter((name) => TOOLS.get(name)?.scope !== 'read')).toEqual([]);
    expect(listed).not.toContain('callWriteTool');
    expect(listed).toContain('callReadTool');
  });

  it('narrows a read_write token to read tools with readonly=true or X-MCP-Readonly', async () => {
    const expected = expectedListing('all', true).tools.map((tool) => tool.name);
    expect(expected.every((name) => TOOLS.get(name)?.scope === 'read')).toBe(true);
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
  const resultOf = (body: Record<string, unknown>) =>
    body.result as { isError?: boolean; structuredContent: Record<string, unknown> };

  it('answers a tool outside the listed toolsets: toolsets choose what is listed, not what is reachable', async () => {
    const { body } = await call(world.aliceToken, '/api/mcp/v1?toolsets=risks', 'listVendors', {
      organization_id: world.orgA,
    });
    expect(resultOf(body).structuredContent.total_count).toBe(0);
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
    expect(resultOf(body).structuredContent.total_count).toBe(0);
  });

  it('never reaches a write through the call tools on a read-only token or connection', async () => {
    const args = { organization_id: world.orgA, name: 'Smuggled vendor' };
    // callWriteTool itself is a write: unknown on both.
    for (const [token, path] of [
      [world.aliceReadToken, '/api/mcp/v1'],
      [world.aliceToken, '/api/mcp/v1?readonly=true'],
    ] as const) {
      const viaWrite = await call(token, path, 'callWriteTool', { name: 'addVendor', arguments: args });
      expect((viaWrite.body.error as { message: string }).message).toMatch(
        /^Unknown tool: callWriteTool is not available on this connection/,
      );
      // callReadTool runs read tools only: a write named to it is refused as the wrong call tool.
      const viaRead = await call(token, path, 'callReadTool', { name: 'addVendor', arguments: args });
      expect(resultOf(viaRead.body).isError).toBe(true);
      expect(resultOf(viaRead.body).structuredContent.error).toMatchObject({
        code: 'invalid_arguments',
        message:
          'addVendor is a tool that adds or changes records (add*, update*, link*, approvals, imports) without deleting any: run it with callWriteTool.',
      });
    }
    const { body } = await call(world.aliceToken, '/api/mcp/v1', 'listVendors', {
      organization_id: world.orgA,
    });
    expect(resultOf(body).structuredContent.total_count).toBe(0);
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
      names((tool) => isCore(tool) || toolsetOf(tool) === 'risks').map((name) => `/api/mcp/tools/${name}`),
    );
  });

  it('narrows to read tools with ?readonly=true and combines with ?tools=', async () => {
    const readOnly = Object.keys((await operations('?toolsets=risks&readonly=true')).body.paths ?? {});
    expect(readOnly).toEqual(
      [
        'listOrganizations',
        'getOrganization',
        'findRecords',
        'findTools',
        'callReadTool',
        'listMembers',
        'listRisks',
        'getRisk',
        'listPeople',
        'getPerson',
        'getComplianceSummary',
        'myWork',
      ].map((name) => `/api/mcp/tools/${name}`),
    );
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
