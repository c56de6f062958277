// Expiry of proposals: the scheduled scan (the notification run) marks each PENDING proposal past its expiry EXPIRED
// and tells the proposer once, by an in-app notification and the webhook event proposal.expired.
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { type Db, selectRow } from '../db/client.ts';
import { notifications, proposals } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { CHANGED_A_ROW } from '../tools/types.ts';
import { enqueueEvent } from '../webhooks/events.ts';

/** Proposals expired per run at most (one batch each: the Worker's subrequest budget); the rest on the next run. */
export const EXPIRED_PER_RUN = 50;

/**
 * Marks the proposals past their expiry EXPIRED, each in one batch with its notification and webhook event, both
 * written only where this run's update landed (so two runs at once tell the proposer once). Returns how many.
 */
export async function expireProposals(db: Db, now: Date, limit = EXPIRED_PER_RUN): Promise<number> {
  const at = now.toISOString();
  const due = and(eq(proposals.status, 'PENDING'), lte(proposals.expires_at, at));
  const rows = await db
    .select()
    .from(proposals)
    .where(due)
    .orderBy(asc(proposals.expires_at), asc(proposals.id))
    .limit(limit);
  let expired = 0;
  for (const row of rows) {
    const notice = {
      id: newId('ntf'),
      event_key: `proposal_expired:${row.id}`,
      user_id: row.proposed_by_user_id,
      channel: 'in_app',
      organization_id: row.organization_id,
      kind: 'proposal_expired',
      record_kind: 'proposal',
      record_id: row.id,
      title: `Your proposed ${row.tool} expired`,
      body: `Nobody approved or rejected it by ${row.expires_at}, so nothing was written. Propose it again if it is still wanted.`,
      status: 'delivered',
      attempts: 0,
      created_at: at,
    } satisfies typeof notifications.$inferInsert;
    const [claimed] = await db.batch([
      db
        .update(proposals)
        .set({ status: 'EXPIRED' })
        .where(and(eq(proposals.id, row.id), due))
        .returning({ id: proposals.id }),
      // Right after the update: changes() is the update's.
      db
        .insert(notifications)
        .select(selectRow(notifications, notice, CHANGED_A_ROW))
        .onConflictDoNothing(),
      // Right after the notification: an event only where it was new.
      enqueueEvent(db, {
        organizationId: row.organization_id,
        type: 'proposal.expired',
        data: {
          proposal_id: row.id,
          status: 'EXPIRED',
          tool: row.tool,
          kind: row.kind,
          action: row.action,
          record_id: row.record_id,
          proposed_by_token_id: row.proposed_by_token_id,
          expires_at: row.expires_at,
        },
        at,
        unless: sql`changes() = 0`,
      }),
    ]);
    expired += claimed.length;
  }
  return expired;
}
