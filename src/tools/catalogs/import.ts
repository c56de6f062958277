// Imports a framework's catalog (OSCAL or CSV) by reference: new references are added, changed titles,
// descriptions and places in the tree updated, applicability, justifications and measure links kept; references
// no longer in the catalog are reported and kept unless asked. One batch, all or nothing, with history rows.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { frameworks, requirementMeasures, requirements } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import { changeAfterWrite, changesOfRows } from '../changes.ts';
import { idOf, longText } from '../fields.ts';
import { nextUpdatedAt } from '../registers/records.ts';
import { referenceKey } from '../requirements.ts';
import { DELETE_ANNOTATIONS, defineTool, type Tool, type ToolContext } from '../types.ts';
import { parseCatalogCsv } from './csv.ts';
import { type Catalog, type CatalogEntry, checkedCatalog, topsOf } from './entries.ts';
import { parseOscalCatalog } from './oscal.ts';

export const CATALOG_FORMATS = ['oscal', 'csv'] as const;
export type CatalogFormat = (typeof CATALOG_FORMATS)[number];

export function parseCatalog(format: CatalogFormat, content: string): Catalog {
  return checkedCatalog(format === 'oscal' ? parseOscalCatalog(content) : parseCatalogCsv(content));
}

/** Lists in the answer are cut at this many references (the counts are always whole). */
export const LISTED = 500;

export interface ImportOutcome {
  framework: { id: string; name: string };
  dry_run: boolean;
  counts: { created: number; updated: number; unchanged: number; removed: number; skipped: number };
  created: string[];
  updated: string[];
  /** References of the framework that the catalog no longer has: deleted with remove_missing, else kept. */
  removed: string[];
  removed_deleted: boolean;
  skipped: { reference: string; reason: string }[];
  lists_truncated: boolean;
}

type Existing = {
  id: string;
  reference: string;
  title: string;
  description: string | null;
  parent_id: string | null;
  section_id: string | null;
  is_section: boolean;
  position: number | null;
  applicability: string;
  justification: string | null;
};

/** The fields an import writes, as the history shows them (the tool's own names). */
const WRITTEN = ['reference', 'title', 'description', 'parent_id', 'is_section', 'position'] as const;

export async function importCatalog(
  ctx: ToolContext,
  frameworkId: string,
  catalog: Catalog,
  options: { dryRun: boolean; removeMissing: boolean; tool: string },
): Promise<ImportOutcome> {
  const [framework] = await ctx.db
    .select({ id: frameworks.id, name: frameworks.name, organization_id: frameworks.organization_id })
    .from(frameworks)
    .where(eq(frameworks.id, frameworkId));
  if (!framework) throw notFound('Framework');
  requireOrganization(ctx, framework.organization_id, 'write', 'Framework');
  const existing: Existing[] = await ctx.db
    .select({
      id: requirements.id,
      reference: requirements.reference,
      title: requirements.title,
      description: requirements.description,
      parent_id: requirements.parent_id,
      section_id: requirements.section_id,
      is_section: requirements.is_section,
      position: requirements.position,
      applicability: requirements.applicability,
      justification: requirements.justification,
    })
    .from(requirements)
    .where(eq(requirements.framework_id, framework.id));
  const byReference = new Map(existing.map((row) => [row.reference, row]));
  const idOfEntry = new Map(
    catalog.entries.map((entry) => [entry.reference, byReference.get(entry.reference)?.id ?? newId('req')]),
  );
  const tops = topsOf(catalog.entries);
  /** The id of the entry's top-level ancestor; null for a top-level entry. */
  const sectionOf = (entry: CatalogEntry): string | null => {
    const top = tops.get(entry.reference);
    return top == null || top === entry.reference ? null : (idOfEntry.get(top) ?? null);
  };
  const planned = catalog.entries.map((entry) => {
    const values = {
      reference: entry.reference,
      title: entry.title,
      description: entry.description,
      parent_id: entry.parent === null ? null : (idOfEntry.get(entry.parent) ?? null),
      is_section: entry.isSection,
      position: entry.position,
    };
    const current = byReference.get(entry.reference);
    const changed = current ? WRITTEN.filter((field) => current[field] !== values[field]) : [];
    return {
      entry,
      id: idOfEntry.get(entry.reference) as string,
      values,
      section: sectionOf(entry),
      current,
      changed,
    };
  });
  const created = planned.filter((item) => !item.current);
  const updated = planned.filter((item) => item.current && item.changed.length > 0);
  // Moved under another section by a change above them: written, but nothing of their own changed.
  const resectioned = planned.filter(
    (item) => item.current && item.changed.length === 0 && item.current.section_id !== item.section,
  );
  const inCatalog = new Set(catalog.entries.map((entry) => entry.reference));
  const removed = existing
    .filter((row) => !inCatalog.has(row.reference))
    .sort((a, b) => (referenceKey(a.reference) < referenceKey(b.reference) ? -1 : 1));
  const outcome: ImportOutcome = {
    framework: { id: framework.id, name: framework.name },
    dry_run: options.dryRun,
    counts: {
      created: created.length,
      updated: updated.length,
      unchanged: planned.length - created.length - updated.length,
      removed: removed.length,
      skipped: catalog.skipped.length,
    },
    created: created.slice(0, LISTED).map((item) => item.entry.reference),
    updated: updated.slice(0, LISTED).map((item) => item.entry.reference),
    removed: removed.slice(0, LISTED).map((row) => row.reference),
    removed_deleted: !options.dryRun && options.removeMissing && removed.length > 0,
    skipped: catalog.skipped.slice(0, LISTED),
    lists_truncated: [created, updated, removed, catalog.skipped].some((list) => list.length > LISTED),
  };
  if (
    options.dryRun ||
    created.length + updated.length + resectioned.length + (options.removeMissing ? removed.length : 0) === 0
  )
    return outcome;

  const now = ctx.now().toISOString();
  const change = (
    id: string,
    action: 'add' | 'update' | 'delete',
    before: object | null,
    after: object | null,
  ) =>
    changeAfterWrite(ctx, {
      tool: options.tool,
      kind: 'requirement',
      recordId: id,
      organizationId: framework.organization_id,
      action,
      before: before as Record<string, unknown> | null,
      after: after as Record<string, unknown> | null,
      at: now,
    });
  const statements: BatchItem<'sqlite'>[] = [];
  for (const item of created) {
    const row = {
      id: item.id,
      organization_id: framework.organization_id,
      framework_id: framework.id,
      ...item.values,
      reference_key: referenceKey(item.values.reference),
      section_id: item.section,
      applicability: 'APPLICABLE',
      justification: null,
      created_at: now,
      updated_at: now,
    };
    statements.push(
      ctx.db.insert(requirements).values(row),
      change(item.id, 'add', null, {
        framework_id: framework.id,
        ...item.values,
        applicability: 'APPLICABLE',
        justification: null,
        section_id: item.section,
      }),
    );
  }
  for (const item of updated) {
    const before = Object.fromEntries(item.changed.map((field) => [field, item.current?.[field] ?? null]));
    const after = Object.fromEntries(item.changed.map((field) => [field, item.values[field]]));
    statements.push(
      ctx.db
        .update(requirements)
        .set({
          ...item.values,
          reference_key: referenceKey(item.values.reference),
          section_id: item.section,
          updated_at: nextUpdatedAt(requirements.updated_at, now),
        } as never)
        .where(eq(requirements.id, item.id)),
      change(item.id, 'update', before, after),
    );
  }
  for (const item of resectioned) {
    statements.push(
      ctx.db.update(requirements).set({ section_id: item.section }).where(eq(requirements.id, item.id)),
    );
  }
  if (options.removeMissing && removed.length > 0) {
    const ids = removed.map((row) => row.id);
    const fields = [...WRITTEN, 'applicability', 'justification', 'section_id'] as const;
    statements.push(
      ctx.db.delete(requirementMeasures).where(inArray(requirementMeasures.requirement_id, ids)),
      changesOfRows(ctx, {
        tool: options.tool,
        kind: 'requirement',
        action: 'delete',
        table: requirements,
        idColumn: requirements.id,
        organizationColumn: requirements.organization_id,
        before: sql`json_object('framework_id', ${requirements.framework_id}, ${sql.join(
          fields.map((field) => sql`${field}, ${requirements[field]}`),
          sql`, `,
        )})`,
        after: sql`null`,
        at: now,
        where: and(inArray(requirements.id, ids), eq(requirements.framework_id, framework.id)) ?? sql`0`,
      }),
      ctx.db.delete(requirements).where(inArray(requirements.id, ids)),
    );
  }
  // One batch: one transaction on an embedded database, one transactional pipeline over HTTP. The call's log row too.
  await ctx.db.batch([...statements, ...ctx.writeExtras(sql`1`)] as [
    BatchItem<'sqlite'>,
    ...BatchItem<'sqlite'>[],
  ]);
  return outcome;
}

export const importCatalogTool: Tool = defineTool({
  name: 'importFrameworkCatalog',
  title: "Import a framework's requirements",
  description:
    "Load a framework's requirements from an OSCAL catalog (JSON, e.g. NIST SP 800-53) or CSV (ref, title, description, parent, section), matched by reference: new ones added, changed titles, descriptions and tree places updated, applicability and measure links kept. dry_run: the plan only.",
  scope: 'write',
  toolset: 'frameworks',
  // remove_missing deletes requirements: a client asks before it calls.
  annotations: DELETE_ANNOTATIONS,
  input: z.strictObject({
    framework_id: idOf('fwk', 'Framework').describe('The framework to load (`fwk_...`).'),
    format: z.enum(CATALOG_FORMATS).describe('oscal (an OSCAL catalog in JSON) or csv.'),
    content: longText(2_000_000, 1).describe('The catalog as text, within the request size limit.'),
    dry_run: z.boolean().default(false).describe('true: answer what would change, write nothing.'),
    remove_missing: z
      .boolean()
      .default(false)
      .describe('true: delete the requirements the catalog no longer has (else kept and listed).'),
  }),
  output: z.object({
    framework: z
      .object({ id: z.string().describe('`fwk_...`'), name: z.string().describe('Name.') })
      .describe('The framework.'),
    dry_run: z.boolean().describe('Nothing was written.'),
    counts: z
      .object({
        created: z.number().int().describe('New requirements.'),
        updated: z.number().int().describe('Changed title, description or place.'),
        unchanged: z.number().int().describe('Already as in the catalog.'),
        removed: z.number().int().describe('In the framework, not in the catalog.'),
        skipped: z.number().int().describe('Read but not imported (withdrawn).'),
      })
      .describe('How many.'),
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
  }),
  async run(ctx, input) {
    const catalog = parseCatalog(input.format, input.content);
    return importCatalog(ctx, input.framework_id, catalog, {
      dryRun: input.dry_run,
      removeMissing: input.remove_missing,
      tool: 'importFrameworkCatalog',
    });
  },
});
