// Access reviews: a campaign (the systems in scope, the period reviewed, its reviewers, a due date) of entries, each an
// account's access to one system, decided KEEP, REVOKE, MODIFY or ESCALATE by its reviewer. Completing the campaign
// needs every entry decided, and writes an evidence item for the requirements it covers (A.5.18, CC6.2, CC6.3).
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { roleIn } from '../auth/principal.ts';
import {
  accessReviewAssets,
  accessReviewEntries,
  accessReviewRequirements,
  accessReviewReviewers,
  accessReviews,
  accessReviewVendors,
  evidence,
  evidenceRecords,
} from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { changeAfterWrite } from './changes.ts';
import { descriptionField, linkedFilter, ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText, shortText } from './fields.ts';
import { callerPerson, personRefSchema } from './people-refs.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterKind,
  type RegisterSpec,
  type RelationSpec,
  type Row,
  type RuleContext,
  required,
  requireForward,
  ruleRefusal,
  withDefault,
  writableLinks,
} from './registers/spec.ts';
import { requirementRefSchema, resolveRequirementRef } from './requirement-refs.ts';
import { ACCESS_DECISIONS, ACCESS_REVIEW_STATUSES } from './states.ts';
import type { ToolContext } from './types.ts';

export const ACCESS_REVIEW_TRANSITIONS = {
  DRAFT: ['IN_PROGRESS', 'CANCELLED'],
  IN_PROGRESS: ['COMPLETED', 'CANCELLED', 'DRAFT'],
  COMPLETED: [],
  CANCELLED: ['DRAFT'],
} as const;

const status = caseInsensitiveEnum(ACCESS_REVIEW_STATUSES).describe(
  `Status: ${ACCESS_REVIEW_STATUSES.join(', ')}; COMPLETED needs every entry decided.`,
);
const decision = caseInsensitiveEnum(ACCESS_DECISIONS).describe(
  `Decision: ${ACCESS_DECISIONS.join(', ')}; only the entry's reviewer or an organization OWNER.`,
);

/** A campaign's links to records of one register (table `access_review_<target>s`). */
const reviewLink = (
  field: string,
  table: SQLiteTable & Record<'access_review_id' | 'target_id' | 'organization_id', SQLiteColumn>,
  target: RegisterKind,
  label: string,
  hint: string,
): RelationSpec =>
  writableLinks(
    field,
    table,
    { owner: table.access_review_id, target: table.target_id },
    target,
    label,
    hint,
  );

const LINKS = [
  reviewLink(
    'asset_ids',
    accessReviewAssets,
    'asset',
    'Systems (assets)',
    'The systems in scope, as assets.',
  ),
  reviewLink(
    'vendor_ids',
    accessReviewVendors,
    'vendor',
    'Systems (vendors)',
    'The services in scope, as vendors.',
  ),
  reviewLink('reviewer_ids', accessReviewReviewers, 'person', 'Reviewers', 'The people who decide entries.'),
  reviewLink(
    'requirement_ids',
    accessReviewRequirements,
    'requirement',
    'Requirements',
    'What it is evidence for once completed (e.g. A.5.18, CC6.2).',
  ),
];

/** A campaign's entries, and those not decided yet (written out: a one-table query names its columns bare). */
const totalOf = sql.raw(
  `(select count(*) from access_review_entries e where e.access_review_id = "access_reviews"."id")`,
);
const undecidedOf = sql.raw(
  `(select count(*) from access_review_entries e where e.access_review_id = "access_reviews"."id" and e.decision is null)`,
);

/** Periods and completion: the period runs forward; COMPLETED needs every entry decided (counted by settle). */
function checkCampaign(next: Row, current: Row | null, rules: RuleContext): void {
  requireForward(next, 'period_start', 'period_end', 'Give a period that runs forward.');
  if (next.status === 'COMPLETED' && current?.status !== 'COMPLETED') next.completed_on = rules.today;
  if (!current && next.status === 'COMPLETED')
    throw ruleRefusal('status', 'A new campaign has no decided entries.', 'Add it as DRAFT or IN_PROGRESS.');
}

async function settleCampaign(ctx: ToolContext, next: Row, current: Row | null): Promise<void> {
  if (!current || next.status !== 'COMPLETED' || current.status === 'COMPLETED') return;
  const [row] = await ctx.db
    .select({ open: sql<number>`count(*)` })
    .from(accessReviewEntries)
    .where(
      and(eq(accessReviewEntries.access_review_id, String(current.id)), isNull(accessReviewEntries.decision)),
    );
  const open = Number(row?.open ?? 0);
  if (open > 0)
    throw ruleRefusal(
      'status',
      `${open} ${open === 1 ? 'entry is' : 'entries are'} not decided yet.`,
      'Have the reviewers decide them (listAccessReviewEntries filter.decided false), then complete the campaign.',
    );
}

/** On completion: an evidence item naming the campaign, for each requirement it covers, recorded on the campaign. */
function completeCampaign(
  ctx: ToolContext,
  id: string,
  next: Row,
  current: Row,
  landed: ReturnType<typeof sql>,
) {
  if (next.status !== 'COMPLETED' || current.status === 'COMPLETED') return [];
  const at = ctx.now().toISOString();
  const organizationId = String(next.organization_id);
  const evidenceId = newId('evd');
  const title = `Access review completed: ${String(next.name)}`.slice(0, 200);
  const description = `Access review campaign ${id} completed on ${String(next.completed_on)}; every entry decided by its reviewer.`;
  return [
    ctx.db
      .insert(evidence)
      .select(
        sql`select ${evidenceId}, ${organizationId}, ${title}, ${description}, 'LINK', null, null, null, null, null, null, ${String(next.completed_on)}, null, null, null, ${at}, ${at} where ${landed}`,
      ),
    ctx.db
      .insert(evidenceRecords)
      .select(
        sql`select ${evidenceId}, ${accessReviewRequirements.target_id}, ${organizationId}, ${at} from ${accessReviewRequirements} where ${accessReviewRequirements.access_review_id} = ${id} and exists (select 1 from ${evidence} where ${evidence.id} = ${evidenceId})`,
      ),
    ctx.db
      .update(accessReviews)
      .set({ evidence_id: evidenceId })
      .where(
        and(
          eq(accessReviews.id, id),
          sql`exists (select 1 from ${evidence} where ${evidence.id} = ${evidenceId})`,
        ),
      ),
    changeAfterWrite(ctx, {
      tool: 'updateAccessReview',
      kind: 'evidence',
      recordId: evidenceId,
      organizationId,
      action: 'add',
      before: null,
      after: { title, description, kind: 'LINK', collected_on: next.completed_on },
      at,
    }),
  ];
}

export const accessReviewSpec: RegisterSpec = {
  kind: 'access_review',
  prefix: 'arv',
  label: 'access review',
  labelPlural: 'access reviews',
  noun: 'AccessReview',
  nounPlural: 'AccessReviews',
  key: 'access_review',
  listKey: 'access_reviews',
  toolset: 'access_reviews',
  table: accessReviews,
  nameFields: ['name'],
  about:
    'An access review is a campaign checking who has access to which systems, over a period, by a due date.',
  fields: {
    name: required(shortText().describe('Name, e.g. "Q4 2026 production access review".')),
    description: descriptionField('access review'),
    status: withDefault(status, 'DRAFT', { label: 'Status' }),
    period_start: optional(dateSchema.describe('First day of the period reviewed.'), undefined, {
      label: 'Period from',
    }),
    period_end: optional(dateSchema.describe('Last day of the period reviewed.'), undefined, {
      label: 'Period to',
    }),
    due_on: optional(dateSchema.describe('Day every entry should be decided by.'), undefined, {
      label: 'Due on',
    }),
    owner_id: ownerField('Owner', 'The person running the campaign.'),
    completed_on: derived(dateSchema.nullable().describe('Day it was completed (derived).')),
    evidence_id: {
      ...derived(z.string().nullable().describe('The evidence item written on completion (derived).'), {
        label: 'Evidence',
      }),
      ref: 'evidence',
    },
    entries_total: derived(z.number().int().describe('Number of entries (derived).')),
    entries_undecided: derived(z.number().int().describe('Entries not decided yet (derived).')),
  },
  relations: LINKS,
  computed: { entries_total: totalOf, entries_undecided: undecidedOf },
  addArguments: {
    shape: {
      requirements: z
        .array(requirementRefSchema)
        .max(100)
        .optional()
        .describe('Requirements covered, by {framework, reference} (e.g. A.5.18), added to requirement_ids.'),
    },
    onUpdate: true,
    async take(ctx, organizationId, values) {
      const refs = values.requirements as z.output<typeof requirementRefSchema>[] | undefined;
      delete values.requirements;
      if (!refs?.length) return;
      const ids = new Set(Array.isArray(values.requirement_ids) ? (values.requirement_ids as string[]) : []);
      for (const ref of refs) ids.add((await resolveRequirementRef(ctx, ref, organizationId, 'read')).id);
      values.requirement_ids = [...ids];
    },
  },
  search: [accessReviews.name, accessReviews.description],
  filters: {
    status: enumFilter(status, accessReviews.status, 'Any of these statuses.'),
    owner_id: ownerFilter(accessReviews.owner_id),
    reviewer_id: linkedFilter(
      {
        ownerId: accessReviews.id,
        owner: accessReviewReviewers.access_review_id,
        target: accessReviewReviewers.target_id,
      },
      { prefix: 'per', what: 'Person' },
      'Only campaigns this person reviews (`per_...`).',
    ),
    due_before: filter(
      dateSchema.describe('Only those due before this day.'),
      (value) => sql`${accessReviews.due_on} < ${value}`,
    ),
  },
  orderFields: {
    name: { column: accessReviews.name },
    due_on: { column: accessReviews.due_on },
  },
  transitions: { status: ACCESS_REVIEW_TRANSITIONS },
  prepare: checkCampaign,
  settle: settleCampaign,
  afterUpdate: (ctx, id, next, current, landed) => completeCampaign(ctx, id, next, current, landed),
  hints: {
    list: 'Which are still in progress: filter.status IN_PROGRESS; of one reviewer: filter.reviewer_id.',
    add: 'Start a campaign: the systems in scope (asset_ids, vendor_ids), period, reviewers (reviewer_ids), due_on, requirements covered.',
    get: 'Show how far it has got: how many entries (entries_total), how many not yet decided (entries_undecided), and its evidence once completed.',
    update:
      'Complete it: status COMPLETED once every entry is decided (refused naming how many are not), which writes its evidence; or IN_PROGRESS, CANCELLED.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Q4 2026 production access review',
    period_start: '2026-07-01',
    period_end: '2026-09-30',
    due_on: '2026-12-15',
  },
};

const DECISION_FIELDS = ['decision', 'decision_comment'] as const;

/** Decisions: recorded with who and when; their campaign must be open. */
function checkEntry(next: Row, current: Row | null, rules: RuleContext): void {
  if (!next.account && !next.person_id)
    throw ruleRefusal(
      'account',
      'An entry names an account or a person.',
      'Give account, person_id or both.',
    );
  const deciding = DECISION_FIELDS.some((field) => field in rules.given);
  // An import checks no caller per row: decisions go through updateAccessReviewEntry, which does.
  if (deciding && rules.tool === 'importRecords')
    throw ruleRefusal(
      'decision',
      'An import does not decide entries.',
      'Leave decision and decision_comment out; reviewers decide with updateAccessReviewEntry.',
    );
  if (!current && deciding && next.decision)
    throw ruleRefusal(
      'decision',
      'A new entry is not decided yet.',
      'Add it without decision; its reviewer decides it with updateAccessReviewEntry.',
    );
  if (current && 'decision' in rules.given && next.decision === null && current.decision)
    throw ruleRefusal(
      'decision',
      'A decision is not withdrawn.',
      'Give another decision with a comment instead.',
    );
}

async function settleEntry(
  ctx: ToolContext,
  next: Row,
  current: Row | null,
  rules?: RuleContext,
): Promise<void> {
  const [campaign] = await ctx.db
    .select({ status: accessReviews.status })
    .from(accessReviews)
    .where(eq(accessReviews.id, String(next.access_review_id)))
    .limit(1);
  if (!campaign) return; // checked as a reference of this organization already
  if (campaign.status === 'COMPLETED' || campaign.status === 'CANCELLED')
    throw ruleRefusal(
      'access_review_id',
      `The campaign is ${campaign.status}: its entries no longer change.`,
      'Start a new campaign for another review.',
    );
  const given = rules?.given ?? {};
  if (!current || !DECISION_FIELDS.some((field) => field in given)) return;
  const organizationId = String(next.organization_id);
  const caller = await callerPerson(ctx, organizationId);
  const isReviewer = caller !== null && caller === next.reviewer_id;
  if (!isReviewer && roleIn(ctx.principal, organizationId) !== 'OWNER')
    throw new AppError(
      'forbidden',
      "Only the entry's reviewer (the person whose email is your account's confirmed one) or an OWNER of the organization decides it.",
    );
  next.decided_at = ctx.now().toISOString();
  next.decided_by_id = caller;
}

export const accessReviewEntrySpec: RegisterSpec = {
  kind: 'access_review_entry',
  prefix: 'are',
  label: 'access review entry',
  labelPlural: 'access review entries',
  noun: 'AccessReviewEntry',
  nounPlural: 'AccessReviewEntries',
  key: 'access_review_entry',
  listKey: 'access_review_entries',
  toolset: 'access_reviews',
  table: accessReviewEntries,
  nameFields: ['account', 'system'],
  about: "An access review entry is one account's access level on one system, under a campaign.",
  fields: {
    access_review_id: {
      ...required(
        idOf('arv', 'Access review').describe('The campaign (`arv_...`); cannot change later.'),
        'access_review',
        {
          label: 'Campaign',
          hint: 'The access review it belongs to.',
        },
      ),
      fixed: true,
      cascade: true,
    },
    account: optional(
      shortText(200).describe('Account identifier in the system, e.g. "jdoe@corp.example".'),
      undefined,
      {
        label: 'Account',
      },
    ),
    person_id: optional(
      idOf('per', 'Person').describe('The person holding the account (`per_...`).'),
      'person',
      {
        label: 'Person',
        hint: 'Whose account it is, when known.',
      },
    ),
    system: required(shortText(200).describe('The system, e.g. "AWS production", "GitHub".'), undefined, {
      label: 'System',
    }),
    asset_id: optional(idOf('ast', 'Asset').describe('The system as an asset (`ast_...`).'), 'asset', {
      label: 'Asset',
    }),
    vendor_id: optional(idOf('ven', 'Vendor').describe('The system as a vendor (`ven_...`).'), 'vendor', {
      label: 'Vendor',
    }),
    access_level: optional(
      shortText(200).describe('Access level or role, e.g. "admin", "read-only".'),
      undefined,
      {
        label: 'Access level',
      },
    ),
    reviewer_id: optional(personRefSchema('Reviewer'), 'person', {
      label: 'Reviewer',
      hint: 'The person who decides this entry.',
    }),
    decision: optional(decision, undefined, { label: 'Decision' }),
    decision_comment: optional(longText(2000).describe("Why: the reviewer's comment."), undefined, {
      label: 'Comment',
    }),
    decided_at: derived(z.string().nullable().describe('When it was decided (derived).')),
    decided_by_id: {
      ...derived(
        z
          .string()
          .nullable()
          .describe('Who decided (`per_...`, derived; null for an OWNER without a person).'),
        {
          label: 'Decided by',
        },
      ),
      ref: 'person',
    },
  },
  search: [accessReviewEntries.account, accessReviewEntries.system, accessReviewEntries.access_level],
  filters: {
    access_review_id: filter(idOf('arv', 'Access review').describe('Only those of this campaign.'), (value) =>
      eq(accessReviewEntries.access_review_id, value),
    ),
    reviewer_id: ownerFilter(accessReviewEntries.reviewer_id, 'Reviewer'),
    decided: filter(
      z.boolean().describe('false: only entries still to decide; true: decided ones.'),
      (value) => (value ? isNotNull(accessReviewEntries.decision) : isNull(accessReviewEntries.decision)),
    ),
    decision: enumFilter(decision, accessReviewEntries.decision, 'Any of these decisions.'),
  },
  orderFields: { system: { column: accessReviewEntries.system } },
  prepare: checkEntry,
  settle: settleEntry,
  hints: {
    list: 'Which entries a reviewer still has to decide: filter.reviewer_id and filter.decided false.',
    add: "Add an account's access on a system to a campaign (account or person_id, system, access_level, reviewer_id); many at once: importRecords.",
    get: 'Open one entry by id: the account, system, access level, decision, comment, who decided and when.',
    update:
      'Decide it (keep or revoke the access): decision KEEP, REVOKE, MODIFY or ESCALATE with decision_comment; only its reviewer or an OWNER.',
  },
  example: {
    organization_id: 'org_...',
    access_review_id: 'arv_...',
    account: 'jdoe@corp.example',
    system: 'AWS production',
    access_level: 'AdministratorAccess',
    reviewer_id: 'per_...',
  },
};
