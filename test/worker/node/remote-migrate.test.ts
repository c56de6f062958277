// `npx compliance-mcp migrate` (and the other commands) against a remote libSQL server: http://, libsql://, https://,
// with and without an auth token. The server is the Hrana dev server; production uses Turso or sqld.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createClient } from '@libsql/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHranaHandler, startHranaServer } from '../../../scripts/dev/hrana-server.ts';
import { searchIndexSegments } from '../../../src/db/search-maintenance.ts';
import { runCli } from '../../cli-run.ts';

const MIGRATION_COUNT = readdirSync(join(import.meta.dirname, '../../../migrations')).filter((name) =>
  name.endsWith('.sql'),
).length;

let dir: string;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-remote-'));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = runCli;

/** A fresh database file served over Hrana HTTP on a free port. */
async function remoteDatabase(authToken?: string) {
  const file = join(dir, `${crypto.randomUUID()}.db`);
  const server = await startHranaServer({ databaseUrl: `file:${file}`, ...(authToken ? { authToken } : {}) });
  cleanups.push(() => server.close());
  return { file, url: server.url, port: server.port };
}

/** What the migration left in the file, read directly (not through the server under test). */
async function migratedState(file: string) {
  const client = createClient({ url: `file:${file}` });
  try {
    const result = await client.execute("select name from sqlite_master where type = 'table' order by name");
    const tables = result.rows.map((row) => String(row.name));
    if (!tables.includes('__drizzle_migrations')) return { tables, applied: 0 };
    const applied = await client.execute('select count(*) as n from __drizzle_migrations');
    return { tables, applied: Number(applied.rows[0]?.n) };
  } finally {
    client.close();
  }
}

describe('migrate against a remote libSQL server', () => {
  it('migrates over http:// without an auth token, and a second run changes nothing', async () => {
    const remote = await remoteDatabase();
    const first = await cli({ DATABASE_URL: remote.url }, 'migrate');
    expect(first.code, first.err.join('\n')).toBe(0);
    expect(JSON.parse(first.out[0] ?? '')).toEqual({
      ok: true,
      database: remote.url,
      search_indexes_merged: [],
    });
    const state = await migratedState(remote.file);
    expect(state.tables).toEqual(
      expect.arrayContaining(['api_tokens', 'organizations', 'risks', 'tool_calls', 'users']),
    );
    expect(state.applied).toBe(MIGRATION_COUNT);
    // The risks' search index written one transaction at a time (straight into the index: its b-trees are what
    // counts here), then merged into one by the next migrate, over HTTP.
    const file = createClient({ url: `file:${remote.file}` });
    try {
      for (let i = 0; i < 12; i++) {
        await file.execute({
          sql: 'insert into risks_fts (rowid, name, description) values (?, ?, ?)',
          args: [i + 1, `Risk ${i}`, ''],
        });
      }
      expect(await searchIndexSegments(file, 'risks_fts')).toBeGreaterThan(1);
      const second = await cli({ DATABASE_URL: remote.url }, 'migrate');
      expect(second.code, second.err.join('\n')).toBe(0);
      expect(JSON.parse(second.out[0] ?? '')).toEqual({
        ok: true,
        database: remote.url,
        search_indexes_merged: ['risks_fts'],
      });
      expect(await searchIndexSegments(file, 'risks_fts')).toBe(1);
    } finally {
      file.close();
    }
    expect((await migratedState(remote.file)).applied).toBe(MIGRATION_COUNT);
  });

  it('migrates over http:// with DATABASE_AUTH_TOKEN, and refuses a missing or wrong token', async () => {
    const remote = await remoteDatabase('dev-secret-token');
    const missing = await cli({ DATABASE_URL: remote.url }, 'migrate');
    expect(missing.code).toBe(1);
    expect(missing.err.join('\n')).toMatch(/UNAUTHORIZED|401/);
    const wrong = await cli({ DATABASE_URL: remote.url, DATABASE_AUTH_TOKEN: 'not-it' }, 'migrate');
    expect(wrong.code).toBe(1);
    expect(await migratedState(remote.file)).toEqual({ tables: [], applied: 0 });
    const right = await cli({ DATABASE_URL: remote.url, DATABASE_AUTH_TOKEN: 'dev-secret-token' }, 'migrate');
    expect(right.code, right.err.join('\n')).toBe(0);
    expect((await migratedState(remote.file)).applied).toBe(MIGRATION_COUNT);
  });

  it('accepts a libsql:// URL (HTTP with ?tls=0 here; Turso URLs use TLS)', async () => {
    const remote = await remoteDatabase('dev-secret-token');
    const url = `libsql://127.0.0.1:${remote.port}?tls=0`;
    const result = await cli({ DATABASE_URL: url, DATABASE_AUTH_TOKEN: 'dev-secret-token' }, 'migrate');
    expect(result.code, result.err.join('\n')).toBe(0);
    expect((await migratedState(remote.file)).applied).toBe(MIGRATION_COUNT);
  });

  it('runs the operator commands over http:// too: user, organization, token', async () => {
    const remote = await remoteDatabase('dev-secret-token');
    const env = { DATABASE_URL: remote.url, DATABASE_AUTH_TOKEN: 'dev-secret-token' };
    expect(
      (await cli(env, 'user', 'create', '--email', 'ops@example.com', '--password', 'long enough pw')).code,
    ).toBe(0);
    const org = await cli(env, 'org', 'create', '--name', 'Remote Org', '--owner', 'ops@example.com');
    expect(JSON.parse(org.out[0] ?? '').id).toMatch(/^org_/);
    const token = await cli(env, 'token', 'create', '--email', 'ops@example.com', '--name', 'remote');
    expect(JSON.parse(token.out[0] ?? '').token).toMatch(/^cmcp_/);
  });
});

function opensslAvailable(): boolean {
  return spawnSync('openssl', ['version']).status === 0;
}

describe.skipIf(!opensslAvailable())(
  'migrate over TLS (https:// and libsql://), as against Turso or sqld',
  () => {
    it('migrates through `npx compliance-mcp migrate` with a server certificate the process trusts', async () => {
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      const made = spawnSync('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ]);
      expect(made.status, made.stderr.toString()).toBe(0);

      for (const scheme of ['https', 'libsql'] as const) {
        const file = join(dir, `${crypto.randomUUID()}.db`);
        const handler = createHranaHandler({ databaseUrl: `file:${file}`, authToken: 'tls-secret' });
        const server = serve({
          fetch: (request) => handler.fetch(request),
          hostname: '127.0.0.1',
          port: 0,
          createServer,
          serverOptions: { key: readFileSync(key), cert: readFileSync(cert) },
          overrideGlobalObjects: false,
        });
        await new Promise<void>((resolve) => server.once('listening', () => resolve()));
        cleanups.push(async () => {
          await handler.close();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        });
        const port = (server.address() as AddressInfo).port;
        const url = `${scheme}://127.0.0.1:${port}`;

        // The real command line, in its own process, so NODE_EXTRA_CA_CERTS applies from the start.
        const child = spawn(process.execPath, ['bin/compliance-mcp.js', 'migrate'], {
          env: {
            ...process.env,
            DATABASE_URL: url,
            DATABASE_AUTH_TOKEN: 'tls-secret',
            NODE_EXTRA_CA_CERTS: cert,
          },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        expect(code, `${scheme}: ${stderr}`).toBe(0);
        expect(JSON.parse(stdout.trim())).toEqual({ ok: true, database: url, search_indexes_merged: [] });
        expect((await migratedState(file)).applied).toBe(MIGRATION_COUNT);
      }
    });
  },
);
