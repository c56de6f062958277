// Notifications in the web interface: the count in the top bar, the list with mark read, and the settings form.
import { describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/notify/engine.ts';
import { loadPreferences } from '../../src/notify/preferences.ts';
import { notifyOnce } from '../../src/notify/schedule.ts';
import { addMember, createActor, createToken, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { signedUpRuntime, textOf } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

/** Ada (signed in) is a person of her organization; a colleague adds a risk she owns; the engine runs. */
async function adaOwnsARisk() {
  const world = await signedUpRuntime(runtimes);
  const { runtime, organizationId, token } = world;
  const person = await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
    organization_id: organizationId,
    full_name: 'Ada Lovelace',
    email: 'ada@example.com',
    kind: 'EMPLOYEE',
  });
  const colleague = await createActor(runtime, 'colleague');
  await addMember(runtime, organizationId, colleague, 'EDITOR');
  const risk = await ok<{ risk: { id: string } }>(runtime, await createToken(runtime, colleague), 'addRisk', {
    organization_id: organizationId,
    name: 'Phishing',
    category: 'People',
    inherent_likelihood: 4,
    inherent_impact: 3,
    owner_id: person.person.id,
  });
  const report = await notifyOnce({
    db: runtime.database.db,
    config: runtime.config,
    mailer: () => {
      throw new Error('no SMTP settings in this test');
    },
    now: new Date(Date.now() + SETTLE_MS + 1000),
  });
  expect(report.notifications_created).toBe(1);
  return { ...world, riskId: risk.risk.id };
}

describe('the notification list', () => {
  it('shows the unread count in the top bar, lists the notification with a link, and marks it read', async () => {
    const { client, organizationId, riskId } = await adaOwnsARisk();
    const home = await client.get('/notifications');
    expect(home.status).toBe(200);
    expect(textOf(home.html)).toContain('Notifications 1 unread');
    expect(textOf(home.html)).toContain('The risk "Phishing" you own was added');
    expect(home.html).toContain(`href="/orgs/${organizationId}/risks/${riskId}"`);
    const id = /name="id" value="(ntf_[a-z0-9]+)"/.exec(home.html)?.[1];
    expect(id).toMatch(/^ntf_/);

    const marked = await client.submit('/notifications', '/notifications/read', { id: id ?? '' });
    expect([marked.status, marked.location]).toEqual([303, '/notifications']);
    const after = await client.follow(marked);
    expect(textOf(after.html)).toContain('Marked 1 notification read.');
    expect(textOf(after.html)).not.toContain('Notifications 1');
    expect(after.html).toContain('<a href="/notifications" class="bell">Notifications</a>');
    const unread = await client.get('/notifications?unread=1');
    expect(textOf(unread.html)).toContain('No unread notifications.');
  });

  it('marks all read at once', async () => {
    const { client } = await adaOwnsARisk();
    const marked = await client.submit('/notifications', '/notifications/read', { all: 'true' });
    const after = await client.follow(marked);
    expect(textOf(after.html)).toContain('Marked 1 notification read.');
  });
});

describe('notification settings', () => {
  it('shows the defaults, says which person the account is, and saves the choices and time zone', async () => {
    const { client, organizationId, runtime } = await adaOwnsARisk();
    const page = await client.get('/settings/notifications');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('You are Ada Lovelace in this organization');
    expect(text).toContain('This server has no email settings');
    expect(page.html).toContain('<option value="Europe/Paris">');

    const saved = await client.submit('/settings/notifications', '/settings/notifications', {
      organization_id: organizationId,
      assigned: 'true',
      overdue: 'true',
      digest: 'true',
      due_days: '14',
      digest_hour: '7',
      time_zone: 'Europe/Paris',
    });
    expect([saved.status, saved.location]).toEqual([303, '/settings/notifications']);
    expect(textOf((await client.follow(saved)).html)).toContain(
      'Notification settings saved for Acme Health.',
    );
    const user = /usr_[a-z0-9]+/.exec(
      (await runtime.database.client.execute("SELECT id FROM users WHERE email = 'ada@example.com'")).rows[0]
        ?.id as string,
    )?.[0];
    expect(await loadPreferences(runtime.database.db, user ?? '', organizationId)).toEqual({
      assigned: true,
      due_soon: false,
      due_days: 14,
      overdue: true,
      owned_changes: false,
      digest: true,
      digest_hour: 7,
      email: false,
      time_zone: 'Europe/Paris',
    });
    // The account's time zone, which the tools' and pages' "today" follow.
    const zone = await runtime.database.client.execute({
      sql: 'SELECT time_zone FROM users WHERE id = ?',
      args: [user ?? ''],
    });
    expect(zone.rows[0]?.time_zone).toBe('Europe/Paris');
  });

  it('refuses an unknown time zone with the reason, and an organization the account is not in', async () => {
    const { client, organizationId } = await adaOwnsARisk();
    const refused = await client.submit('/settings/notifications', '/settings/notifications', {
      organization_id: organizationId,
      due_days: '7',
      digest_hour: '8',
      time_zone: 'Mars/Olympus',
    });
    expect(refused.status).toBe(422);
    expect(textOf(refused.html)).toContain('not a known IANA time zone');
    const foreign = await client.submit('/settings/notifications', '/settings/notifications', {
      organization_id: 'org_0000000000000000000000aa',
      due_days: '7',
      digest_hour: '8',
      time_zone: 'UTC',
    });
    expect(foreign.status).toBe(404);
  });
});
