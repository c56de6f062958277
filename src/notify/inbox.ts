// The in-app notifications of an account: its unread count (the top bar), its list, and marking them read.
import { and, count, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { memberships, notifications, organizations } from '../db/schema.ts';

/** Joined on: only notifications of organizations the account is still a member of. */
const STILL_MEMBER = and(
  eq(memberships.user_id, notifications.user_id),
  eq(memberships.organization_id, notifications.organization_id),
);

export async function unreadCount(db: Db, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(notifications)
    .innerJoin(memberships, STILL_MEMBER)
    .where(
      and(
        eq(notifications.user_id, userId),
        eq(notifications.channel, 'in_app'),
        isNull(notifications.read_at),
      ),
    );
  return row?.n ?? 0;
}

export interface InboxItem {
  id: string;
  organization_id: string;
  organization_name: string;
  kind: string;
  record_kind: string | null;
  record_id: string | null;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
}

export const INBOX_SIZE = 100;

/** The newest notifications first, at most INBOX_SIZE. */
export async function listInbox(db: Db, userId: string, unreadOnly: boolean): Promise<InboxItem[]> {
  return db
    .select({
      id: notifications.id,
      organization_id: notifications.organization_id,
      organization_name: organizations.name,
      kind: notifications.kind,
      record_kind: notifications.record_kind,
      record_id: notifications.record_id,
      title: notifications.title,
      body: notifications.body,
      created_at: notifications.created_at,
      read_at: notifications.read_at,
    })
    .from(notifications)
    .innerJoin(memberships, STILL_MEMBER)
    .innerJoin(organizations, eq(organizations.id, notifications.organization_id))
    .where(
      and(
        eq(notifications.user_id, userId),
        eq(notifications.channel, 'in_app'),
        unreadOnly ? isNull(notifications.read_at) : undefined,
      ),
    )
    .orderBy(desc(notifications.created_at), desc(notifications.id))
    .limit(INBOX_SIZE);
}

/** Marks the account's own notifications read: those ids, or all when `ids` is 'all'. Returns how many changed. */
export async function markRead(db: Db, userId: string, ids: string[] | 'all', now: Date): Promise<number> {
  if (ids !== 'all' && ids.length === 0) return 0;
  const changed = await db
    .update(notifications)
    .set({ read_at: now.toISOString() })
    .where(
      and(
        eq(notifications.user_id, userId),
        eq(notifications.channel, 'in_app'),
        isNull(notifications.read_at),
        ids === 'all' ? undefined : inArray(notifications.id, ids),
      ),
    )
    .returning({ id: notifications.id });
  return changed.length;
}
