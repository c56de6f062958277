// CPU per call of the Worker host (`npm run bench -- --overhead --worker`): the same calls as the overhead bench,
// served by `npm run dev:worker` (wrangler dev: the Worker in workerd, on the seeded file served over Hrana HTTP),
// and the workerd process's CPU time (user + system, /proc) over each load divided by its calls. That is every
// thread of workerd: the Worker's JavaScript, and also the HTTP parsing, the KV token cache and the subrequests to the
// database that Cloudflare does not bill, so it bounds the billed CPU from above; a floor row (a call refused 401
// before any read: no KV, no database) shows what workerd spends on any request. The database server's CPU (the
// dev server, a Node process) is shown apart.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type ChildHost,
  cpuSecondsOf,
  freePort,
  type Load,
  median,
  postLoad,
  startChildProcess,
} from './bench-load.ts';

const CONNECTIONS = 10;

/** The processes descending from `root` (Linux /proc), by pid. */
function descendants(root: number): { pid: number; name: string }[] {
  const parents = new Map<number, { parent: number; name: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), { parent, name });
    } catch {
      // gone meanwhile
    }
  }
  const found: { pid: number; name: string }[] = [];
  for (const [pid, { name }] of parents) {
    for (let at = parents.get(pid)?.parent; at !== undefined && at > 1; at = parents.get(at)?.parent) {
      if (at === root) {
        found.push({ pid, name });
        break;
      }
    }
  }
  return found;
}

interface WorkerCase {
  label: string;
  path: string;
  body: unknown;
  /** Sent without a token (the floor: refused before any read). */
  anonymous?: boolean;
}

/**
 * The calls (`cases`: each tool and its arguments) on the Worker, direct and MCP, `rounds` rounds of `seconds` each,
 * interleaved: req/s and CPU per call of workerd and of the database server, medians. Printed as a table.
 */
export async function measureWorkerCpu(
  databaseUrl: string,
  token: string,
  cases: { name: string; args: Record<string, unknown> }[],
  seconds: number,
  rounds: number,
  children: ChildProcess[],
): Promise<void> {
  const port = await freePort();
  const host: ChildHost = await startChildProcess(
    [resolve('bin/run-ts.js'), resolve('scripts/dev-worker.ts'), '--var', 'RATE_LIMIT_PER_MINUTE:0'],
    /Ready on (http:\/\/[0-9.:]+)/,
    children,
    {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SEED_DEMO: 'false',
      PORT: String(port),
      WRANGLER_SEND_METRICS: 'false',
    },
  );
  try {
    const workerd = descendants(host.pid ?? -1).filter((each) => each.name === 'workerd');
    if (workerd.length === 0) throw new Error('no workerd process under dev:worker');
    const workerdCpu = () => workerd.reduce((sum, each) => sum + cpuSecondsOf(each.pid), 0);
    const variants: WorkerCase[] = [
      { label: 'floor: refused 401 (no token)', path: '/api/mcp/tools/getRisk', body: {}, anonymous: true },
      ...cases.flatMap((item) => [
        { label: `${item.name} direct`, path: `/api/mcp/tools/${item.name}`, body: item.args },
        {
          label: `${item.name} MCP tools/call`,
          path: '/api/mcp/v1',
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: item.name, arguments: item.args },
          },
        },
      ]),
    ];
    const samples = new Map<string, { load: Load; workerdMs: number; databaseMs: number }[]>(
      variants.map((variant) => [variant.label, []]),
    );
    // Warm-up: the first calls fill the KV token cache and compile the Worker's code.
    for (const variant of variants)
      await postLoad(
        `${host.url}${variant.path}`,
        variant.body,
        variant.anonymous ? '' : token,
        CONNECTIONS,
        2,
      );
    for (let round = 0; round < rounds; round++) {
      for (const variant of variants) {
        const before = { workerd: workerdCpu(), database: host.cpuSeconds() };
        const load = await postLoad(
          `${host.url}${variant.path}`,
          variant.body,
          variant.anonymous ? '' : token,
          CONNECTIONS,
          seconds,
        );
        const calls = Math.max(1, load.requests);
        const expected = variant.anonymous ? load.non2xx : load.errors + load.non2xx;
        if (!variant.anonymous && expected > 0)
          console.log(`  worker ${variant.label}: ${load.errors} errors, ${load.non2xx} non-2xx`);
        samples.get(variant.label)?.push({
          load,
          workerdMs: ((workerdCpu() - before.workerd) * 1000) / calls,
          databaseMs: ((host.cpuSeconds() - before.database) * 1000) / calls,
        });
      }
    }
    console.log('');
    console.log(
      `Worker (wrangler dev, workerd; the database over Hrana HTTP from a Node dev server): median of ${rounds} rounds of ${seconds} s, ${CONNECTIONS} connections`,
    );
    console.log('| call | req/s | workerd CPU per call | database server CPU per call |');
    console.log('|---|---|---|---|');
    for (const variant of variants) {
      const each = samples.get(variant.label) ?? [];
      const rate = median(each.map((sample) => sample.load.requestsPerSecond));
      const workerdMs = median(each.map((sample) => sample.workerdMs));
      const databaseMs = median(each.map((sample) => sample.databaseMs));
      console.log(
        `| ${variant.label} | ${rate.toFixed(0)} | ${workerdMs.toFixed(3)} ms | ${databaseMs.toFixed(3)} ms |`,
      );
    }
  } finally {
    await host.stop();
  }
}
