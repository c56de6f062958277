// CPU per call of the Worker host (`npm run bench -- --overhead --worker`): the same calls as the overhead bench, served
// by `npm run dev:worker -- --workerd` (the deployable bundle in workerd through Miniflare, no wrangler dev proxy; the
// seeded file served over Hrana HTTP). Two figures per call:
// - inside the Worker: workerd's own account of each request (its async trace, `--async-trace FILE`): the time the
//   request's turns held the Worker's isolate, summed per request (its waitUntil work included). That is the part
//   Cloudflare bills; it is wall-clock time on the isolate's thread, so it equals CPU time while that thread is not
//   preempted, and reads high on a loaded machine: the mean is also given scaled by the share of its runnable time
//   that workerd's main thread ran during the load (/proc schedstat; the rest it waited for a CPU). workerd's tail events would be the natural source, but
//   local workerd reports `cpuTime` and `wallTime` as 0 (both the tail and the streaming tail). The async trace needs
//   a newer workerd than wrangler's: the project's own (`workerd` package, the one the workers tests run) is put in
//   wrangler's Miniflare's place (MINIFLARE_WORKERD_PATH) through a wrapper that adds the flag. `--no-trace` (or a
//   workerd without the flag) keeps wrangler's workerd and the process column only.
// - the workerd process's CPU time (user + system, /proc, every thread) over each load divided by its calls: also the
//   HTTP parsing, Miniflare's own workers (its entry, the local KV of the token cache, the filter on subrequests),
//   the subrequests to the database, and writing the trace; an upper bound.
// A floor row (a call refused 401 before any read: no KV, no database) shows what any request costs. The database
// server's CPU (the dev server, a Node process) is shown apart.
import { type ChildProcess, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
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
/** The Worker's name in workerd as Miniflare configures it (its own workers have others: core:entry, kv:ns, ...). */
const WORKER = 'core:user:compliance-mcp';
/** After a load: time for the last calls' waitUntil work to end and for workerd to write their trace. */
const SETTLE_MS = 1_000;

/** The project's own workerd binary if it writes async traces (`--async-trace`), else null. */
function tracingWorkerd(): string | null {
  try {
    const path = String(createRequire(import.meta.url)('workerd').default);
    const help = spawnSync(path, ['serve', '--help'], { encoding: 'utf8' });
    return help.stdout?.includes('--async-trace') ? path : null;
  } catch {
    return null;
  }
}

/**
 * A thread's time on a CPU and waiting for one (runnable, not running) so far, ns (Linux /proc schedstat; NaN
 * elsewhere). workerd runs every isolate on its main thread (its tid is its pid).
 */
function schedstatOf(pid: number): { runNs: number; waitNs: number } {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runNs: run ?? Number.NaN, waitNs: wait ?? Number.NaN };
  } catch {
    return { runNs: Number.NaN, waitNs: Number.NaN };
  }
}

/** An executable that runs `workerd` with Miniflare's arguments and `--async-trace traceFile`. */
function tracingWrapper(dir: string, workerd: string, traceFile: string): string {
  if (`${workerd}${traceFile}`.includes("'")) throw new Error('a quote in the workerd or trace path');
  const path = join(dir, 'workerd-traced');
  writeFileSync(path, `#!/bin/sh\nexec '${workerd}' "$@" --async-trace '${traceFile}'\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * Reads workerd's async trace (NDJSON) as it grows. Each request is a context (`ctx`, named by its worker) whose
 * turns (`turn`: `locked` to `end`, ns, the isolate held) end with `ctx_end`.
 */
class AsyncTraceReader {
  #offset = 0;
  #partial = '';
  readonly #decoder = new StringDecoder('utf8');
  readonly #workerOf = new Map<number, string>();
  readonly #heldNs = new Map<number, number>();

  constructor(private readonly file: string) {}

  /** The requests ended since the last call: the Worker's, each its isolate time in ms; Miniflare's workers' total. */
  take(): { workerMs: number[]; othersMs: number } {
    const workerMs: number[] = [];
    let othersMs = 0;
    for (const line of this.#newLines()) {
      const event = JSON.parse(line) as {
        e: string;
        ctx: number;
        worker?: string;
        locked?: number;
        end?: number;
      };
      if (event.e === 'ctx') this.#workerOf.set(event.ctx, event.worker ?? '');
      else if (event.e === 'turn')
        this.#heldNs.set(
          event.ctx,
          (this.#heldNs.get(event.ctx) ?? 0) + (event.end ?? 0) - (event.locked ?? 0),
        );
      else if (event.e === 'ctx_end') {
        const ms = (this.#heldNs.get(event.ctx) ?? 0) / 1e6;
        if (this.#workerOf.get(event.ctx) === WORKER) workerMs.push(ms);
        else othersMs += ms;
        this.#workerOf.delete(event.ctx);
        this.#heldNs.delete(event.ctx);
      }
    }
    return { workerMs, othersMs };
  }

  #newLines(): string[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      const chunk = Buffer.alloc(Math.max(0, size - this.#offset));
      const read = readSync(fd, chunk, 0, chunk.length, this.#offset);
      this.#offset += read;
      const lines = (this.#partial + this.#decoder.write(chunk.subarray(0, read))).split('\n');
      this.#partial = lines.pop() ?? '';
      return lines.filter((line) => line.length > 0);
    } finally {
      closeSync(fd);
    }
  }
}

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

interface Sample {
  load: Load;
  workerdMs: number;
  databaseMs: number;
  /** Each of the Worker's requests in this load, its isolate time (ms); empty without a trace. */
  insideMs: number[];
  /** Miniflare's own workers' isolate time over the load, per Worker request. */
  othersMs: number;
  /** Of the time workerd's main thread was runnable during the load, the share it ran (the rest it waited for a CPU). */
  onCpuShare: number;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The calls (`cases`: each tool and its arguments) on the Worker, direct and MCP, `rounds` rounds of `seconds` each,
 * interleaved: req/s, the Worker's own time per call (from workerd's async trace unless `trace` is false), and the CPU
 * per call of the workerd process and of the database server, medians. Printed as a table.
 */
export async function measureWorkerCpu(
  databaseUrl: string,
  token: string,
  cases: { name: string; args: Record<string, unknown> }[],
  seconds: number,
  rounds: number,
  children: ChildProcess[],
  trace = true,
): Promise<void> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-worker-cpu-'));
  const workerd = trace ? tracingWorkerd() : null;
  if (trace && !workerd)
    console.log('  no workerd with --async-trace found: the Worker-inside column is left out');
  const traceFile = join(dir, 'async-trace.ndjson');
  const reader = workerd ? new AsyncTraceReader(traceFile) : null;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SEED_DEMO: 'false',
    PORT: String(port),
    WRANGLER_SEND_METRICS: 'false',
  };
  if (workerd) env.MINIFLARE_WORKERD_PATH = tracingWrapper(dir, workerd, traceFile);
  const host: ChildHost = await startChildProcess(
    [
      resolve('bin/run-ts.js'),
      resolve('scripts/dev-worker.ts'),
      '--workerd',
      '--var',
      'RATE_LIMIT_PER_MINUTE:0',
    ],
    /Ready on (http:\/\/[0-9.:]+)/,
    children,
    env,
  );
  try {
    const processes = descendants(host.pid ?? -1).filter((each) => each.name === 'workerd');
    if (processes.length === 0) throw new Error('no workerd process under dev:worker --workerd');
    const workerdCpu = () => processes.reduce((sum, each) => sum + cpuSecondsOf(each.pid), 0);
    const mainThread = () => schedstatOf(processes[0]?.pid ?? -1);
    const version = workerd
      ? `${spawnSync(workerd, ['--version'], { encoding: 'utf8' }).stdout?.trim()}, writing an async trace`
      : "wrangler's workerd";
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
    const samples = new Map<string, Sample[]>(variants.map((variant) => [variant.label, []]));
    const load = (variant: WorkerCase, duration: number) =>
      postLoad(
        `${host.url}${variant.path}`,
        variant.body,
        variant.anonymous ? '' : token,
        CONNECTIONS,
        duration,
      );
    // Warm-up: the first calls fill the KV token cache and compile the Worker's code.
    for (const variant of variants) await load(variant, 2);
    await new Promise((settle) => setTimeout(settle, SETTLE_MS));
    for (let round = 0; round < rounds; round++) {
      for (const variant of variants) {
        reader?.take();
        const before = { workerd: workerdCpu(), database: host.cpuSeconds(), thread: mainThread() };
        const result = await load(variant, seconds);
        const calls = Math.max(1, result.requests);
        const after = { workerd: workerdCpu(), database: host.cpuSeconds(), thread: mainThread() };
        const ran = after.thread.runNs - before.thread.runNs;
        await new Promise((settle) => setTimeout(settle, SETTLE_MS));
        const traced = reader?.take() ?? { workerMs: [], othersMs: 0 };
        const failed = variant.anonymous ? result.errors : result.errors + result.non2xx;
        if (failed > 0)
          console.log(`  worker ${variant.label}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        samples.get(variant.label)?.push({
          load: result,
          workerdMs: ((after.workerd - before.workerd) * 1000) / calls,
          databaseMs: ((after.database - before.database) * 1000) / calls,
          insideMs: traced.workerMs,
          othersMs: traced.othersMs / Math.max(1, traced.workerMs.length),
          onCpuShare: ran / (ran + after.thread.waitNs - before.thread.waitNs),
        });
      }
    }
    console.log('');
    console.log(
      `Worker (dev:worker --workerd: ${version}; the database over Hrana HTTP from a Node dev server): median of ${rounds} rounds of ${seconds} s, ${CONNECTIONS} connections`,
    );
    console.log(
      "| call | req/s | inside the Worker per call: mean (median) | the mean on CPU (estimate) | Miniflare's workers per call | workerd process CPU per call | database server CPU per call |",
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const variant of variants) {
      const each = samples.get(variant.label) ?? [];
      const rate = median(each.map((sample) => sample.load.requestsPerSecond));
      const workerdMs = median(each.map((sample) => sample.workerdMs));
      const databaseMs = median(each.map((sample) => sample.databaseMs));
      const inside = reader
        ? `${median(each.map((sample) => mean(sample.insideMs))).toFixed(3)} ms (${median(each.map((sample) => median(sample.insideMs))).toFixed(3)})`
        : '-';
      const share = median(each.map((sample) => sample.onCpuShare));
      const onCpu = reader
        ? `${median(each.map((sample) => mean(sample.insideMs) * sample.onCpuShare)).toFixed(3)} ms (ran ${(share * 100).toFixed(0)}%)`
        : '-';
      const others = reader ? `${median(each.map((sample) => sample.othersMs)).toFixed(3)} ms` : '-';
      console.log(
        `| ${variant.label} | ${rate.toFixed(0)} | ${inside} | ${onCpu} | ${others} | ${workerdMs.toFixed(3)} ms | ${databaseMs.toFixed(3)} ms |`,
      );
    }
  } finally {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
