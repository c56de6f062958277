// OAuth clients nobody uses are forgotten: one never used (no grant) after NEVER_USED_CLIENT_HOURS, one no longer used
// after UNUSED_CLIENT_DAYS. A client that comes back gets invalid_client (401) and registers again (or is fetched again).
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiTokens, oauthClients, oauthGrants } from '../db/schema.ts';

export const UNUSED_CLIENT_DAYS = 90;
/** A registration (or a stored metadata document) no person consented to within this time was not for anyone. */
export const NEVER_USED_CLIENT_HOURS = 24;

/**
 * Deletes the clients, registered or known by their metadata document, that were stored before NEVER_USED_CLIENT_HOURS
 * and were never given a grant, or stored before UNUSED_CLIENT_DAYS and since then were given no grant and had no
 * token of theirs issued (a refresh) or used. Returns their ids.
 */
export async function purgeUnusedClients(db: Db, now: Date): Promise<string[]> {
  const cutoff = new Date(now.getTime() - UNUSED_CLIENT_DAYS * 86_400_000).toISOString();
  const neverUsedCutoff = new Date(now.getTime() - NEVER_USED_CLIENT_HOURS * 3_600_000).toISOString();
  const purged = await db
    .delete(oauthClients)
    .where(
      sql`(${oauthClients.created_at} < ${neverUsedCutoff}
          and not exists (select 1 from ${oauthGrants} where ${oauthGrants.client_id} = ${oauthClients.client_id}))
        or (${oauthClients.created_at} < ${cutoff}
        and not exists (select 1 from ${oauthGrants} where ${oauthGrants.client_id} = ${oauthClients.client_id}
          and ${oauthGrants.created_at} >= ${cutoff})
        and not exists (select 1 from ${oauthGrants} join ${apiTokens} on ${apiTokens.grant_id} = ${oauthGrants.id}
          where ${oauthGrants.client_id} = ${oauthClients.client_id}
            and (${apiTokens.created_at} >= ${cutoff} or ${apiTokens.last_used_at} >= ${cutoff})))`,
    )
    .returning({ client_id: oauthClients.client_id });
  return purged.map((row) => row.client_id);
}
