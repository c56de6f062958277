// The call log recorder: buffered writes, concurrent flushes, failures kept for later, no secrets in log lines.
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/db/schema.ts';
import { describeError } from '../../src/errors.ts';
import { createUsageRecorder, type ToolCallRecord } from '../../src/usage.ts';
import { createTestRuntime, createWorld, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
let tokenId: string;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  tokenId = (await runtime.tokens.list(world.alice.userId))[0]?.id ?? '';
});

afterAll(async () => runtime.cleanup());

function entry(i: number): ToolCallRecord {
  return {
    token_id: tokenId,
    user_id: world.alice.userId,
    tool: 'listVendors',
    surface: 'direct',
    organization_id: world.orgA,
    outcome: 'ok',
    duration_ms: 1,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  };
}

async function rows(): Promise<number> {
  const [row] = await runtime.database.db.select({ n: count() }).from(toolCalls);
  return row?.n ?? 0;
}

describe('usage recorder', () => {
  it('writes every entry exactly once when flushes run concurrently', async () => {
    const recorder = createUsageRecorder(runtime.database.db);
    const before = await rows();
    for (let i = 0; i < 1200; i++) recorder.record(entry(i));
    await Promise.all([recorder.flush(), recorder.flush(), recorder.flush()]);
    expect(await rows()).toBe(before + 1200);
    expect(recorder.pending()).toBe(0);
    const [token] = await runtime.tokens.list(world.alice.userId);
    expect(token?.last_used_at).toBe(entry(1199).created_at);
  });

  it('keeps the entries of a failed flush for the next one, and logs without secrets', async () => {
    const lines: string[] = [];
    let failing = true;
    const db = new Proxy(runtime.database.db, {
      get(target, property, receiver) {
        if (property === 'batch' && failing) {
          return () =>
            Promise.reject(new Error('Failed query: insert into "tool_calls" ...\nparams: secret-hash-123'));
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const recorder = createUsageRecorder(db, (line) => lines.push(line));
    const before = await rows();
    recorder.record(entry(1));
    recorder.record(entry(2));
    await recorder.flush();
    expect(recorder.pending()).toBe(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('could not record 2 tool calls');
    expect(lines[0]).not.toContain('secret-hash-123');
    failing = false;
    await recorder.flush();
    expect(recorder.pending()).toBe(0);
    expect(await rows()).toBe(before + 2);
  });

  it('describes an error chain without the query parameters', () => {
    const cause = Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
    const error = new Error('Failed query: select * from sessions where id_hash = ?\nparams: abcdef0123', {
      cause,
    });
    const line = describeError(error);
    expect(line).toBe(
      'Error: Failed query: select * from sessions where id_hash = ? <- Error SQLITE_BUSY: SQLITE_BUSY: database is locked',
    );
  });
});
