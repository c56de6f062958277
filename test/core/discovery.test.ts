// Progressive discovery as clients meet it: what each connection lists, measured in tokens with the real clients (SDK
// 1.x at 2025-11-25, the 2.x client at 2026-07-28, the function definitions), within 8,000 tokens bare and 15,000 for
// any selection, for this map and for one of 200 tools; findTools and the call tools from a bare connection.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/db/schema.ts';
import { connectionListing, estimatedTokens, TOOL_TOKEN_BUDGETS } from '../../src/surfaces/connection.ts';
import { instructionsFor } from '../../src/surfaces/instructions.ts';
import { mcpCostOf } from '../../src/surfaces/mcp-server.ts';
import { CALL_CLASSES } from '../../src/tools/discovery.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { isCore, type ToolSelection, toolsetsOf } from '../../src/tools/toolsets.ts';
import type { Tool } from '../../src/tools/types.ts';
import {
  BASE,
  createTestRuntime,
  createWorld,
  modernMcpClient,
  ok,
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

/** An SDK 1.x client (2025-11-25) at `/api/mcp/v1?<query>`, in process. */
async function sdk1Client(token: string, query: string): Promise<Client> {
  const client = new Client({ name: 'sdk1-discovery', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/api/mcp/v1?${query}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (input, init) => runtime.app.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

/** A 2.x client pinned to 2026-07-28 at `/api/mcp/v1?<query>`, in process. */
function modernClient(token: string, query: string) {
  return modernMcpClient(runtime, token, query, 'modern-discovery');
}

/** Connection types: the bare URL, each toolset, the default and all, read-only, and a read token. */
const TOOLSETS = [...toolsetsOf(TOOLS.values()).keys()].filter((name) => name !== 'core');
const CONNECTIONS: { name: string; query: string; read?: true }[] = [
  { name: 'bare', query: '' },
  ...TOOLSETS.map((toolset) => ({ name: toolset, query: `toolsets=${toolset}` })),
  { name: 'default', query: 'toolsets=default' },
  { name: 'all', query: 'toolsets=all' },
  { name: 'bare, read-only', query: 'readonly=true' },
  { name: 'all, read-only', query: 'toolsets=all&readonly=true' },
  { name: 'bare, read token', query: '', read: true },
  { name: 'all, read token', query: 'toolsets=all', read: true },
];

const budgetOf = (query: string) =>
  query.includes('toolsets=') ? TOOL_TOKEN_BUDGETS.selection : TOOL_TOKEN_BUDGETS.bare;

describe('tokens of tools/list per connection, as the real clients receive it', () => {
  it.each(CONNECTIONS)(
    '$name: SDK 1.x and the 2.x client list the same tools within the budget',
    async (connection) => {
      const token = connection.read ? world.aliceReadToken : world.aliceToken;
      const sdk1 = await sdk1Client(token, connection.query);
      const modern = await modernClient(token, connection.query);
      try {
        const old = await sdk1.listTools();
        const now = await modern.listTools();
        expect(now.tools.map((tool) => tool.name)).toEqual(old.tools.map((tool) => tool.name));
        const tokens = estimatedTokens({ tools: old.tools });
        expect(tokens, connection.name).toBeLessThanOrEqual(budgetOf(connection.query));
        expect(estimatedTokens({ tools: now.tools })).toBeLessThanOrEqual(budgetOf(connection.query));
        // Every connection has the core and the way to the rest.
        const names = old.tools.map((tool) => tool.name);
        expect(names).toEqual(
          expect.arrayContaining(['listOrganizations', 'listPeople', 'findRecords', 'findTools']),
        );
        expect(names.includes('callWriteTool')).toBe(
          !connection.read && !connection.query.includes('readonly'),
        );
        // A title on every tool, at the top level and in the annotations.
        for (const tool of old.tools) {
          expect(tool.title, tool.name).toBe(TOOLS.get(tool.name)?.title);
          expect(tool.annotations?.title, tool.name).toBe(TOOLS.get(tool.name)?.title);
        }
      } finally {
        await sdk1.close();
        await modern.close();
      }
    },
  );

  it('bare: the same tools whichever the token, fewer than a quarter of every tool, reaching them all', async () => {
    const client = await sdk1Client(world.aliceToken, '');
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeLessThan(TOOLS.size / 4);
      const instructions = client.getInstructions() ?? '';
      for (const toolset of TOOLSETS) expect(instructions).toContain(toolset);
    } finally {
      await client.close();
    }
  });
});

describe('tokens of the function definitions per connection', () => {
  it.each(['openai', 'gemini', 'anthropic'])(
    '%s: bare, each toolset, default and all within the budgets',
    async (format) => {
      for (const query of [
        '',
        ...TOOLSETS.map((toolset) => `toolsets=${toolset}`),
        'toolsets=default',
        'toolsets=all',
      ]) {
        const response = await runtime.app.request(
          `${BASE}/api/mcp/functions.json?format=${format}&${query}`,
        );
        expect(response.status).toBe(200);
        const body = (await response.json()) as { tools: unknown[] };
        expect(estimatedTokens(body.tools), `${format} ${query}`).toBeLessThanOrEqual(budgetOf(query));
      }
    },
  );

  it('refuses ?tools= naming more than the budget, saying how to reach them', async () => {
    const response = await runtime.app.request(
      `${BASE}/api/mcp/functions.json?format=anthropic&tools=${[...TOOLS.keys()].join(',')}`,
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_arguments');
    expect(body.error.message).toMatch(/^These tools' definitions are about [\d,]+ tokens, over 15,000/);
  });
});

/** A map of `size` tools: this one's, then copies of its register tools in new toolsets of 7 (as new registers come). */
function grownMap(size: number): Tool[] {
  const tools = [...TOOLS.values()];
  const registerTools = tools.filter((tool) => !isCore(tool) && tool.toolset !== 'core');
  const grown = [...tools];
  for (let index = 0; grown.length < size; index += 1) {
    const model = registerTools[index % registerTools.length] as Tool;
    grown.push({ ...model, name: `${model.name}X${index}`, toolset: `grown_${Math.floor(index / 7)}` });
  }
  return grown;
}

describe('designed for 200 tools', () => {
  const grown = grownMap(200);
  const listing = (selection: ToolSelection) => connectionListing(grown, selection, 'read_write', mcpCostOf);

  it('keeps the bare listing the same tools and tokens, and every selection within 15,000', () => {
    expect(grown).toHaveLength(200);
    const bare = listing({ toolsets: new Set(), readonly: false });
    const today = connectionListing(
      TOOLS.values(),
      { toolsets: new Set(), readonly: false },
      'read_write',
      mcpCostOf,
    );
    expect(bare.tools.map((tool) => tool.name)).toEqual(today.tools.map((tool) => tool.name));
    expect(bare.tokens).toBe(today.tokens);
    expect(bare.tokens).toBeLessThan(TOOL_TOKEN_BUDGETS.bare);
    const all = listing({ toolsets: 'all', readonly: false });
    expect(all.tokens).toBeLessThanOrEqual(TOOL_TOKEN_BUDGETS.selection);
    expect(all.leftOut.length).toBeGreaterThan(10);
    const every = listing({ toolsets: new Set(toolsetsOf(grown).keys()), readonly: false });
    expect(every.tokens).toBeLessThanOrEqual(TOOL_TOKEN_BUDGETS.selection);
    // The instructions name every toolset left out, so the model knows findTools reaches it.
    const instructions = instructionsFor(all);
    for (const toolset of all.leftOut) expect(instructions).toContain(toolset);
  });
});

describe('the call tools', () => {
  it('carry the most dangerous hints of the tools each runs, and every tool but the discovery ones has one', () => {
    const runnable = [...TOOLS.values()].filter((tool) => !tool.dispatch);
    for (const callClass of Object.values(CALL_CLASSES)) {
      const members = runnable.filter((tool) => callClass.admits(tool));
      expect(members.length, callClass.name).toBeGreaterThan(0);
      expect(callClass.annotations, callClass.name).toEqual({
        readOnlyHint: members.every((tool) => tool.annotations.readOnlyHint),
        destructiveHint: members.some((tool) => tool.annotations.destructiveHint),
        idempotentHint: members.every((tool) => tool.annotations.idempotentHint),
        openWorldHint: false,
      });
      expect(TOOLS.get(callClass.name)?.annotations).toEqual(callClass.annotations);
    }
    const classes = runnable.map(
      (tool) => Object.values(CALL_CLASSES).filter((callClass) => callClass.admits(tool)).length,
    );
    expect(classes.every((count) => count === 1)).toBe(true);
  });
});

describe('from a bare connection, as an assistant works', () => {
  it('finds a person and a risk, finds the tool, makes the person the owner; the log and history name updateRisk', async () => {
    const { person } = await ok<{ person: { id: string } }>(runtime, world.aliceToken, 'addPerson', {
      organization_id: world.orgA,
      full_name: 'Dana Scully',
      email: 'dana@example.com',
    });
    const { risk } = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Ransomware on the file servers',
      inherent_likelihood: 4,
      inherent_impact: 5,
    });
    const client = await sdk1Client(world.aliceToken, '');
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      expect(listed).not.toContain('updateRisk');
      const people = await client.callTool({
        name: 'listPeople',
        arguments: { organization_id: world.orgA, filter: { query: 'dana' } },
      });
      expect(
        (people.structuredContent as { people: { id: string }[] }).people.map((item) => item.id),
      ).toEqual([person.id]);
      const found = await client.callTool({
        name: 'findRecords',
        arguments: { organization_id: world.orgA, query: 'ransomware' },
      });
      expect(found.structuredContent).toEqual({
        matches: [
          {
            kind: 'risk',
            get_tool: 'getRisk',
            total_count: 1,
            records: [{ id: risk.id, name: 'Ransomware on the file servers' }],
          },
        ],
      });
      const tools = await client.callTool({
        name: 'findTools',
        arguments: { task: 'make Dana the owner of the ransomware risk' },
      });
      const first = (
        tools.structuredContent as { tools: { name: string; call_with: string; input_schema: object }[] }
      ).tools[0];
      expect(first).toMatchObject({ name: 'updateRisk', call_with: 'callWriteTool' });
      expect(JSON.stringify(first?.input_schema)).toContain('owner_id');
      const updated = await client.callTool({
        name: 'callWriteTool',
        arguments: { name: 'updateRisk', arguments: { id: risk.id, owner_id: person.id } },
      });
      expect(updated.isError ?? false).toBe(false);
      expect((updated.structuredContent as { risk: { owner_id: string } }).risk.owner_id).toBe(person.id);
      // A mistake (an id of another kind: a person may be named by email or name, not by a risk's id) answers as the
      // tool's own validation does, naming the called tool.
      const wrong = await client.callTool({
        name: 'callWriteTool',
        arguments: { name: 'updateRisk', arguments: { id: risk.id, owner_id: risk.id } },
      });
      expect(wrong.isError).toBe(true);
      expect((wrong.structuredContent as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'invalid_arguments',
        message: expect.stringMatching(/^Invalid arguments for updateRisk: owner_id/),
      });
    } finally {
      await client.close();
    }
    await runtime.usage.flush();
    const logged = await runtime.database.db
      .select({ tool: toolCalls.tool, outcome: toolCalls.outcome, surface: toolCalls.surface })
      .from(toolCalls)
      .where(and(eq(toolCalls.user_id, world.alice.userId), eq(toolCalls.surface, 'mcp')));
    // Writes are logged in their batch, reads when the log is flushed: compared in any order.
    expect(logged.map((row) => `${row.tool} ${row.outcome}`).sort()).toEqual([
      'findRecords ok',
      'findTools ok',
      'listPeople ok',
      'updateRisk invalid_arguments',
      'updateRisk ok',
    ]);
    const history = await ok<{ changes: { tool: string; surface: string }[] }>(
      runtime,
      world.aliceToken,
      'listChanges',
      {
        organization_id: world.orgA,
        filter: { record_id: risk.id },
      },
    );
    expect(history.changes[0]).toMatchObject({ tool: 'updateRisk', surface: 'mcp' });
  });

  it('finds the tools for the words assistants use: controls, the SoA, suppliers, deletions', async () => {
    const client = await sdk1Client(world.aliceToken, '');
    const first = async (task: string) => {
      const result = await client.callTool({ name: 'findTools', arguments: { task, limit: 3 } });
      return (result.structuredContent as { tools: { name: string; call_with: string }[] }).tools;
    };
    try {
      expect((await first('ISO 27001 controls'))[0]?.name).toBe('listRequirements');
      expect((await first('statement of applicability'))[0]).toEqual(
        expect.objectContaining({ name: 'getStatementOfApplicability', call_with: 'callReadTool' }),
      );
      expect((await first('add a supplier'))[0]?.name).toBe('addVendor');
      expect((await first('approve the access control policy'))[0]?.name).toBe('approveDocument');
      expect((await first('delete a vendor'))[0]).toEqual(
        expect.objectContaining({ name: 'deleteVendor', call_with: 'callDestructiveTool' }),
      );
      // Nothing matches: the catalogue of every toolset instead.
      const none = await client.callTool({ name: 'findTools', arguments: { task: 'zzqx' } });
      const body = none.structuredContent as { tools: unknown[]; toolsets: { name: string }[]; note: string };
      expect(body.tools).toEqual([]);
      expect(body.toolsets.map((toolset) => toolset.name)).toEqual([...toolsetsOf(TOOLS.values()).keys()]);
      expect(body.note).toContain('No tool matches "zzqx"');
    } finally {
      await client.close();
    }
  });

  it('gives a read-only connection read tools only, and refuses a write through callReadTool', async () => {
    const client = await modernClient(world.aliceToken, 'readonly=true');
    try {
      const found = await client.callTool({ name: 'findTools', arguments: { toolset: 'risks' } });
      const body = found.structuredContent as { tools: { name: string }[]; note: string };
      expect(body.tools.map((tool) => tool.name)).toEqual(['listRisks', 'getRisk']);
      expect(body.note).toBe('Only read tools: this token or connection is read-only.');
      const refused = await client.callTool({
        name: 'callReadTool',
        arguments: { name: 'deleteRisk', arguments: { id: 'rsk_00000000000000000000000000' } },
      });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { message: string } }).error.message).toBe(
        'deleteRisk is a tool that deletes or removes (delete*, unlink*, a catalog import that removes requirements): run it with callDestructiveTool.',
      );
      const read = await client.callTool({
        name: 'callReadTool',
        arguments: { name: 'listRisks', arguments: JSON.stringify({ organization_id: world.orgA }) },
      });
      expect(read.isError ?? false).toBe(false);
      expect(read.structuredContent).toHaveProperty('risks');
    } finally {
      await client.close();
    }
  });
});

describe('instructions generated from the connection', () => {
  const toolNamesIn = (text: string) =>
    [...text.matchAll(/\b(?:list|get|add|find|call|my)[A-Z]\w+/g)].map((m) => m[0]);

  it('name what is listed, how to reach the rest, and only tools that exist', async () => {
    for (const query of ['', 'toolsets=all', 'toolsets=risks', 'readonly=true']) {
      const client = await sdk1Client(world.aliceToken, query);
      const instructions = client.getInstructions() ?? '';
      await client.close();
      for (const name of toolNamesIn(instructions)) expect(TOOLS.has(name), `${query}: ${name}`).toBe(true);
      expect(instructions).toContain('findTools');
      expect(instructions).toContain('are requirements (listRequirements');
      expect(instructions).toContain("the organization's own controls are measures (listMeasures)");
      expect(instructions).toContain('An account (usr_...) is who signs in');
      expect(instructions).toContain('found with listPeople');
      expect(instructions.includes('callWriteTool'), query).toBe(query !== 'readonly=true');
      expect(instructions.includes('This connection is read-only'), query).toBe(query === 'readonly=true');
    }
    const risks = await sdk1Client(world.aliceToken, 'toolsets=risks');
    expect(risks.getInstructions()).toContain('This connection lists the core and the toolsets risks.');
    await risks.close();
    const all = await sdk1Client(world.aliceToken, 'toolsets=all');
    expect(all.getInstructions()).toMatch(
      /Asked for but not listed, to keep the tool definitions within 15,000 tokens: \w/,
    );
    await all.close();
  });
});
