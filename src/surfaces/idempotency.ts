// Idempotent writes: a write called with a key (the Idempotency-Key header, or the MCP request's _meta) is written
// once; a retry with the same key within 24 hours gets the first answer and writes nothing (docs/mcp.md).
import { and, eq, isNull, lte, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { sha256Hex } from '../auth/crypto.ts';
import { type Principal, roleIn } from '../auth/principal.ts';
import { type Db, selectRow } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';

/** The HTTP header of direct calls (also read on the MCP endpoint). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** The key's name in an MCP request's `params._meta`. */
export const IDEMPOTENCY_META_KEY = 'io.compliance-mcp/idempotency-key';
/** How long a key's answer is kept and replayed. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** How long a retry waits for the answer of a first call that has committed but not yet stored its answer. */
const PENDING_WAIT_MS = 1_000;
const PENDING_POLL_MS = 25;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Where a call's idempotency key may come from: the Idempotency-Key header, and an MCP request's `_meta`. */
export interface IdempotencyKeySources {
  header?: string | null;
  meta?: unknown;
}

/**
 * The call's key (1 to 255 visible ASCII characters, e.g. a UUID), or undefined when none is given; malformed, or
 * given in the header and in `_meta` with different values, is invalid_arguments.
 */
export function idempotencyKeyOf(sources: IdempotencyKeySources): string | undefined {
  const header = checkedKey(sources.header, 'Idempotency-Key');
  const meta = checkedKey(sources.meta, `_meta.${IDEMPOTENCY_META_KEY}`);
  if (header !== undefined && meta !== undefined && header !== meta) {
    throw new AppError(
      'invalid_arguments',
      `The Idempotency-Key header and _meta["${IDEMPOTENCY_META_KEY}"] differ: send the key once.`,
      [{ path: `_meta.${IDEMPOTENCY_META_KEY}`, message: 'Differs from the Idempotency-Key header' }],
    );
  }
  return meta ?? header;
}

function checkedKey(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  throw new AppError(
    'invalid_arguments',
    `${where} must be 1 to 255 visible ASCII characters (e.g. a UUID), a new one per write you may retry.`,
    [{ path: where, message: 'Not 1 to 255 visible ASCII characters' }],
  );
}

/** A write called with a key: who, the key, and what was asked (hashed). */
export interface KeyedCall {
  userId: string;
  key: string;
  requestHash: string;
}

export async function keyedCallOf(
  toolName: string,
  normalizedArguments: unknown,
  principal: Principal,
  key: string,
): Promise<KeyedCall> {
  const requestHash = await sha256Hex(
    JSON.stringify([toolName, canonical(normalizedArguments), principal.userId]),
  );
  return { userId: principal.userId, key, requestHash };
}

/** A JSON value with every object's keys sorted, so the same arguments in another order hash the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/**
 * The key's row, for the write's batch, inserted where `landed` holds: a second write with the same key fails on
 * the primary key, and its whole batch (the record with it) is rolled back.
 */
export function keyRowOf(
  db: Db,
  call: KeyedCall,
  fields: { tool: string; organizationId: string | null; callId: string; now: Date },
  landed: SQL,
): BatchItem<'sqlite'> {
  const row = {
    user_id: call.userId,
    key: call.key,
    request_hash: call.requestHash,
    tool: fields.tool,
    organization_id: fields.organizationId,
    call_id: fields.callId,
    answer: null,
    created_at: fields.now.toISOString(),
    expires_at: new Date(fields.now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS).toISOString(),
  };
  return db.insert(idempotencyKeys).select(selectRow(idempotencyKeys, row, landed));
}

/** Stores the answer of the call that wrote the key's row (once: an answer already stored stays). */
export async function storeAnswer(
  db: Db,
  call: KeyedCall,
  callId: string,
  answer: Record<string, unknown>,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ answer: JSON.stringify(answer) })
    .where(
      and(
        eq(idempotencyKeys.user_id, call.userId),
        eq(idempotencyKeys.key, call.key),
        eq(idempotencyKeys.call_id, callId),
        isNull(idempotencyKeys.answer),
      ),
    );
}

/**
 * The answer of the write that committed with this key, or undefined when none did (an expired key is forgotten
 * here). The same key with other arguments is a conflict. A write committed but not answered yet is waited for a
 * moment; then its answer is read again with `answerAgain` (the host stopped between the commit and the answer),
 * or, for a tool that cannot (undefined), the caller is told to retry later. Keys are the user's, but an answer is replayed only
 * to a caller that reaches the write's organization now: another token of the user restricted to other
 * organizations, or the user after their membership was removed, gets the not_found of any record it cannot reach.
 */
export async function earlierAnswer(
  db: Db,
  call: KeyedCall,
  principal: Principal,
  now: Date,
  /** The answer read again from what the call wrote; undefined when the tool cannot. */
  answerAgain: (callId: string) => Promise<Record<string, unknown> | undefined>,
): Promise<Record<string, unknown> | undefined> {
  const keyMatches = and(eq(idempotencyKeys.user_id, call.userId), eq(idempotencyKeys.key, call.key));
  const waitUntil = Date.now() + PENDING_WAIT_MS;
  for (;;) {
    const [row] = await db.select().from(idempotencyKeys).where(keyMatches);
    if (!row) return undefined;
    if (row.expires_at <= now.toISOString()) {
      await db
        .delete(idempotencyKeys)
        .where(and(keyMatches, lte(idempotencyKeys.expires_at, now.toISOString())));
      return undefined;
    }
    const reachable = row.organization_id === null || roleIn(principal, row.organization_id) !== undefined;
    if (row.request_hash !== call.requestHash) {
      // The tool is named only to a caller that reaches the organization it wrote in.
      throw new AppError(
        'conflict',
        `This Idempotency-Key was used with other arguments${reachable ? ` (${row.tool})` : ''} in the last 24 hours; a new call needs a new key.`,
      );
    }
    // The same arguments name the same organization: the call without a key would get this not_found too.
    if (!reachable) throw notFound('Organization');
    if (row.answer !== null) return JSON.parse(row.answer) as Record<string, unknown>;
    if (Date.now() >= waitUntil) {
      const answer = await answerAgain(row.call_id);
      if (!answer) {
        throw new AppError(
          'conflict',
          'A call with this Idempotency-Key has written but its answer is not stored yet; retry in a few seconds.',
        );
      }
      await storeAnswer(db, call, row.call_id, answer);
      return answer;
    }
    await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
  }
}

/** Forgets the keys older than 24 hours (the hosts' hourly upkeep). Returns how many. */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const purged = await db
    .delete(idempotencyKeys)
    .where(lte(idempotencyKeys.expires_at, now.toISOString()))
    .returning({ key: idempotencyKeys.key });
  return purged.length;
}
