// The demo organization adopts the full ISO/IEC 27001:2022 and SOC 2 catalogues: its measures are mapped to ISO
// controls by reference, the crosswalk's proposals into SOC 2 accepted, so both have coverage on first sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoAccount, seedDemo } from '../../src/demo/seed.ts';
import { createTestRuntime, ok, type TestRuntime } from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let demo: DemoAccount;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  demo = await seedDemo(runtime.database.db, runtime.tokens, () => new Date());
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('the demo adopts built-in catalogues', () => {
  it('holds ISO/IEC 27001:2022 and SOC 2 in full, each with coverage', async () => {
    const listed = (await ok(runtime, demo.token, 'listCatalogs', { organization_id: demo.organization_id }))
      .catalogs as Row[];
    const adopted = listed.filter((item) => item.adopted !== null).map((item) => item.key);
    expect(adopted).toEqual(['iso-27001-2022', 'soc2-2017']);
    const coverage = async (key: string) => {
      const id = ((listed.find((item) => item.key === key) as Row).adopted as Row).framework_id;
      return (await ok(runtime, demo.token, 'getFrameworkCoverage', { framework_id: id })).coverage as Row;
    };
    const iso = await coverage('iso-27001-2022');
    expect([iso.requirements, iso.excluded]).toEqual([123, 2]);
    expect(iso.implemented_share).toBeGreaterThan(0);
    const soc = await coverage('soc2-2017');
    expect(soc.requirements).toBe(61);
    // Accepted crosswalk proposals map the demo's measures into SOC 2.
    expect(soc.implemented_share).toBeGreaterThan(0);
    expect(soc.covered_share).toBeGreaterThan(0.2);
    const pending = await ok(runtime, demo.token, 'listMappingProposals', {
      organization_id: demo.organization_id,
      filter: { status: ['ACCEPTED'] },
    });
    expect(pending.total_count).toBeGreaterThan(10);
  });
});
