// The record of every tool call ("monitoring of token use"), buffered so the hot path never waits for a write.
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from './db/client.ts';
import { apiTokens, toolCalls } from './db/schema.ts';
import { describeError } from './errors.ts';

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

  return {
    record(entry) {
      buffer.push(entry);
      // Past the cap the oldest entries go first (the database has been unreachable for a long while).
      if (buffer.length > MAX_BUFFERED) buffer = buffer.slice(-MAX_BUFFERED);
    },
    async flush() {
      // Each flush takes its own entries at once, so concurrent flushes never write one twice and never wait on
      // each other (on Workers a request must not await another request's promise).
      while (buffer.length > 0) {
        const entries = buffer.splice(0, 500);
        try {
          await write(entries);
        } catch (error) {
          buffer = [...entries, ...buffer].slice(-MAX_BUFFERED);
          log(
            `usage: could not record ${entries.length} tool calls, kept for the next flush: ${describeError(error)}`,
          );
          return;
        }
      }
    },
    pending: () => buffer.length,
  };
}
