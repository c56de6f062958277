// The embedded client (src/db/embedded-client.ts) answers as @libsql/client does: here its one-row reads (a LIMIT of
// 1, read with one native call) against the stock client on the same file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, createClient, type InStatement } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedClient } from '../../src/db/embedded-client.ts';

let dir: string;
let embedded: Client;
let stock: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-embedded-'));
  const path = join(dir, 'e.db');
  stock = createClient({ url: `file:${path}` });
  await stock.batch(
    [
      'create table items (id integer primary key, name text not null, size integer, data blob)',
      "insert into items (id, name, size, data) values (1, 'one', 10, x'0102'), (2, 'two', null, null), (3, 'three', 9007199254740991, null)",
    ],
    'write',
  );
  embedded = createEmbeddedClient(path, 5000);
});

afterAll(() => {
  embedded.close();
  stock.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The parts of a result set a caller reads, rows as plain objects and as arrays. */
async function answer(client: Client, statement: InStatement) {
  const result = await client.execute(statement);
  return {
    columns: result.columns,
    rows: result.rows.map((row) => ({ ...row })),
    values: result.rows.map((row) => Array.from(row)),
    length: result.rows.map((row) => row.length),
  };
}

describe('the embedded client', () => {
  const statements: [string, InStatement][] = [
    ['LIMIT ? of 1, a row', { sql: 'select * from items where id = ? limit ?', args: [1, 1] }],
    ['LIMIT ? of 1, no row', { sql: 'select * from items where id = ? limit ?', args: [42, 1] }],
    [
      'LIMIT ? of 1 among several rows',
      { sql: 'select id, name from items order by id desc limit ?', args: [1] },
    ],
    ['LIMIT ? of 2', { sql: 'select id, name from items order by id limit ?', args: [2] }],
    [
      'LIMIT 1 written out',
      { sql: 'select name, size from items where size is not null order by id limit 1', args: [] },
    ],
    ['LIMIT ? OFFSET ?', { sql: 'select id from items order by id limit ? offset ?', args: [1, 1] }],
    [
      'named arguments and LIMIT 1',
      { sql: 'select id, data from items where name = :name limit 1', args: { name: 'one' } },
    ],
    ['a large integer, one row', { sql: 'select size from items where id = ? limit ?', args: [3, 1] }],
    ['no limit', { sql: 'select id from items order by id', args: [] }],
  ];
  for (const [name, statement] of statements) {
    it(`answers ${name} as @libsql/client does`, async () => {
      expect(await answer(embedded, statement)).toEqual(await answer(stock, statement));
    });
  }

  it('reads one row where the limit is 1 and every row where it is more', async () => {
    const one = await embedded.execute({ sql: 'select id from items order by id limit ?', args: [1] });
    const all = await embedded.execute({ sql: 'select id from items order by id limit ?', args: [10] });
    expect(one.rows.map((row) => row.id)).toEqual([1]);
    expect(all.rows.map((row) => row.id)).toEqual([1, 2, 3]);
    const blob = await embedded.execute({ sql: 'select data from items where id = 1 limit 1', args: [] });
    expect(new Uint8Array(blob.rows[0]?.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2]));
  });
});
