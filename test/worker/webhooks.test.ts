// Webhook deliveries in workerd: a write's response starts a small run (waitUntil), the per-minute Cron Trigger a
// larger one; the platform-fetch sender refuses a private address without sending anything.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, ne } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, inject, it } from 'vitest';
import { createOrganization } from '../../src/accounts.ts';
import { webhookEndpoints, webhookMessages } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import worker, { type Env } from '../../src/worker.ts';
import { DELIVERY_CRON } from '../../src/worker-crons.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, deliveredMessage, newAliceToken, testDatabase, world } from './helpers.ts';

type Database = ReturnType<typeof testDatabase>;

/** An organization of Alice's with one enabled endpoint, written directly; Alice's token. */
async function hookedOrganization(
  database: Database,
  name: string,
  endpoint: { url: string; events: string[]; secret?: string },
) {
  const now = new Date();
  const organization = await createOrganization(database.db, now, { name, ownerId: world.aliceUserId });
  const endpointId = newId('whk');
  await database.db.insert(webhookEndpoints).values({
    id: endpointId,
    organization_id: organization.id,
    url: endpoint.url,
    description: null,
    events: endpoint.events,
    secret: endpoint.secret ?? newWebhookSecret(),
    enabled: true,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  const { token } = await newAliceToken(cliTokenService(database));
  return { organizationId: organization.id, endpointId, token };
}

/** A direct tool call through the Worker's fetch handler, with its execution context. */
async function callWorker(
  tool: string,
  token: string,
  args: Record<string, unknown>,
  bindings: Env,
  ctx: ExecutionContext,
) {
  const fetch = worker.fetch as unknown as (r: Request, e: Env, c: ExecutionContext) => Promise<Response>;
  return fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
    bindings,
    ctx,
  );
}

describe('webhooks on the Worker', () => {
  it('attempts delivery after the write response and from the per-minute cron, within their budgets', async () => {
    const database = testDatabase();
    const { db } = database;
    // Written directly: the address is refused when sending, so nothing leaves the machine.
    const { organizationId, endpointId, token } = await hookedOrganization(
      database,
      'Webhooks on the Worker',
      {
        url: 'https://10.9.8.7/hook',
        events: ['vendor.created'],
      },
    );
    const ctx = createExecutionContext();
    const response = await callWorker(
      'addVendor',
      token,
      { organization_id: organizationId, name: 'Hooked vendor' },
      env as Env,
      ctx,
    );
    expect(response.status).toBe(200);
    await waitOnExecutionContext(ctx);
    const messages = () =>
      db.select().from(webhookMessages).where(eq(webhookMessages.endpoint_id, endpointId));
    const [afterWrite] = await messages();
    expect(afterWrite).toMatchObject({
      event_type: 'vendor.created',
      status: 'pending',
      attempts: 1,
      last_status_code: null,
      last_error: 'The URL points at a private address, which is refused.',
    });
    // Due again now: the cron run takes it.
    await db
      .update(webhookMessages)
      .set({ next_attempt_at: new Date(Date.now() - 1000).toISOString() })
      .where(eq(webhookMessages.endpoint_id, endpointId));
    const scheduledCtx = createExecutionContext();
    const scheduled = worker.scheduled as unknown as (
      c: ScheduledController,
      e: Env,
      x: ExecutionContext,
    ) => Promise<void>;
    await scheduled(createScheduledController({ cron: DELIVERY_CRON }), env as Env, scheduledCtx);
    await waitOnExecutionContext(scheduledCtx);
    const [afterCron] = await messages();
    expect(afterCron).toMatchObject({ status: 'pending', attempts: 2 });
    database.client.close();
  });
  it('puts a task coming due in the outbox from the 10-minute Cron Trigger, once', async () => {
    const database = testDatabase();
    const { db } = database;
    const { organizationId, endpointId, token } = await hookedOrganization(
      database,
      'Scheduled events on the Worker',
      { url: 'https://10.9.8.7/hook', events: ['task.due'] },
    );
    const dueOn = new Date().toISOString().slice(0, 10);
    const added = await callWorker(
      'addTask',
      token,
      { organization_id: organizationId, title: 'Renew the certificate', due_on: dueOn },
      env as Env,
      createExecutionContext(),
    );
    expect(added.status).toBe(200);
    const taskId = ((await added.json()) as { task: { id: string } }).task.id;
    const scheduled = worker.scheduled as unknown as (
      c: ScheduledController,
      e: Env,
      x: ExecutionContext,
    ) => Promise<void>;
    for (let run = 0; run < 2; run++) {
      const ctx = createExecutionContext();
      await scheduled(createScheduledController({ cron: '*/10 * * * *' }), env as Env, ctx);
      await waitOnExecutionContext(ctx);
    }
    const messages = await db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, endpointId));
    expect(messages.map((message) => message.event_type)).toEqual(['task.due']);
    expect(JSON.parse(messages[0]?.payload ?? '{}')).toMatchObject({
      type: 'task.due',
      data: { organization_id: organizationId, kind: 'task', id: taskId, due_on: dueOn, overdue: false },
    });
    database.client.close();
  });
  it('puts a vendor renewal and an access review coming due in the outbox from the 10-minute Cron Trigger, once', async () => {
    const database = testDatabase();
    const { db } = database;
    const { organizationId, endpointId, token } = await hookedOrganization(
      database,
      'Due vendors on the Worker',
      {
        url: 'https://10.9.8.7/hook',
        events: ['vendor.renewal_due', 'access_review.due'],
      },
    );
    const today = new Date().toISOString().slice(0, 10);
    const call = async (tool: string, args: Record<string, unknown>) => {
      const response = await callWorker(tool, token, args, env as Env, createExecutionContext());
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, { id: string }>;
    };
    const vendor = await call('addVendor', {
      organization_id: organizationId,
      name: 'Renews today',
      category: 'OTHER',
      renewal_on: today,
    });
    const campaign = await call('addAccessReview', {
      organization_id: organizationId,
      name: 'Due today',
      status: 'IN_PROGRESS',
      due_on: today,
    });
    const scheduled = worker.scheduled as unknown as (
      c: ScheduledController,
      e: Env,
      x: ExecutionContext,
    ) => Promise<void>;
    for (let run = 0; run < 2; run++) {
      const ctx = createExecutionContext();
      await scheduled(createScheduledController({ cron: '*/10 * * * *' }), env as Env, ctx);
      await waitOnExecutionContext(ctx);
    }
    const messages = await db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, endpointId));
    const payloads = messages
      .map((message) => JSON.parse(message.payload) as { type: string; data: Record<string, unknown> })
      .sort((a, b) => a.type.localeCompare(b.type))
      .map((payload) => [payload.type, payload.data.id, payload.data.due_on, payload.data.overdue]);
    expect(payloads).toEqual([
      ['access_review.due', campaign.access_review?.id, today, false],
      ['vendor.renewal_due', vendor.vendor?.id, today, false],
    ]);
    database.client.close();
  });

  it('delivers a signed message to a receiver on loopback after the write, verified with standardwebhooks', async () => {
    const bindings: Env = { ...(env as Env), WEBHOOKS_ALLOW_LOCAL: 'true' };
    const database = testDatabase();
    const { db } = database;
    const secret = newWebhookSecret();
    const { organizationId, endpointId, token } = await hookedOrganization(
      database,
      'Delivered from the Worker',
      {
        url: `${inject('webhookSinkUrl')}/hook`,
        events: ['vendor.created'],
        secret,
      },
    );
    // With local addresses allowed, a run would also send the messages other tests left to refused addresses.
    await db
      .update(webhookMessages)
      .set({ status: 'failed' })
      .where(and(eq(webhookMessages.status, 'pending'), ne(webhookMessages.endpoint_id, endpointId)));
    const ctx = createExecutionContext();
    const response = await callWorker(
      'addVendor',
      token,
      { organization_id: organizationId, name: 'Delivered vendor' },
      bindings,
      ctx,
    );
    expect(response.status).toBe(200);
    await waitOnExecutionContext(ctx);
    const message = await deliveredMessage(database, endpointId, bindings);
    expect(message).toMatchObject({
      event_type: 'vendor.created',
      status: 'delivered',
      last_status_code: 204,
    });
    const received = (await (await globalThis.fetch(`${inject('webhookSinkUrl')}/received`)).json()) as {
      headers: Record<string, string>;
      body: string;
    }[];
    const delivery = received.find((item) => item.headers['webhook-id'] === message?.id);
    expect(delivery).toBeDefined();
    const payload = new Webhook(secret).verify(delivery?.body ?? '', delivery?.headers ?? {}) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('vendor.created');
    expect(payload.data).toMatchObject({ organization_id: organizationId, kind: 'vendor', action: 'add' });
    expect((payload.data.after as { name: string }).name).toBe('Delivered vendor');
    database.client.close();
  });
});
