// The audit programme's fields: an audit's type, lead auditor and planned and actual dates, a SOC 2 Type II
// examination's observation period, and a finding's grade and clause on the nonconformity it raised.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
let token: string;
let otherToken: string;
let org: string;
let framework: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Audited Org');
  await createOrg(runtime, bob, 'Other Org');
  token = await createToken(runtime, alice);
  otherToken = await createToken(runtime, bob);
  framework = String(
    ((await ok(runtime, token, 'addFramework', { organization_id: org, name: 'SOC 2' })).framework as Row).id,
  );
});

afterAll(async () => {
  await runtime.cleanup();
});

const addAudit = (values: Row) =>
  callDirect(runtime, token, 'addAudit', { organization_id: org, framework_id: framework, ...values });

describe('audit programme', () => {
  it('plans a SOC 2 Type II examination only with the period of operation it observes', async () => {
    const missing = await addAudit({ name: 'SOC 2 Type II 2026', audit_type: 'soc2_type_ii' });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toContain('give observation_start_on and observation_end_on');
    const backwards = await addAudit({
      audit_type: 'SOC2_TYPE_II',
      observation_start_on: '2026-06-30',
      observation_end_on: '2026-01-01',
    });
    expect(errorOf(backwards).message).toBe(
      'observation_end_on 2026-01-01 is before observation_start_on 2026-06-30. Give observation_end_on on or after observation_start_on.',
    );
    const planned = (
      await ok(runtime, token, 'addAudit', {
        organization_id: org,
        framework_id: framework,
        name: 'SOC 2 Type II 2026',
        audit_type: 'SOC2_TYPE_II',
        observation_start_on: '2026-01-01',
        observation_end_on: '2026-06-30',
        planned_start_on: '2026-07-06',
        planned_end_on: '2026-07-10',
        auditor: 'Example CPA LLP',
      })
    ).audit as Row;
    expect([planned.audit_type, planned.observation_end_on, planned.state]).toEqual([
      'SOC2_TYPE_II',
      '2026-06-30',
      'NOT_STARTED',
    ]);
    // The actual dates follow the plan; they cannot end before they start.
    const late = await callDirect(runtime, token, 'updateAudit', {
      id: planned.id,
      actual_start_on: '2026-07-08',
      actual_end_on: '2026-07-07',
    });
    expect(errorOf(late).message).toBe(
      'actual_end_on 2026-07-07 is before actual_start_on 2026-07-08. Give actual_end_on on or after actual_start_on.',
    );
    const held = (
      await ok(runtime, token, 'updateAudit', {
        id: planned.id,
        actual_start_on: '2026-07-08',
        actual_end_on: '2026-07-12',
        state: 'IN_PROGRESS',
      })
    ).audit as Row;
    expect([held.actual_start_on, held.actual_end_on, held.state]).toEqual([
      '2026-07-08',
      '2026-07-12',
      'IN_PROGRESS',
    ]);
    // Clearing the observation period of a Type II is refused: the rule holds on update too.
    const cleared = await callDirect(runtime, token, 'updateAudit', {
      id: planned.id,
      clear: ['observation_end_on'],
    });
    expect(cleared.status).toBe(400);
  });

  it('grades the finding it raised and names its clause; another organization sees none of it', async () => {
    const audit = (
      await ok(runtime, token, 'addAudit', {
        organization_id: org,
        framework_id: framework,
        name: 'Internal audit Q3',
        audit_type: 'INTERNAL',
      })
    ).audit as Row;
    const finding = (
      await ok(runtime, token, 'addNonconformity', {
        organization_id: org,
        reference_id: 'NC-2026-010',
        description: 'Leavers kept production access for weeks',
        audit_id: audit.id,
        grade: 'minor',
        clause: 'A.5.18',
      })
    ).nonconformity as Row;
    expect([finding.grade, finding.clause, finding.audit_id]).toEqual(['MINOR', 'A.5.18', audit.id]);
    const minors = await ok(runtime, token, 'listNonconformities', {
      organization_id: org,
      filter: { grade: ['MINOR', 'MAJOR'], audit_id: audit.id },
    });
    expect((minors.nonconformities as Row[]).map((row) => row.reference_id)).toEqual(['NC-2026-010']);
    const outsider = await callDirect(runtime, otherToken, 'getNonconformity', { id: finding.id });
    expect(outsider.status).toBe(404);
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: finding.id },
    });
    expect((history.changes as Row[]).map((change) => (change.after as Row | null)?.grade)).toEqual([
      'MINOR',
    ]);
  });
});
