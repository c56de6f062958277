// @vitest-environment node
// The libSQL dev server, driven by the real `@libsql/client/web` over HTTP (and in process for protocol details).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createFileClient } from '@libsql/client';
import { type Client, type Config, createClient, LibsqlBatchError, LibsqlError } from '@libsql/client/web';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { drizzle } from 'drizzle-orm/libsql/web';
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createHranaHandler, startHranaServer } from '../../scripts/dev/hrana-server.ts';
import { createDatabase } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/db/open-node.ts';

const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  // Reverse order: clients, then servers, then the temp folders they use.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDatabaseUrl(): { dir: string; databaseUrl: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hrana-dev-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, databaseUrl: `file:${join(dir, 'test.db')}` };
}

async function startServer(authToken?: string) {
  const { dir, databaseUrl } = tempDatabaseUrl();
  const server = await startHranaServer({ databaseUrl, ...(authToken ? { authToken } : {}) });
  cleanups.push(() => server.close());
  return { dir, databaseUrl, server };
}

function webClient(config: Config): Client {
  const client = createClient(config);
  cleanups.push(() => client.close());
  return client;
}

/** In-process handler plus a raw pipeline helper, for protocol details the client does not expose. */
function startHandler(streamIdleMs?: number) {
  const { databaseUrl } = tempDatabaseUrl();
  const handler = createHranaHandler({ databaseUrl, ...(streamIdleMs ? { streamIdleMs } : {}) });
  cleanups.push(() => handler.close());
  async function pipeline(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await handler.fetch(
      new Request('http://localhost/v2/pipeline', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }
  return { handler, databaseUrl, pipeline };
}

/** A raw HTTP request, so Host, Origin and Content-Type are exactly what a browser (or an attacker) would send. */
function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; contentType: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/v2/pipeline',
        headers: options.headers ?? {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body }),
        );
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

/** What a hostile page would POST: a whole-database wipe, as one pipeline. */
const WIPE = JSON.stringify({
  baton: null,
  requests: [{ type: 'execute', stmt: { sql: 'DROP TABLE victim' } }, { type: 'close' }],
});

async function victimTable(databaseUrl: string): Promise<string[]> {
  const client = createFileClient({ url: databaseUrl });
  try {
    const rs = await client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'victim'",
    );
    return rs.rows.map((row) => String(row.name));
  } finally {
    client.close();
  }
}

async function startServerWithVictim(authToken?: string) {
  const started = await startServer(authToken);
  const client = createFileClient({ url: started.databaseUrl });
  await client.execute('CREATE TABLE victim (id INTEGER PRIMARY KEY)');
  client.close();
  return started;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function names(client: Client, table = 'items'): Promise<unknown[]> {
  const rs = await client.execute(`SELECT name FROM ${table} ORDER BY name`);
  return rs.rows.map((row) => row.name);
}

describe('libsql dev server over HTTP', () => {
  it('answers the version probes so clients settle on v2 JSON, and listens on 127.0.0.1', async () => {
    const { server } = await startServer();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect((await fetch(`${server.url}/v2`)).status).toBe(200);
    expect((await fetch(`${server.url}/v3`)).status).toBe(404);
    expect((await fetch(`${server.url}/v3-protobuf`)).status).toBe(404);
    expect((await fetch(`${server.url}/v2/pipeline`)).status).toBe(405);
  });

  it('round-trips integers, floats, text, blobs and null with positional and named args', async () => {
    const { server } = await startServer();
    const client = webClient({ url: server.url, intMode: 'bigint' });
    await client.execute('CREATE TABLE vals (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, n)');
    const first = await client.execute({
      sql: 'INSERT INTO vals (i, r, s, b, n) VALUES (?, ?, ?, ?, ?)',
      args: [42n, 1.5, 'héllo ✓', new Uint8Array([0, 1, 254, 255]), null],
    });
    expect(first.rowsAffected).toBe(1);
    expect(first.lastInsertRowid).toBe(1n);
    await client.execute({
      sql: 'INSERT INTO vals (i, r, s, b, n) VALUES (:i, @r, $s, :b, :n)',
      args: { i: 9007199254740993n, r: 2, s: '', b: new Uint8Array([]), n: null },
    });

    const rs = await client.execute('SELECT i, r, s, b, n, typeof(r) AS rt FROM vals ORDER BY id');
    expect(rs.columns).toEqual(['i', 'r', 's', 'b', 'n', 'rt']);
    expect(rs.columnTypes).toEqual(['INTEGER', 'REAL', 'TEXT', 'BLOB', '', '']);
    const [one, two] = rs.rows;
    expect(one?.i).toBe(42n);
    expect(one?.r).toBe(1.5);
    expect(one?.s).toBe('héllo ✓');
    expect(one?.b).toBeInstanceOf(ArrayBuffer);
    expect([...new Uint8Array(one?.b as ArrayBuffer)]).toEqual([0, 1, 254, 255]);
    expect(one?.n).toBeNull();
    expect(two?.i).toBe(9007199254740993n);
    // A whole-number float stays a REAL on the way in and a float on the way out.
    expect(two?.r).toBe(2);
    expect(two?.rt).toBe('real');
    expect(two?.s).toBe('');
    expect(two?.b).toBeInstanceOf(ArrayBuffer);
    expect((two?.b as ArrayBuffer | undefined)?.byteLength).toBe(0);

    const numbers = webClient({ url: server.url });
    const plain = await numbers.execute('SELECT i, r FROM vals WHERE id = 1');
    expect(plain.rows[0]?.i).toBe(42);
    expect(plain.rows[0]?.r).toBe(1.5);

    const returning = await client.execute({
      sql: 'UPDATE vals SET s = ? WHERE id IN (1, 2) RETURNING id',
      args: ['changed'],
    });
    expect(returning.rows.map((row) => row.id)).toEqual([1n, 2n]);
    expect(returning.rowsAffected).toBe(2);
  });

  it('runs client.batch atomically: all committed, or all rolled back when one statement fails', async () => {
    const { server } = await startServer();
    const client = webClient({ url: server.url });
    await client.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');

    const results = await client.batch(
      [
        { sql: 'INSERT INTO items (name) VALUES (?)', args: ['a'] },
        { sql: 'INSERT INTO items (name) VALUES (?)', args: ['b'] },
        'SELECT count(*) AS n FROM items',
      ],
      'write',
    );
    expect(results).toHaveLength(3);
    expect(results[2]?.rows[0]?.n).toBe(2);

    const failing = client.batch(
      [
        { sql: 'INSERT INTO items (name) VALUES (?)', args: ['c'] },
        { sql: 'INSERT INTO items (name) VALUES (?)', args: ['a'] },
        { sql: 'INSERT INTO items (name) VALUES (?)', args: ['d'] },
      ],
      'write',
    );
    await expect(failing).rejects.toBeInstanceOf(LibsqlBatchError);
    await expect(failing).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT', statementIndex: 1 });
    expect(await names(client)).toEqual(['a', 'b']);
  });

  it('keeps an interactive transaction across pipelines with the baton, for commit and rollback', async () => {
    const { server } = await startServer();
    const client = webClient({ url: server.url });
    const observer = webClient({ url: server.url });
    await client.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');

    const tx = await client.transaction('write');
    await tx.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['kept'] });
    const inside = await tx.execute('SELECT count(*) AS n FROM items');
    expect(inside.rows[0]?.n).toBe(1);
    expect(await names(observer)).toEqual([]);
    await tx.commit();
    expect(await names(observer)).toEqual(['kept']);

    const undone = await client.transaction('write');
    await undone.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['dropped'] });
    await undone.batch([
      { sql: 'INSERT INTO items (name) VALUES (?)', args: ['dropped too'] },
      { sql: 'UPDATE items SET name = ? WHERE name = ?', args: ['renamed', 'kept'] },
    ]);
    expect((await undone.execute('SELECT count(*) AS n FROM items')).rows[0]?.n).toBe(3);
    await undone.rollback();
    expect(await names(observer)).toEqual(['kept']);
  });

  it('isolates concurrent transactions from two clients and queues the second writer', async () => {
    const { server } = await startServer();
    const a = webClient({ url: server.url });
    const b = webClient({ url: server.url });
    const reader = webClient({ url: server.url });
    await a.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');

    const txA = await a.transaction('write');
    await txA.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['from-a'] });
    const snapshot = await reader.transaction('read');
    expect((await snapshot.execute('SELECT count(*) AS n FROM items')).rows[0]?.n).toBe(0);

    // SQLite allows one writer: B's BEGIN IMMEDIATE waits (asynchronously) until A commits.
    const txB = await b.transaction('write');
    let bDone = false;
    const bInsert = txB
      .execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['from-b'] })
      .then((rs) => {
        bDone = true;
        return rs;
      });
    await sleep(150);
    expect(bDone).toBe(false);
    expect(await names(reader)).toEqual([]);

    await txA.commit();
    expect((await bInsert).rowsAffected).toBe(1);
    expect(await names(reader)).toEqual(['from-a']);
    expect((await txB.execute('SELECT name FROM items ORDER BY name')).rows.map((r) => r.name)).toEqual([
      'from-a',
      'from-b',
    ]);
    // The read transaction keeps the snapshot it started with.
    expect((await snapshot.execute('SELECT count(*) AS n FROM items')).rows[0]?.n).toBe(0);
    await snapshot.commit();

    await txB.commit();
    expect(await names(reader)).toEqual(['from-a', 'from-b']);
  });

  it('waits for a writer outside the server and fails a stale transaction fast', async () => {
    const { databaseUrl, server } = await startServer();
    const client = webClient({ url: server.url });
    await client.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');

    // The CLI writes the same file through the embedded client.
    const cli = createFileClient({ url: databaseUrl });
    cleanups.push(() => cli.close());
    const cliTx = await cli.transaction('write');
    await cliTx.execute("INSERT INTO items (name) VALUES ('from-cli')");
    const pending = client.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['from-http'] });
    await sleep(100);
    await cliTx.commit();
    expect((await pending).rowsAffected).toBe(1);
    expect(await names(client)).toEqual(['from-cli', 'from-http']);

    // A transaction that read before someone else committed can never write: SQLite says BUSY at once.
    const stale = await client.transaction('deferred');
    expect((await stale.execute('SELECT count(*) AS n FROM items')).rows[0]?.n).toBe(2);
    await cli.execute("INSERT INTO items (name) VALUES ('cli-again')");
    await expect(
      stale.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['stale'] }),
    ).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await stale.rollback();

    const fresh = await client.transaction('write');
    await fresh.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['after'] });
    await fresh.commit();
    expect(await names(client)).toEqual(['after', 'cli-again', 'from-cli', 'from-http']);
  });

  it('runs scripts with executeMultiple (sequence), also inside a transaction', async () => {
    const { server } = await startServer();
    const client = webClient({ url: server.url });
    await client.executeMultiple(`
      -- a script, as drizzle-kit or a seed file would send it
      CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
      INSERT INTO items (name) VALUES ('one');
      INSERT INTO items (name) VALUES ('two; with a semicolon');
    `);
    expect(await names(client)).toEqual(['one', 'two; with a semicolon']);

    const tx = await client.transaction('write');
    await tx.executeMultiple(
      "INSERT INTO items (name) VALUES ('three'); DELETE FROM items WHERE name = 'one';",
    );
    await tx.rollback();
    expect(await names(client)).toEqual(['one', 'two; with a semicolon']);

    await expect(client.executeMultiple('INSERT INTO nowhere VALUES (1);')).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
    });
  });

  it('reports SQL errors as LibsqlError and keeps serving', async () => {
    const { server } = await startServer();
    const client = webClient({ url: server.url });
    await client.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
    await client.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['x'] });

    const syntax = await client.execute('SELEC 1').catch((error: unknown) => error);
    expect(syntax).toBeInstanceOf(LibsqlError);
    expect(syntax).toMatchObject({ code: 'SQLITE_ERROR', message: expect.stringMatching(/syntax error/) });
    await expect(
      client.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['x'] }),
    ).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT',
      message: expect.stringMatching(/UNIQUE constraint failed/),
    });
    // Named args next to a bare `?` would crash libsql natively; the server refuses them instead.
    await expect(client.execute({ sql: 'SELECT ?, :a', args: { a: 1 } })).rejects.toMatchObject({
      code: 'ARGS_INVALID',
    });

    expect((await client.execute('SELECT count(*) AS n FROM items')).rows[0]?.n).toBe(1);
  });

  it('requires the bearer token when one is configured', async () => {
    const { server } = await startServer('s3cret-token');
    const wrong = webClient({ url: server.url, authToken: 'not-it' });
    const missing = webClient({ url: server.url });
    const right = webClient({ url: server.url, authToken: 's3cret-token' });

    const denied = await wrong.execute('SELECT 1').catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(LibsqlError);
    expect(denied).toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(missing.execute('SELECT 1')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await right.execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
  });

  it("runs the project's migrations over HTTP: FTS5 trigram tables kept by triggers, and ANALYZE", async () => {
    const { databaseUrl, server } = await startServer();
    const client = webClient({ url: server.url });
    await migrateDatabase(createDatabase(client));
    const now = '2026-01-01T00:00:00.000Z';
    await client.execute({
      sql: 'insert into organizations (id, name, created_at, updated_at) values (?, ?, ?, ?)',
      args: ['org_a', 'A', now, now],
    });
    const insert = `insert into risks (id, organization_id, name, description, category, status, treatment,
      inherent_likelihood, inherent_impact, inherent_score, residual_likelihood, residual_impact, residual_score,
      created_at, updated_at) values (?, 'org_a', ?, ?, 'General', 'OPEN', 'MITIGATE', 1, 1, 1, 1, 1, 1, ?, ?)`;
    await client.batch(
      [
        { sql: insert, args: ['rsk_1', 'Ransomware on backups', null, now, now] },
        { sql: insert, args: ['rsk_2', 'Flood', 'Ünïcode cellar', now, now] },
      ],
      'write',
    );
    await client.execute("update risks set description = 'burst pipe' where id = 'rsk_2'");
    const match = async (text: string) =>
      (
        await client.execute({
          sql: 'select risks.id from risks where rowid in (select rowid from risks_fts where risks_fts match ?) order by id',
          args: [`"${text}"`],
        })
      ).rows.map((row) => row.id);
    expect(await match('SOMWAR')).toEqual(['rsk_1']);
    expect(await match('burst')).toEqual(['rsk_2']);
    expect(await match('ünï')).toEqual([]);
    // Every migrate ends with ANALYZE (nothing to migrate the second time).
    await migrateDatabase(createDatabase(client));
    const stats = await client.execute("select count(*) as n from sqlite_stat1 where tbl = 'risks'");
    expect(Number(stats.rows[0]?.n)).toBeGreaterThan(0);
    // The embedded client reads the same index from the file.
    const file = createFileClient({ url: databaseUrl });
    cleanups.push(() => file.close());
    const local = await file.execute(`select rowid from risks_fts where risks_fts match '"pipe"'`);
    expect(local.rows).toHaveLength(1);
  });

  it('applies drizzle migrations over HTTP to the file the embedded client reads', async () => {
    const { dir, databaseUrl, server } = await startServer();
    const migrationsFolder = join(dir, 'migrations');
    mkdirSync(join(migrationsFolder, 'meta'), { recursive: true });
    writeFileSync(
      join(migrationsFolder, 'meta', '_journal.json'),
      JSON.stringify({
        version: '7',
        dialect: 'sqlite',
        entries: [{ idx: 0, version: '6', when: 1700000000000, tag: '0000_widgets', breakpoints: true }],
      }),
    );
    writeFileSync(
      join(migrationsFolder, '0000_widgets.sql'),
      [
        'CREATE TABLE `widgets` (',
        '\t`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,',
        '\t`name` text NOT NULL,',
        '\t`weight` real',
        ');',
        '--> statement-breakpoint',
        'CREATE UNIQUE INDEX `widgets_name_unique` ON `widgets` (`name`);',
      ].join('\n'),
    );
    const widgets = sqliteTable('widgets', {
      id: integer('id').primaryKey({ autoIncrement: true }),
      name: text('name').notNull(),
      weight: real('weight'),
    });

    const client = webClient({ url: server.url });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder });
    await migrate(db, { migrationsFolder });

    const applied = await client.execute('SELECT hash, created_at FROM __drizzle_migrations');
    expect(applied.rows).toHaveLength(1);
    expect(Number(applied.rows[0]?.created_at)).toBe(1700000000000);
    expect(await db.insert(widgets).values({ name: 'gear', weight: 1.25 }).returning()).toEqual([
      { id: 1, name: 'gear', weight: 1.25 },
    ]);
    await expect(db.insert(widgets).values({ name: 'gear' })).rejects.toThrow();
    // drizzle transactions ride on the baton; the nested one is a SAVEPOINT that rolls back on its own.
    await db.transaction(async (tx) => {
      await tx.insert(widgets).values({ name: 'bolt' });
      await tx
        .transaction(async (inner) => {
          await inner.insert(widgets).values({ name: 'nut' });
          throw new Error('undo the nut');
        })
        .catch(() => undefined);
    });
    expect(
      (await db.select({ name: widgets.name }).from(widgets).orderBy(widgets.name)).map((w) => w.name),
    ).toEqual(['bolt', 'gear']);

    const embedded = createFileClient({ url: databaseUrl });
    cleanups.push(() => embedded.close());
    const seen = await embedded.execute('SELECT name, weight FROM widgets ORDER BY name');
    expect(seen.rows.map((row) => [row.name, row.weight])).toEqual([
      ['bolt', null],
      ['gear', 1.25],
    ]);
  });
});

describe('libsql dev server against browsers (cross-site POST, DNS rebinding)', () => {
  it.each([
    'text/plain',
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json-patch+json',
    'text/plain, application/json',
  ])('refuses a pipeline sent as %s with 415, before running anything', async (contentType) => {
    const { databaseUrl, server } = await startServerWithVictim();
    const res = await rawRequest(server.port, { headers: { 'content-type': contentType }, body: WIPE });
    expect(res.status).toBe(415);
    expect(res.contentType).toBe('application/json');
    expect(JSON.parse(res.body)).toMatchObject({ message: expect.stringMatching(/application\/json/) });
    expect(await victimTable(databaseUrl)).toEqual(['victim']);
  });

  it('refuses a pipeline with no Content-Type at all', async () => {
    const { databaseUrl, server } = await startServerWithVictim();
    expect((await rawRequest(server.port, { body: WIPE })).status).toBe(415);
    expect(await victimTable(databaseUrl)).toEqual(['victim']);
  });

  it('accepts application/json with parameters, in any case, as the libSQL client sends it', async () => {
    const { server } = await startServer();
    for (const contentType of ['application/json', 'Application/JSON; charset=utf-8']) {
      const res = await rawRequest(server.port, {
        headers: { 'content-type': contentType },
        body: JSON.stringify({ baton: null, requests: [{ type: 'close' }] }),
      });
      expect(res.status, contentType).toBe(200);
    }
  });

  it.each(['https://evil.example', 'null', 'http://127.0.0.1:5173'])(
    'refuses any request with an Origin header (%s) with 403',
    async (origin) => {
      const { databaseUrl, server } = await startServerWithVictim();
      const post = await rawRequest(server.port, {
        headers: { origin, 'content-type': 'application/json' },
        body: WIPE,
      });
      expect(post.status).toBe(403);
      expect(post.contentType).toBe('application/json');
      expect(JSON.parse(post.body)).toMatchObject({ message: expect.stringMatching(/Origin/) });
      const probe = await rawRequest(server.port, { method: 'GET', path: '/v2', headers: { origin } });
      expect(probe.status).toBe(403);
      expect(await victimTable(databaseUrl)).toEqual(['victim']);
    },
  );

  it('refuses a non-loopback Host (DNS rebinding) with 403, even with the right token', async () => {
    const { databaseUrl, server } = await startServerWithVictim('s3cret-token');
    const json = { 'content-type': 'application/json', authorization: 'Bearer s3cret-token' };
    for (const host of [
      `rebind.evil.example:${server.port}`,
      'rebind.evil.example',
      `localhost.evil.example:${server.port}`,
      `127.0.0.1.evil.example:${server.port}`,
      `10.0.0.1:${server.port}`,
    ]) {
      const res = await rawRequest(server.port, { headers: { ...json, host }, body: WIPE });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body), host).toMatchObject({ message: expect.stringMatching(/localhost/) });
      const probe = await rawRequest(server.port, { method: 'GET', path: '/v2', headers: { host } });
      expect(probe.status, host).toBe(403);
    }
    // An absolute request target does not get around the Host header either.
    const absolute = await rawRequest(server.port, {
      path: `http://127.0.0.1:${server.port}/v2/pipeline`,
      headers: { ...json, host: 'rebind.evil.example' },
      body: WIPE,
    });
    expect(absolute.status).toBe(403);
    expect(await victimTable(databaseUrl)).toEqual(['victim']);
  });

  it('answers loopback Hosts: localhost, 127.0.0.0/8 and [::1], on any port', async () => {
    const { server } = await startServer();
    for (const host of [
      `localhost:${server.port}`,
      'localhost',
      'LOCALHOST:8080',
      `127.0.0.1:${server.port}`,
      '127.1.2.3',
      '[::1]:9000',
    ]) {
      const res = await rawRequest(server.port, {
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ baton: null, requests: [{ type: 'close' }] }),
      });
      expect(res.status, host).toBe(200);
    }
  });

  it('still needs the bearer token from a loopback client without Origin', async () => {
    const { databaseUrl, server } = await startServerWithVictim('s3cret-token');
    const res = await rawRequest(server.port, {
      headers: { 'content-type': 'application/json' },
      body: WIPE,
    });
    expect(res.status).toBe(401);
    expect(await victimTable(databaseUrl)).toEqual(['victim']);
  });

  it('applies the same checks in process: a non-loopback URL, an Origin or a text/plain body is refused', async () => {
    const { handler } = startHandler();
    const body = JSON.stringify({ baton: null, requests: [{ type: 'close' }] });
    const json = { 'content-type': 'application/json' };
    const post = (url: string, headers: Record<string, string>) =>
      handler.fetch(new Request(url, { method: 'POST', headers, body }));
    expect((await post('http://hrana.test/v2/pipeline', json)).status).toBe(403);
    expect(
      (await post('http://localhost/v2/pipeline', { ...json, origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await post('http://localhost/v2/pipeline', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('http://127.0.0.1/v2/pipeline', json)).status).toBe(200);
  });
});

describe('libsql dev server handler (in process)', () => {
  it('reuses the connections of closed streams, but never one a stream left state on', async () => {
    const { pipeline } = startHandler();
    const run = async (...sqls: string[]) => {
      const { json } = await pipeline({
        baton: null,
        requests: [
          ...sqls.map((sql) => ({ type: 'execute', stmt: { sql, want_rows: true } })),
          { type: 'close' },
        ],
      });
      return (json.results as Array<{ type: string; response?: { result?: { rows: unknown[][] } } }>)
        .filter((result) => result.response?.result)
        .map((result) => result.response?.result?.rows[0]?.[0]);
    };
    await run('CREATE TABLE items (name TEXT)');

    // A closed stream's connection is taken by the next stream: its per-connection change counter carries over.
    await run("INSERT INTO items VALUES ('a'), ('b'), ('c')", 'DELETE FROM items');
    expect(await run('SELECT total_changes()')).toEqual([{ type: 'integer', value: '6' }]);

    // A TEMP table, ATTACH, a changed PRAGMA or a script keep their connection out of the pool.
    const clean = async () => {
      const [scratch, attached, foreignKeys, rows] = await run(
        "SELECT count(*) FROM temp.sqlite_master WHERE name = 'scratch'",
        "SELECT count(*) FROM pragma_database_list WHERE name = 'other'",
        'PRAGMA foreign_keys',
        'SELECT count(*) FROM items',
      );
      return { scratch, attached, foreignKeys, rows };
    };
    const zero = { type: 'integer', value: '0' };
    const expected = {
      scratch: zero,
      attached: zero,
      foreignKeys: { type: 'integer', value: '1' },
      rows: zero,
    };
    await run('CREATE TEMP TABLE scratch (x)');
    expect(await clean()).toEqual(expected);
    await run("ATTACH ':memory:' AS other");
    expect(await clean()).toEqual(expected);
    await run('PRAGMA foreign_keys = OFF');
    expect(await clean()).toEqual(expected);
    const script = await pipeline({
      baton: null,
      requests: [
        { type: 'sequence', sql: "BEGIN; INSERT INTO items VALUES ('never committed');" },
        { type: 'close' },
      ],
    });
    expect(script.status).toBe(200);
    expect(await clean()).toEqual(expected);
    // And writes still go through: no pooled connection holds a transaction open.
    await run("INSERT INTO items VALUES ('d')");
    expect(await run('SELECT count(*) FROM items')).toEqual([{ type: 'integer', value: '1' }]);
  });

  it('rejects malformed pipelines and unknown batons with HTTP 400', async () => {
    const { pipeline } = startHandler();
    const notJson = await pipeline('{ nope');
    expect(notJson.status).toBe(400);
    expect(notJson.json.message).toMatch(/Malformed pipeline/);
    const badShape = await pipeline({ baton: null, requests: [{ type: 'execute', stmt: { args: [] } }] });
    expect(badShape.status).toBe(400);
    expect(badShape.json.message).toMatch(/sql/);
    const badValue = await pipeline({
      requests: [{ type: 'execute', stmt: { sql: 'SELECT ?', args: [{ type: 'integer', value: 1.5 }] } }],
    });
    expect(badValue.status).toBe(400);
    const unknownBaton = await pipeline({ baton: 'made-up', requests: [{ type: 'close' }] });
    expect(unknownBaton.status).toBe(400);
    expect(unknownBaton.json.message).toMatch(/baton/);
  });

  it('speaks the wire format: typed values, stored SQL, batch conditions, autocommit and close', async () => {
    const { pipeline } = startHandler();
    const first = await pipeline({
      baton: null,
      requests: [
        { type: 'store_sql', sql_id: 1, sql: 'SELECT ? AS v, typeof(?) AS t' },
        {
          type: 'execute',
          stmt: {
            sql_id: 1,
            args: [
              { type: 'integer', value: '-9223372036854775808' },
              { type: 'float', value: 3 },
            ],
            want_rows: true,
          },
        },
        { type: 'execute', stmt: { sql: 'SELECT 1', want_rows: false } },
        { type: 'get_autocommit' },
        { type: 'describe', sql: 'SELECT 1' },
        {
          type: 'batch',
          batch: {
            steps: [
              { stmt: { sql: 'BEGIN' } },
              { stmt: { sql: 'SELECT nope' } },
              { condition: { type: 'error', step: 1 }, stmt: { sql: "SELECT 'saw error'" } },
              { condition: { type: 'ok', step: 1 }, stmt: { sql: "SELECT 'skipped'" } },
              {
                condition: {
                  type: 'and',
                  conds: [
                    { type: 'not', cond: { type: 'is_autocommit' } },
                    { type: 'or', conds: [{ type: 'ok', step: 0 }] },
                  ],
                },
                stmt: { sql: "SELECT 'in transaction'" },
              },
            ],
          },
        },
      ],
    });
    expect(first.status).toBe(200);
    expect(typeof first.json.baton).toBe('string');
    expect(first.json.base_url).toBeNull();
    const results = first.json.results as Array<{
      type: string;
      response?: Record<string, unknown>;
      error?: unknown;
    }>;
    expect(results.map((r) => r.type)).toEqual(['ok', 'ok', 'ok', 'ok', 'error', 'ok']);
    expect(results[1]?.response?.result).toMatchObject({
      cols: [
        { name: 'v', decltype: null },
        { name: 't', decltype: null },
      ],
      rows: [
        [
          { type: 'integer', value: '-9223372036854775808' },
          { type: 'text', value: 'real' },
        ],
      ],
      affected_row_count: 0,
    });
    expect(results[2]?.response?.result).toMatchObject({ rows: [] });
    expect(results[3]?.response).toEqual({ type: 'get_autocommit', is_autocommit: true });
    expect(results[4]?.error).toMatchObject({ code: 'NOT_SUPPORTED' });
    const batch = results[5]?.response?.result as { step_results: unknown[]; step_errors: unknown[] };
    expect(batch.step_results.map((r) => r !== null)).toEqual([true, false, true, false, true]);
    expect(batch.step_errors[1]).toMatchObject({ code: 'SQLITE_ERROR' });

    const second = await pipeline({
      baton: first.json.baton,
      requests: [
        { type: 'get_autocommit' },
        { type: 'execute', stmt: { sql: 'ROLLBACK' } },
        { type: 'get_autocommit' },
        { type: 'close' },
      ],
    });
    const later = second.json.results as Array<{ response?: unknown }>;
    expect(later[0]?.response).toEqual({ type: 'get_autocommit', is_autocommit: false });
    expect(later[2]?.response).toEqual({ type: 'get_autocommit', is_autocommit: true });
    expect(second.json.baton).toBeNull();
  });

  it('expires idle streams and rolls back their transaction', async () => {
    const { handler } = startHandler(150);
    const client = webClient({ url: 'http://localhost', fetch: (req: Request) => handler.fetch(req) });
    await client.execute('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)');

    const abandoned = await client.transaction('write');
    await abandoned.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['lost'] });
    await sleep(400);
    await expect(abandoned.execute('SELECT 1')).rejects.toMatchObject({ code: 'STREAM_EXPIRED' });

    // The write lock went with the stream: a new writer gets in at once.
    const next = await client.transaction('write');
    await next.execute({ sql: 'INSERT INTO items (name) VALUES (?)', args: ['kept'] });
    await next.commit();
    expect(await names(client)).toEqual(['kept']);
  });
});
