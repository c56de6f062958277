// getComplianceSummary on a world built here: exact counts per register, thresholds and shares, incidents' notification
// deadlines due within 24 hours and missed, data-subject requests open and overdue, DPIAs in review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RISK_METHOD } from '../../src/tools/risk-method.ts';
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
let org: string;
let otherOrg: string;
let emptyOrg: string;

const PAST = '2020-01-15';
const FUTURE = '2099-12-31';

const summary = (organizationId: string, extra: Row = {}) =>
  ok(runtime, token, 'getComplianceSummary', { organization_id: organizationId, ...extra });

async function add(tool: string, key: string, args: Row): Promise<Row> {
  return (await ok(runtime, token, tool, args))[key] as Row;
}

const risk = (organizationId: string, status: string, likelihood: number, impact: number) =>
  add('addRisk', 'risk', {
    organization_id: organizationId,
    name: `Risk ${status} ${likelihood}x${impact}`,
    status,
    inherent_likelihood: 5,
    inherent_impact: 5,
    residual_likelihood: likelihood,
    residual_impact: impact,
  });

/** A risk ACCEPTED as the service asks: owned, accepted by someone else (residual 20 is above the appetite). */
async function acceptedRisk(organizationId: string, likelihood: number, impact: number) {
  const person = (name: string) =>
    add('addPerson', 'person', {
      organization_id: organizationId,
      full_name: name,
      email: `${name.toLowerCase()}@example.com`,
    });
  const owner = await person('Owner');
  const approver = await person('Approver');
  const added = await add('addRisk', 'risk', {
    organization_id: organizationId,
    name: `Risk ACCEPTED ${likelihood}x${impact}`,
    treatment: 'ACCEPT',
    owner_id: owner.id,
    inherent_likelihood: 5,
    inherent_impact: 5,
    residual_likelihood: likelihood,
    residual_impact: impact,
  });
  await add('addRiskAcceptance', 'risk_acceptance', {
    organization_id: organizationId,
    risk_id: added.id,
    approver_id: approver.id,
    rationale: 'Insurance covers it.',
    expires_on: FUTURE,
  });
}

/** Records in `organizationId`; `otherOrg` gets a copy so the summary must not count across organizations. */
async function buildWorld(organizationId: string) {
  // Risks: residual 25, 16, 4 (OPEN), 15 (IN_TREATMENT), 10 (MITIGATED), 20 (ACCEPTED), 25 and 9 (CLOSED).
  await risk(organizationId, 'OPEN', 5, 5);
  await risk(organizationId, 'OPEN', 4, 4);
  await risk(organizationId, 'OPEN', 2, 2);
  await risk(organizationId, 'IN_TREATMENT', 3, 5);
  await risk(organizationId, 'MITIGATED', 2, 5);
  await acceptedRisk(organizationId, 4, 5);
  await risk(organizationId, 'CLOSED', 5, 5);
  await risk(organizationId, 'CLOSED', 3, 3);

  // Measures: 1 NOT_STARTED, 2 IMPLEMENTED, 2 NOT_APPLICABLE -> implemented share 2/3.
  for (const state of ['NOT_STARTED', 'IMPLEMENTED', 'IMPLEMENTED', 'NOT_APPLICABLE', 'NOT_APPLICABLE']) {
    await add('addMeasure', 'measure', { organization_id: organizationId, name: `Measure ${state}`, state });
  }

  // Obligations: overdue = past and not COMPLIANT -> 2.
  for (const [status, due_date] of [
    ['NON_COMPLIANT', PAST],
    ['PARTIALLY_COMPLIANT', PAST],
    ['COMPLIANT', PAST],
    ['NON_COMPLIANT', FUTURE],
    ['NON_COMPLIANT', null],
  ]) {
    await add('addObligation', 'obligation', {
      organization_id: organizationId,
      requirement: `Obligation ${status} ${due_date}`,
      status,
      due_date,
    });
  }

  // Nonconformities: open = not CLOSED -> 3; overdue = past and not CLOSED -> 1.
  for (const [status, due_date] of [
    ['OPEN', PAST],
    ['IN_PROGRESS', FUTURE],
    ['CLOSED', PAST],
    ['OPEN', null],
  ]) {
    await add('addNonconformity', 'nonconformity', {
      organization_id: organizationId,
      reference_id: `NC ${status} ${due_date}`,
      status,
      due_date,
      ...(status === 'CLOSED'
        ? {
            root_cause: 'No review',
            corrective_action: 'Fixed',
            effectiveness_checked_on: PAST,
            effectiveness_checked_by_id: (
              await add('addPerson', 'person', {
                organization_id: organizationId,
                full_name: 'Checker',
                email: 'checker@example.com',
              })
            ).id,
            effectiveness_result: 'EFFECTIVE',
          }
        : {}),
    });
  }

  // Continual improvements: open = not CLOSED -> 3.
  for (const [at, status] of ['OPEN', 'OPEN', 'IN_PROGRESS', 'CLOSED'].entries()) {
    await add('addContinualImprovement', 'continual_improvement', {
      organization_id: organizationId,
      reference_id: `CI ${at} ${status}`,
      status,
    });
  }

  // Audits: 1 NOT_STARTED, 2 IN_PROGRESS, 1 COMPLETED, 1 OUTDATED.
  const framework = await add('addFramework', 'framework', {
    organization_id: organizationId,
    name: 'ISO 27001',
  });
  for (const state of ['NOT_STARTED', 'IN_PROGRESS', 'IN_PROGRESS', 'COMPLETED', 'OUTDATED']) {
    await add('addAudit', 'audit', { organization_id: organizationId, framework_id: framework.id, state });
  }

  // Requirements of the framework: a section (not counted), one excluded, one covered by an implemented measure,
  // one not covered.
  const requirement = (reference: string, extra: Row = {}) =>
    add('addRequirement', 'requirement', {
      organization_id: organizationId,
      framework_id: framework.id,
      reference,
      title: reference,
      ...extra,
    });
  const section = await requirement('A.5', { is_section: true });
  await requirement('A.5.1', { parent_id: section.id, applicability: 'EXCLUDED', justification: 'n/a' });
  const covered = await requirement('A.5.2', { parent_id: section.id });
  await requirement('A.5.3', { parent_id: section.id });
  const measure = await add('addMeasure', 'measure', {
    organization_id: organizationId,
    name: 'Covering',
    state: 'IMPLEMENTED',
  });
  await ok(runtime, token, 'linkRequirementMeasure', { requirement_id: covered.id, measure_id: measure.id });
  // A second framework without requirements is listed with zero counts.
  await add('addFramework', 'framework', { organization_id: organizationId, name: 'SOC 2' });

  // Incidents (the organization follows GDPR, the default): one notice due in 12 hours, one missed 28 hours ago, one
  // due in 62 hours, one met (closed), one without personal data (no clock): 4 open, one of each severity.
  const incident = (severity: string, status: string, hoursAgo: number, personal_data: boolean) =>
    add('addIncident', 'incident', {
      organization_id: organizationId,
      title: `Incident ${severity} ${status} ${hoursAgo} h`,
      detected_at: hoursFromNow(-hoursAgo),
      severity,
      status,
      personal_data,
    });
  await incident('HIGH', 'OPEN', 60, true);
  await incident('CRITICAL', 'CONTAINED', 100, true);
  await incident('LOW', 'OPEN', 10, true);
  const met = await incident('HIGH', 'CLOSED', 100, true);
  await add('addIncidentNotification', 'incident_notification', {
    organization_id: organizationId,
    incident_id: met.id,
    regime: 'GDPR',
    stage: 'AUTHORITY',
    recipient: 'CNIL',
    sent_at: hoursFromNow(-50),
  });
  await incident('MEDIUM', 'OPEN', 100, false);

  // Data-subject requests: 2 open (one overdue since 2020), one completed, one rejected.
  const today = new Date().toISOString().slice(0, 10);
  for (const [status, received_on] of [
    ['RECEIVED', PAST],
    ['IN_PROGRESS', today],
    ['COMPLETED', PAST],
    ['REJECTED', PAST],
  ] as const) {
    await add('addDataSubjectRequest', 'data_subject_request', {
      organization_id: organizationId,
      reference: `DSR ${status}`,
      request_type: 'ACCESS',
      received_on,
      status,
      response_sent_on: status === 'COMPLETED' || status === 'REJECTED' ? '2020-02-01' : null,
    });
  }

  // DPIAs: one draft, two in review.
  for (const status of ['DRAFT', 'IN_REVIEW', 'IN_REVIEW']) {
    await add('addDpia', 'dpia', { organization_id: organizationId, title: `DPIA ${status}`, status });
  }
}

/** An ISO time this many hours from now (the summary's clock is the real one). */
function hoursFromNow(hours: number): string {
  return new Date(Date.now() + hours * 3_600_000).toISOString();
}

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Summary Org');
  otherOrg = await createOrg(runtime, alice, 'Other Org');
  emptyOrg = await createOrg(runtime, alice, 'Empty Org');
  token = await createToken(runtime, alice, { organizationIds: [org, otherOrg, emptyOrg] });
  await buildWorld(org);
  await buildWorld(otherOrg);
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('getComplianceSummary', () => {
  it('counts every register of the organization exactly, and only that organization', async () => {
    const body = await summary(org);
    expect(body).toEqual({
      organization_id: org,
      generated_at: expect.any(String),
      risks: {
        total: 8,
        by_status: { OPEN: 3, IN_TREATMENT: 1, MITIGATED: 1, ACCEPTED: 1, CLOSED: 2 },
        residual_score_threshold: 15,
        at_or_above_threshold: 4,
        // Residual scores not CLOSED: 25, 16, 4, 15, 10, 20 on the default method (low 1-7, medium 8-14, high 15+).
        by_residual_level: { low: 1, medium: 1, high: 4 },
        above_appetite: 4,
        acceptances_due: 0,
        method: DEFAULT_RISK_METHOD,
        // Not CLOSED: six risks, all inherent 5x5; one per residual cell.
        heat_map: {
          inherent: [{ likelihood: 5, impact: 5, count: 6, level: 'high' }],
          residual: [
            { likelihood: 2, impact: 2, count: 1, level: 'low' },
            { likelihood: 2, impact: 5, count: 1, level: 'medium' },
            { likelihood: 3, impact: 5, count: 1, level: 'high' },
            { likelihood: 4, impact: 4, count: 1, level: 'high' },
            { likelihood: 4, impact: 5, count: 1, level: 'high' },
            { likelihood: 5, impact: 5, count: 1, level: 'high' },
          ],
        },
      },
      // The five above and the one covering a requirement (IMPLEMENTED): 3 of 4 applicable implemented.
      measures: {
        total: 6,
        by_state: { NOT_STARTED: 1, IN_PROGRESS: 0, IMPLEMENTED: 3, NOT_APPLICABLE: 2 },
        applicable: 4,
        implemented_share: 0.75,
        // None of the three implemented has the evidence it requires (evidence_required by default).
        ready: 0,
        implemented_not_ready: 3,
        tests_overdue: 0,
      },
      obligations: {
        total: 5,
        by_status: { NON_COMPLIANT: 3, PARTIALLY_COMPLIANT: 1, COMPLIANT: 1 },
        overdue: 2,
      },
      nonconformities: {
        total: 4,
        by_status: { OPEN: 2, IN_PROGRESS: 1, CLOSED: 1 },
        open: 3,
        overdue: 1,
        closure_incomplete: 0,
      },
      continual_improvements: { total: 4, open: 3 },
      audits: {
        total: 5,
        by_state: { NOT_STARTED: 1, IN_PROGRESS: 2, COMPLETED: 1, REJECTED: 0, OUTDATED: 1 },
        in_progress: 2,
      },
      frameworks: [
        {
          id: expect.stringMatching(/^fwk_/),
          name: 'ISO 27001',
          version: null,
          coverage: {
            requirements: 3,
            applicable: 2,
            excluded: 1,
            by_status: { NOT_COVERED: 1, PLANNED: 0, PARTIALLY_IMPLEMENTED: 0, IMPLEMENTED: 1 },
            implemented_share: 0.5,
            covered_share: 0.5,
          },
          // A.5.2 and A.5.3 (applicable) have no justification; the section is not a row.
          without_justification: 2,
        },
        {
          id: expect.stringMatching(/^fwk_/),
          name: 'SOC 2',
          version: null,
          coverage: {
            requirements: 0,
            applicable: 0,
            excluded: 0,
            by_status: { NOT_COVERED: 0, PLANNED: 0, PARTIALLY_IMPLEMENTED: 0, IMPLEMENTED: 0 },
            implemented_share: null,
            covered_share: null,
          },
          without_justification: 0,
        },
      ],
      // No record of this world has a review cycle.
      reviews_overdue: { risks: 0, vendors: 0, measures: 0, requirements: 0, documents: 0 },
      incidents: {
        total: 5,
        open: 4,
        open_by_severity: { LOW: 1, MEDIUM: 1, HIGH: 1, CRITICAL: 1 },
        deadlines_due_24h: 1,
        deadlines_missed: 1,
      },
      data_subject_requests: { total: 4, open: 2, overdue: 1 },
      dpias: { total: 3, in_review: 2 },
    });
    expect(Math.abs(Date.parse(String(body.generated_at)) - Date.now())).toBeLessThan(60_000);
  });

  it('at_or_above_threshold counts risks not CLOSED whose residual score reaches the threshold', async () => {
    // Residual scores not CLOSED: 25, 16, 4, 15, 10, 20; CLOSED: 25, 9.
    for (const [threshold, expected] of [
      [1, 6],
      [10, 5],
      [16, 3],
      [20, 2],
      [21, 1],
      [25, 1],
    ] as const) {
      const risks = (await summary(org, { residual_score_threshold: threshold })).risks as Row;
      expect(risks.residual_score_threshold).toBe(threshold);
      expect(risks.at_or_above_threshold, `threshold ${threshold}`).toBe(expected);
    }
  });

  it('a threshold outside 1..100 (the largest scales, 10 x 10) is invalid_arguments', async () => {
    for (const threshold of [0, 101, 7.5]) {
      const refused = await callDirect(runtime, token, 'getComplianceSummary', {
        organization_id: org,
        residual_score_threshold: threshold,
      });
      expect(refused.status, String(threshold)).toBe(400);
      expect(errorOf(refused).message).toContain('residual_score_threshold');
    }
  });

  it('an organization without records has zero counts and a null implemented_share', async () => {
    const body = await summary(emptyOrg);
    expect(body.risks).toEqual({
      total: 0,
      by_status: { OPEN: 0, IN_TREATMENT: 0, MITIGATED: 0, ACCEPTED: 0, CLOSED: 0 },
      residual_score_threshold: 15,
      at_or_above_threshold: 0,
      by_residual_level: { low: 0, medium: 0, high: 0 },
      above_appetite: 0,
      acceptances_due: 0,
      method: DEFAULT_RISK_METHOD,
      heat_map: { inherent: [], residual: [] },
    });
    expect(body.measures).toEqual({
      total: 0,
      by_state: { NOT_STARTED: 0, IN_PROGRESS: 0, IMPLEMENTED: 0, NOT_APPLICABLE: 0 },
      applicable: 0,
      implemented_share: null,
      ready: 0,
      implemented_not_ready: 0,
      tests_overdue: 0,
    });
    expect(body.obligations).toMatchObject({ total: 0, overdue: 0 });
    expect(body.nonconformities).toMatchObject({ total: 0, open: 0, overdue: 0 });
    expect(body.continual_improvements).toEqual({ total: 0, open: 0 });
    expect(body.audits).toMatchObject({ total: 0, in_progress: 0 });
    expect(body.incidents).toEqual({
      total: 0,
      open: 0,
      open_by_severity: { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 },
      deadlines_due_24h: 0,
      deadlines_missed: 0,
    });
    expect(body.data_subject_requests).toEqual({ total: 0, open: 0, overdue: 0 });
    expect(body.dpias).toEqual({ total: 0, in_review: 0 });
  });

  it('implemented_share is null when every measure is NOT_APPLICABLE, and 1 when all applicable ones are implemented', async () => {
    const alice = await createActor(runtime, 'alice-share');
    const shareOrg = await createOrg(runtime, alice, 'Share Org');
    const shareToken = await createToken(runtime, alice, { organizationIds: [shareOrg] });
    const addMeasure = (state: string) =>
      ok(runtime, shareToken, 'addMeasure', { organization_id: shareOrg, name: `M ${state}`, state });
    const share = async () =>
      ((await ok(runtime, shareToken, 'getComplianceSummary', { organization_id: shareOrg })).measures as Row)
        .implemented_share;
    await addMeasure('NOT_APPLICABLE');
    expect(await share()).toBeNull();
    await addMeasure('IMPLEMENTED');
    expect(await share()).toBe(1);
    await addMeasure('IN_PROGRESS');
    expect(await share()).toBe(0.5);
  });

  it('follows changes: closing a high risk and completing an audit change the counts', async () => {
    const alice = await createActor(runtime, 'alice-change');
    const changeOrg = await createOrg(runtime, alice, 'Change Org');
    const changeToken = await createToken(runtime, alice, { organizationIds: [changeOrg] });
    const call = (tool: string, args: Row) => ok(runtime, changeToken, tool, args);
    const get = () => call('getComplianceSummary', { organization_id: changeOrg });
    const high = (
      await call('addRisk', {
        organization_id: changeOrg,
        name: 'High',
        inherent_likelihood: 4,
        inherent_impact: 4,
      })
    ).risk as Row;
    const framework = (await call('addFramework', { organization_id: changeOrg, name: 'SOC 2' }))
      .framework as Row;
    const audit = (
      await call('addAudit', { organization_id: changeOrg, framework_id: framework.id, state: 'IN_PROGRESS' })
    ).audit as Row;
    let body = await get();
    expect((body.risks as Row).at_or_above_threshold).toBe(1);
    expect((body.audits as Row).in_progress).toBe(1);

    await call('updateRisk', { id: high.id, status: 'CLOSED' });
    await call('updateAudit', { id: audit.id, state: 'COMPLETED' });
    body = await get();
    expect(body.risks).toMatchObject({ at_or_above_threshold: 0, by_status: { OPEN: 0, CLOSED: 1 } });
    expect(body.audits).toMatchObject({ in_progress: 0, by_state: { IN_PROGRESS: 0, COMPLETED: 1 } });

    // A breach known for 80 hours: its 72-hour notice is missed until the notice is recorded, then counted no more;
    // the incident stays open until closed.
    const breach = (
      await call('addIncident', {
        organization_id: changeOrg,
        title: 'Breach',
        detected_at: hoursFromNow(-80),
        personal_data: true,
      })
    ).incident as Row;
    expect((await get()).incidents).toMatchObject({ open: 1, deadlines_missed: 1, deadlines_due_24h: 0 });
    await call('addIncidentNotification', {
      organization_id: changeOrg,
      incident_id: breach.id,
      regime: 'GDPR',
      stage: 'AUTHORITY',
      recipient: 'CNIL',
      sent_at: hoursFromNow(-1),
    });
    expect((await get()).incidents).toMatchObject({ open: 1, deadlines_missed: 0 });
    await call('updateIncident', { id: breach.id, status: 'CLOSED' });
    expect((await get()).incidents).toMatchObject({ total: 1, open: 0 });
  });

  it('an organization the token cannot reach is not_found', async () => {
    const bob = await createActor(runtime, 'bob');
    const bobOrg = await createOrg(runtime, bob, 'Bob Org');
    const refused = await callDirect(runtime, token, 'getComplianceSummary', { organization_id: bobOrg });
    expect(refused.status).toBe(404);
    expect(errorOf(refused).code).toBe('not_found');
  });
});
