// Optimistic concurrency of updates: a write that lands between an update's read and its write makes the update
// a conflict, and nothing of the refused update is kept (fields nor relation lists).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import { contextOutsideSeam } from '../../src/tools/types.ts';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

/** The tools whose changes the history holds for a record, oldest first. */
async function historyOf(recordId: string): Promise<string[]> {
  const rows = await runtime.database.db.all<{ tool: string }>(
    sql`select tool from record_changes where record_id = ${recordId} order by created_at, id`,
  );
  return rows.map((row) => row.tool);
}

/**
 * Runs a tool as Alice; `meanwhile` runs another request's write just before the tool's batch number `atBatch`
 * (1-based; reference checks are a batch of their own, before the write).
 */
async function runWithInterleavedWrite(
  tool: string,
  args: Record<string, unknown>,
  meanwhile: () => Promise<unknown>,
  atBatch = 1,
) {
  const auth = await runtime.tokens.authenticate(world.aliceToken);
  if (!auth.ok) throw new Error('alice token refused');
  const definition = TOOLS.get(tool);
  if (!definition) throw new Error(tool);
  const real = runtime.database.db;
  let batches = 0;
  const db = new Proxy(real, {
    get(target, property, receiver) {
      if (property !== 'batch') return Reflect.get(target, property, receiver);
      return async (statements: Parameters<typeof real.batch>[0]) => {
        batches += 1;
        if (batches === atBatch) await meanwhile();
        return real.batch(statements);
      };
    },
  });
  const ctx = contextOutsideSeam(db, auth.principal, () => new Date(), 'direct');
  return definition.run(ctx, definition.input.parse(args)).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('update under a concurrent write', () => {
  it('refuses the update and keeps the relation list as it was', async () => {
    const v1 = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'V1',
    });
    const v2 = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'V2',
    });
    const asset = await ok<{ asset: { id: string } }>(runtime, world.aliceToken, 'addAsset', {
      organization_id: world.orgA,
      name: 'Database',
      vendor_ids: [v1.vendor.id],
    });
    const outcome = await runWithInterleavedWrite(
      'updateAsset',
      { id: asset.asset.id, name: 'Renamed', vendor_ids: [v2.vendor.id] },
      async () => {
        await runtime.database.db.run(
          sql`update assets set updated_at = '2999-01-01T00:00:00.000Z', description = 'other writer' where id = ${asset.asset.id}`,
        );
      },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? null : (outcome.error as { code?: string }).code).toBe('conflict');
    const after = await ok<{ asset: { name: string; description: string; vendor_ids: string[] } }>(
      runtime,
      world.aliceToken,
      'getAsset',
      { id: asset.asset.id },
    );
    expect(after.asset).toMatchObject({
      name: 'Database',
      description: 'other writer',
      vendor_ids: [v1.vendor.id],
    });
    expect(await historyOf(asset.asset.id)).toEqual(['addAsset']);
  });

  it('applies the update and the relation list together when nothing interleaves', async () => {
    const v3 = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'V3',
    });
    const classification = await ok<{ data_classification: { id: string } }>(
      runtime,
      world.aliceToken,
      'addDataClassification',
      {
        organization_id: world.orgA,
        name: 'PII',
      },
    );
    const updated = await ok<{ data_classification: { vendor_ids: string[]; name: string } }>(
      runtime,
      world.aliceToken,
      'updateDataClassification',
      { id: classification.data_classification.id, name: 'Customer PII', vendor_ids: [v3.vendor.id] },
    );
    expect(updated.data_classification).toMatchObject({ name: 'Customer PII', vendor_ids: [v3.vendor.id] });
    expect(updated.data_classification).not.toHaveProperty('write_nonce');
  });
});

describe('references under a concurrent delete', () => {
  async function person(name: string): Promise<string> {
    const result = await ok<{ person: { id: string } }>(runtime, world.aliceToken, 'addPerson', {
      organization_id: world.orgA,
      full_name: name,
      email: `${crypto.randomUUID()}@example.com`,
    });
    return result.person.id;
  }

  it('refuses to add a record owned by a person deleted between the checks and the write', async () => {
    const owner = await person('Leaving soon');
    const outcome = await runWithInterleavedWrite(
      'addRisk',
      {
        organization_id: world.orgA,
        name: 'Orphan risk',
        inherent_likelihood: 2,
        inherent_impact: 3,
        owner_id: owner,
      },
      () => ok(runtime, world.aliceToken, 'deletePerson', { id: owner }),
      2,
    );
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: { code?: string } }).error.code).toBe('not_found');
    const list = await ok<{ total_count: number }>(runtime, world.aliceToken, 'listRisks', {
      organization_id: world.orgA,
      filter: { query: 'Orphan risk' },
    });
    expect(list.total_count).toBe(0);
    const orphans = await runtime.database.db.all(
      sql`select id from record_changes where tool = 'addRisk' and after like '%Orphan risk%'`,
    );
    expect(orphans).toEqual([]);
  });

  it('keeps a framework that an audit started to use between the checks and the delete', async () => {
    const framework = await ok<{ framework: { id: string } }>(runtime, world.aliceToken, 'addFramework', {
      organization_id: world.orgA,
      name: 'SOC 2',
    });
    let auditId = '';
    const outcome = await runWithInterleavedWrite(
      'deleteFramework',
      { id: framework.framework.id },
      async () => {
        const audit = await ok<{ audit: { id: string } }>(runtime, world.aliceToken, 'addAudit', {
          organization_id: world.orgA,
          framework_id: framework.framework.id,
        });
        auditId = audit.audit.id;
      },
    );
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: { code?: string } }).error.code).toBe('conflict');
    const audit = await ok<{ audit: { framework_id: string } }>(runtime, world.aliceToken, 'getAudit', {
      id: auditId,
    });
    expect(audit.audit.framework_id).toBe(framework.framework.id);
    await ok(runtime, world.aliceToken, 'getFramework', { id: framework.framework.id });
    expect(await historyOf(framework.framework.id)).toEqual(['addFramework']);
  });

  it('does not write back the owner of a record whose owner was deleted meanwhile', async () => {
    const owner = await person('Owner gone');
    const risk = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Owned risk',
      inherent_likelihood: 1,
      inherent_impact: 1,
      owner_id: owner,
    });
    const outcome = await runWithInterleavedWrite('updateRisk', { id: risk.risk.id, note: 'late edit' }, () =>
      ok(runtime, world.aliceToken, 'deletePerson', { id: owner }),
    );
    expect(outcome.ok).toBe(false);
    const after = await ok<{ risk: { owner_id: string | null; note: string | null } }>(
      runtime,
      world.aliceToken,
      'getRisk',
      {
        id: risk.risk.id,
      },
    );
    expect(after.risk).toMatchObject({ owner_id: null, note: null });
    // The delete's clearing of the owner is in the history; the refused update is not.
    expect(await historyOf(risk.risk.id)).toEqual(['addRisk', 'deletePerson']);
  });
});
