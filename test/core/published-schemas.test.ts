// The published input schemas tell the truth: a client that validates arguments before sending (ajv, as the SDK
// and strict clients do) accepts every documented spelling, and the server accepts what the schemas accept.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listedTools } from '../../src/surfaces/mcp-server.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createTestRuntime, createWorld, mcpClient, type TestRuntime, type World } from '../helpers.ts';

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

describe('published input schemas and a validating client', () => {
  it('accept each enum value in upper case and in lower case with spaces, everywhere', () => {
    const ajv = strictValidator();
    const refused: string[] = [];
    let checked = 0;
    for (const tool of published.values()) {
      for (const { path, node } of enumNodes(tool.inputSchema)) {
        const validate = ajv.compile(node);
        const canonical = (node.enum as unknown[]).filter(
          (value): value is string => typeof value === 'string' && value === value.toUpperCase(),
        );
        for (const value of canonical) {
          for (const spelling of [value, value.toLowerCase().replace(/_/g, ' ')]) {
            checked += 1;
            if (!validate(spelling)) refused.push(`${tool.name}${path}: ${spelling}`);
          }
        }
      }
    }
    expect(refused).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });

  it('accept the documented arguments of whole calls, and refuse undeclared names (camelCase is not advertised)', () => {
    const ajv = strictValidator();
    const check = (name: string, args: Json) => ajv.validate(published.get(name)?.inputSchema ?? {}, args);
    expect(check('addVendor', { organization_id: world.orgA, name: 'Slack', category: 'it' })).toBe(true);
    expect(
      check('addVendor', { organization_id: world.orgA, name: 'Slack', category: 'cloud provider' }),
    ).toBe(true);
    expect(
      check('listRisks', { organization_id: world.orgA, filter: { status: ['open', 'in treatment'] } }),
    ).toBe(true);
    expect(check('listMeasures', { organization_id: world.orgA, filter: { state: ['not started'] } })).toBe(
      true,
    );
    expect(
      check('listRisks', { organization_id: world.orgA, order_by: { field: 'name', direction: 'asc' } }),
    ).toBe(true);
    expect(
      check('addObligation', { organization_id: world.orgA, requirement: 'R', due_date: '2026-12-31' }),
    ).toBe(true);
    expect(check('listRisks', { organizationId: world.orgA })).toBe(false);
    expect(check('addVendor', { organization_id: world.orgA, name: 'X', category: 'BOGUS' })).toBe(false);
  });

  it('the server accepts over MCP (SDK Client) what the schemas accept, and answers in upper case', async () => {
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
