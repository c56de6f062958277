// Requirements named the way people name them: a framework (its name, name and version, catalogue key or id) and a
// reference ("A.5.18"), resolved to the requirement's id in one place for every tool that takes a requirement.
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { frameworks, requirements } from '../db/schema.ts';
import { AppError, invalidArguments } from '../errors.ts';
import { isIdOf } from '../ids.ts';
import { requireOrganization } from './access.ts';
import { shortText } from './fields.ts';
import type { ToolContext, ToolScope } from './types.ts';

/** `{framework, reference}`: a requirement named instead of by its id. */
export const requirementRefSchema = z
  .strictObject({
    framework: shortText(200)
      .optional()
      .describe(
        'Its framework: name ("ISO/IEC 27001:2022"), name and version, catalogue key ("iso-27001-2022") or `fwk_...`; optional when one framework has the reference.',
      ),
    reference: shortText(50).describe('Its reference, e.g. "A.5.18", "CC6.1".'),
  })
  .describe('The requirement by framework and reference, instead of its id.');

export type RequirementRef = z.output<typeof requirementRefSchema>;

/** How results name a requirement: `{id, reference, title}`. */
export const requirementLabelSchema = z
  .object({
    id: z.string().describe('`req_...`'),
    reference: z.string().describe('Reference.'),
    title: z.string().describe('Title.'),
  })
  .describe('A requirement.');

/** A requirement found by reference, with what the tools that asked for it need to know. */
export interface ResolvedRequirement {
  id: string;
  reference: string;
  title: string;
  organization_id: string;
  framework_id: string;
  is_section: boolean;
  applicability: string;
}

interface FrameworkRow {
  id: string;
  name: string;
  version: string | null;
  catalog_key: string | null;
  organization_id: string;
}

const fold = (text: string) => text.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();

/** The names a framework answers to: its name, with its version (space or colon), its catalogue key. */
function namesOf(framework: FrameworkRow): string[] {
  const names = [framework.name];
  if (framework.version)
    names.push(`${framework.name} ${framework.version}`, `${framework.name}:${framework.version}`);
  if (framework.catalog_key) names.push(framework.catalog_key);
  return names.map(fold);
}

const frameworkColumns = {
  id: frameworks.id,
  name: frameworks.name,
  version: frameworks.version,
  catalog_key: frameworks.catalog_key,
  organization_id: frameworks.organization_id,
};

const described = (framework: { id: string; name: string }) => `${framework.name} (${framework.id})`;

/**
 * The framework a person names, among the organization's (`organizationId`), or by its id in any organization the
 * caller reaches (checked for `mode`). Several or none: an error saying which ones there are.
 */
export async function resolveFramework(
  ctx: ToolContext,
  given: string,
  organizationId: string | null,
  mode: ToolScope,
  path: string,
): Promise<FrameworkRow> {
  if (isIdOf('fwk', given)) {
    const [found] = await ctx.db.select(frameworkColumns).from(frameworks).where(eq(frameworks.id, given));
    if (!found || (organizationId !== null && found.organization_id !== organizationId))
      throw new AppError('not_found', `${path}: framework ${given} not found in this organization.`);
    requireOrganization(ctx, found.organization_id, mode, 'Framework');
    return found;
  }
  if (organizationId === null)
    throw invalidArguments(
      `${path}: name the framework by its id (\`fwk_...\`) here, or give organization_id with it.`,
      [{ path, message: 'Framework named by name without an organization' }],
    );
  requireOrganization(ctx, organizationId, mode);
  const all = await ctx.db
    .select(frameworkColumns)
    .from(frameworks)
    .where(eq(frameworks.organization_id, organizationId));
  const wanted = fold(given);
  const matches = all.filter((framework) => namesOf(framework).includes(wanted));
  // Its own name outranks a name with a version or a catalogue key another framework answers to.
  const exact = matches.filter((framework) => fold(framework.name) === wanted);
  const chosen = exact.length > 0 ? exact : matches;
  if (chosen.length === 1 && chosen[0]) return chosen[0];
  if (chosen.length > 1)
    throw invalidArguments(
      `${path}: ${chosen.length} frameworks answer to "${given}": ${chosen.map(described).join(', ')}. Give the id.`,
      [{ path, message: 'Several frameworks match' }],
    );
  throw new AppError(
    'not_found',
    `${path}: no framework "${given}" in this organization${all.length > 0 ? `; it has ${all.map(described).join(', ')}` : ' (it has none: adopt one with importFrameworkCatalog {catalog})'}.`,
    [{ path, message: 'No such framework' }],
  );
}

const requirementColumns = {
  id: requirements.id,
  reference: requirements.reference,
  title: requirements.title,
  organization_id: requirements.organization_id,
  framework_id: requirements.framework_id,
  is_section: requirements.is_section,
  applicability: requirements.applicability,
};

/** The requirements whose reference is `reference`, exactly, else in any letter case. */
async function byReference(ctx: ToolContext, scope: SQL, reference: string) {
  const exact = await ctx.db
    .select(requirementColumns)
    .from(requirements)
    .where(and(scope, eq(requirements.reference, reference)));
  if (exact.length > 0) return exact;
  return ctx.db
    .select(requirementColumns)
    .from(requirements)
    .where(and(scope, sql`lower(${requirements.reference}) = lower(${reference})`));
}

/**
 * The requirement `ref` names, in the organization (`organizationId`, or the framework's when named by id), for a tool
 * of `mode`. A reference found in several frameworks asks which; one found in none says where it looked.
 */
export async function resolveRequirementRef(
  ctx: ToolContext,
  ref: RequirementRef,
  organizationId: string | null,
  mode: ToolScope,
  path = 'requirement',
): Promise<ResolvedRequirement> {
  if (ref.framework !== undefined) {
    const framework = await resolveFramework(ctx, ref.framework, organizationId, mode, `${path}.framework`);
    const [found] = await byReference(ctx, eq(requirements.framework_id, framework.id), ref.reference);
    if (!found)
      throw new AppError(
        'not_found',
        `${path}: no requirement ${ref.reference} in ${framework.name} (${framework.id}). listRequirements with filter.framework_id lists its references.`,
        [{ path: `${path}.reference`, message: 'No such reference in the framework' }],
      );
    return found;
  }
  if (organizationId === null)
    throw invalidArguments(`${path}: give requirement.framework (its id here), or the requirement's id.`, [
      { path: `${path}.framework`, message: 'Required here' },
    ]);
  requireOrganization(ctx, organizationId, mode);
  const found = await byReference(ctx, eq(requirements.organization_id, organizationId), ref.reference);
  if (found.length === 1 && found[0]) return found[0];
  if (found.length === 0)
    throw new AppError(
      'not_found',
      `${path}: no requirement ${ref.reference} in this organization's frameworks.`,
      [{ path: `${path}.reference`, message: 'No such reference' }],
    );
  const names = await ctx.db
    .select({ id: frameworks.id, name: frameworks.name })
    .from(frameworks)
    .where(eq(frameworks.organization_id, organizationId));
  const nameOf = new Map(names.map((framework) => [framework.id, framework.name]));
  throw invalidArguments(
    `${path}: ${ref.reference} is in ${found.length} frameworks: ${found
      .map((item) => described({ id: item.framework_id, name: nameOf.get(item.framework_id) ?? '?' }))
      .join(', ')}. Which one? Give requirement.framework.`,
    [{ path: `${path}.framework`, message: `${ref.reference} is in several frameworks` }],
  );
}

/**
 * The requirement of a tool's input: its id (`idArgument`) or `{framework, reference}` (`refArgument`), exactly one
 * of them. Answers the id; a reference is resolved in `organizationId` (null: the framework must be named by id).
 */
export async function requirementIdOf(
  ctx: ToolContext,
  input: Record<string, unknown>,
  organizationId: string | null,
  mode: ToolScope,
  idArgument = 'requirement_id',
  refArgument = 'requirement',
): Promise<string> {
  const id = input[idArgument];
  const ref = input[refArgument] as RequirementRef | undefined;
  if (typeof id === 'string') return id;
  if (ref) return (await resolveRequirementRef(ctx, ref, organizationId, mode, refArgument)).id;
  throw invalidArguments(`Give ${idArgument} (\`req_...\`) or ${refArgument} {framework, reference}.`, [
    { path: idArgument, message: `Required, or ${refArgument}` },
  ]);
}

/** A refinement for an input taking a requirement either way: never both. */
export function notBoth(idArgument: string, refArgument: string) {
  return (value: Record<string, unknown>, issues: z.core.$RefinementCtx) => {
    if (value[idArgument] !== undefined && value[refArgument] !== undefined)
      issues.addIssue({
        code: 'custom',
        path: [refArgument],
        message: `Give ${idArgument} or ${refArgument}, not both`,
      });
  };
}
