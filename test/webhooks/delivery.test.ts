// Webhook deliveries end to end in process: writes put events in the outbox in their own batch, the runner signs and
// sends them to a loopback receiver that verifies with `standardwebhooks`, retries, rotation, and the bounds.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../scripts/webhook-receiver.ts';
import { loadConfig } from '../../src/config.ts';
import { webhookMessages } from '../../src/db/schema.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { deliverDueWebhooks, retryDelayMs } from '../../src/webhooks/deliver.ts';
import {
  createEndpoint,
  deleteEndpoint,
  listMessages,
  redeliver,
  rotateSecret,
  updateEndpoint,
  webhookUrlProblem,
} from '../../src/webhooks/endpoints.ts';
import { enqueueEvent } from '../../src/webhooks/events.ts';
import { fetchWebhookSender, type WebhookSender } from '../../src/webhooks/send.ts';
import { createNodeWebhookSender, nodeWebhookSender } from '../../src/webhooks/send-node.ts';
import { createActor, createOrg, createTestRuntime, createToken, ok, type TestRuntime } from '../helpers.ts';

const KINDS = REGISTER_SPECS.map((spec) => spec.kind);
/** The endpoint options of this file's runtime: local receivers allowed, secrets sealed under its key. */
const options = () => ({ kinds: KINDS, allowLocal: true, secrets: runtime.secrets });

let runtime: TestRuntime;
let org: string;
let otherOrg: string;
let token: string;
const receivers: Receiver[] = [];

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

async function endpointFor(target: Receiver, events: string[], organizationId = org) {
  const created = await createEndpoint(
    runtime.database.db,
    new Date(),
    organizationId,
    { url: target.url, description: null, events },
    options(),
  );
  target.secrets.push(created.secret);
  return created;
}

function run(send: WebhookSender = nodeWebhookSender, now = () => new Date(), extra = {}) {
  return deliverDueWebhooks(runtime.database.db, {
    send,
    now,
    limit: 50,
    allowLocal: true,
    secrets: runtime.secrets,
    ...extra,
  });
}

async function messages() {
  return runtime.database.db.select().from(webhookMessages).orderBy(webhookMessages.created_at);
}

async function addRisk(name: string) {
  return (
    await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
      organization_id: org,
      name,
      inherent_likelihood: 2,
      inherent_impact: 3,
    })
  ).risk.id;
}

beforeEach(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0', WEBHOOKS_ALLOW_LOCAL: 'true' } });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Hooked');
  otherOrg = await createOrg(runtime, bob, 'Other');
  token = await createToken(runtime, alice);
});

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((item) => item.close()));
  await runtime.cleanup();
});

describe('events from the change history', () => {
  it('sends created, updated, linked and deleted with before/after, signed and verified by standardwebhooks', async () => {
    const target = await receiver();
    await endpointFor(target, ['risk.*']);
    const id = await addRisk('Phishing');
    await ok(runtime, token, 'updateRisk', { id, note: 'reviewed' });
    const measure = await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'MFA',
    });
    await ok(runtime, token, 'linkRiskMeasure', { risk_id: id, measure_id: measure.measure.id });
    await ok(runtime, token, 'deleteRisk', { id });
    expect(await run()).toEqual({ sent: 4, delivered: 4, retrying: 0, failed: 0 });
    const types = target.received.map((item) => item.type).sort();
    expect(types).toEqual(['risk.created', 'risk.deleted', 'risk.linked', 'risk.updated']);
    const updated = target.received.find((item) => item.type === 'risk.updated')?.body as {
      data: Record<string, unknown>;
    };
    expect(updated.data).toMatchObject({
      organization_id: org,
      kind: 'risk',
      id,
      action: 'update',
      tool: 'updateRisk',
      surface: 'direct',
      before: { note: null },
      after: { note: 'reviewed' },
    });
    const created = target.received.find((item) => item.type === 'risk.created')?.body as {
      data: { before: unknown; after: { name: string } };
    };
    expect(created.data.before).toBeNull();
    expect(created.data.after.name).toBe('Phishing');
    // Every webhook-id once: nothing was sent twice.
    expect(new Set(target.received.map((item) => item.id)).size).toBe(4);
    expect((await messages()).map((row) => row.status)).toEqual(Array(4).fill('delivered'));
    expect(await run()).toEqual({ sent: 0, delivered: 0, retrying: 0, failed: 0 });
  });

  it('sends only the events an endpoint chose, only for its organization, and only while enabled', async () => {
    const vendors = await receiver();
    const everything = await receiver();
    const other = await receiver();
    const vendorEndpoint = await endpointFor(vendors, ['vendor.created']);
    await endpointFor(everything, ['*']);
    await endpointFor(other, ['*'], otherOrg);
    await addRisk('Only for everything');
    await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Acme' });
    await run();
    await updateEndpoint(
      runtime.database.db,
      new Date(),
      org,
      vendorEndpoint.endpoint.id,
      { url: vendors.url, description: null, events: ['vendor.created'], enabled: false },
      options(),
    );
    await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Globex' });
    await run();
    expect(vendors.received.map((item) => item.type)).toEqual(['vendor.created']);
    expect(everything.received.map((item) => item.type).sort()).toEqual([
      'risk.created',
      'vendor.created',
      'vendor.created',
    ]);
    expect(other.requests).toBe(0);
  });

  it('enqueues a scheduled event (review.due) for the endpoints that chose it, in the caller batch', async () => {
    const target = await receiver();
    await endpointFor(target, ['review.*']);
    const other = await receiver();
    await endpointFor(other, ['task.due']);
    const at = new Date().toISOString();
    const { db } = runtime.database;
    await db.batch([
      enqueueEvent(db, { organizationId: org, type: 'review.due', at, data: { kind: 'risk', id: 'rsk_x' } }),
    ]);
    await run();
    expect(target.received.map((item) => item.body)).toEqual([
      { type: 'review.due', timestamp: at, data: { kind: 'risk', id: 'rsk_x' } },
    ]);
    expect(other.requests).toBe(0);
  });
});

describe('retries', () => {
  it('retries a dropped or failed delivery with the same webhook-id, then delivers it', async () => {
    const target = await receiver();
    target.answer = (n) =>
      n === 1 ? { kind: 'drop' } : n === 2 ? { kind: 'status', status: 503 } : { kind: 'ok' };
    await endpointFor(target, ['risk.created']);
    await addRisk('Flaky receiver');
    let clock = Date.now();
    const now = () => new Date(clock);
    expect(await run(nodeWebhookSender, now)).toMatchObject({ sent: 1, retrying: 1 });
    const [dropped] = await messages();
    expect(dropped).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(dropped?.last_error).toContain('socket hang up');
    // Not due before its delay.
    expect(await run(nodeWebhookSender, now)).toMatchObject({ sent: 0 });
    clock += retryDelayMs(1);
    expect(await run(nodeWebhookSender, now)).toMatchObject({ sent: 1, retrying: 1 });
    expect((await messages())[0]).toMatchObject({ attempts: 2, last_status_code: 503 });
    clock += retryDelayMs(2);
    // 2.5 minutes ahead: within the receiver's 5-minute timestamp tolerance.
    expect(await run(nodeWebhookSender, now)).toMatchObject({ sent: 1, delivered: 1 });
    expect(target.requests).toBe(3);
    expect(target.received.map((item) => item.id)).toEqual([dropped?.id]);
    expect((await messages())[0]).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
  });

  it('backs off exponentially and marks a message failed after a day (9 attempts), until redelivered', async () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayMs(attempts))).toEqual([
      30_000, 120_000, 480_000, 1_920_000, 7_680_000, 21_600_000, 21_600_000,
    ]);
    // WEBHOOK_RETRY_BASE_MS shortens the same schedule (the crash test runs on 1 s); the 6 h ceiling stays.
    const short = loadConfig({ WEBHOOK_RETRY_BASE_MS: '1000', WEBHOOK_CLAIM_MS: '15000' }).webhookTiming;
    expect(short).toEqual({ retryBaseMs: 1000, claimMs: 15_000 });
    expect([1, 2, 3, 12].map((attempts) => retryDelayMs(attempts, short))).toEqual([
      1000, 4000, 16_000, 21_600_000,
    ]);
    expect(() => loadConfig({ WEBHOOK_CLAIM_MS: '5000' })).toThrow(/WEBHOOK_CLAIM_MS/);
    const target = await receiver();
    target.answer = () => ({ kind: 'status', status: 500 });
    await endpointFor(target, ['risk.created']);
    await addRisk('Always failing');
    const start = Date.now();
    let clock = start;
    const now = () => new Date(clock);
    const statuses: string[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      const done = await run(nodeWebhookSender, now);
      if (done.sent === 0) break;
      const [row] = await messages();
      statuses.push(row?.status ?? '');
      clock = Date.parse(row?.next_attempt_at ?? '');
    }
    expect(statuses).toEqual([...Array(8).fill('pending'), 'failed']);
    const [failed] = await messages();
    expect(failed).toMatchObject({ status: 'failed', attempts: 9, last_status_code: 500 });
    expect(target.requests).toBe(9);
    // Redeliver: pending again now, with the same webhook-id, and delivered.
    target.answer = () => ({ kind: 'ok' });
    await redeliver(runtime.database.db, new Date(), org, failed?.id ?? '');
    expect(await run()).toMatchObject({ delivered: 1 });
    expect(target.received.map((item) => item.id)).toEqual([failed?.id]);
    // Another organization's delivery is not found.
    await expect(redeliver(runtime.database.db, new Date(), otherOrg, failed?.id ?? '')).rejects.toThrow(
      'No such delivery.',
    );
    expect((await listMessages(runtime.database.db, org, failed?.endpoint_id ?? '')).length).toBe(1);
    expect((await listMessages(runtime.database.db, otherOrg, failed?.endpoint_id ?? '')).length).toBe(0);
  });
});

describe('secrets', () => {
  it('signs with the old and the new secret for a day after a rotation, then with the new one only', async () => {
    const target = await receiver();
    const { endpoint, secret: first } = await endpointFor(target, ['risk.created']);
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const second = await rotateSecret(runtime.database.db, new Date(), org, endpoint.id, runtime.secrets);
    target.secrets.splice(0, target.secrets.length, first, second);
    await addRisk('Rotated');
    await run();
    expect(target.received[0]?.verified).toEqual([true, true]);
    expect(target.received[0]?.signatures.split(' ').length).toBe(2);
    // A day later the old one no longer signs.
    const later = await rotateSecret(
      runtime.database.db,
      new Date(Date.now() - 25 * 3600_000),
      org,
      endpoint.id,
      runtime.secrets,
    );
    target.secrets.splice(0, target.secrets.length, second, later);
    await addRisk('Rotated again');
    await run();
    expect(target.received[1]?.verified).toEqual([false, true]);
    expect(target.received[1]?.signatures.split(' ').length).toBe(1);
  });
});

describe('bounds and refusals', () => {
  it('refuses http, private, loopback, link-local and local names outside development', () => {
    const cases = {
      'http://hooks.example.com/x': 'The URL must use https.',
      'https://10.1.2.3/x': 'The URL points at a private address, which is refused.',
      'https://192.168.0.10/x': 'The URL points at a private address, which is refused.',
      'https://127.0.0.1:8443/x': 'The URL points at a loopback address, which is refused.',
      'https://[::1]/x': 'The URL points at a loopback address, which is refused.',
      'https://169.254.169.254/latest': 'The URL points at a link-local address, which is refused.',
      'https://[::ffff:10.0.0.1]/x': 'The URL points at a private address, which is refused.',
      'https://localhost/x': 'The URL points at a local host name, which is refused.',
      'https://metadata.internal/x': 'The URL points at a local host name, which is refused.',
      'https://user:pw@hooks.example.com/x': 'The URL must not carry a user name or password.',
      'https://hooks.example.com/x': null,
    };
    for (const [url, problem] of Object.entries(cases))
      expect([url, webhookUrlProblem(url, false)]).toEqual([url, problem]);
    expect(webhookUrlProblem('http://127.0.0.1:3000/x', true)).toBeNull();
  });

  it('refuses to add an endpoint on a private address, and to send to a name that resolves to one', async () => {
    await expect(
      createEndpoint(
        runtime.database.db,
        new Date(),
        org,
        { url: 'https://10.0.0.8/hooks', description: null, events: ['*'] },
        { kinds: KINDS, allowLocal: false, secrets: runtime.secrets },
      ),
    ).rejects.toThrow('The URL points at a private address, which is refused.');
    const target = await receiver();
    // A public-looking name that DNS answers with the loopback address where the receiver listens.
    const resolver = ((_name: string, _options: unknown, callback: (...args: unknown[]) => void) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as Parameters<
      typeof createNodeWebhookSender
    >[0];
    const send = createNodeWebhookSender(resolver);
    const port = new URL(target.url).port;
    const request = { url: `http://hooks.example.com:${port}/hooks`, headers: {}, body: '{}' };
    const limits = { timeoutMs: 5000, maxResponseBytes: 65_536 };
    await expect(send(request, { ...limits, allowLocal: false })).rejects.toThrow('The URL must use https.');
    await expect(
      send({ ...request, url: `https://hooks.example.com:${port}/hooks` }, { ...limits, allowLocal: false }),
    ).rejects.toThrow('The host name resolves to a loopback address, which is refused.');
    expect(target.requests).toBe(0);
  });

  for (const [name, sender] of [
    ['Node', nodeWebhookSender],
    ['fetch', fetchWebhookSender],
  ] as const) {
    it(`${name} sender: follows no redirect, reads at most 64 KB of a 10 MB answer, and a slow receiver blocks no other`, async () => {
      const redirecting = await receiver();
      const redirectTarget = await receiver();
      redirecting.answer = () => ({ kind: 'redirect', location: redirectTarget.url });
      const huge = await receiver();
      huge.answer = () => ({ kind: 'huge', bytes: 10 * 1024 * 1024 });
      const slow = await receiver();
      slow.answer = () => ({ kind: 'late', ms: 60_000 });
      const fast = await receiver();
      for (const target of [redirecting, redirectTarget, huge, slow, fast])
        await endpointFor(target, ['risk.created']);
      await addRisk('Bounded');
      const done = await run(sender, () => new Date(), { limits: { timeoutMs: 1500 }, concurrency: 2 });
      expect(done).toEqual({ sent: 5, delivered: 3, retrying: 2, failed: 0 });
      expect(redirectTarget.received.length).toBe(1); // its own endpoint's message, not the redirect
      expect(redirectTarget.requests).toBe(1);
      expect(huge.received.length).toBe(1);
      expect(huge.hugeFinished).toEqual([false]);
      expect(fast.received.length).toBe(1);
      const outcomes = (await messages()).map((row) => `${row.last_status_code} ${row.last_error}`).sort();
      expect(outcomes).toEqual([
        '200 null',
        '200 null',
        '200 null',
        '302 The receiver answered HTTP 302.',
        'null No answer within 1.5 s.',
      ]);
    });
  }

  it('deleting an endpoint removes its pending messages', async () => {
    const target = await receiver();
    const { endpoint } = await endpointFor(target, ['*']);
    await addRisk('Dropped with the endpoint');
    expect((await messages()).length).toBe(1);
    await expect(deleteEndpoint(runtime.database.db, otherOrg, endpoint.id)).rejects.toThrow(
      'No such webhook endpoint.',
    );
    await deleteEndpoint(runtime.database.db, org, endpoint.id);
    expect((await messages()).length).toBe(0);
  });
});
