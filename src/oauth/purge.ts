// Registered OAuth clients nobody uses any more are forgotten: a client that registered itself and was not used for
// UNUSED_CLIENT_DAYS is deleted. A client that comes back gets invalid_client (401) and registers again.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiTokens, oauthClients, oauthGrants } from '../db/schema.ts';

export const UNUSED_CLIENT_DAYS = 90;

/**
 * Deletes the registered clients (dynamic registration; metadata-document clients are a cache) that registered
 * before the cutoff and since then were given no grant and had no token of theirs issued (a refresh) or used.
 * Returns their ids.
 */
export async function purgeUnusedClients(db: Db, now: Date): Promise<string[]> {
  const cutoff = new Date(now.getTime() - UNUSED_CLIENT_DAYS * 86_400_000).toISOString();
  const purged = await db
    .delete(oauthClients)
    .where(
      sql`${oauthClients.kind} = 'registered' and ${oauthClients.created_at} < ${cutoff}
        and not exists (select 1 from ${oauthGrants} where ${oauthGrants.client_id} = ${oauthClients.client_id}
          and ${oauthGrants.created_at} >= ${cutoff})
        and not exists (select 1 from ${oauthGrants} join ${apiTokens} on ${apiTokens.grant_id} = ${oauthGrants.id}
          where ${oauthGrants.client_id} = ${oauthClients.client_id}
            and (${apiTokens.created_at} >= ${cutoff} or ${apiTokens.last_used_at} >= ${cutoff}))`,
    )
    .returning({ client_id: oauthClients.client_id });
  return purged.map((row) => row.client_id);
}
