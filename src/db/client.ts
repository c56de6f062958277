// The database handle every part of the app receives: drizzle over a libSQL client (embedded file or HTTP).
import type { Client } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import * as schema from './schema.ts';

export type Db = LibSQLDatabase<typeof schema>;

export interface Database {
  db: Db;
  client: Client;
}

export function createDatabase(client: Client): Database {
  return { db: drizzle(client, { schema }), client };
}

/** Embedded files: WAL so readers never wait for a writer, and a busy timeout so the CLI and server share the file. */
export async function prepareEmbeddedFile(client: Client): Promise<void> {
  await client.execute('PRAGMA journal_mode = WAL');
  await client.execute('PRAGMA busy_timeout = 5000');
  await client.execute('PRAGMA synchronous = NORMAL');
}

export { schema };
