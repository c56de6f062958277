// A framework's requirements as they stood at a past time, for its coverage and statement of applicability: rebuilt
// from history with the implementation status derived again from the measures' states then (as the triggers do now).
import { eq } from 'drizzle-orm';
import { requirements } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { checkAsOf } from './registers/as-of.ts';
import { rebuildRegister } from './registers/as-of-reads.ts';
import type { Row } from './registers/spec.ts';
import { referenceKey } from './requirements.ts';
import type { ToolContext } from './types.ts';

/** A requirement of the framework as it stood then, with the measures mapped to it then. */
export interface RequirementThen {
  id: string;
  reference: string;
  reference_key: string;
  title: string;
  is_section: boolean;
  parent_id: string | null;
  section_id: string | null;
  applicability: string;
  justification: string | null;
  inclusion_reasons: string[];
  implementation_status: string | null;
  updated_at: string;
  measures: { id: string; name: string; state: string }[];
}

/** The status the requirements' triggers derive, from the measures mapped then and their states then. */
function statusOf(requirement: Row, mapped: { state: string }[]): string | null {
  if (requirement.is_section) return null;
  if (requirement.applicability === 'EXCLUDED') return 'NOT_APPLICABLE';
  const counted = mapped.filter((measure) => measure.state !== 'NOT_APPLICABLE');
  if (counted.length === 0) return 'NOT_COVERED';
  if (counted.every((measure) => measure.state === 'IMPLEMENTED')) return 'IMPLEMENTED';
  if (counted.some((measure) => measure.state === 'IMPLEMENTED' || measure.state === 'IN_PROGRESS'))
    return 'PARTIALLY_IMPLEMENTED';
  return 'PLANNED';
}

const idsOf = (raw: unknown): string[] =>
  typeof raw === 'string' ? (JSON.parse(raw) as unknown[]).filter((id) => typeof id === 'string') : [];

/**
 * The framework's requirements at `asOf` in document order, or not_found when the framework did not exist then.
 * The register handles are read late (the tool map builds them from the modules that import this one).
 */
export async function requirementsAsOf(
  ctx: ToolContext,
  framework: { id: string; organization_id: string },
  asOf: string,
): Promise<RequirementThen[]> {
  checkAsOf(ctx, asOf);
  const { REGISTERS } = await import('./index.ts');
  const organizationId = framework.organization_id;
  const [frameworks, rows, measures] = await Promise.all([
    rebuildRegister(
      ctx,
      REGISTERS.framework.records,
      organizationId,
      asOf,
      eq(REGISTERS.framework.records.table.id, framework.id),
    ),
    rebuildRegister(
      ctx,
      REGISTERS.requirement.records,
      organizationId,
      asOf,
      eq(requirements.framework_id, framework.id),
    ),
    rebuildRegister(ctx, REGISTERS.measure.records, organizationId, asOf),
  ]);
  if (!frameworks.some((row) => row.id === framework.id))
    throw new AppError('not_found', `Framework ${framework.id} did not exist at ${asOf} (as_of).`);
  const measureById = new Map(
    measures.map((measure) => [
      String(measure.id),
      { id: String(measure.id), name: String(measure.name), state: String(measure.state) },
    ]),
  );
  return rows
    .filter((row) => row.framework_id === framework.id)
    .map((row) => {
      const mapped = idsOf(row.measure_ids).flatMap((id) => {
        const measure = measureById.get(id);
        return measure ? [measure] : [];
      });
      const reference = String(row.reference);
      return {
        id: String(row.id),
        reference,
        reference_key: referenceKey(reference),
        title: String(row.title),
        is_section: Boolean(row.is_section),
        parent_id: (row.parent_id as string | null) ?? null,
        section_id: (row.section_id as string | null) ?? null,
        applicability: String(row.applicability),
        justification: (row.justification as string | null) ?? null,
        inclusion_reasons: Array.isArray(row.inclusion_reasons) ? (row.inclusion_reasons as string[]) : [],
        implementation_status: statusOf(row, mapped),
        updated_at: String(row.updated_at),
        measures: mapped.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
      };
    })
    .sort((a, b) =>
      a.reference_key < b.reference_key
        ? -1
        : a.reference_key > b.reference_key
          ? 1
          : a.id < b.id
            ? -1
            : a.id > b.id
              ? 1
              : 0,
    );
}

/** What the coverage and statement read as of a date cannot rebuild. */
export const COVERAGE_AS_OF_NOTES = [
  'Readiness (evidence, control tests) is not rebuilt: it is null.',
  'Documents covering a requirement and crosswalk proposals are those of today.',
];
