// What a call costs around its SQL (`npm run bench -- --overhead`): listRisks (a page of 20) and getRisk on one
// organization of 10k risks, driven over loopback by autocannon (10 connections) at the Node host (`compliance-mcp
// serve`) as a direct call, as an MCP tools/call, and as a direct call on two more hosts alike but for the token
// cache: one as configured by default, one with it off (TOKEN_CACHE_TTL_SECONDS=0: every call pays a cold token);
// beside them a thin Hono route on @hono/node-server that
// replays exactly the statements the service ran for that call (recorded from the service itself) through a stock
// @libsql/client (createClient, the service's settings: one connection, WAL), and those statements run in process
// the same way: the reference of the targets. A second thin route replays them through the service's own client
// (src/db/open-node.ts, statements kept prepared): the floor, for information. Each round on hosts started afresh
// (two processes started alike differ for their whole life), cases interleaved, the two of each ratio
// side by side, every other round in reverse; req/s and the server's CPU per call (/proc), medians of the rounds, and
// the ratios against their targets (each the median of its rounds' ratios, their range beside it). Then memory: the host's RSS idle, after 60 s of mixed load, and its RSS and heap
// over the whole load (5 minutes by default). Always exits 0: the table is the result.
//
// Options: --seconds N (per case and round, default 5), --rounds N (default 5), --size N (risks, default 10000),
// --memory-seconds N (mixed load of the memory phase, default 300; 0 skips it), --cpu-prof DIR (instead of the
// rest: a CPU profile of the host under each direct call, written to DIR, and its top frames by self time), --worker
// (instead of the rest: the same calls on the Worker in workerd, CPU per call inside the Worker and of the workerd
// process, bench-worker-cpu.ts; with --no-trace the process's only).
// Child mode (internal): --serve-thin <database url> <statements file> [--service-client] serves the thin route.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type Client,
  createClient,
  type InStatement,
  type ResultSet,
  type TransactionMode,
} from '@libsql/client';
import autocannon from 'autocannon';
import { createMemoryTokenCache, noTokenCache } from '../src/auth/token-cache.ts';
import { createTokenService } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { BUSY_TIMEOUT_MS, createDatabase, prepareEmbeddedFile } from '../src/db/client.ts';
import { openNodeDatabase } from '../src/db/open-node.ts';
import { createRuntime } from '../src/runtime.ts';
import { type ChildHost, callHeaders, type Load, median, postLoad, startChildProcess } from './bench-load.ts';
import { prepareRiskSeed, type RiskSeed } from './bench-seed.ts';
import { measureWorkerCpu } from './bench-worker-cpu.ts';

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
};
const HARD_LIMIT_MS = 30 * 60_000;
const CONNECTIONS = 10;
const MIB = 1_048_576;

/** What the service ran for one call, in order: each a client call as drizzle made it. */
type RecordedCall =
  | { method: 'execute'; statement: InStatement }
  | { method: 'batch'; statements: InStatement[]; mode: TransactionMode | undefined };

/** The calls measured: each a tool and its arguments. */
interface CallCase {
  name: 'listRisks' | 'getRisk';
  args: Record<string, unknown>;
}

// ---- recording the service's statements -----------------------------------------------------------------------

/** The client, with every execute and batch appended to `calls` (as made, arguments included). */
function recordingClient(client: Client, calls: RecordedCall[]): Client {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'execute') {
        return (statement: InStatement, args?: unknown) => {
          const normalized = typeof statement === 'string' ? { sql: statement, args: args ?? [] } : statement;
          calls.push({ method: 'execute', statement: normalized as InStatement });
          return target.execute(normalized as InStatement);
        };
      }
      if (property === 'batch') {
        return (statements: InStatement[], mode?: TransactionMode) => {
          calls.push({ method: 'batch', statements, mode });
          return target.batch(statements, mode);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The statements the service runs for each call, with its token already cached (the second call of each is the one
 * kept): an in-process runtime over the same database file, its client recording.
 */
async function recordStatements(
  databaseUrl: string,
  token: string,
  cases: CallCase[],
): Promise<Map<string, RecordedCall[]>> {
  const database = await openNodeDatabase(databaseUrl);
  const calls: RecordedCall[] = [];
  const runtime = createRuntime({
    config: loadConfig({ DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '0' }),
    database: createDatabase(recordingClient(database.client, calls)),
    cache: createMemoryTokenCache(),
    loopbackOnly: true,
    usageFlush: 'host',
    log: () => {},
  });
  const recorded = new Map<string, RecordedCall[]>();
  for (const item of cases) {
    for (let attempt = 0; attempt < 2; attempt++) {
      calls.length = 0;
      const response = await runtime.app.request(`http://127.0.0.1/api/mcp/tools/${item.name}`, {
        method: 'POST',
        headers: callHeaders(token),
        body: JSON.stringify(item.args),
      });
      if (response.status !== 200)
        throw new Error(`${item.name}: ${response.status} ${await response.text()}`);
    }
    recorded.set(item.name, [...calls]);
  }
  database.client.close();
  return recorded;
}

/** Runs recorded calls as the service's client ran them; their result sets. */
async function replay(client: Client, calls: RecordedCall[]): Promise<ResultSet[]> {
  const results: ResultSet[] = [];
  for (const call of calls) {
    if (call.method === 'execute') results.push(await client.execute(call.statement));
    else results.push(...(await client.batch(call.statements, call.mode)));
  }
  return results;
}

/** Recorded calls run back to back in this process for `seconds`: calls per second. */
async function inProcessRate(client: Client, calls: RecordedCall[], seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  while (performance.now() < until) {
    await replay(client, calls);
    done += 1;
  }
  return (done * 1000) / (performance.now() - started);
}

// ---- the hosts -------------------------------------------------------------------------------------------------

const SERVICE_ENV = {
  HOST: '127.0.0.1',
  PORT: '0',
  SEED_DEMO: 'false',
  RATE_LIMIT_PER_MINUTE: '0',
};

/** `compliance-mcp serve` as `npm start` runs it, on the seeded file; `nodeOptions` before the entry point. */
function startService(
  databaseUrl: string,
  children: ChildProcess[],
  env: Record<string, string> = {},
  nodeOptions: string[] = [],
): Promise<ChildHost> {
  return startChildProcess(
    [...nodeOptions, resolve('bin/compliance-mcp.js'), 'serve'],
    /listening on (http:\S+)/,
    children,
    { ...process.env, ...SERVICE_ENV, DATABASE_URL: databaseUrl, ...env },
  );
}

/** The thin route on the file, replaying `statementsFile`: through a stock client, or the service's own. */
function startThin(
  databaseUrl: string,
  statementsFile: string,
  children: ChildProcess[],
  serviceClient: boolean,
): Promise<ChildHost> {
  return startChildProcess(
    [
      resolve('bin/run-ts.js'),
      resolve('scripts/bench.ts'),
      '--serve-thin',
      databaseUrl,
      statementsFile,
      ...(serviceClient ? ['--service-client'] : []),
    ],
    /THIN (\S+)/,
    children,
  );
}

/** A stock @libsql/client on the file with the service's settings: one connection, its busy timeout, WAL. */
async function stockClient(databaseUrl: string): Promise<Client> {
  const client = createClient({ url: databaseUrl, timeout: BUSY_TIMEOUT_MS, concurrency: 1 });
  await prepareEmbeddedFile(client);
  return client;
}

/**
 * The thin route: one POST route per call replaying its statements, the rows answered as JSON; through a stock
 * client, or the service's own (`serviceClient`).
 */
async function serveThin(databaseUrl: string, statementsFile: string, serviceClient: boolean): Promise<void> {
  const [{ Hono }, { serve }] = await Promise.all([import('hono'), import('@hono/node-server')]);
  const database = {
    client: serviceClient ? (await openNodeDatabase(databaseUrl)).client : await stockClient(databaseUrl),
  };
  const recorded = JSON.parse(readFileSync(statementsFile, 'utf8')) as Record<string, RecordedCall[]>;
  const app = new Hono();
  for (const [name, calls] of Object.entries(recorded)) {
    app.post(`/${name}`, async (c) => {
      await c.req.json();
      const results = await replay(database.client, calls);
      return c.json(results.map((result) => result.rows));
    });
  }
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
    console.log(`THIN http://127.0.0.1:${info.port}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

// ---- measuring -------------------------------------------------------------------------------------------------

/** One way to make a call: where it goes, what it sends, and the host whose CPU it costs. */
interface Variant {
  label: string;
  host: ChildHost;
  url: string;
  body: unknown;
}

interface Sample {
  load: Load;
  cpuMs: number;
}

async function sample(variant: Variant, token: string, seconds: number): Promise<Sample> {
  const before = variant.host.cpuSeconds();
  const load = await postLoad(variant.url, variant.body, token, CONNECTIONS, seconds);
  const cpuMs = ((variant.host.cpuSeconds() - before) * 1000) / Math.max(1, load.requests);
  if (load.errors + load.non2xx > 0)
    console.log(`  ${variant.label}: ${load.errors} errors, ${load.non2xx} non-2xx`);
  return { load, cpuMs };
}

function mcpCall(name: string, args: unknown) {
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
}

/** The cases: a first page of 20 risks, and one risk in the middle of the register. */
async function casesOf(seed: RiskSeed): Promise<CallCase[]> {
  const middle = await seed.database.client.execute({
    sql: 'select id from risks where organization_id = ? order by created_at desc, id desc limit 1 offset ?',
    args: [seed.organizationId, Math.floor(seed.count / 2)],
  });
  return [
    { name: 'listRisks', args: { organization_id: seed.organizationId, size: 20 } },
    { name: 'getRisk', args: { id: String(middle.rows[0]?.id) } },
  ];
}

interface Row {
  verdict: string;
  text: string;
}

function ratioRow(name: string, ratio: number, target: number | null, detail: string): Row {
  const verdict = target === null ? 'info' : ratio >= target ? 'PASS' : '**FAIL**';
  return {
    verdict,
    text: `| ${verdict} | ${name} | ${ratio.toFixed(2)}x | ${target === null ? '' : `>= ${target}x`} | ${detail} |`,
  };
}

/** The hosts of one round: the service, its twins alike but for the token cache, and the two thin routes. */
type Hosts = { service: ChildHost; warm: ChildHost; cold: ChildHost; thin: ChildHost; thinKept: ChildHost };

/** The ways to call `item` on `hosts`, each ratio's two side by side (see measureCalls). */
function variantsOf(item: CallCase, hosts: Hosts): Variant[] {
  const thinRoute = (label: string, host: ChildHost): Variant => ({
    label,
    host,
    url: `${host.url}/${item.name}`,
    body: item.args,
  });
  const directCall = (label: string, host: ChildHost): Variant => ({
    label,
    host,
    url: `${host.url}/api/mcp/tools/${item.name}`,
    body: item.args,
  });
  return [
    thinRoute('thin route', hosts.thin),
    directCall('direct', hosts.service),
    {
      label: 'MCP',
      host: hosts.service,
      url: `${hosts.service.url}/api/mcp/v1`,
      body: mcpCall(item.name, item.args),
    },
    directCall('warm token', hosts.warm),
    directCall('cold token', hosts.cold),
    thinRoute('thin route, service client', hosts.thinKept),
  ];
}

/**
 * Every case on every way to call it, `rounds` times. Each round starts its hosts afresh (in reverse order every other
 * round) and stops them after: two processes started alike differ by up to a quarter in CPU per call for the whole of
 * their lives (measured: twin hosts of one build, 173 and 230 us per getRisk in two runs), so a ratio between two
 * hosts is only as good as the number of processes behind it. Within a round the cases run in this order, each
 * ratio's two side by side (the thin route and direct, direct and MCP on one host, the twin hosts), every other
 * round in reverse, so neither of a pair is always the one that runs second.
 */
async function measureCalls(
  seed: RiskSeed,
  cases: CallCase[],
  startHosts: (reverse: boolean) => Promise<Hosts>,
  recorded: Map<string, RecordedCall[]>,
  seconds: number,
  rounds: number,
): Promise<Row[]> {
  const rows: Row[] = [];
  const table: string[] = [
    '| call | in process (ops/s) | thin route | thin route, service client | direct | MCP tools/call | direct, warm token (twin host) | direct, cold token (TTL 0) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const local = { client: await stockClient(seed.databaseUrl) };
  const samples = new Map<string, Sample[]>();
  const inProcess = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const reverse = round % 2 === 1;
    const hosts = await startHosts(reverse);
    try {
      for (const item of cases) {
        const variants = variantsOf(item, hosts);
        for (const variant of variants) await postLoad(variant.url, variant.body, seed.token, CONNECTIONS, 1); // warm-up
        const rates = inProcess.get(item.name) ?? [];
        rates.push(await inProcessRate(local.client, recorded.get(item.name) ?? [], Math.min(seconds, 3)));
        inProcess.set(item.name, rates);
        for (const variant of reverse ? [...variants].reverse() : variants) {
          const key = `${item.name} ${variant.label}`;
          const taken = samples.get(key) ?? [];
          taken.push(await sample(variant, seed.token, seconds));
          samples.set(key, taken);
        }
      }
    } finally {
      await Promise.all(Object.values(hosts).map((host) => host.stop()));
    }
  }
  for (const item of cases) {
    const calls = recorded.get(item.name) ?? [];
    const taken = (label: string) => samples.get(`${item.name} ${label}`) ?? [];
    const rate = (label: string) => median(taken(label).map((each) => each.load.requestsPerSecond));
    const cpu = (label: string) => median(taken(label).map((each) => each.cpuMs));
    // A ratio is taken round by round (the two cases ran back to back) and its median kept, its range shown: other
    // work on the machine moves the rates from round to round, much less within one.
    const perRound = (a: string, b: string, of: (each: Sample) => number) => {
      const over = taken(b);
      return taken(a).map((each, round) => {
        const other = over[round];
        return other ? of(each) / of(other) : Number.NaN;
      });
    };
    const ratio = (a: string, b: string) => median(perRound(a, b, (each) => each.load.requestsPerSecond));
    const spread = (a: string, b: string) => {
      const ratios = perRound(a, b, (each) => each.load.requestsPerSecond);
      return `rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
    };
    const cell = (label: string) => `${rate(label).toFixed(0)} req/s, ${cpu(label).toFixed(3)} ms CPU`;
    const raw = median(inProcess.get(item.name) ?? []);
    table.push(
      `| ${item.name} (${calls.length} client call${calls.length === 1 ? '' : 's'}) | ${raw.toFixed(0)} | ${cell('thin route')} | ${cell('thin route, service client')} | ${cell('direct')} | ${cell('MCP')} | ${cell('warm token')} | ${cell('cold token')} |`,
    );
    // CPU per call of b over a's, round by round as the rates (less CPU per call is the faster).
    const cpuRatio = (a: string, b: string) =>
      `${spread(a, b)}; CPU per call ${median(perRound(b, a, (each) => each.cpuMs)).toFixed(2)}x`;
    rows.push(
      ratioRow(
        `${item.name} direct / thin route`,
        ratio('direct', 'thin route'),
        0.8,
        cpuRatio('direct', 'thin route'),
      ),
      ratioRow(`${item.name} MCP / direct`, ratio('MCP', 'direct'), 0.95, cpuRatio('MCP', 'direct')),
      ratioRow(
        `${item.name} cold token / warm (TTL0 / default)`,
        ratio('cold token', 'warm token'),
        0.9,
        cpuRatio('cold token', 'warm token'),
      ),
      ratioRow(
        `${item.name} direct / thin route on the service client`,
        ratio('direct', 'thin route, service client'),
        null,
        cpuRatio('direct', 'thin route, service client'),
      ),
      ratioRow(`${item.name} thin route / in process`, rate('thin route') / raw, null, ''),
    );
  }
  local.client.close();
  console.log('');
  console.log(
    `median of ${rounds} rounds of ${seconds} s, each on hosts started afresh, ${CONNECTIONS} connections, cases interleaved`,
  );
  console.log(table.join('\n'));
  return rows;
}

// ---- memory ----------------------------------------------------------------------------------------------------

interface MemorySample {
  at: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

/** The last memory line the probe printed. */
function lastMemory(host: ChildHost, at: number): MemorySample {
  const output = host.output();
  const line =
    output.slice(output.lastIndexOf('MEMORY ') + 'MEMORY '.length, output.length).split('\n')[0] ?? '';
  const memory = JSON.parse(line) as { rss: number; heapUsed: number; heapTotal: number };
  return { at, rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal };
}

/**
 * A fresh host: idle memory, then mixed load (direct and MCP reads of both calls, one add in ten calls, over two
 * tokens) for `seconds`, sampled every 5 s; RSS after 60 s against idle.
 */
async function measureMemory(
  seed: RiskSeed,
  cases: CallCase[],
  writeToken: string,
  seconds: number,
  children: ChildProcess[],
): Promise<Row[]> {
  const host = await startService(seed.databaseUrl, children, {}, [
    '--import',
    resolve('scripts/bench-memory-probe.mjs'),
  ]);
  await new Promise((done) => setTimeout(done, 5000));
  const idle = lastMemory(host, 0);
  const reads = cases.flatMap((item) => [
    {
      path: `/api/mcp/tools/${item.name}`,
      body: JSON.stringify(item.args),
      headers: callHeaders(seed.token),
    },
    {
      path: '/api/mcp/v1',
      body: JSON.stringify(mcpCall(item.name, item.args)),
      headers: callHeaders(seed.token),
    },
  ]);
  const add = {
    path: '/api/mcp/tools/addRisk',
    body: JSON.stringify({
      organization_id: seed.organizationId,
      name: 'Memory bench risk',
      inherent_likelihood: 3,
      inherent_impact: 4,
    }),
    headers: callHeaders(writeToken),
  };
  const requests = [...reads, ...reads, add].map((request) => ({ method: 'POST', ...request }));
  const samples: MemorySample[] = [];
  const started = Date.now();
  const timer = setInterval(() => samples.push(lastMemory(host, (Date.now() - started) / 1000)), 5000);
  const result = await autocannon({
    url: host.url,
    requests,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
  });
  clearInterval(timer);
  await new Promise((done) => setTimeout(done, 5000));
  const after = lastMemory(host, (Date.now() - started) / 1000);
  await host.stop();
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)}`;
  console.log('');
  console.log(
    `memory under mixed load (${requests.length} requests in turn: direct and MCP listRisks/getRisk, one addRisk), ${result.requests.average.toFixed(0)} req/s, errors ${result.errors + result.timeouts}, non-2xx ${result.non2xx}`,
  );
  console.log('| at | RSS MiB | heap used MiB | heap total MiB |');
  console.log('|---|---|---|---|');
  console.log(`| idle | ${mib(idle.rss)} | ${mib(idle.heapUsed)} | ${mib(idle.heapTotal)} |`);
  for (const each of samples.filter((_, index) => (index + 1) % 6 === 0 || index === 0)) {
    console.log(
      `| ${each.at.toFixed(0)} s | ${mib(each.rss)} | ${mib(each.heapUsed)} | ${mib(each.heapTotal)} |`,
    );
  }
  console.log(
    `| 5 s after the load | ${mib(after.rss)} | ${mib(after.heapUsed)} | ${mib(after.heapTotal)} |`,
  );
  const peak = samples.reduce((most, each) => Math.max(most, each.rss), idle.rss);
  console.log(
    `peak RSS ${mib(peak)} MiB, peak heap used ${mib(samples.reduce((most, each) => Math.max(most, each.heapUsed), 0))} MiB`,
  );
  const at60 = samples.find((each) => each.at >= 60) ?? samples.at(-1) ?? idle;
  const rows: Row[] = [];
  const idleOk = idle.rss <= 120 * MIB;
  rows.push({
    verdict: idleOk ? 'PASS' : '**FAIL**',
    text: `| ${idleOk ? 'PASS' : '**FAIL**'} | RSS idle | ${mib(idle.rss)} MiB | <= 120 MiB | heap used ${mib(idle.heapUsed)} MiB |`,
  });
  const grown = at60.rss - idle.rss;
  const grownOk = grown <= 64 * MIB;
  rows.push({
    verdict: grownOk ? 'PASS' : '**FAIL**',
    text: `| ${grownOk ? 'PASS' : '**FAIL**'} | RSS after ${at60.at.toFixed(0)} s of mixed load - idle | ${mib(grown)} MiB | <= 64 MiB | ${mib(at60.rss)} MiB; heap used ${mib(at60.heapUsed)} MiB |`,
  });
  return rows;
}

// ---- CPU profiles ----------------------------------------------------------------------------------------------

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Now on the monotonic clock V8 stamps profiles with, in microseconds. */
const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/**
 * The frames with the most self time in a V8 CPU profile between `from` and `to` (monotonic microseconds: the
 * load, not the start-up), as `share function (file:line)`.
 */
function topFrames(file: string, count: number, from: number, to: number): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  for (const [index, id] of profile.samples.entries()) {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (!node || at < from || at > to || node.callFrame.functionName === '(idle)') continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*node_modules\//, '').replace(/^.*\/(src|scripts)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName || '(anonymous)'}${where ? ` (${where})` : ''}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, time]) => `${((100 * time) / total).toFixed(1).padStart(5)}% ${key}`);
}

/** The profiled ways to call: the direct call, the MCP tools/call, and the direct call with a cold token. */
const PROFILED: { label: string; env: Record<string, string>; mcp: boolean }[] = [
  { label: 'direct', env: {}, mcp: false },
  { label: 'MCP tools/call', env: {}, mcp: true },
  { label: 'direct, cold token (TTL 0)', env: { TOKEN_CACHE_TTL_SECONDS: '0' }, mcp: false },
];

async function profileCalls(
  seed: RiskSeed,
  cases: CallCase[],
  dir: string,
  seconds: number,
  children: ChildProcess[],
) {
  mkdirSync(dir, { recursive: true });
  for (const item of cases) {
    for (const [index, variant] of PROFILED.entries()) {
      const profileDir = join(dir, `${item.name}-${index}`);
      rmSync(profileDir, { recursive: true, force: true });
      const host = await startService(seed.databaseUrl, children, variant.env, [
        '--cpu-prof',
        `--cpu-prof-dir=${profileDir}`,
      ]);
      const url = variant.mcp ? `${host.url}/api/mcp/v1` : `${host.url}/api/mcp/tools/${item.name}`;
      const body = variant.mcp ? mcpCall(item.name, item.args) : item.args;
      await postLoad(url, body, seed.token, CONNECTIONS, 1);
      const from = monotonicMicros();
      const load = await postLoad(url, body, seed.token, CONNECTIONS, seconds);
      const to = monotonicMicros();
      await host.stop();
      const [file] = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
      console.log('');
      console.log(
        `${item.name}, ${variant.label}: ${load.requestsPerSecond.toFixed(0)} req/s under the profiler; top frames by self time (${join(profileDir, file ?? '')}):`,
      );
      if (file) for (const line of topFrames(join(profileDir, file), 25, from, to)) console.log(`  ${line}`);
    }
  }
}

// ---- main ------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = Date.now();
  const seconds = Number(option('--seconds') ?? 5);
  const rounds = Number(option('--rounds') ?? 5);
  const size = Number(option('--size') ?? 10_000);
  const memorySeconds = Number(option('--memory-seconds') ?? 300);
  const profileDir = option('--cpu-prof');
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-overhead-'));
  const children: ChildProcess[] = [];
  const killAll = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.on('exit', killAll);
  setTimeout(() => {
    console.error(`overhead bench: over ${HARD_LIMIT_MS / 60_000} minutes, stopping`);
    process.exit(0);
  }, HARD_LIMIT_MS).unref();
  try {
    const databaseUrl = `file:${join(dir, 'overhead.db')}`;
    const seed = await prepareRiskSeed(databaseUrl);
    await seed.growTo(size);
    const cases = await casesOf(seed);
    if (profileDir) {
      await profileCalls(seed, cases, resolve(profileDir), seconds, children);
      return;
    }
    if (argv.includes('--worker')) {
      seed.close();
      await measureWorkerCpu(
        databaseUrl,
        seed.token,
        cases,
        seconds,
        rounds,
        children,
        !argv.includes('--no-trace'),
      );
      return;
    }
    const recorded = await recordStatements(databaseUrl, seed.token, cases);
    const statementsFile = join(dir, 'statements.json');
    writeFileSync(statementsFile, JSON.stringify(Object.fromEntries(recorded)));
    for (const [name, calls] of recorded) {
      const statements = calls.flatMap((call) =>
        call.method === 'execute' ? [call.statement] : call.statements,
      );
      console.log(
        `${name}: ${calls.map((call) => call.method).join(', ')}; ${statements.length} statements, replayed by the thin route`,
      );
    }
    // The cold token's reference is a host like `cold` in all but the cache, used for nothing else (the service host
    // also serves the MCP case, and a second process on the file is not the first one: like compared with like).
    const starters: [keyof Hosts, () => Promise<ChildHost>][] = [
      ['service', () => startService(databaseUrl, children)],
      ['warm', () => startService(databaseUrl, children)],
      ['cold', () => startService(databaseUrl, children, { TOKEN_CACHE_TTL_SECONDS: '0' })],
      ['thin', () => startThin(databaseUrl, statementsFile, children, false)],
      ['thinKept', () => startThin(databaseUrl, statementsFile, children, true)],
    ];
    const startHosts = async (reverse: boolean): Promise<Hosts> => {
      const started: Partial<Hosts> = {};
      for (const [name, start] of reverse ? [...starters].reverse() : starters) started[name] = await start();
      return started as Hosts;
    };
    const rows = await measureCalls(seed, cases, startHosts, recorded, seconds, rounds);
    if (memorySeconds > 0) {
      const tokens = createTokenService({
        db: seed.database.db,
        cache: noTokenCache,
        cacheTtlSeconds: 0,
        now: () => new Date(),
      });
      const writer = await tokens.create({
        userId: seed.userId,
        name: 'overhead bench writes',
        scope: 'read_write',
        organizationIds: null,
        expiresAt: null,
      });
      rows.push(...(await measureMemory(seed, cases, writer.token, memorySeconds, children)));
    }
    console.log('');
    console.log('| result | measure | value | target | detail |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row.text);
    const failed = rows.filter((row) => row.verdict === '**FAIL**').length;
    console.log('');
    console.log(failed > 0 ? `FAIL: ${failed} row(s) missed their target` : 'PASS: every row met its target');
    console.log(`overhead bench took ${((Date.now() - started) / 1000).toFixed(0)} s`);
    seed.close();
  } finally {
    killAll();
    rmSync(dir, { recursive: true, force: true });
  }
}

const thinArgs = option('--serve-thin');
if (thinArgs) {
  await serveThin(thinArgs, argv[argv.indexOf('--serve-thin') + 2] ?? '', argv.includes('--service-client'));
} else {
  await main();
  process.exit(0);
}
