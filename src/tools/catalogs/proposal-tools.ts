// The tools of crosswalk proposals: proposeMappings (again, after more measures are mapped), listMappingProposals,
// and acceptMappingProposals / declineMappingProposals in bulk (by ids, or every pending one of a framework).
import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { alias } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { frameworks, mappingProposals, measures, requirements } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { caseInsensitiveEnum, cursorSchema, idOf, PAGE_SIZE, sizeSchema } from '../fields.ts';
import {
  cappedCount,
  carriedCount,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  itemsWithinBudget,
  pageShortenedSchema,
  TOTAL_COUNT_CAP,
} from '../pagination.ts';
import { requirementLabelSchema } from '../requirement-refs.ts';
import { defineTool, READ_ANNOTATIONS, type Tool, type ToolContext, UPDATE_ANNOTATIONS } from '../types.ts';
import { RELATIONSHIPS } from './builtin.ts';
import { CATALOGS_TOOLSET } from './catalog-tools.ts';
import {
  acceptStatements,
  decideStatement,
  type ProposalRow,
  proposalsToDecide,
  proposeMappings,
} from './proposals.ts';

export const PROPOSAL_STATUSES = ['PROPOSED', 'ACCEPTED', 'REJECTED'] as const;

const organizationInput = () => idOf('org', 'Organization').describe('`org_...` id.');

/** A framework of the organization (checked), for a filter or a selection. */
async function frameworkOf(ctx: ToolContext, organizationId: string, frameworkId: string) {
  const [framework] = await ctx.db
    .select({ id: frameworks.id, name: frameworks.name })
    .from(frameworks)
    .where(and(eq(frameworks.id, frameworkId), eq(frameworks.organization_id, organizationId)));
  if (!framework) throw notFound('Framework');
  return framework;
}

export const proposeMappingsTool: Tool = defineTool({
  name: 'proposeMappings',
  title: 'Propose crosswalk mappings',
  description:
    'Suggest mappings of existing measures to the criteria of another adopted catalogue through the crosswalks: a measure mapped in one is proposed for the paired requirements of the other. Nothing is mapped until accepted (listMappingProposals). Run again after mapping more measures.',
  scope: 'write',
  toolset: CATALOGS_TOOLSET,
  annotations: UPDATE_ANNOTATIONS,
  input: z.strictObject({
    organization_id: organizationInput(),
    framework_id: idOf('fwk', 'Framework')
      .optional()
      .describe('Only proposals into this framework (`fwk_...`); default all adopted ones.'),
    dry_run: z.boolean().default(false).describe('true: count them, write nothing.'),
  }),
  output: z.object({
    created: z.number().int().describe('New proposals.'),
    pending: z.number().int().describe('Proposals waiting for a decision.'),
    dry_run: z.boolean().describe('Nothing was written.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'write');
    if (input.framework_id) await frameworkOf(ctx, input.organization_id, input.framework_id);
    const counts = await proposeMappings(
      ctx,
      input.organization_id,
      input.framework_id ? [input.framework_id] : null,
      { dryRun: input.dry_run, withExtras: true },
    );
    return { ...counts, dry_run: input.dry_run };
  },
});

// ---- listMappingProposals ---------------------------------------------------------------------------------------

const LIST_NAME = 'listMappingProposals';
const sourceRequirements = alias(requirements, 'source_requirement');
const sourceFrameworks = alias(frameworks, 'source_framework');

const frameworkLabel = z
  .object({ id: z.string().describe('`fwk_...`'), name: z.string().describe('Name.') })
  .describe('A framework.');

const proposalSchema = z
  .object({
    id: z.string().describe('`mpp_...`'),
    status: z.enum(PROPOSAL_STATUSES).describe('PROPOSED, ACCEPTED or REJECTED.'),
    relationship: z
      .enum(RELATIONSHIPS)
      .describe('Source to target: equal, superset (source covers more), intersects, subset.'),
    measure: z
      .object({
        id: z.string().describe('`msr_...`'),
        name: z.string().describe('Name.'),
        state: z.string().describe('State.'),
      })
      .describe('The measure to map.'),
    requirement: requirementLabelSchema
      .extend({
        framework: frameworkLabel,
        applicability: z.string().describe('APPLICABLE or EXCLUDED.'),
      })
      .describe('The requirement it would cover.'),
    source: requirementLabelSchema
      .extend({ framework: frameworkLabel })
      .describe('The requirement the measure covers, which the crosswalk pairs with it.'),
    already_linked: z.boolean().describe('The measure is mapped to it already (accepting changes nothing).'),
    note: z.string().nullable().describe('Why to look twice (an excluded requirement); else null.'),
    created_at: z.string().describe('Proposed at.'),
    decided_at: z.string().nullable().describe('Accepted or rejected at.'),
  })
  .describe('A proposed mapping.');

const excludedNote = (reference: string, framework: string) =>
  `${reference} is EXCLUDED in ${framework}: accepting maps the measure to a requirement the organization does not apply (acceptMappingProposals skips it unless include_excluded).`;

export const listMappingProposalsTool: Tool = defineTool({
  name: LIST_NAME,
  title: 'List proposed mappings',
  description:
    'Mappings the crosswalks propose (measure -> requirement of another adopted framework, with the requirement it comes from and the relationship), to accept or decline in bulk. Default: the pending ones (PROPOSED), in the target framework’s order.',
  scope: 'read',
  toolset: CATALOGS_TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: organizationInput(),
    filter: z
      .strictObject({
        framework_id: idOf('fwk', 'Framework').optional().describe('Into this framework (`fwk_...`).'),
        measure_id: idOf('msr', 'Measure').optional().describe('Of this measure (`msr_...`).'),
        status: z
          .array(caseInsensitiveEnum(PROPOSAL_STATUSES))
          .min(1)
          .max(3)
          .optional()
          .describe('Any of these; default ["PROPOSED"].'),
      })
      .optional()
      .describe('All given must match.'),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  }),
  output: z.object({
    proposals: z.array(proposalSchema).describe('This page.'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    total_count: z.number().int().describe(`On all pages, at most ${TOTAL_COUNT_CAP}.`),
    total_count_capped: z.boolean().describe('True: more than total_count.'),
    page_shortened: pageShortenedSchema,
  }),
  async run(ctx, input) {
    const organizationId = input.organization_id;
    requireOrganization(ctx, organizationId, 'read');
    const filter = input.filter ?? {};
    const conditions: (SQL | undefined)[] = [
      eq(mappingProposals.organization_id, organizationId),
      inArray(mappingProposals.status, filter.status ?? ['PROPOSED']),
    ];
    if (filter.framework_id) conditions.push(eq(mappingProposals.framework_id, filter.framework_id));
    if (filter.measure_id) conditions.push(eq(mappingProposals.measure_id, filter.measure_id));
    const where = and(...conditions);
    const cursor = input.cursor ? decodeCursor(input.cursor, LIST_NAME, 'requirement', 'ASC') : null;
    const fingerprint = filterFingerprint(organizationId, input.filter);
    const carried = carriedCount(cursor, fingerprint, TOTAL_COUNT_CAP);
    const size = input.size ?? PAGE_SIZE.default;
    // Ordered by the target framework, its reference, the measure: a framework's proposals read as its statement.
    const order = sql`${mappingProposals.framework_id} || char(1) || ${requirements.reference_key} || char(1) || ${mappingProposals.measure_id}`;
    const page = ctx.db
      .select({
        id: mappingProposals.id,
        status: mappingProposals.status,
        relationship: mappingProposals.relationship,
        created_at: mappingProposals.created_at,
        decided_at: mappingProposals.decided_at,
        order: sql<string>`${order}`,
        measure_id: measures.id,
        measure_name: measures.name,
        measure_state: measures.state,
        requirement_id: requirements.id,
        requirement_reference: requirements.reference,
        requirement_title: requirements.title,
        applicability: requirements.applicability,
        framework_id: frameworks.id,
        framework_name: frameworks.name,
        source_id: sourceRequirements.id,
        source_reference: sourceRequirements.reference,
        source_title: sourceRequirements.title,
        source_framework_id: sourceFrameworks.id,
        source_framework_name: sourceFrameworks.name,
        already_linked: sql<number>`exists (select 1 from requirement_measures l where l.requirement_id = ${mappingProposals.requirement_id} and l.measure_id = ${mappingProposals.measure_id})`,
      })
      .from(mappingProposals)
      .innerJoin(measures, eq(measures.id, mappingProposals.measure_id))
      .innerJoin(requirements, eq(requirements.id, mappingProposals.requirement_id))
      .innerJoin(frameworks, eq(frameworks.id, mappingProposals.framework_id))
      .innerJoin(sourceRequirements, eq(sourceRequirements.id, mappingProposals.source_requirement_id))
      .innerJoin(sourceFrameworks, eq(sourceFrameworks.id, sourceRequirements.framework_id))
      .where(
        and(where, cursor ? sql`(${order}, ${mappingProposals.id}) > (${cursor.v}, ${cursor.i})` : undefined),
      )
      .orderBy(asc(order), asc(mappingProposals.id))
      .limit(size + 1);
    const counting = ctx.db.select({ total: sql<number>`count(*)` }).from(
      ctx.db
        .select({ one: sql`1` })
        .from(mappingProposals)
        .where(where)
        .limit(TOTAL_COUNT_CAP + 1)
        .as('matches'),
    );
    type PageRow = Awaited<typeof page>[number];
    const [rows, counted] = carried
      ? [await page, null]
      : ((await ctx.db.batch([page, counting])) as unknown as [PageRow[], { total: number }[]]);
    const total = carried ?? cappedCount(Number(counted?.[0]?.total ?? 0), TOTAL_COUNT_CAP);
    const shown = rows.slice(0, size);
    const presented = shown.map((row) => ({
      id: row.id,
      status: row.status,
      relationship: row.relationship,
      measure: { id: row.measure_id, name: row.measure_name, state: row.measure_state },
      requirement: {
        id: row.requirement_id,
        reference: row.requirement_reference,
        title: row.requirement_title,
        framework: { id: row.framework_id, name: row.framework_name },
        applicability: row.applicability,
      },
      source: {
        id: row.source_id,
        reference: row.source_reference,
        title: row.source_title,
        framework: { id: row.source_framework_id, name: row.source_framework_name },
      },
      already_linked: Number(row.already_linked) === 1,
      note:
        row.applicability === 'EXCLUDED' ? excludedNote(row.requirement_reference, row.framework_name) : null,
      created_at: row.created_at,
      decided_at: row.decided_at,
    }));
    const kept = itemsWithinBudget(presented);
    const shortened = kept < presented.length;
    const last = shown[kept - 1];
    return {
      proposals: presented.slice(0, kept),
      next_cursor:
        (rows.length > size || shortened) && last
          ? encodeCursor({
              l: LIST_NAME,
              f: 'requirement',
              d: 'ASC',
              v: last.order,
              i: last.id,
              t: total.total,
              c: total.capped,
              h: fingerprint,
            })
          : null,
      total_count: total.total,
      total_count_capped: total.capped,
      ...(shortened ? { page_shortened: true as const } : {}),
    };
  },
});

// ---- acceptMappingProposals, declineMappingProposals -------------------------------------------------------------

/** The most proposals named in one call. */
const MAX_IDS = 1000;

const selectionShape = {
  organization_id: organizationInput(),
  proposal_ids: z
    .array(idOf('mpp', 'Mapping proposal'))
    .min(1)
    .max(MAX_IDS)
    .optional()
    .describe('These proposals (`mpp_...`).'),
  framework_id: idOf('fwk', 'Framework')
    .optional()
    .describe('Every pending proposal into this framework (`fwk_...`), or only these with proposal_ids.'),
  measure_id: idOf('msr', 'Measure').optional().describe('Only those of this measure (`msr_...`).'),
};

const needsSelection = (
  value: { proposal_ids?: unknown; framework_id?: unknown },
  issues: z.core.$RefinementCtx,
) => {
  if (value.proposal_ids === undefined && value.framework_id === undefined)
    issues.addIssue({
      code: 'custom',
      path: ['proposal_ids'],
      message: 'Give proposal_ids, or framework_id for all its pending proposals',
    });
};

const skippedSchema = z
  .array(
    z
      .object({
        proposal_id: z.string().describe('`mpp_...`'),
        reason: z.string().describe('Why it was left as it is.'),
      })
      .describe('A proposal not changed.'),
  )
  .describe('Proposals left as they were, with why (first 100).');

/** The proposals a call selects, and the ids it named that are not proposals of the organization. */
async function selected(
  ctx: ToolContext,
  input: { organization_id: string; proposal_ids?: string[]; framework_id?: string; measure_id?: string },
) {
  requireOrganization(ctx, input.organization_id, 'write');
  if (input.framework_id) await frameworkOf(ctx, input.organization_id, input.framework_id);
  const rows = await proposalsToDecide(ctx, input.organization_id, {
    ...(input.proposal_ids ? { ids: input.proposal_ids } : {}),
    ...(input.framework_id ? { frameworkId: input.framework_id } : {}),
    ...(input.measure_id ? { measureId: input.measure_id } : {}),
  });
  const found = new Set(rows.map((row) => row.id));
  const missing = (input.proposal_ids ?? []).filter((id) => !found.has(id));
  if (missing.length > 0)
    throw new AppError(
      'not_found',
      `No mapping proposal ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''} in this organization.`,
      [{ path: 'proposal_ids', message: `Not found: ${missing.slice(0, 20).join(', ')}` }],
    );
  return rows;
}

const LISTED_SKIPS = 100;

export const acceptMappingProposalsTool: Tool = defineTool({
  name: 'acceptMappingProposals',
  title: 'Accept proposed mappings',
  description:
    'Accept crosswalk proposals in bulk (ids, or all pending of a framework): each maps its measure to its requirement as linkRequirementMeasure does, with history. Proposals into EXCLUDED requirements are skipped unless include_excluded.',
  scope: 'write',
  toolset: CATALOGS_TOOLSET,
  annotations: UPDATE_ANNOTATIONS,
  input: z
    .strictObject({
      ...selectionShape,
      include_excluded: z
        .boolean()
        .default(false)
        .describe('true: map to EXCLUDED requirements too (else skipped and listed).'),
    })
    .superRefine(needsSelection),
  output: z.object({
    accepted: z.number().int().describe('Proposals accepted.'),
    linked: z.number().int().describe('Mappings made (the others existed already).'),
    skipped: skippedSchema,
    skipped_count: z.number().int().describe('Proposals left as they were.'),
  }),
  async run(ctx, input) {
    const rows = await selected(ctx, input);
    const skipped: { proposal_id: string; reason: string }[] = [];
    const accepting: ProposalRow[] = [];
    const labels = await requirementNames(
      ctx,
      rows.filter((row) => row.applicability === 'EXCLUDED').map((row) => row.requirement_id),
    );
    for (const row of rows) {
      if (row.status !== 'PROPOSED') skipped.push({ proposal_id: row.id, reason: `Already ${row.status}` });
      else if (row.is_section)
        skipped.push({ proposal_id: row.id, reason: 'Its requirement is now a section (not assessed)' });
      else if (row.applicability === 'EXCLUDED' && !input.include_excluded) {
        const label = labels.get(row.requirement_id);
        skipped.push({
          proposal_id: row.id,
          reason: excludedNote(label?.reference ?? row.requirement_id, label?.framework ?? 'its framework'),
        });
      } else accepting.push(row);
    }
    const statements: BatchItem<'sqlite'>[] = [];
    for (let at = 0; at < accepting.length; at += MAX_IDS)
      statements.push(
        ...acceptStatements(
          ctx,
          input.organization_id,
          accepting.slice(at, at + MAX_IDS),
          'acceptMappingProposals',
        ),
      );
    if (statements.length > 0)
      await ctx.db.batch([...statements, ...ctx.writeExtras(sql`1`)] as [
        BatchItem<'sqlite'>,
        ...BatchItem<'sqlite'>[],
      ]);
    return {
      accepted: accepting.length,
      linked: accepting.filter((row) => !row.linked).length,
      skipped: skipped.slice(0, LISTED_SKIPS),
      skipped_count: skipped.length,
    };
  },
});

export const declineMappingProposalsTool: Tool = defineTool({
  name: 'declineMappingProposals',
  title: 'Reject proposed mappings',
  description:
    'Decline proposed crosswalk mappings in bulk (ids, or all pending of a framework): nothing is mapped, and they are not proposed again. An accepted one stays (unlinkRequirementMeasure removes its mapping).',
  scope: 'write',
  toolset: CATALOGS_TOOLSET,
  annotations: UPDATE_ANNOTATIONS,
  input: z.strictObject(selectionShape).superRefine(needsSelection),
  output: z.object({
    rejected: z.number().int().describe('Proposals rejected.'),
    skipped: skippedSchema,
    skipped_count: z.number().int().describe('Proposals left as they were.'),
  }),
  async run(ctx, input) {
    const rows = await selected(ctx, input);
    const rejecting = rows.filter((row) => row.status === 'PROPOSED');
    const skipped = rows
      .filter((row) => row.status !== 'PROPOSED')
      .map((row) => ({ proposal_id: row.id, reason: `Already ${row.status}` }));
    if (rejecting.length > 0) {
      const now = ctx.now().toISOString();
      const statements: BatchItem<'sqlite'>[] = [];
      for (let at = 0; at < rejecting.length; at += MAX_IDS)
        statements.push(
          decideStatement(
            ctx,
            JSON.stringify(rejecting.slice(at, at + MAX_IDS).map((row) => row.id)),
            'REJECTED',
            now,
          ),
        );
      await ctx.db.batch([...statements, ...ctx.writeExtras(sql`1`)] as [
        BatchItem<'sqlite'>,
        ...BatchItem<'sqlite'>[],
      ]);
    }
    return {
      rejected: rejecting.length,
      skipped: skipped.slice(0, LISTED_SKIPS),
      skipped_count: skipped.length,
    };
  },
});

/** Reference and framework name of requirements, for messages. */
async function requirementNames(ctx: ToolContext, ids: string[]) {
  const names = new Map<string, { reference: string; framework: string }>();
  if (ids.length === 0) return names;
  const rows = await ctx.db
    .select({ id: requirements.id, reference: requirements.reference, framework: frameworks.name })
    .from(requirements)
    .innerJoin(frameworks, eq(frameworks.id, requirements.framework_id))
    .where(sql`${requirements.id} in (select value from json_each(${JSON.stringify(ids)}))`);
  for (const row of rows) names.set(row.id, { reference: row.reference, framework: row.framework });
  return names;
}
