// The change history: every add, update, delete and link/unlink leaves one entry in its own batch, readable with
// listChanges (filters, pages, organization scope); refused writes leave none.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/db/schema.ts';
import type { ChangeRow } from '../../src/tools/changes.ts';
import {
  callDirect,
  createTestRuntime,
  createWorld,
  errorOf,
  mcpClient,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => runtime.cleanup());

async function changesOf(filter: Record<string, unknown>, token = world.aliceToken, org = world.orgA) {
  const result = await ok<{ changes: ChangeRow[]; next_cursor: string | null; total_count: number }>(
    runtime,
    token,
    'listChanges',
    { organization_id: org, filter, size: 100 },
  );
  return result;
}

async function addPerson(name: string): Promise<string> {
  const result = await ok<{ person: { id: string } }>(runtime, world.aliceToken, 'addPerson', {
    organization_id: world.orgA,
    full_name: name,
    email: `${crypto.randomUUID()}@example.com`,
  });
  return result.person.id;
}

async function tokenIdOf(token: string): Promise<string> {
  const auth = await runtime.tokens.authenticate(token);
  if (!auth.ok) throw new Error('token refused');
  return auth.principal.tokenId;
}

describe('what a change records', () => {
  it('records an add with who, which surface, when and every field after; the call log carries its call id', async () => {
    const before = new Date().toISOString();
    const added = await ok<{ vendor: { id: string; created_at: string } }>(
      runtime,
      world.aliceToken,
      'addVendor',
      {
        organization_id: world.orgA,
        name: 'Acme Cloud',
        category: 'cloud provider',
        countries: ['de'],
      },
    );
    const { changes, total_count } = await changesOf({ record_id: added.vendor.id });
    expect(total_count).toBe(1);
    const [change] = changes;
    expect(change).toMatchObject({
      organization_id: world.orgA,
      kind: 'vendor',
      record_id: added.vendor.id,
      action: 'add',
      surface: 'direct',
      tool: 'addVendor',
      user_id: world.alice.userId,
      user_email: world.alice.email,
      token_id: await tokenIdOf(world.aliceToken),
      token_name: 'test token',
      before: null,
      created_at: added.vendor.created_at,
    });
    expect(change?.id).toMatch(/^chg_[0-9a-z]{24}$/);
    expect(String(change?.created_at) >= before).toBe(true);
    expect(change?.after).toMatchObject({
      name: 'Acme Cloud',
      category: 'CLOUD_PROVIDER',
      countries: ['DE'],
      description: null,
    });
    await runtime.usage.flush();
    const [call] = await runtime.database.db
      .select()
      .from(toolCalls)
      .where(eq(toolCalls.call_id, String(change?.call_id)));
    expect(call).toMatchObject({ tool: 'addVendor', outcome: 'ok', surface: 'direct' });
  });

  it('records an update over MCP with only the changed fields, derived scores included', async () => {
    const risk = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Laptop theft',
      inherent_likelihood: 2,
      inherent_impact: 3,
    });
    const client = await mcpClient(runtime, world.aliceToken);
    const result = await client.callTool({
      name: 'updateRisk',
      arguments: { id: risk.risk.id, residual_likelihood: 1, note: 'disk encryption' },
    });
    await client.close();
    expect(result.isError ?? false).toBe(false);
    const { changes } = await changesOf({ record_id: risk.risk.id, action: 'update' });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      surface: 'mcp',
      tool: 'updateRisk',
      before: { residual_likelihood: 2, residual_score: 6, note: null },
      after: { residual_likelihood: 1, residual_score: 3, note: 'disk encryption' },
    });
    expect(Object.keys(changes[0]?.after ?? {}).sort()).toEqual([
      'note',
      'residual_likelihood',
      'residual_score',
    ]);
  });

  it('records relation lists given on add and update', async () => {
    const v1 = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Hoster',
    });
    const v2 = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Backup',
    });
    const asset = await ok<{ asset: { id: string } }>(runtime, world.aliceToken, 'addAsset', {
      organization_id: world.orgA,
      name: 'Servers',
      vendor_ids: [v1.vendor.id],
    });
    await ok(runtime, world.aliceToken, 'updateAsset', {
      id: asset.asset.id,
      vendor_ids: [v1.vendor.id, v2.vendor.id],
    });
    const { changes } = await changesOf({ record_id: asset.asset.id });
    expect(changes.map((change) => change.action)).toEqual(['update', 'add']);
    expect(changes[1]?.after).toMatchObject({ name: 'Servers', vendor_ids: [v1.vendor.id] });
    expect(changes[0]?.before).toEqual({ vendor_ids: [v1.vendor.id] });
    expect(changes[0]?.after).toEqual({ vendor_ids: [v1.vendor.id, v2.vendor.id].sort() });
  });

  it('keeps the history of a deleted record, with its last values as before', async () => {
    const framework = await ok<{ framework: { id: string } }>(runtime, world.aliceToken, 'addFramework', {
      organization_id: world.orgA,
      name: 'ISO 27001',
      version: '2022',
    });
    await ok(runtime, world.aliceToken, 'deleteFramework', { id: framework.framework.id });
    expect(
      (await callDirect(runtime, world.aliceToken, 'getFramework', { id: framework.framework.id })).status,
    ).toBe(404);
    const { changes } = await changesOf({ record_id: framework.framework.id });
    expect(changes.map((change) => change.action)).toEqual(['delete', 'add']);
    expect(changes[0]).toMatchObject({
      tool: 'deleteFramework',
      after: null,
      before: { name: 'ISO 27001', version: '2022', description: null },
    });
  });

  it('records the records a delete changes: a cleared owner and a shortened vendor list', async () => {
    const owner = await addPerson('Leaving');
    const risk = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Owned',
      inherent_likelihood: 1,
      inherent_impact: 1,
      owner_id: owner,
    });
    await ok(runtime, world.aliceToken, 'deletePerson', { id: owner });
    const riskChanges = await changesOf({ record_id: risk.risk.id, action: 'update' });
    expect(riskChanges.changes).toHaveLength(1);
    expect(riskChanges.changes[0]).toMatchObject({
      tool: 'deletePerson',
      kind: 'risk',
      before: { owner_id: owner },
      after: { owner_id: null },
    });
    expect(riskChanges.changes[0]?.id).toMatch(/^chg_[0-9a-f]{24}$/);

    const keep = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Keep',
    });
    const drop = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Drop',
    });
    const classification = await ok<{ data_classification: { id: string } }>(
      runtime,
      world.aliceToken,
      'addDataClassification',
      { organization_id: world.orgA, name: 'PII', vendor_ids: [keep.vendor.id, drop.vendor.id] },
    );
    await ok(runtime, world.aliceToken, 'deleteVendor', { id: drop.vendor.id });
    const listChanges = await changesOf({
      record_id: classification.data_classification.id,
      action: 'update',
    });
    expect(listChanges.changes).toHaveLength(1);
    expect(listChanges.changes[0]).toMatchObject({
      tool: 'deleteVendor',
      kind: 'data_classification',
      before: { vendor_ids: [keep.vendor.id, drop.vendor.id].sort() },
      after: { vendor_ids: [keep.vendor.id] },
    });
  });

  it('records link and unlink with measure_ids before and after, and nothing for a link that was already there', async () => {
    const risk = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Phishing',
      inherent_likelihood: 4,
      inherent_impact: 4,
    });
    const measure = await ok<{ measure: { id: string } }>(runtime, world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Training',
      category: 'People',
    });
    const link = { risk_id: risk.risk.id, measure_id: measure.measure.id };
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', link);
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', link);
    await ok(runtime, world.aliceToken, 'unlinkRiskMeasure', link);
    await ok(runtime, world.aliceToken, 'unlinkRiskMeasure', link);
    const { changes } = await changesOf({ record_id: risk.risk.id });
    expect(changes.map((change) => change.action)).toEqual(['unlink', 'link', 'add']);
    expect(changes[1]).toMatchObject({
      tool: 'linkRiskMeasure',
      before: { measure_ids: [] },
      after: { measure_ids: [measure.measure.id] },
    });
    expect(changes[0]).toMatchObject({
      before: { measure_ids: [measure.measure.id] },
      after: { measure_ids: [] },
    });
  });
});

describe('refused writes leave no history', () => {
  it('writes nothing for a stale update, a refused delete or a read-only token', async () => {
    const framework = await ok<{ framework: { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addFramework',
      { organization_id: world.orgA, name: 'SOC 2' },
    );
    await ok(runtime, world.aliceToken, 'addAudit', {
      organization_id: world.orgA,
      framework_id: framework.framework.id,
    });
    const stale = await callDirect(runtime, world.aliceToken, 'updateFramework', {
      id: framework.framework.id,
      name: 'SOC 2 Type II',
      expected_updated_at: '2020-01-01T00:00:00.000Z',
    });
    expect(errorOf(stale).code).toBe('conflict');
    const refused = await callDirect(runtime, world.aliceToken, 'deleteFramework', {
      id: framework.framework.id,
    });
    expect(errorOf(refused).code).toBe('conflict');
    const readOnly = await callDirect(runtime, world.aliceReadToken, 'updateFramework', {
      id: framework.framework.id,
      name: 'x',
    });
    expect(errorOf(readOnly).code).toBe('insufficient_scope');
    const { changes } = await changesOf({ record_id: framework.framework.id });
    expect(changes.map((change) => change.action)).toEqual(['add']);
  });

  it('writes nothing for an update that changes nothing: updated_at stays, so does expected_updated_at', async () => {
    const added = await ok<{ risk: Record<string, unknown> & { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addRisk',
      {
        organization_id: world.orgA,
        name: 'Unchanged risk',
        description: 'Stays as it is',
        inherent_likelihood: 2,
        inherent_impact: 3,
      },
    );
    const { id, updated_at } = added.risk;
    for (const same of [
      {},
      { name: 'Unchanged risk' },
      {
        name: 'Unchanged risk',
        inherent_likelihood: 2,
        status: added.risk.status,
        expected_updated_at: updated_at,
      },
      { description: 'Stays as it is', inherent_impact: 3 },
    ]) {
      const result = await ok<{ risk: Record<string, unknown> }>(runtime, world.aliceToken, 'updateRisk', {
        id,
        ...same,
      });
      expect(result.risk).toEqual(added.risk);
    }
    // A stale expected_updated_at is still refused, even when nothing would change.
    const stale = await callDirect(runtime, world.aliceToken, 'updateRisk', {
      id,
      expected_updated_at: '2020-01-01T00:00:00.000Z',
    });
    expect(errorOf(stale).code).toBe('conflict');
    // A real change still lands: updated_at moves and the history shows that field only.
    const changed = await ok<{ risk: { updated_at: string; inherent_impact: number } }>(
      runtime,
      world.aliceToken,
      'updateRisk',
      { id, inherent_impact: 4, expected_updated_at: updated_at },
    );
    expect(changed.risk.inherent_impact).toBe(4);
    expect(changed.risk.updated_at > updated_at).toBe(true);
    const { changes } = await changesOf({ record_id: id });
    expect(changes.map((change) => change.action)).toEqual(['update', 'add']);
    expect(Object.keys(changes[0]?.after ?? {})).toContain('inherent_impact');
    expect(Object.keys(changes[0]?.after ?? {})).not.toContain('name');
    // A relation list given as it is (in another order) changes nothing either.
    const vendors = await Promise.all(
      ['Same A', 'Same B'].map((name) =>
        ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
          organization_id: world.orgA,
          name,
        }),
      ),
    );
    const ids = vendors.map((vendor) => vendor.vendor.id);
    const asset = await ok<{ asset: { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addAsset',
      {
        organization_id: world.orgA,
        name: 'Same servers',
        vendor_ids: ids,
      },
    );
    const again = await ok<{ asset: { updated_at: string; vendor_ids: string[] } }>(
      runtime,
      world.aliceToken,
      'updateAsset',
      { id: asset.asset.id, vendor_ids: [...ids].reverse() },
    );
    expect(again.asset.updated_at).toBe(asset.asset.updated_at);
    expect(again.asset.vendor_ids.sort()).toEqual([...ids].sort());
    const assetChanges = await changesOf({ record_id: asset.asset.id });
    expect(assetChanges.changes.map((change) => change.action)).toEqual(['add']);
  });
});

describe('listChanges', () => {
  it('filters by kind, action, token, user, surface, call and time, newest first over pages', async () => {
    const start = new Date().toISOString();
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      const added = await ok<{ measure: { id: string } }>(runtime, world.aliceToken, 'addMeasure', {
        organization_id: world.orgA,
        name: `Paged ${index}`,
        category: 'Tech',
      });
      ids.push(added.measure.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { changes: ChangeRow[]; next_cursor: string | null; total_count: number } = await ok(
        runtime,
        world.aliceToken,
        'listChanges',
        {
          organization_id: world.orgA,
          filter: { kind: 'measure', since: start },
          size: 2,
          ...(cursor ? { cursor } : {}),
        },
      );
      expect(page.total_count).toBe(5);
      expect(page.changes.length).toBeLessThanOrEqual(2);
      seen.push(...page.changes.map((change) => change.record_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const end = new Date(Date.now() + 1000).toISOString();
    const tokenId = await tokenIdOf(world.aliceToken);
    const filtered = await changesOf({
      kind: 'MEASURE',
      action: 'ADD',
      token_id: tokenId,
      user_id: world.alice.userId,
      surface: 'direct',
      since: start,
      until: end,
    });
    expect(filtered.changes.map((change) => change.record_id)).toEqual([...ids].reverse());
    expect((await changesOf({ kind: 'measure', since: start, until: start })).total_count).toBe(0);
    expect((await changesOf({ kind: 'measure', since: start, surface: 'mcp' })).total_count).toBe(0);
    const byCall = await changesOf({ call_id: String(filtered.changes[0]?.call_id) });
    expect(byCall.changes.map((change) => change.record_id)).toEqual([ids[4]]);
  });

  it('refuses malformed filters by name', async () => {
    const result = await callDirect(runtime, world.aliceToken, 'listChanges', {
      organization_id: world.orgA,
      filter: { kind: 'unicorn', since: 'yesterday' },
    });
    expect(errorOf(result).code).toBe('invalid_arguments');
    expect(JSON.stringify(errorOf(result).details)).toContain('filter.kind');
    expect(JSON.stringify(errorOf(result).details)).toContain('filter.since');
  });

  it('shows one organization only: another organization is not_found, and its record ids match nothing', async () => {
    const vendor = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name: 'Secret vendor',
    });
    const foreign = await callDirect(runtime, world.bobToken, 'listChanges', { organization_id: world.orgA });
    expect(errorOf(foreign).code).toBe('not_found');
    const unknown = await callDirect(runtime, world.bobToken, 'listChanges', {
      organization_id: 'org_000000000000000000000000',
    });
    expect(errorOf(unknown)).toEqual(errorOf(foreign));
    const inOwn = await changesOf({ record_id: vendor.vendor.id }, world.bobToken, world.orgB);
    expect(inOwn.total_count).toBe(0);
    // A VIEWER reads the history of the organization like its records.
    const asViewer = await changesOf({ record_id: vendor.vendor.id }, world.vicToken);
    expect(asViewer.changes.map((change) => change.action)).toEqual(['add']);
  });
});
