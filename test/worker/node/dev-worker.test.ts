// `npm run dev:worker` end to end: migrate + seed, Hrana dev server, `wrangler dev` (the real wrangler.toml, no
// nodejs_compat), a token made by the CLI working on the Worker, and a clean stop on Ctrl-C.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { TOOLS } from '../../../src/tools/index.ts';
import { isCore } from '../../../src/tools/toolsets.ts';

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

interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest) => CannonRequest;
  onResponse?: (status: number, body: string) => void;
}
interface CannonResult {
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
// autocannon (a devDependency, CommonJS, no bundled types): only the options and figures used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  amount: number;
  /** Seconds a request may take before it counts as a timeout. */
  timeout: number;
  requests: CannonRequest[];
}) => Promise<CannonResult>;

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
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        NO_COLOR: '1',
        CI: 'false',
        // A dev registry of its own: wrangler dev reloads the Worker (503 to requests in flight) when another
        // `wrangler dev` on the machine registers in the shared one (~/.config/.wrangler/registry).
        WRANGLER_REGISTRY_PATH: join(dir, 'wrangler-registry'),
      },
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
    // A read_write token on the bare URL lists the core, findTools and the call tools among it, as on the Node host.
    const expected = [...TOOLS.values()]
      .filter(isCore)
      .map((tool) => tool.name)
      .sort();
    const listed = ((await response.json()) as { result: { tools: { name: string }[] } }).result.tools;
    expect(listed.map((tool) => tool.name).sort()).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['findTools', 'callWriteTool', 'listPeople']));
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

  // 64 connections, 640 requests of reads (direct and MCP) and writes, spread over 16 tokens so the per-token rate
  // limit stays out of the way; bounded in count, not time, so a loaded machine makes it slower, not red. Before the
  // fix, one libSQL client queue per isolate made every request fail within a second.
  it('serves 64 concurrent connections without an error, and keeps serving afterwards', async () => {
    await cli('user', 'create', '--email', 'load@example.com', '--password', 'long enough pw');
    const org = String((await cli('org', 'create', '--name', 'Load Org', '--owner', 'load@example.com')).id);
    const tokens: string[] = [];
    for (let i = 0; i < 16; i++)
      tokens.push(
        String((await cli('token', 'create', '--email', 'load@example.com', '--name', `load ${i}`)).token),
      );
    let next = 0;
    const withToken = (request: CannonRequest) => {
      request.headers = { ...request.headers, authorization: `Bearer ${tokens[next++ % tokens.length]}` };
      return request;
    };
    const ok = { read: 0, mcp: 0, write: 0 };
    const failures: string[] = [];
    const counted = (kind: keyof typeof ok) => (status: number, body: string) => {
      if (status === 200) ok[kind] += 1;
      else if (failures.length < 5) failures.push(`${kind} ${status} ${body.slice(0, 200)}`);
    };
    // Warm-up, one call of each kind: wrangler dev may start the user worker a second time just after "Ready", and
    // its proxy answers a POST in flight then with its own 503 ("Your worker restarted mid-request").
    expect(
      (await callWorker('/api/mcp/tools/listVendors', tokens[0] ?? '', { organization_id: org })).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    let vendor = 0;
    const json = { 'content-type': 'application/json' };
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections: 64,
      amount: 640,
      timeout: 60,
      requests: [
        {
          method: 'POST',
          path: '/api/mcp/tools/listVendors',
          headers: json,
          body: JSON.stringify({ organization_id: org }),
          setupRequest: withToken,
          onResponse: counted('read'),
        },
        {
          method: 'POST',
          path: '/api/mcp/v1',
          headers: { ...json, accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'listVendors', arguments: { organization_id: org } },
          }),
          setupRequest: withToken,
          onResponse: counted('mcp'),
        },
        {
          method: 'POST',
          path: '/api/mcp/tools/addVendor',
          headers: json,
          setupRequest: (request) => {
            request.body = JSON.stringify({ organization_id: org, name: `Vendor ${vendor++}` });
            return withToken(request);
          },
          onResponse: counted('write'),
        },
      ],
    });
    // On failure, the Worker's own account of it: errors and 5xx lines of the dev:worker output.
    const workerLog = output
      .split('\n')
      .filter((line) => /ERROR|✘| 5\d\d |reload|restart|change/i.test(line))
      .slice(-14)
      .join('\n');
    expect(failures, workerLog).toEqual([]);
    expect({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }, workerLog).toEqual({
      non2xx: 0,
      errors: 0,
      timeouts: 0,
    });
    expect(result['2xx']).toBe(640);
    expect(ok.read + ok.mcp + ok.write).toBe(640);
    expect(Math.min(ok.read, ok.mcp, ok.write)).toBeGreaterThan(150);

    // The isolate still answers, and every acknowledged write is there (requests cut off at the end may add more).
    const listed = await callWorker('/api/mcp/tools/listVendors', tokens[0] ?? '', {
      organization_id: org,
      size: 1,
    });
    expect(listed.status).toBe(200);
    const total = ((await listed.json()) as { total_count: number }).total_count;
    expect(total).toBeGreaterThanOrEqual(ok.write);
    expect(total).toBeLessThanOrEqual(vendor);

    // The call log kept every answered call (reads are written after the response: give it a moment).
    const database = createClient({ url: databaseUrl });
    try {
      let logged = 0;
      for (let wait = 0; wait < 50 && logged < result['2xx']; wait++) {
        const rows = await database.execute({
          sql: "SELECT count(*) AS n FROM tool_calls WHERE organization_id = ? AND tool IN ('listVendors', 'addVendor')",
          args: [org],
        });
        logged = Number(rows.rows[0]?.n ?? 0);
        if (logged < result['2xx']) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(logged).toBeGreaterThanOrEqual(result['2xx']);
    } finally {
      database.close();
    }
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
