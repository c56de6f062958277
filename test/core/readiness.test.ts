// Control tests of measures and the readiness derived beside the declared state, with its reasons (issue 35, 1-2).
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
let clock = new Date('2026-06-15T09:00:00.000Z');
let token: string;
let made = 0;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
});

afterAll(async () => {
  await runtime?.cleanup();
});

const body = async (tool: string, args: Row) => ok(runtime, token, tool, args);
const call = (tool: string, args: Row) => callDirect(runtime, token, tool, args);

/** A fresh organization of its own OWNER, with the caller as a person (so myWork finds what they own). */
async function world() {
  made += 1;
  clock = new Date('2026-06-15T09:00:00.000Z');
  const owner = await createActor(runtime, `tester-${made}`);
  const org = await createOrg(runtime, owner, `Readiness Org ${made}`);
  token = await createToken(runtime, owner, { organizationIds: [org] });
  const self = (
    (await body('addPerson', { organization_id: org, full_name: 'Self', email: owner.email })) as {
      person: Row;
    }
  ).person;
  return { org, self };
}

async function addMeasure(org: string, fields: Row): Promise<Row> {
  return (
    (await body('addMeasure', { organization_id: org, name: 'Endpoint protection', ...fields })) as {
      measure: Row;
    }
  ).measure;
}

async function getMeasure(id: unknown): Promise<Row> {
  return ((await body('getMeasure', { id })) as { measure: Row }).measure;
}

async function addTest(org: string, measureId: unknown, tester: unknown, fields: Row = {}): Promise<Row> {
  return (
    (await body('addControlTest', {
      organization_id: org,
      measure_id: measureId,
      tester_id: tester,
      method: 'inspection',
      result: 'effective',
      ...fields,
    })) as { control_test: Row }
  ).control_test;
}

/** A framework with one applicable requirement, A.8.7, and no measure mapped yet. */
async function malwareRequirement(org: string): Promise<{ framework: Row; requirement: Row }> {
  const framework = (
    (await body('addFramework', { organization_id: org, name: 'ISO 27001' })) as { framework: Row }
  ).framework;
  const requirement = (
    (await body('addRequirement', {
      organization_id: org,
      framework_id: framework.id,
      reference: 'A.8.7',
      title: 'Protection against malware',
      justification: 'Laptops hold customer data.',
    })) as { requirement: Row }
  ).requirement;
  return { framework, requirement };
}

const codes = (record: Row) => (record.readiness_reasons as { code: string }[]).map((reason) => reason.code);

describe('control tests', () => {
  it('keeps the latest test on its measure and the next one due from the interval', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, {
      state: 'IMPLEMENTED',
      test_interval_days: 90,
      evidence_required: false,
    });
    expect(measure).toMatchObject({ next_test_on: '2026-06-15', last_tested_on: null, test_overdue: false });
    expect(codes(measure)).toEqual(['never_tested']);
    const test = await addTest(org, measure.id, self.id, {
      tested_on: '2026-06-10',
      period_from: '2026-01-01',
      period_to: '2026-05-31',
      sample: '25 of 340 laptops',
    });
    expect(test).toMatchObject({ method: 'INSPECTION', result: 'EFFECTIVE', tested_on: '2026-06-10' });
    expect(await getMeasure(measure.id)).toMatchObject({
      last_tested_on: '2026-06-10',
      last_test_result: 'EFFECTIVE',
      next_test_on: '2026-09-08',
      readiness: 'READY',
      readiness_reasons: [],
    });
    // An older test recorded later does not replace the latest one.
    await addTest(org, measure.id, self.id, { tested_on: '2026-03-01', result: 'not_effective' });
    expect(await getMeasure(measure.id)).toMatchObject({ last_tested_on: '2026-06-10', readiness: 'READY' });
    // Past the next test's day, the measure is due and not ready.
    clock = new Date('2026-09-09T09:00:00.000Z');
    const due = await getMeasure(measure.id);
    expect(due).toMatchObject({ test_overdue: true, readiness: 'NOT_READY' });
    expect(due.readiness_reasons).toEqual([
      { code: 'test_overdue', message: 'the next test was due on 2026-09-08' },
    ]);
    const overdue = (await body('listMeasures', {
      organization_id: org,
      filter: { test_due_before: '2026-09-09' },
    })) as { measures: Row[] };
    expect(overdue.measures.map((row) => row.id)).toEqual([measure.id]);
    // Deleting the latest test falls back to the one before (NOT_EFFECTIVE).
    await body('deleteControlTest', { id: test.id });
    const after = await getMeasure(measure.id);
    expect(after).toMatchObject({ last_tested_on: '2026-03-01', last_test_result: 'NOT_EFFECTIVE' });
    expect(codes(after)).toEqual(['last_test_not_effective', 'test_overdue']);
  });

  it('refuses a test in the future and a period after the test, naming the field', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, {});
    const future = await call('addControlTest', {
      organization_id: org,
      measure_id: measure.id,
      tester_id: self.id,
      method: 'inquiry',
      result: 'effective',
      tested_on: '2026-07-01',
    });
    expect(errorOf(future)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'tested_on' }] });
    const period = await call('addControlTest', {
      organization_id: org,
      measure_id: measure.id,
      tester_id: self.id,
      method: 'inquiry',
      result: 'effective',
      tested_on: '2026-06-01',
      period_from: '2026-01-01',
      period_to: '2026-06-02',
    });
    expect(errorOf(period)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'period_to' }] });
    const listed = (await body('listControlTests', { organization_id: org })) as { total_count: number };
    expect(listed.total_count).toBe(0);
  });

  it('links the nonconformity raised from an exception and its evidence', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, { state: 'IMPLEMENTED' });
    const test = await addTest(org, measure.id, self.id, {
      result: 'exception',
      notes: '3 laptops without agent',
    });
    const nc = (
      (await body('addNonconformity', {
        organization_id: org,
        reference_id: 'NC-CT-1',
        description: 'Endpoint agent missing on 3 laptops',
      })) as { nonconformity: Row }
    ).nonconformity;
    const linked = (await body('updateControlTest', { id: test.id, nonconformity_id: nc.id })) as {
      control_test: Row;
    };
    expect(linked.control_test.nonconformity_id).toBe(nc.id);
    await body('addEvidence', {
      organization_id: org,
      title: 'Agent inventory export',
      url: 'https://intranet.example.com/agents.csv',
      record_ids: [test.id],
    });
    const read = (await body('getControlTest', { id: test.id })) as { control_test: Row };
    expect((read.control_test.evidence_ids as string[]).length).toBe(1);
    const failed = (await body('listControlTests', {
      organization_id: org,
      filter: { result: ['EXCEPTION', 'NOT_EFFECTIVE'], measure_id: measure.id },
    })) as { control_tests: Row[] };
    expect(failed.control_tests.map((row) => row.id)).toEqual([test.id]);
  });

  it('imports tests from a CSV naming the measure and the tester, and keeps each one in history', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, { state: 'IMPLEMENTED', test_interval_days: 30 });
    const csv = `measure_id,tester_id,tested_on,method,result,sample\nEndpoint protection,${String(self.email)},2026-06-01,inspection,effective,10 laptops\nEndpoint protection,${String(self.email)},2026-06-10,observation,exception,5 laptops\n`;
    const imported = (await body('importRecords', {
      organization_id: org,
      kind: 'control_tests',
      csv,
    })) as Row;
    expect(imported).toMatchObject({ kind: 'control_test' });
    expect(await getMeasure(measure.id)).toMatchObject({
      last_tested_on: '2026-06-10',
      last_test_result: 'EXCEPTION',
      next_test_on: '2026-07-10',
    });
    const listed = (await body('listControlTests', {
      organization_id: org,
      order_by: { field: 'tested_on', direction: 'ASC' },
    })) as { control_tests: Row[] };
    expect(listed.control_tests.map((row) => [row.tested_on, row.method, row.sample])).toEqual([
      ['2026-06-01', 'INSPECTION', '10 laptops'],
      ['2026-06-10', 'OBSERVATION', '5 laptops'],
    ]);
    const history = (await body('listChanges', {
      organization_id: org,
      filter: { kind: 'control_test' },
    })) as { changes: Row[] };
    expect(history.changes.map((change) => change.action)).toEqual(['add', 'add']);
  });

  it('brings a test due into myWork for the measure owner', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, { owner_id: self.id, test_interval_days: 30 });
    const work = (await body('myWork', {})) as { items: Row[] };
    expect(work.items).toContainEqual(
      expect.objectContaining({ kind: 'measure', id: measure.id, reason: 'TEST', due_on: '2026-06-15' }),
    );
  });
});

describe('readiness', () => {
  it('says why an implemented measure is not ready: no evidence, expired evidence, a document not approved', async () => {
    const { org } = await world();
    const measure = await addMeasure(org, { state: 'IMPLEMENTED' });
    expect(measure).toMatchObject({ evidence_required: true, readiness: 'NOT_READY' });
    expect(measure.readiness_reasons).toEqual([
      { code: 'no_evidence', message: 'no evidence is attached (evidence_required)' },
    ]);
    await body('addEvidence', {
      organization_id: org,
      title: 'EDR console export',
      url: 'https://intranet.example.com/edr.png',
      valid_until: '2026-06-30',
      record_ids: [measure.id],
    });
    expect(await getMeasure(measure.id)).toMatchObject({ readiness: 'READY', readiness_reasons: [] });
    clock = new Date('2026-07-01T09:00:00.000Z');
    expect((await getMeasure(measure.id)).readiness_reasons).toEqual([
      { code: 'evidence_expired', message: 'evidence "EDR console export" expired on 2026-06-30' },
    ]);
    const notReady = (await body('listMeasures', {
      organization_id: org,
      filter: { state: 'IMPLEMENTED', readiness: 'NOT_READY' },
    })) as { measures: Row[] };
    expect(notReady.measures.map((row) => row.id)).toEqual([measure.id]);
    const ready = (await body('listMeasures', { organization_id: org, filter: { readiness: 'ready' } })) as {
      measures: Row[];
    };
    expect(ready.measures).toEqual([]);
    await body('addDocument', {
      organization_id: org,
      title: 'Endpoint policy',
      type: 'POLICY',
      content: 'Every laptop runs the agent.',
      measure_ids: [measure.id],
    });
    expect(codes(await getMeasure(measure.id))).toEqual(['evidence_expired', 'policy_not_approved']);
  });

  it('keeps the meaning of a measure that expects nothing, and derives a requirement from its measures', async () => {
    const { org } = await world();
    const { framework, requirement } = await malwareRequirement(org);
    expect(requirement).toMatchObject({ readiness: 'NOT_READY' });
    expect(codes(requirement)).toEqual(['no_measures']);
    const plain = await addMeasure(org, { state: 'IMPLEMENTED', evidence_required: false });
    expect(plain).toMatchObject({ readiness: 'READY' });
    await body('linkRequirementMeasure', { requirement_id: requirement.id, measure_id: plain.id });
    const strict = await addMeasure(org, {
      name: 'EDR alerts reviewed',
      state: 'IMPLEMENTED',
      test_interval_days: 30,
      evidence_required: false,
    });
    await body('linkRequirementMeasure', { requirement_id: requirement.id, measure_id: strict.id });
    const read = ((await body('getRequirement', { id: requirement.id })) as { requirement: Row }).requirement;
    expect(read).toMatchObject({
      implementation_status: 'IMPLEMENTED',
      readiness: 'NOT_READY',
      readiness_reasons: [
        { code: 'measure_not_ready', message: '1 of 2 measures not ready, e.g. "EDR alerts reviewed"' },
      ],
    });
    const implementedNotReady = (await body('listRequirements', {
      organization_id: org,
      filter: { implementation_status: 'IMPLEMENTED', readiness: 'NOT_READY' },
    })) as { requirements: Row[] };
    expect(implementedNotReady.requirements.map((row) => row.id)).toEqual([requirement.id]);
    const soa = (await body('getStatementOfApplicability', { framework_id: framework.id })) as {
      requirements: Row[];
    };
    expect(soa.requirements[0]).toMatchObject({
      implementation_status: 'IMPLEMENTED',
      readiness: 'NOT_READY',
      measures: [
        { name: 'EDR alerts reviewed', readiness: 'NOT_READY' },
        { name: 'Endpoint protection', readiness: 'READY' },
      ],
    });
    const coverage = (await body('getFrameworkCoverage', { framework_id: framework.id })) as {
      readiness: Row;
    };
    expect(coverage.readiness).toEqual({ ready: 0, not_ready: 1, implemented_not_ready: 1, ready_share: 0 });
    // Tested effective: the requirement is ready, on both the statement and the coverage.
    const { self } = {
      self: ((await body('listPeople', { organization_id: org })) as { people: Row[] }).people[0],
    };
    await addTest(org, strict.id, self?.id);
    const after = (await body('getStatementOfApplicability', {
      framework_id: framework.id,
      filter: { readiness: 'READY' },
    })) as { requirements: Row[] };
    expect(after.requirements.map((row) => [row.id, row.readiness, row.readiness_reasons])).toEqual([
      [requirement.id, 'READY', []],
    ]);
    const covered = (await body('getFrameworkCoverage', { framework_id: framework.id })) as {
      readiness: Row;
    };
    expect(covered.readiness).toEqual({ ready: 1, not_ready: 0, implemented_not_ready: 0, ready_share: 1 });
    const summary = (await body('getComplianceSummary', { organization_id: org })) as { measures: Row };
    expect(summary.measures).toMatchObject({ ready: 2, implemented_not_ready: 0, tests_overdue: 0 });
  });

  it('follows every write to evidence and covering documents, in the record and in the filter alike', async () => {
    const { org, self } = await world();
    const measure = await addMeasure(org, { state: 'IMPLEMENTED' });
    const { framework, requirement } = await malwareRequirement(org);
    await body('linkRequirementMeasure', { requirement_id: requirement.id, measure_id: measure.id });
    // The stored facts (kept by triggers) against the same facts read from evidence and documents.
    const stored = async () => {
      const [row] = await runtime.database.db.all<Row>(
        `select evidence_until, coalesce(unapproved_documents, 0) as unapproved from measures where id = '${String(measure.id)}'`,
      );
      return row;
    };
    /** The readiness getMeasure answers, checked against the filter's answer and the stored facts. */
    const readiness = async (expected: { until: string | null; unapproved: number }) => {
      const record = await getMeasure(measure.id);
      const listed = (await body('listMeasures', {
        organization_id: org,
        filter: { readiness: String(record.readiness) },
      })) as { measures: Row[] };
      expect(listed.measures.map((row) => row.id)).toContain(measure.id);
      expect(await stored()).toEqual({ evidence_until: expected.until, unapproved: expected.unapproved });
      // Its one requirement follows it, in the record, the filter and the framework's coverage.
      const mapped = ((await body('getRequirement', { id: requirement.id })) as { requirement: Row })
        .requirement;
      expect(mapped.readiness).toBe(record.readiness);
      const requirements = (await body('listRequirements', {
        organization_id: org,
        filter: { readiness: String(record.readiness) },
      })) as { requirements: Row[] };
      expect(requirements.requirements.map((row) => row.id)).toContain(requirement.id);
      const coverage = (await body('getFrameworkCoverage', { framework_id: framework.id })) as {
        readiness: { ready: number };
      };
      expect(coverage.readiness.ready).toBe(record.readiness === 'READY' ? 1 : 0);
      return codes(record);
    };
    const first = (
      (await body('addEvidence', {
        organization_id: org,
        title: 'EDR report, January',
        url: 'https://intranet.example.com/edr-1.pdf',
        valid_until: '2026-12-31',
        record_ids: [measure.id],
      })) as { evidence: Row }
    ).evidence;
    expect(await readiness({ until: '2026-12-31', unapproved: 0 })).toEqual([]);
    const second = (
      (await body('addEvidence', {
        organization_id: org,
        title: 'EDR report, June',
        url: 'https://intranet.example.com/edr-2.pdf',
        valid_until: '2026-06-01',
        supersedes_id: first.id,
        record_ids: [measure.id],
      })) as { evidence: Row }
    ).evidence;
    // The June report replaces January's: its earlier expiry is what counts now.
    expect(await readiness({ until: '2026-06-01', unapproved: 0 })).toEqual(['evidence_expired']);
    await body('updateEvidence', { id: second.id, valid_until: '2027-01-31' });
    expect(await readiness({ until: '2027-01-31', unapproved: 0 })).toEqual([]);
    await body('deleteEvidence', { id: second.id });
    expect(await readiness({ until: '2026-12-31', unapproved: 0 })).toEqual([]);
    await body('updateEvidence', { id: first.id, record_ids: [] });
    expect(await readiness({ until: null, unapproved: 0 })).toEqual(['no_evidence']);
    await body('updateMeasure', { id: measure.id, evidence_required: false });
    const document = (
      (await body('addDocument', {
        organization_id: org,
        title: 'Endpoint policy',
        type: 'POLICY',
        content: 'Every laptop runs the agent.',
        status: 'IN_REVIEW',
        approver_ids: [self.id],
        measure_ids: [measure.id],
      })) as { document: Row }
    ).document;
    expect(await readiness({ until: null, unapproved: 1 })).toEqual(['policy_not_approved']);
    await body('approveDocument', { id: document.id });
    // Approved is not yet in force: the version counts once published.
    expect(await readiness({ until: null, unapproved: 1 })).toEqual(['policy_not_approved']);
    await body('updateDocument', { id: document.id, status: 'PUBLISHED' });
    expect(await readiness({ until: null, unapproved: 0 })).toEqual([]);
    const draft = (
      (await body('addDocument', {
        organization_id: org,
        title: 'Laptop hardening standard',
        type: 'STANDARD',
        content: 'Disk encryption on.',
        measure_ids: [measure.id],
      })) as { document: Row }
    ).document;
    expect(await readiness({ until: null, unapproved: 1 })).toEqual(['policy_not_approved']);
    await body('deleteDocument', { id: draft.id });
    expect(await readiness({ until: null, unapproved: 0 })).toEqual([]);
    await body('updateDocument', { id: document.id, measure_ids: [] });
    await body('updateDocument', { id: document.id, status: 'RETIRED' });
    expect(await readiness({ until: null, unapproved: 0 })).toEqual([]);
    await body('updateDocument', { id: document.id, measure_ids: [measure.id] });
    // Retired documents no longer cover anything that needs approving.
    expect(await readiness({ until: null, unapproved: 0 })).toEqual([]);
  });
});
