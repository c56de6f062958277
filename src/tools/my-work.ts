// myWork: the caller's own work across their organizations (tasks assigned, reviews due, open items owned), by due
// date, each with the overdue and due-soon flags of src/tools/overdue.ts, in keyset pages.
import { and, eq, inArray, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import {
  accessReviewEntries,
  accessReviews,
  acknowledgementRequests,
  acknowledgements,
  continualImprovements,
  dataSubjectRequests,
  documents,
  incidentDeadlines,
  incidents,
  managementReviews,
  measures,
  nonconformities,
  obligations,
  organizations,
  people,
  risks,
  tasks,
  users,
  vendorQuestionnaires,
  vendors,
} from '../db/schema.ts';
import { invalidArguments } from '../errors.ts';
import { reachableOrganizationIds, requireOrganization } from './access.ts';
import { acknowledgementDueAgain, latestAcknowledgement } from './acknowledgements/cycles.ts';
import { cursorSchema, idOf, PAGE_SIZE, sizeSchema } from './fields.ts';
import { refreshClocks } from './incidents/clock-store.ts';
import { localStamp } from './incidents/clocks.ts';
import { addDays, dueState, todayOf } from './overdue.ts';
import { decodeCursor, encodeCursor } from './pagination.ts';
import { REQUEST_OPEN } from './privacy/data-subject-requests.ts';
import { REVIEW_CYCLES, type ReviewCycle, reviewDueBefore } from './reviews.ts';
import { settingsFrom } from './settings.ts';
import { TASK_ENDED } from './tasks.ts';
import { CORE_TOOLSET } from './toolsets.ts';
import { defineTool, READ_ANNOTATIONS, type Tool, type ToolContext } from './types.ts';
import { VENDOR_ASSESSMENT_DUE, VENDOR_ENDED } from './vendors.ts';

export const MY_WORK_REASONS = [
  'ASSIGNED',
  'REVIEW',
  'OWNED',
  'DEADLINE',
  'ACCEPTANCE',
  'TEST',
  'ACKNOWLEDGE',
  'QUESTIONNAIRE',
  'RENEWAL',
  'ASSESSMENT',
  'CHAIR',
] as const;
export type MyWorkReason = (typeof MY_WORK_REASONS)[number];

export interface MyWorkItem {
  kind: string;
  id: string;
  organization_id: string;
  title: string;
  reason: MyWorkReason;
  due_on: string | null;
  /** A deadline to the hour (an incident's notification), as an ISO time; null for a day's due date. */
  due_at: string | null;
  /** Whole hours to due_at (negative once passed); null without due_at. */
  hours_left: number | null;
  /** due_at in the organization's time zone ("2026-12-01 09:30 Europe/Paris"); null without due_at. */
  due_local: string | null;
  status: string | null;
  overdue: boolean;
  due_soon: boolean;
}

const DEFAULT_WITHIN_DAYS = 30;
const NAME = 'myWork';

/** One source of work items, as the columns every part of the union selects. */
function part(
  kind: string,
  table: SQLiteTable & { id: SQLiteColumn; organization_id: SQLiteColumn },
  title: SQLiteColumn | SQL,
  due: SQLiteColumn | SQL,
  status: SQLiteColumn | null,
  reason: SQL,
  where: SQL | undefined,
): SQL {
  return sql`select ${kind} as kind, ${table.id} as id, ${table.organization_id} as organization_id, ${title} as title, ${reason} as reason, ${due} as due_on, null as due_at, ${status ?? sql`null`} as status from ${table} where ${where ?? sql`1`}`;
}

/**
 * The incidents the caller manages with a notification still due: one item each, at its earliest open deadline
 * (`incident_deadlines`, refreshed before the read), titled with what is due. Read from the open clocks of the
 * organizations (their index), each joined to its incident: the cost follows the open clocks, not the incidents.
 */
function incidentDeadlinePart(personIds: string[], organizationIds: string[]): SQL {
  return sql`select 'incident' as kind, ${incidents.id} as id, ${incidents.organization_id} as organization_id, 'Notification due: ' || ${incidents.title} as title, 'DEADLINE' as reason, min(${incidentDeadlines.due_on}) as due_on, min(${incidentDeadlines.due_at}) as due_at, ${incidents.status} as status from ${incidentDeadlines} join ${incidents} on ${incidents.id} = ${incidentDeadlines.incident_id} where ${inArray(incidentDeadlines.organization_id, organizationIds)} and ${incidentDeadlines.open} = 1 and ${incidentDeadlines.due_on} is not null and ${inArray(incidents.owner_id, personIds)} group by ${incidents.id}`;
}

/**
 * The document versions the caller was asked to acknowledge and has not: one item per document and version, due on
 * the earliest due date of the requests that asked (none: no due date). Read by the person index of
 * acknowledgements, so the cost follows the caller's own rows.
 */
function acknowledgementPart(personIds: string[], organizationIds: string[]): SQL {
  return sql`select 'document' as kind, ${documents.id} as id, ${documents.organization_id} as organization_id, 'Acknowledge: ' || ${documents.title} || ' v' || ${acknowledgements.version_number} as title, 'ACKNOWLEDGE' as reason, min(${acknowledgementRequests.due_date}) as due_on, null as due_at, ${documents.status} as status from ${acknowledgements} join ${documents} on ${documents.id} = ${acknowledgements.document_id} join ${acknowledgementRequests} on ${acknowledgementRequests.id} = ${acknowledgements.request_id} where ${inArray(acknowledgements.person_id, personIds)} and ${inArray(acknowledgements.organization_id, organizationIds)} and ${acknowledgements.acknowledged_at} is null group by ${documents.id}, ${acknowledgements.version_number}`;
}

/**
 * The vendors whose security questionnaire the caller sent and nobody has answered yet (expired links too: a reminder
 * revives them): one item per vendor, due on the earliest due date. Read by the organization index of questionnaires.
 */
function questionnairePart(userId: string, organizationIds: string[]): SQL {
  return sql`select 'vendor' as kind, ${vendors.id} as id, ${vendors.organization_id} as organization_id, 'Questionnaire unanswered: ' || ${vendors.name} as title, 'QUESTIONNAIRE' as reason, min(${vendorQuestionnaires.due_date}) as due_on, null as due_at, ${vendors.status} as status from ${vendorQuestionnaires} join ${vendors} on ${vendors.id} = ${vendorQuestionnaires.vendor_id} and ${vendors.organization_id} = ${vendorQuestionnaires.organization_id} where ${inArray(vendorQuestionnaires.organization_id, organizationIds)} and ${vendorQuestionnaires.sent_by_user_id} = ${userId} and ${vendorQuestionnaires.answered_at} is null group by ${vendors.id}`;
}

/**
 * The documents in force the caller acknowledged over a year before the window's end (the yearly cycle): the latest
 * acknowledgement of each, due again a year after it was given; a new request and acknowledgement end it.
 */
function acknowledgementAgainPart(personIds: string[], organizationIds: string[], horizon: string): SQL {
  const due = acknowledgementDueAgain('a');
  return sql`select 'document' as kind, ${documents.id} as id, ${documents.organization_id} as organization_id, 'Acknowledge again: ' || ${documents.title} || ' v' || a.version_number as title, 'ACKNOWLEDGE' as reason, ${due} as due_on, null as due_at, ${documents.status} as status from ${acknowledgements} a join ${documents} on ${documents.id} = a.document_id where ${inArray(sql`a.person_id`, personIds)} and ${inArray(sql`a.organization_id`, organizationIds)} and ${latestAcknowledgement('a')} and ${due} <= ${horizon} and ${documents.status} = 'PUBLISHED'`;
}

/** When an ACCEPTED risk's acceptance comes due: its expiry, or (none recorded) the day the risk last changed. */
const riskAcceptanceDue = sql`coalesce(${risks.accepted_until}, substr(${risks.updated_at}, 1, 10))`;

/** The work of the caller, people being the records of the caller's email in each organization. */
function workUnion(userId: string, personIds: string[], organizationIds: string[], horizon: string): SQL {
  const inOrgs = (column: SQLiteColumn) => inArray(column, organizationIds);
  const owned = (column: SQLiteColumn) => inArray(column, personIds);
  const parts = [
    part(
      'task',
      tasks,
      tasks.title,
      tasks.due_on,
      tasks.status,
      sql`case when ${tasks.assignee_user_id} = ${userId} then 'ASSIGNED' else 'OWNED' end`,
      and(
        inOrgs(tasks.organization_id),
        notInArray(tasks.status, [...TASK_ENDED]),
        or(eq(tasks.assignee_user_id, userId), owned(tasks.owner_id)),
      ),
    ),
    questionnairePart(userId, organizationIds),
  ];
  if (personIds.length > 0) {
    const owner = sql`'OWNED'`;
    const review = sql`'REVIEW'`;
    parts.push(
      part(
        'obligation',
        obligations,
        obligations.requirement,
        obligations.due_date,
        obligations.status,
        owner,
        and(owned(obligations.owner_id), sql`${obligations.status} <> 'COMPLIANT'`),
      ),
      part(
        'nonconformity',
        nonconformities,
        nonconformities.reference_id,
        nonconformities.due_date,
        nonconformities.status,
        owner,
        and(owned(nonconformities.owner_id), sql`${nonconformities.status} <> 'CLOSED'`),
      ),
      part(
        'data_subject_request',
        dataSubjectRequests,
        dataSubjectRequests.reference,
        dataSubjectRequests.due_on,
        dataSubjectRequests.status,
        owner,
        // The open requests of the organizations by their status index, not every request the person ever handled.
        and(
          inOrgs(dataSubjectRequests.organization_id),
          inArray(dataSubjectRequests.status, [...REQUEST_OPEN]),
          owned(dataSubjectRequests.owner_id),
        ),
      ),
      incidentDeadlinePart(personIds, organizationIds),
      acknowledgementPart(personIds, organizationIds),
      acknowledgementAgainPart(personIds, organizationIds, horizon),
      // A campaign in progress the caller runs, or with entries the caller still has to decide: its progress in the title.
      part(
        'access_review',
        accessReviews,
        sql`'Access review: ' || ${accessReviews.name} || ' (' || (select count(*) from ${accessReviewEntries} where ${accessReviewEntries.access_review_id} = ${accessReviews.id} and ${accessReviewEntries.decision} is not null) || '/' || (select count(*) from ${accessReviewEntries} where ${accessReviewEntries.access_review_id} = ${accessReviews.id}) || ' decided)'`,
        accessReviews.due_on,
        accessReviews.status,
        sql`case when ${owned(accessReviews.owner_id)} then 'OWNED' else 'ASSIGNED' end`,
        and(
          inOrgs(accessReviews.organization_id),
          eq(accessReviews.status, 'IN_PROGRESS'),
          or(
            owned(accessReviews.owner_id),
            sql`exists (select 1 from ${accessReviewEntries} where ${accessReviewEntries.access_review_id} = ${accessReviews.id} and ${inArray(accessReviewEntries.reviewer_id, personIds)} and ${accessReviewEntries.decision} is null)`,
          ),
        ),
      ),
      // An ACCEPTED risk whose acceptance runs out within the window, has run out, or was never recorded.
      part(
        'risk',
        risks,
        sql`'Risk acceptance runs out: ' || ${risks.name}`,
        riskAcceptanceDue,
        risks.status,
        sql`'ACCEPTANCE'`,
        and(owned(risks.owner_id), eq(risks.status, 'ACCEPTED'), sql`${riskAcceptanceDue} <= ${horizon}`),
      ),
      // A measure tested periodically whose next control test is due within the window (or never tested).
      part(
        'measure',
        measures,
        sql`'Control test due: ' || ${measures.name}`,
        measures.next_test_on,
        measures.state,
        sql`'TEST'`,
        and(
          owned(measures.owner_id),
          sql`${measures.next_test_on} <= ${horizon} and ${measures.state} <> 'NOT_APPLICABLE'`,
        ),
      ),
      // A vendor the caller owns (business or security owner) whose contract renews within the window, or passed it.
      part(
        'vendor',
        vendors,
        sql`'Contract renewal: ' || ${vendors.name}`,
        vendors.renewal_on,
        vendors.status,
        sql`'RENEWAL'`,
        and(
          inOrgs(vendors.organization_id),
          sql`${vendors.renewal_on} <= ${horizon}`,
          notInArray(vendors.status, [...VENDOR_ENDED]),
          or(owned(vendors.business_owner_id), owned(vendors.security_owner_id)),
        ),
      ),
      // A vendor the caller owns whose assessment runs out within the window (or never assessed: due since added).
      part(
        'vendor',
        vendors,
        sql`'Vendor assessment due: ' || ${vendors.name}`,
        VENDOR_ASSESSMENT_DUE,
        vendors.status,
        sql`'ASSESSMENT'`,
        and(
          inOrgs(vendors.organization_id),
          sql`${VENDOR_ASSESSMENT_DUE} <= ${horizon}`,
          notInArray(vendors.status, [...VENDOR_ENDED]),
          or(owned(vendors.business_owner_id), owned(vendors.security_owner_id)),
        ),
      ),
      // A management review the caller chairs, still PLANNED, to be held within the window (or its day passed).
      part(
        'management_review',
        managementReviews,
        sql`'Chair management review: ' || ${managementReviews.title}`,
        managementReviews.held_on,
        managementReviews.status,
        sql`'CHAIR'`,
        and(
          inOrgs(managementReviews.organization_id),
          eq(managementReviews.status, 'PLANNED'),
          sql`${managementReviews.held_on} <= ${horizon}`,
          owned(managementReviews.chair_id),
        ),
      ),
      part(
        'continual_improvement',
        continualImprovements,
        continualImprovements.reference_id,
        continualImprovements.target_date,
        continualImprovements.status,
        owner,
        and(owned(continualImprovements.owner_id), sql`${continualImprovements.status} <> 'CLOSED'`),
      ),
    );
    // Reviews due of the records the caller owns, in every register with review cycles and owners.
    for (const [kind, cycle] of Object.entries(REVIEW_CYCLES) as [string, ReviewCycle][]) {
      if (cycle.owners.length === 0) continue;
      parts.push(
        part(
          kind,
          cycle.table,
          cycle.title,
          cycle.next,
          cycle.retired?.column ?? null,
          review,
          and(or(...cycle.owners.map(owned)), reviewDueBefore(cycle, horizon, true)),
        ),
      );
    }
  }
  return sql.join(parts, sql` union all `);
}

/** The caller's people: the records with the caller's email in the organizations searched. */
async function peopleOfCaller(ctx: ToolContext, organizationIds: string[]): Promise<string[]> {
  const [user] = await ctx.db
    .select({ email: users.email })
    .from(users)
    .where(eq(users.id, ctx.principal.userId))
    .limit(1);
  if (!user || organizationIds.length === 0) return [];
  const rows = await ctx.db
    .select({ id: people.id })
    .from(people)
    .where(
      and(
        inArray(people.organization_id, organizationIds),
        sql`lower(${people.email}) = lower(${user.email})`,
      ),
    );
  return rows.map((row) => row.id);
}

/** The time zones of these organizations (their settings), read only when a deadline is on the page. */
async function timeZonesOf(ctx: ToolContext, organizationIds: string[]): Promise<Map<string, string>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: organizations.id, settings: organizations.settings })
    .from(organizations)
    .where(inArray(organizations.id, [...new Set(organizationIds)]));
  return new Map(rows.map((row) => [row.id, settingsFrom(row.settings).time_zone]));
}

const itemSchema = z
  .object({
    kind: z.string().describe('Register, e.g. task, risk.'),
    id: z.string().describe('Record id.'),
    organization_id: z.string().describe('`org_...`'),
    title: z.string().describe('Name or title.'),
    reason: z
      .enum(MY_WORK_REASONS)
      .describe(
        'ASSIGNED to you, REVIEW due, OWNED by you and open, a DEADLINE of an incident you manage, the ACCEPTANCE of a risk you own running out, a control TEST of your measure due, a document version to ACKNOWLEDGE, the RENEWAL or ASSESSMENT of your vendor, a vendor QUESTIONNAIRE you sent unanswered, a management review you CHAIR.',
      ),
    due_on: z.string().nullable().describe('Due or next review date.'),
    due_at: z.string().nullable().describe('For a DEADLINE: the time it is due (ISO); relay hours_left.'),
    hours_left: z
      .number()
      .int()
      .nullable()
      .describe('For a DEADLINE: whole hours left (negative once missed).'),
    due_local: z.string().nullable().describe("For a DEADLINE: due_at in the organization's time zone."),
    status: z.string().nullable().describe('Status or state.'),
    overdue: z.boolean().describe('due_on is before today.'),
    due_soon: z.boolean().describe('Due from today to within_days.'),
  })
  .describe('An item of your work.');

/** The caller's work, one page: what the tool and the My work page show. */
export async function myWorkPage(
  ctx: ToolContext,
  input: { organization_id?: string; within_days?: number; size?: number; cursor?: string },
): Promise<{ items: MyWorkItem[]; next_cursor: string | null; total_count: number; today: string }> {
  if (input.organization_id) requireOrganization(ctx, input.organization_id, 'read');
  const organizationIds = input.organization_id ? [input.organization_id] : reachableOrganizationIds(ctx);
  const today = todayOf(ctx);
  const withinDays = input.within_days ?? DEFAULT_WITHIN_DAYS;
  const size = input.size ?? PAGE_SIZE.default;
  const cursor = input.cursor ? decodeCursor(input.cursor, NAME, 'due_on', 'ASC') : null;
  if (cursor && cursor.v !== null && typeof cursor.v !== 'string')
    throw invalidArguments('The cursor is not valid.', [{ path: 'cursor', message: 'Malformed cursor' }]);
  if (organizationIds.length === 0) return { items: [], next_cursor: null, total_count: 0, today };
  const personIds = await peopleOfCaller(ctx, organizationIds);
  await refreshClocks(ctx.db, organizationIds, ctx.now());
  const union = workUnion(ctx.principal.userId, personIds, organizationIds, addDays(today, withinDays));
  // Due dates first, earliest first, then the undated; ties by id. A cursor is the last item's (due_on, id).
  const after = !cursor
    ? sql`1`
    : cursor.v === null
      ? sql`due_on is null and id > ${cursor.i}`
      : sql`(due_on > ${cursor.v} or (due_on = ${cursor.v} and id > ${cursor.i}) or due_on is null)`;
  const [rows, counted] = await ctx.db.batch([
    ctx.db.all<Omit<MyWorkItem, 'overdue' | 'due_soon' | 'hours_left' | 'due_local'>>(
      sql`select * from (${union}) where ${after} order by due_on is null, due_on, id limit ${size + 1}`,
    ),
    ctx.db.all<{ n: number }>(sql`select count(*) as n from (${union})`),
  ]);
  const zones = await timeZonesOf(
    ctx,
    rows.filter((row) => row.due_at !== null).map((row) => row.organization_id),
  );
  const items = rows.slice(0, size).map((row) => {
    const state = dueState(row.due_on, today, withinDays);
    const hoursLeft =
      row.due_at === null ? null : Math.floor((Date.parse(row.due_at) - ctx.now().getTime()) / 3_600_000);
    const overdue = hoursLeft === null ? state === 'overdue' : hoursLeft < 0;
    return {
      ...row,
      hours_left: hoursLeft,
      due_local:
        row.due_at === null
          ? null
          : localStamp(Date.parse(row.due_at), zones.get(row.organization_id) ?? 'UTC'),
      overdue,
      due_soon: !overdue && (state === 'due_soon' || state === 'overdue'),
    };
  });
  const last = items.at(-1);
  return {
    items,
    next_cursor:
      rows.length > size && last
        ? encodeCursor({ l: NAME, f: 'due_on', d: 'ASC', v: last.due_on, i: last.id })
        : null,
    total_count: Number(counted[0]?.n ?? 0),
    today,
  };
}

export const myWorkTool: Tool = defineTool({
  name: NAME,
  title: 'My work',
  description:
    'Your work by due date: tasks assigned to you, reviews due, open items you own (as the person with your email), notification deadlines of incidents you manage (with hours_left) and vendor questionnaires you sent unanswered, with overdue flags.',
  scope: 'read',
  annotations: READ_ANNOTATIONS,
  toolset: CORE_TOOLSET,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').optional().describe('Only this one; default all yours.'),
    within_days: z
      .number()
      .int()
      .min(0)
      .max(365)
      .optional()
      .describe(`Reviews due within this many days count; default ${DEFAULT_WITHIN_DAYS}.`),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  }),
  output: z.object({
    items: z.array(itemSchema).describe('This page.'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    total_count: z.number().int().describe('Items on all pages.'),
    today: z.string().describe('Your today (your time zone, default UTC).'),
  }),
  run: (ctx, input) => myWorkPage(ctx, input),
});
