// Labels beside ids: a record answers what the records it refers to are called (a person's full name, a
// requirement's reference and title, a measure's name), on get, list and write results, and follows renames.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
});

afterAll(async () => {
  await runtime.cleanup();
});

async function add(tool: string, key: string, args: Row): Promise<Row> {
  return (await ok(runtime, world.aliceToken, tool, { organization_id: world.orgA, ...args }))[key] as Row;
}

describe('labels beside ids', () => {
  it('names the owner, the linked measures and requirements without another call, and follows a rename', async () => {
    const person = await add('addPerson', 'person', {
      full_name: 'Alice Martin',
      email: 'alice.m@example.com',
    });
    const measure = await add('addMeasure', 'measure', { name: 'Multi-factor authentication' });
    const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001' });
    const requirement = await add('addRequirement', 'requirement', {
      framework_id: framework.id,
      reference: 'A.5.18',
      title: 'Access rights',
    });
    await ok(runtime, world.aliceToken, 'linkRequirementMeasure', {
      requirement_id: requirement.id,
      measure_id: measure.id,
    });
    const risk = await add('addRisk', 'risk', {
      name: 'Stolen passwords',
      owner_id: person.id,
      inherent_likelihood: 4,
      inherent_impact: 4,
    });
    // The write's own answer carries them.
    expect(risk.labels).toEqual({ [String(person.id)]: 'Alice Martin' });
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', { risk_id: risk.id, measure_id: measure.id });
    const read = (await ok(runtime, world.aliceToken, 'getRisk', { id: risk.id })).risk as Row;
    expect(read.labels).toEqual({
      [String(person.id)]: 'Alice Martin',
      [String(measure.id)]: 'Multi-factor authentication',
    });

    const got = (await ok(runtime, world.aliceToken, 'getMeasure', { id: measure.id })).measure as Row;
    expect(got.requirement_ids).toEqual([requirement.id]);
    expect(got.labels).toEqual({
      [String(requirement.id)]: 'A.5.18 Access rights',
      [String(risk.id)]: 'Stolen passwords',
    });

    await ok(runtime, world.aliceToken, 'updatePerson', { id: person.id, full_name: 'Alice Martin-Dupont' });
    const listed = await ok(runtime, world.aliceToken, 'listRisks', { organization_id: world.orgA });
    const row = (listed.risks as Row[]).find((item) => item.id === risk.id);
    expect(row?.labels).toEqual({
      [String(person.id)]: 'Alice Martin-Dupont',
      [String(measure.id)]: 'Multi-factor authentication',
    });
  });

  it('answers an empty map when nothing is referenced, and no labels on a kind that refers to nothing', async () => {
    const vendor = await add('addVendor', 'vendor', { name: 'Nimbus Storage' });
    expect(vendor.labels).toEqual({});
    const person = await add('addPerson', 'person', { full_name: 'Bea Lind', email: 'bea@example.com' });
    expect('labels' in person).toBe(false);
  });
});
