// Cross-organization isolation for every tool, generated from the map: another organization's ids are not_found,
// exactly like ids that do not exist, on the direct surface and over MCP.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { type RecordIds, sampleArguments, seedRecords } from '../fixtures.ts';
import {
  callDirect,
  createTestRuntime,
  createWorld,
  mcpClient,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let aliceIds: RecordIds;
let bobClient: Client;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  aliceIds = await seedRecords(runtime, world.aliceToken, world.orgA);
  await seedRecords(runtime, world.bobToken, world.orgB);
  bobClient = await mcpClient(runtime, world.bobToken);
});

afterAll(async () => {
  await bobClient.close();
  await runtime.cleanup();
});

/** Replaces every id in the arguments with a well-formed id of the same kind that exists nowhere. */
function withUnknownIds(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      const match = typeof value === 'string' ? /^([a-z]{3})_[0-9a-z]{24}$/.exec(value) : null;
      return [key, match ? newId(match[1] as 'org') : value];
    }),
  );
}

/** Alice's state, to prove that Bob's attempts changed nothing. */
async function aliceSnapshot(): Promise<string> {
  const parts: unknown[] = [];
  for (const name of TOOLS.keys()) {
    if (name.startsWith('list') && name !== 'listOrganizations') {
      parts.push(await ok(runtime, world.aliceToken, name, { organization_id: world.orgA, size: 100 }));
    }
  }
  return JSON.stringify(parts);
}

const scoped = [...TOOLS.keys()].filter((name) => name !== 'listOrganizations');

describe('another organization is unreachable', () => {
  let before: string;
  const argsByTool = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    // Prepared first: sample arguments of delete tools add records to Alice's organization.
    for (const name of scoped)
      argsByTool.set(name, await sampleArguments(runtime, world.aliceToken, name, world.orgA, aliceIds));
    before = await aliceSnapshot();
  });

  it.each(scoped)(
    '%s with Alice’s ids answers Bob not_found, the same as for ids that do not exist',
    async (name) => {
      const args = argsByTool.get(name) ?? {};
      const foreign = await callDirect(runtime, world.bobToken, name, args);
      const missing = await callDirect(runtime, world.bobToken, name, withUnknownIds(args));
      expect(foreign.status, JSON.stringify(foreign.body)).toBe(404);
      expect((foreign.body as { error: { code: string } }).error.code).toBe('not_found');
      expect(foreign.body).toEqual(missing.body);
      expect(foreign.status).toBe(missing.status);
    },
  );

  it.each(scoped)('%s with Alice’s ids is a not_found tool error for Bob over MCP', async (name) => {
    const args = argsByTool.get(name) ?? {};
    const result = await bobClient.callTool({ name, arguments: args });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('left every record of Alice’s organization as it was', async () => {
    expect(await aliceSnapshot()).toBe(before);
  });

  it('lists only Bob’s own organization to Bob', async () => {
    const list = await ok<{ organizations: { id: string }[]; total_count: number }>(
      runtime,
      world.bobToken,
      'listOrganizations',
    );
    expect(list.organizations.map((organization) => organization.id)).toEqual([world.orgB]);
    expect(list.total_count).toBe(1);
  });

  it('refuses to reference Alice’s records from Bob’s organization', async () => {
    const asset = await callDirect(runtime, world.bobToken, 'addAsset', {
      organization_id: world.orgB,
      name: 'Sneaky',
      vendor_ids: [aliceIds.vendor],
    });
    expect(asset.status).toBe(404);
    const risk = await callDirect(runtime, world.bobToken, 'addRisk', {
      organization_id: world.orgB,
      name: 'Sneaky',
      inherent_likelihood: 1,
      inherent_impact: 1,
      owner_id: aliceIds.person,
    });
    expect(risk.status).toBe(404);
    const total = await ok<{ total_count: number }>(runtime, world.bobToken, 'listRisks', {
      organization_id: world.orgB,
      filter: { query: 'Sneaky' },
    });
    expect(total.total_count).toBe(0);
  });
});
