// The notification engine: turns the change history, due items and the daily digest into notifications (one row per
// event, recipient and channel, written before anything is sent), then sends the pending emails, each at most once.

import { and, asc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import {
  memberships,
  notificationCursors,
  notificationPreferences,
  notifications,
  people,
  recordChanges,
  users,
} from '../db/schema.ts';
import { newId } from '../ids.ts';
import { expireProposals } from '../proposals/expiry.ts';
import { proposalPath } from '../proposals/store.ts';
import { REGISTER_SPECS } from '../tools/index.ts';
import { addDays, localTime } from '../tools/overdue.ts';
import { displayName, recordPath } from '../tools/registers/naming.ts';
import type { RegisterSpec, Row } from '../tools/registers/spec.ts';
import { TRUST_REQUEST_RECORD_KIND, trustRequestsPath } from '../tools/trust-page/site.ts';
import { issueMailedLink } from './link-mail.ts';
import type { Mailer } from './mailer.ts';
import { type Preferences, preferencesOf } from './preferences.ts';
import { assigneeFieldOf, type DueItem, itemIsOverdue, listDueSources } from './sources.ts';

/** A change row is read once it is this old, so rows of writes still committing (their clock ran earlier) are not passed over. */
export const SETTLE_MS = 60_000;
/** On its first run the engine looks this far back in the change history. */
export const FIRST_RUN_LOOKBACK_MS = 60 * 60_000;
const CHANGE_PAGE = 500;
const CHANGE_PAGES_PER_RUN = 4;
/** Emails sent per run at most (the Worker's subrequest budget: about 3 statements and one socket per email). */
export const EMAILS_PER_RUN = 50;
/** Attempts of an email the SMTP server refused before it is marked failed. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** A claimed email not marked sent after this long: the run stopped between sending and marking it. */
export const STALE_SENDING_MS = 15 * 60_000;
const CHANGES_CURSOR = 'record_changes';

export type NotificationKind =
  | 'assigned'
  | 'due_soon'
  | 'overdue'
  | 'owned_change'
  | 'digest'
  | 'proposal_decided'
  | 'proposal_expired'
  | 'trust_request';

export interface NotifyDeps {
  db: Db;
  now: Date;
  /** null: in-app notifications only (no SMTP settings). */
  mailer: Mailer | null;
  /** The service's public base URL, for links in emails. */
  publicUrl?: string | undefined;
  log?: (line: string) => void;
  emailsPerRun?: number;
}

export interface NotifyReport {
  changes_read: number;
  notifications_created: number;
  emails_sent: number;
  emails_failed: number;
  emails_skipped: number;
}

interface Recipient {
  userId: string;
  organizationId: string;
  email: string;
  /** Mail goes only to a confirmed address (docs/security.md): anyone could make an account with another's. */
  emailVerified: boolean;
  preferences: Preferences;
}

interface Notice {
  eventKey: string;
  kind: NotificationKind;
  recipient: Recipient;
  personId: string | null;
  recordKind: string | null;
  recordId: string | null;
  title: string;
  body: string;
}

/** Runs every source once and sends what is pending. Safe to run concurrently (unique keys, claimed sends). */
export async function runNotifications(deps: NotifyDeps): Promise<NotifyReport> {
  const recipients = await loadRecipients(deps.db);
  const changes = await changeNotifications(deps, recipients);
  const created =
    changes.created +
    (await storeNotices(deps, await dueNotices(deps, recipients))) +
    (await expireProposals(deps.db, deps.now));
  const delivery = deps.mailer
    ? await deliverEmails(deps, deps.mailer)
    : { emails_sent: 0, emails_failed: 0, emails_skipped: 0 };
  return { changes_read: changes.read, notifications_created: created, ...delivery };
}

// ---- who hears: members of the organization, and the people they are ------------------------------------------

class Recipients {
  readonly byMembership = new Map<string, Recipient>();
  /** `org person_id` -> the account of the same email that is a member of that organization. */
  readonly byPerson = new Map<string, Recipient>();

  member(organizationId: string, userId: string): Recipient | undefined {
    return this.byMembership.get(`${organizationId} ${userId}`);
  }
  person(organizationId: string, personId: string): Recipient | undefined {
    return this.byPerson.get(`${organizationId} ${personId}`);
  }
  organizations(): Set<string> {
    return new Set([...this.byMembership.values()].map((recipient) => recipient.organizationId));
  }
}

/**
 * Accounts hear about what concerns them in the organizations they are members of. Records name people (owner_id):
 * a person is an account when the person's email is the account's email and the account is a member of the person's
 * organization. A person deleted, or an account no longer a member, hears nothing more.
 */
async function loadRecipients(db: Db): Promise<Recipients> {
  const members = await db
    .select({
      userId: memberships.user_id,
      organizationId: memberships.organization_id,
      email: users.email,
      emailVerified: users.email_verified_at,
      preferences: notificationPreferences,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .leftJoin(
      notificationPreferences,
      and(
        eq(notificationPreferences.user_id, memberships.user_id),
        eq(notificationPreferences.organization_id, memberships.organization_id),
      ),
    );
  const recipients = new Recipients();
  for (const member of members) {
    recipients.byMembership.set(`${member.organizationId} ${member.userId}`, {
      userId: member.userId,
      organizationId: member.organizationId,
      email: member.email,
      emailVerified: member.emailVerified !== null,
      preferences: preferencesOf(member.preferences),
    });
  }
  const persons = await db
    .select({ personId: people.id, organizationId: people.organization_id, userId: users.id })
    .from(people)
    .innerJoin(users, eq(users.email, sql`lower(trim(${people.email}))`))
    .innerJoin(
      memberships,
      and(eq(memberships.user_id, users.id), eq(memberships.organization_id, people.organization_id)),
    );
  for (const row of persons) {
    const recipient = recipients.member(row.organizationId, row.userId);
    if (recipient) recipients.byPerson.set(`${row.organizationId} ${row.personId}`, recipient);
  }
  return recipients;
}

// ---- (a) changes to records I own, (c) assigned to me: from the change history ---------------------------------

const SPECS_BY_KIND = new Map<string, RegisterSpec>(REGISTER_SPECS.map((spec) => [spec.kind, spec]));

/** `owner_id` and any `*_owner_id` (a vendor's business and security owners). */
function isOwnerField(name: string): boolean {
  return name === 'owner_id' || name.endsWith('_owner_id');
}

function ownerIdsIn(values: Row | null | undefined): string[] {
  if (!values) return [];
  return Object.entries(values)
    .filter(([name, value]) => isOwnerField(name) && typeof value === 'string' && value.startsWith('per_'))
    .map(([, value]) => value as string);
}

type ChangeRow = typeof recordChanges.$inferSelect;

async function readCursor(db: Db, name: string): Promise<{ at: string; id: string } | null> {
  const [row] = await db.select().from(notificationCursors).where(eq(notificationCursors.name, name));
  return row ? (JSON.parse(row.value) as { at: string; id: string }) : null;
}

async function writeCursor(
  db: Db,
  name: string,
  value: { at: string; id: string },
  now: Date,
): Promise<void> {
  const json = JSON.stringify(value);
  await db
    .insert(notificationCursors)
    .values({ name, value: json, updated_at: now.toISOString() })
    .onConflictDoUpdate({
      target: notificationCursors.name,
      set: { value: json, updated_at: now.toISOString() },
    });
}

/**
 * Reads the settled change history past the cursor and stores its notices, then moves the cursor: a crash between
 * the two reads the same rows again, and their unique keys keep them from notifying twice.
 */
async function changeNotifications(
  deps: NotifyDeps,
  recipients: Recipients,
): Promise<{ created: number; read: number }> {
  const { db, now } = deps;
  const settled = new Date(now.getTime() - SETTLE_MS).toISOString();
  let cursor = (await readCursor(db, CHANGES_CURSOR)) ?? {
    at: new Date(now.getTime() - FIRST_RUN_LOOKBACK_MS).toISOString(),
    id: '',
  };
  const notices: Notice[] = [];
  let read = 0;
  for (let page = 0; page < CHANGE_PAGES_PER_RUN; page++) {
    const rows = await db
      .select()
      .from(recordChanges)
      .where(
        and(
          lt(recordChanges.created_at, settled),
          or(
            sql`${recordChanges.created_at} > ${cursor.at}`,
            and(eq(recordChanges.created_at, cursor.at), sql`${recordChanges.id} > ${cursor.id}`),
          ),
        ),
      )
      .orderBy(asc(recordChanges.created_at), asc(recordChanges.id))
      .limit(CHANGE_PAGE);
    const last = rows.at(-1);
    if (!last) break;
    read += rows.length;
    notices.push(...(await noticesOfChanges(db, rows, recipients)));
    cursor = { at: last.created_at, id: last.id };
    if (rows.length < CHANGE_PAGE) break;
  }
  const created = await storeNotices(deps, notices);
  if (read > 0) await writeCursor(db, CHANGES_CURSOR, cursor, now);
  return { created, read };
}

/** The records the changes are about, as they are now (for their current owners and names). */
async function currentRecords(db: Db, rows: ChangeRow[]): Promise<Map<string, Row>> {
  const idsByKind = new Map<string, string[]>();
  for (const row of rows) {
    if (row.action === 'delete') continue;
    idsByKind.set(row.kind, [...(idsByKind.get(row.kind) ?? []), row.record_id]);
  }
  const records = new Map<string, Row>();
  for (const [kind, ids] of idsByKind) {
    const spec = SPECS_BY_KIND.get(kind);
    if (!spec) continue;
    const table = spec.table;
    const found = (await db
      .select()
      .from(table)
      .where(inArray(table.id, [...new Set(ids)]))) as Row[];
    for (const record of found) records.set(String(record.id), record);
  }
  return records;
}

const VERBS: Record<ChangeRow['action'], string> = {
  add: 'added',
  update: 'changed',
  delete: 'deleted',
  link: 'linked',
  unlink: 'unlinked',
};

function labelOf(kind: string): string {
  return SPECS_BY_KIND.get(kind)?.label ?? kind.replace(/_/g, ' ');
}

function describeValue(value: unknown): string {
  const text =
    value === null || value === undefined
      ? '(none)'
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function changeBody(row: ChangeRow): string {
  const names = [...new Set([...Object.keys(row.before ?? {}), ...Object.keys(row.after ?? {})])].filter(
    (name) => !['id', 'organization_id', 'created_at', 'updated_at'].includes(name),
  );
  const lines = names
    .slice(0, 12)
    .map((name) =>
      row.action === 'update'
        ? `${name}: ${describeValue(row.before?.[name])} -> ${describeValue(row.after?.[name])}`
        : `${name}: ${describeValue((row.after ?? row.before)?.[name])}`,
    );
  if (names.length > 12) lines.push(`(and ${names.length - 12} more fields)`);
  return lines.join('\n');
}

async function noticesOfChanges(db: Db, rows: ChangeRow[], recipients: Recipients): Promise<Notice[]> {
  const records = await currentRecords(db, rows);
  const notices: Notice[] = [];
  for (const row of rows) {
    const current = records.get(row.record_id);
    const name = displayName({
      id: row.record_id,
      ...(row.before ?? {}),
      ...(row.after ?? {}),
      ...(current ?? {}),
    });
    const label = labelOf(row.kind);
    const base = {
      recordKind: row.kind,
      recordId: row.record_id,
      body: changeBody(row),
    };
    const owners = new Set([...ownerIdsIn(row.before), ...ownerIdsIn(row.after), ...ownerIdsIn(current)]);
    const told = new Set<string>();
    for (const personId of owners) {
      const recipient = recipients.person(row.organization_id, personId);
      // Nobody is told about their own change.
      if (!recipient || recipient.userId === row.user_id || told.has(recipient.userId)) continue;
      if (!recipient.preferences.owned_changes) continue;
      told.add(recipient.userId);
      notices.push({
        ...base,
        eventKey: `change:${row.id}`,
        kind: 'owned_change',
        recipient,
        personId,
        title: `The ${label} "${name}" you own was ${VERBS[row.action]}`,
      });
    }
    const assigneeField = assigneeFieldOf(row.kind);
    const assignee = assigneeField ? row.after?.[assigneeField] : undefined;
    if ((row.action === 'add' || row.action === 'update') && typeof assignee === 'string') {
      const recipient = recipients.member(row.organization_id, assignee);
      if (recipient && recipient.userId !== row.user_id && recipient.preferences.assigned) {
        notices.push({
          ...base,
          eventKey: `assigned:${row.id}`,
          kind: 'assigned',
          recipient,
          personId: null,
          title: `The ${label} "${name}" was assigned to you`,
        });
      }
    }
  }
  return notices;
}

// ---- (b) due soon and overdue, (d) the daily digest -------------------------------------------------------------

const HOUR_MS = 3_600_000;

/**
 * How a due item is told: its event key (without the due/overdue prefix; a changed date or deadline is a new event),
 * title, body and digest line. A deadline to the minute says its local time and the whole hours left.
 */
function dueWords(
  item: DueItem,
  overdue: boolean,
  now: Date,
): { key: string; title: string; body: string; line: string } {
  const label = item.review ? `review of the ${labelOf(item.kind)}` : labelOf(item.kind);
  const { deadline } = item;
  if (!deadline)
    return {
      key: `${item.review ? 'review:' : ''}${item.facet ? `${item.facet}:` : ''}${item.kind}:${item.id}:${item.due_date}`,
      title: overdue
        ? `The ${label} "${item.title}" is overdue (due ${item.due_date})`
        : `The ${label} "${item.title}" is due on ${item.due_date}`,
      body: item.review
        ? `Next review: ${item.due_date}`
        : `Due date: ${item.due_date}\nStatus: ${item.status}`,
      line: `${label} "${item.title}"`,
    };
  const of = `The ${deadline.name} of the ${label} "${item.title}"`;
  const hoursLeft =
    deadline.due_at === null ? null : Math.floor((Date.parse(deadline.due_at) - now.getTime()) / HOUR_MS);
  const when = deadline.due_local ?? 'without undue delay';
  const title =
    hoursLeft === null
      ? `${of} is due without undue delay`
      : overdue
        ? `${of} was missed: due ${when}, no notice recorded`
        : `${of} is due ${when} (${hoursLeft} hour${hoursLeft === 1 ? '' : 's'} left)`;
  const body = [
    `Due: ${when}${deadline.due_at ? ` (${deadline.due_at})` : ''}`,
    ...(hoursLeft === null ? [] : [`Hours left: ${hoursLeft}`]),
    `What: ${deadline.what}`,
    ...(deadline.source ? [`Source: ${deadline.source}`] : []),
    `Status: ${item.status}`,
  ].join('\n');
  return {
    key: `${item.kind}:${item.id}:${deadline.key}:${deadline.due_at ?? item.due_date}`,
    title,
    body,
    line: `${deadline.name} of the ${label} "${item.title}" (${when})`,
  };
}

async function dueNotices(deps: NotifyDeps, recipients: Recipients): Promise<Notice[]> {
  const notices: Notice[] = [];
  const utcToday = deps.now.toISOString().slice(0, 10);
  for (const organizationId of recipients.organizations()) {
    const members = [...recipients.byMembership.values()].filter((r) => r.organizationId === organizationId);
    const horizon = Math.max(...members.map((member) => member.preferences.due_days));
    // Local dates run up to 14 hours ahead of UTC.
    const until = addDays(utcToday, horizon + 1);
    const due = new Map<string, { recipient: Recipient; personId: string | null; item: DueItem }[]>();
    for (const source of listDueSources()) {
      for (const item of await source.query({ db: deps.db, now: deps.now }, organizationId, until)) {
        const byOwner = item.owner_person_id
          ? recipients.person(organizationId, item.owner_person_id)
          : undefined;
        const byAssignee = item.assignee_user_id
          ? recipients.member(organizationId, item.assignee_user_id)
          : undefined;
        const reached = [
          ...(byOwner ? [{ recipient: byOwner, personId: item.owner_person_id }] : []),
          ...(byAssignee && byAssignee !== byOwner ? [{ recipient: byAssignee, personId: null }] : []),
        ];
        for (const entry of reached) {
          const list = due.get(entry.recipient.userId) ?? [];
          list.push({ ...entry, item });
          due.set(entry.recipient.userId, list);
        }
      }
    }
    for (const member of members) {
      const { preferences } = member;
      const local = localTime(deps.now, preferences.time_zone);
      const soon = addDays(local.date, preferences.due_days);
      const digestLines: string[] = [];
      for (const { personId, item } of due.get(member.userId) ?? []) {
        const overdue = itemIsOverdue(item, local.date, deps.now);
        if (!overdue && item.due_date > soon) continue;
        const told = dueWords(item, overdue, deps.now);
        digestLines.push(`${overdue ? 'Overdue' : 'Due'} ${item.due_date}: ${told.line}`);
        const wanted = overdue ? preferences.overdue : preferences.due_soon;
        if (!wanted) continue;
        notices.push({
          eventKey: `${overdue ? 'overdue' : 'due'}:${told.key}`,
          kind: overdue ? 'overdue' : 'due_soon',
          recipient: member,
          personId,
          recordKind: item.kind,
          recordId: item.id,
          title: told.title,
          body: told.body,
        });
      }
      // The digest is made once per local day, from the chosen hour, when something is due.
      if (preferences.digest && local.hour >= preferences.digest_hour && digestLines.length > 0) {
        digestLines.sort((a, b) => (a.split(': ')[0] ?? '').localeCompare(b.split(': ')[0] ?? ''));
        notices.push({
          eventKey: `digest:${organizationId}:${local.date}`,
          kind: 'digest',
          recipient: member,
          personId: null,
          recordKind: null,
          recordId: null,
          title: `Your compliance digest for ${local.date}: ${digestLines.length} item${digestLines.length === 1 ? '' : 's'} due`,
          body: digestLines.join('\n'),
        });
      }
    }
  }
  return notices;
}

// ---- storing: one row per event, recipient and channel, before any send ----------------------------------------

const INSERT_CHUNK = 50;

/** Inserts the notices' rows (in-app, and email when there is a mailer and the account wants it). Returns how many were new. */
async function storeNotices(deps: NotifyDeps, notices: Notice[]): Promise<number> {
  const at = deps.now.toISOString();
  const rows: (typeof notifications.$inferInsert)[] = [];
  for (const notice of notices) {
    const common = {
      event_key: notice.eventKey,
      user_id: notice.recipient.userId,
      organization_id: notice.recipient.organizationId,
      kind: notice.kind,
      person_id: notice.personId,
      record_kind: notice.recordKind,
      record_id: notice.recordId,
      title: notice.title,
      body: notice.body,
      created_at: at,
    };
    rows.push({ ...common, id: newId('ntf'), channel: 'in_app', status: 'delivered' });
    if (deps.mailer && notice.recipient.preferences.email && notice.recipient.emailVerified)
      rows.push({ ...common, id: newId('ntf'), channel: 'email', status: 'pending' });
  }
  let created = 0;
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const inserted = await deps.db
      .insert(notifications)
      .values(rows.slice(start, start + INSERT_CHUNK))
      .onConflictDoNothing()
      .returning({ id: notifications.id });
    created += inserted.length;
  }
  return created;
}

// ---- sending: claim, check the recipient is still there, send, mark ---------------------------------------------

export function notificationPath(row: {
  organization_id: string;
  record_kind: string | null;
  record_id: string | null;
}): string {
  if (row.record_kind === 'proposal' && row.record_id)
    return proposalPath(row.organization_id, row.record_id);
  if (row.record_kind === TRUST_REQUEST_RECORD_KIND) return trustRequestsPath(row.organization_id);
  const spec = REGISTER_SPECS.find((candidate) => candidate.kind === row.record_kind);
  if (spec && row.record_id) return recordPath(row.organization_id, spec, row.record_id);
  return '/notifications';
}

function emailText(row: typeof notifications.$inferSelect, publicUrl: string | undefined): string {
  const parts = [row.title, '', row.body];
  if (publicUrl) {
    parts.push('', `Open: ${publicUrl}${notificationPath(row)}`);
    parts.push('', `Choose what you hear about: ${publicUrl}/settings/notifications`);
  } else parts.push('', 'Choose what you hear about under Settings > Notifications.');
  return parts.join('\n');
}

/** A link mail's text: what is asked, then the link (the service's address before its path). */
function linkMailText(
  row: typeof notifications.$inferSelect,
  path: string,
  publicUrl: string | undefined,
): string {
  return [
    row.title,
    '',
    row.body,
    '',
    `Open: ${publicUrl ?? ''}${path}`,
    '',
    'The link is yours alone: do not forward it.',
  ].join('\n');
}

/**
 * Still a member with a confirmed address, and (when the event reached them as a person) that person still exists
 * with their email.
 */
async function stillThere(db: Db, row: typeof notifications.$inferSelect): Promise<string | null> {
  if (row.user_id === null) return null;
  const [member] = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(
      and(
        eq(memberships.user_id, row.user_id),
        eq(memberships.organization_id, row.organization_id),
        isNotNull(users.email_verified_at),
      ),
    );
  if (!member) return null;
  if (row.person_id) {
    const [person] = await db
      .select({ id: people.id })
      .from(people)
      .where(
        and(
          eq(people.id, row.person_id),
          eq(people.organization_id, row.organization_id),
          sql`lower(trim(${people.email})) = ${member.email}`,
        ),
      );
    if (!person) return null;
  }
  return member.email;
}

async function deliverEmails(
  deps: NotifyDeps,
  mailer: Mailer,
): Promise<Pick<NotifyReport, 'emails_sent' | 'emails_failed' | 'emails_skipped'>> {
  const { db, now } = deps;
  const at = now.toISOString();
  // A claim older than this was never marked: the email may have gone out, so it is never sent again.
  await db
    .update(notifications)
    .set({ status: 'unknown', last_error: 'the run stopped between sending and marking it sent' })
    .where(
      and(
        eq(notifications.channel, 'email'),
        eq(notifications.status, 'sending'),
        lt(notifications.claimed_at, new Date(now.getTime() - STALE_SENDING_MS).toISOString()),
      ),
    );
  const pending = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.channel, 'email'), eq(notifications.status, 'pending')))
    .orderBy(asc(notifications.created_at), asc(notifications.id))
    .limit(deps.emailsPerRun ?? EMAILS_PER_RUN);
  const report = { emails_sent: 0, emails_failed: 0, emails_skipped: 0 };
  try {
    for (const { id } of pending) {
      // One run wins each email: the others find it no longer pending.
      const [row] = await db
        .update(notifications)
        .set({ status: 'sending', claimed_at: at, attempts: sql`${notifications.attempts} + 1` })
        .where(and(eq(notifications.id, id), eq(notifications.status, 'pending')))
        .returning();
      if (!row) continue;
      // A link mail (no account): its link is issued now, so the outbox never held it.
      const linkPath = row.kind === 'link' ? await issueMailedLink(db, row, now) : null;
      const to = row.kind === 'link' ? linkPath && row.to_address : await stillThere(db, row);
      if (!to) {
        await db
          .update(notifications)
          .set({
            status: 'skipped',
            last_error:
              row.kind === 'link'
                ? 'the link is no longer wanted: acknowledged, answered or withdrawn, expired, or the address changed'
                : 'the recipient left the organization, or their address is not confirmed',
          })
          .where(eq(notifications.id, id));
        report.emails_skipped++;
        continue;
      }
      try {
        await mailer.send({
          to,
          subject: row.title,
          text: linkPath ? linkMailText(row, linkPath, deps.publicUrl) : emailText(row, deps.publicUrl),
          headers: { 'X-Compliance-Notification': row.id, 'X-Compliance-Event': row.event_key },
        });
      } catch (error) {
        // Refused before the server took it: safe to try again later.
        const message = error instanceof Error ? error.message : String(error);
        const failed = row.attempts >= MAX_EMAIL_ATTEMPTS;
        await db
          .update(notifications)
          .set({ status: failed ? 'failed' : 'pending', last_error: message.slice(0, 500) })
          .where(eq(notifications.id, id));
        deps.log?.(`notification email ${id} ${failed ? 'failed' : 'refused, will retry'}: ${message}`);
        if (failed) report.emails_failed++;
        continue;
      }
      await db.update(notifications).set({ status: 'sent', sent_at: at }).where(eq(notifications.id, id));
      report.emails_sent++;
    }
  } finally {
    await mailer.close();
  }
  return report;
}
