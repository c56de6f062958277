// Reads as of a date on the Worker (libSQL over HTTP): the rebuild's SQL (json_each, indexed by, the filter run over a
// common table expression named as the table) answers there as on the Node host; history rows keep the record's state
// (record_changes.state) there too, and a record with several changes reads from them at each time.
import { exports } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { BASE } from '../contract/host.ts';
import { ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

let token = '';

async function call(tool: string, args: Row): Promise<{ status: number; body: Row }> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return { status: response.status, body: (await response.json()) as Row };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('reads as of a date on the Worker', () => {
  it('rebuilds a risk, a filtered page and the heat map as they stood before an update', async () => {
    // An organization of its own: no other test changes its risks between the reads compared.
    const owned = await ownedOrganization(testDatabase(), 'asof');
    const org = owned.organizationId;
    token = owned.token;
    const name = `Worker as-of ${crypto.randomUUID().slice(0, 8)}`;
    const risk = (
      await call('addRisk', { organization_id: org, name, inherent_likelihood: 2, inherent_impact: 3 })
    ).body.risk as Row;
    await pause();
    const before = new Date().toISOString();
    const heatBefore = (await call('getRiskHeatMap', { organization_id: org })).body;
    await pause();
    await call('updateRisk', { id: risk.id, name: `${name} renamed`, status: 'CLOSED' });

    const then = await call('getRisk', { id: risk.id, as_of: before });
    expect(then.status).toBe(200);
    expect([(then.body.risk as Row).name, (then.body.risk as Row).status]).toEqual([name, 'OPEN']);
    const page = await call('listRisks', {
      organization_id: org,
      filter: { status: 'OPEN', query: name },
      as_of: before,
    });
    expect(page.status).toBe(200);
    expect((page.body.risks as Row[]).map((item) => item.id)).toEqual([risk.id]);
    const heat = await call('getRiskHeatMap', { organization_id: org, as_of: before });
    expect(heat.status).toBe(200);
    expect([heat.body.inherent, heat.body.open_risks]).toEqual([heatBefore.inherent, heatBefore.open_risks]);
  });

  it('keeps the state after each change and reads a record with several changes at each time', async () => {
    const database = testDatabase();
    const owned = await ownedOrganization(database, 'asof-states');
    const org = owned.organizationId;
    token = owned.token;
    const measure = (await call('addMeasure', { organization_id: org, name: 'Backups' })).body.measure as Row;
    const risk = (
      await call('addRisk', {
        organization_id: org,
        name: 'State 0',
        inherent_likelihood: 4,
        inherent_impact: 3,
      })
    ).body.risk as Row;
    const snapshots: { time: string; risk: Row }[] = [];
    for (let step = 1; step <= 4; step++) {
      await pause();
      if (step === 2) await call('linkRiskMeasure', { risk_id: risk.id, measure_id: measure.id });
      else await call('updateRisk', { id: risk.id, name: `State ${step}`, residual_likelihood: step });
      await pause();
      snapshots.push({ time: new Date().toISOString(), risk: (await call('getRisk', { id: risk.id })).body });
      await pause();
    }
    await call('updateRisk', { id: risk.id, name: 'State today' });
    const states = await database.db.all<{ action: string; state: string | null }>(
      sql`select action, state from record_changes where record_id = ${risk.id} order by created_at, rowid`,
    );
    expect(states.map((row) => row.action)).toEqual(['add', 'update', 'link', 'update', 'update', 'update']);
    expect(states.every((row) => row.state !== null)).toBe(true);
    expect((JSON.parse(states[2]?.state as string) as Row).measure_ids).toEqual([measure.id]);
    for (const snap of snapshots) {
      const then = await call('getRisk', { id: risk.id, as_of: snap.time });
      expect(then.status).toBe(200);
      const { as_of: _note, ...answer } = then.body;
      expect(answer).toEqual(snap.risk);
    }
    expect(new Set(snapshots.map((snap) => (snap.risk.risk as Row).name)).size).toBe(3);
  });
});
