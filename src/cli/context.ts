// How an operator's command acts in an organization: as its first owner (there is no token), with a context whose
// writes carry their call-log row in their own batch, as a call through the seam (src/surfaces/invoke.ts) does.
import { and, asc, eq } from 'drizzle-orm';
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { memberships } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import type { FileRuntime } from '../files/store.ts';
import { contextOutsideSeam, type ToolContext } from '../tools/types.ts';
import { callLogRow } from '../usage.ts';

/** The organization's first owner, as the principal the CLI acts as. */
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

/**
 * A tool context for one CLI command named as the tool it runs (`importRecords`, `addEvidence`, ...): history rows
 * and the call-log row carry the same call id and surface `cli`, and the log row rides in the write's batch.
 */
export async function cliContext(
  db: Db,
  organizationId: string,
  now: () => Date,
  tool: string,
  files?: FileRuntime,
): Promise<ToolContext> {
  const principal = await ownerPrincipal(db, organizationId);
  const started = performance.now();
  const ctx = contextOutsideSeam(db, principal, now, 'cli', files);
  ctx.organizationId = organizationId;
  ctx.writeExtras = (landed) => [
    callLogRow(
      db,
      {
        token_id: principal.tokenId,
        user_id: principal.userId,
        tool,
        surface: 'cli',
        organization_id: organizationId,
        outcome: 'ok',
        duration_ms: Math.round(performance.now() - started),
        created_at: now().toISOString(),
        call_id: ctx.callId,
      },
      landed,
    ),
  ];
  return ctx;
}
