// Frameworks with their requirements: the tree, applicability and justification, measures mapped to requirements
// with a derived implementation status, the statement of applicability, coverage, and catalog imports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.ts';
import { csfShapedCatalog, csvCatalog, oscalCatalog } from '../catalogs.ts';
import { callDirect, errorOf, ok, type TestRuntime, twoOrganizations } from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let token: string;
let org: string;
let otherOrg: string;
let otherToken: string;

beforeAll(async () => {
  ({ runtime, org, otherOrg, token, otherToken } = await twoOrganizations('Frameworks Org'));
});

afterAll(async () => {
  await runtime?.cleanup();
});

const call = (tool: string, args: Row) => callDirect(runtime, token, tool, args);
const add = async (tool: string, key: string, args: Row) =>
  (await ok(runtime, token, tool, args))[key] as Row;

async function framework(name = 'ISO/IEC 27001', organizationId = org): Promise<string> {
  const added = await ok(runtime, organizationId === org ? token : otherToken, 'addFramework', {
    organization_id: organizationId,
    name,
  });
  return (added.framework as Row).id as string;
}

const requirement = (frameworkId: string, reference: string, extra: Row = {}) =>
  add('addRequirement', 'requirement', {
    organization_id: org,
    framework_id: frameworkId,
    reference,
    title: `Title of ${reference}`,
    ...extra,
  });

const measure = (name: string, state = 'NOT_STARTED') =>
  add('addMeasure', 'measure', { organization_id: org, name, state });

const link = (requirementId: unknown, measureId: unknown) =>
  ok(runtime, token, 'linkRequirementMeasure', { requirement_id: requirementId, measure_id: measureId });

const getRequirement = async (id: unknown) =>
  (await ok(runtime, token, 'getRequirement', { id })).requirement as Row;

describe('requirements as a tree', () => {
  it('derives each requirement’s top-level section, and re-sections a moved subtree', async () => {
    const fw = await framework();
    const annex = await requirement(fw, 'A', { is_section: true });
    const a5 = await requirement(fw, 'A.5', { is_section: true, parent_id: annex.id });
    const control = await requirement(fw, 'A.5.15', { parent_id: a5.id });
    expect([annex.section_id, a5.section_id, control.section_id]).toEqual([null, annex.id, annex.id]);
    expect(annex.implementation_status).toBeNull();
    expect(control.implementation_status).toBe('NOT_COVERED');

    const clauses = await requirement(fw, '4', { is_section: true });
    const moved = await ok(runtime, token, 'updateRequirement', { id: a5.id, parent_id: clauses.id });
    expect((moved.requirement as Row).section_id).toBe(clauses.id);
    expect((await getRequirement(control.id)).section_id).toBe(clauses.id);
    // To the top level: its subtree now sits under it.
    await ok(runtime, token, 'updateRequirement', { id: a5.id, clear: ['parent_id'] });
    expect((await getRequirement(a5.id)).section_id).toBeNull();
    expect((await getRequirement(control.id)).section_id).toBe(a5.id);
  });

  it('keeps references unique within a framework, not across frameworks', async () => {
    const iso = await framework('ISO');
    const soc = await framework('SOC 2');
    await requirement(iso, 'CC6.1');
    const again = await call('addRequirement', {
      organization_id: org,
      framework_id: iso,
      reference: 'CC6.1',
      title: 'Again',
    });
    expect(again.status).toBe(409);
    expect(errorOf(again).message).toContain(
      'Another requirement of this framework already has reference CC6.1',
    );
    expect((await requirement(soc, 'CC6.1')).framework_id).toBe(soc);
  });

  it('refuses a parent of another framework, a cycle, and a framework change', async () => {
    const iso = await framework('ISO cycle');
    const soc = await framework('SOC cycle');
    const top = await requirement(iso, '5', { is_section: true });
    const child = await requirement(iso, '5.1', { parent_id: top.id });
    const foreignParent = await requirement(soc, 'X');
    const wrongFramework = await call('addRequirement', {
      organization_id: org,
      framework_id: iso,
      reference: '5.2',
      title: 'Wrong parent',
      parent_id: foreignParent.id,
    });
    expect(wrongFramework.status).toBe(400);
    expect(errorOf(wrongFramework).details).toEqual([
      { path: 'parent_id', message: 'Belongs to another framework' },
    ]);
    const cycle = await call('updateRequirement', { id: top.id, parent_id: child.id });
    expect(cycle.status).toBe(400);
    expect(errorOf(cycle).details).toEqual([{ path: 'parent_id', message: 'Would make a cycle' }]);
    const self = await call('updateRequirement', { id: top.id, parent_id: top.id });
    expect(self.status).toBe(400);
    const move = await call('updateRequirement', { id: child.id, framework_id: soc });
    expect(move.status).toBe(400);
    expect(errorOf(move).message).toContain('framework_id');
    expect((await getRequirement(child.id)).framework_id).toBe(iso);
  });

  it('needs a justification to exclude a requirement, and then derives NOT_APPLICABLE', async () => {
    const fw = await framework('Excluding');
    const item = await requirement(fw, 'A.7.1');
    const bare = await call('updateRequirement', { id: item.id, applicability: 'excluded' });
    expect(bare.status).toBe(400);
    expect(errorOf(bare).details).toEqual([
      { path: 'justification', message: 'Required when applicability is EXCLUDED' },
    ]);
    const excluded = await ok(runtime, token, 'updateRequirement', {
      id: item.id,
      applicability: 'EXCLUDED',
      justification: 'No offices: fully remote company.',
    });
    expect(excluded.requirement).toMatchObject({
      applicability: 'EXCLUDED',
      implementation_status: 'NOT_APPLICABLE',
    });
    const back = await ok(runtime, token, 'updateRequirement', { id: item.id, applicability: 'APPLICABLE' });
    expect((back.requirement as Row).implementation_status).toBe('NOT_COVERED');
  });

  it('refuses another organization’s framework as not found, as for a missing one', async () => {
    const foreign = await framework('Theirs', otherOrg);
    const refused = await call('addRequirement', {
      organization_id: org,
      framework_id: foreign,
      reference: 'X.1',
      title: 'Nope',
    });
    expect(refused.status).toBe(404);
    expect(errorOf(refused).message).toContain('framework_id');
    const soa = await call('getStatementOfApplicability', { framework_id: foreign });
    const coverage = await call('getFrameworkCoverage', { framework_id: foreign });
    const missing = await call('getFrameworkCoverage', { framework_id: `fwk_${'0'.repeat(24)}` });
    expect([soa.status, coverage.status, missing.status]).toEqual([404, 404, 404]);
    expect(errorOf(coverage)).toEqual(errorOf(missing));
  });
});

describe('measures mapped to requirements', () => {
  it('derives the implementation status from the measures, NOT_APPLICABLE ones ignored', async () => {
    const fw = await framework('Status');
    const item = await requirement(fw, 'A.8.5');
    const mfa = await measure('MFA', 'NOT_STARTED');
    const sso = await measure('SSO', 'NOT_STARTED');
    const badges = await measure('Badges', 'NOT_APPLICABLE');
    const status = async () => (await getRequirement(item.id)).implementation_status;

    await link(item.id, badges.id);
    expect(await status()).toBe('NOT_COVERED');
    await link(item.id, mfa.id);
    expect(await status()).toBe('PLANNED');
    await link(item.id, sso.id);
    await ok(runtime, token, 'updateMeasure', { id: mfa.id, state: 'IN_PROGRESS' });
    expect(await status()).toBe('PARTIALLY_IMPLEMENTED');
    await ok(runtime, token, 'updateMeasure', { id: mfa.id, state: 'IMPLEMENTED' });
    expect(await status()).toBe('PARTIALLY_IMPLEMENTED');
    await ok(runtime, token, 'updateMeasure', { id: sso.id, state: 'IMPLEMENTED' });
    expect(await status()).toBe('IMPLEMENTED');
    await ok(runtime, token, 'unlinkRequirementMeasure', { requirement_id: item.id, measure_id: sso.id });
    expect(await status()).toBe('IMPLEMENTED');
    await ok(runtime, token, 'deleteMeasure', { id: mfa.id });
    expect(await status()).toBe('NOT_COVERED');
  });

  it('shows a link from both sides: the requirement’s measures, the measure’s requirements and risks', async () => {
    const iso = await framework('Both sides ISO');
    const soc = await framework('Both sides SOC');
    const a = await requirement(iso, 'A.5.17');
    const b = await requirement(soc, 'CC6.1');
    const control = await measure('Password manager');
    const risk = await add('addRisk', 'risk', {
      organization_id: org,
      name: 'Reused passwords',
      inherent_likelihood: 4,
      inherent_impact: 4,
    });
    const linked = await link(a.id, control.id);
    expect(linked).toEqual({ requirement_id: a.id, measure_ids: [control.id] });
    await link(b.id, control.id);
    await link(b.id, control.id); // twice is harmless
    await ok(runtime, token, 'linkRiskMeasure', { risk_id: risk.id, measure_id: control.id });
    const shown = (await ok(runtime, token, 'getMeasure', { id: control.id })).measure as Row;
    expect(shown.requirement_ids).toEqual([a.id, b.id].sort());
    expect(shown.risk_ids).toEqual([risk.id]);
    expect((await getRequirement(b.id)).measure_ids).toEqual([control.id]);
    const byMeasure = await ok(runtime, token, 'listRequirements', {
      organization_id: org,
      filter: { measure_id: control.id },
    });
    expect((byMeasure.requirements as Row[]).map((row) => row.reference).sort()).toEqual(['A.5.17', 'CC6.1']);
  });

  it('records each link and unlink in the requirement’s history, and only real changes', async () => {
    const fw = await framework('History');
    const item = await requirement(fw, 'A.5.1');
    const control = await measure('Policy set');
    await link(item.id, control.id);
    await link(item.id, control.id);
    await ok(runtime, token, 'unlinkRequirementMeasure', { requirement_id: item.id, measure_id: control.id });
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: item.id },
    });
    expect((history.changes as Row[]).map((change) => [change.action, change.tool, change.after])).toEqual([
      ['unlink', 'unlinkRequirementMeasure', { measure_ids: [] }],
      ['link', 'linkRequirementMeasure', { measure_ids: [control.id] }],
      ['add', 'addRequirement', expect.objectContaining({ reference: 'A.5.1' })],
    ]);
  });

  it('refuses a measure of another organization as not found', async () => {
    const fw = await framework('Foreign measure');
    const item = await requirement(fw, 'B.1');
    const theirs = (
      await ok(runtime, otherToken, 'addMeasure', { organization_id: otherOrg, name: 'Their control' })
    ).measure as Row;
    const refused = await call('linkRequirementMeasure', { requirement_id: item.id, measure_id: theirs.id });
    expect(refused.status).toBe(404);
    expect(errorOf(refused).message).toBe('Measure not found in the organization of this requirement.');
  });
});

describe('statement of applicability and coverage', () => {
  async function buildFramework() {
    const fw = await framework('SoA');
    const s5 = await requirement(fw, 'A.5', { is_section: true, title: 'Organizational' });
    const s8 = await requirement(fw, 'A.8', { is_section: true, title: 'Technological' });
    const made: Row[] = [];
    for (const n of [1, 2, 10, 9]) made.push(await requirement(fw, `A.5.${n}`, { parent_id: s5.id }));
    const excluded = await requirement(fw, 'A.8.1', {
      parent_id: s8.id,
      applicability: 'EXCLUDED',
      justification: 'No endpoints.',
    });
    const covered = await requirement(fw, 'A.8.2', { parent_id: s8.id });
    const done = await measure('Done control', 'IMPLEMENTED');
    const started = await measure('Started control', 'IN_PROGRESS');
    await link(made[0]?.id, done.id);
    await link(made[1]?.id, started.id);
    await link(covered.id, done.id);
    return { fw, s5, s8, made, excluded, covered, done };
  }

  it('lists every requirement in document order with applicability, justification, status and measures', async () => {
    const { fw, done } = await buildFramework();
    const soa = await ok(runtime, token, 'getStatementOfApplicability', { framework_id: fw, size: 100 });
    const rows = soa.requirements as Row[];
    expect(rows.map((row) => row.reference)).toEqual([
      'A.5',
      'A.5.1',
      'A.5.2',
      'A.5.9',
      'A.5.10',
      'A.8',
      'A.8.1',
      'A.8.2',
    ]);
    expect(soa.total_count).toBe(8);
    expect(rows[1]).toMatchObject({
      implementation_status: 'IMPLEMENTED',
      measures: [{ id: done.id, name: 'Done control', state: 'IMPLEMENTED' }],
    });
    expect(rows[6]).toMatchObject({
      applicability: 'EXCLUDED',
      justification: 'No endpoints.',
      implementation_status: 'NOT_APPLICABLE',
      measures: [],
    });
    expect(rows[0]).toMatchObject({ is_section: true, implementation_status: null });
    expect(soa.framework).toMatchObject({ id: fw, name: 'SoA' });
  });

  it('pages the statement with a cursor, and filters gaps', async () => {
    const { fw } = await buildFramework();
    const seen: string[] = [];
    let cursor: unknown;
    do {
      const page = await ok(runtime, token, 'getStatementOfApplicability', {
        framework_id: fw,
        size: 3,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total_count).toBe(8);
      seen.push(...(page.requirements as Row[]).map((row) => String(row.reference)));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['A.5', 'A.5.1', 'A.5.2', 'A.5.9', 'A.5.10', 'A.8', 'A.8.1', 'A.8.2']);
    const gaps = await ok(runtime, token, 'getStatementOfApplicability', {
      framework_id: fw,
      filter: { implementation_status: ['NOT_COVERED'] },
    });
    expect((gaps.requirements as Row[]).map((row) => row.reference)).toEqual(['A.5.9', 'A.5.10']);
  });

  it('counts coverage for the framework and per section, and in the compliance summary', async () => {
    const { fw, s5, s8 } = await buildFramework();
    const coverage = await ok(runtime, token, 'getFrameworkCoverage', { framework_id: fw });
    expect(coverage.coverage).toEqual({
      requirements: 6,
      applicable: 5,
      excluded: 1,
      by_status: { NOT_COVERED: 2, PLANNED: 0, PARTIALLY_IMPLEMENTED: 1, IMPLEMENTED: 2 },
      implemented_share: 0.4,
      covered_share: 0.6,
    });
    const sections = coverage.sections as { id: string; coverage: Row }[];
    expect(sections.map((section) => section.id)).toEqual([s5.id, s8.id]);
    expect(sections[0]?.coverage).toMatchObject({ requirements: 4, applicable: 4, implemented_share: 0.25 });
    expect(sections[1]?.coverage).toMatchObject({
      requirements: 2,
      applicable: 1,
      excluded: 1,
      implemented_share: 1,
    });
    const summary = await ok(runtime, token, 'getComplianceSummary', { organization_id: org });
    const listed = (summary.frameworks as { id: string; coverage: Row }[]).find((item) => item.id === fw);
    expect(listed?.coverage).toEqual(coverage.coverage);
  });
});

describe('catalog import', () => {
  const shape = { groups: 3, controls: 4, enhancements: 2 };
  const entries = 3 + 3 * 4 + 3 * 4 * 2;

  it('imports an OSCAL catalog: groups as sections, controls and enhancements as requirements', async () => {
    const fw = await framework('OSCAL');
    const imported = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(shape),
    });
    expect(imported.counts).toEqual({ created: entries, updated: 0, unchanged: 0, removed: 0, skipped: 1 });
    expect(imported.skipped).toEqual([{ reference: 'F1-99', reason: 'withdrawn' }]);
    const listed = await ok(runtime, token, 'listRequirements', {
      organization_id: org,
      filter: { framework_id: fw, query: 'F2-3' },
      order_by: { field: 'reference', direction: 'ASC' },
    });
    const [control, first, second] = listed.requirements as Row[];
    expect([control?.reference, first?.reference, second?.reference]).toEqual(['F2-3', 'F2-3(1)', 'F2-3(2)']);
    expect(control?.description).toBe(
      'The team reviews item F2-3 [Assignment: frequency].\na. Records the review [Selection: quarterly; yearly];',
    );
    expect(first?.parent_id).toBe(control?.id);
    const family = await ok(runtime, token, 'listRequirements', {
      organization_id: org,
      filter: { framework_id: fw, is_section: true },
    });
    expect((family.requirements as Row[]).map((row) => row.reference).sort()).toEqual(['F1', 'F2', 'F3']);
    expect(first?.section_id).toBe((family.requirements as Row[]).find((row) => row.reference === 'F2')?.id);
  });

  it('re-imports a new edition by reference: titles update, applicability and links stay, removals are reported', async () => {
    const fw = await framework('Editions');
    await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(shape),
    });
    const again = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(shape),
    });
    expect(again.counts).toMatchObject({ created: 0, updated: 0, unchanged: entries });

    const target = (
      await ok(runtime, token, 'listRequirements', {
        organization_id: org,
        filter: { framework_id: fw, query: 'F1-1(1)' },
      })
    ).requirements as Row[];
    const enhancement = target[0] as Row;
    await ok(runtime, token, 'updateRequirement', {
      id: enhancement.id,
      applicability: 'EXCLUDED',
      justification: 'Not in scope.',
    });
    const control = await measure('Kept link', 'IMPLEMENTED');
    const kept = (
      await ok(runtime, token, 'listRequirements', {
        organization_id: org,
        filter: { framework_id: fw, query: 'F3-4(2)' },
      })
    ).requirements as Row[];
    await link(kept[0]?.id, control.id);

    const smaller = { groups: 3, controls: 3, enhancements: 2, edition: ' (2nd edition)' };
    const dry = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(smaller),
      dry_run: true,
    });
    expect(dry.counts).toEqual({ created: 0, updated: 3 + 9 + 18, unchanged: 0, removed: 3 * 3, skipped: 1 });
    expect(dry.removed).toEqual([
      'F1-4',
      'F1-4(1)',
      'F1-4(2)',
      'F2-4',
      'F2-4(1)',
      'F2-4(2)',
      'F3-4',
      'F3-4(1)',
      'F3-4(2)',
    ]);
    expect((await getRequirement(enhancement.id)).title).toBe('Enhancement F1-1(1)'); // nothing written

    const applied = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(smaller),
    });
    expect(applied.counts).toEqual(dry.counts);
    expect(applied.removed_deleted).toBe(false);
    expect(await getRequirement(enhancement.id)).toMatchObject({
      title: 'Enhancement F1-1(1) (2nd edition)',
      applicability: 'EXCLUDED',
      justification: 'Not in scope.',
    });
    expect((await getRequirement(kept[0]?.id)).measure_ids).toEqual([control.id]);
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: enhancement.id },
    });
    expect((history.changes as Row[])[0]).toMatchObject({
      action: 'update',
      tool: 'importFrameworkCatalog',
      before: { title: 'Enhancement F1-1(1)' },
      after: { title: 'Enhancement F1-1(1) (2nd edition)' },
    });

    const removing = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: oscalCatalog(smaller),
      remove_missing: true,
    });
    expect(removing).toMatchObject({ counts: { removed: 9, unchanged: 30 }, removed_deleted: true });
    expect((await call('getRequirement', { id: kept[0]?.id })).status).toBe(404);
    expect(
      ((await ok(runtime, token, 'getMeasure', { id: control.id })).measure as Row).requirement_ids,
    ).toEqual([]);
  });

  it('reads a CSF 2.0 shaped catalog: ids as references where labels name them, a function’s overview', async () => {
    const fw = await framework('CSF');
    const imported = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'oscal',
      content: csfShapedCatalog(),
    });
    expect(imported.created).toEqual(['GV', 'GV.OC', 'GV.OC-01', 'GV.OC-02']);
    const soa = await ok(runtime, token, 'getStatementOfApplicability', { framework_id: fw });
    expect((soa.requirements as Row[]).map((row) => [row.reference, row.title, row.is_section])).toEqual([
      ['GV', 'GOVERN', true],
      ['GV.OC', 'Context', false],
      ['GV.OC-01', 'GV.OC-01', false],
      ['GV.OC-02', 'GV.OC-02', false],
    ]);
    const govern = (soa.requirements as Row[])[0] as Row;
    expect((await getRequirement(govern.id)).description).toBe('How the team steers its risk work.');
  });

  it('imports a CSV catalog with sections, quotes and commas', async () => {
    const fw = await framework('CSV');
    const imported = await ok(runtime, token, 'importFrameworkCatalog', {
      framework_id: fw,
      format: 'csv',
      content: csvCatalog(2, 3),
    });
    expect(imported.counts).toMatchObject({ created: 2 + 6 + 2 });
    const row = (
      await ok(runtime, token, 'listRequirements', {
        organization_id: org,
        filter: { framework_id: fw, query: 'S2.3' },
      })
    ).requirements as Row[];
    expect(row[0]).toMatchObject({
      title: 'Requirement 2.3',
      description: 'What "2.3" asks, with a comma',
      position: 2,
    });
  });

  it('refuses bad catalogs naming where, and writes nothing', async () => {
    const fw = await framework('Bad catalogs');
    const cases: [string, string, string][] = [
      ['oscal', '{"catalog": {"groups": [{"id": "g1"', 'not JSON'],
      ['oscal', '{"catalog": {"groups": [{"id": "g1", "controls": "none"}]}}', 'catalog.groups[0].title'],
      [
        'oscal',
        '{"catalog": {"groups": [{"id": "g1", "title": "G", "controls": "none"}]}}',
        'catalog.groups[0].controls',
      ],
      ['oscal', '{"groups": []}', 'catalog'],
      ['csv', 'ref,title\nA,"unclosed\nB,fine\n', 'row 2, column 2'],
      ['csv', 'ref,title,owner\nA,Title,Dana\n', 'Unknown column "owner"'],
      ['csv', 'ref,title\nA,One\nA,Two\n', 'Duplicate reference A'],
      ['csv', 'ref,title,parent\nA,One,B\nB,Two,A\n', 'go round in a circle'],
      ['csv', 'ref,title,parent\nA,One,Z\n', 'No entry with reference Z'],
      ['csv', 'ref,title\n', 'No requirements'],
    ];
    for (const [format, content, expected] of cases) {
      const refused = await call('importFrameworkCatalog', { framework_id: fw, format, content });
      expect({ content, status: refused.status }).toEqual({ content, status: 400 });
      expect(errorOf(refused).code).toBe('invalid_arguments');
      expect(errorOf(refused).message).toContain(expected);
    }
    const listed = await ok(runtime, token, 'listRequirements', {
      organization_id: org,
      filter: { framework_id: fw },
    });
    expect(listed.total_count).toBe(0);
  });
});

describe('deleting a framework', () => {
  it('deletes its requirements and their links with it, each with a history row; refused while audits use it', async () => {
    const fw = await framework('Doomed');
    const section = await requirement(fw, 'D', { is_section: true });
    const item = await requirement(fw, 'D.1', { parent_id: section.id });
    const control = await measure('Survives');
    await link(item.id, control.id);
    const audit = await add('addAudit', 'audit', { organization_id: org, framework_id: fw });
    const refused = await call('deleteFramework', { id: fw });
    expect(refused.status).toBe(409);
    expect((await getRequirement(item.id)).id).toBe(item.id);
    await ok(runtime, token, 'deleteAudit', { id: audit.id });
    expect(TOOLS.get('deleteFramework')?.description).toBe(
      'Delete a framework; cannot be undone. Its requirements are deleted with it. Refused (conflict) while audits still point at it.',
    );
    expect(await ok(runtime, token, 'deleteFramework', { id: fw })).toEqual({ id: fw, deleted: true });
    expect((await call('getRequirement', { id: item.id })).status).toBe(404);
    expect(
      ((await ok(runtime, token, 'getMeasure', { id: control.id })).measure as Row).requirement_ids,
    ).toEqual([]);
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: item.id },
    });
    expect((history.changes as Row[])[0]).toMatchObject({
      action: 'delete',
      tool: 'deleteFramework',
      before: expect.objectContaining({ reference: 'D.1', parent_id: section.id }),
      after: null,
    });
  });
});
