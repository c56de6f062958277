// Contract: another organization's ids are not_found for every tool, exactly like ids that do not exist.
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { type ContractHost, callDirect, type HostRef, mcpCallTool, ok } from './host.ts';
import { type RecordIds, sampleArguments, seedRecords } from './samples.ts';

// Tools that take no id of an organization's: its own list, and findTools (the tool map's, the same for everyone).
const SCOPED = [...TOOLS.keys()].filter((name) => !['listOrganizations', 'findTools'].includes(name));

/** Replaces every id in the arguments (a call tool's nested ones too) with one of the same kind that exists nowhere. */
function withUnknownIds(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        return [key, withUnknownIds(value as Record<string, unknown>)];
      const match = typeof value === 'string' ? /^([a-z]{3})_[0-9a-z]{24}$/.exec(value) : null;
      return [key, match ? newId(match[1] as 'org') : value];
    }),
  );
}

/** Every list of Alice's organization, to prove that Bob's attempts changed nothing. */
async function aliceSnapshot(host: ContractHost): Promise<string> {
  const parts: unknown[] = [];
  for (const [name, tool] of TOOLS) {
    // The lists of one organization's records (organization_id required; listCatalogs lists the built-in ones).
    const organization = tool.input.shape.organization_id as { isOptional(): boolean } | undefined;
    if (name.startsWith('list') && organization && !organization.isOptional()) {
      parts.push(
        await ok(host, host.world.tokens.alice, name, {
          organization_id: host.world.orgIsolation,
          size: 100,
        }),
      );
    }
  }
  return JSON.stringify(parts);
}

export function describeIsolationContract(hostRef: HostRef): void {
  describe('another organization is unreachable', () => {
    let aliceIds: RecordIds;
    let before: string;
    const argsByTool = new Map<string, Record<string, unknown>>();

    beforeAll(async () => {
      const host = hostRef();
      aliceIds = await seedRecords(host, host.world.tokens.alice, host.world.orgIsolation);
      // Prepared first: the sample arguments of delete tools add records to Alice's organization.
      for (const name of SCOPED) {
        argsByTool.set(
          name,
          await sampleArguments(host, host.world.tokens.alice, name, host.world.orgIsolation, aliceIds),
        );
      }
      before = await aliceSnapshot(host);
    });

    it.each(SCOPED)(
      '%s with Alice’s ids answers Bob not_found, the same as for ids that exist nowhere',
      async (name) => {
        const host = hostRef();
        const args = argsByTool.get(name) ?? {};
        const foreign = await callDirect(host, host.world.tokens.bob, name, args);
        const missing = await callDirect(host, host.world.tokens.bob, name, withUnknownIds(args));
        expect(foreign.status, JSON.stringify(foreign.body)).toBe(404);
        expect((foreign.body as { error: { code: string } }).error.code).toBe('not_found');
        expect(foreign.body).toEqual(missing.body);
        expect(foreign.status).toBe(missing.status);
      },
    );

    it.each(SCOPED)('%s with Alice’s ids is a not_found tool error for Bob over MCP', async (name) => {
      const host = hostRef();
      const result = await mcpCallTool(host, host.world.tokens.bob, name, argsByTool.get(name) ?? {});
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    });

    it('left every record of Alice’s organization as it was', async () => {
      expect(await aliceSnapshot(hostRef())).toBe(before);
    });

    it('lists only Bob’s own organization to Bob', async () => {
      const host = hostRef();
      const list = await ok<{ organizations: { id: string }[]; total_count: number }>(
        host,
        host.world.tokens.bob,
        'listOrganizations',
      );
      expect(list.organizations.map((organization) => organization.id)).toEqual([host.world.orgBob]);
      expect(list.total_count).toBe(1);
    });

    it('refuses to reference Alice’s records from Bob’s organization', async () => {
      const host = hostRef();
      const asset = await callDirect(host, host.world.tokens.bob, 'addAsset', {
        organization_id: host.world.orgBob,
        name: 'Sneaky',
        vendor_ids: [aliceIds.vendor],
      });
      expect(asset.status).toBe(404);
      const risk = await callDirect(host, host.world.tokens.bob, 'addRisk', {
        organization_id: host.world.orgBob,
        name: 'Sneaky',
        inherent_likelihood: 1,
        inherent_impact: 1,
        owner_id: aliceIds.person,
      });
      expect(risk.status).toBe(404);
      for (const list of ['listAssets', 'listRisks']) {
        const total = await ok<{ total_count: number }>(host, host.world.tokens.bob, list, {
          organization_id: host.world.orgBob,
          filter: { query: 'Sneaky' },
        });
        expect(total.total_count, list).toBe(0);
      }
    });
  });
}
