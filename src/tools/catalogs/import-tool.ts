// importFrameworkCatalog: a framework's requirements from a built-in catalogue (adopted: the organization's framework
// made from it, or updated), from OSCAL or CSV given inline, or from a stored file read as a stream. Adopting a
// catalogue then proposes the mappings its crosswalks suggest (proposals.ts), never applied until accepted.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { frameworks } from '../../db/schema.ts';
import { invalidArguments } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { idOf, longText } from '../fields.ts';
import { DELETE_ANNOTATIONS, defineTool, type Tool, type ToolContext } from '../types.ts';
import { catalogEntries, catalogKeyOf, loadCatalogFile, unknownCatalog } from './builtin.ts';
import { type Catalog, checkedCatalog } from './entries.ts';
import {
  CATALOG_FORMATS,
  type ImportOutcome,
  type ImportTarget,
  importCatalog,
  parseCatalog,
  writableFramework,
} from './import.ts';
import { type ProposalCounts, proposeMappings } from './proposals.ts';
import { catalogFromStoredFile } from './stored-source.ts';

export const IMPORT_TOOL_NAME = 'importFrameworkCatalog';

/** What adopting (or importing) answers: the import, and the proposals made after it. */
export type AdoptOutcome = ImportOutcome & { proposals: ProposalCounts | null };

/**
 * Adopts a built-in catalogue in an organization: into `frameworkId`, else the framework adopted from it before, else
 * a new one named after it; then proposes the crosswalks' mappings into it. The web page and the demo call it too.
 */
export async function adoptCatalog(
  ctx: ToolContext,
  options: {
    key: string;
    organizationId: string | null;
    frameworkId: string | null;
    dryRun: boolean;
    removeMissing: boolean;
  },
): Promise<AdoptOutcome> {
  const key = catalogKeyOf(options.key) ?? unknownCatalog(options.key);
  const file = await loadCatalogFile(key);
  let organizationId = options.organizationId;
  let target: ImportTarget;
  const catalog = { key, revision: file.revision };
  if (options.frameworkId) {
    const framework = await writableFramework(ctx, options.frameworkId);
    if (organizationId !== null && framework.organization_id !== organizationId)
      throw invalidArguments('framework_id is a framework of another organization than organization_id.', [
        { path: 'framework_id', message: 'Of another organization' },
      ]);
    organizationId = framework.organization_id;
    target = { frameworkId: framework.id, catalog };
  } else {
    if (organizationId === null)
      throw invalidArguments('Give organization_id (or framework_id) with catalog.', [
        { path: 'organization_id', message: 'Required with catalog' },
      ]);
    requireOrganization(ctx, organizationId, 'write');
    const [adopted] = await ctx.db
      .select({ id: frameworks.id })
      .from(frameworks)
      .where(and(eq(frameworks.organization_id, organizationId), eq(frameworks.catalog_key, key)))
      .orderBy(frameworks.created_at)
      .limit(1);
    target = adopted
      ? { frameworkId: adopted.id, catalog }
      : {
          create: {
            organizationId,
            name: file.name,
            version: file.version,
            description: file.description,
          },
          catalog,
        };
  }
  const outcome = await importCatalog(ctx, target, checkedCatalog(catalogEntries(file)), {
    dryRun: options.dryRun,
    removeMissing: options.removeMissing,
    tool: IMPORT_TOOL_NAME,
  });
  const frameworkId = outcome.framework.id;
  const proposals =
    options.dryRun || !frameworkId
      ? null
      : await proposeMappings(ctx, organizationId, [frameworkId], { dryRun: false, withExtras: false });
  return { ...outcome, proposals };
}

const countsSchema = z
  .object({
    created: z.number().int().describe('New requirements.'),
    updated: z.number().int().describe('Changed title, description or place.'),
    unchanged: z.number().int().describe('Already as in the catalog.'),
    removed: z.number().int().describe('In the framework, not in the catalog.'),
    skipped: z.number().int().describe('Read but not imported (withdrawn).'),
  })
  .describe('How many.');

const SOURCES = ['catalog', 'content', 'file_id'] as const;

export const importCatalogTool: Tool = defineTool({
  name: IMPORT_TOOL_NAME,
  title: "Import a framework's requirements",
  description:
    'Load a built-in catalogue (catalog: ISO/IEC, SOC 2, NIST CSF, GDPR, NIS2, DORA, HIPAA, PCI DSS; listCatalogs) or OSCAL/CSV (inline or file_id) as a framework, matched by reference: applicability and measure links kept. Adopting proposes crosswalk mappings. dry_run: the plan only.',
  scope: 'write',
  toolset: 'frameworks',
  // remove_missing deletes requirements: a client asks before it calls.
  annotations: DELETE_ANNOTATIONS,
  input: z
    .strictObject({
      catalog: z
        .string()
        .max(50)
        .optional()
        .describe(
          'Built-in catalogue key, e.g. "iso-27001-2022", "soc2-2017": makes the organization\'s framework from it, or updates the one adopted before.',
        ),
      organization_id: idOf('org', 'Organization')
        .optional()
        .describe('With catalog: the organization (`org_...`); not needed with framework_id.'),
      framework_id: idOf('fwk', 'Framework')
        .optional()
        .describe('The framework to load (`fwk_...`); needed with content or file_id.'),
      // Read in any letter case (published as a type and the values in words, as the upper-case enums are).
      format: z
        .preprocess(
          (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
          z.enum(CATALOG_FORMATS),
        )
        .optional()
        .describe('With content or file_id: oscal (JSON) or csv.'),
      content: longText(2_000_000, 1)
        .optional()
        .describe('The catalog as text, within the request size limit.'),
      file_id: idOf('fil', 'Stored file')
        .optional()
        .describe('A catalog stored with POST /api/v1/orgs/<org>/files, read as a stream (any size).'),
      dry_run: z.boolean().default(false).describe('true: answer what would change, write nothing.'),
      remove_missing: z
        .boolean()
        .default(false)
        .describe('true: delete the requirements the catalog no longer has (else kept and listed).'),
    })
    .superRefine((value, issues) => {
      const given = SOURCES.filter((name) => value[name] !== undefined);
      if (given.length !== 1)
        issues.addIssue({
          code: 'custom',
          path: [given[1] ?? 'catalog'],
          message: `Give one of catalog, content or file_id${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`,
        });
      if ((value.content !== undefined || value.file_id !== undefined) && value.format === undefined)
        issues.addIssue({ code: 'custom', path: ['format'], message: 'Required with content or file_id' });
      if ((value.content !== undefined || value.file_id !== undefined) && value.framework_id === undefined)
        issues.addIssue({
          code: 'custom',
          path: ['framework_id'],
          message: 'Required with content or file_id (addFramework makes one)',
        });
    }),
  output: z.object({
    framework: z
      .object({
        id: z.string().nullable().describe('`fwk_...`; null on a dry run that would make it.'),
        name: z.string().describe('Name.'),
        created: z.boolean().describe('True: made by this import (adopting a catalogue).'),
      })
      .describe('The framework.'),
    catalog: z
      .object({ key: z.string().describe('Key.'), revision: z.number().int().describe('File revision.') })
      .nullable()
      .describe('The built-in catalogue imported; null for content or a file.'),
    dry_run: z.boolean().describe('Nothing was written.'),
    counts: countsSchema,
    created: z.array(z.string()).describe('Their references.'),
    updated: z.array(z.string()).describe('Their references.'),
    removed: z.array(z.string()).describe('Their references.'),
    removed_deleted: z.boolean().describe('True: the removed ones were deleted (remove_missing).'),
    skipped: z
      .array(
        z
          .object({ reference: z.string().describe('Reference.'), reason: z.string().describe('Why.') })
          .describe('Skipped.'),
      )
      .describe('Entries not imported.'),
    lists_truncated: z.boolean().describe('True: a list holds only its first 500 references.'),
    proposals: z
      .object({
        created: z.number().int().describe('New proposals.'),
        pending: z.number().int().describe('Waiting for a decision in this framework.'),
      })
      .nullable()
      .describe('Crosswalk mappings proposed into it (adopting a catalogue); null otherwise.'),
  }),
  async run(ctx, input) {
    if (input.catalog !== undefined)
      return adoptCatalog(ctx, {
        key: input.catalog,
        organizationId: input.organization_id ?? null,
        frameworkId: input.framework_id ?? null,
        dryRun: input.dry_run,
        removeMissing: input.remove_missing,
      });
    const framework = await writableFramework(ctx, input.framework_id as string);
    if (input.organization_id !== undefined && input.organization_id !== framework.organization_id)
      throw invalidArguments('framework_id is a framework of another organization than organization_id.', [
        { path: 'framework_id', message: 'Of another organization' },
      ]);
    const format = input.format ?? 'oscal';
    const catalog: Catalog = input.file_id
      ? await catalogFromStoredFile(ctx, input.file_id, framework.organization_id, format)
      : parseCatalog(format, input.content as string);
    const outcome = await importCatalog(ctx, { frameworkId: framework.id }, catalog, {
      dryRun: input.dry_run,
      removeMissing: input.remove_missing,
      tool: IMPORT_TOOL_NAME,
    });
    return { ...outcome, proposals: null };
  },
});
