// The published input schemas tell the truth: a client that validates arguments before sending (ajv, as the SDK
// and strict clients do) accepts every documented call, and the server accepts what the schemas accept.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedTools } from '../../src/surfaces/mcp-server.ts';
import { jsonSchemasOf } from '../../src/surfaces/schemas.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { BASE, createTestRuntime, createWorld, mcpClient, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let client: Client;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  client = await mcpClient(runtime, world.aliceToken);
});

afterAll(async () => {
  await client.close();
  await runtime.cleanup();
});

/** A strict validator of arguments, as a client that checks before sending has (formats on, unknown keywords off). */
function strictValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  return ajv;
}

type Json = Record<string, unknown>;

/** Every enum node of a schema, with its path. */
function enumNodes(node: unknown, path = ''): { path: string; node: Json }[] {
  if (typeof node !== 'object' || node === null) return [];
  const json = node as Json;
  const found = Array.isArray(json.enum) ? [{ path, node: json }] : [];
  for (const [key, value] of Object.entries(json)) {
    if (key === 'properties') {
      for (const [name, property] of Object.entries(value as Json)) {
        found.push(...enumNodes(property, `${path}.${name}`));
      }
    } else if (key === 'items' || key === 'anyOf') {
      found.push(...enumNodes(value, `${path}[]`));
    }
  }
  return found;
}

const published = new Map(listedTools(TOOLS.values()).map((tool) => [tool.name, tool]));

/** Every schema node below a root (properties, items, anyOf options) that is not typed portably, with its path. */
function untyped(node: Json, path: string): string[] {
  const problems: string[] = [];
  if (Array.isArray(node.type)) problems.push(`${path}: type list ${JSON.stringify(node.type)}`);
  else if (typeof node.type !== 'string' && !Array.isArray(node.anyOf)) problems.push(`${path}: no type`);
  if (Array.isArray(node.enum) && typeof node.type !== 'string') problems.push(`${path}: enum without type`);
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    problems.push(...untyped(property, `${path}.${name}`));
  }
  if (node.items) problems.push(...untyped(node.items as Json, `${path}[]`));
  for (const option of (node.anyOf ?? []) as Json[]) problems.push(...untyped(option, `${path}|`));
  return problems;
}

describe('every published input schema (tools/list and OpenAPI, toolsets=all)', () => {
  it('types every property, with no type lists, and gives every enum its type', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/openapi.json?toolsets=all`);
    const openApi = (await response.json()) as {
      paths: Record<
        string,
        { post: { operationId: string; requestBody: { content: Record<string, { schema: Json }> } } }
      >;
    };
    const inputs = [
      ...[...published.values()].map((tool) => ({
        name: `tools/list ${tool.name}`,
        schema: tool.inputSchema as Json,
      })),
      ...Object.values(openApi.paths).map(({ post }) => ({
        name: `openapi ${post.operationId}`,
        schema: post.requestBody.content['application/json']?.schema as Json,
      })),
    ];
    expect(inputs).toHaveLength(2 * TOOLS.size);
    expect(inputs.flatMap(({ name, schema }) => untyped(schema, name))).toEqual([]);
    // The walk finds what it looks for.
    expect(
      untyped(
        { type: 'object', properties: { a: {}, b: { type: ['string', 'null'] }, c: { enum: ['X'] } } },
        'x',
      ),
    ).toEqual(['x.a: no type', 'x.b: type list ["string","null"]', 'x.c: no type', 'x.c: enum without type']);
  });
});

describe('published input schemas and a validating client', () => {
  it('list each enum value once (values in upper case, field names in snake_case), with the type of its values', () => {
    const problems: string[] = [];
    let checked = 0;
    // Both forms: tools/list, and the published input (OpenAPI, functions), which keeps update tools' values.
    const forms = [...published.values()].flatMap((tool) => {
      const definition = TOOLS.get(tool.name);
      const full = definition ? jsonSchemasOf(definition).publishedInput : {};
      return [tool, { name: `${tool.name} (published)`, inputSchema: full }];
    });
    for (const tool of forms) {
      for (const { path, node } of enumNodes(tool.inputSchema)) {
        checked += 1;
        const values = node.enum as unknown[];
        if (node.type !== 'string') problems.push(`${tool.name}${path}: type ${String(node.type)}`);
        if (new Set(values).size !== values.length) problems.push(`${tool.name}${path}: repeats a value`);
        for (const value of values) {
          // A value (OPEN, NOT_STARTED) or a field name (order_by.field, clear): never a spelling with spaces.
          if (typeof value !== 'string' || !/^([A-Z0-9_/]+|[a-z0-9_]+)$/.test(value)) {
            problems.push(`${tool.name}${path}: ${String(value)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(140);
  });

  it('accept the documented arguments of whole calls, and refuse undeclared names (camelCase is not advertised)', () => {
    const ajv = strictValidator();
    const check = (name: string, args: Json) => ajv.validate(published.get(name)?.inputSchema ?? {}, args);
    expect(check('addVendor', { organization_id: world.orgA, name: 'Slack', category: 'IT' })).toBe(true);
    expect(
      check('addVendor', { organization_id: world.orgA, name: 'Slack', category: 'CLOUD_PROVIDER' }),
    ).toBe(true);
    expect(
      check('listRisks', { organization_id: world.orgA, filter: { status: ['OPEN', 'IN_TREATMENT'] } }),
    ).toBe(true);
    expect(check('listMeasures', { organization_id: world.orgA, filter: { state: ['NOT_STARTED'] } })).toBe(
      true,
    );
    expect(
      check('listRisks', { organization_id: world.orgA, order_by: { field: 'name', direction: 'ASC' } }),
    ).toBe(true);
    expect(
      check('updateRisk', { id: 'rsk_x', status: 'MITIGATED', clear: ['description', 'owner_id'] }),
    ).toBe(true);
    expect(check('updateRisk', { id: 'rsk_x', clear: ['name'] })).toBe(false);
    expect(
      check('addObligation', { organization_id: world.orgA, requirement: 'R', due_date: '2026-12-31' }),
    ).toBe(true);
    expect(check('listRisks', { organizationId: world.orgA })).toBe(false);
    expect(check('addVendor', { organization_id: world.orgA, name: 'X', category: 'BOGUS' })).toBe(false);
    // Lower case is taken by the server (below) but not published: one spelling to learn.
    expect(check('addVendor', { organization_id: world.orgA, name: 'X', category: 'cloud provider' })).toBe(
      false,
    );
  });

  it('the server accepts over MCP (SDK Client) what the schemas accept, and lower case with spaces, and answers in upper case', async () => {
    const added = await client.callTool({
      name: 'addVendor',
      arguments: { organization_id: world.orgA, name: 'Spelled vendor', category: 'cloud provider' },
    });
    expect(added.isError ?? false).toBe(false);
    expect((added.structuredContent as { vendor: { category: string } }).vendor.category).toBe(
      'CLOUD_PROVIDER',
    );
    const risk = await client.callTool({
      name: 'addRisk',
      arguments: {
        organization_id: world.orgA,
        name: 'Spelled risk',
        inherent_likelihood: 2,
        inherent_impact: 3,
        status: 'in treatment',
        treatment: 'transfer',
      },
    });
    expect((risk.structuredContent as { risk: { status: string } }).risk.status).toBe('IN_TREATMENT');
    const listed = await client.callTool({
      name: 'listRisks',
      arguments: {
        organization_id: world.orgA,
        filter: { status: ['in treatment'], treatment: ['transfer'] },
        order_by: { field: 'name', direction: 'asc' },
      },
    });
    expect((listed.structuredContent as { risks: { name: string }[] }).risks.map((row) => row.name)).toEqual([
      'Spelled risk',
    ]);
  });
});
