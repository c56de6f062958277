// Requirements: a framework's controls, clauses or criteria as a tree, each applicable or excluded (with a
// justification), mapped to the measures that cover it; the implementation status is derived from those measures.

import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { requirementMeasures, requirements } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { linkedFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, idOf, longText, shortText } from './fields.ts';
import {
  presentReadiness,
  readinessFields,
  requirementReadiness,
  requirementReadinessFacts,
  requirementReadinessFilter,
} from './readiness.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  required,
  type Warning,
  withDefault,
} from './registers/spec.ts';
import { requirementRefSchema, resolveRequirementRef } from './requirement-refs.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import { APPLICABILITIES, IMPLEMENTATION_STATUSES, INCLUSION_REASONS } from './states.ts';
import type { ToolContext } from './types.ts';

const applicability = caseInsensitiveEnum(APPLICABILITIES).describe(
  'APPLICABLE (default) or EXCLUDED from the statement of applicability (needs a justification).',
);
const implementationStatus = caseInsensitiveEnum(IMPLEMENTATION_STATUSES);

/** The reference with its numbers zero-padded, in upper case: A.5.9 sorts before A.5.10, AC-2 before AC-10. */
export function referenceKey(reference: string): string {
  return reference.toUpperCase().replace(/\d+/g, (digits) => digits.padStart(8, '0'));
}

/** The parent's framework and section, and whether `id` is among its ancestors (or is it). */
async function parentOf(ctx: ToolContext, parentId: string, id: string | null) {
  const ancestors = sql`with recursive up(id, parent_id) as (select ${requirements.id}, ${requirements.parent_id} from ${requirements} where ${requirements.id} = ${parentId} union select r.id, r.parent_id from ${requirements} r join up on r.id = up.parent_id) select 1 from up where up.id = ${id ?? ''}`;
  const [parent] = await ctx.db
    .select({
      framework_id: requirements.framework_id,
      section_id: requirements.section_id,
      cycle: sql<number>`exists (${ancestors})`,
    })
    .from(requirements)
    .where(eq(requirements.id, parentId));
  return parent;
}

/** How many of a section's assessable requirements a refusal to map a measure to it names. */
const NAMED_CHILDREN = 12;

/**
 * A measure maps to requirements, never to a section (it is not assessed): refused, naming the assessable requirements
 * under it to map instead.
 */
async function refuseSection(ctx: ToolContext, requirementId: string) {
  const [requirement] = await ctx.db
    .select({ reference: requirements.reference, is_section: requirements.is_section })
    .from(requirements)
    .where(eq(requirements.id, requirementId));
  if (!requirement?.is_section) return;
  const under = await ctx.db
    .select({ reference: requirements.reference })
    .from(requirements)
    .where(
      and(sql`${requirements.id} in ${descendantsOf(requirementId)}`, eq(requirements.is_section, false)),
    )
    .orderBy(requirements.reference_key)
    .limit(NAMED_CHILDREN + 1);
  const named = under.slice(0, NAMED_CHILDREN).map((row) => row.reference);
  throw new AppError(
    'invalid_arguments',
    `${requirement.reference} is a section: it is not assessed, so measures are mapped to its requirements${
      named.length > 0
        ? `: ${named.join(', ')}${under.length > NAMED_CHILDREN ? ', ...' : ''} (listRequirements with filter.parent_id lists them)`
        : ' (it has none yet)'
    }.`,
    [{ path: 'requirement_id', message: `${requirement.reference} is a section` }],
  );
}

/** The ids of a requirement's descendants (its subtree without itself). */
function descendantsOf(id: string): SQL {
  return sql`(with recursive sub(id) as (select ${requirements.id} from ${requirements} where ${requirements.parent_id} = ${id} union select r.id from ${requirements} r join sub on r.parent_id = sub.id) select id from sub)`;
}

export const requirementSpec: RegisterSpec = {
  kind: 'requirement',
  prefix: 'req',
  label: 'requirement',
  labelPlural: 'requirements',
  noun: 'Requirement',
  nounPlural: 'Requirements',
  key: 'requirement',
  listKey: 'requirements',
  toolset: 'frameworks',
  table: requirements,
  nameFields: ['reference', 'title'],
  tree: { parent: 'parent_id', top: 'section_id', within: 'framework_id' },
  about:
    "A requirement is a framework's control, clause or criterion (ISO 27001 A.5.15, SOC 2 CC6.1), in a tree of sections; measures derive its status.",
  fields: {
    framework_id: {
      ...required(
        idOf('fwk', 'Framework').describe('Its framework (`fwk_...`); cannot change later.'),
        'framework',
        { label: 'Framework', hint: 'The framework it belongs to (cannot change later).' },
      ),
      fixed: true,
      cascade: true,
    },
    reference: required(
      shortText(50).describe('Reference code, unique in its framework, e.g. "A.5.15", "CC6.1", "GV.OC-01".'),
    ),
    title: required(shortText(500).describe('Title, e.g. "Access control".')),
    description: optional(longText(20_000).describe('What it requires (the statement).')),
    parent_id: optional(
      idOf('req', 'Requirement').describe('Parent section or control (`req_...`) of the same framework.'),
      'requirement',
      { label: 'Parent', hint: 'The section or control it sits under, in the same framework.' },
    ),
    is_section: withDefault(
      z.boolean().describe('true: a heading grouping requirements (e.g. "A.5"), not assessed itself.'),
      false,
      { label: 'Section', hint: 'A heading that groups requirements; it is not assessed itself.' },
    ),
    position: optional(z.number().int().min(0).max(1_000_000).describe('Order among its siblings.')),
    applicability: withDefault(applicability, 'APPLICABLE'),
    justification: optional(
      longText(5000).describe(
        'Why it applies or is excluded (ISO 27001 6.1.3 d); required when EXCLUDED, and to publish the statement.',
      ),
    ),
    inclusion_reasons: withDefault(
      z
        .array(caseInsensitiveEnum(INCLUSION_REASONS))
        .max(INCLUSION_REASONS.length)
        .describe(`Why it is included: ${INCLUSION_REASONS.join(', ')}.`),
      [],
      { label: 'Reasons for inclusion', hint: 'Legal, contractual, the risk assessment, best practice.' },
    ),
    section_id: derived(
      z.string().nullable().describe('Top-level section it sits under (derived); null at the top level.'),
      { label: 'Section it sits under' },
    ),
    implementation_status: {
      ...derived(
        implementationStatus
          .nullable()
          .describe(
            'Derived from linked measures (NOT_APPLICABLE ones ignored): NOT_COVERED none, PLANNED all not started, PARTIALLY_IMPLEMENTED some implemented or in progress, IMPLEMENTED all; NOT_APPLICABLE if excluded; null for a section.',
          ),
      ),
      maintained: true,
    },
    ...reviewFields(),
    ...readinessFields('every applicable measure mapped to it is READY'),
  },
  relations: [
    {
      field: 'measure_ids',
      table: requirementMeasures,
      ownerColumn: requirementMeasures.requirement_id,
      targetColumn: requirementMeasures.measure_id,
      organizationColumn: requirementMeasures.organization_id,
      target: 'measure',
      writable: false,
      description:
        'Ids of the measures that cover it (change with linkRequirementMeasure / unlinkRequirementMeasure).',
      label: 'Measures',
      hint: 'The measures that cover this requirement.',
      beforeLink: (ctx, requirementId) => refuseSection(ctx, requirementId),
      links: {
        link: {
          name: 'linkRequirementMeasure',
          title: 'Map a measure to a requirement',
          description:
            'Record that a measure covers a requirement (same organization; any framework, so one measure serves several); the requirement by id or {framework, reference}, never a section. Harmless twice. Updates implementation_status.',
        },
        unlink: {
          name: 'unlinkRequirementMeasure',
          title: 'Unmap a measure from a requirement',
          description:
            'Remove the mapping of a measure to a requirement; neither is deleted. Harmless if absent.',
        },
      },
    },
    evidenceIdsRelation(),
  ],
  namedBy: {
    argument: 'requirement',
    schema: requirementRefSchema,
    resolve: async (ctx, value, organizationId, mode) =>
      (await resolveRequirementRef(ctx, value as never, organizationId, mode)).id,
  },
  unique: [{ field: 'reference', within: 'framework_id' }],
  importKey: { field: 'reference', within: 'framework_id' },
  exactFirst: requirements.reference,
  search: [requirements.reference, requirements.title, requirements.description],
  filters: {
    readiness: requirementReadinessFilter,
    framework_id: filter(idOf('fwk', 'Framework').describe('Only this framework (`fwk_...`).'), (value) =>
      eq(requirements.framework_id, value),
    ),
    reference: filter(
      shortText(50).describe('Exactly this reference, in any letter case (e.g. "A.5.1": not A.5.10).'),
      (value) => sql`lower(${requirements.reference}) = lower(${value})`,
    ),
    parent_id: filter(idOf('req', 'Requirement').describe('Only the children of this one.'), (value) =>
      eq(requirements.parent_id, value),
    ),
    top_level: filter(z.boolean().describe('true: only those without a parent.'), (value) =>
      value ? isNull(requirements.parent_id) : sql`${requirements.parent_id} is not null`,
    ),
    is_section: filter(z.boolean().describe('true: only sections; false: only requirements.'), (value) =>
      eq(requirements.is_section, value),
    ),
    applicability: enumFilter(applicability, requirements.applicability, 'Any of these.'),
    implementation_status: enumFilter(
      implementationStatus,
      requirements.implementation_status,
      'Any of these (e.g. ["NOT_COVERED"] for gaps).',
    ),
    measure_id: linkedFilter(
      {
        ownerId: requirements.id,
        owner: requirementMeasures.requirement_id,
        target: requirementMeasures.measure_id,
      },
      { prefix: 'msr', what: 'Measure' },
      'Only those this measure covers (`msr_...`).',
    ),
    ...reviewFilters(REVIEW_CYCLES.requirement),
  },
  orderFields: {
    reference: { column: requirements.reference_key },
    title: { column: requirements.title },
    position: { column: requirements.position, nullable: true },
    ...reviewOrderField(requirements.next_review_on),
  },
  review: REVIEW_CYCLES.requirement,
  computed: requirementReadinessFacts,
  present: (row, today) => presentReadiness(row, requirementReadinessFacts, requirementReadiness(row, today)),
  prepare(next: Row) {
    next.reference_key = referenceKey(String(next.reference));
    if (Array.isArray(next.inclusion_reasons)) next.inclusion_reasons = [...new Set(next.inclusion_reasons)];
    if (next.applicability === 'EXCLUDED' && !next.justification) {
      throw new AppError(
        'invalid_arguments',
        'An EXCLUDED requirement needs a justification saying why it does not apply.',
        [{ path: 'justification', message: 'Required when applicability is EXCLUDED' }],
      );
    }
  },
  warnings(next) {
    const warnings: Warning[] = [];
    if (next.is_section || next.applicability !== 'APPLICABLE') return warnings;
    if (!next.justification)
      warnings.push({
        field: 'justification',
        message:
          'Applicable without a justification: the statement of applicability says why each requirement applies, and publishStatementOfApplicability refuses without one. Set justification.',
      });
    return warnings;
  },
  async settle(ctx, next, current) {
    const parentId = next.parent_id;
    if (typeof parentId !== 'string') {
      next.section_id = null;
      return;
    }
    const id = current ? String(current.id) : null;
    const parent = await parentOf(ctx, parentId, id);
    if (!parent) return; // checked as a reference of this organization already
    if (parent.framework_id !== next.framework_id) {
      throw new AppError('invalid_arguments', 'The parent must be a requirement of the same framework.', [
        { path: 'parent_id', message: 'Belongs to another framework' },
      ]);
    }
    if (id && (parentId === id || Number(parent.cycle) === 1)) {
      throw new AppError(
        'invalid_arguments',
        'A requirement cannot sit under itself or its own descendants.',
        [{ path: 'parent_id', message: 'Would make a cycle' }],
      );
    }
    next.section_id = parent.section_id ?? parentId;
  },
  afterUpdate(ctx, id, next, current, landed) {
    if (next.section_id === current.section_id) return [];
    // The subtree moved: its records now sit under this one's section (or under this one, at the top level).
    return [
      ctx.db
        .update(requirements)
        .set({ section_id: (next.section_id as string | null) ?? id })
        .where(and(sql`${requirements.id} in ${descendantsOf(id)}`, landed)),
    ];
  },
  hints: {
    list: "Gaps: filter.implementation_status NOT_COVERED. A framework's controls in order: getStatementOfApplicability.",
    add: 'A clause or criterion of a framework. EXCLUDED needs a justification. Map measures with linkRequirementMeasure.',
    update: 'E.g. applicability EXCLUDED (not applicable) with its justification.',
  },
  example: {
    organization_id: 'org_...',
    framework_id: 'fwk_...',
    reference: 'A.5.15',
    title: 'Access control',
    description: 'Rules to control physical and logical access are set and implemented.',
  },
};
