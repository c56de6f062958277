// Function definitions for OpenAI, Gemini and Anthropic (GET /api/mcp/functions.json): every definition passes a
// validator of its provider's documented schema subset (test/function-dialects.ts), and what a strict-mode wrapper
// sends (every property, null for the unset ones) does what the same call without the nulls does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemasOf } from '../../src/surfaces/schemas.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { isCore, toolsetOf } from '../../src/tools/toolsets.ts';
import { type RecordIds, sampleArguments, seedRecords } from '../fixtures.ts';
import { anthropicProblems, geminiProblems, openAiStrictProblems } from '../function-dialects.ts';
import {
  BASE,
  callDirect,
  createTestRuntime,
  createWorld,
  type TestRuntime,
  type World,
} from '../helpers.ts';

type Json = Record<string, unknown>;

let runtime: TestRuntime;
let world: World;
let ids: RecordIds;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
  ids = await seedRecords(runtime, world.aliceToken, world.orgA);
});

afterAll(async () => {
  await runtime.cleanup();
});

async function functions(query: string): Promise<{ status: number; body: Json }> {
  const response = await runtime.app.request(`${BASE}/api/mcp/functions.json${query}`);
  return { status: response.status, body: (await response.json()) as Json };
}

/** The definitions of a document: OpenAI's and Anthropic's `tools`, Gemini's functionDeclarations. */
function definitionsOf(body: Json): Json[] {
  const tools = body.tools as Json[];
  if (body.format === 'gemini') return (tools[0]?.functionDeclarations ?? []) as Json[];
  return tools;
}

const VALIDATORS = { openai: openAiStrictProblems, gemini: geminiProblems, anthropic: anthropicProblems };

/** Every tool's definition, asked for by name (?tools=) a few at a time, each request within the token budget. */
async function everyDefinition(format: string): Promise<Json[]> {
  const names = [...TOOLS.keys()];
  const definitions: Json[] = [];
  for (let start = 0; start < names.length; start += 20) {
    const { status, body } = await functions(
      `?format=${format}&tools=${names.slice(start, start + 20).join(',')}`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    definitions.push(...definitionsOf(body));
  }
  return definitions;
}

describe('GET /api/mcp/functions.json', () => {
  it.each(Object.keys(VALIDATORS) as (keyof typeof VALIDATORS)[])(
    '?format=%s: every tool by name, each definition valid in that provider’s dialect',
    async (format) => {
      const definitions = await everyDefinition(format);
      expect(definitions.map((definition) => definition.name)).toEqual([...TOOLS.keys()]);
      expect(definitions.flatMap(VALIDATORS[format])).toEqual([]);
      const { body } = await functions(`?format=${format}`);
      expect(body.instructions).toContain('null means "not given"');
    },
  );

  it('the validators refuse what each provider refuses: the MCP input schemas as they are, formats, type lists', () => {
    const input = jsonSchemasOf(TOOLS.get('addVendor') as never).publishedInput;
    const openAi = openAiStrictProblems({
      type: 'function',
      name: 'addVendor',
      description: 'd',
      parameters: input,
      strict: true,
    });
    expect(openAi).toContain('addVendor: additionalProperties is not false');
    expect(openAi).toContain('addVendor.website_url: format uri not supported');
    expect(openAi.some((problem) => problem.startsWith('addVendor: not every property is required'))).toBe(
      true,
    );
    const gemini = geminiProblems({
      name: 'x',
      description: 'd',
      parameters: {
        type: 'object',
        additionalProperties: false,
        properties: {
          a: { type: ['string', 'null'] },
          b: { enum: ['A'] },
          c: { type: 'string', format: 'date' },
          d: {},
          e: { type: 'object' },
        },
      },
    });
    expect(gemini).toEqual([
      'x: keyword additionalProperties not supported',
      'x.a: type list',
      'x.b: no type',
      'x.b: enum without type string',
      'x.c: format date not supported',
      'x.d: no type',
      'x.e: an object without properties',
    ]);
    expect(anthropicProblems({ name: 'a.b', description: 'd', input_schema: { type: 'array' } })).toEqual([
      'a.b: name',
      'a.b: input_schema is not an object schema',
    ]);
  });

  it('gives OpenAI every optional argument as nullable, Gemini a date format in words, Anthropic the published schema', async () => {
    const find = (body: Json, name: string) =>
      definitionsOf(body).find((definition) => definition.name === name);
    const openAi = find((await functions('?format=openai&toolsets=risks')).body, 'listRisks') as Json;
    const parameters = openAi.parameters as { required: string[]; properties: Record<string, Json> };
    expect(parameters.required).toEqual(['organization_id', 'filter', 'order_by', 'as_of', 'size', 'cursor']);
    expect(parameters.properties.size).toEqual({
      description: 'Default 20.',
      anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }, { type: 'null' }],
    });
    const gemini = find(
      (await functions('?format=gemini&toolsets=obligations')).body,
      'addObligation',
    ) as Json;
    expect((gemini.parameters as { properties: Record<string, Json> }).properties.due_date).toEqual({
      type: 'string',
      description: 'Date by which it must be met (a date, YYYY-MM-DD).',
    });
    const anthropic = find((await functions('?format=anthropic&toolsets=risks')).body, 'addRisk') as Json;
    expect(anthropic.input_schema).toEqual(jsonSchemasOf(TOOLS.get('addRisk') as never).publishedInput);
  });

  it('takes ?toolsets= and ?readonly= as the MCP endpoint and the OpenAPI document do; an unknown format is a 400', async () => {
    const { body } = await functions('?format=anthropic&toolsets=risks&readonly=true');
    expect(definitionsOf(body).map((definition) => definition.name)).toEqual(
      [...TOOLS.values()]
        .filter((tool) => tool.scope === 'read' && (isCore(tool) || toolsetOf(tool) === 'risks'))
        .map((tool) => tool.name),
    );
    // The bare document: the core, with findTools and the call tools that reach the rest.
    const bare = definitionsOf((await functions('?format=openai')).body).map((definition) => definition.name);
    expect(bare).toEqual([...TOOLS.values()].filter(isCore).map((tool) => tool.name));
    expect(bare).toEqual(
      expect.arrayContaining(['findTools', 'callReadTool', 'callWriteTool', 'listPeople']),
    );
    const unknown = await functions('?format=mistral');
    expect(unknown.status).toBe(400);
    expect((unknown.body.error as { code: string; message: string }).message).toBe(
      'Unknown or missing ?format=mistral: one of openai, gemini, anthropic.',
    );
    expect((await functions('')).status).toBe(400);
  });
});

/** What an OpenAI strict wrapper sends: every property of every object given, null for the ones not given. */
function strictArguments(schema: Json, value: unknown): unknown {
  const object = (schema.anyOf as Json[] | undefined)?.find((option) => option.type === 'object') ?? schema;
  // A call tool's `arguments`, which strict mode takes as JSON text: the model writes the object as text.
  const types = ((schema.anyOf as Json[] | undefined) ?? [schema]).map((option) => option.type);
  if (types.includes('string') && !types.includes('object') && typeof value === 'object' && value !== null)
    return JSON.stringify(value);
  if (object.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value))
    return value;
  const given = value as Json;
  const properties = (object.properties ?? {}) as Record<string, Json>;
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [
      name,
      name in given ? strictArguments(property, given[name]) : null,
    ]),
  );
}

// Fields that differ between two records made by two calls: their ids, times, and the unique values each sample draws.
const VARYING = new Set(['id', 'created_at', 'updated_at', 'generated_at', 'approved_at']);

function masked(value: unknown, varying: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => masked(item, varying));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, varying.has(key) ? '<varies>' : masked(item, varying)]),
  );
}

describe('a strict-mode wrapper’s call (every property, null for the unset ones) on the direct surface', () => {
  const openAiParameters = new Map<string, Json>();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

  beforeAll(async () => {
    for (const definition of await everyDefinition('openai')) {
      openAiParameters.set(String(definition.name), definition.parameters as Json);
    }
  });

  it.each([...TOOLS.keys()])(
    '%s: valid against its OpenAI definition, and answers as without the nulls',
    async (name) => {
      const parameters = openAiParameters.get(name) as Json;
      const plain = await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids);
      // Add, delete and approve tools get arguments of their own for the second call (unique values, a fresh
      // record): a document is approved once, a second approval (or rejection) of the same one is an invalid transition.
      const writesNew =
        /^(add|delete|approve|reject|callDestructive|requestAck|acknowledge|sendAck|decide)/.test(name);
      const second = writesNew
        ? await sampleArguments(runtime, world.aliceToken, name, world.orgA, ids)
        : plain;
      const strict = strictArguments(parameters, second) as Json;
      expect(Object.keys(strict)).toEqual(Object.keys(parameters.properties as Json));
      expect(ajv.validate(parameters, strict), JSON.stringify(ajv.errors)).toBe(true);

      const without = await callDirect(runtime, world.aliceToken, name, plain);
      const withNulls = await callDirect(runtime, world.aliceToken, name, strict);
      expect(without.status, JSON.stringify(without.body)).toBe(200);
      expect(withNulls.status, JSON.stringify(withNulls.body)).toBe(200);
      const varying = new Set(VARYING);
      for (const [key, value] of Object.entries(second)) if (plain[key] !== value) varying.add(key);
      // A trust page request and a proposal are fresh for each call: their document, visitor, times and page differ.
      if (name === 'decideTrustAccessRequest')
        for (const key of ['document_id', 'email', 'decided_at', 'terms_accepted_at']) varying.add(key);
      if (name === 'proposeWrite')
        for (const key of ['message', 'decide_url', 'expires_at']) varying.add(key);
      // An approved version points at its document, a fresh one for each call.
      if (name === 'approveDocument' || name === 'rejectDocument') varying.add('document_id');
      // Acknowledgement links carry a fresh secret on each call, and times of their own.
      for (const key of ['link_path', 'link_expires_at', 'acknowledged_at', 'reminded_at', 'request_id'])
        varying.add(key);
      // A publish writes new files (a PDF and its JSON copy) and its document's summary again on each call; the
      // PDF carries its creation time to the second, so two calls a second apart differ in their digest.
      if (name.startsWith('publish'))
        for (const key of [
          'file_id',
          'data_file_id',
          'download_url',
          'download_expires_at',
          'content',
          'sha256',
        ])
          varying.add(key);
      expect(masked(withNulls.body, varying)).toEqual(masked(without.body, varying));
    },
  );
});
