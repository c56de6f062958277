// Management reviews (ISO 27001 9.3): top management looks back on a period of the ISMS, with the inputs 9.3.2 names
// (written here in the project's words), and records its outputs, decisions and the tasks it raised.
// gatherManagementReviewInputs counts what the service's own records say about the period, with ids, and drafts the
// input texts from them for a person to edit.
import {
  and,
  asc,
  count,
  desc,
  eq,
  gte,
  inArray,
  like,
  lte,
  ne,
  notInArray,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import {
  audits,
  continualImprovements,
  controlTests,
  evidence,
  incidents,
  managementReviewAttendees,
  managementReviews,
  managementReviewTasks,
  nonconformities,
  risks,
  taskRecords,
  tasks,
} from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { ID_PREFIXES } from '../ids.ts';
import { requireOrganization } from './access.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText, shortText } from './fields.ts';
import { personRefSchema } from './people-refs.ts';
import {
  enumFilter,
  filter,
  optional,
  type RegisterKind,
  type RegisterSpec,
  type RelationSpec,
  type Row,
  required,
  requireForward,
  withDefault,
  writableLinks,
} from './registers/spec.ts';
import { MANAGEMENT_REVIEW_STATUSES } from './states.ts';
import { TASK_ENDED } from './tasks.ts';
import { defineTool, READ_ANNOTATIONS, type Tool, type ToolContext } from './types.ts';

export const MANAGEMENT_REVIEW_TRANSITIONS = {
  PLANNED: ['HELD'],
  HELD: ['CLOSED', 'PLANNED'],
  CLOSED: ['HELD'],
} as const;

const status = caseInsensitiveEnum(MANAGEMENT_REVIEW_STATUSES).describe(
  `Status: ${MANAGEMENT_REVIEW_STATUSES.join(', ')} (PLANNED, then HELD once it met, CLOSED when its minutes are final).`,
);

/** A review's links to records of one register. */
const reviewLink = (
  field: string,
  table: SQLiteTable & Record<'management_review_id' | 'target_id' | 'organization_id', SQLiteColumn>,
  target: RegisterKind,
  label: string,
  hint: string,
): RelationSpec =>
  writableLinks(
    field,
    table,
    { owner: table.management_review_id, target: table.target_id },
    target,
    label,
    hint,
  );

/** The inputs a review considers (ISO 27001:2022 9.3.2), as free text: field, label, what to write. */
export const REVIEW_INPUTS = [
  ['earlier_actions', 'Actions from earlier reviews', 'Where the actions decided at earlier reviews stand.'],
  ['issue_changes', 'Changes in issues', 'What changed in the external and internal issues of the ISMS.'],
  [
    'party_changes',
    'Changes in interested parties',
    'What changed in what interested parties need and expect of the ISMS.',
  ],
  [
    'nonconformities_summary',
    'Nonconformities and corrective actions',
    'Nonconformities found and closed, corrective actions still open.',
  ],
  [
    'monitoring_summary',
    'Monitoring and measurement',
    'What monitoring and measurement showed (control tests, ...).',
  ],
  ['audit_summary', 'Audit results', 'Audits held in the period and what they found.'],
  ['objectives_summary', 'Objectives', 'How far the information security objectives were met.'],
  [
    'party_feedback',
    'Feedback from interested parties',
    'Feedback from customers, staff, suppliers, regulators.',
  ],
  [
    'risk_summary',
    'Risk assessment and treatment',
    'Results of the risk assessment and where the risk treatment plan stands.',
  ],
  [
    'improvement_opportunities',
    'Opportunities for improvement',
    'Opportunities for continual improvement put to the review.',
  ],
] as const;

type InputField = (typeof REVIEW_INPUTS)[number][0];

const inputFields = Object.fromEntries(
  REVIEW_INPUTS.map(([field, label, hint]) => [
    field,
    optional(longText(10_000).describe(`Input: ${hint}`), undefined, { label, hint }),
  ]),
);

/** The period runs forward; a review is held on or after the end of the period it looks back on. */
function checkReview(next: Row): void {
  requireForward(next, 'period_from', 'period_to', 'Give a period that runs forward.');
}

export const managementReviewSpec: RegisterSpec = {
  kind: 'management_review',
  prefix: 'mrv',
  label: 'management review',
  labelPlural: 'management reviews',
  noun: 'ManagementReview',
  nounPlural: 'ManagementReviews',
  key: 'management_review',
  listKey: 'management_reviews',
  toolset: 'management_reviews',
  table: managementReviews,
  nameFields: ['title'],
  about: "A management review (ISO 27001 9.3) is top management's look back on a period of the ISMS.",
  fields: {
    title: required(shortText().describe('Title, e.g. "Management review 2026".')),
    held_on: required(dateSchema.describe('Day it is (or was) held.'), undefined, { label: 'Held on' }),
    status: withDefault(status, 'PLANNED', { label: 'Status' }),
    period_from: optional(dateSchema.describe('First day of the period it looks back on.'), undefined, {
      label: 'Period from',
    }),
    period_to: optional(dateSchema.describe('Last day of the period it looks back on.'), undefined, {
      label: 'Period to',
    }),
    chair_id: optional(personRefSchema('Chair'), 'person', {
      label: 'Chair',
      hint: 'The person chairing it.',
    }),
    ...inputFields,
    outputs: optional(
      longText(10_000).describe('Outputs: conclusions on improvement and on changes the ISMS needs.'),
      undefined,
      { label: 'Outputs', hint: 'Conclusions: improvements and changes needed.' },
    ),
    decisions: optional(longText(10_000).describe('Decisions taken, e.g. resources granted.'), undefined, {
      label: 'Decisions',
    }),
  },
  relations: [
    reviewLink('attendee_ids', managementReviewAttendees, 'person', 'Attendees', 'The people who took part.'),
    reviewLink(
      'task_ids',
      managementReviewTasks,
      'task',
      'Tasks raised',
      'The tasks it raised (addTask first).',
    ),
  ],
  search: [managementReviews.title, managementReviews.decisions],
  filters: {
    status: enumFilter(status, managementReviews.status, 'Any of these statuses.'),
    held_after: filter(dateSchema.describe('Only those held on or after this day.'), (value) =>
      gte(managementReviews.held_on, value),
    ),
  },
  orderFields: { held_on: { column: managementReviews.held_on }, title: { column: managementReviews.title } },
  transitions: { status: MANAGEMENT_REVIEW_TRANSITIONS },
  prepare: checkReview,
  hints: {
    list: 'Which were held so far, newest first: order held_on DESC; planned ones: filter.status PLANNED.',
    add: 'Plan one for a date: title, the period it looks back on; then gatherManagementReviewInputs for its figures.',
    get: "Show one review's minutes and decisions (e.g. last year's): attendees, inputs, outputs, tasks raised.",
    update:
      'Record what the meeting did: status HELD, attendees (attendee_ids), inputs, outputs, decisions; tasks raised: task_ids.',
  },
  example: {
    organization_id: 'org_...',
    title: 'Management review 2026',
    held_on: '2026-12-10',
    period_from: '2026-01-01',
    period_to: '2026-11-30',
  },
};

// ---- gatherManagementReviewInputs ----------------------------------------------------------------------------------

/** Ids named in each figure, at most (the count is always whole). */
const MAX_IDS = 50;

const figure = (what: string) =>
  z
    .object({
      count: z.number().int().describe(`How many: ${what}.`),
      ids: z.array(z.string()).describe(`Their ids, the first ${MAX_IDS} in id order.`),
    })
    .describe(what);

type Figure = { count: number; ids: string[] };

async function figureOf(ctx: ToolContext, table: SQLiteTable, id: SQLiteColumn, where: SQL): Promise<Figure> {
  const [total] = await ctx.db.select({ n: count() }).from(table).where(where);
  const rows = await ctx.db.select({ id }).from(table).where(where).orderBy(asc(id)).limit(MAX_IDS);
  return { count: Number(total?.n ?? 0), ids: rows.map((row) => String(row.id)) };
}

/** The day of an ISO time or date column: its first ten characters. */
const dayOf = (column: SQLiteColumn) => sql`substr(${column}, 1, 10)`;
const within = (day: SQL | SQLiteColumn, from: string, to: string) =>
  sql`${day} >= ${from} and ${day} <= ${to}`;

async function countsBy(
  ctx: ToolContext,
  table: SQLiteTable,
  key: SQL | SQLiteColumn,
  where: SQL,
): Promise<Record<string, number>> {
  const rows = await ctx.db
    .select({ key: sql<string | null>`${key}`, n: count() })
    .from(table)
    .where(where)
    .groupBy(key);
  return Object.fromEntries(rows.map((row) => [row.key ?? 'NONE', Number(row.n)]));
}

const byValue = (what: string) =>
  z.record(z.string(), z.number().int()).describe(`Count per ${what} (NONE when not set).`);

const gatherOutput = z.object({
  organization_id: z.string().describe('The organization.'),
  period: z.object({ from: z.string(), to: z.string() }).describe('The period gathered, days inclusive.'),
  previous_review_id: z
    .string()
    .nullable()
    .describe('The latest earlier review HELD or CLOSED (`mrv_...`), whose tasks are checked; null if none.'),
  nonconformities_opened: figure('nonconformities identified in the period'),
  nonconformities_closed: figure('nonconformities CLOSED, last changed in the period'),
  nonconformities_open: figure('nonconformities not CLOSED today'),
  corrective_actions_open: figure('tasks linked to a nonconformity, not DONE or CANCELLED'),
  audits_held: figure('audits whose report starts (valid_from) in the period'),
  audits_by_state: byValue('audit state, of the audits held'),
  risks_open: figure('risks not CLOSED'),
  risks_by_level: byValue('residual level (else inherent level) of the risks not CLOSED'),
  risks_by_status: byValue('status of the risks not CLOSED'),
  risk_treatment_tasks_open: figure('tasks linked to a risk, not DONE or CANCELLED'),
  improvements_raised: figure('continual improvements recorded in the period'),
  improvements_open: figure('continual improvements not CLOSED'),
  incidents: figure('incidents that occurred (else were detected) in the period'),
  incidents_by_severity: byValue('severity, of the incidents in the period'),
  evidence_expired: figure('evidence whose valid_until falls in the period'),
  control_test_exceptions: figure('control tests in the period with result EXCEPTION or NOT_EFFECTIVE'),
  previous_review_tasks_open: figure("the previous review's tasks, not DONE or CANCELLED"),
  draft_inputs: z
    .record(z.string(), z.string())
    .describe(
      'Input texts drafted from the figures, by field name of the review (nonconformities_summary, ...): pass them to updateManagementReview to fill its inputs.',
    ),
});

type Gathered = z.input<typeof gatherOutput>;

const tally = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ') || 'none';
const idsText = (f: Figure) =>
  f.count ? ` (${f.ids.slice(0, 10).join(', ')}${f.count > 10 ? ', ...' : ''})` : '';

function draftInputs(g: Omit<Gathered, 'draft_inputs'>): Record<InputField, string> {
  const span = `${g.period.from} to ${g.period.to}`;
  return {
    earlier_actions: g.previous_review_id
      ? `Tasks of review ${g.previous_review_id} still open: ${g.previous_review_tasks_open.count}${idsText(g.previous_review_tasks_open)}.`
      : 'No earlier review is recorded.',
    nonconformities_summary: `From ${span}: ${g.nonconformities_opened.count} nonconformities identified${idsText(g.nonconformities_opened)}, ${g.nonconformities_closed.count} closed${idsText(g.nonconformities_closed)}; ${g.nonconformities_open.count} open today; ${g.corrective_actions_open.count} corrective-action tasks open${idsText(g.corrective_actions_open)}.`,
    monitoring_summary: `Control tests from ${span} with an exception or not effective: ${g.control_test_exceptions.count}${idsText(g.control_test_exceptions)}. Evidence that expired: ${g.evidence_expired.count}${idsText(g.evidence_expired)}. Incidents: ${g.incidents.count} (${tally(g.incidents_by_severity)}).`,
    audit_summary: `Audits from ${span}: ${g.audits_held.count}${idsText(g.audits_held)}; by state: ${tally(g.audits_by_state)}.`,
    risk_summary: `Risks not closed: ${g.risks_open.count}; by level: ${tally(g.risks_by_level)}; by status: ${tally(g.risks_by_status)}. Treatment tasks open: ${g.risk_treatment_tasks_open.count}${idsText(g.risk_treatment_tasks_open)}.`,
    improvement_opportunities: `Continual improvements recorded from ${span}: ${g.improvements_raised.count}${idsText(g.improvements_raised)}; open: ${g.improvements_open.count}.`,
  } as Record<InputField, string>;
}

/** Tasks linked to a record whose id starts with `prefix`, or to the given review, and not ended. */
function openTasks(organizationId: string, linked: SQL): SQL {
  return and(
    eq(tasks.organization_id, organizationId),
    notInArray(tasks.status, [...TASK_ENDED]),
    sql`exists (${linked})`,
  ) as SQL;
}

const linkedTo = (prefix: string) =>
  sql`select 1 from ${taskRecords} where ${taskRecords.task_id} = ${tasks.id} and ${like(taskRecords.record_id, `${prefix}\\_%`)} escape '\\'`;

export const gatherManagementReviewInputsTool: Tool = defineTool({
  name: 'gatherManagementReviewInputs',
  title: 'Gather management review inputs',
  description:
    "Figures for a management review from the organization's records over a period: nonconformities, corrective actions, audits, risks, improvements, incidents, expired evidence, control-test exceptions, the last review's open tasks; counts and ids, drafted input texts.",
  scope: 'read',
  toolset: 'management_reviews',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').describe('The organization (`org_...`).'),
    period_from: dateSchema
      .optional()
      .describe("First day of the period (default: the review's period_from)."),
    period_to: dateSchema.optional().describe("Last day of the period (default: the review's period_to)."),
    management_review_id: idOf('mrv', 'Management review')
      .optional()
      .describe(
        'The review the figures are for (`mrv_...`): its period is the default, earlier reviews come before it.',
      ),
  }),
  output: gatherOutput,
  example: { organization_id: 'org_...', period_from: '2026-01-01', period_to: '2026-11-30' },
  async run(ctx, input) {
    const organizationId = input.organization_id;
    requireOrganization(ctx, organizationId, 'read');
    let review:
      | { id: string; held_on: string; period_from: string | null; period_to: string | null }
      | undefined;
    if (input.management_review_id) {
      [review] = await ctx.db
        .select({
          id: managementReviews.id,
          held_on: managementReviews.held_on,
          period_from: managementReviews.period_from,
          period_to: managementReviews.period_to,
        })
        .from(managementReviews)
        .where(
          and(
            eq(managementReviews.id, input.management_review_id),
            eq(managementReviews.organization_id, organizationId),
          ),
        )
        .limit(1);
      if (!review) throw notFound('Management review');
    }
    const from = input.period_from ?? review?.period_from;
    const to = input.period_to ?? review?.period_to;
    if (!from || !to)
      throw new AppError(
        'invalid_arguments',
        'Give period_from and period_to, or a review that has its period.',
        [{ path: from ? 'period_to' : 'period_from', message: 'Required' }],
      );
    if (from > to)
      throw new AppError('invalid_arguments', `period_to ${to} is before period_from ${from}.`, [
        { path: 'period_to', message: 'Before period_from' },
      ]);

    const org = <T extends SQLiteColumn>(column: T) => eq(column, organizationId);
    const [previous] = await ctx.db
      .select({ id: managementReviews.id })
      .from(managementReviews)
      .where(
        and(
          org(managementReviews.organization_id),
          inArray(managementReviews.status, ['HELD', 'CLOSED']),
          review
            ? and(
                ne(managementReviews.id, review.id),
                sql`(${managementReviews.held_on} < ${review.held_on} or (${managementReviews.held_on} = ${review.held_on} and ${managementReviews.id} < ${review.id}))`,
              )
            : lte(managementReviews.held_on, to),
        ),
      )
      .orderBy(desc(managementReviews.held_on), desc(managementReviews.id))
      .limit(1);
    const previousId = previous?.id ?? null;

    const ncOpened = and(
      org(nonconformities.organization_id),
      within(
        sql`coalesce(${nonconformities.date_identified}, ${dayOf(nonconformities.created_at)})`,
        from,
        to,
      ),
    ) as SQL;
    const auditsHeld = and(org(audits.organization_id), within(audits.valid_from, from, to)) as SQL;
    const risksOpen = and(org(risks.organization_id), ne(risks.status, 'CLOSED')) as SQL;
    const incidentsIn = and(
      org(incidents.organization_id),
      within(sql`substr(coalesce(${incidents.occurred_at}, ${incidents.detected_at}), 1, 10)`, from, to),
    ) as SQL;

    const gathered = {
      organization_id: organizationId,
      period: { from, to },
      previous_review_id: previousId,
      nonconformities_opened: await figureOf(ctx, nonconformities, nonconformities.id, ncOpened),
      nonconformities_closed: await figureOf(
        ctx,
        nonconformities,
        nonconformities.id,
        and(
          org(nonconformities.organization_id),
          eq(nonconformities.status, 'CLOSED'),
          within(dayOf(nonconformities.updated_at), from, to),
        ) as SQL,
      ),
      nonconformities_open: await figureOf(
        ctx,
        nonconformities,
        nonconformities.id,
        and(org(nonconformities.organization_id), ne(nonconformities.status, 'CLOSED')) as SQL,
      ),
      corrective_actions_open: await figureOf(
        ctx,
        tasks,
        tasks.id,
        openTasks(organizationId, linkedTo(ID_PREFIXES.nonconformity)),
      ),
      audits_held: await figureOf(ctx, audits, audits.id, auditsHeld),
      audits_by_state: await countsBy(ctx, audits, audits.state, auditsHeld),
      risks_open: await figureOf(ctx, risks, risks.id, risksOpen),
      risks_by_level: await countsBy(
        ctx,
        risks,
        sql`coalesce(${risks.residual_level}, ${risks.inherent_level})`,
        risksOpen,
      ),
      risks_by_status: await countsBy(ctx, risks, risks.status, risksOpen),
      risk_treatment_tasks_open: await figureOf(
        ctx,
        tasks,
        tasks.id,
        openTasks(organizationId, linkedTo(ID_PREFIXES.risk)),
      ),
      improvements_raised: await figureOf(
        ctx,
        continualImprovements,
        continualImprovements.id,
        and(
          org(continualImprovements.organization_id),
          within(dayOf(continualImprovements.created_at), from, to),
        ) as SQL,
      ),
      improvements_open: await figureOf(
        ctx,
        continualImprovements,
        continualImprovements.id,
        and(org(continualImprovements.organization_id), ne(continualImprovements.status, 'CLOSED')) as SQL,
      ),
      incidents: await figureOf(ctx, incidents, incidents.id, incidentsIn),
      incidents_by_severity: await countsBy(ctx, incidents, incidents.severity, incidentsIn),
      evidence_expired: await figureOf(
        ctx,
        evidence,
        evidence.id,
        and(org(evidence.organization_id), within(evidence.valid_until, from, to)) as SQL,
      ),
      control_test_exceptions: await figureOf(
        ctx,
        controlTests,
        controlTests.id,
        and(
          org(controlTests.organization_id),
          within(controlTests.tested_on, from, to),
          inArray(controlTests.result, ['EXCEPTION', 'NOT_EFFECTIVE']),
        ) as SQL,
      ),
      previous_review_tasks_open: previousId
        ? await figureOf(
            ctx,
            tasks,
            tasks.id,
            openTasks(
              organizationId,
              sql`select 1 from ${managementReviewTasks} where ${managementReviewTasks.target_id} = ${tasks.id} and ${managementReviewTasks.management_review_id} = ${previousId}`,
            ),
          )
        : { count: 0, ids: [] },
    };
    return { ...gathered, draft_inputs: draftInputs(gathered) };
  },
});
