// Upkeep of the registers' FTS5 search indexes (migrations/0002_fts_search.sql) in an embedded database.
//
// Each write transaction adds a b-tree (a segment) to a register's index, and FTS5 merges them only four at a
// time, so an index that grew to 100k records holds ten or so. Every search opens each of its trigrams in each of
// them: at 100k risks (the scale bench's data, in process), the first 101 matches of a word took 0.29 ms from ten
// b-trees and 0.19 ms from one, and read from the largest rowids down, 0.64 ms and 0.32 ms. Merging them into one
// rewrites the whole index (about 0.4 s of CPU at 100k), so it is done in small steps, each its own short write
// (a few milliseconds), with a pause between them for the requests the process is serving.
import type { Client } from '@libsql/client';
import { optimizeDatabase } from './client.ts';

/** What the merge needs of a libSQL client (a counting wrapper will do). */
type Statements = Pick<Client, 'execute' | 'batch'>;

/** FTS5 leaf pages written per step (of up to 4050 bytes each, FTS5's default pgsz: about 130 kB): a few milliseconds. */
export const MERGE_STEP_PAGES = 32;

/** The FTS5 tables of the database (one per searchable register). */
export async function searchIndexTables(client: Statements): Promise<string[]> {
  const result = await client.execute(
    "select name from sqlite_master where type = 'table' and sql like 'CREATE VIRTUAL TABLE%USING fts5%' order by name",
  );
  return result.rows.map((row) => String(row.name));
}

/**
 * The number of b-trees in an FTS5 index, from its structure record (row 10 of `<table>_data`): a 4-byte cookie,
 * a 4-byte 0xffffffff marker in the newer format, then varints: levels, segments.
 */
export async function searchIndexSegments(client: Statements, table: string): Promise<number> {
  const result = await client.execute(`select block from ${quote(`${table}_data`)} where id = 10`);
  const block = result.rows[0]?.block;
  // @libsql/client gives a blob as an ArrayBuffer; accept a view too, in case a client or version gives one.
  const bytes =
    block instanceof ArrayBuffer
      ? new Uint8Array(block)
      : ArrayBuffer.isView(block)
        ? new Uint8Array(block.buffer, block.byteOffset, block.byteLength)
        : undefined;
  if (!bytes || bytes.length < 6) return 0;
  let at = 4;
  if (bytes[4] === 0xff && bytes[5] === 0xff && bytes[6] === 0xff && bytes[7] === 0xff) at = 8;
  const levels = readVarint(bytes, at);
  return readVarint(bytes, levels.next).value;
}

/**
 * Merges every search index of more than one b-tree into one, `MERGE_STEP_PAGES` (or `stepPages`) at a time,
 * awaiting `pause` (given how long the step took, in ms) between steps and stopping early when `stopped()` says so.
 * The default pause is as long as the step: the merge takes at most half of the process's time. Returns the tables
 * whose merge it finished.
 */
export async function mergeSearchIndexes(
  client: Statements,
  options: {
    pause?: (stepMs: number) => Promise<void>;
    stopped?: () => boolean;
    /** Pages per step (tests use small steps to stop a merge halfway). */
    stepPages?: number;
  } = {},
): Promise<string[]> {
  const step = Math.max(1, Math.floor(options.stepPages ?? MERGE_STEP_PAGES));
  const pause =
    options.pause ??
    ((stepMs: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, stepMs))));
  const stopped = options.stopped ?? (() => false);
  const merged: string[] = [];
  for (const table of await searchIndexTables(client)) {
    if (stopped()) break;
    if ((await searchIndexSegments(client, table)) <= 1) continue;
    // Positive steps carry on a merge under way (one a run stopped halfway, even if writes landed since) or merge a
    // level of 4 b-trees (FTS5's usermerge); a step that changed fewer than two rows found nothing to do (the FTS5
    // documentation's test). Then, if more than one b-tree is left, one negative step puts them all on one level
    // and starts merging them together, and positive steps carry that on. (A negative step first would put a merge
    // under way back on one level with the b-trees written since and start it over: under steady writes, a merge
    // cut short every run would never end.)
    let pages = step;
    let wholeMergeStarted = false;
    let finished = false;
    while (!stopped()) {
      const started = Date.now();
      const changed = await mergeStep(client, table, pages);
      if (Number.isNaN(changed)) break; // a count it cannot read: stop, not reported as merged
      if (changed < 2) {
        if (pages > 0 && !wholeMergeStarted && (await searchIndexSegments(client, table)) > 1) {
          wholeMergeStarted = true;
          pages = -step;
          continue;
        }
        finished = true;
        break;
      }
      pages = step;
      await pause(Date.now() - started);
    }
    // Stopped halfway: the index is sound and searches the same; the next run carries the merge on.
    if (!finished) break;
    merged.push(table);
  }
  return merged;
}

/**
 * Requests one scheduled upkeep may send (every statement or batch over HTTP is one subrequest; the Workers Free plan
 * allows 50 per Cron run): a merge that needs more carries on at the next run.
 */
export const UPKEEP_MAX_REQUESTS = 40;

/**
 * The upkeep a host without a timer of its own runs on a schedule (the Worker's Cron Trigger): the planner's
 * statistics refreshed (ANALYZE with the analysis limit, milliseconds at any size; `PRAGMA optimize` would do nothing
 * over HTTP, where each statement may run on a fresh connection), then the search indexes merged, in paced steps,
 * within `maxRequests` requests. `unfinished`: the budget ran out first (the next run carries the merge on).
 */
export async function scheduledUpkeep(
  client: Client,
  options: { maxRequests?: number; pause?: (stepMs: number) => Promise<void> } = {},
): Promise<{ merged: string[]; unfinished: boolean }> {
  const budget = options.maxRequests ?? UPKEEP_MAX_REQUESTS;
  await optimizeDatabase(client, true);
  let sent = 1;
  const counted: Statements = {
    execute: ((statement: Parameters<Client['execute']>[0]) => {
      sent += 1;
      return client.execute(statement);
    }) as Client['execute'],
    batch: ((statements: Parameters<Client['batch']>[0], mode?: Parameters<Client['batch']>[1]) => {
      sent += 1;
      return client.batch(statements, mode);
    }) as Client['batch'],
  };
  // A table's loop may send two more after the last check (its b-tree count, then a step).
  const stopped = () => sent + 2 >= budget;
  const merged = await mergeSearchIndexes(counted, {
    stopped,
    ...(options.pause ? { pause: options.pause } : {}),
  });
  return { merged, unfinished: stopped() };
}

/** One 'merge' command of `pages` pages; the rows it changed (NaN if the count cannot be read). */
async function mergeStep(client: Statements, table: string, pages: number): Promise<number> {
  const [before, , after] = await client.batch(
    [
      'select total_changes() as changes',
      { sql: `insert into ${quote(table)} (${quote(table)}, rank) values ('merge', ?)`, args: [pages] },
      'select total_changes() as changes',
    ],
    'write',
  );
  return Number(after?.rows[0]?.changes) - Number(before?.rows[0]?.changes);
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** An SQLite varint: big-endian 7-bit groups, the high bit set on all but the last (the 9th byte is whole). */
function readVarint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[at + i] ?? 0;
    if (i === 8) return { value: value * 256 + byte, next: at + 9 };
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  return { value, next: at + 9 };
}
