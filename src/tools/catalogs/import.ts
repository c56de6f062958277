// Imports a framework's catalog (OSCAL or CSV, or a built-in catalogue) by reference: new references are added,
// changed titles, descriptions and places in the tree updated, applicability, justifications and measure links kept;
// references no longer in the catalog are reported and kept unless asked. One batch, all or nothing, with history
// rows; adopting a built-in catalogue creates the organization's framework in the same batch.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { frameworks, requirementMeasures, requirements } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import { changeAfterWrite, changesOfRows } from '../changes.ts';
import { nextUpdatedAt } from '../registers/records.ts';
import { referenceKey } from '../requirements.ts';
import type { ToolContext } from '../types.ts';
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
  framework: { id: string | null; name: string; created: boolean };
  /** The built-in catalogue imported, if one was. */
  catalog: { key: string; revision: number } | null;
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

/** A framework to make in the import's batch (adopting a built-in catalogue for the first time). */
export interface NewFramework {
  organizationId: string;
  name: string;
  version: string | null;
  description: string | null;
}

/** Where an import goes: a framework of the organization, or one it makes; with the built-in catalogue it reads. */
export type ImportTarget =
  | { frameworkId: string; catalog?: { key: string; revision: number } }
  | { create: NewFramework; catalog?: { key: string; revision: number } };

/** The framework of an id, if the caller may write in its organization; else not_found or insufficient_scope. */
export async function writableFramework(ctx: ToolContext, frameworkId: string) {
  const [framework] = await ctx.db
    .select({
      id: frameworks.id,
      name: frameworks.name,
      organization_id: frameworks.organization_id,
      catalog_key: frameworks.catalog_key,
      catalog_revision: frameworks.catalog_revision,
    })
    .from(frameworks)
    .where(eq(frameworks.id, frameworkId));
  if (!framework) throw notFound('Framework');
  requireOrganization(ctx, framework.organization_id, 'write', 'Framework');
  return framework;
}

export async function importCatalog(
  ctx: ToolContext,
  target: ImportTarget,
  catalog: Catalog,
  options: { dryRun: boolean; removeMissing: boolean; tool: string },
): Promise<ImportOutcome> {
  const catalogRef = target.catalog ?? null;
  let framework: {
    id: string;
    name: string;
    organization_id: string;
    catalog_key: string | null;
    catalog_revision: number | null;
  };
  const created = 'create' in target ? target.create : null;
  if (created) {
    requireOrganization(ctx, created.organizationId, 'write');
    framework = {
      id: newId('fwk'),
      name: created.name,
      organization_id: created.organizationId,
      catalog_key: null,
      catalog_revision: null,
    };
  } else framework = await writableFramework(ctx, (target as { frameworkId: string }).frameworkId);
  const existing: Existing[] = created
    ? []
    : await ctx.db
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
  const added = planned.filter((item) => !item.current);
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
    // A dry run makes no framework: it has no id yet.
    framework: {
      id: created && options.dryRun ? null : framework.id,
      name: framework.name,
      created: !!created,
    },
    catalog: catalogRef,
    dry_run: options.dryRun,
    counts: {
      created: added.length,
      updated: updated.length,
      unchanged: planned.length - added.length - updated.length,
      removed: removed.length,
      skipped: catalog.skipped.length,
    },
    created: added.slice(0, LISTED).map((item) => item.entry.reference),
    updated: updated.slice(0, LISTED).map((item) => item.entry.reference),
    removed: removed.slice(0, LISTED).map((row) => row.reference),
    removed_deleted: !options.dryRun && options.removeMissing && removed.length > 0,
    skipped: catalog.skipped.slice(0, LISTED),
    lists_truncated: [added, updated, removed, catalog.skipped].some((list) => list.length > LISTED),
  };
  const catalogChanged =
    catalogRef !== null &&
    (framework.catalog_key !== catalogRef.key || framework.catalog_revision !== catalogRef.revision);
  if (
    options.dryRun ||
    (!created &&
      !catalogChanged &&
      added.length + updated.length + resectioned.length + (options.removeMissing ? removed.length : 0) === 0)
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
  if (created) {
    const values = { name: created.name, description: created.description, version: created.version };
    statements.push(
      ctx.db.insert(frameworks).values({
        id: framework.id,
        organization_id: framework.organization_id,
        ...values,
        catalog_key: catalogRef?.key ?? null,
        catalog_revision: catalogRef?.revision ?? null,
        created_at: now,
        updated_at: now,
      }),
      changeAfterWrite(ctx, {
        tool: options.tool,
        kind: 'framework',
        recordId: framework.id,
        organizationId: framework.organization_id,
        action: 'add',
        before: null,
        after: values,
        at: now,
      }),
    );
  } else if (catalogRef && catalogChanged) {
    statements.push(
      ctx.db
        .update(frameworks)
        .set({
          catalog_key: catalogRef.key,
          catalog_revision: catalogRef.revision,
          updated_at: nextUpdatedAt(frameworks.updated_at, now),
        } as never)
        .where(eq(frameworks.id, framework.id)),
    );
  }
  for (const item of added) {
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
