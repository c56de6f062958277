// The scheduled webhook events on a pinned clock: task.due, review.due and evidence.expiring are found by the scan
// that runs with the notifications, put in the outbox of the endpoints that chose them once per record and date,
// never for done, closed or superseded records, never for another organization, and delivered signed.
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

  it('scans nothing in organizations whose endpoints did not choose a scheduled event', async () => {
    const hook = await endpoint(['risk.created']);
    await add('addTask', 'task', { organization_id: org, title: 'Due', due_on: '2026-06-11' });
    expect(await enqueueScheduledEvents(runtime.database.db, NOW)).toBe(0);
    expect(await payloads(hook.endpoint.id)).toEqual([]);
  });
});
