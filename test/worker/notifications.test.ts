// Notifications on the Worker: the Cron Trigger's run makes them, and the Worker's SMTP session (mailer-worker.ts)
// sends the email over a TCP socket (cloudflare:sockets) to a real SMTP server on loopback without STARTTLS, started
// by the global setup (node/smtp-sink.ts): refused without SMTP_INSECURE before any password is sent.
import { createScheduledController } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createOrganization, createUser, setMembership } from '../../src/accounts.ts';
import { notifications, people } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { SETTLE_MS } from '../../src/notify/engine.ts';
import { SMTP_TLS_REQUIRED_MESSAGE } from '../../src/notify/mailer.ts';
import { type Env, runNotificationsOnWorker, runtimeFor } from '../../src/worker.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, runScheduled, testDatabase } from './helpers.ts';

interface ReceivedMessage {
  envelopeTo: string[];
  from: string;
  subject: string;
  text: string;
  notificationId: string | null;
}

const database = testDatabase();
afterAll(() => database.client.close());

/** An organization with an owner (and a token) and a member who is a person of it, made once for this file. */
let setupOnce: ReturnType<typeof makeSetup> | undefined;
async function makeSetup() {
  const { db } = database;
  const now = new Date();
  const suffix = crypto.randomUUID().slice(0, 8);
  const owner = await createUser(db, now, {
    emailVerified: true,
    email: `wk-owner-${suffix}@example.com`,
    password: 'not used in this test',
    passwordHash: 'x',
  });
  const member = await createUser(db, now, {
    emailVerified: true,
    email: `wk-member-${suffix}@example.com`,
    password: 'not used in this test',
    passwordHash: 'x',
  });
  const organization = await createOrganization(db, now, {
    name: `Worker notifications ${suffix}`,
    ownerId: owner.id,
  });
  await setMembership(db, now, organization.id, member.id, 'EDITOR');
  const personId = newId('per');
  await db.insert(people).values({
    id: personId,
    organization_id: organization.id,
    full_name: 'Worker Member',
    email: member.email,
    kind: 'EMPLOYEE',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  const created = await cliTokenService(database).create({
    userId: owner.id,
    name: 'worker notifications',
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });
  return { organizationId: organization.id, member, personId, token: created.token };
}

function setup() {
  setupOnce ??= makeSetup();
  return setupOnce;
}

/** The user names the loopback SMTP server accepted AUTH for, in order. */
async function signedInUsers(): Promise<string[]> {
  return (await (await fetch(`${inject('smtpInboxUrl')}auths`)).json()) as string[];
}

/** An obligation the member's person owns, added by the owner through the Worker. */
async function addOwnedObligation(requirement: string): Promise<string> {
  const { organizationId, personId, token } = await setup();
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/addObligation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ organization_id: organizationId, requirement, owner_id: personId }),
    }),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { obligation: { id: string } }).obligation.id;
}

async function rowsFor(recordId: string) {
  const { member } = await setup();
  return database.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.user_id, member.id), eq(notifications.record_id, recordId)))
    .orderBy(notifications.channel);
}

describe('notifications on the Worker', () => {
  // The other files' changes in the shared test database come first: a run reads at most 2,000 changes, so the ones
  // before these tests are read (as the next runs of a busy service would) before the tests make theirs.
  beforeAll(async () => {
    const runtime = runtimeFor(env);
    for (let run = 0; run < 100; run++) {
      const report = await runNotificationsOnWorker(runtime, new Date(Date.now() + SETTLE_MS + 1000));
      if (report.changes_read === 0) return;
    }
    throw new Error('the change history did not drain in 100 runs');
  });

  it('are made in-app by the 10-minute Cron Trigger when there are no SMTP settings', async () => {
    const id = await addOwnedObligation('Keep the register of processing up to date');
    await runScheduled(
      env,
      createScheduledController({ cron: '*/10 * * * *', scheduledTime: Date.now() + SETTLE_MS + 1000 }),
    );
    const rows = await rowsFor(id);
    expect(rows.map((row) => [row.channel, row.kind, row.status])).toEqual([
      ['in_app', 'owned_change', 'delivered'],
    ]);
    expect(rows[0]?.title).toBe(
      'The obligation "Keep the register of processing up to date" you own was added',
    );
  });

  it('are not emailed to an SMTP server without STARTTLS: the password is never sent', async () => {
    const id = await addOwnedObligation('Encrypt backups at rest');
    const authsBefore = await signedInUsers();
    const runtime = runtimeFor({
      ...env,
      SMTP_URL: `smtp://notify:loopback%20secret@127.0.0.1:${inject('smtpPort')}`,
      MAIL_FROM: 'Compliance <compliance@example.test>',
    });
    expect(runtime.config.mail).toMatchObject({ secure: false, insecure: false, user: 'notify' });
    const report = await runNotificationsOnWorker(runtime, new Date(Date.now() + SETTLE_MS + 1000));
    runtimeFor(env);
    expect(report.emails_sent).toBe(0);
    const rows = await rowsFor(id);
    const email = rows.find((row) => row.channel === 'email');
    expect(email?.status).toBe('pending');
    expect(email?.last_error).toContain(SMTP_TLS_REQUIRED_MESSAGE);
    // The server would have taken AUTH over plain TCP: it never got one.
    expect(await signedInUsers()).toEqual(authsBefore);
    // Not left for the next test's run to send.
    await database.db
      .update(notifications)
      .set({ status: 'skipped' })
      .where(and(eq(notifications.channel, 'email'), eq(notifications.status, 'pending')));
  });

  it('are emailed to the SMTP server on loopback, signed in, with SMTP_INSECURE, once', async () => {
    const id = await addOwnedObligation('Report breaches within 72 hours');
    const bindings: Env = {
      ...env,
      SMTP_URL: `smtp://notify:loopback%20secret@127.0.0.1:${inject('smtpPort')}`,
      SMTP_INSECURE: 'true',
      MAIL_FROM: 'Compliance <compliance@example.test>',
    };
    const runtime = runtimeFor(bindings);
    expect(runtime.config.mail).toMatchObject({
      host: '127.0.0.1',
      port: inject('smtpPort'),
      secure: false,
      insecure: true,
      user: 'notify',
      password: 'loopback secret',
    });
    const authsBefore = await signedInUsers();
    const at = new Date(Date.now() + SETTLE_MS + 1000);
    const first = await runNotificationsOnWorker(runtime, at);
    const second = await runNotificationsOnWorker(runtime, at);
    runtimeFor(env);
    expect(first.emails_sent).toBeGreaterThanOrEqual(1);
    expect(second.emails_sent).toBe(0);
    expect((await signedInUsers()).slice(authsBefore.length)).toEqual(['notify']);

    const rows = await rowsFor(id);
    expect(rows.map((row) => [row.channel, row.status])).toEqual([
      ['email', 'sent'],
      ['in_app', 'delivered'],
    ]);
    const { member } = await setup();
    const inbox = (await (await fetch(inject('smtpInboxUrl'))).json()) as ReceivedMessage[];
    const mine = inbox.filter((message) => message.envelopeTo.includes(member.email));
    expect(mine.map((message) => message.subject)).toEqual([
      'The obligation "Report breaches within 72 hours" you own was added',
    ]);
    expect(mine[0]?.from).toBe('"Compliance" <compliance@example.test>');
    expect(mine[0]?.notificationId).toBe(rows[0]?.id);
    expect(mine[0]?.text).toContain('requirement: Report breaches within 72 hours');
  });
});
