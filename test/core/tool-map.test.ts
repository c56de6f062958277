// The contract of the tool map: tools/list equals the map, every tool is described for an AI reader and answers on every surface.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ID_PREFIXES } from '../../src/ids.ts';
import { SHARED_RULES as SERVER_INSTRUCTIONS } from '../../src/surfaces/instructions.ts';
import { listedTools } from '../../src/surfaces/mcp-server.ts';
import {
  COMMON_ARGUMENTS,
  jsonSchemasOf,
  RECORD_COMMON_FIELDS,
  saysOnlyItsName,
} from '../../src/surfaces/schemas.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { RECORD_SCHEMAS } from '../../src/tools/types.ts';
import { type RecordIds, sampleArguments, seedRecords } from '../fixtures.ts';
import {
  callDirect,
  createTestRuntime,
  createWorld,
  mcpClient,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let ids: RecordIds;
let client: Client;

beforeAll(async () => {
  // Every tool on every surface is more calls in a minute than one token may make by default.
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
  ids = await seedRecords(runtime, world.aliceToken, world.orgA);
  client = await mcpClient(runtime, world.aliceToken);
});

afterAll(async () => {
  await client.close();
  await runtime.cleanup();
});

type JsonSchema = {
  type?: string;
  description?: string;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
};

/** Every property of an object schema, recursively, that lacks a description. */
function undescribed(schema: JsonSchema, path = ''): string[] {
  const missing: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const here = path ? `${path}.${name}` : name;
    const described = property.description || property.anyOf?.some((option) => option.description);
    if (!described) missing.push(here);
    for (const option of [property, ...(property.anyOf ?? [])]) {
      missing.push(...undescribed(option, here));
      if (option.items) missing.push(...undescribed(option.items, `${here}[]`));
    }
  }
  return missing;
}

/**
 * The arguments many tools share (COMMON_ARGUMENTS, order_by's members) and enum filters (a list of the values listed)
 * are explained once, in the server instructions, which name each of them.
 */
function explainedInInstructions(schema: JsonSchema, path: string): boolean {
  const [name = '', member] = path.split('.');
  if (!COMMON_ARGUMENTS.includes(name) || !SERVER_INSTRUCTIONS.includes(name)) return false;
  if (name !== 'filter' || member === undefined) return true;
  const filter = schema.properties?.filter?.properties?.[member] as JsonSchema & {
    items?: { enum?: unknown };
  };
  return (
    filter?.type === 'array' &&
    Array.isArray(filter.items?.enum) &&
    SERVER_INSTRUCTIONS.includes('enum filter')
  );
}

/** The description the published input (OpenAPI, functions) gives a property at a path (`filter.owner_id`). */
function publishedDescription(toolName: string, path: string): string | undefined {
  const tool = TOOLS.get(toolName);
  if (!tool) return undefined;
  let node: JsonSchema | undefined = jsonSchemasOf(tool).publishedInput as JsonSchema;
  for (const name of path.split('.')) node = node?.properties?.[name];
  return node?.description;
}

/**
 * A property tools/list leaves undescribed because its published description only repeats its name ("Owner
 * (`per_...`)." for owner_id): the name says it, and the instructions give every id prefix.
 */
function namedOnly(toolName: string, path: string): boolean {
  const description = publishedDescription(toolName, path);
  const name = path.split('.').at(-1) ?? '';
  return description !== undefined && saysOnlyItsName(name, description);
}

/** A result section that is a record (getRisk's risk, listRisks' risks): named by its key, spelled out in its get tool. */
function isRecordSection(toolName: string, section: string): boolean {
  const output = TOOLS.get(toolName)?.output as z.ZodObject | undefined;
  let schema = output?.shape[section] as z.ZodType | undefined;
  while (schema && !RECORD_SCHEMAS.has(schema)) {
    const def = schema._zod.def as { element?: z.ZodType; innerType?: z.ZodType };
    schema = def.element ?? def.innerType;
  }
  return schema !== undefined;
}

/** Every tool as tools/list shows it (a connection lists some of them; findTools reaches the others). */
function everyListed() {
  return {
    tools: listedTools(TOOLS.values()) as unknown as Awaited<ReturnType<Client['listTools']>>['tools'],
  };
}

describe('tools/list', () => {
  it('lists tools of the map in its order, and findTools names every other one', async () => {
    const { tools } = everyListed();
    const listed = tools.map((tool) => tool.name);
    expect(listed).toEqual([...TOOLS.keys()].filter((name) => listed.includes(name)));
    const catalogue = await client.callTool({ name: 'findTools', arguments: {} });
    const { toolsets } = catalogue.structuredContent as { toolsets: { tools: { name: string }[] }[] };
    const named = toolsets.flatMap((toolset) => toolset.tools.map((tool) => tool.name));
    expect(new Set([...listed, ...named])).toEqual(new Set(TOOLS.keys()));
    expect(TOOLS.size).toBe(197);
  });

  it('gives every tool a description, an input schema, all four annotation hints, and read tools an output schema', async () => {
    const { tools } = everyListed();
    for (const tool of tools) {
      const definition = TOOLS.get(tool.name);
      expect(definition?.title.length ?? 0, tool.name).toBeGreaterThan(3);
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(15);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe(definition?.scope === 'read' ? 'object' : undefined);
      expect(tool.title, tool.name).toBe(definition?.title);
      expect(tool.annotations, tool.name).toEqual({
        title: definition?.title,
        readOnlyHint: definition?.scope === 'read',
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: false,
      });
    }
  });

  it("describes every input field of every tool, an update tool's fields in the add tool it names", async () => {
    const { tools } = everyListed();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const missing = tools.flatMap((tool) => {
      const schema = tool.inputSchema as JsonSchema;
      const add = tool.name.startsWith('update')
        ? byName.get(tool.name.replace(/^update/, 'add'))
        : undefined;
      if (add) {
        expect(tool.description, tool.name).toContain(add.name);
        const addProperties = (add.inputSchema as JsonSchema).properties ?? {};
        // A field published as {} (no type, no values) must be spelled out and described in the add tool.
        return Object.entries(schema.properties ?? {})
          .filter(([name, property]) => !property.description && !addProperties[name]?.description)
          .filter(([name]) => !explainedInInstructions(schema, name) && !namedOnly(add.name, name))
          .map(([name]) => `${tool.name}: ${name} (not described in ${add.name} either)`);
      }
      return undescribed(schema)
        .filter((path) => !explainedInInstructions(schema, path) && !namedOnly(tool.name, path))
        .map((path) => `${tool.name}: ${path}`);
    });
    expect(missing).toEqual([]);
    // What the left-out id formats said: every kind's prefix, once, in the instructions.
    for (const [kind, prefix] of Object.entries(ID_PREFIXES)) {
      if (!kind.startsWith('oauth_')) expect(SERVER_INSTRUCTIONS).toContain(`${prefix}_ `);
    }
  });

  it('describes each section of every output and spells out each record kind once, in its get tool', async () => {
    const { tools } = everyListed();
    for (const tool of tools.filter((candidate) => candidate.outputSchema)) {
      const output = tool.outputSchema as JsonSchema & { required?: string[] };
      for (const [name, property] of Object.entries(output.properties ?? {})) {
        const record = property.items ?? property;
        if (property.type === 'object' || property.items?.type === 'object') {
          // A record is named by its key; a section whose description only repeats its key ("Risks.") by its key.
          const named =
            isRecordSection(tool.name, name) ||
            saysOnlyItsName(
              name,
              (jsonSchemasOf(TOOLS.get(tool.name) as never).output.properties as Record<string, JsonSchema>)[
                name
              ]?.description ?? '',
            );
          expect(Boolean(record.description) || named, `${tool.name}: ${name}`).toBe(true);
        }
      }
    }
    const getRisk = tools.find((tool) => tool.name === 'getRisk')?.outputSchema as JsonSchema;
    expect(getRisk.properties?.risk).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['name', 'status', 'residual_score', 'measure_ids']),
    });
    // The fields every record has are named once, in the instructions.
    for (const common of RECORD_COMMON_FIELDS) {
      expect(getRisk.properties?.risk?.required).not.toContain(common);
      expect(SERVER_INSTRUCTIONS).toContain(common);
    }
    // Elsewhere a record is named: an object without its fields, which the instructions say where to read.
    const listRisks = tools.find((tool) => tool.name === 'listRisks')?.outputSchema as JsonSchema;
    expect(listRisks.properties?.risks?.items).toEqual({ type: 'object' });
    expect(SERVER_INSTRUCTIONS).toContain("the fields its kind's get tool lists");
  });

  it('marks delete, unlink and catalog import (remove_missing) tools destructive and only them', async () => {
    const { tools } = everyListed();
    const destructive = tools.filter((tool) => tool.annotations?.destructiveHint).map((tool) => tool.name);
    expect(destructive.sort()).toEqual(
      [...TOOLS.keys()]
        .filter(
          (name) =>
            /^(delete|unlink)/.test(name) || ['importFrameworkCatalog', 'callDestructiveTool'].includes(name),
        )
        .sort(),
    );
  });

  it('lists enum values in upper case and accepts them in any case', async () => {
    const { tools } = everyListed();
    const listRisks = tools.find((tool) => tool.name === 'listRisks');
    expect(JSON.stringify(listRisks?.inputSchema)).toContain('Any of: OPEN, IN_TREATMENT, MITIGATED');
    const result = await callDirect(runtime, world.aliceToken, 'listRisks', {
      organization_id: world.orgA,
      filter: { status: 'open' },
    });
    expect(result.status).toBe(200);
  });
});

describe('errors a client reads', () => {
  it('answers an unknown tool with one JSON-RPC error prefix, not two', async () => {
    const error = await client.callTool({ name: 'listUnicorns', arguments: {} }).then(
      () => null,
      (caught: Error) => caught,
    );
    expect(error?.message).toBe(
      'MCP error -32602: Unknown tool: listUnicorns. Call tools/list for the tool names.',
    );
  });

  it('says what a valid id looks like when an id of the right prefix is malformed', async () => {
    const result = await client.callTool({
      name: 'getRisk',
      arguments: { id: 'rsk_doesnotexist00000000000' },
    });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toBe(
      'Invalid arguments for getRisk: id: Expected a risk id: "rsk_" followed by 24 characters from 0-9 and a-z except i, l, o, u (e.g. rsk_8zq3m0v5k1t7w2x9c4n6p0ha)',
    );
  });
});

describe('every tool answers on every surface', () => {
  const names = [...TOOLS.keys()];

  it.each(names)(
    '%s over MCP (structuredContent matches outputSchema, text is the same JSON)',
    async (name) => {
      const args = await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids);
      // The SDK client validates structuredContent against the tool's outputSchema and throws on a mismatch.
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError ?? false, JSON.stringify(result.structuredContent)).toBe(false);
      const content = result.content as { type: string; text: string }[];
      expect(JSON.parse(content[0]?.text ?? 'null')).toEqual(result.structuredContent);
    },
  );

  it.each(names)('%s over POST /api/mcp/tools/<tool>', async (name) => {
    const args = await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids);
    const result = await callDirect(runtime, world.aliceToken, name, args, 'tools');
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(TOOLS.get(name)?.output.safeParse(result.body).success).toBe(true);
  });

  it.each(names)('%s over POST /api/mcp/<tool> with camelCase arguments', async (name) => {
    const args = await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids);
    const camel = Object.fromEntries(
      Object.entries(args).map(([key, value]) => [
        key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()),
        value,
      ]),
    );
    const result = await callDirect(runtime, world.aliceToken, name, camel, 'short');
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(TOOLS.get(name)?.output.safeParse(result.body).success).toBe(true);
  });
});
