// An idempotent write across a kill -9 of the Node host between its commit and its answer: the retry after the
// restart answers with the record written, and there is exactly one.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;
let databaseUrl: string;
const children: ChildProcess[] = [];

interface Host {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<NodeJS.Signals | number | null>;
}

/** `compliance-mcp serve` in its own process on a free port of 127.0.0.1, once it says where it listens. */
async function startHost(env: Record<string, string>): Promise<Host> {
  const child = spawn(process.execPath, ['bin/compliance-mcp.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match?.[1] && output.includes('Database:')) {
        clearInterval(timer);
        resolve(match[1]);
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`the host did not start:\n${output}`));
      }
    }, 50);
  });
  return { child, url, output: () => output, exited };
}

function addRisk(host: Host, token: string, organizationId: string) {
  return fetch(`${host.url}/api/mcp/tools/addRisk`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'idempotency-key': 'kill-test-key',
    },
    body: JSON.stringify({
      organization_id: organizationId,
      name: 'Written before the kill',
      category: 'Operational',
      inherent_likelihood: 2,
      inherent_impact: 5,
    }),
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-kill-'));
  databaseUrl = `file:${join(dir, 'kill.db')}`;
});

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('kill -9 between the commit and the answer', () => {
  it('answers the retry after a restart with the record written, and writes it once', async () => {
    const first = await startHost({ TEST_KILL_AFTER_KEYED_COMMIT: 'true' });
    const token = first.output().match(/\b(cmcp_\S+)/)?.[1] ?? '';
    expect(token).toMatch(/^cmcp_/);
    const organizations = (await (
      await fetch(`${first.url}/api/mcp/tools/listOrganizations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { organizations: { id: string }[] };
    const organizationId = organizations.organizations[0]?.id ?? '';

    // The host dies after the batch commits: the client gets no answer.
    const lost = await addRisk(first, token, organizationId).then(
      () => 'answered',
      () => 'connection lost',
    );
    expect(lost).toBe('connection lost');
    expect(await first.exited).toBe('SIGKILL');

    const second = await startHost({});
    try {
      const retry = await addRisk(second, token, organizationId);
      expect(retry.status).toBe(200);
      const answer = (await retry.json()) as { risk: { id: string; name: string; inherent_score: number } };
      expect(answer.risk).toMatchObject({ name: 'Written before the kill', inherent_score: 10 });
      const got = await fetch(`${second.url}/api/mcp/tools/getRisk`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: answer.risk.id }),
      });
      // The record as getRisk reads it (a write's answer adds its warnings).
      expect(await got.json()).toEqual({ risk: answer.risk });
      const again = await addRisk(second, token, organizationId);
      expect(await again.json()).toEqual(answer);

      const client = createClient({ url: databaseUrl });
      try {
        const risks = await client.execute("select id from risks where name = 'Written before the kill'");
        expect(risks.rows.map((row) => row.id)).toEqual([answer.risk.id]);
        const keys = await client.execute("select answer from idempotency_keys where key = 'kill-test-key'");
        expect(keys.rows.map((row) => JSON.parse(String(row.answer)))).toEqual([answer]);
      } finally {
        client.close();
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);
});
