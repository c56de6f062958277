// Migrations 0025 and 0026 on a database that already holds risks and a closed nonconformity without root cause:
// the risks keep their scores and get the levels of the default 5x5 (low 1-7, medium 8-14, high 15-25, appetite
// medium); the nonconformity stays CLOSED and is flagged, not rewritten.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER, openNodeDatabase } from '../../src/db/open-node.ts';
import { closingGaps } from '../../src/tools/nonconformities.ts';

const dir = mkdtempSync(join(tmpdir(), 'cmcp-migration-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The migrations folder with its journal cut before the first migration whose tag starts so. */
function foldersBefore(tag: string): string {
  const folder = join(dir, 'migrations');
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag.startsWith(tag));
  expect(at).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

/** Inserts a row with the given values and a plain value in every other NOT NULL column without a default. */
async function insert(
  client: Awaited<ReturnType<typeof openNodeDatabase>>['client'],
  table: string,
  given: Record<string, unknown>,
) {
  const columns = await client.execute(`pragma table_info("${table}")`);
  const values: Record<string, unknown> = { ...given };
  for (const column of columns.rows) {
    const name = String(column.name);
    if (name in values || Number(column.notnull) !== 1 || column.dflt_value !== null) continue;
    values[name] = /INT|REAL/i.test(String(column.type)) ? 1 : '2026-01-15T00:00:00.000Z';
  }
  const names = Object.keys(values);
  await client.execute({
    sql: `insert into "${table}" (${names.map((name) => `"${name}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
    args: Object.values(values) as never[],
  });
}

describe('migrations 0025 risk_method and 0026 risk_acceptance_backfill', () => {
  it('give existing risks the default levels and keep a closed nonconformity closed, flagged', async () => {
    const database = await openNodeDatabase(`file:${join(dir, 'before.db')}`);
    try {
      await migrate(database.db, { migrationsFolder: foldersBefore('0025_') });
      await insert(database.client, 'organizations', { id: 'org_a', name: 'Before' });
      const risk = (id: string, inherent: [number, number], residual: [number, number]) =>
        insert(database.client, 'risks', {
          id,
          organization_id: 'org_a',
          name: id,
          category: 'General',
          status: 'OPEN',
          treatment: 'MITIGATE',
          inherent_likelihood: inherent[0],
          inherent_impact: inherent[1],
          inherent_score: inherent[0] * inherent[1],
          residual_likelihood: residual[0],
          residual_impact: residual[1],
          residual_score: residual[0] * residual[1],
        });
      await risk('rsk_low', [1, 7], [1, 1]);
      await risk('rsk_medium', [2, 4], [2, 4]);
      await risk('rsk_high', [5, 5], [3, 5]);
      await insert(database.client, 'nonconformities', {
        id: 'ncf_closed',
        organization_id: 'org_a',
        reference_id: 'NC-OLD',
        status: 'CLOSED',
        corrective_action: 'x',
      });

      await migrate(database.db, { migrationsFolder: MIGRATIONS_FOLDER });

      const risks = await database.client.execute(
        'select id, inherent_score, inherent_level, residual_score, residual_level, above_appetite, accepted_until from risks order by id',
      );
      expect(risks.rows.map((row) => ({ ...row }))).toEqual([
        {
          id: 'rsk_high',
          inherent_score: 25,
          inherent_level: 'high',
          residual_score: 15,
          residual_level: 'high',
          above_appetite: 1,
          accepted_until: null,
        },
        {
          id: 'rsk_low',
          inherent_score: 7,
          inherent_level: 'low',
          residual_score: 1,
          residual_level: 'low',
          above_appetite: 0,
          accepted_until: null,
        },
        {
          id: 'rsk_medium',
          inherent_score: 8,
          inherent_level: 'medium',
          residual_score: 8,
          residual_level: 'medium',
          above_appetite: 0,
          accepted_until: null,
        },
      ]);
      const nonconformity = await database.client.execute(
        "select status, corrective_action, root_cause, effectiveness_result from nonconformities where id = 'ncf_closed'",
      );
      expect({ ...nonconformity.rows[0] }).toEqual({
        status: 'CLOSED',
        corrective_action: 'x',
        root_cause: null,
        effectiveness_result: null,
      });
      // What the tools flag it with (closure_incomplete): everything closing asks but the corrective action.
      expect(closingGaps({ ...nonconformity.rows[0] })).toEqual([
        'root_cause',
        'effectiveness_checked_on',
        'effectiveness_checked_by_id',
        'effectiveness_result',
      ]);
    } finally {
      database.client.close();
    }
  });
});
