// The call log recorder: buffered writes, concurrent flushes, failures kept for later, no secrets in log lines.

import { and, count, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from '../../src/db/schema.ts';
import { describeError } from '../../src/errors.ts';
import { NO_FILES } from '../../src/files/runtime.ts';
import { createRateLimiter } from '../../src/rate-limit.ts';
import { type InvokeDeps, invokeTool } from '../../src/surfaces/invoke.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { createUsageRecorder, type ToolCallRecord } from '../../src/usage.ts';
import { createTestRuntime, createWorld, ok, type TestRuntime, type World } from '../helpers.ts';

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
    call_id: `cal_usagetest${i}`,
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

/** The call log rows of one tool, oldest first. */
async function callsOf(tool: string) {
  return runtime.database.db
    .select({
      outcome: toolCalls.outcome,
      surface: toolCalls.surface,
      organization_id: toolCalls.organization_id,
    })
    .from(toolCalls)
    .where(and(eq(toolCalls.tool, tool), eq(toolCalls.user_id, world.alice.userId)))
    .orderBy(toolCalls.id);
}

describe('write calls logged in the write batch', () => {
  it('has the row of every successful write as soon as the call returns, and only once after a flush', async () => {
    const { vendor } = await ok<{ vendor: { id: string; updated_at: string } }>(
      runtime,
      world.aliceToken,
      'addVendor',
      { organization_id: world.orgA, name: 'Logged Ltd' },
    );
    await ok(runtime, world.aliceToken, 'updateVendor', {
      id: vendor.id,
      website_url: 'https://logged.example',
    });
    const { risk } = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Logged risk',
      inherent_likelihood: 3,
      inherent_impact: 3,
    });
    const { measure } = await ok<{ measure: { id: string } }>(runtime, world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Logged measure',
    });
    const pair = { risk_id: risk.id, measure_id: measure.id };
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', pair);
    await ok(runtime, world.aliceToken, 'linkRiskMeasure', pair); // already linked: still a successful call
    await ok(runtime, world.aliceToken, 'unlinkRiskMeasure', pair);
    await ok(runtime, world.aliceToken, 'deleteVendor', { id: vendor.id });
    await ok(runtime, world.aliceToken, 'listRisks', { organization_id: world.orgA });

    const expected: Record<string, number> = {
      addVendor: 1,
      updateVendor: 1,
      addRisk: 1,
      addMeasure: 1,
      linkRiskMeasure: 2,
      unlinkRiskMeasure: 1,
      deleteVendor: 1,
      listRisks: 0, // a read waits in the buffer
    };
    for (const [tool, n] of Object.entries(expected)) {
      const rows = await callsOf(tool);
      expect({ tool, rows }).toEqual({
        tool,
        rows: Array.from({ length: n }, () => ({
          outcome: 'ok',
          surface: 'direct',
          organization_id: world.orgA,
        })),
      });
    }

    await runtime.usage.flush();
    expect(runtime.usage.pending()).toBe(0);
    for (const [tool, n] of Object.entries({ ...expected, listRisks: 1 })) {
      expect({ tool, n: (await callsOf(tool)).length }).toEqual({ tool, n });
    }
    const auth = await runtime.tokens.authenticate(world.aliceToken);
    const writer = auth.ok ? auth.principal.tokenId : '';
    const token = (await runtime.tokens.list(world.alice.userId)).find((item) => item.id === writer);
    const [latest] = await runtime.database.db
      .select({ at: toolCalls.created_at })
      .from(toolCalls)
      .where(eq(toolCalls.token_id, writer))
      .orderBy(desc(toolCalls.created_at))
      .limit(1);
    expect(token?.last_used_at).toBe(latest?.at);
  });

  /** Calls `tool` through the seam with a database whose `batch` and later reads can be interfered with. */
  async function invokeWith(
    tool: string,
    args: Record<string, unknown>,
    hooks: { beforeBatch?: () => Promise<unknown>; failReadsAfterBatch?: boolean },
  ) {
    const auth = await runtime.tokens.authenticate(world.aliceToken);
    if (!auth.ok) throw new Error('alice token refused');
    const real = runtime.database.db;
    let batched = false;
    const db = new Proxy(real, {
      get(target, property, receiver) {
        if (property === 'batch') {
          return async (statements: Parameters<typeof real.batch>[0]) => {
            await hooks.beforeBatch?.();
            const result = await real.batch(statements);
            batched = true;
            return result;
          };
        }
        if (property === 'select' && batched && hooks.failReadsAfterBatch) {
          return () => {
            throw new Error('database went away');
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const usage = createUsageRecorder(real);
    const deps: InvokeDeps = {
      db,
      usage,
      now: () => new Date(),
      rateLimiter: createRateLimiter(1000),
      logError: () => {},
      files: NO_FILES,
    };
    const definition = TOOLS.get(tool);
    if (!definition) throw new Error(tool);
    const outcome = await invokeTool(deps, definition, args, auth.principal, 'mcp', 'req-test');
    return { outcome, usage };
  }

  it('logs a write that landed but whose answer failed once, as ok', async () => {
    const before = (await callsOf('addPerson')).length;
    const { outcome, usage } = await invokeWith(
      'addPerson',
      { organization_id: world.orgA, full_name: 'Ada Landed', email: 'ada.landed@example.com' },
      { failReadsAfterBatch: true },
    );
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('internal');
    await usage.flush();
    const rows = await callsOf('addPerson');
    expect(rows.slice(before)).toEqual([{ outcome: 'ok', surface: 'mcp', organization_id: world.orgA }]);
  });

  it('logs a write whose batch did not land once, with its error code', async () => {
    const { person } = await ok<{ person: { id: string } }>(runtime, world.aliceToken, 'addPerson', {
      organization_id: world.orgA,
      full_name: 'Concurrent Person',
      email: 'concurrent@example.com',
    });
    const before = (await callsOf('updatePerson')).length;
    const { outcome, usage } = await invokeWith(
      'updatePerson',
      { id: person.id, position: 'Refused' },
      {
        beforeBatch: () =>
          ok(runtime, world.aliceToken, 'updatePerson', { id: person.id, position: 'Landed meanwhile' }),
      },
    );
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('conflict');
    const afterCall = await callsOf('updatePerson');
    // The concurrent update (direct) is logged by its own batch; the refused one (mcp) not yet.
    expect(afterCall.slice(before)).toEqual([
      { outcome: 'ok', surface: 'direct', organization_id: world.orgA },
    ]);
    await usage.flush();
    expect((await callsOf('updatePerson')).slice(before)).toEqual([
      { outcome: 'ok', surface: 'direct', organization_id: world.orgA },
      { outcome: 'conflict', surface: 'mcp', organization_id: world.orgA },
    ]);
  });
});
