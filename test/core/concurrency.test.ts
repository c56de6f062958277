// Optimistic concurrency of updates: a write that lands between an update's read and its write makes the update
// a conflict, and nothing of the refused update is kept (fields nor relation lists).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

/** Runs a tool as Alice; `meanwhile` changes the record after the tool read it, just before its write batch. */
async function runWithInterleavedWrite(
  tool: string,
  args: Record<string, unknown>,
  meanwhile: () => Promise<void>,
) {
  const auth = await runtime.tokens.authenticate(world.aliceToken);
  if (!auth.ok) throw new Error('alice token refused');
  const definition = TOOLS.get(tool);
  if (!definition) throw new Error(tool);
  const real = runtime.database.db;
  let interleaved = false;
  const db = new Proxy(real, {
    get(target, property, receiver) {
      if (property !== 'batch') return Reflect.get(target, property, receiver);
      return async (statements: Parameters<typeof real.batch>[0]) => {
        // The first batch of update tools is their write (their reads are single queries).
        if (!interleaved) {
          interleaved = true;
          await meanwhile();
        }
        return real.batch(statements);
      };
    },
  });
  const ctx: ToolContext = { db, principal: auth.principal, organizationId: null, now: () => new Date() };
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
