// The database handle every part of the app receives: drizzle over a libSQL client (embedded file or HTTP).
import type { Client } from '@libsql/client';
import { getTableColumns, is, SQL, sql } from 'drizzle-orm';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from './schema.ts';

export type Db = LibSQLDatabase<typeof schema>;

export interface Database {
  db: Db;
  client: Client;
}

export function createDatabase(client: Client): Database {
  return { db: drizzle(client, { schema }), client };
}

/** The libSQL client under a handle (drizzle keeps it as `$client`), for statements that skip drizzle's layers. */
export function clientOf(db: Db): Client {
  return (db as unknown as { $client: Client }).$client;
}

/** Busy timeout of embedded files, so the CLI and the server can share one file. */
export const BUSY_TIMEOUT_MS = 5000;

/** Embedded files: WAL (persistent in the file) so readers never wait for a writer. */
export async function prepareEmbeddedFile(client: Client): Promise<void> {
  await client.execute('PRAGMA journal_mode = WAL');
}

/**
 * `select <row's values> where <condition>`, for `insert into table select ...`: an insert that happens only if the
 * condition holds. Values come in the table's column order (the order drizzle lists the columns in), converted
 * as the driver wants them (JSON columns serialised).
 */
export function selectRow(table: SQLiteTable, row: Record<string, unknown>, condition: SQL): SQL {
  const values = Object.values(getTableColumns(table)).map((column) => {
    const value = row[column.name] ?? null;
    return is(value, SQL) ? value : sql`${column.mapToDriverValue(value)}`;
  });
  return sql`select ${sql.join(values, sql`, `)} where ${condition}`;
}

/** Rows ANALYZE reads per index: statistics in milliseconds, whatever the size of the tables. */
const ANALYSIS_LIMIT = 1000;

/**
 * Refreshes the query planner's statistics (sqlite_stat1). `full` (after migrations) analyzes every table; otherwise
 * `PRAGMA optimize` re-analyzes only the tables whose size changed a lot since, as seen by this connection's queries.
 * List pages do not depend on it (they name their index); counts, lookups and filters do.
 */
export async function optimizeDatabase(client: Client, full: boolean): Promise<void> {
  await client.executeMultiple(
    `PRAGMA analysis_limit = ${ANALYSIS_LIMIT}; ${full ? 'ANALYZE' : 'PRAGMA optimize'};`,
  );
}

export { schema };
