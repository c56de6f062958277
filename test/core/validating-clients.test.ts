// Validating clients take what the server takes: LangChain's MCP adapters (@langchain/mcp-adapters, as 1.1.4 loads
// tools/list: the input schema simplified, then every call's arguments checked by @cfworker/json-schema before it is
// sent) over every tool, with the contract's sample arguments and the seed's example values, null for every optional
// argument, and the three calls that stopped working once the schemas were tightened for strict function calling.
// The function-calling dialects keep their strict schemas.
import { validate } from '@cfworker/json-schema';
import { loadMcpTools } from '@langchain/mcp-adapters';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionDefinitionOf } from '../../src/surfaces/functions.ts';
import { jsonSchemasOf } from '../../src/surfaces/schemas.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { toolsetsOf } from '../../src/tools/toolsets.ts';
import { type RecordIds, sampleArguments, seedRecords } from '../fixtures.ts';
import { createTestRuntime, createWorld, mcpClient, type TestRuntime, type World } from '../helpers.ts';

type Json = Record<string, unknown>;
type LangChainTool = Awaited<ReturnType<typeof loadMcpTools>>[number];

let runtime: TestRuntime;
let world: World;
let ids: RecordIds;
let client: Client;
let tools: Map<string, LangChainTool>;
const connections: Client[] = [];

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
  ids = await seedRecords(runtime, world.aliceToken, world.orgA);
  client = await mcpClient(runtime, world.aliceToken);
  // A connection lists what fits its budget: the tools of every toolset, each loaded on a connection naming it.
  tools = new Map();
  for (const toolset of ['all', ...toolsetsOf(TOOLS.values()).keys()]) {
    const connection = await mcpClient(runtime, world.aliceToken, `?toolsets=${toolset}`);
    const loaded = await loadMcpTools('compliance', connection as never, { throwOnLoadError: true });
    for (const tool of loaded) tools.set(tool.name, tool);
    connections.push(connection);
  }
});

afterAll(async () => {
  await client?.close();
  for (const connection of connections) await connection.close();
  await runtime?.cleanup();
});

function toolNamed(name: string): LangChainTool {
  const tool = tools.get(name);
  if (!tool) throw new Error(`LangChain did not load ${name}`);
  return tool;
}

/** What LangChain checks before sending a call: its (simplified) schema, with the validator it uses. */
function langChainAccepts(name: string, args: Json): string[] {
  const result = validate(args, toolNamed(name).schema as never);
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** The tool's published tools/list schema as it is (not simplified), with the same validator. */
function publishedAccepts(name: string, args: Json): string[] {
  const definition = TOOLS.get(name);
  if (!definition) throw new Error(`No tool ${name}`);
  const result = validate(args, jsonSchemasOf(definition).mcpInput as never, '2020-12');
  return result.valid ? [] : result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

/** Calls through LangChain (its check, then tools/call): the result's JSON, or the error LangChain raised. */
async function callThroughLangChain(name: string, args: Json): Promise<Json> {
  const content: unknown = await toolNamed(name).invoke(args);
  // One text block (what this server answers), a list of them, or the text itself.
  const block = Array.isArray(content) ? content[0] : content;
  const text = typeof block === 'string' ? block : (block as { text?: string }).text;
  return JSON.parse(text ?? 'null') as Json;
}

/** The sample arguments with null for every optional argument they leave out, as a strict wrapper sends them. */
function withNulls(name: string, args: Json): Json {
  const definition = TOOLS.get(name);
  if (!definition) throw new Error(`No tool ${name}`);
  const schema = jsonSchemasOf(definition).mcpInput;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Json = { ...args };
  for (const property of Object.keys(schema.properties as Json)) {
    if (!required.has(property) && !(property in out)) out[property] = null;
  }
  return out;
}

describe("LangChain's MCP adapters", () => {
  it('load every tool of the map', () => {
    expect([...tools.keys()].sort()).toEqual([...TOOLS.keys()].sort());
  });

  it.each([...TOOLS.keys()])('%s: takes its sample arguments and the server answers them', async (name) => {
    const args = await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids);
    expect(langChainAccepts(name, args)).toEqual([]);
    const result = await callThroughLangChain(name, args);
    expect(result.error).toBeUndefined();
  });

  it.each([...TOOLS.keys()])('%s: takes null for every optional argument', async (name) => {
    const args = withNulls(name, await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids));
    expect(langChainAccepts(name, args)).toEqual([]);
    expect(publishedAccepts(name, args)).toEqual([]);
  });

  it('take the three calls refused since the schemas were tightened, and the server does them', async () => {
    const risks = await callThroughLangChain('listRisks', {
      organization_id: world.orgA,
      filter: { status: ['open', 'in treatment'] },
    });
    expect(Array.isArray(risks.risks)).toBe(true);
    const vendor = await callThroughLangChain('addVendor', {
      organization_id: world.orgA,
      name: 'Slack',
      category: 'collaboration',
    });
    const added = vendor.vendor as { id: string; category: string };
    expect(added.category).toBe('COLLABORATION');
    const updated = await callThroughLangChain('updateVendor', {
      id: added.id,
      description: null,
      website_url: 'https://slack.com',
    });
    expect(updated.vendor).toMatchObject({ description: null, website_url: 'https://slack.com' });
  });

  it("take the seed's examples: risk status open and mitigated, measure state not started and IMPLEMENTED", async () => {
    await callThroughLangChain('addRisk', {
      organization_id: world.orgA,
      name: 'Seed example risk',
      inherent_likelihood: 2,
      inherent_impact: 3,
      status: 'mitigated',
    });
    const mitigated = await callThroughLangChain('listRisks', {
      organization_id: world.orgA,
      filter: { status: 'mitigated', query: 'seed example' },
    });
    expect((mitigated.risks as { name: string }[]).map((risk) => risk.name)).toEqual(['Seed example risk']);
    const open = await callThroughLangChain('listRisks', {
      organization_id: world.orgA,
      filter: { status: ['OPEN', 'open', 'mitigated'] },
    });
    expect((open.risks as unknown[]).length).toBeGreaterThan(0);
    await callThroughLangChain('addMeasure', {
      organization_id: world.orgA,
      name: 'Seed example measure',
      state: 'not started',
    });
    const measures = await callThroughLangChain('listMeasures', {
      organization_id: world.orgA,
      filter: { state: ['not started', 'IMPLEMENTED'], query: 'seed example' },
    });
    expect((measures.measures as { state: string }[]).map((measure) => measure.state)).toEqual([
      'NOT_STARTED',
    ]);
  });

  it('still refuse what the server refuses: a missing required argument, a wrong type', () => {
    expect(langChainAccepts('addVendor', { organization_id: world.orgA })).not.toEqual([]);
    expect(langChainAccepts('listRisks', { organization_id: world.orgA, size: 'twenty' })).not.toEqual([]);
    expect(publishedAccepts('addVendor', { organization_id: world.orgA, name: null })).not.toEqual([]);
  });
});

describe('the function-calling dialects', () => {
  it('keep their strict schemas: enums in upper case, nullable through anyOf (OpenAI), no null (Gemini)', () => {
    const listRisks = TOOLS.get('listRisks');
    if (!listRisks) throw new Error('no listRisks');
    const openai = JSON.stringify(functionDefinitionOf(listRisks, 'openai'));
    expect(openai).toContain('"enum":["OPEN","IN_TREATMENT","MITIGATED","ACCEPTED","CLOSED"]');
    expect(openai).not.toContain('"type":["');
    const gemini = JSON.stringify(functionDefinitionOf(listRisks, 'gemini'));
    expect(gemini).toContain('"enum":["OPEN","IN_TREATMENT","MITIGATED","ACCEPTED","CLOSED"]');
    expect(gemini).not.toContain('null');
    expect(JSON.stringify(jsonSchemasOf(listRisks).publishedInput)).not.toContain('null');
  });
});
