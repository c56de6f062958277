// Webhook event types and the one function other features call to put an event in the outbox.
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.ts';

/** How long a message is retried before it is marked failed: a day from the event (or from a redelivery). */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

export function retryUntil(fromIso: string): string {
  return new Date(Date.parse(fromIso) + RETRY_WINDOW_MS).toISOString();
}

/** What happened to a record, by the change history's action (the trigger in migrations maps them the same way). */
export const RECORD_EVENT_ACTIONS = {
  add: 'created',
  update: 'updated',
  delete: 'deleted',
  link: 'linked',
  unlink: 'unlinked',
} as const;

/** Events that are not record changes: found by the scan of src/webhooks/scheduled.ts, through `enqueueEvent`. */
export const SCHEDULED_EVENT_TYPES = [
  'review.due',
  'task.due',
  'evidence.expiring',
  'incident.deadline',
  'data_subject_request.due',
  'access_review.due',
  'vendor.renewal_due',
  'vendor.assessment_due',
] as const;
export type ScheduledEventType = (typeof SCHEDULED_EVENT_TYPES)[number];

/**
 * A proposed write decided (approved and applied, rejected with a comment, refused because its record changed), or
 * expired undecided (found by the scheduled scan, src/proposals/expiry.ts).
 */
export const PROPOSAL_EVENT_TYPES = [
  'proposal.applied',
  'proposal.rejected',
  'proposal.conflict',
  'proposal.expired',
] as const;
export type ProposalEventType = (typeof PROPOSAL_EVENT_TYPES)[number];

/** A visitor asked for a document on the organization's trust page (src/tools/trust-page/site.ts). */
export const TRUST_EVENT_TYPES = ['trust_request.created'] as const;
export type TrustEventType = (typeof TRUST_EVENT_TYPES)[number];

/** Every event type an endpoint may choose, for these register kinds: `risk.created` ... then the scheduled ones. */
export function webhookEventTypes(kinds: readonly string[]): string[] {
  return [
    ...kinds.flatMap((kind) => Object.values(RECORD_EVENT_ACTIONS).map((action) => `${kind}.${action}`)),
    ...SCHEDULED_EVENT_TYPES,
    ...PROPOSAL_EVENT_TYPES,
    ...TRUST_EVENT_TYPES,
  ];
}

/** A chosen event: an exact type, `<kind>.*` (every event of a register, or `review.*`) or `*` (everything). */
export function isEventChoice(value: string, kinds: readonly string[]): boolean {
  if (value === '*') return true;
  if (value.endsWith('.*'))
    return webhookEventTypes(kinds).some((type) => type.startsWith(value.slice(0, -1)));
  return webhookEventTypes(kinds).includes(value);
}

/**
 * The statement that puts one event in the outbox of every enabled endpoint of the organization that chose it. Add it
 * to the batch that makes the change (so the event exists exactly when the change does); `data` is the event's
 * `data` object, `at` its ISO time. Runs in SQL, so it costs one statement whatever the number of endpoints.
 */
export function enqueueEvent(
  db: Db,
  event: {
    organizationId: string;
    type: ScheduledEventType | ProposalEventType | TrustEventType;
    data: Record<string, unknown>;
    at: string;
    /** A condition under which nothing is enqueued (the event was already sent: src/webhooks/scheduled.ts). */
    unless?: SQL;
  },
): BatchItem<'sqlite'> {
  const family = `${event.type.split('.')[0]}.*`;
  const payload = JSON.stringify({ type: event.type, timestamp: event.at, data: event.data });
  return db.run(sql`
    INSERT INTO webhook_messages (id, organization_id, endpoint_id, event_type, payload, status, attempts, next_attempt_at, retry_until, created_at)
    SELECT 'msg_' || lower(hex(randomblob(12))), e.organization_id, e.id, ${event.type}, ${payload}, 'pending', 0, ${event.at},
      ${retryUntil(event.at)}, ${event.at}
    FROM webhook_endpoints e
    WHERE e.organization_id = ${event.organizationId} AND e.enabled = 1
      AND EXISTS (SELECT 1 FROM json_each(e.events) j WHERE j.value IN (${event.type}, ${family}, '*'))
      AND NOT (${event.unless ?? sql`0`})`);
}
