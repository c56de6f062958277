// The record of every tool call ("monitoring of token use"). A write's row goes into the write's own batch (durable
// with it); every other row is buffered so the hot path never waits for a write.
import { and, eq, getTableColumns, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Db, selectRow } from './db/client.ts';
import { apiTokens, toolCalls } from './db/schema.ts';
import { describeError } from './errors.ts';

/** Where a call came in; `cli` is the operator CLI (e.g. the demo seed), which runs tools without a token. */
export type Surface = 'mcp' | 'direct' | 'web' | 'cli';

export interface ToolCallRecord {
  token_id: string;
  user_id: string;
  tool: string;
  surface: Surface;
  organization_id: string | null;
  /** `ok` or the error code. */
  outcome: string;
  duration_ms: number;
  created_at: string;
  /** The call's id (`cal_...`): links it to the change-history rows its writes made. */
  call_id: string;
}

/**
 * Whether the call's row may already be in the database: `no` (buffer it), `yes` (a write's batch wrote it; the
 * buffer only moves the token's `last_used_at`), `maybe` (a write's batch carried it but the call failed: the
 * buffer writes it unless the batch's `ok` row of this call is there).
 */
export type LoggedInBatch = 'no' | 'yes' | 'maybe';

/**
 * `insert into tool_calls select <entry> where <condition>`: the call's row, written only if `condition` holds when
 * the statement runs (inside a batch).
 */
export function callLogRow(db: Db, entry: ToolCallRecord, condition: SQL): BatchItem<'sqlite'> {
  return db.insert(toolCalls).select(selectRow(toolCalls, { ...entry, id: null }, condition));
}

/**
 * `insert into tool_calls select ...` of many calls' rows given as one JSON array (one argument): the same statement
 * whatever the number of rows, so it is built in a moment and kept prepared (Node), where an insert of the rows'
 * values would have its arguments built one by one and be prepared again on every flush.
 */
function callRows(db: Db, entries: ToolCallRecord[]): BatchItem<'sqlite'> {
  return db
    .insert(toolCalls)
    .select(sql`select ${CALL_ROW_VALUES} from json_each(${JSON.stringify(entries)}) order by key`);
}

/** The table's columns, in order, read from one call's JSON object (the id left to SQLite). */
const CALL_ROW_VALUES = sql.join(
  Object.values(getTableColumns(toolCalls)).map((column) =>
    column.name === 'id' ? sql`null` : sql.raw(`json_extract(value, '$.${column.name}')`),
  ),
  sql`, `,
);

/** SQL: this call's `ok` row is in the log (its call id, found through the token and time index). */
function loggedOk(entry: ToolCallRecord): SQL {
  return sql`exists (select 1 from ${toolCalls} where ${and(
    eq(toolCalls.token_id, entry.token_id),
    eq(toolCalls.created_at, entry.created_at),
    eq(toolCalls.call_id, entry.call_id),
    eq(toolCalls.outcome, 'ok'),
  )})`;
}

interface Buffered {
  entry: ToolCallRecord;
  logged: LoggedInBatch;
}

export interface UsageRecorder {
  record(entry: ToolCallRecord, logged?: LoggedInBatch): void;
  /** Writes what is buffered: the call rows and each token's `last_used_at`, in one batch. */
  flush(): Promise<void>;
  pending(): number;
}

const MAX_BUFFERED = 10_000;

export function createUsageRecorder(db: Db, log: (message: string) => void = console.error): UsageRecorder {
  let buffer: Buffered[] = [];

  async function write(items: Buffered[]): Promise<void> {
    const lastUse = new Map<string, string>();
    for (const { entry } of items) {
      const seen = lastUse.get(entry.token_id);
      if (!seen || seen < entry.created_at) lastUse.set(entry.token_id, entry.created_at);
    }
    const updates: BatchItem<'sqlite'>[] = [...lastUse].map(([tokenId, at]) =>
      db
        .update(apiTokens)
        .set({ last_used_at: at })
        .where(
          and(eq(apiTokens.id, tokenId), or(isNull(apiTokens.last_used_at), lt(apiTokens.last_used_at, at))),
        ),
    );
    const plain = items.filter((item) => item.logged === 'no').map((item) => item.entry);
    const guarded = items
      .filter((item) => item.logged === 'maybe')
      .map((item) => callLogRow(db, item.entry, sql`not ${loggedOk(item.entry)}`));
    const statements = [...(plain.length > 0 ? [callRows(db, plain)] : []), ...guarded, ...updates];
    const [first, ...rest] = statements;
    if (first) await db.batch([first, ...rest]);
  }

  return {
    record(entry, logged = 'no') {
      buffer.push({ entry, logged });
      // Past the cap the oldest entries go first (the database has been unreachable for a long while).
      if (buffer.length > MAX_BUFFERED) buffer = buffer.slice(-MAX_BUFFERED);
    },
    async flush() {
      // Each flush takes its own entries at once, so concurrent flushes never write one twice and never wait on
      // each other (on Workers a request must not await another request's promise).
      while (buffer.length > 0) {
        const items = buffer.splice(0, 500);
        try {
          await write(items);
        } catch (error) {
          buffer = [...items, ...buffer].slice(-MAX_BUFFERED);
          log(
            `usage: could not record ${items.length} tool calls, kept for the next flush: ${describeError(error)}`,
          );
          return;
        }
      }
    },
    pending: () => buffer.length,
  };
}
