// The notification engine's deadline scan (every due source for one organization: incident clocks, data-subject
// requests, tasks, reviews, evidence...) and myWork's due items, timed in process on a seeded file at each size of the
// scale bench; the issue's target is flat: the largest size within 1.5x of the smallest. `npm run bench -- --scale`
// prints them after its table; `npm run bench -- --deadlines` seeds only incidents and requests (1k and 100k) and
// prints them alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listDueSources } from '../src/notify/sources.ts';
import { myWorkTool } from '../src/tools/my-work.ts';
import { addDays } from '../src/tools/overdue.ts';
import { contextOutsideSeam } from '../src/tools/types.ts';
import '../src/notify/engine.ts';
import { prepareRiskSeed, type RiskSeed, seedIncidentsAndRequests } from './bench-seed.ts';

const TARGET_RATIO = 1.5;
const RUNS = 7;

export interface DeadlineTimes {
  scanMs: number;
  scanItems: number;
  myWorkMs: number;
  myWorkItems: number;
}

/** Best of RUNS: the deadline scan of the organization (the next 8 days, overdue included), and myWork's first page. */
export async function deadlineTimes(seed: RiskSeed): Promise<DeadlineTimes> {
  const now = new Date();
  const until = addDays(now.toISOString().slice(0, 10), 8);
  const db = seed.database.db;
  // myWork of the incident manager seedIncidentsAndRequests made: the owner of every incident and request.
  const manager = await seed.database.client.execute(
    "select id from users where email = 'incident-manager@example.com'",
  );
  const ctx = contextOutsideSeam(
    db,
    {
      tokenId: 'bench',
      userId: String(manager.rows[0]?.id ?? seed.userId),
      scope: 'read',
      roles: { [seed.organizationId]: 'EDITOR' },
      expiresAt: null,
    },
    () => now,
    'direct',
  );
  const times: DeadlineTimes = {
    scanMs: Number.POSITIVE_INFINITY,
    scanItems: 0,
    myWorkMs: Number.POSITIVE_INFINITY,
    myWorkItems: 0,
  };
  for (let run = 0; run < RUNS; run++) {
    let started = performance.now();
    let items = 0;
    for (const source of listDueSources())
      items += (await source.query({ db, now }, seed.organizationId, until)).length;
    times.scanMs = Math.min(times.scanMs, performance.now() - started);
    times.scanItems = items;
    started = performance.now();
    const page = await myWorkTool.run(ctx, myWorkTool.input.parse({}));
    times.myWorkMs = Math.min(times.myWorkMs, performance.now() - started);
    times.myWorkItems = (page.items as unknown[] | undefined)?.length ?? 0;
  }
  return times;
}

/** The rows at each size, and the ratio of the largest to the smallest against the target; answers failures. */
export function printDeadlineTimes(bySize: Map<number, DeadlineTimes>): number {
  const sizes = [...bySize.keys()].sort((a, b) => a - b);
  const first = bySize.get(sizes[0] ?? 0);
  const last = bySize.get(sizes.at(-1) ?? 0);
  if (!first || !last) return 0;
  console.log('');
  console.log(
    `| due items, in process (incidents and requests at each size) | ${sizes.map((size) => size.toLocaleString('en')).join(' | ')} | ratio | target |`,
  );
  console.log(`|---|${sizes.map(() => '---|').join('')}---|---|`);
  let failed = 0;
  for (const [name, ms, items] of [
    ['deadline scan (every due source, 8 days)', 'scanMs', 'scanItems'],
    ['myWork, first page', 'myWorkMs', 'myWorkItems'],
  ] as const) {
    const ratio = last[ms] / first[ms];
    const ok = ratio <= TARGET_RATIO;
    if (!ok) failed++;
    const cells = sizes.map((size) => {
      const times = bySize.get(size) as DeadlineTimes;
      return `${times[ms].toFixed(2)} ms (${times[items]} items)`;
    });
    console.log(
      `| ${ok ? 'PASS' : '**FAIL**'} ${name} | ${cells.join(' | ')} | ${ratio.toFixed(2)}x | <= ${TARGET_RATIO}x |`,
    );
  }
  return failed;
}

if (process.argv.includes('--deadlines') && !process.argv.includes('--scale')) {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-deadlines-'));
  try {
    const bySize = new Map<number, DeadlineTimes>();
    for (const size of [1_000, 100_000]) {
      const seed = await prepareRiskSeed(`file:${join(dir, `deadlines-${size}.db`)}`);
      const started = Date.now();
      await seedIncidentsAndRequests(seed.database, seed.organizationId, size, new Date());
      console.log(
        `seeded ${size} incidents and data-subject requests in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      bySize.set(size, await deadlineTimes(seed));
      seed.close();
    }
    const failed = printDeadlineTimes(bySize);
    console.log(failed > 0 ? `FAIL: ${failed} row(s) missed their target` : 'PASS: every row met its target');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
