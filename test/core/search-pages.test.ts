// filter.query pages read three ways (src/tools/register.ts): sparse (at most the text count cap: the FTS index's
// matches, sorted), dense (more: the sort index walked, each row tested), and dense with a fence (the walk meets
// sparse matches and hands over to the FTS index after its fence). Whichever way a page is read, paging through a
// query must give exactly the records containing the text, in the requested order, each once. The records are
// written straight into the table (thousands; normalisation bypassed on purpose for the Kelvin sign). Run over an
// embedded file and over a remote libSQL server (the local dev server), where the first page's reads are batched
// differently (one round trip for the count and the dense reads).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HranaServer, startHranaServer } from '../../scripts/dev/hrana-server.ts';
import { newId } from '../../src/ids.ts';
import { TEXT_COUNT_CAP } from '../../src/tools/pagination.ts';
import {
  type Actor,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = {
  id: string;
  reference_id: string;
  description: string;
  due_date: string | null;
  created_at: string;
};
type Page = {
  nonconformities: Row[];
  next_cursor: string | null;
  total_count: number;
  total_count_capped: boolean;
};

const COUNT = 2000;
interface World {
  runtime: TestRuntime;
  token: string;
  org: string;
  rows: Row[];
}

/** The text of record i: words chosen so each query below has a known density and place. */
function textOf(i: number): string {
  const words = ['Finding'];
  if (i % 10 === 3) words.push('frequent lapse'); // dense: 10% of the records, everywhere
  if (i === 1321) words.push('frequent lap\u017fe'); // long s, in a dense query: the index folds it to s
  if (i % 10 === 5) words.push('weak control'); // dense
  if (i === 1322) words.push('wea\u212a control'); // Kelvin sign (not NFC: only in data older than normalisation)
  if (i < 150) words.push('ancient gap'); // more than the cap, all among the oldest: the walk meets its fence
  if (i % 331 === 5) words.push('rare slip'); // sparse: 6 records
  if (i % 10 === 7) words.push('Überprüfung fehlt'); // dense, not ASCII: the FTS index tests each row
  if (i === 1323) words.push('\u017fecret'); // the same, in sparse queries
  if (i === 1324) words.push('\u212aelvin');
  return `${words.join(' ')} number ${i}`;
}

async function createWorld(databaseUrl?: string): Promise<World> {
  const runtime = await createTestRuntime({
    env: { RATE_LIMIT_PER_MINUTE: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
  });
  const alice: Actor = await createActor(runtime, 'alice');
  const org = await createOrg(runtime, alice, 'Search pages');
  const token = await createToken(runtime, alice, { organizationIds: [org] });
  const rows: Row[] = [];
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  for (let i = 0; i < COUNT; i++) {
    // created_at grows with i (so 'ancient' is the oldest), with ties every 7 records to exercise the id tie-break.
    const created = new Date(base + Math.floor(i / 7) * 7000).toISOString();
    rows.push({
      id: newId('ncf'),
      reference_id: `NC-${String((i * 7919) % COUNT).padStart(5, '0')}`,
      description: textOf(i),
      due_date: i % 3 === 0 ? null : `2026-${String((i % 12) + 1).padStart(2, '0')}-15`,
      created_at: created,
    });
  }
  const statements = rows.map((row) => ({
    sql: `insert into nonconformities (id, organization_id, reference_id, description, due_date, status, created_at, updated_at)
          values (?, ?, ?, ?, ?, 'OPEN', ?, ?)`,
    args: [row.id, org, row.reference_id, row.description, row.due_date, row.created_at, row.created_at],
  }));
  await runtime.database.client.batch(statements, 'write');
  await runtime.database.client.execute('ANALYZE');
  return { runtime, token, org, rows };
}

type Order = { field: 'created_at' | 'reference_id' | 'due_date'; direction: 'ASC' | 'DESC' };

/** SQLite's order: NULL first, then values (BINARY), ties by id; reversed for DESC. */
function sorted(matches: Row[], order: Order): string[] {
  const key = (row: Row) => row[order.field];
  const compare = (a: Row, b: Row) => {
    const x = key(a);
    const y = key(b);
    if (x !== y) {
      if (x === null) return -1;
      if (y === null) return 1;
      return x < y ? -1 : 1;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
  const ascending = [...matches].sort(compare);
  return (order.direction === 'ASC' ? ascending : ascending.reverse()).map((row) => row.id);
}

async function walk({ runtime, token, org }: World, query: string, order: Order, size: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let first: Page | undefined;
  for (let pages = 0; pages < COUNT; pages++) {
    const page = await ok<Page>(runtime, token, 'listNonconformities', {
      organization_id: org,
      filter: { query },
      order_by: order,
      size,
      ...(cursor ? { cursor } : {}),
    });
    first ??= page;
    expect(page.nonconformities.length).toBeLessThanOrEqual(size);
    if (page.next_cursor) expect(page.nonconformities).toHaveLength(size);
    ids.push(...page.nonconformities.map((row) => row.id));
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return { ids, first: first as Page };
}

const ORDERS: Order[] = [
  { field: 'created_at', direction: 'DESC' },
  { field: 'created_at', direction: 'ASC' },
  { field: 'reference_id', direction: 'ASC' },
  { field: 'due_date', direction: 'DESC' },
  { field: 'due_date', direction: 'ASC' },
];

const CASES: { query: string; matches: (row: Row, index: number) => boolean }[] = [
  { query: 'FREQUENT lapse', matches: (_, i) => i % 10 === 3 || i === 1321 },
  { query: 'weak CONTROL', matches: (_, i) => i % 10 === 5 || i === 1322 },
  { query: 'ancient', matches: (_, i) => i < 150 },
  { query: 'rare SLIP', matches: (_, i) => i % 331 === 5 },
  { query: 'überPRÜFUNG', matches: (_, i) => i % 10 === 7 },
  { query: 'SECRET', matches: (_, i) => i === 1323 },
  { query: 'kelvin', matches: (_, i) => i === 1324 },
  {
    query: 'number 4',
    matches: (row) => / 4/.test(row.description.slice(row.description.indexOf('number'))),
  },
];

for (const kind of ['embedded', 'remote'] as const) {
  describe(`filter.query pages, sparse and dense (${kind} database)`, () => {
    let world: World;
    let server: HranaServer | undefined;
    let dir: string | undefined;
    beforeAll(async () => {
      if (kind === 'remote') {
        dir = mkdtempSync(join(tmpdir(), 'cmcp-search-remote-'));
        server = await startHranaServer({ databaseUrl: `file:${join(dir, 'remote.db')}` });
      }
      world = await createWorld(server?.url);
      expect(world.runtime.database.client.protocol).toBe(kind === 'remote' ? 'http' : 'file');
    }, 120_000);
    afterAll(async () => {
      await world?.runtime.cleanup();
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const { query, matches } of CASES) {
      it(`${JSON.stringify(query)}: every matching record once, in order, for every order`, async () => {
        const expected = world.rows.filter((row, index) => matches(row, index));
        expect(expected.length).toBeGreaterThan(0);
        for (const order of ORDERS) {
          for (const size of [20, 7]) {
            const { ids, first } = await walk(world, query, order, size);
            expect(ids, `${query} ${order.field} ${order.direction} size ${size}`).toEqual(
              sorted(expected, order),
            );
            expect(first.total_count).toBe(Math.min(expected.length, TEXT_COUNT_CAP));
            expect(first.total_count_capped).toBe(expected.length > TEXT_COUNT_CAP);
          }
        }
      }, 120_000);
    }
  });
}

// A dense first page in created_at or updated_at DESC passes over the index entries its count knows do not match
// (embedded databases only): the count's matches are the organization's, with every filter, so another
// organization's matches interleaved with them, another filter, and an order the rowids do not follow (records
// updated out of order, so the walk starts far below the count's edge and crosses it) must not change a page.
describe('filter.query dense first pages past known matches (embedded database)', () => {
  type Known = {
    id: string;
    org: string;
    status: string;
    created_at: string;
    updated_at: string;
    text: string;
  };
  let runtime: TestRuntime;
  let token: string;
  let orgA: string;
  let orgB: string;
  const rows: Known[] = [];
  const STATUSES = ['OPEN', 'IN_PROGRESS', 'CLOSED'];

  beforeAll(async () => {
    runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    const alice = await createActor(runtime, 'alice');
    orgA = await createOrg(runtime, alice, 'Known A');
    orgB = await createOrg(runtime, alice, 'Known B');
    token = await createToken(runtime, alice, { organizationIds: [orgA, orgB] });
    const base = Date.parse('2025-03-01T00:00:00.000Z');
    for (let i = 0; i < 3000; i++) {
      const created = new Date(base + Math.floor(i / 3) * 1000).toISOString();
      rows.push({
        id: newId('ncf'),
        // The two organizations alternate in runs of 1 to 3 records, so their rowids interleave.
        org: (i + Math.floor(i / 5)) % 2 === 0 ? orgA : orgB,
        status: STATUSES[Math.floor(i / 6) % 3] as string,
        created_at: created,
        updated_at: created,
        text: `${i % 6 === 1 || i % 6 === 4 ? 'shared phrase' : 'other words'} item ${i}`,
      });
    }
    await runtime.database.client.batch(
      rows.map((row, i) => ({
        sql: `insert into nonconformities (id, organization_id, reference_id, description, status, created_at, updated_at)
              values (?, ?, ?, ?, ?, ?, ?)`,
        args: [row.id, row.org, `NC-${i}`, row.text, row.status, row.created_at, row.updated_at],
      })),
      'write',
    );
    // Old records updated last, in an order unrelated to their rowids; a few of the newest matches stop matching.
    const later = Date.parse('2026-01-01T00:00:00.000Z');
    const updates: { sql: string; args: (string | number)[] }[] = [];
    for (let k = 0; k < 400; k++) {
      const row = rows[(k * 389) % 1200] as Known;
      row.updated_at = new Date(later + ((k * 7919) % 400) * 1000).toISOString();
      updates.push({
        sql: 'update nonconformities set updated_at = ? where id = ?',
        args: [row.updated_at, row.id],
      });
    }
    for (const row of rows.slice(-60).filter((_, k) => k % 4 === 0)) {
      row.text = `no longer ${row.text.replace('shared phrase', 'changed')}`;
      updates.push({
        sql: 'update nonconformities set description = ? where id = ?',
        args: [row.text, row.id],
      });
    }
    await runtime.database.client.batch(updates, 'write');
    await runtime.database.client.execute('ANALYZE');
  }, 120_000);

  afterAll(async () => {
    await runtime?.cleanup();
  });

  function expected(org: string, field: 'created_at' | 'updated_at', statuses?: string[]): string[] {
    return rows
      .filter(
        (row) =>
          row.org === org &&
          row.text.toLowerCase().includes('shared phrase') &&
          (!statuses || statuses.includes(row.status)),
      )
      .sort((a, b) => (a[field] !== b[field] ? (a[field] < b[field] ? 1 : -1) : a.id < b.id ? 1 : -1))
      .map((row) => row.id);
  }

  /** The first page, then (`all`) every later page too. */
  async function walkAll(
    org: string,
    field: 'created_at' | 'updated_at',
    size: number,
    statuses: string[] | undefined,
    all: boolean,
  ) {
    const ids: string[] = [];
    let cursor: string | undefined;
    let first: Page | undefined;
    for (let pages = 0; pages < (all ? 3000 : 1); pages++) {
      const page = await ok<Page>(runtime, token, 'listNonconformities', {
        organization_id: org,
        filter: { query: 'Shared Phrase', ...(statuses ? { status: statuses } : {}) },
        order_by: { field, direction: 'DESC' },
        size,
        ...(cursor ? { cursor } : {}),
      });
      first ??= page;
      ids.push(...page.nonconformities.map((row) => row.id));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    return { ids, first: first as Page };
  }

  for (const field of ['created_at', 'updated_at'] as const) {
    it(`${field} DESC: each organization's matches, with and without a status filter, first pages alike`, async () => {
      for (const org of [orgA, orgB]) {
        for (const statuses of [undefined, ['OPEN'], ['IN_PROGRESS', 'CLOSED']]) {
          const want = expected(org, field, statuses);
          expect(want.length).toBeGreaterThan(TEXT_COUNT_CAP);
          for (const size of [100, 20, 1]) {
            // Paging through all of it only at size 100 (the rest check their first page).
            const { first, ids } = await walkAll(org, field, size, statuses, size === 100);
            if (size === 100) expect(ids, `${field} ${statuses} all pages`).toEqual(want);
            expect(
              first.nonconformities.map((row) => row.id),
              `${field} ${statuses} size ${size}`,
            ).toEqual(want.slice(0, size));
            expect(first.total_count).toBe(TEXT_COUNT_CAP);
            expect(first.total_count_capped).toBe(true);
          }
        }
      }
    }, 120_000);
  }
});
