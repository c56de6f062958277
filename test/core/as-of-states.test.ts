// Reads as of a date from the states history keeps (record_changes.state, issue 38 item 2 at scale): a risk with many
// changes (updates, links, unlinks) read at many times equals what getRisk answered then; history rows without a
// state (written before states were kept) mixed with rows holding one still rebuild it; a deleted record too.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

const HOUR = 3_600_000;
let runtime: TestRuntime;
let token: string;
let org: string;
let clock = new Date(Date.now() + HOUR);

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'States Org');
  token = await createToken(runtime, alice);
});

afterAll(async () => {
  await runtime?.cleanup();
});

/** A call one second after the last. */
const call = (tool: string, args: Row) => {
  clock = new Date(clock.getTime() + 1000);
  return ok(runtime, token, tool, args);
};

const STATUSES = ['OPEN', 'IN_TREATMENT', 'MITIGATED'];

/** Snapshots of getRisk and the first listRisks page, each with the time it was taken. */
interface Snapshot {
  time: string;
  risk: Row;
  risks: Row;
}

function withoutNote(answer: Row): Row {
  const { as_of: _note, ...rest } = answer;
  return rest;
}

describe('reads as of a date from kept states', () => {
  const snapshots: Snapshot[] = [];
  let busy = '';
  let gone = '';
  const measures: string[] = [];

  async function snapshot(): Promise<void> {
    clock = new Date(clock.getTime() + 1000);
    const time = clock.toISOString();
    snapshots.push({
      time,
      risk: await call('getRisk', { id: busy }),
      risks: await call('listRisks', { organization_id: org, size: 100 }),
    });
  }

  beforeAll(async () => {
    for (const name of ['Encryption', 'Backups', 'Training'])
      measures.push(((await call('addMeasure', { organization_id: org, name })).measure as Row).id as string);
    busy = (
      (
        await call('addRisk', {
          organization_id: org,
          name: 'Busy risk',
          inherent_likelihood: 5,
          inherent_impact: 2,
        })
      ).risk as Row
    ).id as string;
    gone = (
      (
        await call('addRisk', {
          organization_id: org,
          name: 'Short-lived',
          note: 'first',
          inherent_likelihood: 2,
          inherent_impact: 2,
        })
      ).risk as Row
    ).id as string;
    await snapshot();
    for (let step = 1; step <= 24; step++) {
      const measure = measures[step % measures.length] as string;
      if (step % 6 === 2) await call('linkRiskMeasure', { risk_id: busy, measure_id: measure });
      else if (step % 6 === 5)
        await call('unlinkRiskMeasure', { risk_id: busy, measure_id: measures[2] as string });
      else
        await call('updateRisk', {
          id: busy,
          name: `Busy risk v${step}`,
          status: STATUSES[step % STATUSES.length],
          residual_likelihood: (step % 5) + 1,
          note: step % 4 === 0 ? null : `note ${step}`,
        });
      if (step === 7) await call('updateRisk', { id: gone, note: 'second' });
      if (step === 13) await call('deleteRisk', { id: gone });
      if (step % 3 === 0) await snapshot();
    }
    await call('updateRisk', { id: busy, name: 'Busy risk today', status: 'CLOSED' });
    // Linked today: labels are the names of the records linked today (the note says so), so keep it linked.
    await call('linkRiskMeasure', { risk_id: busy, measure_id: measures[2] as string });
  });

  async function expectSnapshots(): Promise<void> {
    for (const snap of snapshots) {
      const risk = await call('getRisk', { id: busy, as_of: snap.time });
      expect(withoutNote(risk)).toEqual(snap.risk);
      const risks = await call('listRisks', { organization_id: org, size: 100, as_of: snap.time });
      expect(withoutNote(risks)).toEqual(withoutNote(snap.risks));
    }
  }

  it('keeps the whole state after each change of a register record, none for a delete', async () => {
    const rows = await runtime.database.db.all<{ action: string; state: string | null }>(
      sql`select action, state from record_changes where record_id = ${busy} order by created_at, rowid`,
    );
    expect(rows).toHaveLength(27);
    expect(rows.every((row) => row.state !== null)).toBe(true);
    const last = JSON.parse(rows.at(-1)?.state as string) as Row;
    expect([last.name, last.status, last.measure_ids]).toEqual(['Busy risk today', 'CLOSED', [measures[2]]]);
    const linked = rows
      .filter((row) => row.action === 'link')
      .map((row) => JSON.parse(row.state as string) as Row);
    expect(linked).toHaveLength(5);
    expect(linked[0]?.measure_ids).toEqual([measures[2]]);
    const [deleted] = await runtime.database.db.all<{ state: string | null }>(
      sql`select state from record_changes where record_id = ${gone} and action = 'delete'`,
    );
    expect(deleted).toEqual({ state: null });
  });

  it('rebuilds a record with many changes at each time as it was answered then', async () => {
    expect(snapshots).toHaveLength(9);
    // The snapshots differ from each other: the comparisons could fail.
    const names = new Set(snapshots.map((snap) => (snap.risk.risk as Row).name));
    expect(names.size).toBe(9);
    await expectSnapshots();
    const then = await call('getRisk', { id: gone, as_of: snapshots[3]?.time });
    expect((then.risk as Row).note).toBe('second');
  });

  it('reads the state history keeps, not the undone changes', async () => {
    // A state changed by hand shows in the read as of its time: the read is the lookup, not the undo.
    const snap = snapshots[4] as Snapshot;
    const [row] = await runtime.database.db.all<{ id: string; state: string }>(
      sql`select id, state from record_changes where record_id = ${busy} and created_at <= ${snap.time} order by created_at desc, rowid desc limit 1`,
    );
    const state = JSON.parse(row?.state as string) as Row;
    await runtime.database.db.run(
      sql`update record_changes set state = ${JSON.stringify({ ...state, name: 'From the state' })} where id = ${row?.id}`,
    );
    const risk = await call('getRisk', { id: busy, as_of: snap.time });
    expect((risk.risk as Row).name).toBe('From the state');
    await runtime.database.db.run(sql`update record_changes set state = ${row?.state} where id = ${row?.id}`);
  });

  it('rebuilds from history rows without states (older rows), alone or mixed with rows holding one', async () => {
    const rows = await runtime.database.db.all<{ id: string }>(
      sql`select id from record_changes where organization_id = ${org} order by created_at, rowid`,
    );
    const saved = await runtime.database.db.all<{ id: string; state: string | null }>(
      sql`select id, state from record_changes where organization_id = ${org}`,
    );
    // Every other row without its state, then the older half, then all of them.
    const variants = [
      rows.filter((_, index) => index % 2 === 0),
      rows.slice(0, Math.floor(rows.length / 2)),
      rows,
    ];
    for (const cleared of variants) {
      await runtime.database.db.run(
        sql`update record_changes set state = null where id in (select value from json_each(${JSON.stringify(cleared.map((row) => row.id))}))`,
      );
      await expectSnapshots();
      for (const row of saved)
        await runtime.database.db.run(
          sql`update record_changes set state = ${row.state} where id = ${row.id}`,
        );
    }
    const gone404 = await callDirect(runtime, token, 'getRisk', { id: gone, as_of: snapshots.at(-1)?.time });
    expect(gone404.status).toBe(404);
  });
});
