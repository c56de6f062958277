// The demo organization as seeded at first start: its incidents (one breach with its GDPR clock running), its
// processing activities, DPIA and data-subject request, as the assistant and the summary read them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { createTestRuntime, ok, type TestRuntime } from '../helpers.ts';

type Row = Record<string, unknown>;

const NOW = new Date('2026-03-10T12:00:00.000Z');
let runtime: TestRuntime;
let demo: Awaited<ReturnType<typeof seedDemo>>;

beforeAll(async () => {
  runtime = await createTestRuntime({ now: () => NOW });
  // With the host's stored files, as `npm start` seeds it: its statement of applicability is published too.
  demo = await seedDemo(runtime.database.db, runtime.tokens, () => NOW, runtime.files);
});

afterAll(async () => {
  await runtime.cleanup();
});

describe('demo privacy records', () => {
  it('holds an open breach detected 20 hours ago whose GDPR 72-hour notice runs with 52 hours left', async () => {
    const listed = await ok<{ incidents: Row[] }>(runtime, demo.token, 'listIncidents', {
      organization_id: demo.organization_id,
      filter: { open_deadlines: true },
    });
    expect(listed.incidents.map((incident) => incident.title)).toEqual([
      'Laptop with a patient export stolen',
    ]);
    const breach = listed.incidents[0] as Row;
    expect(breach.detected_at).toBe('2026-03-09T16:00:00.000Z');
    expect(breach.next_deadline_at).toBe('2026-03-12T16:00:00.000Z');
    const got = await ok<{ clocks: Row[] }>(runtime, demo.token, 'getIncident', { id: breach.id });
    expect(
      got.clocks.map(({ regime, stage, state, hours_left }) => ({ regime, stage, state, hours_left })),
    ).toEqual([{ regime: 'GDPR', stage: 'AUTHORITY', state: 'RUNNING', hours_left: 52 }]);
  });

  it('counts its incidents, request, DPIA and processing activities in the summary and the lists', async () => {
    const summary = await ok<Row>(runtime, demo.token, 'getComplianceSummary', {
      organization_id: demo.organization_id,
    });
    expect(summary.incidents).toMatchObject({ total: 2, open: 1, deadlines_due_24h: 0, deadlines_missed: 0 });
    expect(summary.data_subject_requests).toEqual({ total: 1, open: 1, overdue: 0 });
    expect(summary.dpias).toEqual({ total: 1, in_review: 1 });
    const activities = await ok<{ processing_activities: Row[] }>(
      runtime,
      demo.token,
      'listProcessingActivities',
      {
        organization_id: demo.organization_id,
        order_by: { field: 'name', direction: 'ASC' },
      },
    );
    expect(activities.processing_activities.map((activity) => activity.name)).toEqual([
      'Patient records',
      'Payroll',
    ]);
    const dpias = await ok<{ dpias: Row[] }>(runtime, demo.token, 'listDpias', {
      organization_id: demo.organization_id,
    });
    expect(dpias.dpias.map((dpia) => [dpia.title, dpia.screening_result])).toEqual([
      ['Patient records platform', 'REQUIRED'],
    ]);
    const requests = await ok<{ data_subject_requests: Row[] }>(
      runtime,
      demo.token,
      'listDataSubjectRequests',
      {
        organization_id: demo.organization_id,
      },
    );
    expect(requests.data_subject_requests.map((request) => [request.reference, request.due_on])).toEqual([
      ['DSR-0001', '2026-03-26'],
    ]);
  });
});

describe('demo readiness', () => {
  it('publishes its ISO/IEC 27001 statement of applicability, approved by the DPO and in force', async () => {
    const listed = await ok<{ documents: Row[] }>(runtime, demo.token, 'listDocuments', {
      organization_id: demo.organization_id,
      filter: { generated: true },
    });
    expect(listed.documents.map(({ type, status, version }) => ({ type, status, version }))).toEqual([
      { type: 'STATEMENT_OF_APPLICABILITY', status: 'PUBLISHED', version: 1 },
    ]);
    const document = listed.documents[0] as Row;
    const versions = await ok<{ versions: Row[] }>(runtime, demo.token, 'listDocumentVersions', {
      document_id: document.id,
    });
    expect(versions.versions.map(({ number, status }) => ({ number, status }))).toEqual([
      { number: 1, status: 'PUBLISHED' },
    ]);
    // Every applicable row says why it applies; the excluded ones why not.
    const framework = await ok<{ frameworks: Row[] }>(runtime, demo.token, 'listFrameworks', {
      organization_id: demo.organization_id,
    });
    const iso = framework.frameworks.find((item) => item.name === 'ISO/IEC 27001:2022') as Row;
    const rows: Row[] = [];
    let cursor: unknown;
    do {
      const page = await ok<{ requirements: Row[]; next_cursor: unknown }>(
        runtime,
        demo.token,
        'getStatementOfApplicability',
        { framework_id: iso.id, size: 100, ...(cursor ? { cursor } : {}) },
      );
      rows.push(...page.requirements);
      cursor = page.next_cursor;
    } while (cursor);
    expect(rows.filter((row) => !row.is_section).length).toBe(123);
    expect(rows.filter((row) => !row.is_section && !row.justification)).toEqual([]);
  });

  it('shows a ready measure, one with expired evidence and one never tested, beside their declared state', async () => {
    const listed = await ok<{ measures: Row[] }>(runtime, demo.token, 'listMeasures', {
      organization_id: demo.organization_id,
      filter: { state: 'IMPLEMENTED' },
      order_by: { field: 'name', direction: 'ASC' },
    });
    expect(
      listed.measures.map((measure) => [
        measure.name,
        measure.readiness,
        (measure.readiness_reasons as { code: string }[]).map((reason) => reason.code),
      ]),
    ).toEqual([
      ['Endpoint protection on every laptop', 'NOT_READY', ['no_evidence', 'never_tested']],
      ['Enforce MFA on all SaaS accounts', 'READY', []],
      ['Yearly security review of critical suppliers', 'NOT_READY', ['evidence_expired']],
    ]);
    const expired = listed.measures[2] as Row;
    expect(expired.readiness_reasons).toEqual([
      {
        code: 'evidence_expired',
        message: 'evidence "Critical supplier review summary" expired on 2026-02-10',
      },
    ]);
    const mfa = listed.measures[1] as Row;
    expect(mfa).toMatchObject({
      last_test_result: 'EFFECTIVE',
      last_tested_on: '2026-02-08',
      next_test_on: '2026-05-09',
    });
    const summary = await ok<{ measures: Row }>(runtime, demo.token, 'getComplianceSummary', {
      organization_id: demo.organization_id,
    });
    expect(summary.measures).toMatchObject({ ready: 1, implemented_not_ready: 2, tests_overdue: 0 });
  });
});

describe('demo assurance records', () => {
  it("runs a production access review: two of four entries decided by their reviewer, the rest in the reviewer's work", async () => {
    const reviews = await ok<{ access_reviews: Row[] }>(runtime, demo.token, 'listAccessReviews', {
      organization_id: demo.organization_id,
      filter: { status: 'IN_PROGRESS' },
    });
    expect(
      reviews.access_reviews.map((review) => [review.name, review.entries_total, review.entries_undecided]),
    ).toEqual([['Production access review, this quarter', 4, 2]]);
    const review = reviews.access_reviews[0] as Row;
    const decided = await ok<{ access_review_entries: Row[] }>(
      runtime,
      demo.token,
      'listAccessReviewEntries',
      {
        organization_id: demo.organization_id,
        filter: { access_review_id: review.id, decided: true },
      },
    );
    expect(decided.access_review_entries.map((entry) => [entry.account, entry.decision]).sort()).toEqual([
      ['contractor-2024', 'REVOKE'],
      ['grace@acme-health.example', 'KEEP'],
    ]);
    // Both by the demo's owner, who decides as an OWNER of the organization.
    expect(new Set(decided.access_review_entries.map((entry) => entry.decided_at === null))).toEqual(
      new Set([false]),
    );
  });

  it('keeps two assessments of AWS as its history, the latest holding it assessed until next year', async () => {
    const vendors = await ok<{ vendors: Row[] }>(runtime, demo.token, 'listVendors', {
      organization_id: demo.organization_id,
      filter: { query: 'Amazon' },
    });
    const aws = vendors.vendors[0] as Row;
    expect(aws.assessed_until).toBe('2027-02-08');
    const assessments = await ok<{ vendor_assessments: Row[] }>(
      runtime,
      demo.token,
      'listVendorAssessments',
      {
        organization_id: demo.organization_id,
        filter: { vendor_id: aws.id },
      },
    );
    expect(assessments.vendor_assessments.map((item) => [item.result, item.expires_on]).sort()).toEqual([
      ['APPROVED', '2025-02-08'],
      ['APPROVED_WITH_CONDITIONS', '2027-02-08'],
    ]);
  });

  it('sent the starter questionnaire to two vendors: one answered with a score of 93, one pending', async () => {
    const listed = await ok<{ vendor_questionnaires: Row[] }>(
      runtime,
      demo.token,
      'listVendorQuestionnaires',
      {
        organization_id: demo.organization_id,
      },
    );
    const rows = listed.vendor_questionnaires.map((row) => [
      row.vendor_name,
      row.status,
      row.score,
      row.due_date,
    ]);
    expect(rows.sort()).toEqual([
      ['Amazon Web Services', 'ANSWERED', 93, '2026-03-24'],
      ['Slack', 'PENDING', null, '2026-03-24'],
    ]);
  });
});

describe('demo trust page', () => {
  it('publishes the chosen records, the sub-processors and a contact, with one request waiting', async () => {
    const got = await ok<{ trust_page: Row }>(runtime, demo.token, 'getTrustPage', {
      organization_id: demo.organization_id,
    });
    const page = got.trust_page;
    expect(page).toMatchObject({ enabled: true, show_sub_processors: true, pending_requests: 1 });
    expect((page.items as Row[]).map((item) => [item.kind, item.name, item.access])).toEqual([
      ['framework', 'ISO/IEC 27001:2022', 'PUBLIC'],
      ['audit', 'ISO 27001 stage 1 audit', 'PUBLIC'],
      ['document', 'Access control policy', 'PUBLIC'],
      ['document', 'Statement of applicability: ISO/IEC 27001:2022 (2022 (Amd 1:2024))', 'ON_REQUEST'],
    ]);
    const response = await runtime.app.request(`http://127.0.0.1:8787${String(page.path)}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    for (const shown of [
      'Acme Health trust center',
      'Amazon Web Services',
      'Zendesk',
      'security@acme-health.example',
    ])
      expect(html).toContain(shown);
    // In review, not a sub-processor: not on the page.
    expect(html).not.toContain('Backup and restore policy');
    expect(html).not.toContain('Slack');
  });
});

describe('demo proposal', () => {
  it('holds one pending proposal of the demo assistant, made against the risk as it stands', async () => {
    const listed = await ok<{ proposals: Row[] }>(runtime, demo.token, 'listProposals', {
      organization_id: demo.organization_id,
    });
    expect(listed.proposals).toHaveLength(1);
    const proposal = listed.proposals[0] as Row;
    expect(proposal).toMatchObject({
      status: 'PENDING',
      tool: 'updateRisk',
      action: 'update',
      reason: 'scope',
      before: { residual_likelihood: 3, note: null },
      after: {
        residual_likelihood: 2,
        note: 'Immutable off-site backups are now restored in a monthly test.',
      },
    });
    const risk = await ok<{ risk: Row }>(runtime, demo.token, 'getRisk', { id: proposal.record_id });
    expect(risk.risk).toMatchObject({
      name: 'Loss of patient records after a ransomware attack',
      residual_likelihood: 3,
      updated_at: proposal.base_updated_at,
    });
  });
});
