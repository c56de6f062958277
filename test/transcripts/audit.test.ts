// Transcript: an internal audit with its checklist. Results per requirement in scope, a graded nonconformity raised
// from a NONCONFORMITY result, an observation, the checklist's counts and the framework's audit programme.
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
} from '../helpers.ts';
import { Transcript, transcribedCalls } from '../transcript.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('audit transcript', () => {
  it('records checklist results, raises a graded nonconformity and shows the programme', async () => {
    const runtime = await createTestRuntime({
      env: { RATE_LIMIT_PER_MINUTE: '0' },
      now: () => new Date('2026-10-09T09:00:00.000Z'),
    });
    runtimes.push(runtime);
    const alice = await createActor(runtime, 'alice');
    const org = await createOrg(runtime, alice, 'Acme Health');
    const transcript = new Transcript(
      'Internal audit with checklist results',
      'Acme Health audits three ISO/IEC 27001 requirements. The auditor records a result for each: one conforming, one nonconformity (raised as a MINOR finding in the same write), one observation. The checklist counts the results; the audit programme shows what was audited and what was not.',
    );
    const call = transcribedCalls(transcript, runtime, await createToken(runtime, alice));
    const framework = (
      await call.ok('Add the framework', 'addFramework', {
        organization_id: org,
        name: 'ISO/IEC 27001',
        version: '2022',
      })
    ).framework as Row;
    const requirement = async (reference: string, title: string) =>
      (
        (
          await call.ok(`Add requirement ${reference}`, 'addRequirement', {
            organization_id: org,
            framework_id: framework.id,
            reference,
            title,
          })
        ).requirement as Row
      ).id as string;
    const internalAudit = await requirement('9.2', 'Internal audit');
    const accessRights = await requirement('A.5.18', 'Access rights');
    const endpoints = await requirement('A.8.1', 'User endpoint devices');
    const audit = (
      await call.ok('Plan the audit with its scope', 'addAudit', {
        organization_id: org,
        framework_id: framework.id,
        name: 'Internal audit Q3 2026',
        audit_type: 'INTERNAL',
        actual_start_on: '2026-10-05',
        actual_end_on: '2026-10-08',
        state: 'IN_PROGRESS',
        requirement_ids: [internalAudit, accessRights, endpoints],
      })
    ).audit as Row;

    const conforming = await call.ok<{ item: Row }>('9.2 conforms', 'recordAuditChecklistResult', {
      audit_id: audit.id,
      requirement_id: internalAudit,
      result: 'CONFORMING',
      notes: 'Programme approved by management; last cycle complete.',
    });
    expect(conforming.item).toMatchObject({ reference: '9.2', result: 'CONFORMING', recorded: true });
    const ungraded = await call.refused(
      'A nonconformity without a grade is refused',
      'recordAuditChecklistResult',
      {
        audit_id: audit.id,
        requirement_id: endpoints,
        result: 'NONCONFORMITY',
        raise_nonconformity: { reference_id: 'NC-2026-004' },
      },
      'A NONCONFORMITY is graded MAJOR or MINOR; nothing is written.',
    );
    expect(ungraded.status).toBe(400);
    expect(ungraded.error.message).toContain('MAJOR or MINOR');
    const raised = await call.ok<{ item: Row; raised_nonconformity: Row }>(
      'A.8.1 does not conform: the finding is raised as a MINOR nonconformity',
      'recordAuditChecklistResult',
      {
        audit_id: audit.id,
        requirement_id: endpoints,
        result: 'NONCONFORMITY',
        notes: 'Two of 25 sampled laptops without disk encryption.',
        raise_nonconformity: { reference_id: 'NC-2026-004', grade: 'MINOR', due_date: '2026-12-15' },
      },
    );
    expect(raised.item).toMatchObject({
      result: 'NONCONFORMITY',
      nonconformity_reference: 'NC-2026-004',
      nonconformity_grade: 'MINOR',
    });
    expect(raised.raised_nonconformity).toMatchObject({
      reference_id: 'NC-2026-004',
      grade: 'MINOR',
      clause: 'A.8.1',
      audit_id: audit.id,
      date_identified: '2026-10-08',
      requirement_ids: [endpoints],
    });
    const observation = await call.ok<{ item: Row; raised_nonconformity: Row }>(
      'A.5.18: an observation, filed with its own grade',
      'recordAuditChecklistResult',
      {
        audit_id: audit.id,
        requirement_id: accessRights,
        result: 'OBSERVATION',
        notes: 'Leaver tickets close late, access removed on time.',
        raise_nonconformity: { reference_id: 'OBS-2026-001' },
      },
    );
    expect(observation.raised_nonconformity).toMatchObject({ grade: 'OBSERVATION', clause: 'A.5.18' });

    const checklist = await call.ok<{ counts: Row; items: Row[] }>('The checklist', 'listAuditChecklist', {
      audit_id: audit.id,
    });
    transcript.table(
      ['reference', 'title', 'result', 'nonconformity_reference', 'nonconformity_grade', 'notes'],
      checklist.items,
    );
    expect(checklist.counts).toEqual({
      CONFORMING: 1,
      NONCONFORMITY: 1,
      OBSERVATION: 1,
      OPPORTUNITY_FOR_IMPROVEMENT: 0,
      NOT_AUDITED: 0,
    });
    expect(checklist.items.map((item) => [item.reference, item.result])).toEqual([
      ['9.2', 'CONFORMING'],
      ['A.5.18', 'OBSERVATION'],
      ['A.8.1', 'NONCONFORMITY'],
    ]);
    const findings = await call.ok<{ nonconformities: Row[] }>(
      'The audit’s findings',
      'listNonconformities',
      {
        organization_id: org,
        filter: { audit_id: audit.id },
        order_by: { field: 'reference_id', direction: 'ASC' },
      },
    );
    expect(findings.nonconformities.map((row) => [row.reference_id, row.grade])).toEqual([
      ['NC-2026-004', 'MINOR'],
      ['OBS-2026-001', 'OBSERVATION'],
    ]);

    await call.ok('Add a requirement the programme has not audited yet', 'addRequirement', {
      organization_id: org,
      framework_id: framework.id,
      reference: 'A.5.1',
      title: 'Policies for information security',
    });
    const programme = await call.ok<Row>(
      'The audit programme of the framework',
      'getAuditProgramme',
      { framework_id: framework.id },
      'Audits per year and which requirements an audit that took place has covered (a result other than NOT_AUDITED).',
    );
    expect(programme.years).toEqual([{ year: 2026, audits: 1, by_type: { INTERNAL: 1 } }]);
    expect([programme.applicable, programme.audited_count, programme.not_audited_count]).toEqual([4, 3, 1]);
    expect((programme.audited as Row[]).map((row) => [row.reference, row.last_audited_on])).toEqual([
      ['9.2', '2026-10-08'],
      ['A.5.18', '2026-10-08'],
      ['A.8.1', '2026-10-08'],
    ]);
    expect((programme.not_audited as Row[]).map((row) => row.reference)).toEqual(['A.5.1']);
    transcript.write('test-results/transcripts/audit.md');
  });
});
