// The registries the notification engine reads: kinds with due dates ("due sources") and kinds with an assignee.
import { and, eq, inArray, isNotNull, isNull, lte, notInArray, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import {
  accessReviewEntries,
  accessReviews,
  acknowledgementRequests,
  acknowledgements,
  dataSubjectRequests,
  documents,
  incidentDeadlines,
  measures,
  nonconformities,
  obligations,
  risks,
  tasks,
  vendorQuestionnaires,
  vendors,
} from '../db/schema.ts';
import { openDeadlines, refreshClocks } from '../tools/incidents/clock-store.ts';
import { isOverdue } from '../tools/overdue.ts';
import { REQUEST_ENDED, REQUEST_OPEN } from '../tools/privacy/data-subject-requests.ts';
import { REVIEW_CYCLES, type ReviewCycle, reviewDueBefore } from '../tools/reviews.ts';
import { TASK_ENDED } from '../tools/tasks.ts';
import { VENDOR_ASSESSMENT_DUE, VENDOR_ENDED } from '../tools/vendors.ts';

/** One thing that comes due: who owns it (a person) and who it is assigned to (an account), either may be null. */
export interface DueItem {
  kind: string;
  id: string;
  title: string;
  due_date: string;
  status: string;
  /** The status in which it is done (no longer due): overdue means due before today and not in it. */
  done_status: string;
  owner_person_id: string | null;
  assignee_user_id: string | null;
  /** The record's next review is what comes due (review cycles), not the record itself. */
  review?: true;
  /** Which of the record's dates comes due when it has several (a vendor's `renewal`, its `assessment`): in the key. */
  facet?: string;
  /** A deadline to the minute (an incident's notification clock), told with its local time and the hours left. */
  deadline?: DueDeadline;
}

/** One of several deadlines a record has, each its own event: an incident's clock of a regime and stage. */
export interface DueDeadline {
  /** Which of the record's deadlines (`GDPR:AUTHORITY`): with the deadline itself, it makes the event key. */
  key: string;
  /** Its name in a title: "GDPR authority notification", "NIS2 early warning". */
  name: string;
  /** What is due and its legal source, for the body. */
  what: string;
  source: string;
  /** The deadline (ISO time); null for "without undue delay", never overdue. Passed without notice = overdue. */
  due_at: string | null;
  /** The same as a person in the organization reads it: "2026-12-01 09:30 Europe/Paris". */
  due_local: string | null;
}

export interface DueSource {
  kind: string;
  /** Items of the organization not yet done and due on or before `until` (YYYY-MM-DD), overdue ones included. */
  query(ctx: { db: Db; now: Date }, organizationId: string, until: string): Promise<DueItem[]>;
}

const dueSources: DueSource[] = [];

/** Open incident clocks read per organization and run at most, the earliest deadlines first. */
const DEADLINES_PER_ORGANIZATION = 1000;

/** Adds a kind whose records come due (tasks, reviews, evidence and documents add theirs beside the two here). */
export function registerDueSource(source: DueSource): void {
  const at = dueSources.findIndex((existing) => existing.kind === source.kind);
  if (at >= 0) dueSources[at] = source;
  else dueSources.push(source);
}

export function listDueSources(): readonly DueSource[] {
  return dueSources;
}

/**
 * The one place notifications decide "overdue": the same function as the registers' `overdue` field; a deadline to
 * the minute is overdue once passed (its notice not recorded), as its clock is MISSED.
 */
export function itemIsOverdue(item: DueItem, today: string, now: Date): boolean {
  if (item.deadline) return item.deadline.due_at !== null && now.getTime() > Date.parse(item.deadline.due_at);
  return isOverdue({ ...item }, 'due_date', 'status', item.done_status, today);
}

/**
 * A due source over a register table: its due date, status and owner columns (and an assignee account column), the
 * statuses in which a record is no longer due (the first is the done one that ends it).
 */
export function tableDueSource(options: {
  kind: string;
  table: typeof obligations | typeof nonconformities | typeof tasks | typeof dataSubjectRequests;
  title: SQLiteColumn;
  due: SQLiteColumn;
  ended: readonly [string, ...string[]];
  /**
   * The statuses in which a record is still due, when they are few: read through the (organization, status, due)
   * index, so the scan costs the open records, not the ended ones.
   */
  open?: readonly string[];
  assignee?: SQLiteColumn;
}): DueSource {
  const { table, due } = options;
  return {
    kind: options.kind,
    async query(ctx, organizationId, until) {
      const rows = await ctx.db
        .select({
          id: table.id,
          title: options.title,
          due_date: due,
          status: table.status,
          owner: table.owner_id,
          assignee: options.assignee ?? sql<null>`null`,
        })
        .from(table)
        .where(
          and(
            eq(table.organization_id, organizationId),
            isNotNull(due),
            lte(due, until),
            options.open
              ? inArray(table.status, [...options.open])
              : notInArray(table.status, [...options.ended]),
          ),
        );
      return rows.map((row) => ({
        kind: options.kind,
        id: row.id,
        title: String(row.title),
        due_date: String(row.due_date),
        status: row.status,
        done_status: options.ended[0],
        owner_person_id: row.owner,
        assignee_user_id: typeof row.assignee === 'string' ? row.assignee : null,
      }));
    },
  };
}

registerDueSource(
  tableDueSource({
    kind: 'obligation',
    table: obligations,
    title: obligations.requirement,
    due: obligations.due_date,
    ended: ['COMPLIANT'],
  }),
);
registerDueSource(
  tableDueSource({
    kind: 'nonconformity',
    table: nonconformities,
    title: nonconformities.reference_id,
    due: nonconformities.due_date,
    ended: ['CLOSED'],
  }),
);
registerDueSource(
  tableDueSource({
    kind: 'task',
    table: tasks,
    title: tasks.title,
    due: tasks.due_on,
    ended: TASK_ENDED,
    assignee: tasks.assignee_user_id,
  }),
);

/**
 * ACCEPTED risks whose acceptance runs out (or was never recorded: due since the risk last changed), for their owner:
 * renewing it (addRiskAcceptance) or moving the risk out of ACCEPTED ends the item.
 */
registerDueSource({
  kind: 'risk_acceptance',
  async query(ctx, organizationId, until) {
    const due = sql<string>`coalesce(${risks.accepted_until}, substr(${risks.updated_at}, 1, 10))`;
    const rows = await ctx.db
      .select({ id: risks.id, name: risks.name, due_date: due, owner: risks.owner_id })
      .from(risks)
      .where(and(eq(risks.organization_id, organizationId), eq(risks.status, 'ACCEPTED'), lte(due, until)));
    return rows.map((row) => ({
      kind: 'risk',
      id: row.id,
      title: `${row.name} (acceptance runs out)`,
      due_date: String(row.due_date),
      status: 'ACCEPTED',
      done_status: 'RENEWED',
      owner_person_id: row.owner,
      assignee_user_id: null,
    }));
  },
});

/**
 * Security questionnaires sent to vendors and not answered by their due date's horizon, for the account that sent
 * them: an answer (or deleting the vendor) ends the item; a reminder with a new due date moves it.
 */
registerDueSource({
  kind: 'vendor_questionnaire',
  async query(ctx, organizationId, until) {
    const rows = await ctx.db
      .select({
        vendor_id: vendorQuestionnaires.vendor_id,
        name: vendors.name,
        due_date: vendorQuestionnaires.due_date,
        sender: vendorQuestionnaires.sent_by_user_id,
      })
      .from(vendorQuestionnaires)
      .innerJoin(
        vendors,
        and(eq(vendors.id, vendorQuestionnaires.vendor_id), eq(vendors.organization_id, organizationId)),
      )
      .where(
        and(
          eq(vendorQuestionnaires.organization_id, organizationId),
          isNull(vendorQuestionnaires.answered_at),
          lte(vendorQuestionnaires.due_date, until),
        ),
      );
    return rows.map((row) => ({
      kind: 'vendor',
      id: row.vendor_id,
      title: `${row.name} (questionnaire unanswered)`,
      due_date: row.due_date,
      status: 'PENDING',
      done_status: 'ANSWERED',
      owner_person_id: null,
      assignee_user_id: row.sender,
    }));
  },
});

/**
 * Acknowledgements still pending, for the person asked (an account when the person is one, as owners are): due on
 * the request's due date, or without one on the day the person's link expires; acknowledging ends the item. The
 * due-soon and overdue notices are the reminders; one asked again by a reacknowledgement (no link, no date) waits.
 */
registerDueSource({
  kind: 'acknowledgement',
  async query(ctx, organizationId, until) {
    const due = sql<string>`coalesce(${acknowledgementRequests.due_date}, substr(${acknowledgements.link_expires_at}, 1, 10))`;
    const rows = await ctx.db
      .select({
        document_id: acknowledgements.document_id,
        version: acknowledgements.version_number,
        person_id: acknowledgements.person_id,
        title: documents.title,
        due_date: due,
      })
      .from(acknowledgements)
      .innerJoin(
        acknowledgementRequests,
        and(
          eq(acknowledgementRequests.id, acknowledgements.request_id),
          eq(acknowledgementRequests.organization_id, organizationId),
        ),
      )
      .innerJoin(
        documents,
        and(eq(documents.id, acknowledgements.document_id), eq(documents.organization_id, organizationId)),
      )
      .where(
        and(
          eq(acknowledgements.organization_id, organizationId),
          isNull(acknowledgements.acknowledged_at),
          sql`${due} is not null`,
          lte(due, until),
        ),
      );
    return rows.map((row) => ({
      kind: 'document',
      id: row.document_id,
      title: `${row.title} v${row.version} (to acknowledge)`,
      due_date: row.due_date,
      status: 'PENDING',
      done_status: 'ACKNOWLEDGED',
      owner_person_id: row.person_id,
      assignee_user_id: null,
      // Its own event beside the document's review: one per version asked and due date.
      facet: `acknowledge-v${row.version}`,
    }));
  },
});

/**
 * Measures tested periodically whose next control test comes due (never tested: due since created), for their owner:
 * recording a test (addControlTest) moves next_test_on and ends the item.
 */
registerDueSource({
  kind: 'control_test',
  async query(ctx, organizationId, until) {
    const rows = await ctx.db
      .select({
        id: measures.id,
        name: measures.name,
        due_date: measures.next_test_on,
        owner: measures.owner_id,
      })
      .from(measures)
      .where(
        and(
          eq(measures.organization_id, organizationId),
          isNotNull(measures.next_test_on),
          lte(measures.next_test_on, until),
          sql`${measures.state} <> 'NOT_APPLICABLE'`,
        ),
      );
    return rows.map((row) => ({
      kind: 'measure',
      id: row.id,
      title: `${row.name} (control test due)`,
      due_date: String(row.due_date),
      status: 'TEST_DUE',
      done_status: 'TESTED',
      owner_person_id: row.owner,
      assignee_user_id: null,
    }));
  },
});

registerDueSource(
  tableDueSource({
    kind: 'data_subject_request',
    table: dataSubjectRequests,
    title: dataSubjectRequests.reference,
    due: dataSubjectRequests.due_on,
    ended: REQUEST_ENDED,
    open: REQUEST_OPEN,
  }),
);

/**
 * Access-review campaigns IN_PROGRESS whose due date comes (or passed): one item for the owner and one for each reviewer
 * with entries still undecided (a person both is told once); completing the campaign ends it. The reviewers are read
 * from the (campaign, decision) index of the entries of the campaigns due only.
 */
registerDueSource({
  kind: 'access_review',
  async query(ctx, organizationId, until) {
    const campaigns = await ctx.db
      .select({
        id: accessReviews.id,
        name: accessReviews.name,
        due_on: accessReviews.due_on,
        owner: accessReviews.owner_id,
      })
      .from(accessReviews)
      .where(
        and(
          eq(accessReviews.organization_id, organizationId),
          eq(accessReviews.status, 'IN_PROGRESS'),
          isNotNull(accessReviews.due_on),
          lte(accessReviews.due_on, until),
        ),
      );
    if (campaigns.length === 0) return [];
    const reviewers = await undecidedReviewers(
      ctx.db,
      campaigns.map((campaign) => campaign.id),
    );
    return campaigns.flatMap((campaign) => {
      const people = new Set([
        ...(campaign.owner ? [campaign.owner] : []),
        ...(reviewers.get(campaign.id) ?? []),
      ]);
      return [...people].map((personId) => ({
        kind: 'access_review',
        id: campaign.id,
        title: campaign.name,
        due_date: String(campaign.due_on),
        status: 'IN_PROGRESS',
        done_status: 'COMPLETED',
        owner_person_id: personId,
        assignee_user_id: null,
      }));
    });
  },
});

/** Per campaign, the reviewers (people) with entries not decided yet, in id order. */
export async function undecidedReviewers(db: Db, campaignIds: string[]): Promise<Map<string, string[]>> {
  const byCampaign = new Map<string, string[]>();
  if (campaignIds.length === 0) return byCampaign;
  const rows = await db
    .selectDistinct({
      campaign: accessReviewEntries.access_review_id,
      reviewer: accessReviewEntries.reviewer_id,
    })
    .from(accessReviewEntries)
    .where(
      and(
        inArray(accessReviewEntries.access_review_id, campaignIds),
        isNull(accessReviewEntries.decision),
        isNotNull(accessReviewEntries.reviewer_id),
      ),
    )
    .orderBy(accessReviewEntries.access_review_id, accessReviewEntries.reviewer_id);
  for (const row of rows) {
    if (row.reviewer === null) continue;
    byCampaign.set(row.campaign, [...(byCampaign.get(row.campaign) ?? []), row.reviewer]);
  }
  return byCampaign;
}

/**
 * A date of vendors not leaving (not OFFBOARDING or OFFBOARDED) that comes due, for each of its owners (business and
 * security, a person both told once): its contract renewal (moving renewal_on ends it) or its assessment (a new one
 * moves assessed_until; never assessed: due since the vendor was added).
 */
function vendorDueSource(
  facet: 'renewal' | 'assessment',
  due: SQL<string> | SQLiteColumn,
  what: string,
): DueSource {
  return {
    kind: `vendor_${facet}`,
    async query(ctx, organizationId, until) {
      const rows = await ctx.db
        .select({
          id: vendors.id,
          name: vendors.name,
          due_date: sql<string>`${due}`,
          business: vendors.business_owner_id,
          security: vendors.security_owner_id,
        })
        .from(vendors)
        .where(
          and(
            eq(vendors.organization_id, organizationId),
            sql`${due} <= ${until}`,
            notInArray(vendors.status, [...VENDOR_ENDED]),
          ),
        );
      return rows.flatMap((row) =>
        [...new Set([row.business, row.security].filter((id) => id !== null))].map((personId) => ({
          kind: 'vendor',
          id: row.id,
          title: `${row.name} (${what})`,
          due_date: String(row.due_date),
          status: facet === 'renewal' ? 'RENEWAL_DUE' : 'ASSESSMENT_DUE',
          done_status: facet === 'renewal' ? 'RENEWED' : 'ASSESSED',
          owner_person_id: personId,
          assignee_user_id: null,
          facet,
        })),
      );
    },
  };
}

registerDueSource(vendorDueSource('renewal', vendors.renewal_on, 'contract renewal'));
registerDueSource(vendorDueSource('assessment', VENDOR_ASSESSMENT_DUE, 'assessment due'));

/** A clock's name in a title: "GDPR authority notification", "NIS2 early warning", "DORA final report". */
function clockName(regime: string, stage: string): string {
  const words = stage.toLowerCase().replaceAll('_', ' ');
  const named = ['notification', 'report', 'warning'].some((end) => words.endsWith(end));
  return `${regime} ${named ? words : `${words} notification`}`;
}

/**
 * The notification clocks of incidents still open (no notice recorded) with a due date, to the incident manager
 * (its owner): one item per clock, computed afresh first (refreshClocks), read from the open clocks' index.
 */
registerDueSource({
  kind: 'incident',
  async query(ctx, organizationId, until) {
    await refreshClocks(ctx.db, [organizationId], ctx.now);
    const rows = await openDeadlines(
      ctx.db,
      [organizationId],
      lte(incidentDeadlines.due_on, until),
      DEADLINES_PER_ORGANIZATION,
    );
    return rows.map((row) => ({
      kind: 'incident',
      id: row.incident_id,
      title: row.title,
      due_date: row.due_on,
      status: row.status,
      done_status: 'NOTIFIED',
      owner_person_id: row.owner_id,
      assignee_user_id: null,
      deadline: {
        key: `${row.regime}:${row.stage}`,
        name: clockName(row.regime, row.stage),
        what: row.what,
        source: row.source,
        due_at: row.due_at,
        due_local: row.due_local,
      },
    }));
  },
});

/** Reviews coming due of a register with review cycles, one item per distinct owner (a vendor has two). */
function reviewDueSource(kind: string, cycle: ReviewCycle): DueSource {
  return {
    kind: `${kind}_review`,
    async query(ctx, organizationId, until) {
      const owners = Object.fromEntries(cycle.owners.map((column, at) => [`owner${at}`, column]));
      const rows = (await ctx.db
        .select({ id: cycle.table.id, title: cycle.title, due_date: cycle.next, ...owners })
        .from(cycle.table)
        .where(
          and(eq(cycle.table.organization_id, organizationId), reviewDueBefore(cycle, until, true)),
        )) as Record<string, unknown>[];
      return rows.flatMap((row) => {
        const people = new Set(
          cycle.owners.map((_, at) => row[`owner${at}`]).filter((id) => typeof id === 'string'),
        );
        return [...people].map((personId) => ({
          kind,
          id: String(row.id),
          title: String(row.title),
          due_date: String(row.due_date),
          status: 'REVIEW_DUE',
          done_status: 'REVIEWED',
          owner_person_id: personId as string,
          assignee_user_id: null,
          review: true as const,
        }));
      });
    },
  };
}

for (const [kind, cycle] of Object.entries(REVIEW_CYCLES) as [string, ReviewCycle][]) {
  if (cycle.owners.length > 0) registerDueSource(reviewDueSource(kind, cycle));
}

/**
 * Kinds whose records are assigned to an account: a history row (record_changes) of such a kind whose `after`
 * sets `field` to a user id notifies that account ("assigned to me"). A `task` kind calls this with `assignee_id`.
 */
const assignable = new Map<string, string>();

export function registerAssignable(kind: string, field: string): void {
  assignable.set(kind, field);
}

export function assigneeFieldOf(kind: string): string | undefined {
  return assignable.get(kind);
}

registerAssignable('task', 'assignee_user_id');
