// The one seam every surface calls a tool through: scope, argument normalisation and validation, run, errors, call log.
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { AppError, asAppError, type ErrorDetail } from '../errors.ts';
import type { FileRuntime } from '../files/store.ts';
import { newId } from '../ids.ts';
import { heldBack, proposalAnswerOf, storeProposal } from '../proposals/store.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { requireTokenScope } from '../tools/access.ts';
import type { Tool, ToolContext } from '../tools/types.ts';
import { callLogRow, type Surface, type ToolCallRecord, type UsageRecorder } from '../usage.ts';
import {
  earlierAnswer,
  type IdempotencyKeySources,
  idempotencyKeyOf,
  type KeyedCall,
  keyedCallOf,
  keyRowOf,
  storeAnswer,
} from './idempotency.ts';
import { unknownArgumentDetails } from './unknown-arguments.ts';

export interface InvokeDeps {
  db: Db;
  usage: UsageRecorder;
  now: () => Date;
  rateLimiter: RateLimiter;
  files: FileRuntime;
  logError(requestId: string, error: unknown): void;
  /** Test hook (Node host, env-gated): runs after a keyed write's batch committed, before its answer is stored. */
  afterKeyedCommit?: () => void;
  /** Told after a write's batch landed (webhook deliveries start then). */
  afterWrite?: () => void;
  /** The service mails public links (ToolContext.mailLinks). */
  mailLinks?: boolean;
  /** The service's public origin (config PUBLIC_URL), for the web links a proposed write answers with. */
  publicUrl?: string;
}

/** A proposal a person approved, being applied by this call: its history rows name it; `inBatch` rides the write. */
export interface ApplyingProposal {
  proposalId: string;
  /** The record's updated_at it was proposed against (null for an add): ToolContext.proposalBase. */
  baseUpdatedAt: string | null;
  /** Statements added to the write's batch right after its log row, taking effect only where `landed` holds. */
  inBatch(landed: SQL): BatchItem<'sqlite'>[];
}

export type InvokeResult = { ok: true; result: Record<string, unknown> } | { ok: false; error: AppError };

export async function invokeTool(
  deps: InvokeDeps,
  requested: Tool,
  requestedArguments: unknown,
  principal: Principal,
  surface: Surface,
  requestId: string,
  /** The call id its log row and history rows carry; by default its own. One web form save passes one to all its calls. */
  callId: string = newId('cal'),
  /** Where an idempotency key may be (header, MCP _meta): a write with one is made once; reads ignore it. */
  idempotency?: IdempotencyKeySources,
  /** The bytes of a file the call stores (storeFile: the upload routes of the API and the web). */
  upload?: ReadableStream<Uint8Array> | Uint8Array,
  /** Set when a person's approval applies a proposal (src/proposals/decide.ts): the write runs, never proposed again. */
  applying?: ApplyingProposal,
): Promise<InvokeResult> {
  const started = performance.now();
  // A call tool (callReadTool, ...) is replaced below by the tool it names: the log and history name that one.
  let tool = requested;
  const entry = (outcome: string): ToolCallRecord => ({
    token_id: principal.tokenId,
    user_id: principal.userId,
    tool: tool.name,
    surface,
    organization_id: ctx.organizationId,
    outcome,
    duration_ms: Math.round(performance.now() - started),
    created_at: deps.now().toISOString(),
    call_id: ctx.callId,
  });
  // A write's `ok` row rides in the write's own batch, so a crash cannot keep the write and lose its row.
  let inBatch: ToolCallRecord | undefined;
  // Set only for a write called with a key: no key, no extra work.
  let keyed: KeyedCall | undefined;
  // A keyed write answered with a duplicate's answer after its own batch failed: did its batch land? (It did not,
  // unless it failed after committing.)
  let replayedAfterFailure = false;
  const ctx: ToolContext = {
    db: deps.db,
    principal,
    now: deps.now,
    organizationId: null,
    writeExtras(landed) {
      inBatch = entry('ok');
      const logRow = callLogRow(deps.db, inBatch, landed);
      // Right after the log row, written exactly where `landed` held.
      if (applying) return [logRow, ...applying.inBatch(landed)];
      if (!keyed) return [logRow];
      // Right after the log row, which was written exactly where `landed` held (`changes()` stays true to it).
      const fields = {
        tool: tool.name,
        organizationId: ctx.organizationId,
        callId: ctx.callId,
        now: deps.now(),
      };
      return [logRow, keyRowOf(deps.db, keyed, fields, landed)];
    },
    surface,
    callId,
    ...(applying ? { proposalId: applying.proposalId } : {}),
    ...(applying?.baseUpdatedAt ? { proposalBase: applying.baseUpdatedAt } : {}),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    files: deps.files,
    ...(deps.mailLinks ? { mailLinks: true } : {}),
    ...(upload ? { upload } : {}),
  };
  let outcome: InvokeResult;
  try {
    const wait = deps.rateLimiter.take(principal.tokenId);
    if (wait > 0) {
      throw new AppError('rate_limited', `Too many calls with this token; retry in ${wait} s.`, {
        retry_after_seconds: wait,
      });
    }
    requireTokenScope(ctx, tool.scope, tool.propose !== undefined || tool.dispatch !== undefined);
    let rawArguments = requestedArguments;
    let asked: true | undefined;
    if (tool.dispatch) {
      const call = tool.input.safeParse(normalizeArguments(rawArguments));
      if (!call.success) throw invalidArgumentsFrom(tool, call.error);
      ({ tool, arguments: rawArguments, propose: asked } = tool.dispatch(call.data));
      requireTokenScope(ctx, tool.scope, tool.propose !== undefined);
    }
    const normalized = normalizeArguments(rawArguments);
    const parsed = tool.input.safeParse(normalized);
    if (!parsed.success) throw invalidArgumentsFrom(tool, parsed.error);
    const key = idempotency && tool.scope === 'write' ? idempotencyKeyOf(idempotency) : undefined;
    const input = parsed.data;
    const called = tool;
    // The write, or the proposal it becomes: a keyed call is looked up first, so a retry of a proposed write answers
    // the proposal it made (even once its record changed or went), never a second one.
    const run = async () => {
      const held = await heldBack(ctx, called, input, asked === true);
      return held ? storeProposal(ctx, called, input, held) : called.run(ctx, input);
    };
    if (key !== undefined) {
      // proposeWrite's key is its own: the same key on the direct write is another request.
      keyed = await keyedCallOf(
        asked ? `${requested.name}:${tool.name}` : tool.name,
        normalized,
        principal,
        key,
      );
      const answerAgain = async (callId: string) =>
        (await proposalAnswerOf(ctx, callId)) ?? called.answerAgain?.call(called, ctx, input, callId);
      const keyedRun = await runKeyed(
        deps,
        keyed,
        principal,
        ctx.callId,
        run,
        answerAgain,
        () => inBatch !== undefined,
      );
      replayedAfterFailure = keyedRun.afterFailure;
      outcome = { ok: true, result: keyedRun.result };
    } else {
      outcome = { ok: true, result: await run() };
    }
  } catch (caught) {
    const error = fromDatabaseError(caught);
    if (!(error instanceof AppError)) deps.logError(requestId, error);
    outcome = { ok: false, error: asAppError(error) };
  }
  if (!inBatch) deps.usage.record(entry(outcome.ok ? 'ok' : outcome.error.code));
  else if (outcome.ok) {
    deps.usage.record(inBatch, replayedAfterFailure ? 'maybe' : 'yes');
    deps.afterWrite?.();
  }
  // The batch may or may not have landed before the failure: the same call's time, so its `ok` row is recognised.
  else deps.usage.record({ ...entry(outcome.error.code), created_at: inBatch.created_at }, 'maybe');
  return outcome;
}

/**
 * A write with a key: the answer of the write that committed with it, if any; else the run, whose batch carries the
 * key's row (so a concurrent duplicate's batch fails whole), and its answer stored. A run that failed because a
 * duplicate committed first (its key row, or the record it changed meanwhile) answers as that one did.
 */
async function runKeyed(
  deps: InvokeDeps,
  keyed: KeyedCall,
  principal: Principal,
  callId: string,
  run: () => Promise<Record<string, unknown>>,
  answerAgain: (callId: string) => Promise<Record<string, unknown> | undefined>,
  batched: () => boolean,
): Promise<{ result: Record<string, unknown>; afterFailure: boolean }> {
  const earlier = await earlierAnswer(deps.db, keyed, principal, deps.now(), answerAgain);
  if (earlier) return { result: earlier, afterFailure: false };
  let result: Record<string, unknown>;
  try {
    result = await run();
  } catch (caught) {
    const winner = await earlierAnswer(deps.db, keyed, principal, deps.now(), answerAgain);
    if (winner) return { result: winner, afterFailure: true };
    throw caught;
  }
  // The run returned after its batch: the batch committed, with the key's row where the write landed.
  if (batched()) {
    deps.afterKeyedCommit?.();
    await storeAnswer(deps.db, keyed, callId, result);
  }
  return { result, afterFailure: false };
}

// SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY (extended result codes).
const DUPLICATE_RAW_CODES = new Set([2067, 1555]);

/**
 * A uniqueness the checks did not foresee (e.g. two concurrent inserts) is a conflict. Other constraint failures
 * (NOT NULL, CHECK) are bugs: they stay internal errors and are logged.
 */
function fromDatabaseError(error: unknown): unknown {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const { code, rawCode } = cause as { code?: unknown; rawCode?: unknown };
    const duplicate =
      (typeof rawCode === 'number' && DUPLICATE_RAW_CODES.has(rawCode)) ||
      /(UNIQUE|PRIMARY KEY) constraint failed/.test(cause.message);
    if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && duplicate) {
      return new AppError(
        'conflict',
        'The change conflicts with an existing record. Read the records again and retry.',
      );
    }
  }
  return error;
}

/**
 * How deep arguments may nest (objects and arrays, the arguments object itself being level 1). The tools need 3;
 * deeper is `invalid_arguments`, found without recursion so no depth can exhaust the stack.
 */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * `organizationId` -> `organization_id`, at every level of plain objects; both spellings at once is an error, and
 * so is nesting deeper than MAX_ARGUMENT_DEPTH. A member whose value is null is left out: null means "not given"
 * for every argument (a strict-mode function wrapper sends every property, null for those the model leaves out;
 * update tools empty a field with `clear`).
 */
export function normalizeArguments(value: unknown): unknown {
  if (value === undefined || value === null) return {};
  const tooDeep = firstTooDeep(value, MAX_ARGUMENT_DEPTH);
  if (tooDeep !== undefined) {
    const path = tooDeep || '(arguments)';
    throw new AppError(
      'invalid_arguments',
      `Argument ${path} nests deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays.`,
      [{ path, message: `Nested deeper than ${MAX_ARGUMENT_DEPTH} levels` }],
    );
  }
  return normalizeKeys(value, '');
}

/** The top-level argument under which `value` nests deeper than `limit` ('' for the whole value), if any. */
function firstTooDeep(value: unknown, limit: number): string | undefined {
  const stack: { value: unknown; depth: number; top: string }[] = [{ value, depth: 1, top: '' }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth > limit) return item.top;
    for (const [key, child] of Object.entries(item.value)) {
      stack.push({ value: child, depth: item.depth + 1, top: item.depth === 1 ? key : item.top });
    }
  }
  return undefined;
}

function normalizeKeys(value: unknown, path: string): unknown {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  const spelledAs = new Map<string, string>();
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    const snake = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    const earlier = spelledAs.get(snake);
    if (earlier !== undefined) {
      throw new AppError(
        'invalid_arguments',
        `Argument ${path}${snake} is given twice (as ${earlier} and ${key}).`,
        [{ path: `${path}${snake}`, message: 'Given twice' }],
      );
    }
    spelledAs.set(snake, key);
    // defineProperty: a key such as `__proto__` stays an own key (and is refused as unknown), never a prototype.
    Object.defineProperty(out, snake, {
      value: normalizeKeys(item, `${path}${snake}.`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function invalidArgumentsFrom(tool: Tool, error: z.ZodError): AppError {
  const details: ErrorDetail[] = error.issues
    .flatMap(unionExplained)
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys' && issue.keys
        ? unknownArgumentDetails(tool, issue.path, issue.keys)
        : [{ path: issue.path.map(String).join('.') || '(arguments)', message: issue.message }],
    );
  const summary = details.map((detail) => `${detail.path}: ${detail.message}`).join('; ');
  return new AppError('invalid_arguments', `Invalid arguments for ${tool.name}: ${summary}`, details);
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][]; keys?: string[] };

/**
 * A value that matched no branch of a union (e.g. an enum filter: one value or a list of them) is reported by zod as
 * a bare "Invalid input". Instead: the issues of the branch the value came closest to, so the client reads what it
 * should have sent ("expected one of ..."). Closest: the branch whose issues reach deepest into the value (a list
 * of which one item is wrong), then one that did not fail on the value's type or value itself (a list of valid
 * values, too long: "Too big"), then the first.
 */
function unionExplained(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  const depth = (branch: Issue[]) => Math.max(...branch.map((item) => item.path.length));
  // Failed on the value as a whole, not on what is in it (a list of valid values but too many is about its length).
  const typeMiss = (branch: Issue[]) =>
    branch.some(
      (item) => (item.code === 'invalid_type' || item.code === 'invalid_value') && item.path.length === 0,
    )
      ? 1
      : 0;
  const branches = issue.errors.filter((branch) => branch.length > 0);
  const best = branches.reduce<Issue[] | undefined>((chosen, branch) => {
    if (!chosen) return branch;
    if (depth(branch) !== depth(chosen)) return depth(branch) > depth(chosen) ? branch : chosen;
    return typeMiss(branch) < typeMiss(chosen) ? branch : chosen;
  }, undefined);
  if (!best) return [issue];
  return best.flatMap((item) => unionExplained({ ...item, path: [...issue.path, ...item.path] }));
}
