// Crash test of the Node host: start it as a child process on a file database, drive concurrent writes over HTTP,
// `kill -9` it while writes are in flight, and check after each kill that the file is intact (PRAGMA
// integrity_check), that every acknowledged write is there, and that every write that landed has its call-log row
// (and no row claims a write that did not land). The host is restarted on the same file for the next round.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';

export interface CrashOptions {
  rounds: number;
  /** Kill once this many writes of the round were acknowledged. */
  writesPerRound: number;
  /** Concurrent writers. */
  concurrency: number;
  log?: (line: string) => void;
}

export interface CrashRound {
  acknowledged: number;
  integrity: string;
  /** Acknowledged writes missing from the file. */
  lostWrites: number;
  /** Writes in the file (acknowledged or not) without their `ok` call-log row. */
  missingLogRows: number;
  /** `ok` write rows beyond the writes in the file (a row for a write that did not land). */
  extraLogRows: number;
}

export interface CrashReport {
  rounds: CrashRound[];
  acknowledged: number;
  lostWrites: number;
  missingLogRows: number;
  extraLogRows: number;
  integrityFailures: number;
  /** The host started again after the last kill and answered a read. */
  restarted: boolean;
}

const BIN = fileURLToPath(new URL('../bin/compliance-mcp.js', import.meta.url));
const WRITE_TOOLS = ['addVendor', 'addMeasure'] as const;
const START_TIMEOUT_MS = 60_000;
const ROUND_TIMEOUT_MS = 120_000;

export interface Host {
  child: ChildProcess;
  url: string;
  token: string | null;
}

/** Starts `compliance-mcp serve` on the file; the first start seeds the demo and prints its token. */
export function startHost(databaseUrl: string): Promise<Host> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      SEED_DEMO: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    let url: string | null = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the host did not start in ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      url ??= /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? null;
      const seeded = output.includes('Demo data seeded');
      const token = /^\s+(cmcp_\S+)$/m.exec(output)?.[1] ?? null;
      const done = seeded ? token !== null && output.includes('Web sign-in') : output.includes('Get a token');
      if (url && done) {
        clearTimeout(timer);
        child.stdout?.off('data', read);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve({ child, url, token });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited (${code}) before it was ready:\n${output}`));
    });
  });
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export async function call(url: string, token: string, tool: string, args: unknown) {
  const response = await fetch(`${url}/api/mcp/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Writes until `target` are acknowledged (or time runs out), then kills the host with writes still in flight. */
async function loadAndKill(
  host: Host,
  token: string,
  organizationId: string,
  round: number,
  options: CrashOptions,
): Promise<string[]> {
  const acknowledged: string[] = [];
  let stop = false;
  const deadline = Date.now() + ROUND_TIMEOUT_MS;
  let killed: Promise<void> | null = null;
  const writer = async (worker: number) => {
    for (let i = 0; !stop && Date.now() < deadline; i++) {
      const tool = WRITE_TOOLS[(worker + i) % WRITE_TOOLS.length] as string;
      try {
        const { status, body } = await call(host.url, token, tool, {
          organization_id: organizationId,
          name: `crash r${round} w${worker} n${i}`,
        });
        const record = Object.values(body)[0] as { id?: unknown } | undefined;
        if (status === 200 && typeof record?.id === 'string') acknowledged.push(record.id);
      } catch {
        return; // the host is gone
      }
      if (acknowledged.length >= options.writesPerRound && !killed) killed = killHard(host.child);
    }
  };
  const writers = Array.from({ length: options.concurrency }, (_, worker) => writer(worker));
  await Promise.race([Promise.all(writers), new Promise((resolve) => setTimeout(resolve, ROUND_TIMEOUT_MS))]);
  stop = true;
  await (killed ?? killHard(host.child));
  await Promise.all(writers);
  return acknowledged;
}

/** Opens the file as the host would after the crash and checks it against what was acknowledged. */
async function inspect(
  databaseUrl: string,
  acknowledged: Set<string>,
): Promise<Omit<CrashRound, 'acknowledged'>> {
  const client = createClient({ url: databaseUrl });
  try {
    const integrity = (await client.execute('PRAGMA integrity_check')).rows
      .map((row) => String(row[0]))
      .join('; ');
    const present = new Set<string>();
    for (const table of ['vendors', 'measures']) {
      const rows = await client.execute(`select id from ${table} where name like 'crash %'`);
      for (const row of rows.rows) present.add(String(row[0]));
    }
    const lostWrites = [...acknowledged].filter((id) => !present.has(id)).length;
    const logged = await client.execute({
      sql: `select count(*) from tool_calls where outcome = 'ok' and tool in (${WRITE_TOOLS.map(() => '?').join(', ')})`,
      args: [...WRITE_TOOLS],
    });
    const okRows = Number(logged.rows[0]?.[0] ?? 0);
    return {
      integrity,
      lostWrites,
      missingLogRows: Math.max(0, present.size - okRows),
      extraLogRows: Math.max(0, okRows - present.size),
    };
  } finally {
    client.close();
  }
}

export async function runCrashTest(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-crash-'));
  const databaseUrl = `file:${join(dir, 'crash.db')}`;
  const acknowledged = new Set<string>();
  const rounds: CrashRound[] = [];
  let token: string | null = null;
  let organizationId = '';
  let restarted = false;
  try {
    for (let round = 0; round < options.rounds; round++) {
      const host = await startHost(databaseUrl);
      try {
        token ??= host.token;
        if (!token) throw new Error('no demo token: the database was not empty on the first start');
        if (!organizationId) {
          const { body } = await call(host.url, token, 'listOrganizations', {});
          organizationId = String((body.organizations as { id: string }[])[0]?.id);
        }
        const acked = await loadAndKill(host, token, organizationId, round, options);
        for (const id of acked) acknowledged.add(id);
        const checked = await inspect(databaseUrl, acknowledged);
        rounds.push({ acknowledged: acked.length, ...checked });
        log(
          `round ${round + 1}: ${acked.length} writes acknowledged, integrity ${checked.integrity}, ${checked.lostWrites} lost, ${checked.missingLogRows} without their log row, ${checked.extraLogRows} log rows too many`,
        );
      } finally {
        await killHard(host.child);
      }
    }
    const host = await startHost(databaseUrl);
    try {
      const { status } = await call(host.url, token ?? '', 'listVendors', {
        organization_id: organizationId,
      });
      restarted = status === 200;
    } finally {
      await killHard(host.child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const last = rounds.at(-1);
  return {
    rounds,
    acknowledged: acknowledged.size,
    lostWrites: last?.lostWrites ?? 0,
    missingLogRows: last?.missingLogRows ?? 0,
    extraLogRows: last?.extraLogRows ?? 0,
    integrityFailures: rounds.filter((round) => round.integrity !== 'ok').length,
    restarted,
  };
}

/** True when nothing acknowledged was lost, every landed write is logged once, and the file stayed intact. */
export function crashPassed(report: CrashReport): boolean {
  return (
    report.rounds.length > 0 &&
    report.lostWrites === 0 &&
    report.missingLogRows === 0 &&
    report.extraLogRows === 0 &&
    report.integrityFailures === 0 &&
    report.restarted
  );
}
