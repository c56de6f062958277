// Argument normalisation: enum spellings, camelCase aliases, prototype keys; link tools move updated_at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE,
  callDirect,
  createTestRuntime,
  createWorld,
  errorOf,
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

describe('argument normalisation', () => {
  it.each(['not started', 'Not-Started', ' not_started '])(
    'reads the measure state %j as NOT_STARTED',
    async (state) => {
      const result = await ok<{ measure: { state: string } }>(runtime, world.aliceToken, 'addMeasure', {
        organization_id: world.orgA,
        name: `Measure ${state}`,
        state,
      });
      expect(result.measure.state).toBe('NOT_STARTED');
    },
  );

  it('names both spellings of an argument given twice', async () => {
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organizationId: world.orgA,
      organization_id: world.orgA,
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).message).toBe(
      'Argument organization_id is given twice (as organizationId and organization_id).',
    );
  });

  it('refuses a __proto__ key as an unknown argument instead of reading through it', async () => {
    const response = await runtime.app.request(`${BASE}/api/mcp/tools/listVendors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.aliceToken}`, 'content-type': 'application/json' },
      body: `{"__proto__": {"organization_id": "${world.orgA}"}}`,
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_arguments');
    expect(body.error.message).toContain('__proto__');
  });
});

describe('risk-measure links', () => {
  it('move the risk’s updated_at when they change a link, and only then', async () => {
    const risk = await ok<{ risk: { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addRisk',
      {
        organization_id: world.orgA,
        name: 'Linked risk',
        inherent_likelihood: 2,
        inherent_impact: 2,
      },
    );
    const measure = await ok<{ measure: { id: string } }>(runtime, world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Linked measure',
    });
    const pair = { risk_id: risk.risk.id, measure_id: measure.measure.id };
    const stamp = async () =>
      (await ok<{ risk: { updated_at: string } }>(runtime, world.aliceToken, 'getRisk', { id: risk.risk.id }))
        .risk.updated_at;
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', pair);
    const linked = await stamp();
    expect(linked > risk.risk.updated_at).toBe(true);
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', pair);
    expect(await stamp()).toBe(linked);
    await ok(runtime, world.aliceToken, 'unlinkRiskMeasure', pair);
    const unlinked = await stamp();
    expect(unlinked > linked).toBe(true);
    await ok(runtime, world.aliceToken, 'unlinkRiskMeasure', pair);
    expect(await stamp()).toBe(unlinked);
    const stale = await callDirect(runtime, world.aliceToken, 'updateRisk', {
      id: risk.risk.id,
      note: 'x',
      expected_updated_at: linked,
    });
    expect(stale.status).toBe(409);
  });
});
