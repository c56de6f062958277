// Opens the database for Node processes (server, CLI): embedded `file:` URLs or a remote libSQL server.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import {
  BUSY_TIMEOUT_MS,
  createDatabase,
  type Database,
  optimizeDatabase,
  prepareEmbeddedFile,
} from './client.ts';

export const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations');

export async function openNodeDatabase(url: string, authToken?: string): Promise<Database> {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  // `timeout` is the busy timeout of every pooled connection to a `file:` database (ignored by remote clients).
  const client = createClient({ url, timeout: BUSY_TIMEOUT_MS, ...(authToken ? { authToken } : {}) });
  if (url.startsWith('file:')) await prepareEmbeddedFile(client);
  return createDatabase(client);
}

export async function migrateDatabase(database: Database): Promise<void> {
  const { migrate } = await import('drizzle-orm/libsql/migrator');
  await migrate(database.db, { migrationsFolder: MIGRATIONS_FOLDER });
  // Fresh statistics for the planner after a schema change (and on every start, which migrates first).
  await optimizeDatabase(database.client, true);
}
