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
import { createEmbeddedClient, embeddedFilePath } from './embedded-client.ts';

export const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../migrations');

export async function openNodeDatabase(url: string, authToken?: string): Promise<Database> {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  // `timeout` is the busy timeout of a `file:` database's connection (ignored by remote clients). One connection:
  // an embedded database runs every statement synchronously on this thread, so more connections never run anything
  // in parallel; the client's pool would open one per request awaiting at once, each with its own cold page cache,
  // and a large database would then be read from the file again and again under concurrent load. Nothing here holds
  // a connection across an await (writes are single batches, never interactive transactions).
  // A plain file path gets the client that keeps its statements prepared (embedded-client.ts).
  const embeddedPath = authToken ? null : embeddedFilePath(url);
  const client = embeddedPath
    ? createEmbeddedClient(embeddedPath, BUSY_TIMEOUT_MS)
    : createClient({
        url,
        timeout: BUSY_TIMEOUT_MS,
        ...(url.startsWith('file:') ? { concurrency: 1 } : {}),
        ...(authToken ? { authToken } : {}),
      });
  if (url.startsWith('file:')) await prepareEmbeddedFile(client);
  return createDatabase(client);
}

export async function migrateDatabase(database: Database): Promise<void> {
  const { migrate } = await import('drizzle-orm/libsql/migrator');
  await migrate(database.db, { migrationsFolder: MIGRATIONS_FOLDER });
  // Fresh statistics for the planner after a schema change (and on every start, which migrates first).
  await optimizeDatabase(database.client, true);
}
