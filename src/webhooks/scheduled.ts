// The scheduled webhook events: `task.due`, `review.due`, `evidence.expiring`, `incident.deadline`,
// `data_subject_request.due`, `access_review.due`, `vendor.renewal_due` and `vendor.assessment_due`, found by a scan that runs with the notifications (Node's timer, the Worker's Cron
// Trigger, `compliance-mcp notify`). Each event is put in the outbox once per record and date (an incident's: per
// regime, stage and deadline) (webhook_scheduled_events), in the batch that records it, so overlapping scans never
// send it twice; a new date (a task moved, a review done, evidence renewed, a deadline recomputed) is a new event.
import { and, eq, inArray, isNotNull, isNull, lte, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import {
  accessReviews,
  dataSubjectRequests,
  evidence,
  incidentDeadlines,
  tasks,
  vendors,
  webhookEndpoints,
  webhookScheduledEvents,
} from '../db/schema.ts';
import { undecidedReviewers } from '../notify/sources.ts';
import { supersededBy } from '../tools/evidence.ts';
import { openDeadlines, refreshClocks } from '../tools/incidents/clock-store.ts';
import { addDays, dueState } from '../tools/overdue.ts';
import { REQUEST_OPEN } from '../tools/privacy/data-subject-requests.ts';
import { REVIEW_CYCLES, type ReviewCycle, reviewDueBefore } from '../tools/reviews.ts';
import { TASK_ENDED } from '../tools/tasks.ts';
import { VENDOR_ASSESSMENT_DUE, VENDOR_ENDED } from '../tools/vendors.ts';
import { enqueueEvent, SCHEDULED_EVENT_TYPES, type ScheduledEventType } from './events.ts';

/**
 * Days ahead of its date an event is sent: a task, a review, a data-subject request or an access review a week before,
 * evidence, a vendor's contract renewal or assessment 30 days before, an incident's notification deadline a day (24
 * hours: its deadlines are to the minute).
 */
export const SCHEDULED_LEAD_DAYS: Record<ScheduledEventType, number> = {
  'task.due': 7,
  'review.due': 7,
  'evidence.expiring': 30,
  'incident.deadline': 1,
  'data_subject_request.due': 7,
  'access_review.due': 7,
  'vendor.renewal_due': 30,
  'vendor.assessment_due': 30,
};

/**
 * Events recorded per scan (and records read per kind): what is left is found by the next scan, every 10 minutes on
 * both hosts. A scan costs 16 reads (the listening organizations, tasks, 7 review cycles, evidence, requests, access
 * reviews and their reviewers, vendor renewals and assessments, incident clocks), the incidents' clock refresh (3 at
 * most) and at most 2 batches: 21 subrequests of the Worker's budget.
 */
export const SCHEDULED_SCAN_LIMIT = 200;

interface Found {
  type: ScheduledEventType;
  organizationId: string;
  id: string;
  date: string;
  data: Record<string, unknown>;
}

const keyOf = (found: { type: string; id: string; date: string }) =>
  `${found.type}:${found.id}:${found.date}`;

/** SQL: no event of this type, record and date was put in the outbox yet. */
function notYetSent(
  type: ScheduledEventType,
  table: SQLiteTable & { id: SQLiteColumn; organization_id: SQLiteColumn },
  date: SQLiteColumn | SQL,
): SQL {
  return sql`not exists (select 1 from ${webhookScheduledEvents} s where s.organization_id = ${table.organization_id} and s.event_key = ${type} || ':' || ${table.id} || ':' || ${date})`;
}

/** The endpoint choices that include a scheduled event: the type, its family (`task.*`), or every event. */
const SCHEDULED_CHOICES = [
  '*',
  ...SCHEDULED_EVENT_TYPES.flatMap((type) => [type, `${type.split('.')[0]}.*`]),
];

/** The organizations with an enabled endpoint that chose one of the scheduled events (or all events). */
async function listeningOrganizations(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ id: webhookEndpoints.organization_id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.enabled, true),
        sql`exists (select 1 from json_each(${webhookEndpoints.events}) j where j.value in ${SCHEDULED_CHOICES})`,
      ),
    );
  return rows.map((row) => row.id);
}

async function dueTasks(db: Db, organizationIds: string[], today: string): Promise<Found[]> {
  const rows = await db
    .select({
      id: tasks.id,
      organization_id: tasks.organization_id,
      title: tasks.title,
      due_on: tasks.due_on,
      status: tasks.status,
      owner_id: tasks.owner_id,
      assignee_user_id: tasks.assignee_user_id,
    })
    .from(tasks)
    .where(
      and(
        inArray(tasks.organization_id, organizationIds),
        isNotNull(tasks.due_on),
        lte(tasks.due_on, addDays(today, SCHEDULED_LEAD_DAYS['task.due'])),
        notInArray(tasks.status, [...TASK_ENDED]),
        notYetSent('task.due', tasks, tasks.due_on),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  return rows.map(({ organization_id, ...row }) => ({
    type: 'task.due',
    organizationId: organization_id,
    id: row.id,
    date: String(row.due_on),
    data: { organization_id, kind: 'task', ...row, overdue: dueState(row.due_on, today) === 'overdue' },
  }));
}

async function dueReviews(
  db: Db,
  kind: string,
  cycle: ReviewCycle,
  organizationIds: string[],
  today: string,
): Promise<Found[]> {
  const rows = await db
    .select({
      id: cycle.table.id,
      organization_id: cycle.table.organization_id,
      title: cycle.title,
      next_review_on: cycle.next,
    })
    .from(cycle.table)
    .where(
      and(
        inArray(cycle.table.organization_id, organizationIds),
        reviewDueBefore(cycle, addDays(today, SCHEDULED_LEAD_DAYS['review.due']), true),
        notYetSent('review.due', cycle.table, cycle.next),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  return rows.map((row) => ({
    type: 'review.due',
    organizationId: String(row.organization_id),
    id: String(row.id),
    date: String(row.next_review_on),
    data: {
      organization_id: row.organization_id,
      kind,
      id: row.id,
      title: row.title,
      next_review_on: row.next_review_on,
      overdue: dueState(row.next_review_on, today) === 'overdue',
    },
  }));
}

async function expiringEvidence(db: Db, organizationIds: string[], today: string): Promise<Found[]> {
  const rows = await db
    .select({
      id: evidence.id,
      organization_id: evidence.organization_id,
      title: evidence.title,
      kind: evidence.kind,
      valid_until: evidence.valid_until,
    })
    .from(evidence)
    .where(
      and(
        inArray(evidence.organization_id, organizationIds),
        isNotNull(evidence.valid_until),
        lte(evidence.valid_until, addDays(today, SCHEDULED_LEAD_DAYS['evidence.expiring'])),
        // Evidence a newer item replaced is not expiring work any more.
        isNull(supersededBy),
        notYetSent('evidence.expiring', evidence, evidence.valid_until),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  return rows.map(({ organization_id, kind, ...row }) => ({
    type: 'evidence.expiring',
    organizationId: organization_id,
    id: row.id,
    date: String(row.valid_until),
    data: {
      organization_id,
      kind: 'evidence',
      evidence_kind: kind,
      ...row,
      expired: dueState(row.valid_until, today) === 'overdue',
    },
  }));
}

/**
 * Data-subject requests not answered whose answer is due within the lead days or overdue, read through the
 * (organization, status, due_on) index: the open requests, however many are answered.
 */
async function dueRequests(db: Db, organizationIds: string[], today: string): Promise<Found[]> {
  const rows = await db
    .select({
      id: dataSubjectRequests.id,
      organization_id: dataSubjectRequests.organization_id,
      reference: dataSubjectRequests.reference,
      request_type: dataSubjectRequests.request_type,
      received_on: dataSubjectRequests.received_on,
      due_on: dataSubjectRequests.due_on,
      extension_months: dataSubjectRequests.extension_months,
      status: dataSubjectRequests.status,
      owner_id: dataSubjectRequests.owner_id,
    })
    .from(dataSubjectRequests)
    .where(
      and(
        inArray(dataSubjectRequests.organization_id, organizationIds),
        inArray(dataSubjectRequests.status, [...REQUEST_OPEN]),
        lte(dataSubjectRequests.due_on, addDays(today, SCHEDULED_LEAD_DAYS['data_subject_request.due'])),
        notYetSent('data_subject_request.due', dataSubjectRequests, dataSubjectRequests.due_on),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  return rows.map(({ organization_id, ...row }) => ({
    type: 'data_subject_request.due',
    organizationId: organization_id,
    id: row.id,
    date: row.due_on,
    data: {
      organization_id,
      kind: 'data_subject_request',
      ...row,
      overdue: dueState(row.due_on, today) === 'overdue',
    },
  }));
}

/**
 * Access-review campaigns IN_PROGRESS due within the lead days or overdue, read through the (organization, status,
 * due_on) index, with the reviewers who still have entries to decide.
 */
async function dueAccessReviews(db: Db, organizationIds: string[], today: string): Promise<Found[]> {
  const rows = await db
    .select({
      id: accessReviews.id,
      organization_id: accessReviews.organization_id,
      name: accessReviews.name,
      due_on: accessReviews.due_on,
      status: accessReviews.status,
      owner_id: accessReviews.owner_id,
    })
    .from(accessReviews)
    .where(
      and(
        inArray(accessReviews.organization_id, organizationIds),
        eq(accessReviews.status, 'IN_PROGRESS'),
        lte(accessReviews.due_on, addDays(today, SCHEDULED_LEAD_DAYS['access_review.due'])),
        notYetSent('access_review.due', accessReviews, accessReviews.due_on),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  const reviewers = await undecidedReviewers(
    db,
    rows.map((row) => row.id),
  );
  return rows.map(({ organization_id, ...row }) => ({
    type: 'access_review.due',
    organizationId: organization_id,
    id: row.id,
    date: String(row.due_on),
    data: {
      organization_id,
      kind: 'access_review',
      ...row,
      undecided_reviewer_ids: reviewers.get(row.id) ?? [],
      overdue: dueState(row.due_on, today) === 'overdue',
    },
  }));
}

/**
 * Vendors not leaving whose contract renews (renewal_on) or whose assessment runs out (assessed_until; never assessed:
 * the day it was added) within 30 days or passed: one event per vendor, date and which.
 */
async function dueVendors(
  db: Db,
  type: 'vendor.renewal_due' | 'vendor.assessment_due',
  organizationIds: string[],
  today: string,
): Promise<Found[]> {
  const due = type === 'vendor.renewal_due' ? vendors.renewal_on : VENDOR_ASSESSMENT_DUE;
  const rows = await db
    .select({
      id: vendors.id,
      organization_id: vendors.organization_id,
      name: vendors.name,
      status: vendors.status,
      tier: vendors.tier,
      business_owner_id: vendors.business_owner_id,
      security_owner_id: vendors.security_owner_id,
      due_on: sql<string>`${due}`,
      renewal_on: vendors.renewal_on,
      assessed_until: vendors.assessed_until,
    })
    .from(vendors)
    .where(
      and(
        inArray(vendors.organization_id, organizationIds),
        sql`${due} <= ${addDays(today, SCHEDULED_LEAD_DAYS[type])}`,
        notInArray(vendors.status, [...VENDOR_ENDED]),
        notYetSent(type, vendors, due),
      ),
    )
    .limit(SCHEDULED_SCAN_LIMIT);
  return rows.map(({ organization_id, due_on, ...row }) => ({
    type,
    organizationId: organization_id,
    id: row.id,
    date: String(due_on),
    data: {
      organization_id,
      kind: 'vendor',
      ...row,
      due_on,
      overdue: dueState(due_on, today) === 'overdue',
    },
  }));
}

/**
 * Incidents' notification clocks still open (no notice recorded) whose deadline is within 24 hours or passed, and
 * those due "without undue delay": one event per incident, regime, stage and deadline. The clocks are refreshed
 * first; they are read from the open clocks' index.
 */
async function incidentDeadlineEvents(db: Db, organizationIds: string[], now: Date): Promise<Found[]> {
  await refreshClocks(db, organizationIds, now);
  const until = new Date(now.getTime() + SCHEDULED_LEAD_DAYS['incident.deadline'] * 86_400_000).toISOString();
  const date = sql`coalesce(${incidentDeadlines.due_at}, ${incidentDeadlines.due_on})`;
  const rows = await openDeadlines(
    db,
    organizationIds,
    and(
      or(lte(incidentDeadlines.due_at, until), isNull(incidentDeadlines.due_at)),
      sql`not exists (select 1 from ${webhookScheduledEvents} s where s.organization_id = ${incidentDeadlines.organization_id} and s.event_key = 'incident.deadline:' || ${incidentDeadlines.incident_id} || ':' || ${incidentDeadlines.regime} || ':' || ${incidentDeadlines.stage} || ':' || ${date})`,
    ),
    SCHEDULED_SCAN_LIMIT,
  );
  return rows.map((row) => {
    const hoursLeft =
      row.due_at === null ? null : Math.floor((Date.parse(row.due_at) - now.getTime()) / 3_600_000);
    return {
      type: 'incident.deadline',
      organizationId: row.organization_id,
      id: `${row.incident_id}:${row.regime}:${row.stage}`,
      date: row.due_at ?? row.due_on,
      data: {
        organization_id: row.organization_id,
        kind: 'incident',
        id: row.incident_id,
        title: row.title,
        status: row.status,
        owner_id: row.owner_id,
        regime: row.regime,
        stage: row.stage,
        what: row.what,
        source: row.source,
        due_at: row.due_at,
        due_local: row.due_local,
        time_zone: row.time_zone,
        hours_left: hoursLeft,
        missed: row.due_at !== null && now.getTime() > Date.parse(row.due_at),
      },
    };
  });
}

/** Statements per batch: two per event (the outbox rows, the key). */
const EVENTS_PER_BATCH = 100;

/**
 * Finds the scheduled events not sent yet in the organizations that listen for them and puts each in the outbox of
 * the endpoints that chose it, once. `today` is the UTC date of `now` (an event is not a person's local day).
 * Returns the number of events recorded.
 */
export async function enqueueScheduledEvents(db: Db, now: Date): Promise<number> {
  const organizationIds = await listeningOrganizations(db);
  if (organizationIds.length === 0) return 0;
  const today = now.toISOString().slice(0, 10);
  const found = [
    ...(await dueTasks(db, organizationIds, today)),
    ...(
      await Promise.all(
        Object.entries(REVIEW_CYCLES).map(([kind, cycle]) =>
          dueReviews(db, kind, cycle as ReviewCycle, organizationIds, today),
        ),
      )
    ).flat(),
    ...(await expiringEvidence(db, organizationIds, today)),
    ...(await dueRequests(db, organizationIds, today)),
    ...(await dueAccessReviews(db, organizationIds, today)),
    ...(await dueVendors(db, 'vendor.renewal_due', organizationIds, today)),
    ...(await dueVendors(db, 'vendor.assessment_due', organizationIds, today)),
    ...(await incidentDeadlineEvents(db, organizationIds, now)),
  ].slice(0, SCHEDULED_SCAN_LIMIT);
  const at = now.toISOString();
  for (let start = 0; start < found.length; start += EVENTS_PER_BATCH) {
    const statements: BatchItem<'sqlite'>[] = found
      .slice(start, start + EVENTS_PER_BATCH)
      .flatMap((event) => {
        const key = keyOf(event);
        return [
          enqueueEvent(db, {
            organizationId: event.organizationId,
            type: event.type,
            data: event.data,
            at,
            unless: sql`exists (select 1 from ${webhookScheduledEvents} s where s.organization_id = ${event.organizationId} and s.event_key = ${key})`,
          }),
          db
            .insert(webhookScheduledEvents)
            .values({ organization_id: event.organizationId, event_key: key, created_at: at })
            .onConflictDoNothing(),
        ];
      });
    await db.batch(statements as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  }
  return found.length;
}
