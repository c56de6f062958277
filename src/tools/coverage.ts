// A framework's coverage (requirements by applicability and implementation status, per top-level section) and its
// statement of applicability (every requirement in document order with applicability, justification, measures).
import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  documentRequirements,
  documents,
  frameworks,
  mappingProposals,
  measures,
  requirementMeasures,
  requirements,
} from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { requireOrganization } from './access.ts';
import { COVERAGE_AS_OF_NOTES, type RequirementThen, requirementsAsOf } from './coverage-as-of.ts';
import { caseInsensitiveEnum, cursorSchema, idOf, PAGE_SIZE, sizeSchema } from './fields.ts';
import { todayOf } from './overdue.ts';
import {
  type CursorPayload,
  cappedCount,
  carriedCount,
  cursorValue,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  itemsWithinBudget,
  type OrderField,
  pageRanges,
  pageShortenedSchema,
  TOTAL_COUNT_CAP,
} from './pagination.ts';
import {
  measureReadiness,
  measureReadinessFacts,
  READINESS,
  type Readiness,
  type ReadinessReason,
  requirementReadiness,
  requirementReadinessFacts,
  requirementReadinessFilter,
  requirementReady,
} from './readiness.ts';
import { asOfNote, asOfNoteSchema, asOfSchema } from './registers/as-of.ts';
import { APPLICABILITIES, IMPLEMENTATION_STATUSES, INCLUSION_REASONS, MEASURE_STATES } from './states.ts';
import { defineTool, READ_ANNOTATIONS, type Tool, type ToolContext } from './types.ts';

/** Counted, assessed statuses: an applicable requirement is in one of them. */
const ASSESSED = IMPLEMENTATION_STATUSES.filter((status) => status !== 'NOT_APPLICABLE');

export interface CoverageCounts {
  requirements: number;
  applicable: number;
  excluded: number;
  by_status: Record<(typeof ASSESSED)[number], number>;
  /** IMPLEMENTED / applicable, 0..1 (3 places); null without an applicable requirement. */
  implemented_share: number | null;
  /** Applicable ones with at least one measure / applicable. */
  covered_share: number | null;
}

const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1000) / 1000 : null);

/** Folds grouped counts (is_section, applicability, implementation_status, n) of requirements, sections left out. */
export function coverageOf(
  rows: { section: boolean; applicability: string; status: string | null; n: number }[],
): CoverageCounts {
  const byStatus = Object.fromEntries(ASSESSED.map((status) => [status, 0])) as CoverageCounts['by_status'];
  let applicable = 0;
  let excluded = 0;
  for (const row of rows) {
    if (row.section) continue;
    const n = Number(row.n);
    if (row.applicability === 'EXCLUDED') excluded += n;
    else {
      applicable += n;
      if (row.status && row.status in byStatus) byStatus[row.status as keyof typeof byStatus] += n;
    }
  }
  return {
    requirements: applicable + excluded,
    applicable,
    excluded,
    by_status: byStatus,
    implemented_share: share(byStatus.IMPLEMENTED, applicable),
    covered_share: share(applicable - byStatus.NOT_COVERED, applicable),
  };
}

export const coverageSchema = z
  .object({
    requirements: z.number().int().describe('Requirements (sections not counted).'),
    applicable: z.number().int().describe('APPLICABLE ones.'),
    excluded: z.number().int().describe('EXCLUDED ones.'),
    by_status: z
      .object(Object.fromEntries(ASSESSED.map((status) => [status, z.number().int().describe(status)])))
      .describe('Applicable ones per implementation_status.'),
    implemented_share: z
      .number()
      .nullable()
      .describe('IMPLEMENTED / applicable, 0..1; null if none applicable.'),
    covered_share: z.number().nullable().describe('Applicable ones with a measure / applicable, 0..1.'),
  })
  .describe('Counts of requirements.');

const frameworkSchema = z
  .object({
    id: z.string().describe('`fwk_...`'),
    name: z.string().describe('Name.'),
    version: z.string().nullable().describe('Version or edition.'),
  })
  .describe('The framework.');

/** The framework, if the caller reaches its organization (for `mode`); else not_found. */
export async function loadFramework(ctx: ToolContext, id: string, mode: 'read' | 'write' = 'read') {
  const [framework] = await ctx.db
    .select({
      id: frameworks.id,
      name: frameworks.name,
      version: frameworks.version,
      organization_id: frameworks.organization_id,
    })
    .from(frameworks)
    .where(eq(frameworks.id, id));
  if (!framework) throw notFound('Framework');
  requireOrganization(ctx, framework.organization_id, mode, 'Framework');
  return {
    id: framework.id,
    name: framework.name,
    version: framework.version,
    organization_id: framework.organization_id,
  };
}

const frameworkInput = () => idOf('fwk', 'Framework').describe('The framework (`fwk_...`).');

export const frameworkCoverageTool: Tool = defineTool({
  name: 'getFrameworkCoverage',
  title: 'Framework coverage',
  description:
    "How far a framework's requirements are met: counts by applicability and implementation_status, shares implemented and covered, for the framework and per top-level section, and what pending crosswalk proposals would add.",
  scope: 'read',
  toolset: 'frameworks',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({ framework_id: frameworkInput(), as_of: asOfSchema.optional() }),
  output: z.object({
    framework: frameworkSchema,
    coverage: coverageSchema,
    sections: z
      .array(
        z
          .object({
            id: z
              .string()
              .nullable()
              .describe('The section (`req_...`); null: requirements outside sections.'),
            reference: z.string().nullable().describe('Its reference.'),
            title: z.string().nullable().describe('Its title.'),
            coverage: coverageSchema,
          })
          .describe('A top-level section.'),
      )
      .describe('Per top-level section, in document order.'),
    crosswalk: z
      .object({
        pending: z.number().int().describe('Proposed mappings into it waiting for a decision.'),
        requirements: z
          .number()
          .int()
          .describe('Applicable NOT_COVERED requirements that accepting them would cover.'),
        covered_share_if_accepted: z
          .number()
          .nullable()
          .describe('covered_share once they are accepted, 0..1.'),
      })
      .describe('What the crosswalk proposals would give (listMappingProposals).'),
    readiness: z
      .object({
        ready: z.number().int().describe('Applicable requirements READY: every mapped measure evidenced.'),
        not_ready: z.number().int().describe('Applicable requirements NOT_READY.'),
        implemented_not_ready: z
          .number()
          .int()
          .describe('Declared IMPLEMENTED but NOT_READY (getStatementOfApplicability filter.readiness).'),
        ready_share: z.number().nullable().describe('READY / applicable, 0..1; null if none applicable.'),
      })
      .nullable()
      .describe('Evidenced beside declared: readiness of the applicable requirements; null with as_of.'),
    as_of: asOfNoteSchema.optional(),
  }),
  async run(ctx, input) {
    const { organization_id: organizationId, ...framework } = await loadFramework(ctx, input.framework_id);
    if (input.as_of !== undefined)
      return coverageAsOf(ctx, { ...framework, organization_id: organizationId }, input.as_of);
    // One grouped pass over the coverage index (framework, section, is_section, applicability, status).
    const rows = await ctx.db
      .select({
        sectionId: requirements.section_id,
        section: requirements.is_section,
        applicability: requirements.applicability,
        status: requirements.implementation_status,
        n: count(),
      })
      .from(requirements)
      .where(eq(requirements.framework_id, framework.id))
      // Every column in the index's order, sections too (left out when counted): grouped as the index is read. A
      // filter on is_section would drop it from the grouping and make SQLite sort.
      .groupBy(
        requirements.section_id,
        requirements.is_section,
        requirements.applicability,
        requirements.implementation_status,
      );
    const bySection = new Map<string | null, typeof rows>();
    for (const row of rows.filter((item) => !item.section))
      bySection.set(row.sectionId, [...(bySection.get(row.sectionId) ?? []), row]);
    const ids = [...bySection.keys()].filter((id): id is string => id !== null);
    const sections =
      ids.length === 0
        ? []
        : await ctx.db
            .select({ id: requirements.id, reference: requirements.reference, title: requirements.title })
            .from(requirements)
            .where(inArray(requirements.id, ids))
            .orderBy(asc(requirements.reference_key));
    const [proposed] = await ctx.db
      .select({
        pending: count(),
        gaps: sql<number>`count(distinct case when ${requirements.applicability} = 'APPLICABLE' and ${requirements.implementation_status} = 'NOT_COVERED' then ${requirements.id} end)`,
      })
      .from(mappingProposals)
      .innerJoin(requirements, eq(requirements.id, mappingProposals.requirement_id))
      .innerJoin(measures, eq(measures.id, mappingProposals.measure_id))
      .where(
        and(
          // The organization loadFramework checked (its index leads with the organization).
          eq(mappingProposals.organization_id, ctx.organizationId ?? ''),
          eq(mappingProposals.framework_id, framework.id),
          eq(mappingProposals.status, 'PROPOSED'),
          sql`${measures.state} != 'NOT_APPLICABLE'`,
        ),
      );
    const ready = requirementReady(todayOf(ctx));
    const [readiness] = await ctx.db
      .select({
        ready: sql<number>`coalesce(sum(case when ${ready} then 1 else 0 end), 0)`,
        implementedNotReady: sql<number>`coalesce(sum(case when ${requirements.implementation_status} = 'IMPLEMENTED' and not ${ready} then 1 else 0 end), 0)`,
      })
      .from(requirements)
      .where(
        and(
          eq(requirements.framework_id, framework.id),
          eq(requirements.is_section, false),
          sql`${requirements.applicability} <> 'EXCLUDED'`,
        ),
      );
    const coverage = coverageOf(rows);
    const gaps = Number(proposed?.gaps ?? 0);
    const readyCount = Number(readiness?.ready ?? 0);
    return {
      framework,
      coverage,
      sections: [
        ...sections.map((section) => ({ ...section, coverage: coverageOf(bySection.get(section.id) ?? []) })),
        ...(bySection.has(null)
          ? [{ id: null, reference: null, title: null, coverage: coverageOf(bySection.get(null) ?? []) }]
          : []),
      ],
      crosswalk: {
        pending: Number(proposed?.pending ?? 0),
        requirements: gaps,
        covered_share_if_accepted: share(
          coverage.applicable - coverage.by_status.NOT_COVERED + gaps,
          coverage.applicable,
        ),
      },
      readiness: {
        ready: readyCount,
        not_ready: coverage.applicable - readyCount,
        implemented_not_ready: Number(readiness?.implementedNotReady ?? 0),
        ready_share: share(readyCount, coverage.applicable),
      },
    };
  },
});

const applicability = caseInsensitiveEnum(APPLICABILITIES);
const implementationStatus = caseInsensitiveEnum(IMPLEMENTATION_STATUSES);

const SOA_NAME = 'getStatementOfApplicability';
/** A row's columns as SQL expressions: the page reads `requirements indexed by ...`, not the table drizzle knows. */
const SOA_ROW = Object.fromEntries(
  (
    [
      'id',
      'reference',
      'reference_key',
      'title',
      'is_section',
      'parent_id',
      'applicability',
      'justification',
      'inclusion_reasons',
      'implementation_status',
      'updated_at',
    ] as const
  ).map((name) => [name, sql`${requirements[name]}`.mapWith(requirements[name])]),
) as {
  [K in 'id' | 'reference' | 'reference_key' | 'title' | 'applicability' | 'updated_at']: SQL<string>;
} & { [K in 'parent_id' | 'justification' | 'implementation_status']: SQL<string | null> } & {
  is_section: SQL<boolean>;
  inclusion_reasons: SQL<string[]>;
};
const SOA_ORDER: OrderField = { column: requirements.reference_key };
/** The readiness facts of a row (src/tools/readiness.ts), read with the page. */
const SOA_READINESS = requirementReadinessFacts;

export const statementOfApplicabilityTool: Tool = defineTool({
  name: SOA_NAME,
  title: 'Statement of applicability',
  description:
    "A framework's statement of applicability: every requirement and section in document order with applicability, reasons for inclusion, justification, implementation_status, the measures and documents covering it. Paged; publish it with publishStatementOfApplicability.",
  scope: 'read',
  toolset: 'frameworks',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    framework_id: frameworkInput(),
    filter: z
      .strictObject({
        applicability: z.array(applicability).min(1).max(2).optional().describe('Any of these.'),
        implementation_status: z
          .array(implementationStatus)
          .min(1)
          .max(5)
          .optional()
          .describe('Any of these.'),
        section_id: idOf('req', 'Requirement').optional().describe('Only under this top-level section.'),
        readiness: caseInsensitiveEnum(READINESS)
          .optional()
          .describe(
            'Only this readiness; with implementation_status IMPLEMENTED: implemented but not ready.',
          ),
      })
      .optional()
      .describe('All given must match; sections are left out when a filter is given.'),
    as_of: asOfSchema.optional(),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  }),
  output: z.object({
    framework: frameworkSchema,
    requirements: z
      .array(
        z
          .object({
            id: z.string().describe('`req_...`'),
            reference: z.string().describe('Reference code.'),
            title: z.string().describe('Title.'),
            is_section: z.boolean().describe('A heading, not assessed.'),
            parent_id: z.string().nullable().describe('Parent.'),
            applicability: z.string().describe('APPLICABLE or EXCLUDED.'),
            justification: z.string().nullable().describe('Why it applies or is excluded.'),
            inclusion_reasons: z
              .array(z.string())
              .describe(`Why it is included: ${INCLUSION_REASONS.join(', ')}.`),
            implementation_status: z.string().nullable().describe('Derived; null for a section.'),
            readiness: z
              .enum(READINESS)
              .nullable()
              .describe(
                'Evidenced beside declared: READY when every applicable measure mapped is READY; null with as_of.',
              ),
            readiness_reasons: z
              .array(
                z.object({ code: z.string(), message: z.string() }).describe('A reason: code and words.'),
              )
              .describe('Why it is not ready; empty when READY.'),
            updated_at: z.string().describe('Last change; pass to updateRequirement as expected_updated_at.'),
            measures: z
              .array(
                z
                  .object({
                    id: z.string().describe('`msr_...`'),
                    name: z.string().describe('Name.'),
                    state: z.string().describe(`State: ${MEASURE_STATES.join(', ')}.`),
                    readiness: z
                      .enum(READINESS)
                      .nullable()
                      .describe('Its readiness (getMeasure gives the reasons); null with as_of.'),
                  })
                  .describe('A measure covering it.'),
              )
              .describe('Measures covering it.'),
            documents: z
              .array(
                z
                  .object({
                    id: z.string().describe('`doc_...`'),
                    title: z.string().describe('Title.'),
                    status: z.string().describe('Status.'),
                  })
                  .describe('A document (policy, procedure...) covering it.'),
              )
              .describe('Documents whose requirement_ids name it.'),
          })
          .describe('A row of the statement.'),
      )
      .describe('This page, in document order (by reference).'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    without_justification: z
      .number()
      .int()
      .describe(
        'Requirements (not sections) of the framework without a justification: publishing needs one each.',
      ),
    total_count: z.number().int().nonnegative().describe(`Rows on all pages, at most ${TOTAL_COUNT_CAP}.`),
    total_count_capped: z.boolean().describe('True: more than total_count.'),
    page_shortened: pageShortenedSchema,
    as_of: asOfNoteSchema.optional(),
  }),
  async run(ctx, input) {
    const { organization_id: organizationId, ...framework } = await loadFramework(ctx, input.framework_id);
    if (input.as_of !== undefined)
      return statementAsOf(ctx, { ...framework, organization_id: organizationId }, input, input.as_of);
    const filter = input.filter ?? {};
    const conditions: (SQL | undefined)[] = [eq(requirements.framework_id, framework.id)];
    if (filter.applicability) conditions.push(inArray(requirements.applicability, filter.applicability));
    if (filter.implementation_status)
      conditions.push(inArray(requirements.implementation_status, filter.implementation_status));
    if (filter.section_id) conditions.push(eq(requirements.section_id, filter.section_id));
    const today = todayOf(ctx);
    if (filter.readiness) conditions.push(requirementReadinessFilter.where(filter.readiness, today));
    // A filtered statement lists requirements only: a section's heading has no status to match.
    if (Object.keys(filter).length > 0) conditions.push(eq(requirements.is_section, false));
    const where = and(...conditions);
    const cursor = input.cursor ? decodeCursor(input.cursor, SOA_NAME, 'reference', 'ASC') : null;
    const fingerprint = filterFingerprint(framework.id, input.filter);
    const carried = carriedCount(cursor, fingerprint, TOTAL_COUNT_CAP);
    const size = input.size ?? PAGE_SIZE.default;
    const [range] = pageRanges(SOA_ORDER, requirements.id, 'ASC', cursor);
    const page = ctx.db
      .select({ ...SOA_ROW, ...SOA_READINESS })
      .from(sql`${requirements} indexed by requirements_framework_order_idx`)
      .where(and(where, range?.where))
      .orderBy(...(range?.orderBy ?? []))
      .limit(size + 1);
    const counting = ctx.db.select({ total: count() }).from(
      ctx.db
        .select({ one: sql`1` })
        .from(requirements)
        .where(where)
        .limit(TOTAL_COUNT_CAP + 1)
        .as('matches'),
    );
    type SoaRow = Awaited<typeof page>[number];
    const [[rows, counted], missing] = await Promise.all([
      carried
        ? Promise.all([page, null])
        : (ctx.db.batch([page, counting]) as unknown as Promise<[SoaRow[], { total: number }[]]>),
      withoutJustification(ctx, framework.id),
    ]);
    const shown = rows.slice(0, size);
    const linked = shown.length
      ? await ctx.db
          .select({
            requirement_id: requirementMeasures.requirement_id,
            id: measures.id,
            name: measures.name,
            state: measures.state,
            evidence_required: measures.evidence_required,
            test_interval_days: measures.test_interval_days,
            last_tested_on: measures.last_tested_on,
            last_test_result: measures.last_test_result,
            next_test_on: measures.next_test_on,
            ...measureReadinessFacts,
          })
          .from(requirementMeasures)
          .innerJoin(measures, eq(measures.id, requirementMeasures.measure_id))
          .where(
            inArray(
              requirementMeasures.requirement_id,
              shown.map((row) => row.id),
            ),
          )
          .orderBy(asc(measures.name), asc(measures.id))
      : [];
    const measuresOf = new Map<string, { id: string; name: string; state: string; readiness: Readiness }[]>();
    for (const { requirement_id, ...measure } of linked) {
      const row = { id: measure.id, name: measure.name, state: measure.state };
      const ready = { ...row, readiness: measureReadiness(measure, today).readiness };
      measuresOf.set(requirement_id, [...(measuresOf.get(requirement_id) ?? []), ready]);
    }
    const documentsOf = await documentsCovering(
      ctx,
      shown.map((row) => row.id),
    );
    const total = carried ?? cappedCount(Number(counted?.[0]?.total ?? 0), TOTAL_COUNT_CAP);
    const presented = shown.map((raw) => {
      const decided = requirementReadiness(raw, today);
      const { reference_key: _key, readiness_counts: _counts, readiness_last: _last, ...row } = raw;
      return {
        ...row,
        readiness: decided.readiness,
        readiness_reasons: decided.reasons satisfies ReadinessReason[],
        measures: measuresOf.get(raw.id) ?? [],
        documents: documentsOf.get(raw.id) ?? [],
      };
    });
    const kept = itemsWithinBudget(presented);
    const shortened = kept < presented.length;
    const last = shown[kept - 1];
    const payload = (row: Record<string, unknown>): CursorPayload => ({
      l: SOA_NAME,
      f: 'reference',
      d: 'ASC',
      v: cursorValue(SOA_ORDER, row),
      i: String(row.id),
      t: total.total,
      c: total.capped,
      h: fingerprint,
    });
    return {
      framework,
      requirements: presented.slice(0, kept),
      next_cursor: (rows.length > size || shortened) && last ? encodeCursor(payload(last)) : null,
      without_justification: missing,
      total_count: total.total,
      total_count_capped: total.capped,
      ...(shortened ? { page_shortened: true as const } : {}),
    };
  },
});

/** SQL: a requirement (not a section) without a justification, which the statement of applicability needs. */
export const lacksJustification = sql`(${requirements.is_section} = 0 and (${requirements.justification} is null or trim(${requirements.justification}) = ''))`;

/** How many requirements of the framework lack a justification. */
export async function withoutJustification(ctx: ToolContext, frameworkId: string): Promise<number> {
  const [row] = await ctx.db
    .select({ n: count() })
    .from(requirements)
    .where(and(eq(requirements.framework_id, frameworkId), lacksJustification));
  return Number(row?.n ?? 0);
}

/** The documents whose requirement_ids name each requirement (retired ones left out), by title. */
export async function documentsCovering(
  ctx: ToolContext,
  requirementIds: string[],
): Promise<Map<string, { id: string; title: string; status: string }[]>> {
  const out = new Map<string, { id: string; title: string; status: string }[]>();
  for (let at = 0; at < requirementIds.length; at += 500) {
    const rows = await ctx.db
      .select({
        requirement_id: documentRequirements.requirement_id,
        id: documents.id,
        title: documents.title,
        status: documents.status,
      })
      .from(documentRequirements)
      .innerJoin(documents, eq(documents.id, documentRequirements.document_id))
      .where(
        and(
          inArray(documentRequirements.requirement_id, requirementIds.slice(at, at + 500)),
          sql`${documents.status} <> 'RETIRED'`,
        ),
      )
      .orderBy(asc(documents.title), asc(documents.id));
    for (const { requirement_id, ...document } of rows)
      out.set(requirement_id, [...(out.get(requirement_id) ?? []), document]);
  }
  return out;
}

type FrameworkOf = Awaited<ReturnType<typeof loadFramework>>;

/** getFrameworkCoverage with as_of: the counts over the requirements as they stood then. */
async function coverageAsOf(ctx: ToolContext, framework: FrameworkOf, asOf: string) {
  const { organization_id: organizationId, ...shown } = framework;
  const rows = await requirementsAsOf(ctx, framework, asOf);
  const counted = (items: RequirementThen[]) =>
    coverageOf(
      items.map((row) => ({
        section: row.is_section,
        applicability: row.applicability,
        status: row.implementation_status,
        n: 1,
      })),
    );
  const bySection = new Map<string | null, RequirementThen[]>();
  for (const row of rows.filter((item) => !item.is_section))
    bySection.set(row.section_id, [...(bySection.get(row.section_id) ?? []), row]);
  const coverage = counted(rows);
  const sections = rows.filter((row) => bySection.has(row.id));
  return {
    framework: shown,
    coverage,
    sections: [
      ...sections.map((section) => ({
        id: section.id,
        reference: section.reference,
        title: section.title,
        coverage: counted(bySection.get(section.id) ?? []),
      })),
      ...(bySection.has(null)
        ? [{ id: null, reference: null, title: null, coverage: counted(bySection.get(null) ?? []) }]
        : []),
    ],
    crosswalk: { pending: 0, requirements: 0, covered_share_if_accepted: coverage.covered_share },
    readiness: null,
    as_of: await asOfNote(
      ctx,
      organizationId,
      asOf,
      ['readiness'],
      [
        ...COVERAGE_AS_OF_NOTES.slice(0, 1),
        'Crosswalk proposals are not kept in history: crosswalk counts none.',
      ],
    ),
  };
}

/** getStatementOfApplicability with as_of: the statement as it stood then, paged in document order. */
async function statementAsOf(
  ctx: ToolContext,
  framework: FrameworkOf,
  input: {
    filter?: {
      applicability?: string[];
      implementation_status?: string[];
      section_id?: string;
      readiness?: string;
    };
    size?: number;
    cursor?: string;
  },
  asOf: string,
) {
  const { organization_id: organizationId, ...shown } = framework;
  const filter = input.filter ?? {};
  if (filter.readiness !== undefined)
    throw new AppError(
      'invalid_arguments',
      'Readiness cannot be read as of a date (evidence and tests are not in the history): leave filter.readiness out with as_of.',
      [{ path: 'filter.readiness', message: 'Not with as_of' }],
    );
  const all = await requirementsAsOf(ctx, framework, asOf);
  const filtered = Object.keys(filter).length > 0;
  const matching = all.filter(
    (row) =>
      (!filtered || !row.is_section) &&
      (!filter.applicability || filter.applicability.includes(row.applicability)) &&
      (!filter.implementation_status ||
        (row.implementation_status !== null &&
          filter.implementation_status.includes(row.implementation_status))) &&
      (!filter.section_id || row.section_id === filter.section_id),
  );
  const size = input.size ?? PAGE_SIZE.default;
  const cursor = input.cursor ? decodeCursor(input.cursor, SOA_NAME, 'reference', 'ASC') : null;
  const start = cursor
    ? matching.findIndex(
        (row) =>
          row.reference_key > String(cursor.v) ||
          (row.reference_key === String(cursor.v) && row.id > cursor.i),
      )
    : 0;
  const rest = start < 0 ? [] : matching.slice(start);
  const page = rest.slice(0, size);
  const documentsOf = await documentsCovering(
    ctx,
    page.map((row) => row.id),
  );
  const presented = page.map(({ reference_key: _key, section_id: _section, measures, ...row }) => ({
    ...row,
    readiness: null,
    readiness_reasons: [],
    measures: measures.map((measure) => ({ ...measure, readiness: null })),
    documents: documentsOf.get(row.id) ?? [],
  }));
  const kept = itemsWithinBudget(presented);
  const shortened = kept < presented.length;
  const last = page[kept - 1];
  const total = cappedCount(matching.length, TOTAL_COUNT_CAP);
  const fingerprint = filterFingerprint(framework.id, [input.filter ?? null, asOf]);
  return {
    framework: shown,
    requirements: presented.slice(0, kept),
    next_cursor:
      (rest.length > size || shortened) && last
        ? encodeCursor({
            l: SOA_NAME,
            f: 'reference',
            d: 'ASC',
            v: last.reference_key,
            i: last.id,
            t: total.total,
            c: total.capped,
            h: fingerprint,
          })
        : null,
    without_justification: all.filter(
      (row) => !row.is_section && (row.justification === null || row.justification.trim() === ''),
    ).length,
    total_count: total.total,
    total_count_capped: total.capped,
    ...(shortened ? { page_shortened: true as const } : {}),
    as_of: await asOfNote(
      ctx,
      organizationId,
      asOf,
      ['readiness', 'readiness_reasons'],
      COVERAGE_AS_OF_NOTES,
    ),
  };
}
