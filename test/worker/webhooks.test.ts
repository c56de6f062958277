// Webhook deliveries in workerd: a write's response starts a small run (waitUntil), the per-minute Cron Trigger a
// larger one; the platform-fetch sender refuses a private address without sending anything.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts.ts';
import { webhookEndpoints, webhookMessages } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import worker, { type Env } from '../../src/worker.ts';
import { DELIVERY_CRON } from '../../src/worker-crons.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, newAliceToken, testDatabase, world } from './helpers.ts';

describe('webhooks on the Worker', () => {
  it('attempts delivery after the write response and from the per-minute cron, within their budgets', async () => {
    const database = testDatabase();
    const { db } = database;
    const now = new Date();
    const organization = await createOrganization(db, now, {
      name: 'Webhooks on the Worker',
      ownerId: world.aliceUserId,
    });
    const endpointId = newId('whk');
    // Written directly: the address is refused when sending, so nothing leaves the machine.
    await db.insert(webhookEndpoints).values({
      id: endpointId,
      organization_id: organization.id,
      url: 'https://10.9.8.7/hook',
      description: null,
      events: ['vendor.created'],
      secret: newWebhookSecret(),
      enabled: true,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    const { token } = await newAliceToken(cliTokenService(database));
    const ctx = createExecutionContext();
    const fetch = worker.fetch as unknown as (r: Request, e: Env, c: ExecutionContext) => Promise<Response>;
    const response = await fetch(
      new Request(`${BASE}/api/mcp/tools/addVendor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organization_id: organization.id, name: 'Hooked vendor' }),
      }),
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
    const now = new Date();
    const organization = await createOrganization(db, now, {
      name: 'Scheduled events on the Worker',
      ownerId: world.aliceUserId,
    });
    const endpointId = newId('whk');
    await db.insert(webhookEndpoints).values({
      id: endpointId,
      organization_id: organization.id,
      url: 'https://10.9.8.7/hook',
      description: null,
      events: ['task.due'],
      secret: newWebhookSecret(),
      enabled: true,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    const { token } = await newAliceToken(cliTokenService(database));
    const fetch = worker.fetch as unknown as (r: Request, e: Env, c: ExecutionContext) => Promise<Response>;
    const dueOn = now.toISOString().slice(0, 10);
    const added = await fetch(
      new Request(`${BASE}/api/mcp/tools/addTask`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          organization_id: organization.id,
          title: 'Renew the certificate',
          due_on: dueOn,
        }),
      }),
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
      data: { organization_id: organization.id, kind: 'task', id: taskId, due_on: dueOn, overdue: false },
    });
    database.client.close();
  });
});
