// Mappings imported by reference: a `Reference,Measures` file updates the requirements it names (within the framework
// a column names, when the reference is in several), never creating a second requirement of the same reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Actor,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

describe('importRecords: requirements matched by reference', () => {
  let runtime: TestRuntime;
  let token: string;
  let alice: Actor;
  let org: string;
  let mfa: string;
  let backups: string;
  const frameworkIds: Record<string, string> = {};

  const importCsv = (csv: string, dryRun = false) =>
    ok(runtime, token, 'importRecords', { organization_id: org, kind: 'requirement', csv, dry_run: dryRun });
  const requirementOf = async (framework: string, reference: string) =>
    (
      await ok(runtime, token, 'getRequirement', {
        organization_id: org,
        requirement: { framework, reference },
      })
    ).requirement as Row;

  beforeAll(async () => {
    runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    alice = await createActor(runtime, 'alice');
    org = await createOrg(runtime, alice, 'Mapping import');
    token = await createToken(runtime, alice);
    await ok(runtime, token, 'importFrameworkCatalog', { organization_id: org, catalog: 'iso-27001-2022' });
    const measure = async (name: string) =>
      String(((await ok(runtime, token, 'addMeasure', { organization_id: org, name })).measure as Row).id);
    mfa = await measure('MFA everywhere');
    backups = await measure('Nightly backups');
    for (const name of ['Internal A', 'Internal B']) {
      const framework = await ok(runtime, token, 'addFramework', { organization_id: org, name });
      frameworkIds[name] = String((framework.framework as Row).id);
      await ok(runtime, token, 'addRequirement', {
        organization_id: org,
        framework_id: frameworkIds[name],
        reference: 'R-1',
        title: `Rule one of ${name}`,
      });
    }
  });

  afterAll(() => runtime.cleanup());

  it('maps measures to the requirements a Reference,Measures file names, updating them in place', async () => {
    const before = await ok(runtime, token, 'listRequirements', { organization_id: org, size: 1 });
    const answer = await importCsv(
      'Reference,Measures\nA.5.15,MFA everywhere\nA.8.13,Nightly backups; MFA everywhere\n',
    );
    expect(answer).toMatchObject({ written: true, counts: { rows: 2, created: 0, updated: 2, refused: 0 } });
    expect((await requirementOf('ISO/IEC 27001:2022', 'A.5.15')).measure_ids).toEqual([mfa]);
    expect(
      [...((await requirementOf('ISO/IEC 27001:2022', 'A.8.13')).measure_ids as string[])].sort(),
    ).toEqual([mfa, backups].sort());
    const after = await ok(runtime, token, 'listRequirements', { organization_id: org, size: 1 });
    expect(after.total_count).toBe(before.total_count);
  });

  it('asks for a framework column when the reference is in several frameworks, and follows it when given', async () => {
    const refused = await importCsv('Reference,Measures\nR-1,Nightly backups\n', true);
    expect(refused).toMatchObject({ counts: { refused: 1, updated: 0 } });
    expect((refused.errors as Row[])[0]).toMatchObject({
      row: 2,
      column: 'Reference',
      field: 'reference',
      message:
        '"R-1" is the reference of 2 records, in different frameworks: add a column naming the framework',
    });
    const chosen = await importCsv('Framework,Reference,Measures\nInternal B,R-1,Nightly backups\n');
    expect(chosen).toMatchObject({ written: true, counts: { created: 0, updated: 1 } });
    expect((await requirementOf('Internal B', 'R-1')).measure_ids).toEqual([backups]);
    expect((await requirementOf('Internal A', 'R-1')).measure_ids).toEqual([]);
  });

  it('getRequirement takes {framework, reference} with a read token, and asks which framework when two have it', async () => {
    const reader = await createToken(runtime, alice, { scope: 'read' });
    const found = await ok(runtime, reader, 'getRequirement', {
      organization_id: org,
      requirement: { framework: 'iso-27001-2022', reference: 'a.5.15' },
    });
    expect(found.requirement).toMatchObject({ reference: 'A.5.15', measure_ids: [mfa] });
    const ambiguous = await callDirect(runtime, reader, 'getRequirement', {
      organization_id: org,
      requirement: { reference: 'R-1' },
    });
    expect(ambiguous.status).toBe(400);
    expect(errorOf(ambiguous).message).toMatch(
      /^requirement: R-1 is in 2 frameworks: .*Give requirement\.framework\.$/,
    );
    expect(errorOf(ambiguous).message).toContain(`Internal A (${frameworkIds['Internal A']})`);
    const both = await callDirect(runtime, reader, 'getRequirement', {
      id: String(found.requirement && (found.requirement as Row).id),
      requirement: { reference: 'A.5.15' },
    });
    expect(errorOf(both).message).toContain('Give id or requirement, not both');
  });

  it('refuses a reference no framework has, naming the framework as the missing column', async () => {
    const refused = await importCsv('Reference,Measures\nZ.9.99,MFA everywhere\n', true);
    expect(refused).toMatchObject({ counts: { refused: 1 } });
    expect((refused.errors as Row[])[0]).toMatchObject({ row: 2, column: null, field: 'framework_id' });
  });
});
