// `npm run dev:worker` end to end: migrate + seed, Hrana dev server, `wrangler dev` (the real wrangler.toml, no
// nodejs_compat), a token made by the CLI working on the Worker, and a clean stop on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.ts';

let dir: string;
let databaseUrl: string;
let port: number;
let child: ChildProcess;
let output = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const match = output.match(pattern);
      if (match) {
        clearInterval(timer);
        resolve(match);
      } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`no ${pattern} in the output of dev:worker:\n${output}`));
      }
    }, 100);
  });
}

function listening(portNumber: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(portNumber, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function cli(...argv: string[]): Promise<Record<string, unknown>> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    { DATABASE_URL: databaseUrl },
    (line) => out.push(line),
    (line) => err.push(line),
  );
  if (code !== 0) throw new Error(`compliance-mcp ${argv.join(' ')}: ${err.join('\n')}`);
  return JSON.parse(out[0] ?? '{}') as Record<string, unknown>;
}

function callWorker(path: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-dev-worker-'));
  databaseUrl = `file:${join(dir, 'compliance.db')}`;
  port = await freePort();
  // Its own process group, so the test can send Ctrl-C to the script and wrangler together, as a terminal does.
  child = spawn(
    process.execPath,
    ['bin/run-ts.js', 'scripts/dev-worker.ts', '--persist-to', join(dir, 'wrangler-state')],
    {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), NO_COLOR: '1', CI: 'true' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitForOutput(/Ready on http:\/\/127\.0\.0\.1:\d+/, 90_000);
});

afterAll(async () => {
  if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run dev:worker', () => {
  it('seeds the demo data on an empty database and prints a token that works on the Worker', async () => {
    const [, token = ''] = output.match(/\[dev:worker\] {3}(cmcp_[A-Za-z0-9_-]+)/) ?? [];
    expect(token).toMatch(/^cmcp_/);
    const response = await callWorker('/api/mcp/tools/listOrganizations', token, {});
    expect(response.status).toBe(200);
    const body = (await response.json()) as { organizations: { name: string }[] };
    expect(body.organizations.map((organization) => organization.name)).toEqual(['Acme Health (demo)']);
  });

  it('serves a token created afterwards by `npx compliance-mcp token create` on the same database file', async () => {
    await cli('user', 'create', '--email', 'ops@example.com', '--password', 'long enough pw');
    const org = await cli('org', 'create', '--name', 'Ops Org', '--owner', 'ops@example.com');
    const created = await cli('token', 'create', '--email', 'ops@example.com', '--name', 'curl');
    const token = String(created.token);
    const added = await callWorker('/api/mcp/addVendor', token, { organizationId: org.id, name: 'Slack' });
    expect(added.status).toBe(200);
    const listed = await callWorker('/api/mcp/tools/listVendors', token, { organization_id: org.id });
    expect(
      ((await listed.json()) as { vendors: { name: string }[] }).vendors.map((vendor) => vendor.name),
    ).toEqual(['Slack']);
  });

  it('answers MCP from a local browser page (loopback Origin), as `npm start` does', async () => {
    const created = await cli('token', 'create', '--email', 'ops@example.com', '--name', 'inspector');
    const response = await callWorker(
      '/api/mcp/v1',
      String(created.token),
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { accept: 'application/json, text/event-stream', origin: 'http://localhost:6274' },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(
      50,
    );
  });

  it('keeps the database server behind a random token that only the Worker has, and away from web pages', async () => {
    const [, libsqlPort = '0'] = output.match(/Hrana HTTP at http:\/\/127\.0\.0\.1:(\d+)/) ?? [];
    const pipeline = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${libsqlPort}/v2/pipeline`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ baton: null, requests: [{ type: 'execute', stmt: { sql: 'SELECT 1' } }] }),
      });
    // Another local program without the token (the Worker's requests above got through with it).
    expect((await pipeline({ 'content-type': 'application/json' })).status).toBe(401);
    // A page's cross-site "simple" POST.
    expect((await pipeline({ 'content-type': 'text/plain', origin: 'https://evil.example' })).status).toBe(
      403,
    );
    expect(output).not.toMatch(/LIBSQL_AUTH_TOKEN:/);
  });

  it('stops wrangler and the database server on Ctrl-C', async () => {
    const [, libsqlPort = '0'] = output.match(/Hrana HTTP at http:\/\/127\.0\.0\.1:(\d+)/) ?? [];
    expect(await listening(Number(libsqlPort))).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    if (child.pid) process.kill(-child.pid, 'SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[dev:worker] stopped');
    expect(await listening(port)).toBe(false);
    expect(await listening(Number(libsqlPort))).toBe(false);
  });
});
