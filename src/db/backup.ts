// `compliance-mcp backup --to FILE`: a consistent copy of an embedded database file, taken while the server runs.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Client } from '@libsql/client';
import { AppError } from '../errors.ts';

/**
 * Writes the database as one self-contained file with SQLite's `VACUUM INTO`: a read transaction, so writers go on
 * and the copy is the database as of one moment (WAL included), compacted. Only for an embedded `file:` database.
 */
export async function backupDatabase(
  client: Client,
  databaseUrl: string,
  to: string | undefined,
): Promise<{ ok: true; to: string; bytes: number }> {
  requireEmbedded(databaseUrl);
  if (!to) throw new AppError('invalid_arguments', 'Missing --to FILE (the backup file to write).');
  const path = resolve(to);
  if (existsSync(path)) throw new AppError('conflict', `${path} already exists: name a new file.`);
  await client.execute({ sql: 'VACUUM INTO ?', args: [path] });
  return { ok: true, to: path, bytes: statSync(path).size };
}

/** Refuses a database that is not an embedded file (checked before the CLI opens it, so nothing is contacted). */
export function requireEmbedded(databaseUrl: string): void {
  if (!databaseUrl.startsWith('file:'))
    throw new AppError(
      'invalid_arguments',
      'backup copies an embedded database file (DATABASE_URL=file:...); a libSQL server (Turso, sqld) keeps its own backups.',
    );
}
