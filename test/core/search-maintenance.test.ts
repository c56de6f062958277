// The upkeep of the search indexes: many writes leave a register's FTS5 index in several b-trees; merging them in
// steps leaves one, with the same matches and an index that passes FTS5's own integrity check against its table.
// The Node host merges them at start.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  mergeSearchIndexes,
  scheduledUpkeep,
  searchIndexSegments,
  searchIndexTables,
} from '../../src/db/search-maintenance.ts';
import { startNodeServer } from '../../src/node.ts';
import { createActor, createOrg, createTestRuntime, createToken, ok, type TestRuntime } from '../helpers.ts';

let runtime: TestRuntime;
let token: string;
let org: string;

/** One write transaction per risk: each adds a b-tree to the index. */
async function addRisks(count: number, from: number) {
  for (let i = from; i < from + count; i++) {
    await ok(runtime, token, 'addRisk', {
      organization_id: org,
      name: i % 3 === 0 ? `Ransomware on host ${i}` : `Laptop theft ${i}`,
      description: `Scenario number ${i}`,
      inherent_likelihood: 2,
      inherent_impact: 3,
    });
  }
}

async function searched(query: string): Promise<string[]> {
  const page = await ok<{ risks: { id: string }[] }>(runtime, token, 'listRisks', {
    organization_id: org,
    filter: { query },
    size: 100,
  });
  return page.risks.map((risk) => risk.id);
}

beforeAll(async () => {
  runtime = await createTestRuntime();
  const alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Upkeep');
  token = await createToken(runtime, alice);
  await addRisks(30, 0);
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('search index upkeep', () => {
  it('lists the FTS5 table of every searchable register', async () => {
    const tables = await searchIndexTables(runtime.database.client);
    expect(tables).toContain('risks_fts');
    expect(tables).toContain('vendors_fts');
    expect(tables.every((table) => table.endsWith('_fts'))).toBe(true);
  });

  it('merges an index of many b-trees into one, in steps, with the same matches', async () => {
    const client = runtime.database.client;
    const before = await searchIndexSegments(client, 'risks_fts');
    expect(before).toBeGreaterThan(1);
    const ransomware = await searched('ransomware');
    const scenario = await searched('number 1');
    expect(ransomware).toHaveLength(10);
    expect(scenario).toHaveLength(11); // 1, 10..19
    let pauses = 0;
    const merged = await mergeSearchIndexes(client, {
      pause: async () => {
        pauses += 1;
      },
    });
    expect(merged).toContain('risks_fts');
    expect(pauses).toBeGreaterThan(0);
    expect(await searchIndexSegments(client, 'risks_fts')).toBe(1);
    expect(await searched('ransomware')).toEqual(ransomware);
    expect(await searched('number 1')).toEqual(scenario);
    // FTS5 compares the index with its table: it throws if a row is missing or wrong.
    await client.execute(`insert into risks_fts (risks_fts, rank) values ('integrity-check', 1)`);
    // Nothing left to merge.
    expect(await mergeSearchIndexes(client)).toEqual([]);
  });

  it('stops when told to, before writing anything', async () => {
    await addRisks(6, 30);
    const segments = await searchIndexSegments(runtime.database.client, 'risks_fts');
    expect(segments).toBeGreaterThan(1);
    expect(await mergeSearchIndexes(runtime.database.client, { stopped: () => true })).toEqual([]);
    expect(await searchIndexSegments(runtime.database.client, 'risks_fts')).toBe(segments);
  });

  it('stopped halfway, leaves an index that searches the same, and the next run finishes the merge', async () => {
    const client = runtime.database.client;
    // Long descriptions, one transaction each: an index of many pages in many b-trees.
    for (let i = 0; i < 24; i++) {
      await ok(runtime, token, 'addRisk', {
        organization_id: org,
        name: `Halfway ${i}`,
        description: Array.from({ length: 60 }, (_, k) => `word${i * 97 + k * 31}`).join(' '),
        inherent_likelihood: 1,
        inherent_impact: 1,
      });
    }
    const segments = await searchIndexSegments(client, 'risks_fts');
    expect(segments).toBeGreaterThan(2);
    const halfway = await searched('halfway');
    const word = await searched('word1000');
    expect(halfway).toHaveLength(24);
    expect(word.length).toBeGreaterThan(0);
    let steps = 0;
    const first = await mergeSearchIndexes(client, {
      stepPages: 1,
      pause: async () => {
        steps += 1;
      },
      stopped: () => steps >= 2,
    });
    expect(steps).toBe(2);
    expect(first).toEqual([]); // stopped before it finished the risks' index
    const between = await searchIndexSegments(client, 'risks_fts');
    expect(between).toBeGreaterThan(1);
    expect(await searched('halfway')).toEqual(halfway);
    expect(await searched('word1000')).toEqual(word);
    await client.execute(`insert into risks_fts (risks_fts, rank) values ('integrity-check', 1)`);
    // A write lands between the runs: the next run still carries the merge on, then takes the new b-tree in.
    await ok(runtime, token, 'addRisk', {
      organization_id: org,
      name: 'Halfway written between runs',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    halfway.unshift((await searched('between runs'))[0] as string);
    let more = 0;
    const second = await mergeSearchIndexes(client, {
      stepPages: 1,
      pause: async () => {
        more += 1;
      },
    });
    expect(second).toContain('risks_fts');
    expect(more).toBeGreaterThan(1);
    expect(await searchIndexSegments(client, 'risks_fts')).toBe(1);
    expect(await searched('halfway')).toEqual(halfway);
    expect(await searched('word1000')).toEqual(word);
    await client.execute(`insert into risks_fts (risks_fts, rank) values ('integrity-check', 1)`);
  });

  it('keeps the index to a few b-trees when every run is cut short and writes land between runs', async () => {
    const client = runtime.database.client;
    await mergeSearchIndexes(client, { pause: async () => {} });
    const counts: number[] = [];
    for (let round = 0; round < 24; round++) {
      await addRisks(2, 1000 + round * 2);
      let steps = 0;
      await mergeSearchIndexes(client, {
        stepPages: 1,
        pause: async () => {
          steps += 1;
        },
        stopped: () => steps >= 3,
      });
      counts.push(await searchIndexSegments(client, 'risks_fts'));
    }
    // Each run carries on the merge under way (a run that started it over would leave more b-trees every round).
    expect(Math.max(...counts.slice(-8)), counts.join(',')).toBeLessThanOrEqual(10);
    expect(await mergeSearchIndexes(client, { pause: async () => {} })).toContain('risks_fts');
    expect(await searchIndexSegments(client, 'risks_fts')).toBe(1);
    await client.execute(`insert into risks_fts (risks_fts, rank) values ('integrity-check', 1)`);
  });

  it('scheduled upkeep: statistics, then the merge within a budget of requests, carried on by the next run', async () => {
    const client = runtime.database.client;
    await addRisks(12, 2000);
    expect(await searchIndexSegments(client, 'risks_fts')).toBeGreaterThan(1);
    await client.execute('delete from sqlite_stat1');
    const sent: string[] = [];
    const spied = new Proxy(client, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          sent.push(String(name));
          return value.apply(target, args);
        };
      },
    });
    const short = await scheduledUpkeep(spied, { maxRequests: 6, pause: async () => {} });
    expect(short.unfinished).toBe(true);
    expect(short.merged).toEqual([]);
    expect(sent.length).toBeLessThanOrEqual(6);
    const stats = await client.execute("select count(*) as n from sqlite_stat1 where tbl = 'risks'");
    expect(Number(stats.rows[0]?.n)).toBeGreaterThan(0);
    const full = await scheduledUpkeep(client, { pause: async () => {} });
    expect(full.unfinished).toBe(false);
    expect(full.merged).toContain('risks_fts');
    expect(await searchIndexSegments(client, 'risks_fts')).toBe(1);
  });

  it('reads an index that was never written as empty', async () => {
    expect(await searchIndexSegments(runtime.database.client, 'audits_fts')).toBe(0);
  });
});

describe('Node host', () => {
  it('merges the search indexes of its database at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmcp-upkeep-'));
    const url = `file:${join(dir, 'upkeep.db')}`;
    try {
      // A database whose risks were written one transaction each, then a server started on it.
      const first = await startNodeServer(
        loadConfig({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1' }),
        () => {},
      );
      await first.searchIndexesMerged();
      const client = createClient({ url });
      try {
        const demo = first.demo;
        if (!demo) throw new Error('no demo account');
        for (let i = 0; i < 12; i++) {
          await ok(first.runtime, demo.token, 'addRisk', {
            organization_id: demo.organization_id,
            name: `Written alone ${i}`,
            inherent_likelihood: 1,
            inherent_impact: 1,
          });
        }
        await first.close();
        expect(await searchIndexSegments(client, 'risks_fts')).toBeGreaterThan(1);
        const second = await startNodeServer(
          loadConfig({ DATABASE_URL: url, PORT: '0', HOST: '127.0.0.1' }),
          () => {},
        );
        await second.searchIndexesMerged();
        expect(await searchIndexSegments(client, 'risks_fts')).toBe(1);
        await second.close();
      } finally {
        client.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
