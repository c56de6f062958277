// Webhook signing secrets at rest: sealed with the endpoint's id (src/secrets/keyring.ts), and the pass that encrypts
// what is not yet under the current key (rows from before encryption, or a previous key's) in place.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { SecretKeyring } from '../secrets/keyring.ts';

/** The context a secret of endpoint `id` is sealed with: a value copied to another endpoint's row does not open. */
function contextOf(endpointId: string): string {
  return `webhook_endpoints ${endpointId}`;
}

export function sealEndpointSecret(
  secrets: SecretKeyring,
  endpointId: string,
  secret: string,
): Promise<string> {
  return secrets.seal(secret, contextOf(endpointId));
}

export function openEndpointSecret(
  secrets: SecretKeyring,
  endpointId: string,
  stored: string,
): Promise<string> {
  return secrets.open(stored, contextOf(endpointId));
}

interface StoredSecrets {
  id: string;
  secret: string;
  previous_secret: string | null;
}

/** Rows read per statement by the pass below. */
const PASS_PAGE = 200;

/**
 * Encrypts under the current key every endpoint secret that is not (plaintext from before encryption, or sealed with
 * a previous key), at most `limit` rows; answers how many rows changed. Each row is written only if it still holds
 * what was read, so a rotation meanwhile is never undone. Throws SecretUnreadableError on a value no key reads.
 */
export async function reencryptEndpointSecrets(
  db: Db,
  secrets: SecretKeyring,
  limit = Number.POSITIVE_INFINITY,
): Promise<number> {
  const { current } = await secrets.keyIds();
  if (!current) return 0;
  const sealedPrefix = `enc:v1:${current}:`;
  let changed = 0;
  let after = '';
  while (changed < limit) {
    // Rows whose secret or previous secret is not under the current key, by id (a page at a time).
    const rows = await db.all<StoredSecrets>(sql`
      SELECT id, secret, previous_secret FROM webhook_endpoints
      WHERE id > ${after} AND (substr(secret, 1, ${sealedPrefix.length}) <> ${sealedPrefix}
        OR (previous_secret IS NOT NULL AND substr(previous_secret, 1, ${sealedPrefix.length}) <> ${sealedPrefix}))
      ORDER BY id LIMIT ${PASS_PAGE}`);
    if (rows.length === 0) break;
    const writes = [];
    for (const row of rows.slice(0, Math.max(0, Math.min(rows.length, limit - changed)))) {
      const again = (stored: string) =>
        secrets
          .isCurrent(stored)
          .then(async (isCurrent) =>
            isCurrent
              ? stored
              : sealEndpointSecret(secrets, row.id, await openEndpointSecret(secrets, row.id, stored)),
          );
      const secret = await again(row.secret);
      const previous = row.previous_secret === null ? null : await again(row.previous_secret);
      writes.push(
        db.run(sql`
          UPDATE webhook_endpoints SET secret = ${secret}, previous_secret = ${previous}
          WHERE id = ${row.id} AND secret = ${row.secret} AND previous_secret IS ${row.previous_secret}`),
      );
    }
    const [first, ...rest] = writes;
    if (!first) break;
    for (const result of await db.batch([first, ...rest])) changed += result.rowsAffected;
    after = rows.at(-1)?.id ?? after;
    if (rows.length < PASS_PAGE) break;
  }
  return changed;
}

/** The ids of the keys the stored secrets are sealed with (null stands for plaintext from before encryption). */
export async function endpointSecretKeyIds(db: Db, secrets: SecretKeyring): Promise<Set<string | null>> {
  const rows = await db.all<{ value: string }>(sql`
    SELECT DISTINCT substr(secret, 1, 16) AS value FROM webhook_endpoints
    UNION SELECT DISTINCT substr(previous_secret, 1, 16) FROM webhook_endpoints WHERE previous_secret IS NOT NULL`);
  return new Set(rows.map((row) => secrets.keyIdOf(row.value)));
}
