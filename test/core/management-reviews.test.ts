// Management reviews through the tools: a review with attendees and the tasks it raised, the figures
// gatherManagementReviewInputs counts for its period from a seeded organization (each count and id checked), the
// previous review's open tasks, and another organization that reaches neither the review nor the figures.

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
type Figure = { count: number; ids: string[] };

let runtime: TestRuntime;
let token: string;
let otherToken: string;
let org: string;
let otherOrg: string;
const seeded: Record<string, string> = {};

const NOW = new Date('2026-06-15T12:00:00.000Z');

const add = async (tool: string, key: string, args: Row): Promise<Row> =>
  (await ok(runtime, token, tool, { organization_id: org, ...args }))[key] as Row;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => NOW });
  const dana = await createActor(runtime, 'dana');
  const eve = await createActor(runtime, 'eve');
  org = await createOrg(runtime, dana, 'Review Org');
  otherOrg = await createOrg(runtime, eve, 'Other Org');
  token = await createToken(runtime, dana);
  otherToken = await createToken(runtime, eve);

  const person = await add('addPerson', 'person', { full_name: 'Dana Chair', email: dana.email });
  seeded.person = String(person.id);
  const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001', version: '2022' });

  // Nonconformities: one identified in the period, one before it.
  seeded.ncIn = String(
    (
      await add('addNonconformity', 'nonconformity', {
        reference_id: 'NC-1',
        description: 'In',
        date_identified: '2026-03-01',
      })
    ).id,
  );
  seeded.ncBefore = String(
    (
      await add('addNonconformity', 'nonconformity', {
        reference_id: 'NC-0',
        description: 'Before',
        date_identified: '2025-11-01',
      })
    ).id,
  );
  seeded.correctiveOpen = String(
    (await add('addTask', 'task', { title: 'Fix NC-1', record_ids: [seeded.ncIn] })).id,
  );
  await add('addTask', 'task', { title: 'Fixed NC-0', status: 'DONE', record_ids: [seeded.ncBefore] });

  // Audits: one reported in the period, one before.
  seeded.auditIn = String(
    (
      await add('addAudit', 'audit', {
        framework_id: framework.id,
        name: 'Surveillance',
        state: 'COMPLETED',
        valid_from: '2026-02-01',
      })
    ).id,
  );
  await add('addAudit', 'audit', {
    framework_id: framework.id,
    name: 'Old',
    state: 'COMPLETED',
    valid_from: '2025-01-01',
  });

  // Risks: two open (one with a treatment task), one closed.
  const risk = await add('addRisk', 'risk', {
    name: 'Phishing',
    inherent_likelihood: 4,
    inherent_impact: 4,
    residual_likelihood: 2,
    residual_impact: 4,
  });
  seeded.risk = String(risk.id);
  seeded.riskLevel = String(risk.residual_level);
  const other = await add('addRisk', 'risk', { name: 'Flood', inherent_likelihood: 1, inherent_impact: 1 });
  seeded.risk2 = String(other.id);
  seeded.risk2Level = String(other.residual_level ?? other.inherent_level);
  await add('addRisk', 'risk', {
    name: 'Gone',
    status: 'CLOSED',
    inherent_likelihood: 2,
    inherent_impact: 2,
  });
  seeded.treatment = String(
    (await add('addTask', 'task', { title: 'Train staff', record_ids: [seeded.risk] })).id,
  );

  seeded.improvement = String(
    (
      await add('addContinualImprovement', 'continual_improvement', {
        reference_id: 'CI-1',
        description: 'Automate',
      })
    ).id,
  );
  seeded.incident = String(
    (
      await add('addIncident', 'incident', {
        title: 'Lost laptop',
        detected_at: '2026-05-01T09:00:00.000Z',
        severity: 'HIGH',
      })
    ).id,
  );
  seeded.expired = String(
    (
      await add('addEvidence', 'evidence', {
        title: 'Old scan',
        url: 'https://intranet.example.com/old.png',
        collected_on: '2025-03-31',
        valid_until: '2026-03-31',
      })
    ).id,
  );
  await add('addEvidence', 'evidence', {
    title: 'Fresh scan',
    url: 'https://intranet.example.com/fresh.png',
    collected_on: '2026-03-31',
    valid_until: '2027-03-31',
  });

  const measure = await add('addMeasure', 'measure', { name: 'MFA' });
  const test = (tested_on: string, result: string) =>
    add('addControlTest', 'control_test', {
      measure_id: measure.id,
      tester_id: seeded.person,
      tested_on,
      method: 'INSPECTION',
      result,
    });
  await test('2026-04-11', 'EFFECTIVE');
  seeded.exception = String((await test('2026-04-10', 'EXCEPTION')).id);

  // The previous review raised two tasks; one is still open.
  seeded.previousOpen = String((await add('addTask', 'task', { title: 'Budget for SIEM' })).id);
  const previousDone = String((await add('addTask', 'task', { title: 'Name a CISO', status: 'DONE' })).id);
  seeded.previous = String(
    (
      await add('addManagementReview', 'management_review', {
        title: 'Management review 2025',
        held_on: '2025-12-10',
        status: 'HELD',
        task_ids: [seeded.previousOpen, previousDone],
      })
    ).id,
  );
});

afterAll(async () => runtime.cleanup());

describe('management reviews', () => {
  it('keeps attendees, inputs, decisions and the tasks raised, and refuses a period that runs backwards', async () => {
    const review = await add('addManagementReview', 'management_review', {
      title: 'Management review 2026',
      held_on: '2026-06-20',
      period_from: '2026-01-01',
      period_to: '2026-06-15',
      chair_id: seeded.person,
      attendee_ids: [seeded.person],
      issue_changes: 'A new regulator for the sector.',
    });
    seeded.review = String(review.id);
    expect(review.id).toMatch(/^mrv_/);
    expect(review.status).toBe('PLANNED');
    expect(review.attendee_ids).toEqual([seeded.person]);
    expect(review.issue_changes).toBe('A new regulator for the sector.');

    const held = (
      await ok(runtime, token, 'updateManagementReview', {
        id: review.id,
        status: 'HELD',
        decisions: 'Fund a SIEM.',
        task_ids: [seeded.treatment],
      })
    ).management_review as Row;
    expect(held).toMatchObject({ status: 'HELD', decisions: 'Fund a SIEM.', task_ids: [seeded.treatment] });

    const backwards = await callDirect(runtime, token, 'addManagementReview', {
      organization_id: org,
      title: 'Backwards',
      held_on: '2026-06-20',
      period_from: '2026-06-01',
      period_to: '2026-01-01',
    });
    expect(errorOf(backwards).code).toBe('invalid_arguments');
    const listed = (await ok(runtime, token, 'listManagementReviews', { organization_id: org })) as Row;
    expect((listed.management_reviews as Row[]).map((row) => row.title).sort()).toEqual([
      'Management review 2025',
      'Management review 2026',
    ]);
  });

  it('gathers the figures of the period from the records, with ids, and drafts the inputs', async () => {
    const gathered = (await ok(runtime, token, 'gatherManagementReviewInputs', {
      organization_id: org,
      management_review_id: seeded.review,
    })) as Row;
    const fig = (name: string) => gathered[name] as Figure;
    expect(gathered.period).toEqual({ from: '2026-01-01', to: '2026-06-15' });
    expect(gathered.previous_review_id).toBe(seeded.previous);
    expect(fig('nonconformities_opened')).toEqual({ count: 1, ids: [seeded.ncIn] });
    expect(fig('nonconformities_closed')).toEqual({ count: 0, ids: [] });
    expect(fig('nonconformities_open')).toEqual({ count: 2, ids: [seeded.ncIn, seeded.ncBefore].sort() });
    expect(fig('corrective_actions_open')).toEqual({ count: 1, ids: [seeded.correctiveOpen] });
    expect(fig('audits_held')).toEqual({ count: 1, ids: [seeded.auditIn] });
    expect(gathered.audits_by_state).toEqual({ COMPLETED: 1 });
    expect(fig('risks_open')).toEqual({ count: 2, ids: [seeded.risk, seeded.risk2].sort() });
    const levels: Record<string, number> = {};
    for (const level of [String(seeded.riskLevel), String(seeded.risk2Level)])
      levels[level] = (levels[level] ?? 0) + 1;
    expect(gathered.risks_by_level).toEqual(levels);
    expect(gathered.risks_by_status).toEqual({ OPEN: 2 });
    expect(fig('risk_treatment_tasks_open')).toEqual({ count: 1, ids: [seeded.treatment] });
    expect(fig('improvements_raised')).toEqual({ count: 1, ids: [seeded.improvement] });
    expect(fig('improvements_open')).toEqual({ count: 1, ids: [seeded.improvement] });
    expect(fig('incidents')).toEqual({ count: 1, ids: [seeded.incident] });
    expect(gathered.incidents_by_severity).toEqual({ HIGH: 1 });
    expect(fig('evidence_expired')).toEqual({ count: 1, ids: [seeded.expired] });
    expect(fig('control_test_exceptions')).toEqual({ count: 1, ids: [seeded.exception] });
    expect(fig('previous_review_tasks_open')).toEqual({ count: 1, ids: [seeded.previousOpen] });
    const drafts = gathered.draft_inputs as Record<string, string>;
    expect(drafts.earlier_actions).toBe(
      `Tasks of review ${seeded.previous} still open: 1 (${seeded.previousOpen}).`,
    );
    expect(drafts.audit_summary).toBe(
      `Audits from 2026-01-01 to 2026-06-15: 1 (${seeded.auditIn}); by state: COMPLETED 1.`,
    );

    // The drafted texts fill the review through its update tool.
    const filled = (await ok(runtime, token, 'updateManagementReview', { id: seeded.review, ...drafts }))
      .management_review as Row;
    expect(filled.audit_summary).toBe(drafts.audit_summary);
  });

  it('narrows to another period given outright, and refuses one that runs backwards', async () => {
    const early = (await ok(runtime, token, 'gatherManagementReviewInputs', {
      organization_id: org,
      period_from: '2025-01-01',
      period_to: '2025-12-31',
    })) as Row;
    expect(early.nonconformities_opened).toEqual({ count: 1, ids: [seeded.ncBefore] });
    expect((early.audits_held as Figure).count).toBe(1);
    expect((early.incidents as Figure).count).toBe(0);
    expect(early.previous_review_id).toBe(seeded.previous);
    const backwards = await callDirect(runtime, token, 'gatherManagementReviewInputs', {
      organization_id: org,
      period_from: '2026-02-01',
      period_to: '2026-01-01',
    });
    expect(errorOf(backwards).code).toBe('invalid_arguments');
  });

  it("does not let another organization read the review or gather the organization's figures", async () => {
    const get = await callDirect(runtime, otherToken, 'getManagementReview', { id: seeded.review });
    expect(errorOf(get).code).toBe('not_found');
    const gather = await callDirect(runtime, otherToken, 'gatherManagementReviewInputs', {
      organization_id: org,
      period_from: '2026-01-01',
      period_to: '2026-06-15',
    });
    expect(errorOf(gather).code).toBe('not_found');
    // Its own organization with the first one's review id: the review is not found there either.
    const foreign = await callDirect(runtime, otherToken, 'gatherManagementReviewInputs', {
      organization_id: otherOrg,
      management_review_id: seeded.review,
    });
    expect(errorOf(foreign).code).toBe('not_found');
    const listed = (await ok(runtime, otherToken, 'listManagementReviews', {
      organization_id: otherOrg,
    })) as Row;
    expect(listed.management_reviews).toEqual([]);
  });
});
