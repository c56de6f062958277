// Limits clients enforce, checked on what the server publishes: tool names (64 characters), descriptions (1,024 in
// Gemini CLI; 300 in a custom GPT's operations), tools per connection (Cursor sends the first 40, VS Code takes 128),
// and GPT Actions (30 operations per action, parameter descriptions of 700 characters at most).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_GPT_ACTIONS_OPERATIONS } from '../../src/surfaces/openapi.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { DEFAULT_TOOLSETS, exclusionOf, toolsetsOf } from '../../src/tools/toolsets.ts';
import { BASE, createTestRuntime, type TestRuntime } from '../helpers.ts';

type Json = Record<string, unknown>;

let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await createTestRuntime();
});

afterAll(async () => {
  await runtime.cleanup();
});

const tools = [...TOOLS.values()];

describe('tools as MCP clients take them', () => {
  it('names of at most 64 characters from [a-zA-Z0-9_-], descriptions within 300 characters (1,024 in Gemini CLI)', () => {
    expect(tools.filter((tool) => !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))).toEqual([]);
    const long = tools.filter((tool) => tool.description.length > 300).map((tool) => tool.name);
    expect(long).toEqual([]);
  });

  it('at most 40 tools in the default toolsets (Cursor) and 128 in all (VS Code)', () => {
    const defaults = tools.filter(
      (tool) =>
        exclusionOf(
          tool,
          { toolsets: new Set(['core', ...DEFAULT_TOOLSETS]), readonly: false },
          'read_write',
        ) === null,
    );
    expect(defaults.length).toBeLessThanOrEqual(40);
    expect(defaults.length).toBeGreaterThan(20);
    expect(tools.length).toBeLessThanOrEqual(128);
  });
});

interface OpenApi {
  info: { description: string };
  paths: Record<
    string,
    {
      post: {
        operationId: string;
        description: string;
        requestBody: { content: Record<string, { schema: Json }> };
      };
    }
  >;
}

async function openApi(query: string): Promise<OpenApi> {
  const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApi;
}

/** Every description in a schema, with its path. */
function descriptions(node: unknown, path: string): { path: string; text: string }[] {
  if (typeof node !== 'object' || node === null) return [];
  const json = node as Json;
  const found = typeof json.description === 'string' ? [{ path, text: json.description }] : [];
  for (const [name, property] of Object.entries((json.properties ?? {}) as Json)) {
    found.push(...descriptions(property, `${path}.${name}`));
  }
  if (json.items) found.push(...descriptions(json.items, `${path}[]`));
  for (const option of (json.anyOf ?? []) as unknown[]) found.push(...descriptions(option, `${path}|`));
  return found;
}

// Selections a custom GPT can import: each toolset (with core), read-only or not; the default toolsets read-only;
// the README's example of several registers at once.
const GPT_SELECTIONS = [
  ...[...toolsetsOf(TOOLS.values()).keys()].flatMap((toolset) => [
    `?toolsets=${toolset}`,
    `?toolsets=${toolset}&readonly=true`,
  ]),
  '?readonly=true',
  '?toolsets=risks,measures,vendors,obligations',
];

describe('GPT Actions: the OpenAPI document of a toolset selection', () => {
  it.each(GPT_SELECTIONS)(
    '%s: at most 30 operations, descriptions within 300 characters, parameter descriptions within 700',
    async (query) => {
      const document = await openApi(query);
      const operations = Object.values(document.paths).map(({ post }) => post);
      expect(operations.length).toBeGreaterThan(0);
      expect(operations.length).toBeLessThanOrEqual(MAX_GPT_ACTIONS_OPERATIONS);
      expect(operations.filter((operation) => operation.description.length > 300)).toEqual([]);
      const parameters = operations.flatMap((operation) =>
        descriptions(operation.requestBody.content['application/json']?.schema, operation.operationId),
      );
      expect(parameters.length).toBeGreaterThan(operations.length);
      expect(parameters.filter(({ text }) => text.length > 700)).toEqual([]);
      expect(document.info.description).not.toContain('a custom GPT imports at most');
    },
  );

  it('says in a larger document (the default toolsets: 35 operations) which smaller one a custom GPT takes', async () => {
    const document = await openApi('?toolsets=default');
    expect(Object.keys(document.paths).length).toBeGreaterThan(MAX_GPT_ACTIONS_OPERATIONS);
    expect(document.info.description).toContain(
      `; a custom GPT imports at most 30: choose toolsets (?toolsets=risks,measures) or read tools only (?readonly=true).`,
    );
  });
});
