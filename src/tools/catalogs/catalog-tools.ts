// listCatalogs (the built-in catalogues, their counts and crosswalks, which the organization adopted) and
// listCrosswalkMappings (what else a requirement or a measure covers through the crosswalks, or what two catalogues
// share), both reading the catalogue files lazily.
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { z } from 'zod';
import {
  frameworks,
  mappingProposals,
  measures,
  requirementMeasures,
  requirements,
} from '../../db/schema.ts';
import { invalidArguments, notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { cursorSchema, idOf, PAGE_SIZE, shortText, sizeSchema } from '../fields.ts';
import { decodeCursor, encodeCursor, filterFingerprint } from '../pagination.ts';
import {
  notBoth,
  requirementLabelSchema,
  requirementRefSchema,
  resolveRequirementRef,
} from '../requirement-refs.ts';
import { defineTool, READ_ANNOTATIONS, type Tool, type ToolContext } from '../types.ts';
import {
  type CatalogFile,
  catalogKeyOf,
  crosswalkIndex,
  loadAllCatalogFiles,
  loadCatalogFile,
  RELATIONSHIPS,
  type Relationship,
  unknownCatalog,
} from './builtin.ts';

export const CATALOGS_TOOLSET = 'catalogs';

const catalogKeySchema = z
  .string()
  .max(50)
  .describe('Built-in catalogue key (listCatalogs), e.g. "iso-27001-2022".');

/** A key as given, known or refused listing the known ones. */
const knownKey = (given: string, path: string) => catalogKeyOf(given) ?? unknownCatalog(given, path);

export const listCatalogsTool: Tool = defineTool({
  name: 'listCatalogs',
  title: 'List built-in catalogues',
  description:
    'The framework catalogues that ship with the service (ISO/IEC, SOC 2, NIST CSF 2.0, GDPR, NIS2, DORA, HIPAA Security, PCI DSS 4.0): key, name, edition, counts and the crosswalks between them; with organization_id, which it adopted. Adopt one with importFrameworkCatalog {catalog}.',
  scope: 'read',
  toolset: CATALOGS_TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization')
      .optional()
      .describe('Also say which this organization adopted (`org_...`).'),
  }),
  output: z.object({
    catalogs: z
      .array(
        z
          .object({
            key: z.string().describe('Key, for importFrameworkCatalog {catalog}.'),
            name: z.string().describe('Framework name.'),
            version: z.string().describe('Version label.'),
            edition: z.string().describe('The edition its references follow.'),
            publisher: z.string().describe('Publisher of the official document.'),
            description: z.string().describe('What it is.'),
            revision: z.number().int().describe("This file's revision."),
            sections: z.number().int().describe('Sections (not assessed).'),
            requirements: z.number().int().describe('Assessable requirements.'),
            crosswalks: z
              .array(
                z
                  .object({
                    catalog: z.string().describe('The other catalogue.'),
                    mappings: z.number().int().describe('Requirement pairs.'),
                  })
                  .describe('A crosswalk.'),
              )
              .describe('Crosswalks to other catalogues.'),
            adopted: z
              .object({
                framework_id: z.string().describe('`fwk_...`'),
                name: z.string().describe('Its name.'),
                revision: z.number().int().nullable().describe('The revision last imported.'),
              })
              .nullable()
              .describe(
                "The organization's framework adopted from it; null if none (or no organization_id).",
              ),
          })
          .describe('A catalogue.'),
      )
      .describe('Every built-in catalogue.'),
  }),
  async run(ctx, input) {
    const [files, index] = await Promise.all([loadAllCatalogFiles(), crosswalkIndex()]);
    const adopted = new Map<string, { framework_id: string; name: string; revision: number | null }>();
    if (input.organization_id) {
      requireOrganization(ctx, input.organization_id, 'read');
      const rows = await ctx.db
        .select({
          id: frameworks.id,
          name: frameworks.name,
          key: frameworks.catalog_key,
          revision: frameworks.catalog_revision,
        })
        .from(frameworks)
        .where(and(eq(frameworks.organization_id, input.organization_id), isNotNull(frameworks.catalog_key)))
        .orderBy(frameworks.created_at);
      for (const row of rows)
        if (!adopted.has(String(row.key)))
          adopted.set(String(row.key), { framework_id: row.id, name: row.name, revision: row.revision });
    }
    return {
      catalogs: files.map((file) => {
        const sections = file.requirements.filter((item) => item.section).length;
        return {
          key: file.key,
          name: file.name,
          version: file.version,
          edition: file.edition,
          publisher: file.publisher,
          description: file.description,
          revision: file.revision,
          sections,
          requirements: file.requirements.length - sections,
          crosswalks: index.files.flatMap((crosswalk) =>
            crosswalk.from === file.key || crosswalk.to === file.key
              ? [
                  {
                    catalog: crosswalk.from === file.key ? crosswalk.to : crosswalk.from,
                    mappings: crosswalk.mappings.length,
                  },
                ]
              : [],
          ),
          adopted: adopted.get(file.key) ?? null,
        };
      }),
    };
  },
});

// ---- listCrosswalkMappings --------------------------------------------------------------------------------------

const MAPPINGS_NAME = 'listCrosswalkMappings';

/** One catalogue requirement as a mapping shows it, with the organization's requirement of that reference, if any. */
const endSchema = z
  .object({
    catalog: z.string().describe('Catalogue key.'),
    reference: z.string().describe('Reference in it.'),
    title: z.string().describe('Its title in the catalogue.'),
    requirement: requirementLabelSchema
      .extend({ framework_id: z.string().describe('`fwk_...`') })
      .nullable()
      .describe("The organization's requirement of that reference (adopted framework); null if none."),
  })
  .describe('One side.');

interface Source {
  catalog: string;
  reference: string;
  /** The organization's requirement it is, in the measure's or requirement's mode. */
  requirement: { id: string; reference: string; title: string; framework_id: string } | null;
}

/** A framework's catalogue key: the crosswalks reach only frameworks adopted from a built-in catalogue. */
async function adoptedKey(ctx: ToolContext, frameworkId: string): Promise<string> {
  const [framework] = await ctx.db
    .select({ name: frameworks.name, key: frameworks.catalog_key })
    .from(frameworks)
    .where(eq(frameworks.id, frameworkId));
  if (!framework?.key)
    throw invalidArguments(
      `${framework?.name ?? 'This framework'} was not adopted from a built-in catalogue, so no crosswalk reaches it (importFrameworkCatalog {catalog, framework_id} adopts one into it).`,
      [{ path: 'requirement', message: 'Framework without a catalogue' }],
    );
  return framework.key;
}

export const listCrosswalkMappingsTool: Tool = defineTool({
  name: MAPPINGS_NAME,
  title: 'Crosswalk mappings',
  description:
    'Crosswalk: the criteria of another built-in catalogue that correspond to a requirement (the SOC 2 criteria paired with A.8.5), with their relationship and your matching requirements; or every pair of two catalogues (catalog + to_catalog), or what a measure_id reaches.',
  scope: 'read',
  toolset: CATALOGS_TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z
    .strictObject({
      organization_id: idOf('org', 'Organization')
        .optional()
        .describe('Show its requirements beside the references; needed with requirement by name.'),
      requirement_id: idOf('req', 'Requirement').optional().describe('A requirement (`req_...`).'),
      requirement: requirementRefSchema.optional(),
      measure_id: idOf('msr', 'Measure')
        .optional()
        .describe('A measure: through every requirement it covers.'),
      catalog: catalogKeySchema.optional(),
      reference: shortText(50).optional().describe('With catalog: one reference of it.'),
      to_catalog: catalogKeySchema.optional().describe('Only mappings into this catalogue.'),
      size: sizeSchema.optional().describe('Default 20.'),
      cursor: cursorSchema.optional().describe('From next_cursor.'),
    })
    .superRefine(notBoth('requirement_id', 'requirement'))
    .superRefine((value, issues) => {
      const ways = [value.requirement_id ?? value.requirement, value.measure_id, value.catalog].filter(
        (item) => item !== undefined,
      );
      if (ways.length !== 1)
        issues.addIssue({
          code: 'custom',
          path: ['catalog'],
          message: 'Give one of requirement_id (or requirement), measure_id or catalog',
        });
      if (value.reference !== undefined && value.catalog === undefined)
        issues.addIssue({ code: 'custom', path: ['reference'], message: 'Only with catalog' });
    }),
  output: z.object({
    mappings: z
      .array(
        z
          .object({
            relationship: z
              .enum(RELATIONSHIPS)
              .describe(
                'Read from `from`: equal, subset (from covers part of to), superset (more), intersects (overlap).',
              ),
            from: endSchema,
            to: endSchema,
            measure_linked: z
              .boolean()
              .nullable()
              .describe('With measure_id: the measure is already mapped to `to`; else null.'),
            proposal: z
              .object({ id: z.string().describe('`mpp_...`'), status: z.string().describe('Its status.') })
              .nullable()
              .describe('With measure_id: the proposal to map it to `to`, if any.'),
          })
          .describe('A pair of requirements.'),
      )
      .describe('This page.'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    total_count: z.number().int().describe('Pairs on all pages.'),
  }),
  async run(ctx, input) {
    let organizationId = input.organization_id ?? null;
    if (organizationId) requireOrganization(ctx, organizationId, 'read');
    let sources: Source[];
    let measureId: string | null = null;
    if (input.catalog !== undefined) {
      const key = knownKey(input.catalog, 'catalog');
      const index = await crosswalkIndex();
      const references = input.reference ? [input.reference] : [...(index.links.get(key)?.keys() ?? [])];
      sources = references.map((reference) => ({ catalog: key, reference, requirement: null }));
    } else if (input.measure_id !== undefined) {
      measureId = input.measure_id;
      const [measure] = await ctx.db
        .select({ organization_id: measures.organization_id })
        .from(measures)
        .where(eq(measures.id, input.measure_id));
      if (!measure || (organizationId && measure.organization_id !== organizationId))
        throw notFound('Measure');
      requireOrganization(ctx, measure.organization_id, 'read', 'Measure');
      organizationId = measure.organization_id;
      const covered = await ctx.db
        .select({
          id: requirements.id,
          reference: requirements.reference,
          title: requirements.title,
          framework_id: requirements.framework_id,
          key: frameworks.catalog_key,
        })
        .from(requirementMeasures)
        .innerJoin(requirements, eq(requirements.id, requirementMeasures.requirement_id))
        .innerJoin(frameworks, eq(frameworks.id, requirements.framework_id))
        .where(and(eq(requirementMeasures.measure_id, input.measure_id), isNotNull(frameworks.catalog_key)))
        .orderBy(frameworks.name, requirements.reference_key);
      sources = covered.map(({ key, ...requirement }) => ({
        catalog: String(key),
        reference: requirement.reference,
        requirement,
      }));
    } else {
      const resolved = input.requirement_id
        ? await requirementById(ctx, input.requirement_id, organizationId)
        : await resolveRequirementRef(ctx, input.requirement as never, organizationId, 'read');
      organizationId = resolved.organization_id;
      sources = [
        {
          catalog: await adoptedKey(ctx, resolved.framework_id),
          reference: resolved.reference,
          requirement: {
            id: resolved.id,
            reference: resolved.reference,
            title: resolved.title,
            framework_id: resolved.framework_id,
          },
        },
      ];
    }
    const toKey = input.to_catalog !== undefined ? knownKey(input.to_catalog, 'to_catalog') : undefined;
    const index = await crosswalkIndex();
    const pairs = sources.flatMap((source) =>
      (index.links.get(source.catalog)?.get(source.reference) ?? [])
        .filter((link) => toKey === undefined || link.catalog === toKey)
        .map((link) => ({ source, link })),
    );
    const size = input.size ?? PAGE_SIZE.default;
    const fingerprint = filterFingerprint(organizationId ?? '', {
      ...input,
      size: undefined,
      cursor: undefined,
    });
    const cursor = input.cursor ? decodeCursor(input.cursor, MAPPINGS_NAME, 'position', 'ASC') : null;
    if (cursor && cursor.h !== fingerprint)
      throw invalidArguments('The cursor belongs to other arguments: keep them the same across pages.', [
        { path: 'cursor', message: 'Made for other arguments' },
      ]);
    const start = cursor ? Number(cursor.v) : 0;
    const page = pairs.slice(start, start + size);
    const titles = await titlesOf([
      ...page.map((pair) => pair.source),
      ...page.map((pair) => ({ catalog: pair.link.catalog, reference: pair.link.reference })),
    ]);
    const targets = organizationId
      ? await requirementsOf(
          ctx,
          organizationId,
          page.map((pair) => pair.link),
        )
      : new Map<string, { id: string; reference: string; title: string; framework_id: string }>();
    const targetIds = [...targets.values()].map((item) => item.id);
    const [links, proposals] =
      measureId && targetIds.length > 0
        ? await Promise.all([
            ctx.db
              .select({ id: requirementMeasures.requirement_id })
              .from(requirementMeasures)
              .where(
                and(
                  eq(requirementMeasures.measure_id, measureId),
                  inArray(requirementMeasures.requirement_id, targetIds),
                ),
              ),
            ctx.db
              .select({
                id: mappingProposals.id,
                requirement: mappingProposals.requirement_id,
                status: mappingProposals.status,
              })
              .from(mappingProposals)
              .where(
                and(
                  eq(mappingProposals.measure_id, measureId),
                  inArray(mappingProposals.requirement_id, targetIds),
                ),
              ),
          ])
        : [[], []];
    const linked = new Set(links.map((row) => row.id));
    const proposalOf = new Map(proposals.map((row) => [row.requirement, { id: row.id, status: row.status }]));
    const end = (catalog: string, reference: string, requirement: Source['requirement']) => ({
      catalog,
      reference,
      title: titles.get(`${catalog}|${reference}`) ?? reference,
      requirement,
    });
    return {
      mappings: page.map(({ source, link }) => {
        const target = targets.get(`${link.catalog}|${link.reference}`) ?? null;
        return {
          relationship: link.relationship as Relationship,
          from: end(source.catalog, source.reference, source.requirement),
          to: end(link.catalog, link.reference, target),
          measure_linked: measureId ? (target ? linked.has(target.id) : false) : null,
          proposal: measureId && target ? (proposalOf.get(target.id) ?? null) : null,
        };
      }),
      next_cursor:
        start + size < pairs.length
          ? encodeCursor({
              l: MAPPINGS_NAME,
              f: 'position',
              d: 'ASC',
              v: start + size,
              i: '',
              h: fingerprint,
            })
          : null,
      total_count: pairs.length,
    };
  },
});

/** A requirement by id, read in an organization the caller reaches. */
async function requirementById(ctx: ToolContext, id: string, organizationId: string | null) {
  const [found] = await ctx.db
    .select({
      id: requirements.id,
      reference: requirements.reference,
      title: requirements.title,
      organization_id: requirements.organization_id,
      framework_id: requirements.framework_id,
    })
    .from(requirements)
    .where(eq(requirements.id, id));
  if (!found || (organizationId && found.organization_id !== organizationId)) throw notFound('Requirement');
  requireOrganization(ctx, found.organization_id, 'read', 'Requirement');
  return found;
}

/** Catalogue titles of `catalog|reference` keys. */
async function titlesOf(items: { catalog: string; reference: string }[]): Promise<Map<string, string>> {
  const keys = [...new Set(items.map((item) => item.catalog))];
  const files: CatalogFile[] = await Promise.all(keys.map((key) => loadCatalogFile(key)));
  const titles = new Map<string, string>();
  for (const file of files)
    for (const requirement of file.requirements)
      titles.set(`${file.key}|${requirement.ref}`, requirement.title);
  return titles;
}

/** The organization's requirements of catalogue references, in the frameworks adopted from those catalogues. */
async function requirementsOf(
  ctx: ToolContext,
  organizationId: string,
  wanted: { catalog: string; reference: string }[],
) {
  const found = new Map<string, { id: string; reference: string; title: string; framework_id: string }>();
  if (wanted.length === 0) return found;
  const rows = await ctx.db
    .select({
      id: requirements.id,
      reference: requirements.reference,
      title: requirements.title,
      framework_id: requirements.framework_id,
      key: frameworks.catalog_key,
    })
    .from(requirements)
    .innerJoin(frameworks, eq(frameworks.id, requirements.framework_id))
    .where(
      and(
        eq(requirements.organization_id, organizationId),
        inArray(frameworks.catalog_key, [...new Set(wanted.map((item) => item.catalog))]),
        inArray(requirements.reference, [...new Set(wanted.map((item) => item.reference))]),
      ),
    )
    .orderBy(frameworks.created_at);
  for (const { key, ...row } of rows) {
    const at = `${key}|${row.reference}`;
    if (!found.has(at)) found.set(at, row);
  }
  return found;
}
