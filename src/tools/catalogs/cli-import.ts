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
import { type CatalogFormat, type ImportOutcome, importCatalog, parseCatalog } from './import.ts';

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
): Promise<ImportOutcome> {
  const principal = await ownerPrincipal(db, options.organizationId);
  const ctx = contextOutsideSeam(db, principal, now, 'cli');
  // The whole file is read and parsed in memory: a few times its size (README, "Frameworks").
  const catalog = parseCatalog(options.format, await readFile(options.file, 'utf8'));
  if (options.frameworkId)
    return importCatalog(ctx, { frameworkId: options.frameworkId }, catalog, {
      dryRun: options.dryRun,
      removeMissing: options.removeMissing,
      tool: 'importFrameworkCatalog',
    });
  if (!options.name) throw new AppError('invalid_arguments', 'Give --framework FWK_ID or --name NAME.');
  const [found] = await db
    .select({ id: frameworks.id })
    .from(frameworks)
    .where(and(eq(frameworks.organization_id, options.organizationId), eq(frameworks.name, options.name)));
  // Not found: made in the import's batch (a dry run plans against an empty one and makes nothing), with the
  // values addFramework would accept.
  const values = found
    ? null
    : (REGISTERS.framework.add.input.parse({
        organization_id: options.organizationId,
        name: options.name,
        ...(options.version ? { version: options.version } : {}),
      }) as { name: string; version?: string });
  const target = values
    ? {
        create: {
          organizationId: options.organizationId,
          name: values.name,
          version: values.version ?? null,
          description: null,
        },
      }
    : { frameworkId: (found as { id: string }).id };
  return importCatalog(ctx, target, catalog, {
    dryRun: options.dryRun,
    removeMissing: options.removeMissing,
    tool: 'importFrameworkCatalog',
  });
}
