// Limits clients enforce, checked on what the server publishes: tool names (64 characters), descriptions (1,024 in
// Gemini CLI; 300 in a custom GPT's operations), tools per connection (Cursor sends the first 40, VS Code takes 128),
// and GPT Actions (30 operations per action, parameter descriptions of 700 characters at most).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionListing } from '../../src/surfaces/connection.ts';
import { mcpCostOf } from '../../src/surfaces/mcp-server.ts';
import { MAX_GPT_ACTIONS_OPERATIONS } from '../../src/surfaces/openapi.ts';
import { jsonSchemasOf } from '../../src/surfaces/schemas.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { estimatedTokens } from '../../src/tools/pagination.ts';
import { toolsetsOf } from '../../src/tools/toolsets.ts';
import { BASE, callDirect, createTestRuntime, createWorld, mcpClient, type TestRuntime } from '../helpers.ts';

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

  it('at most 40 tools at the bare URL (Cursor), 128 with ?toolsets=all (VS Code)', () => {
    const count = (toolsets: ReadonlySet<string> | 'all') =>
      connectionListing(tools, { toolsets, readonly: false }, 'read_write', mcpCostOf).tools.length;
    expect(count(new Set())).toBeLessThanOrEqual(40);
    expect(count(new Set())).toBeGreaterThan(5);
    expect(count('all')).toBeLessThanOrEqual(128);
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
  '?toolsets=risks,measures,vendors',
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

/** Text of exactly `length` characters, words and spaces, as a long description would be. */
const prose = (length: number) =>
  'Residual exposure remains material. '.repeat(Math.ceil(length / 36)).slice(0, length);

/** Arguments of addRisk with every text field at its longest allowed length. */
function longestRisk(organizationId: string, index: number): Json {
  const properties = (jsonSchemasOf(TOOLS.get('addRisk') as never).input.properties ?? {}) as Record<
    string,
    Json
  >;
  const args: Json = { organization_id: organizationId, inherent_likelihood: 5, inherent_impact: 5 };
  for (const [name, property] of Object.entries(properties)) {
    if (
      property.type === 'string' &&
      // A reference (owner_id takes a person's id, email or full name) names a record; it is not free text.
      !name.endsWith('_id') &&
      typeof property.maxLength === 'number' &&
      !property.enum &&
      !property.pattern
    ) {
      args[name] = `${index} ${prose(property.maxLength - String(index).length - 1)}`;
    }
  }
  return args;
}

describe('a tool result stays within 25,000 tokens (Claude Code) on the largest page with the longest values', () => {
  const CLAUDE_CODE_TOKENS = 25_000;
  const RISKS = 100;

  it('listRisks and listChanges at size 100 cut the page short, say so, and the cursor walks every record once', async () => {
    const world = await createWorld(runtime);
    for (let index = 0; index < RISKS; index += 1) {
      const added = await callDirect(runtime, world.aliceToken, 'addRisk', longestRisk(world.orgA, index));
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    const client = await mcpClient(runtime, world.aliceToken);
    try {
      for (const [tool, key] of [
        ['listRisks', 'risks'],
        ['listChanges', 'changes'],
      ] as const) {
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const result = await client.callTool({
            name: tool,
            arguments: { organization_id: world.orgA, size: 100, ...(cursor ? { cursor } : {}) },
          });
          const text = (result.content as { text: string }[])[0]?.text ?? '';
          // chars/4, as the project counts tokens; the text is ASCII, so this is also its UTF-8 size / 4.
          expect(text.length / 4, `${tool} page ${pages}`).toBeLessThanOrEqual(CLAUDE_CODE_TOKENS);
          const page = result.structuredContent as Json & {
            next_cursor: string | null;
            page_shortened?: true;
          };
          const records = page[key] as { id: string }[];
          if (page.next_cursor) expect(page.page_shortened, `${tool} page ${pages}`).toBe(true);
          seen.push(...records.map((record) => record.id));
          cursor = page.next_cursor ?? undefined;
          pages += 1;
        } while (cursor);
        expect(pages, tool).toBeGreaterThan(10);
        expect(new Set(seen).size, tool).toBe(seen.length);
        expect(seen, tool).toHaveLength(RISKS);
      }
    } finally {
      await client.close();
    }
  });
});

/** A result's text as an MCP client receives it: within 25,000 tokens (Claude Code) and 150,000 characters (Claude). */
function expectWithinClientLimits(text: string, what: string) {
  expect(estimatedTokens(text), what).toBeLessThanOrEqual(25_000);
  expect(text.length, what).toBeLessThanOrEqual(150_000);
}

describe('the largest single results stay within what Claude and Claude Code take', () => {
  it('an import report of 200 rows refused for their longest cells lists 100 errors of at most 300 characters', async () => {
    const world = await createWorld(runtime);
    const cell = prose(4000);
    const rows = Array.from({ length: 200 }, (_, index) => `Obligation ${index},${cell}`).join('\n');
    const client = await mcpClient(runtime, world.aliceToken);
    try {
      const result = await client.callTool({
        name: 'importRecords',
        arguments: {
          organization_id: world.orgA,
          kind: 'obligation',
          csv: `requirement,due_date\n${rows}\n`,
          dry_run: true,
        },
      });
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      expectWithinClientLimits(text, 'importRecords');
      const report = result.structuredContent as {
        counts: { refused: number };
        errors: { message: string }[];
        errors_truncated: boolean;
      };
      expect(report.counts.refused).toBe(200);
      expect(report.errors).toHaveLength(100);
      expect(report.errors_truncated).toBe(true);
      expect(Math.max(...report.errors.map((error) => error.message.length))).toBe(300);
    } finally {
      await client.close();
    }
  });

  it('the statement of applicability of 100 requirements with the longest titles and justifications, page by page', async () => {
    const world = await createWorld(runtime);
    const framework = await callDirect(runtime, world.aliceToken, 'addFramework', {
      organization_id: world.orgA,
      name: 'Long framework',
    });
    const frameworkId = (framework.body as { framework: { id: string } }).framework.id;
    const catalog = Array.from({ length: 100 }, (_, index) => `R.${index},"${index} ${prose(490)}",,no`).join(
      '\n',
    );
    const imported = await callDirect(runtime, world.aliceToken, 'importFrameworkCatalog', {
      framework_id: frameworkId,
      format: 'csv',
      content: `ref,title,parent,section\n${catalog}\n`,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const listed = await callDirect(runtime, world.aliceToken, 'listRequirements', {
      organization_id: world.orgA,
      filter: { framework_id: frameworkId },
      size: 100,
    });
    const requirements = (listed.body as { requirements: { id: string }[] }).requirements;
    for (const requirement of requirements) {
      const updated = await callDirect(runtime, world.aliceToken, 'updateRequirement', {
        id: requirement.id,
        justification: prose(5000),
      });
      expect(updated.status).toBe(200);
    }
    const client = await mcpClient(runtime, world.aliceToken);
    try {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const result = await client.callTool({
          name: 'getStatementOfApplicability',
          arguments: { framework_id: frameworkId, size: 100, ...(cursor ? { cursor } : {}) },
        });
        expectWithinClientLimits((result.content as { text: string }[])[0]?.text ?? '', 'SoA page');
        const page = result.structuredContent as {
          requirements: { id: string }[];
          next_cursor: string | null;
        };
        seen.push(...page.requirements.map((row) => row.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(new Set(seen).size).toBe(100);
      const summary = await client.callTool({
        name: 'getComplianceSummary',
        arguments: { organization_id: world.orgA },
      });
      expectWithinClientLimits((summary.content as { text: string }[])[0]?.text ?? '', 'summary');
    } finally {
      await client.close();
    }
  });
});
