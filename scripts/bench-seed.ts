// One organization's risks seeded straight into a file database for the load benches (bench-scale, bench-overhead):
// realistic names and descriptions, a rare word in 1% of them, created_at spread over three years; and the newer
// registers beside them (evidence, documents, tasks; incidents and data-subject requests with an incident manager).
import type { Client } from '@libsql/client';
import { addMembership, createOrganization, createUser } from '../src/accounts.ts';
import { noTokenCache } from '../src/auth/token-cache.ts';
import { createTokenService } from '../src/auth/tokens.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { newId } from '../src/ids.ts';
import { refreshClocks } from '../src/tools/incidents/clock-store.ts';

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
    emailVerified: true,
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

/** The measure of seedNewerRegisters that holds 1% of the evidence. */
export const SEEDED_EVIDENCE_MEASURE = `msr_n${'7'.padStart(23, '0')}`;

/**
 * Evidence items, documents (each with its version 1) and tasks, `rows` of each, and 100 measures each holding 1% of
 * the evidence, inserted straight into an organization in one statement per table: spread over states, dates and
 * types like real registers; a tenth of the tasks assigned to `userId`. Returns a measure with evidence.
 */
export async function seedNewerRegisters(
  client: Client,
  organizationId: string,
  userId: string,
  rows: number,
): Promise<{ measureId: string }> {
  // Ids of their own ('n' + 23 digits), apart from the other seeds' ('%024d').
  const numbered = (prefix: string, index = 'i') => `'${prefix}_n' || printf('%023d', ${index})`;
  const createdAt = "strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i * 7919 % ?) || ' minutes')";
  await client.batch(
    [
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < 100 - 1)
          insert into measures (id, organization_id, name, category, state, created_at, updated_at)
          select ${numbered('msr')}, ?, 'Measure ' || i, 'Bench', 'IN_PROGRESS', '2024-01-01T00:00:00.000Z',
            '2024-01-01T00:00:00.000Z' from n`,
        args: [organizationId],
      },
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1)
          insert into evidence (id, organization_id, title, description, kind, url, collected_on, valid_until,
            created_at, updated_at)
          select ${numbered('evd')}, ?, 'Evidence ' || i,
            case when i % 100 = 42 then 'ransomware drill report' else 'screenshot of a setting' end, 'LINK',
            'https://evidence.example.com/' || i, date('2024-01-01', '+' || (i % 900) || ' days'),
            case when i % 4 = 0 then null else date('2025-06-01', '+' || (i % 700) || ' days') end,
            ${createdAt}, ${createdAt} from n`,
        args: [rows, organizationId, rows, rows],
      },
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1)
          insert into evidence_records (evidence_id, record_id, organization_id)
          select ${numbered('evd')}, ${numbered('msr', 'i % 100')}, ? from n`,
        args: [rows, organizationId],
      },
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1)
          insert into documents (id, organization_id, title, type, status, version, published_version, content,
            review_interval_days, next_review_on, created_at, updated_at)
          select ${numbered('doc')}, ?, 'Document ' || i,
            case i % 5 when 0 then 'POLICY' when 1 then 'PROCEDURE' when 2 then 'STANDARD' when 3 then 'PLAN'
              else 'OTHER' end,
            case when i % 3 = 0 then 'DRAFT' else 'PUBLISHED' end, 1, case when i % 3 = 0 then null else 1 end,
            '# Document ' || i || char(10) || char(10) || 'Scope and rules.', 365,
            date('2025-01-01', '+' || (i % 700) || ' days'), ${createdAt}, ${createdAt} from n`,
        args: [rows, organizationId, rows, rows],
      },
      {
        sql: `insert into document_versions (id, organization_id, document_id, number, status, content, published_at,
            created_at)
          select 'dcv_' || substr(id, 5), organization_id, id, 1, status, content,
            case when status = 'PUBLISHED' then created_at end, created_at from documents where organization_id = ?`,
        args: [organizationId],
      },
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1)
          insert into tasks (id, organization_id, title, description, assignee_user_id, due_on, status, priority,
            created_at, updated_at)
          select ${numbered('tsk')}, ?, 'Task ' || i, 'Follow-up ' || i, case when i % 10 = 0 then ? end,
            case when i % 5 = 0 then null else date('2025-01-01', '+' || (i % 800) || ' days') end,
            case i % 4 when 0 then 'TODO' when 1 then 'IN_PROGRESS' when 2 then 'DONE' else 'CANCELLED' end,
            case i % 3 when 0 then 'LOW' when 1 then 'MEDIUM' else 'HIGH' end, ${createdAt}, ${createdAt} from n`,
        args: [rows, organizationId, userId, rows, rows],
      },
    ],
    'write',
  );
  await client.execute('analyze');
  return { measureId: SEEDED_EVIDENCE_MEASURE };
}

/** Incidents of seedIncidentsAndRequests still open, each with notification clocks running or missed. */
export const OPEN_INCIDENTS = 20;
/** Requests of seedIncidentsAndRequests not answered; a third of them overdue. */
export const OPEN_REQUESTS = 30;

/**
 * Incidents and data-subject requests, `rows` of each, all handled by one incident manager (an account of its own
 * with a `read` token, member of the organization, and the person of its email), in an organization following GDPR
 * and NIS2 in Europe/Paris: most incidents closed (a third of them personal data breaches whose GDPR notice was sent
 * in time, the others without a clock), OPEN_INCIDENTS open, detected 0 to 95 hours before `now` (NIS2 significant,
 * personal data: running and missed clocks); most requests answered, OPEN_REQUESTS open (a third overdue). Inserted
 * in one statement per table; the open incidents' clocks are computed by the service's own refresh, as readers would
 * (test/core/incidents.test.ts holds the closed ones' SQL to what the refresh writes).
 */
export async function seedIncidentsAndRequests(
  database: RiskSeed['database'],
  organizationId: string,
  rows: number,
  now: Date,
): Promise<{ managerToken: string; managerPersonId: string }> {
  const { client } = database;
  const at = now.toISOString();
  const manager = await createUser(database.db, now, {
    emailVerified: true,
    email: 'incident-manager@example.com',
    password: 'scale bench 2',
  });
  await addMembership(database.db, now, organizationId, manager.id, 'EDITOR');
  const managerPersonId = `per_n${'1'.padStart(23, '0')}`;
  const tokens = createTokenService({
    db: database.db,
    cache: noTokenCache,
    cacheTtlSeconds: 0,
    now: () => now,
  });
  const { token: managerToken } = await tokens.create({
    userId: manager.id,
    name: 'scale bench, incident manager',
    scope: 'read',
    organizationIds: null,
    expiresAt: null,
  });
  const numbered = (prefix: string) => `'${prefix}_n' || printf('%023d', i)`;
  const createdAt = "strftime('%Y-%m-%dT%H:%M:%fZ', '2023-01-01', '+' || (i * 7919 % ?) || ' minutes')";
  // Open ones first (i < OPEN_INCIDENTS): detected i * 5 hours before now.
  const detected = `case when i < ${OPEN_INCIDENTS} then strftime('%Y-%m-%dT%H:%M:%fZ', ?, '-' || (i * 5) || ' hours') else ${createdAt} end`;
  await client.batch(
    [
      {
        sql: `update organizations set settings = json(?) where id = ?`,
        args: [
          JSON.stringify({ time_zone: 'Europe/Paris', incident_regimes: ['GDPR', 'NIS2'] }),
          organizationId,
        ],
      },
      {
        sql: `insert into people (id, organization_id, full_name, email, kind, created_at, updated_at)
          values (?, ?, 'Irene Incident', 'incident-manager@example.com', 'EMPLOYEE', ?, ?)`,
        args: [managerPersonId, organizationId, at, at],
      },
      {
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1)
          insert into incidents (id, organization_id, title, description, detected_at, owner_id, severity, category,
            status, personal_data, nis2_significant, created_at, updated_at)
          select ${numbered('inc')}, ?, 'Incident ' || i, 'What happened in incident ' || i, ${detected}, ?,
            case i % 4 when 0 then 'LOW' when 1 then 'MEDIUM' when 2 then 'HIGH' else 'CRITICAL' end,
            case i % 3 when 0 then 'PHISHING' when 1 then 'MALWARE' else 'HUMAN_ERROR' end,
            case when i < ${OPEN_INCIDENTS} then 'OPEN' else 'CLOSED' end,
            case when i < ${OPEN_INCIDENTS} or i % 3 = 0 then 1 else 0 end,
            case when i < ${OPEN_INCIDENTS} then 1 else 0 end, ${createdAt}, ${createdAt} from n`,
        args: [rows, organizationId, at, rows, managerPersonId, rows, rows],
      },
      {
        sql: `insert into incident_notifications (id, organization_id, incident_id, regime, stage, recipient, sent_at,
            created_at, updated_at)
          select 'inn_' || substr(id, 5), organization_id, id, 'GDPR', 'AUTHORITY', 'CNIL',
            strftime('%Y-%m-%dT%H:%M:%fZ', detected_at, '+1 day'), created_at, created_at
          from incidents where organization_id = ? and status = 'CLOSED' and personal_data = 1`,
        args: [organizationId],
      },
      {
        // Open ones first (i < OPEN_REQUESTS): received 10 to 39 days before now, so a third are overdue.
        sql: `with recursive n(i) as (select 0 union all select i + 1 from n where i < ? - 1),
            dated(i, received) as (select i, case when i < ${OPEN_REQUESTS} then date(?, '-' || (10 + i) || ' days')
              else date('2023-01-01', '+' || (i % 1000) || ' days') end from n)
          insert into data_subject_requests (id, organization_id, reference, request_type, received_on, due_on,
            status, response_sent_on, owner_id, created_at, updated_at)
          select ${numbered('dsr')}, ?, 'DSR-' || i,
            case i % 3 when 0 then 'ACCESS' when 1 then 'ERASURE' else 'OBJECTION' end, received,
            date(received, '+1 month'),
            case when i < ${OPEN_REQUESTS} then (case i % 2 when 0 then 'RECEIVED' else 'IN_PROGRESS' end)
              when i % 10 = 0 then 'REJECTED' else 'COMPLETED' end,
            case when i < ${OPEN_REQUESTS} then null else date(received, '+20 days') end, ?,
            ${createdAt}, ${createdAt} from dated`,
        args: [rows, at, organizationId, managerPersonId, rows, rows],
      },
    ],
    'write',
  );
  // The closed incidents' clocks as the refresh computes them (GDPR's notice only, met: they follow no other regime's
  // rules; detected in the first months of 2023, when Paris is at UTC+1), written in one statement; the open
  // incidents' by the refresh readers run.
  await client.batch(
    [
      {
        sql: `insert into incident_deadlines (organization_id, incident_id, regime, stage, due_at, due_on, sent_at, open)
          select i.organization_id, i.id, 'GDPR', 'AUTHORITY',
            strftime('%Y-%m-%dT%H:%M:%fZ', i.detected_at, '+72 hours'),
            date(i.detected_at, '+72 hours', '+1 hour'), n.sent_at, 0
          from incidents i join incident_notifications n on n.incident_id = i.id
          where i.organization_id = ? and i.status = 'CLOSED'`,
        args: [organizationId],
      },
      {
        sql: `delete from incident_clock_queue where incident_id in
          (select id from incidents where organization_id = ? and status = 'CLOSED')`,
        args: [organizationId],
      },
    ],
    'write',
  );
  while ((await refreshClocks(database.db, [organizationId], now)) > 0);
  await client.execute('analyze');
  return { managerToken, managerPersonId };
}
