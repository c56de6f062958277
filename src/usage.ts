// The record of every tool call ("monitoring of token use"), buffered so the hot path never waits for a write.
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './db/client.ts';
import { apiTokens, toolCalls } from './db/schema.ts';

export type Surface = 'mcp' | 'direct' | 'web';

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
}

export interface UsageRecorder {
  record(entry: ToolCallRecord): void;
  /** Writes what is buffered: the call rows and each token's `last_used_at`, in one batch. */
  flush(): Promise<void>;
  pending(): number;
}

const MAX_BUFFERED = 10_000;

export function createUsageRecorder(db: Db, log: (message: string) => void = console.error): UsageRecorder {
  let buffer: ToolCallRecord[] = [];
  let flushing: Promise<void> | null = null;

  async function write(entries: ToolCallRecord[]): Promise<void> {
    const lastUse = new Map<string, string>();
    for (const entry of entries) {
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
    await db.batch([db.insert(toolCalls).values(entries), ...updates]);
  }

  async function flushAll(): Promise<void> {
    while (buffer.length > 0) {
      const entries = buffer.slice(0, 500);
      buffer = buffer.slice(entries.length);
      try {
        await write(entries);
      } catch (error) {
        // Keep the entries for the next flush rather than lose them; the cap bounds memory if the database is gone.
        buffer = [...entries, ...buffer].slice(0, MAX_BUFFERED);
        log(`usage: could not record ${entries.length} tool calls: ${String(error)}`);
        return;
      }
    }
  }

  return {
    record(entry) {
      if (buffer.length >= MAX_BUFFERED) buffer.shift();
      buffer.push(entry);
    },
    flush() {
      // One flush at a time: a second caller waits for the running one, then flushes what came since.
      const run = (flushing ?? Promise.resolve()).then(flushAll);
      flushing = run.finally(() => {
        if (flushing === run) flushing = null;
      });
      return run;
    },
    pending: () => buffer.length,
  };
}
