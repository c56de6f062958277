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

/**
 * Every schema node below a root (properties, items, anyOf options) that is not typed portably, with its path. In
 * tools/list (`nullable`), an optional property lists "null" beside its type, and an enum filter "string" beside
 * "array" (one value or a list): the forms validating clients keep (ToolJsonSchemas.mcpInput).
 */
function untyped(node: Json, path: string, nullable = false): string[] {
  const problems: string[] = [];
  const allowedList = (type: unknown[]) =>
    nullable &&
    type.length >= 2 &&
    type.at(-1) === 'null' &&
    (type.length === 2
      ? type[0] !== 'null'
      : type.length === 3 && type[0] === 'array' && type[1] === 'string');
  if (Array.isArray(node.type) && !allowedList(node.type))
    problems.push(`${path}: type list ${JSON.stringify(node.type)}`);
  else if (node.type === undefined && !Array.isArray(node.anyOf)) problems.push(`${path}: no type`);
  if (Array.isArray(node.enum) && typeof node.type !== 'string') problems.push(`${path}: enum without type`);
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    problems.push(...untyped(property, `${path}.${name}`, nullable));
  }
  if (node.items) problems.push(...untyped(node.items as Json, `${path}[]`, nullable));
  for (const option of (node.anyOf ?? []) as Json[]) problems.push(...untyped(option, `${path}|`, nullable));
  return problems;
}

describe('every published input schema (tools/list and OpenAPI, toolsets=all)', () => {
  it('types every property, with type lists only for null in tools/list, and gives every enum its type', async () => {
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
        nullable: true,
      })),
      ...Object.values(openApi.paths).map(({ post }) => ({
        name: `openapi ${post.operationId}`,
        schema: post.requestBody.content['application/json']?.schema as Json,
        nullable: false,
      })),
    ];
    expect(inputs).toHaveLength(2 * TOOLS.size);
    expect(inputs.flatMap(({ name, schema, nullable }) => untyped(schema, name, nullable))).toEqual([]);
    // The walk finds what it looks for.
    expect(
      untyped(
        { type: 'object', properties: { a: {}, b: { type: ['string', 'null'] }, c: { enum: ['X'] } } },
        'x',
      ),
    ).toEqual(['x.a: no type', 'x.b: type list ["string","null"]', 'x.c: no type', 'x.c: enum without type']);
    expect(
      untyped(
        {
          type: 'object',
          properties: {
            b: { type: ['string', 'null'] },
            c: { type: ['array', 'string', 'null'] },
            d: { type: ['null', 'null'] },
            e: { type: ['string', 'integer'] },
          },
        },
        'x',
        true,
      ),
    ).toEqual(['x.d: type list ["null","null"]', 'x.e: type list ["string","integer"]']);
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
    expect(checked).toBeGreaterThan(100);
    // tools/list keeps an enum only where the server takes exactly those values (sort fields, fields to clear): the
    // values it reads in any case are said in the description (`Any of: OPEN, ...`), which a validating client lets
    // through in any case.
    const exact = [...published.values()].flatMap((tool) =>
      enumNodes(tool.inputSchema).map(({ path }) => `${tool.name}${path}`),
    );
    const exactOnServer = /\.order_by\.field$|\.clear\[\]$|^importFrameworkCatalog\.format$/;
    expect(exact.filter((path) => !exactOnServer.test(path))).toEqual([]);
    expect(exact.length).toBeGreaterThan(30);
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
    // What the server takes in any case with spaces (below) passes a validating client too; its values are in the
    // description, and the server refuses any other with the list.
    expect(check('addVendor', { organization_id: world.orgA, name: 'X', category: 'cloud provider' })).toBe(
      true,
    );
    expect(check('listRisks', { organization_id: world.orgA, filter: { status: 'open' } })).toBe(true);
    expect(check('updateVendor', { id: 'ven_x', description: null })).toBe(true);
    expect(check('addVendor', { organization_id: world.orgA, name: null })).toBe(false);
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
