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

/** Busy timeout of embedded files, so the CLI and the server can share one file. */
export const BUSY_TIMEOUT_MS = 5000;

/** Embedded files: WAL (persistent in the file) so readers never wait for a writer. */
export async function prepareEmbeddedFile(client: Client): Promise<void> {
  await client.execute('PRAGMA journal_mode = WAL');
}

export { schema };
