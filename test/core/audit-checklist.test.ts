// An audit's scope, checklist and findings: a result per requirement in scope (refused outside it, naming it), a
// NONCONFORMITY raising its graded nonconformity in the same write and never twice, the programme's figures from the
// checklist, the report file kept by upkeep and scoped to the organization, and another organization seeing none of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFiles } from '../../src/db/schema.ts';
import { fileUpkeep } from '../../src/files/upkeep.ts';
import {
  BASE,
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

let runtime: TestRuntime;
let clock = new Date('2026-11-28T09:00:00.000Z');
let token: string;
let otherToken: string;
let org: string;
let otherOrg: string;
let framework: string;
let otherFramework: string;
let reqs: Row[];
let risk: Row;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Audited Org');
  otherOrg = await createOrg(runtime, bob, 'Other Org');
  token = await createToken(runtime, alice);
  otherToken = await createToken(runtime, bob);
  const add = async (tool: string, args: Row, key: string) =>
    (await ok(runtime, token, tool, { organization_id: org, ...args }))[key] as Row;
  framework = String((await add('addFramework', { name: 'ISO/IEC 27001' }, 'framework')).id);
  otherFramework = String((await add('addFramework', { name: 'SOC 2' }, 'framework')).id);
  reqs = [];
  for (const [reference, title] of [
    ['9.2', 'Internal audit'],
    ['A.5.18', 'Access rights'],
    ['A.8.1', 'User endpoint devices'],
  ])
    reqs.push(await add('addRequirement', { framework_id: framework, reference, title }, 'requirement'));
  risk = await add('addRisk', { name: 'Stolen laptop', inherent_likelihood: 3, inherent_impact: 4 }, 'risk');
});

afterAll(async () => {
  await runtime?.cleanup();
});

const idOf = (index: number) => String(reqs[index]?.id);

async function addAudit(values: Row): Promise<Row> {
  return (await ok(runtime, token, 'addAudit', { organization_id: org, framework_id: framework, ...values }))
    .audit as Row;
}

async function upload(orgId: string, as: string, name: string): Promise<Row> {
  const response = await runtime.app.fetch(
    new Request(`${BASE}/api/v1/orgs/${orgId}/files?name=${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/octet-stream' },
      body: `%PDF-1.7\n%${name}\n`,
    }),
  );
  expect(response.status).toBe(201);
  return ((await response.json()) as { file: Row }).file;
}

const record = (args: Row, as = token) => callDirect(runtime, as, 'recordAuditChecklistResult', args);

describe('audit scope and report', () => {
  it("keeps a scope of the framework's requirements, refusing another framework's", async () => {
    const audit = await addAudit({ name: 'Scoped', requirement_ids: [idOf(0), idOf(1)] });
    expect([...(audit.requirement_ids as string[])].sort()).toEqual([idOf(0), idOf(1)].sort());
    const soc = (
      await ok(runtime, token, 'addRequirement', {
        organization_id: org,
        framework_id: otherFramework,
        reference: 'CC6.1',
        title: 'Logical access',
      })
    ).requirement as Row;
    const refused = await callDirect(runtime, token, 'updateAudit', {
      id: audit.id,
      requirement_ids: [idOf(0), soc.id],
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toContain(`Requirement CC6.1 (${soc.id}) is of another framework`);
    const kept = (await ok(runtime, token, 'getAudit', { id: audit.id })).audit as Row;
    expect((kept.requirement_ids as string[]).length).toBe(2);
    // Moving the audit to another framework keeps no scope of the first: refused unless the scope moves too.
    const moved = await callDirect(runtime, token, 'updateAudit', {
      id: audit.id,
      framework_id: otherFramework,
    });
    expect(errorOf(moved).message).toContain('is of another framework than the one audited');
    const rescoped = (
      await ok(runtime, token, 'updateAudit', {
        id: audit.id,
        framework_id: otherFramework,
        requirement_ids: [soc.id],
      })
    ).audit as Row;
    expect(rescoped.requirement_ids).toEqual([soc.id]);
  });

  it("takes a report file of its organization, refuses another's as not_found, and upkeep keeps it", async () => {
    clock = new Date('2026-11-28T09:00:00.000Z');
    const report = await upload(org, token, 'report.pdf');
    const dropped = await upload(org, token, 'dropped.pdf');
    const theirs = await upload(otherOrg, otherToken, 'theirs.pdf');
    const crossed = await callDirect(runtime, token, 'addAudit', {
      organization_id: org,
      framework_id: framework,
      report_file_id: theirs.id,
    });
    expect(errorOf(crossed).code).toBe('not_found');
    const audit = await addAudit({ name: 'Reported', report_file_id: report.id });
    expect(audit.report_file_id).toBe(report.id);
    await fileUpkeep(runtime.database.db, runtime.files.store, new Date('2026-11-30T09:00:00.000Z'));
    const ids = (await runtime.database.db.select({ id: storedFiles.id }).from(storedFiles)).map(
      (row) => row.id,
    );
    expect(ids).toContain(report.id);
    expect(ids).not.toContain(dropped.id);
  });
});

describe('import of audits', () => {
  it('imports the scope by reference, and reads a report file column without writing it', async () => {
    const theirs = await upload(otherOrg, otherToken, 'imported.pdf');
    const done = await ok(runtime, token, 'importRecords', {
      organization_id: org,
      kind: 'audit',
      csv: `Framework,Name,Report file,Requirements in scope\nISO/IEC 27001,Imported,${theirs.id},9.2 Internal audit\n`,
    });
    expect(done).toMatchObject({ written: true, counts: { created: 1, refused: 0 } });
    expect((done.columns as Row[]).find((column) => column.header === 'Report file')?.status).toBe(
      'read_only',
    );
    const [imported] = (
      await ok(runtime, token, 'listAudits', { organization_id: org, filter: { query: 'Imported' } })
    ).audits as Row[];
    expect(imported).toMatchObject({ report_file_id: null, requirement_ids: [idOf(0)] });
  });
});

describe('recordAuditChecklistResult', () => {
  it('refuses a requirement outside the scope, naming it, and writes nothing', async () => {
    const audit = await addAudit({ name: 'Q3 internal', requirement_ids: [idOf(0)] });
    const refused = await record({ audit_id: audit.id, requirement_id: idOf(2), result: 'CONFORMING' });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toBe(
      `Requirement A.8.1 (${idOf(2)}) is not in the scope of this audit. Add it to the audit's requirement_ids (updateAudit) first, or record the result in the audit that has it in scope.`,
    );
    const listed = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id });
    expect(listed.counts).toEqual({
      CONFORMING: 0,
      NONCONFORMITY: 0,
      OBSERVATION: 0,
      OPPORTUNITY_FOR_IMPROVEMENT: 0,
      NOT_AUDITED: 1,
    });
  });

  it('records and corrects results; a NONCONFORMITY raises its graded finding once, in the same write', async () => {
    const audit = await addAudit({
      name: 'Internal audit 2026',
      audit_type: 'INTERNAL',
      actual_start_on: '2026-10-06',
      actual_end_on: '2026-10-08',
      requirement_ids: [idOf(0), idOf(1), idOf(2)],
    });
    const conforming = (
      await ok(runtime, token, 'recordAuditChecklistResult', {
        audit_id: audit.id,
        requirement_id: idOf(0),
        result: 'conforming',
        notes: 'Programme approved in January.',
      })
    ).item as Row;
    expect(conforming).toMatchObject({ result: 'CONFORMING', recorded: true, reference: '9.2' });
    // A NONCONFORMITY without its finding is refused; with a grade other than MAJOR or MINOR too.
    const bare = await record({ audit_id: audit.id, requirement_id: idOf(2), result: 'NONCONFORMITY' });
    expect(errorOf(bare).message).toContain('give raise_nonconformity');
    const graded = await record({
      audit_id: audit.id,
      requirement_id: idOf(2),
      result: 'NONCONFORMITY',
      raise_nonconformity: { reference_id: 'NC-2026-020', grade: 'OBSERVATION' },
    });
    expect(errorOf(graded).message).toContain('MAJOR or MINOR');
    const raised = await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: idOf(2),
      result: 'NONCONFORMITY',
      notes: 'Two of 25 laptops without disk encryption.',
      raise_nonconformity: { reference_id: 'NC-2026-020', grade: 'minor', risk_ids: [risk.id] },
    });
    const finding = raised.raised_nonconformity as Row;
    expect(finding).toMatchObject({
      reference_id: 'NC-2026-020',
      grade: 'MINOR',
      clause: 'A.8.1',
      audit_id: audit.id,
      status: 'OPEN',
      date_identified: '2026-10-08',
      description: 'Two of 25 laptops without disk encryption.',
      requirement_ids: [idOf(2)],
      risk_ids: [risk.id],
    });
    expect(raised.item).toMatchObject({
      result: 'NONCONFORMITY',
      nonconformity_id: finding.id,
      nonconformity_reference: 'NC-2026-020',
      nonconformity_grade: 'MINOR',
    });
    // Raising again is refused, naming the finding: nothing is written twice.
    const twice = await record({
      audit_id: audit.id,
      requirement_id: idOf(2),
      result: 'NONCONFORMITY',
      raise_nonconformity: { reference_id: 'NC-2026-021', grade: 'MAJOR' },
    });
    expect(twice.status).toBe(409);
    expect(errorOf(twice).message).toContain(String(finding.id));
    const findings = await ok(runtime, token, 'listNonconformities', {
      organization_id: org,
      filter: { audit_id: audit.id },
    });
    expect((findings.nonconformities as Row[]).map((row) => row.reference_id)).toEqual(['NC-2026-020']);
    // The finding is found from its requirement and its risk.
    for (const filter of [{ requirement_id: idOf(2) }, { risk_id: risk.id }]) {
      const linked = await ok(runtime, token, 'listNonconformities', { organization_id: org, filter });
      expect((linked.nonconformities as Row[]).map((row) => row.id)).toEqual([finding.id]);
    }
    // A later correction keeps the finding and the notes not given.
    const corrected = (
      await ok(runtime, token, 'recordAuditChecklistResult', {
        audit_id: audit.id,
        requirement_id: idOf(2),
        result: 'NONCONFORMITY',
      })
    ).item as Row;
    expect(corrected).toMatchObject({
      nonconformity_id: finding.id,
      notes: 'Two of 25 laptops without disk encryption.',
    });
    const listed = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id });
    expect((listed.items as Row[]).map((row) => [row.reference, row.result, row.recorded])).toEqual([
      ['9.2', 'CONFORMING', true],
      ['A.5.18', 'NOT_AUDITED', false],
      ['A.8.1', 'NONCONFORMITY', true],
    ]);
    expect(listed.counts).toMatchObject({ CONFORMING: 1, NONCONFORMITY: 1, NOT_AUDITED: 1 });
    const only = await ok(runtime, token, 'listAuditChecklist', {
      audit_id: audit.id,
      filter: { result: ['NONCONFORMITY'] },
      size: 1,
    });
    expect((only.items as Row[]).map((row) => row.reference)).toEqual(['A.8.1']);
    expect(only.next_cursor).toBeNull();
    const paged = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id, size: 2 });
    const rest = await ok(runtime, token, 'listAuditChecklist', {
      audit_id: audit.id,
      size: 2,
      cursor: paged.next_cursor,
    });
    expect((rest.items as Row[]).map((row) => row.reference)).toEqual(['A.8.1']);
    // The audit's history has each checklist change, the finding its add.
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: audit.id },
    });
    const checklist = (history.changes as Row[])
      .filter((change) => change.tool === 'recordAuditChecklistResult')
      .map((change) => ((change.after as Row).checklist as Row).result);
    expect(checklist.sort()).toEqual(['CONFORMING', 'NONCONFORMITY', 'NONCONFORMITY']);
    const added = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: finding.id },
    });
    expect((added.changes as Row[]).map((change) => [change.action, change.tool])).toEqual([
      ['add', 'recordAuditChecklistResult'],
    ]);
  });
});

describe('findings raised at once, and clean-up', () => {
  it('raises one nonconformity when two calls raise one for the same result at the same time', async () => {
    const audit = await addAudit({ name: 'Race', requirement_ids: [idOf(1)] });
    const raise = (reference_id: string) =>
      record({
        audit_id: audit.id,
        requirement_id: idOf(1),
        result: 'NONCONFORMITY',
        raise_nonconformity: { reference_id, grade: 'MAJOR' },
      });
    const answers = await Promise.all([raise('NC-RACE-1'), raise('NC-RACE-2')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const findings = await ok(runtime, token, 'listNonconformities', {
      organization_id: org,
      filter: { audit_id: audit.id },
    });
    expect((findings.nonconformities as Row[]).length).toBe(1);
    const listed = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id });
    expect((listed.items as Row[])[0]?.nonconformity_id).toBe((findings.nonconformities as Row[])[0]?.id);
  });

  it("removes an audit's results with it, and forgets a deleted finding", async () => {
    const audit = await addAudit({ name: 'Deleted', requirement_ids: [idOf(0), idOf(1)] });
    const raised = await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: idOf(0),
      result: 'OBSERVATION',
      raise_nonconformity: { reference_id: 'NC-OBS-1' },
    });
    const finding = raised.raised_nonconformity as Row;
    expect(finding.grade).toBe('OBSERVATION');
    await ok(runtime, token, 'deleteNonconformity', { id: finding.id });
    const listed = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id });
    expect((listed.items as Row[])[0]).toMatchObject({ result: 'OBSERVATION', nonconformity_id: null });
    // Notes are kept when left out, and emptied when named in `clear`.
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: idOf(1),
      result: 'CONFORMING',
      notes: 'Sampled five changes.',
    });
    const result = (notesOf: Row) =>
      (notesOf.items as Row[]).find((item) => item.notes !== undefined && item.result === 'CONFORMING');
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: idOf(1),
      result: 'CONFORMING',
    });
    expect(result(await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id }))).toMatchObject({
      notes: 'Sampled five changes.',
    });
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: idOf(1),
      result: 'CONFORMING',
      clear: ['notes'],
    });
    expect(result(await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id }))).toMatchObject({
      notes: null,
    });
    const rows = async () =>
      (
        await runtime.database.client.execute({
          sql: 'select count(*) as n from audit_checklist_results where audit_id = ?',
          args: [String(audit.id)],
        })
      ).rows[0]?.n;
    expect(await rows()).toBe(2);
    await ok(runtime, token, 'deleteAudit', { id: audit.id });
    expect(await rows()).toBe(0);
  });
});

describe('getAuditProgramme', () => {
  it('counts a requirement audited by a checklist result other than NOT_AUDITED, in an audit that took place', async () => {
    // The audits above: 9.2 CONFORMING and A.8.1 NONCONFORMITY on 2026-10-08; A.5.18 in scope, never checked.
    const planned = await addAudit({
      name: 'Planned',
      planned_start_on: '2027-02-01',
      requirement_ids: [idOf(1)],
    });
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: planned.id,
      requirement_id: idOf(1),
      result: 'CONFORMING',
    });
    const skipped = await addAudit({
      name: 'Skipped',
      audit_type: 'SURVEILLANCE',
      actual_start_on: '2026-03-01',
      requirement_ids: [idOf(1)],
    });
    await ok(runtime, token, 'recordAuditChecklistResult', {
      audit_id: skipped.id,
      requirement_id: idOf(1),
      result: 'NOT_AUDITED',
    });
    const programme = await ok(runtime, token, 'getAuditProgramme', { framework_id: framework });
    expect(programme.since).toBe('2023-11-28');
    expect(programme.years).toEqual([
      { year: 2026, audits: 2, by_type: { INTERNAL: 1, SURVEILLANCE: 1 } },
      { year: 2027, audits: 1, by_type: { NONE: 1 } },
    ]);
    expect([programme.applicable, programme.audited_count, programme.not_audited_count]).toEqual([3, 2, 1]);
    expect((programme.audited as Row[]).map((row) => [row.reference, row.last_audited_on])).toEqual([
      ['9.2', '2026-10-08'],
      ['A.8.1', '2026-10-08'],
    ]);
    expect((programme.not_audited as Row[]).map((row) => row.reference)).toEqual(['A.5.18']);
  });

  it('shows another organization nothing: not_found for the programme, the checklist and a record', async () => {
    const audit = await addAudit({ name: 'Private', requirement_ids: [idOf(1)] });
    for (const [tool, args] of [
      ['getAuditProgramme', { framework_id: framework }],
      ['listAuditChecklist', { audit_id: audit.id }],
      ['recordAuditChecklistResult', { audit_id: audit.id, requirement_id: idOf(1), result: 'CONFORMING' }],
    ] as const) {
      const answer = await callDirect(runtime, otherToken, tool, args);
      expect(errorOf(answer).code).toBe('not_found');
    }
    const theirs = (
      await ok(runtime, otherToken, 'addFramework', { organization_id: otherOrg, name: 'ISO/IEC 27001' })
    ).framework as Row;
    const scoped = await callDirect(runtime, otherToken, 'addAudit', {
      organization_id: otherOrg,
      framework_id: theirs.id,
      requirement_ids: [idOf(1)],
    });
    expect(errorOf(scoped).code).toBe('not_found');
    const listed = await ok(runtime, token, 'listAuditChecklist', { audit_id: audit.id });
    expect(listed.counts).toMatchObject({ CONFORMING: 0, NOT_AUDITED: 1 });
  });
});
