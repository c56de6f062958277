// One organization's risks seeded straight into a file database for the load benches (bench-scale, bench-overhead):
// realistic names and descriptions, a rare word in 1% of them, created_at spread over three years.
import { createOrganization, createUser } from '../src/accounts.ts';
import { noTokenCache } from '../src/auth/token-cache.ts';
import { createTokenService } from '../src/auth/tokens.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { newId } from '../src/ids.ts';

const WORDS = [
  'laptop',
  'supplier',
  'outage',
  'phishing',
  'backup',
  'payroll',
  'contract',
  'insider',
  'datacenter',
  'firmware',
  'password',
  'invoice',
  'misconfigured',
  'storage',
  'network',
  'retention',
];
/** The word of the filter.query case: in exactly 1% of the rows. */
export const RARE_WORD = 'ransomware';

/** A migrated database with one user, one organization and a `read` token; `growTo` adds its risks. */
export async function prepareRiskSeed(databaseUrl: string) {
  const database = await openNodeDatabase(databaseUrl);
  await migrateDatabase(database);
  const now = () => new Date();
  const user = await createUser(database.db, now(), {
    email: 'scale@example.com',
    password: 'scale bench 1',
  });
  const organization = await createOrganization(database.db, now(), { name: 'Scale', ownerId: user.id });
  const tokens = createTokenService({ db: database.db, cache: noTokenCache, cacheTtlSeconds: 0, now });
  const { token } = await tokens.create({
    userId: user.id,
    name: 'scale bench',
    scope: 'read',
    organizationIds: null,
    expiresAt: null,
  });
  const base = Date.parse('2024-01-01T00:00:00.000Z');
  let count = 0;
  const BATCH = 500;
  return {
    databaseUrl,
    userId: user.id,
    token,
    organizationId: organization.id,
    database,
    get count() {
      return count;
    },
    /** Adds risks until the organization has `size`, in write transactions of 20 batches of 500 rows. */
    async growTo(size: number) {
      while (count < size) {
        const statements = [];
        for (let b = 0; b < 20 && count < size; b++) {
          const n = Math.min(BATCH, size - count);
          const args: (string | number | null)[] = [];
          for (let k = 0; k < n; k++) {
            const i = count + k;
            const likelihood = (i % 5) + 1;
            const impact = (Math.floor(i / 5) % 5) + 1;
            const residualLikelihood = Math.max(1, likelihood - (i % 2));
            const residualImpact = impact;
            // Spread over ~3 years, 1 s apart with a jitter: created_at order differs from insertion order.
            const created = new Date(base + i * 1000 + ((i * 7919) % 997)).toISOString();
            const word = (j: number) => WORDS[(i * 31 + j * 17) % WORDS.length];
            const description =
              i % 100 === 42
                ? `${word(1)} ${RARE_WORD} attack on the ${word(2)}`
                : `${word(1)} ${word(2)} ${word(3)} scenario ${i}`;
            args.push(
              newId('rsk'),
              organization.id,
              `Risk ${word(4)} ${i}`,
              description,
              'General',
              'OPEN',
              'MITIGATE',
              null,
              likelihood,
              impact,
              likelihood * impact,
              residualLikelihood,
              residualImpact,
              residualLikelihood * residualImpact,
              null,
              created,
              created,
            );
          }
          const row = `(${Array(17).fill('?').join(',')})`;
          statements.push({
            sql: `insert into risks (id, organization_id, name, description, category, status, treatment, owner_id, inherent_likelihood, inherent_impact, inherent_score, residual_likelihood, residual_impact, residual_score, note, created_at, updated_at) values ${Array(n).fill(row).join(',')}`,
            args,
          });
          count += n;
        }
        await database.client.batch(statements, 'write');
      }
      // What the host would have after running a while (PRAGMA optimize where the code runs it).
      await database.client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    },
    close() {
      database.client.close();
    },
  };
}

export type RiskSeed = Awaited<ReturnType<typeof prepareRiskSeed>>;
