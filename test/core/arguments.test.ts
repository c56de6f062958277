// Argument normalisation: enum spellings, camelCase aliases, prototype keys, nesting depth; link tools move updated_at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH } from '../../src/surfaces/invoke.ts';
import {
  BASE,
  callDirect,
  createTestRuntime,
  createWorld,
  errorOf,
  mcpPost,
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

  it('says which values an enum filter takes, for one value or a list of them', async () => {
    for (const [status, path] of [
      ['BOGUS', 'filter.status'],
      [['OPEN', 'BOGUS'], 'filter.status.1'],
      [7, 'filter.status'],
    ] as const) {
      const result = await callDirect(runtime, world.aliceToken, 'listRisks', {
        organization_id: world.orgA,
        filter: { status },
      });
      const error = errorOf(result);
      expect(error.code).toBe('invalid_arguments');
      expect(error.details).toEqual([{ path, message: expect.stringContaining('expected one of') }]);
      for (const value of ['OPEN', 'IN_TREATMENT', 'ACCEPTED']) expect(error.message).toContain(value);
    }
    // Valid values, too many of them: the list's length is what is wrong.
    const tooMany = await callDirect(runtime, world.aliceToken, 'listRisks', {
      organization_id: world.orgA,
      filter: { status: Array.from({ length: 21 }, () => 'OPEN') },
    });
    expect(errorOf(tooMany).details).toEqual([
      { path: 'filter.status', message: expect.stringMatching(/Too big: .*<=20/) },
    ]);
    const vendors = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      filter: { category: ['saas'] },
    });
    expect(errorOf(vendors).details?.[0]).toMatchObject({ path: 'filter.category.0' });
    expect(errorOf(vendors).message).toMatch(/expected one of .*"CLOUD_PROVIDER"/);
  });

  it('refuses an expected_updated_at that is not a time, instead of calling it a conflict', async () => {
    const added = await ok<{ risk: { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addRisk',
      {
        organization_id: world.orgA,
        name: 'Timed risk',
        inherent_likelihood: 1,
        inherent_impact: 1,
      },
    );
    for (const text of ['yesterday', 'March 7', '2026-03-01', '2026-03-01 09:30']) {
      const result = await callDirect(runtime, world.aliceToken, 'updateRisk', {
        id: added.risk.id,
        name: 'Renamed',
        expected_updated_at: text,
      });
      expect(errorOf(result), text).toMatchObject({
        code: 'invalid_arguments',
        details: [{ path: 'expected_updated_at', message: expect.stringContaining('ISO 8601') }],
      });
    }
    // The same instant with an offset instead of Z is the same time: no conflict.
    const sameInstant = added.risk.updated_at.replace('Z', '+00:00');
    const noted = await ok<{ risk: { note: string } }>(runtime, world.aliceToken, 'updateRisk', {
      id: added.risk.id,
      note: 'same instant',
      expected_updated_at: sameInstant,
    });
    expect(noted.risk.note).toBe('same instant');
    const stale = await callDirect(runtime, world.aliceToken, 'updateRisk', {
      id: added.risk.id,
      name: 'Renamed',
      expected_updated_at: added.risk.updated_at,
    });
    expect(errorOf(stale).code).toBe('conflict');
  });

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

/** JSON text of a value nested `levels` deep (objects or arrays), written by hand: JSON.stringify would recurse. */
function nested(levels: number, shape: 'object' | 'array'): string {
  return shape === 'object'
    ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`
    : `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

describe('argument nesting depth', () => {
  const cases = [10_000, 50_000].flatMap((levels) =>
    (['object', 'array'] as const).map((shape) => ({ levels, shape })),
  );

  it.each(cases)(
    'refuses $levels levels of $shape as invalid_arguments on the direct surface',
    async ({ levels, shape }) => {
      const response = await runtime.app.request(`${BASE}/api/mcp/tools/listVendors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${world.aliceToken}`, 'content-type': 'application/json' },
        body: `{"organization_id":"${world.orgA}","filter":${nested(levels, shape)}}`,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: 'invalid_arguments',
          message: `Argument filter nests deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays.`,
          details: [{ path: 'filter', message: `Nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }],
        },
      });
    },
  );

  it.each(cases)(
    'refuses $levels levels of $shape as invalid_arguments over MCP',
    async ({ levels, shape }) => {
      const response = await mcpPost(
        runtime,
        { authorization: `Bearer ${world.aliceToken}` },
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"addVendor","arguments":{"organization_id":"${world.orgA}","name":${nested(levels, shape)}}}}`,
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        result: { isError: boolean; structuredContent: { error: { code: string; details: unknown } } };
      };
      expect(body.result.isError).toBe(true);
      expect(body.result.structuredContent.error.code).toBe('invalid_arguments');
      expect(body.result.structuredContent.error.details).toEqual([
        { path: 'name', message: `Nested deeper than ${MAX_ARGUMENT_DEPTH} levels` },
      ]);
    },
  );

  it('lets arguments nest up to the limit (then the schema speaks)', async () => {
    // The arguments object is level 1, so the innermost object of this one is at level MAX_ARGUMENT_DEPTH.
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      filter: JSON.parse(nested(MAX_ARGUMENT_DEPTH - 1, 'object')),
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).code).toBe('invalid_arguments');
    expect(errorOf(result).message).not.toContain('nests deeper');
  });

  it('answers MCP arguments that are not an object with JSON-RPC invalid params, not an internal error', async () => {
    for (const value of ['42', 'null', '"text"', '[1]']) {
      const response = await mcpPost(
        runtime,
        { authorization: `Bearer ${world.aliceToken}` },
        `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"listVendors","arguments":${value}}}`,
      );
      const body = (await response.json()) as { error: { code: number } };
      expect({ value, code: body.error.code }).toEqual({ value, code: -32602 });
    }
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
