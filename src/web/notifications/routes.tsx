// Notifications in the web interface: the in-app list (mark read) and the settings of what each account hears about.
import { and, eq, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { people } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { notificationPath } from '../../notify/engine.ts';
import { INBOX_SIZE, listInbox, markRead } from '../../notify/inbox.ts';
import {
  loadPreferences,
  MAX_DUE_DAYS,
  type Preferences,
  PreferencesSchema,
  savePreferences,
} from '../../notify/preferences.ts';
import { timeZoneNames } from '../../notify/time.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import { type FormBody, Input, Select, text, texts } from '../forms.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';

const CHOICES: { name: keyof Preferences; label: string; hint: string }[] = [
  {
    name: 'assigned',
    label: 'Assigned to me',
    hint: 'A record (such as a task) is assigned to your account.',
  },
  {
    name: 'due_soon',
    label: 'Due soon',
    hint: 'Something you own or are assigned comes due within the days below.',
  },
  { name: 'overdue', label: 'Overdue', hint: 'Something you own or are assigned is past its due date.' },
  {
    name: 'owned_changes',
    label: 'Changes to records I own',
    hint: 'Someone else adds, changes or deletes one.',
  },
  {
    name: 'digest',
    label: 'Daily digest',
    hint: 'Once a day, from the hour below: what is due and overdue.',
  },
  {
    name: 'email',
    label: 'Also by email',
    hint: 'Notifications always appear in the list; this sends them by email too.',
  },
];

const HOURS = Array.from({ length: 24 }, (_, hour) => ({
  value: String(hour),
  label: `${String(hour).padStart(2, '0')}:00`,
}));

interface OrganizationSettings {
  organizationId: string;
  name: string;
  preferences: Preferences;
  /** The person of this organization with the account's email, if any. */
  personName: string | null;
}

function SettingsPage(props: {
  viewer: Viewer;
  settings: OrganizationSettings[];
  emailConfigured: boolean;
  error?: { organizationId: string; message: string } | undefined;
}) {
  const zones = timeZoneNames().map((zone) => ({ value: zone, label: zone }));
  return (
    <Layout title="Notifications" viewer={props.viewer} section={{ kind: 'settings', page: 'notifications' }}>
      <h1>Notification settings</h1>
      <p>
        You hear about records owned by the person with your email address ({props.viewer.user.email}) in each
        organization, and about records assigned to your account.
      </p>
      {!props.emailConfigured && (
        <Notice kind="warn">This server has no email settings: notifications appear in the list only.</Notice>
      )}
      {props.settings.length === 0 && <p>You are not a member of any organization yet.</p>}
      {props.settings.map((entry) => {
        const id = (name: string) => `${name}-${entry.organizationId}`;
        return (
          <section class="card" aria-labelledby={id('heading')}>
            <h2 id={id('heading')} dir="auto">
              {entry.name}
            </h2>
            <p>
              {entry.personName
                ? `You are ${entry.personName} in this organization's people register.`
                : 'No one in this organization’s people register has your email address: you hear only about what is assigned to your account.'}
            </p>
            {props.error?.organizationId === entry.organizationId && (
              <Notice kind="error">{props.error.message}</Notice>
            )}
            <form method="post" action="/settings/notifications">
              <CsrfField token={props.viewer.csrfToken} />
              <input type="hidden" name="organization_id" value={entry.organizationId} />
              <fieldset>
                <legend>Tell me about</legend>
                {CHOICES.map((choice) => (
                  <div class="field">
                    <label class="choice">
                      <input
                        type="checkbox"
                        name={choice.name}
                        value="true"
                        checked={entry.preferences[choice.name] === true}
                        aria-describedby={id(`${choice.name}-hint`)}
                      />
                      <span>{choice.label}</span>
                    </label>
                    <span class="hint" id={id(`${choice.name}-hint`)}>
                      {choice.hint}
                    </span>
                  </div>
                ))}
              </fieldset>
              <Input
                id={id('due_days')}
                name="due_days"
                label="Due soon means within (days)"
                type="number"
                min={0}
                max={MAX_DUE_DAYS}
                value={String(entry.preferences.due_days)}
              />
              <Select
                id={id('digest_hour')}
                name="digest_hour"
                label="Digest from (your time)"
                options={HOURS}
                value={String(entry.preferences.digest_hour)}
              />
              <Select
                id={id('time_zone')}
                name="time_zone"
                label="Time zone"
                options={zones}
                value={entry.preferences.time_zone}
                hint="Due dates, overdue and the digest follow your local day."
              />
              <div class="actions">
                <button type="submit">Save for {entry.name}</button>
              </div>
            </form>
          </section>
        );
      })}
    </Layout>
  );
}

function preferencesFromForm(body: FormBody): Preferences {
  const checked = (name: string) => texts(body, name).includes('true');
  return {
    assigned: checked('assigned'),
    due_soon: checked('due_soon'),
    due_days: Number(text(body, 'due_days') || 'NaN'),
    overdue: checked('overdue'),
    owned_changes: checked('owned_changes'),
    digest: checked('digest'),
    digest_hour: Number(text(body, 'digest_hour') || 'NaN'),
    email: checked('email'),
    time_zone: text(body, 'time_zone'),
  };
}

function InboxPage(props: {
  viewer: Viewer;
  items: Awaited<ReturnType<typeof listInbox>>;
  unreadOnly: boolean;
}) {
  const unread = props.items.filter((item) => item.read_at === null).length;
  return (
    <Layout title="Notifications" viewer={props.viewer}>
      <h1>Notifications</h1>
      <div class="actions">
        {props.unreadOnly ? (
          <a href="/notifications">Show all</a>
        ) : (
          <a href="/notifications?unread=1">Show unread only</a>
        )}
        <a href="/settings/notifications">Choose what you hear about</a>
        {unread > 0 && (
          <form method="post" action="/notifications/read" class="inline">
            <CsrfField token={props.viewer.csrfToken} />
            <input type="hidden" name="all" value="true" />
            <button type="submit" class="button small quiet">
              Mark all read
            </button>
          </form>
        )}
      </div>
      {props.items.length === 0 ? (
        <p>{props.unreadOnly ? 'No unread notifications.' : 'No notifications yet.'}</p>
      ) : (
        <ul class="notifications">
          {props.items.map((item) => (
            <li class={item.read_at ? 'card read' : 'card unread'}>
              <h2 dir="auto">
                {item.read_at === null && <Badge tone="warn">New</Badge>} {item.title}
              </h2>
              <p>
                <span dir="auto">{item.organization_name}</span> · <Time iso={item.created_at} />
              </p>
              {item.body && <pre class="notification-body">{item.body}</pre>}
              <div class="actions">
                {item.record_id && <a href={notificationPath(item)}>Open the record</a>}
                {item.read_at === null && (
                  <form method="post" action="/notifications/read" class="inline">
                    <CsrfField token={props.viewer.csrfToken} />
                    <input type="hidden" name="id" value={item.id} />
                    <button type="submit" class="button small quiet">
                      Mark read
                    </button>
                  </form>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {props.items.length === INBOX_SIZE && <p>The newest {INBOX_SIZE} are shown.</p>}
    </Layout>
  );
}

export function notificationRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;

  async function settingsOf(viewer: Viewer): Promise<OrganizationSettings[]> {
    return Promise.all(
      viewer.memberships.map(async (membership) => {
        const [person] = await db
          .select({ name: people.full_name })
          .from(people)
          .where(
            and(
              eq(people.organization_id, membership.organizationId),
              sql`lower(trim(${people.email})) = ${viewer.user.email}`,
            ),
          );
        return {
          organizationId: membership.organizationId,
          name: membership.name,
          preferences: await loadPreferences(db, viewer.user.id, membership.organizationId),
          personName: person?.name ?? null,
        };
      }),
    );
  }

  web.get('/settings/notifications', async (c) => {
    const viewer = viewerOf(c);
    return sendPage(
      c,
      <SettingsPage
        viewer={viewer}
        settings={await settingsOf(viewer)}
        emailConfigured={deps.config.mail !== null}
      />,
    );
  });

  web.post('/settings/notifications', async (c) => {
    const viewer = viewerOf(c);
    const body = await c.req.parseBody({ all: true });
    const organizationId = text(body, 'organization_id');
    const membership = viewer.memberships.find((item) => item.organizationId === organizationId);
    if (!membership) throw new AppError('not_found', 'No such organization.');
    const input = preferencesFromForm(body);
    const parsed = PreferencesSchema.safeParse(input);
    if (!parsed.success) {
      const message = `Not saved: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.').replace('_', ' ')} ${issue.message}`)
        .join('; ')}.`;
      const settings = (await settingsOf(viewer)).map((entry) =>
        entry.organizationId === organizationId
          ? { ...entry, preferences: { ...entry.preferences, ...input } }
          : entry,
      );
      return sendPage(
        c,
        <SettingsPage
          viewer={viewer}
          settings={settings}
          emailConfigured={deps.config.mail !== null}
          error={{ organizationId, message }}
        />,
        422,
      );
    }
    await savePreferences(db, viewer.user.id, organizationId, parsed.data, deps.now());
    setFlash(c, `Notification settings saved for ${membership.name}.`);
    return c.redirect('/settings/notifications', 303);
  });

  web.get('/notifications', async (c) => {
    const viewer = viewerOf(c);
    const unreadOnly = c.req.query('unread') === '1';
    return sendPage(
      c,
      <InboxPage
        viewer={viewer}
        items={await listInbox(db, viewer.user.id, unreadOnly)}
        unreadOnly={unreadOnly}
      />,
    );
  });

  web.post('/notifications/read', async (c) => {
    const viewer = viewerOf(c);
    const body = await c.req.parseBody({ all: true });
    const all = text(body, 'all') === 'true';
    const changed = await markRead(db, viewer.user.id, all ? 'all' : texts(body, 'id'), deps.now());
    setFlash(c, changed === 1 ? 'Marked 1 notification read.' : `Marked ${changed} notifications read.`);
    const back = text(body, 'back');
    return c.redirect(back === 'unread' ? '/notifications?unread=1' : '/notifications', 303);
  });

  return web;
}
