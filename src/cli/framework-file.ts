// `compliance-mcp framework import`: a catalog file of any size the request limit would refuse, imported into an
// organization's framework (found by id or name, or created), as that organization's first owner.
import { readFile } from 'node:fs/promises';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { frameworks } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import {
  type CatalogFormat,
  type ImportOutcome,
  importCatalog,
  parseCatalog,
} from '../tools/catalogs/import.ts';
import { REGISTERS } from '../tools/index.ts';
import { cliContext } from './context.ts';

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
  const ctx = await cliContext(db, options.organizationId, now, 'importFrameworkCatalog');
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
