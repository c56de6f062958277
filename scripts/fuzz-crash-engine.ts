// Crash test of the Node host: start it as a child process on a file database, drive concurrent writes over HTTP,
// `kill -9` it while writes are in flight, and check after each kill that the file is intact (PRAGMA
// integrity_check), that every acknowledged write is there, and that every write that landed has its call-log row
// (and no row claims a write that did not land). The host is restarted on the same file for the next round.
// With `webhooks`, an endpoint on a loopback receiver (which verifies signatures with `standardwebhooks`, drops some
// first attempts and answers some late) gets every write's event: after the last restart the outbox must drain with
// every change delivered, and any duplicate must carry the same webhook-id.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { createDatabase } from '../src/db/client.ts';
import { createSecretKeyring } from '../src/secrets/keyring.ts';
import { keyFilePathFor, readKeyFile } from '../src/secrets/node-key.ts';
import { createEndpoint } from '../src/webhooks/endpoints.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

export interface CrashOptions {
  rounds: number;
  /** Kill once this many writes of the round were acknowledged. */
  writesPerRound: number;
  /** Concurrent writers. */
  concurrency: number;
  /** Also count webhook events: none lost across the kills, duplicates only with the same webhook-id. */
  webhooks?: boolean;
  log?: (line: string) => void;
}

export interface WebhookCount {
  /** Changes made by the crash writes (history rows), each an event for the one endpoint. */
  events: number;
  /** Of those, delivered to the receiver and verified. */
  delivered: number;
  lost: number;
  /** Deliveries received more than once, with the same webhook-id (allowed: at least once). */
  repeatedSameId: number;
  /** Changes received under two different webhook-ids (not allowed). */
  repeatedOtherId: number;
  badSignatures: number;
  /** Messages still pending when the wait for the outbox to drain ended. */
  pendingAtEnd: number;
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
  webhooks?: WebhookCount;
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
      // The file crash test stores files as fast as one token can send them.
      UPLOADS_PER_MINUTE: '0',
      UPLOAD_BYTES_PER_MINUTE: '0',
      WEBHOOKS_ALLOW_LOCAL: 'true',
      WEBHOOK_POLL_MS: '250',
      // The same retries and claims, on a shorter clock: the first retry after 1 s (not 30 s), a send killed mid-way
      // freed after 15 s (not 60 s).
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_CLAIM_MS: '15000',
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

/** How long the last host may take to empty the outbox: a send killed mid-way is claimed for 15 s, retries wait 1, 4, 16 s. */
const DRAIN_TIMEOUT_MS = 180_000;

/** An endpoint for every event of the organization, on the receiver, written into the file beside the running host. */
async function addEndpoint(databaseUrl: string, organizationId: string, receiver: Receiver): Promise<void> {
  const client = createClient({ url: databaseUrl });
  try {
    // The host writes to the same file meanwhile: wait for its lock rather than fail.
    await client.execute('PRAGMA busy_timeout = 10000');
    // Sealed under the key the host made beside the file on its first start, as the host would.
    const [key, ...previous] = readKeyFile(keyFilePathFor(databaseUrl) ?? '');
    const { secret } = await createEndpoint(
      createDatabase(client).db,
      new Date(),
      organizationId,
      { url: receiver.url, description: 'crash test', events: ['*'] },
      { kinds: ['vendor', 'measure'], allowLocal: true, secrets: createSecretKeyring(key, previous) },
    );
    receiver.secrets.push(secret);
  } finally {
    client.close();
  }
}

/** Waits (the host running) until no message is pending, then compares the history rows with what arrived. */
async function countWebhooks(databaseUrl: string, receiver: Receiver): Promise<WebhookCount> {
  const client = createClient({ url: databaseUrl });
  try {
    const pending = async () =>
      Number(
        (await client.execute("select count(*) from webhook_messages where status = 'pending'"))
          .rows[0]?.[0] ?? 0,
      );
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    let left = await pending();
    while (left > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      left = await pending();
    }
    const changes = await client.execute({
      // The crash writes' changes (the demo seed's came before the endpoint).
      sql: `select id from record_changes where tool in (${WRITE_TOOLS.map(() => '?').join(', ')}) and json_extract(after, '$.name') like 'crash %'`,
      args: [...WRITE_TOOLS],
    });
    const expected = new Set(changes.rows.map((row) => String(row[0])));
    const idsByChange = new Map<string, Set<string>>();
    for (const item of receiver.received) {
      const change = String((item.body.data as { change_id?: unknown }).change_id);
      idsByChange.set(change, (idsByChange.get(change) ?? new Set()).add(item.id));
    }
    const delivered = [...expected].filter((id) => idsByChange.has(id)).length;
    const distinctIds = new Set(receiver.received.map((item) => item.id)).size;
    return {
      events: expected.size,
      delivered,
      lost: expected.size - delivered,
      repeatedSameId: receiver.received.length - distinctIds,
      repeatedOtherId: [...idsByChange.values()].filter((ids) => ids.size > 1).length,
      badSignatures: receiver.badSignatures,
      pendingAtEnd: left,
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
  let webhooks: WebhookCount | undefined;
  const receiver = options.webhooks ? await startReceiver() : null;
  if (receiver) {
    // Every 5th message's first attempt is dropped, every 7th is answered late: retries must still bring all.
    const seen = new Set<string>();
    receiver.answer = (n, id) => {
      const first = !seen.has(id);
      seen.add(id);
      if (first && seen.size % 5 === 0) return { kind: 'drop' };
      return n % 7 === 0 ? { kind: 'late', ms: 300 } : { kind: 'ok' };
    };
  }
  try {
    for (let round = 0; round < options.rounds; round++) {
      const host = await startHost(databaseUrl);
      try {
        token ??= host.token;
        if (!token) throw new Error('no demo token: the database was not empty on the first start');
        if (!organizationId) {
          const { body } = await call(host.url, token, 'listOrganizations', {});
          organizationId = String((body.organizations as { id: string }[])[0]?.id);
          if (receiver) await addEndpoint(databaseUrl, organizationId, receiver);
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
      if (receiver) {
        webhooks = await countWebhooks(databaseUrl, receiver);
        log(
          `webhooks: ${webhooks.events} events, ${webhooks.delivered} delivered, ${webhooks.lost} lost, ${webhooks.repeatedSameId} repeated with the same webhook-id, ${webhooks.repeatedOtherId} under another id`,
        );
      }
    } finally {
      await killHard(host.child);
    }
  } finally {
    await receiver?.close();
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
    ...(webhooks ? { webhooks } : {}),
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
    report.restarted &&
    (report.webhooks === undefined ||
      (report.webhooks.lost === 0 &&
        report.webhooks.repeatedOtherId === 0 &&
        report.webhooks.badSignatures === 0 &&
        report.webhooks.events > 0))
  );
}
