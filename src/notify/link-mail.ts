// Mails that carry a public link (acknowledgement requests, vendor questionnaires, approved trust page requests),
// through the notification outbox.
// The outbox row names the record and the address, never the link: the delivery run issues the link right before it
// sends (a fresh secret, only its hash stored on the record), so no stored row can open a form.
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.ts';
import {
  acknowledgements,
  notifications,
  people,
  trustAccessRequests,
  trustPages,
  vendorQuestionnaires,
} from '../db/schema.ts';
import { newId } from '../ids.ts';
import { ackLinkPath, newLinkSecret } from '../tools/acknowledgements/links.ts';
import { questionnaireLinkPath } from '../tools/questionnaires/links.ts';
import { trustDownloadPath } from '../tools/trust-page/site.ts';

export const LINK_MAIL_KINDS = ['acknowledgement', 'vendor_questionnaire', 'trust_access_request'] as const;
export type LinkMailKind = (typeof LINK_MAIL_KINDS)[number];

export interface LinkMail {
  organizationId: string;
  recordKind: LinkMailKind;
  /** The acknowledgement (`ack_...`), questionnaire (`vqn_...`) or trust page request (`tar_...`) the link opens. */
  recordId: string;
  to: string;
  title: string;
  body: string;
}

/** The outbox row of a link mail (pending, no account): run it in the batch that issues the request or reminder. */
export function queueLinkMail(db: Db, mail: LinkMail, at: string): BatchItem<'sqlite'> {
  return db.insert(notifications).values({
    id: newId('ntf'),
    event_key: `link:${mail.recordId}:${at}`,
    user_id: null,
    channel: 'email',
    organization_id: mail.organizationId,
    kind: 'link',
    to_address: mail.to,
    record_kind: mail.recordKind,
    record_id: mail.recordId,
    title: mail.title,
    body: mail.body,
    status: 'pending',
    created_at: at,
  });
}

/**
 * Issues the link a pending link mail carries: a fresh secret on its record (the earlier link stops working), only
 * while the record still waits (not acknowledged or answered, link unexpired; a trust page request still approved and
 * its page still with a slug) and the address is still its person's, contact's or requester's. Returns the link's
 * path, or null when nothing is to be sent any more.
 */
export async function issueMailedLink(
  db: Db,
  row: {
    organization_id: string;
    record_kind: string | null;
    record_id: string | null;
    to_address: string | null;
  },
  now: Date,
): Promise<string | null> {
  if (!row.record_id || !row.to_address) return null;
  const at = now.toISOString();
  const { secret, hash } = await newLinkSecret();
  if (row.record_kind === 'acknowledgement') {
    const done = await db
      .update(acknowledgements)
      .set({ secret_hash: hash })
      .where(
        and(
          eq(acknowledgements.id, row.record_id),
          eq(acknowledgements.organization_id, row.organization_id),
          isNull(acknowledgements.acknowledged_at),
          gt(acknowledgements.link_expires_at, at),
          sql`exists (select 1 from ${people} where ${people.id} = ${acknowledgements.person_id} and ${people.organization_id} = ${row.organization_id} and lower(${people.email}) = lower(${row.to_address}))`,
        ),
      )
      .returning({ id: acknowledgements.id });
    return done.length > 0 ? ackLinkPath(secret) : null;
  }
  if (row.record_kind === 'vendor_questionnaire') {
    const done = await db
      .update(vendorQuestionnaires)
      .set({ secret_hash: hash })
      .where(
        and(
          eq(vendorQuestionnaires.id, row.record_id),
          eq(vendorQuestionnaires.organization_id, row.organization_id),
          isNull(vendorQuestionnaires.answered_at),
          gt(vendorQuestionnaires.link_expires_at, at),
          eq(vendorQuestionnaires.contact_email, row.to_address),
        ),
      )
      .returning({ id: vendorQuestionnaires.id });
    return done.length > 0 ? questionnaireLinkPath(secret) : null;
  }
  if (row.record_kind === 'trust_access_request') {
    const [page] = await db
      .select({ slug: trustPages.slug })
      .from(trustPages)
      .where(eq(trustPages.organization_id, row.organization_id))
      .limit(1);
    if (!page?.slug) return null;
    const done = await db
      .update(trustAccessRequests)
      .set({ secret_hash: hash })
      .where(
        and(
          eq(trustAccessRequests.id, row.record_id),
          eq(trustAccessRequests.organization_id, row.organization_id),
          eq(trustAccessRequests.status, 'APPROVED'),
          gt(trustAccessRequests.link_expires_at, at),
          eq(trustAccessRequests.email, row.to_address),
        ),
      )
      .returning({ id: trustAccessRequests.id });
    return done.length > 0 ? trustDownloadPath(page.slug, secret) : null;
  }
  return null;
}
