// The scheduled webhook events on a pinned clock: task.due, review.due, evidence.expiring, incident.deadline and
// data_subject_request.due are found by the scan that runs with the notifications, put in the outbox of the endpoints
// that chose them once per record and date (an incident's per regime, stage and deadline), never for done, closed,
// answered or superseded records, never for another organization, and delivered signed.
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../scripts/webhook-receiver.ts';
import { webhookMessages } from '../../src/db/schema.ts';
import { nodeMailer } from '../../src/notify/mailer-node.ts';
import { notifyOnce } from '../../src/notify/schedule.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { deliverDueWebhooks } from '../../src/webhooks/deliver.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { enqueueScheduledEvents } from '../../src/webhooks/scheduled.ts';
import { nodeWebhookSender } from '../../src/webhooks/send-node.ts';
import { createActor, createOrg, createTestRuntime, createToken, ok, type TestRuntime } from '../helpers.ts';

type Row = Record<string, unknown>;

const NOW = new Date('2026-06-10T08:00:00.000Z');
const KINDS = REGISTER_SPECS.map((spec) => spec.kind);

let runtime: TestRuntime;
let org: string;
let otherOrg: string;
let token: string;
let otherToken: string;
let receiver: Receiver;

beforeEach(async () => {
  runtime = await createTestRuntime({
    env: { RATE_LIMIT_PER_MINUTE: '0', WEBHOOKS_ALLOW_LOCAL: 'true' },
    now: () => NOW,
  });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Scheduled');
  otherOrg = await createOrg(runtime, bob, 'Other');
  token = await createToken(runtime, alice);
  otherToken = await createToken(runtime, bob);
  receiver = await startReceiver();
});

afterEach(async () => {
  await receiver.close();
  await runtime.cleanup();
});

async function endpoint(events: string[], organizationId = org) {
  const created = await createEndpoint(
    runtime.database.db,
    NOW,
    organizationId,
    { url: receiver.url, description: null, events },
    { kinds: KINDS, allowLocal: true, secrets: runtime.secrets },
  );
  receiver.secrets.push(created.secret);
  return created;
}

async function payloads(endpointId: string): Promise<Row[]> {
  const rows = await runtime.database.db
    .select()
    .from(webhookMessages)
    .where(eq(webhookMessages.endpoint_id, endpointId))
    .orderBy(webhookMessages.event_type, webhookMessages.payload);
  return rows.map((row) => JSON.parse(row.payload) as Row);
}

const add = async (tool: string, key: string, args: Row, as = token) =>
  (await ok<Record<string, Row>>(runtime, as, tool, args))[key] as Row;

describe('scheduled webhook events', () => {
  it('sends task.due, review.due and evidence.expiring once per record and date, only for work still open', async () => {
    const hook = await endpoint(['task.due', 'review.*', 'evidence.expiring']);
    const base = { organization_id: org };
    const task = await add('addTask', 'task', { ...base, title: 'Rotate keys', due_on: '2026-06-12' });
    await add('addTask', 'task', { ...base, title: 'Far away', due_on: '2026-07-30' });
    const done = await add('addTask', 'task', { ...base, title: 'Done already', due_on: '2026-06-01' });
    await add('updateTask', 'task', { id: done.id, status: 'DONE' });
    const risk = await add('addRisk', 'risk', {
      ...base,
      name: 'Phishing',
      inherent_likelihood: 3,
      inherent_impact: 3,
      next_review_on: '2026-06-01',
    });
    const closed = await add('addRisk', 'risk', {
      ...base,
      name: 'Closed',
      inherent_likelihood: 1,
      inherent_impact: 1,
      next_review_on: '2026-06-01',
    });
    await add('updateRisk', 'risk', { id: closed.id, status: 'CLOSED' });
    const old = await add('addEvidence', 'evidence', {
      ...base,
      title: 'Pen test 2025',
      url: 'https://example.com/pentest-2025.pdf',
      valid_until: '2026-06-20',
    });
    const lapsing = await add('addEvidence', 'evidence', {
      ...base,
      title: 'ISO certificate',
      url: 'https://example.com/iso.pdf',
      valid_until: '2026-07-01',
    });
    await add('addEvidence', 'evidence', {
      ...base,
      title: 'Pen test 2026',
      url: 'https://example.com/pentest-2026.pdf',
      supersedes_id: old.id,
    });
    // Another organization's due work never reaches this endpoint, nor its own (none chose it there).
    await add(
      'addTask',
      'task',
      { organization_id: otherOrg, title: 'Theirs', due_on: '2026-06-11' },
      otherToken,
    );

    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(3);
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    const report = await notifyOnce({
      db: runtime.database.db,
      config: { mail: null, publicUrl: undefined },
      mailer: nodeMailer,
      now: NOW,
    });
    expect(report.webhook_events).toBe(0);
    const at = NOW.toISOString();
    expect(await payloads(hook.endpoint.id)).toEqual([
      {
        type: 'evidence.expiring',
        timestamp: at,
        data: {
          organization_id: org,
          kind: 'evidence',
          evidence_kind: 'LINK',
          id: lapsing.id,
          title: 'ISO certificate',
          valid_until: '2026-07-01',
          expired: false,
        },
      },
      {
        type: 'review.due',
        timestamp: at,
        data: {
          organization_id: org,
          kind: 'risk',
          id: risk.id,
          title: 'Phishing',
          next_review_on: '2026-06-01',
          overdue: true,
        },
      },
      {
        type: 'task.due',
        timestamp: at,
        data: {
          organization_id: org,
          kind: 'task',
          id: task.id,
          title: 'Rotate keys',
          due_on: '2026-06-12',
          status: 'TODO',
          owner_id: null,
          assignee_user_id: null,
          overdue: false,
        },
      },
    ]);

    // A new date is a new event; the same date again is not.
    await add('updateTask', 'task', { id: task.id, due_on: '2026-06-15' });
    await add('updateTask', 'task', { id: task.id, title: 'Rotate the keys' });
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(1);
    const dates = (await payloads(hook.endpoint.id))
      .filter((payload) => payload.type === 'task.due')
      .map((payload) => (payload.data as Row).due_on);
    expect(dates).toEqual(['2026-06-12', '2026-06-15']);

    // Delivered like every message: signed, verified by the receiver's standardwebhooks.
    const run = await deliverDueWebhooks(runtime.database.db, {
      send: nodeWebhookSender,
      now: () => new Date(),
      limit: 50,
      allowLocal: true,
      secrets: runtime.secrets,
    });
    expect(run).toMatchObject({ sent: 4, delivered: 4 });
    expect(receiver.badSignatures).toBe(0);
    expect(receiver.received.map((item) => item.type).sort()).toEqual([
      'evidence.expiring',
      'review.due',
      'task.due',
      'task.due',
    ]);
  });

  it('sends incident.deadline once per clock and deadline within 24 hours or missed, and data_subject_request.due', async () => {
    const hook = await endpoint(['incident.deadline', 'data_subject_request.*']);
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
    });
    const base = { organization_id: org, personal_data: true };
    // NIS2's early warning missed 23 hours ago; the 72-hour notices due in 25 hours (not yet); the final report waits.
    const significant = await add('addIncident', 'incident', {
      ...base,
      title: 'Ransomware on the file server',
      detected_at: '2026-06-08T09:00:00Z',
      nis2_significant: true,
    });
    // GDPR's notice due in 2 hours, and the people affected to be told without undue delay.
    const breach = await add('addIncident', 'incident', {
      ...base,
      title: 'Laptop stolen',
      detected_at: '2026-06-07T10:00:00Z',
      gdpr_risk: 'HIGH_RISK',
    });
    // Notified in time: nothing due.
    const notified = await add('addIncident', 'incident', {
      ...base,
      title: 'Misdirected email',
      detected_at: '2026-06-05T10:00:00Z',
    });
    await add('addIncidentNotification', 'incident_notification', {
      organization_id: org,
      incident_id: notified.id,
      regime: 'GDPR',
      stage: 'AUTHORITY',
      recipient: 'CNIL',
      sent_at: '2026-06-06T10:00:00Z',
    });
    const request = (received_on: string, reference: string, extra: Row = {}) =>
      add('addDataSubjectRequest', 'data_subject_request', {
        organization_id: org,
        reference,
        request_type: 'ACCESS',
        received_on,
        ...extra,
      });
    const soon = await request('2026-05-15', 'DSR-1');
    const late = await request('2026-05-01', 'DSR-2', { status: 'IN_PROGRESS' });
    await request('2026-06-01', 'DSR-3'); // due 2026-07-01: not within 7 days
    await request('2026-04-01', 'DSR-4', { status: 'COMPLETED', response_sent_on: '2026-04-20' });
    // Another organization's missed deadline never reaches this endpoint.
    await add(
      'addIncident',
      'incident',
      {
        organization_id: otherOrg,
        title: 'Theirs',
        detected_at: '2026-06-01T00:00:00Z',
        personal_data: true,
      },
      otherToken,
    );

    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(5);
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    const at = NOW.toISOString();
    const deadline = (incident: Row, fields: Row) => ({
      type: 'incident.deadline',
      timestamp: at,
      data: {
        organization_id: org,
        kind: 'incident',
        id: incident.id,
        title: incident.title,
        status: 'OPEN',
        owner_id: null,
        time_zone: 'Europe/Paris',
        ...fields,
      },
    });
    const requestDue = (record: Row, fields: Row) => ({
      type: 'data_subject_request.due',
      timestamp: at,
      data: {
        organization_id: org,
        kind: 'data_subject_request',
        id: record.id,
        reference: record.reference,
        request_type: 'ACCESS',
        received_on: record.received_on,
        due_on: record.due_on,
        extension_months: 0,
        status: record.status,
        owner_id: null,
        ...fields,
      },
    });
    const first = [
      requestDue(late, { overdue: true }),
      requestDue(soon, { overdue: false }),
      deadline(breach, {
        regime: 'GDPR',
        stage: 'AUTHORITY',
        what: 'Notify the supervisory authority of the personal data breach',
        source: 'Regulation (EU) 2016/679 (GDPR), Art. 33(1)',
        due_at: '2026-06-10T10:00:00.000Z',
        due_local: '2026-06-10 12:00 Europe/Paris',
        hours_left: 2,
        missed: false,
      }),
      deadline(breach, {
        regime: 'GDPR',
        stage: 'DATA_SUBJECTS',
        what: 'Tell the people affected, without undue delay (high risk to them)',
        source: 'Regulation (EU) 2016/679 (GDPR), Art. 34(1)',
        due_at: null,
        due_local: null,
        hours_left: null,
        missed: false,
      }),
      deadline(significant, {
        regime: 'NIS2',
        stage: 'EARLY_WARNING',
        what: 'Send the CSIRT or authority an early warning of the significant incident',
        source: 'Directive (EU) 2022/2555 (NIS2), Art. 23(4)(a)',
        due_at: '2026-06-09T09:00:00.000Z',
        due_local: '2026-06-09 11:00 Europe/Paris',
        hours_left: -23,
        missed: true,
      }),
    ];
    // The family data_subject_request.* brings the requests' record events too: only the scheduled ones here.
    const scheduled = async () =>
      (await payloads(hook.endpoint.id)).filter((payload) =>
        ['incident.deadline', 'data_subject_request.due'].includes(String(payload.type)),
      );
    const sorted = (items: Row[]) =>
      items.sort((a, b) =>
        `${a.type} ${JSON.stringify(a.data)}`.localeCompare(`${b.type} ${JSON.stringify(b.data)}`),
      );
    expect(sorted(await scheduled())).toEqual(sorted([...first]));

    // Two hours later the breach's notice is missed, but it was sent for that deadline already; the significant
    // incident's 72-hour notices come within 24 hours (two new events). A corrected awareness time moves the breach's
    // deadlines: new events.
    const later = new Date(NOW.getTime() + 2 * 3_600_000);
    expect(await enqueueScheduledEvents(runtime.database.db, later)).toBe(2);
    expect(
      (await scheduled())
        .filter((payload) => (payload.data as Row).id === significant.id)
        .map((payload) => {
          const data = payload.data as Row;
          return `${data.regime} ${data.stage} ${data.due_local} ${data.hours_left}`;
        })
        .sort(),
    ).toEqual([
      'GDPR AUTHORITY 2026-06-11 11:00 Europe/Paris 23',
      'NIS2 EARLY_WARNING 2026-06-09 11:00 Europe/Paris -23',
      'NIS2 NOTIFICATION 2026-06-11 11:00 Europe/Paris 23',
    ]);
    await add('updateIncident', 'incident', { id: breach.id, detected_at: '2026-06-08T00:00:00Z' });
    expect(await enqueueScheduledEvents(runtime.database.db, later)).toBe(2);
    expect(await enqueueScheduledEvents(runtime.database.db, later)).toBe(0);
    expect(
      (await scheduled())
        .filter((payload) => (payload.data as Row).id === breach.id)
        .map((payload) => `${(payload.data as Row).stage} ${(payload.data as Row).due_at}`)
        .sort(),
    ).toEqual([
      'AUTHORITY 2026-06-10T10:00:00.000Z',
      'AUTHORITY 2026-06-11T00:00:00.000Z',
      'DATA_SUBJECTS null',
      'DATA_SUBJECTS null',
    ]);

    // Delivered signed like every message: the 9 scheduled events and the 4 requests' data_subject_request.created.
    const messages = (await payloads(hook.endpoint.id)).length;
    expect(messages).toBe(9 + 4);
    const run = await deliverDueWebhooks(runtime.database.db, {
      send: nodeWebhookSender,
      now: () => new Date(),
      limit: 50,
      allowLocal: true,
      secrets: runtime.secrets,
    });
    expect(run).toMatchObject({ sent: messages, delivered: messages });
    expect(receiver.badSignatures).toBe(0);
    expect(receiver.received.filter((item) => item.type === 'incident.deadline')).toHaveLength(7);
  });

  it('sends access_review.due once per campaign and date, naming the reviewers with entries still undecided', async () => {
    const hook = await endpoint(['access_review.due']);
    const base = { organization_id: org };
    const person = async (full_name: string) =>
      add('addPerson', 'person', { ...base, full_name, email: `${full_name.toLowerCase()}@corp.example` });
    const olivia = await person('Olivia');
    const rob = await person('Rob');
    const sam = await person('Sam');
    const campaign = await add('addAccessReview', 'access_review', {
      ...base,
      name: 'Q2 production access',
      status: 'IN_PROGRESS',
      due_on: '2026-06-05',
      owner_id: olivia.id,
      reviewer_ids: [rob.id, sam.id],
    });
    const entry = (reviewer: Row, account: string) =>
      add('addAccessReviewEntry', 'access_review_entry', {
        ...base,
        access_review_id: campaign.id,
        account,
        system: 'Production',
        reviewer_id: reviewer.id,
      });
    const samEntry = await entry(sam, 'a@corp.example');
    await entry(rob, 'b@corp.example');
    await add('updateAccessReviewEntry', 'access_review_entry', { id: samEntry.id, decision: 'KEEP' });
    // Due later than the week ahead, a draft and a completed campaign send nothing.
    await add('addAccessReview', 'access_review', {
      ...base,
      name: 'Later',
      status: 'IN_PROGRESS',
      due_on: '2026-06-30',
    });
    await add('addAccessReview', 'access_review', { ...base, name: 'Draft', due_on: '2026-06-11' });

    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(1);
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    expect(await payloads(hook.endpoint.id)).toEqual([
      {
        type: 'access_review.due',
        timestamp: NOW.toISOString(),
        data: {
          organization_id: org,
          kind: 'access_review',
          id: campaign.id,
          name: 'Q2 production access',
          due_on: '2026-06-05',
          status: 'IN_PROGRESS',
          owner_id: olivia.id,
          undecided_reviewer_ids: [rob.id],
          overdue: true,
        },
      },
    ]);
    // A new due date is a new event.
    await add('updateAccessReview', 'access_review', { id: campaign.id, due_on: '2026-06-12' });
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(1);
    expect((await payloads(hook.endpoint.id)).map((payload) => (payload.data as Row).due_on)).toEqual([
      '2026-06-05',
      '2026-06-12',
    ]);
  });

  it('sends vendor.renewal_due and vendor.assessment_due 30 days ahead, once per vendor and date, never for one leaving', async () => {
    const hook = await endpoint(['vendor.renewal_due', 'vendor.assessment_due']);
    const base = { organization_id: org, category: 'OTHER' };
    const assessor = await add('addPerson', 'person', {
      organization_id: org,
      full_name: 'Ada',
      email: 'ada@corp.example',
    });
    const renewing = await add('addVendor', 'vendor', {
      ...base,
      name: 'Renews',
      tier: 'HIGH',
      renewal_on: '2026-07-05',
    });
    await add('addVendorAssessment', 'vendor_assessment', {
      organization_id: org,
      vendor_id: renewing.id,
      assessor_id: assessor.id,
      assessed_on: '2026-01-10',
      result: 'APPROVED',
      tier: 'HIGH',
      expires_on: '2027-01-10',
    });
    const never = await add('addVendor', 'vendor', {
      ...base,
      name: 'Never assessed',
      renewal_on: '2026-08-01',
    });
    await add('addVendor', 'vendor', {
      ...base,
      name: 'Leaving',
      status: 'OFFBOARDING',
      renewal_on: '2026-06-20',
    });

    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(2);
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    const at = NOW.toISOString();
    const event = (type: string, vendor: Row, fields: Row) => ({
      type,
      timestamp: at,
      data: {
        organization_id: org,
        kind: 'vendor',
        id: vendor.id,
        name: vendor.name,
        status: 'ACTIVE',
        business_owner_id: null,
        security_owner_id: null,
        ...fields,
      },
    });
    expect(await payloads(hook.endpoint.id)).toEqual([
      event('vendor.assessment_due', never, {
        tier: null,
        renewal_on: '2026-08-01',
        assessed_until: null,
        due_on: '2026-06-10',
        overdue: false,
      }),
      event('vendor.renewal_due', renewing, {
        tier: 'HIGH',
        renewal_on: '2026-07-05',
        assessed_until: '2027-01-10',
        due_on: '2026-07-05',
        overdue: false,
      }),
    ]);
  });

  it('scans nothing in organizations whose endpoints did not choose a scheduled event', async () => {
    const hook = await endpoint(['risk.created']);
    await add('addTask', 'task', { organization_id: org, title: 'Due', due_on: '2026-06-11' });
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    expect(await payloads(hook.endpoint.id)).toEqual([]);
  });
});
