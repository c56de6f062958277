// `compliance-mcp framework import`: a catalog file of any size the request limit would refuse, imported into an
// organization's framework (found by id or name, or created), as that organization's first owner.
import { readFile } from 'node:fs/promises';
import { and, asc, eq } from 'drizzle-orm';
import type { Principal } from '../../auth/principal.ts';
import type { Db } from '../../db/client.ts';
import { frameworks, memberships } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { REGISTERS } from '../index.ts';
import { contextOutsideSeam } from '../types.ts';
import type { Catalog } from './entries.ts';
import { type CatalogFormat, type ImportOutcome, importCatalog, LISTED, parseCatalog } from './import.ts';

/** What importing `catalog` into a new, empty framework would do (its id is null: not made by a dry run). */
function newFrameworkPlan(name: string, catalog: Catalog) {
  const created = catalog.entries.map((entry) => entry.reference);
  return {
    framework: { id: null, name },
    dry_run: true,
    counts: {
      created: created.length,
      updated: 0,
      unchanged: 0,
      removed: 0,
      skipped: catalog.skipped.length,
    },
    created: created.slice(0, LISTED),
    updated: [],
    removed: [],
    removed_deleted: false,
    skipped: catalog.skipped.slice(0, LISTED),
    lists_truncated: created.length > LISTED || catalog.skipped.length > LISTED,
  };
}

/** The CLI acts in an organization as its first owner (there is no token). */
export async function ownerPrincipal(db: Db, organizationId: string): Promise<Principal> {
  const [owner] = await db
    .select({ userId: memberships.user_id })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.role, 'OWNER')))
    .orderBy(asc(memberships.created_at));
  if (!owner) throw notFound('Organization');
  return {
    tokenId: 'cli',
    userId: owner.userId,
    scope: 'read_write',
    roles: { [organizationId]: 'OWNER' },
    expiresAt: null,
  };
}

export async function importFrameworkFile(
  db: Db,
  now: () => Date,
  options: {
    organizationId: string;
    frameworkId: string | undefined;
    name: string | undefined;
    version: string | undefined;
    format: CatalogFormat;
    file: string;
    dryRun: boolean;
    removeMissing: boolean;
  },
): Promise<ImportOutcome | ReturnType<typeof newFrameworkPlan>> {
  const principal = await ownerPrincipal(db, options.organizationId);
  const ctx = contextOutsideSeam(db, principal, now, 'cli');
  // The whole file is read and parsed in memory: a few times its size (README, "Frameworks").
  const catalog = parseCatalog(options.format, await readFile(options.file, 'utf8'));
  let frameworkId = options.frameworkId;
  if (!frameworkId) {
    if (!options.name) throw new AppError('invalid_arguments', 'Give --framework FWK_ID or --name NAME.');
    const [found] = await db
      .select({ id: frameworks.id })
      .from(frameworks)
      .where(and(eq(frameworks.organization_id, options.organizationId), eq(frameworks.name, options.name)));
    frameworkId = found?.id;
    if (!frameworkId && !options.dryRun) {
      const add = REGISTERS.framework.add;
      const added = await add.run(
        ctx,
        add.input.parse({
          organization_id: options.organizationId,
          name: options.name,
          ...(options.version ? { version: options.version } : {}),
        }),
      );
      frameworkId = (added.framework as { id: string }).id;
    }
    // A dry run for a framework not made yet: everything would be created.
    if (!frameworkId) return newFrameworkPlan(options.name, catalog);
  }
  return importCatalog(ctx, frameworkId, catalog, {
    dryRun: options.dryRun,
    removeMissing: options.removeMissing,
    tool: 'importFrameworkCatalog',
  });
}
