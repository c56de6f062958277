// Slows down password guessing: after 5 failed sign-ins for an email within 15 minutes, that email waits. The same
// table, under keys that are not emails, limits sign-ups (each costs a password hash) and wrong current passwords
// on the password page (per user).
// An attempt is reserved (recorded as a failure) in one statement before its password is checked, so parallel
// requests cannot all pass the check: the 6th reservation within the window is refused whatever the timing.
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { signInAttempts } from '../../db/schema.ts';

export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** Attempts older than this are deleted as new ones arrive. */
const KEEP_ATTEMPTS_MS = 24 * 60 * 60 * 1000;

/** A limit on one key of `sign_in_attempts`: at most `max` failures (since the last success) in `windowSeconds`. */
export interface AttemptLimit {
  max: number;
  windowSeconds: number;
}

export const SIGN_IN_LIMIT: AttemptLimit = {
  max: SIGN_IN_MAX_FAILURES,
  windowSeconds: SIGN_IN_WINDOW_SECONDS,
};

/**
 * Sign-ups of the whole instance (each costs a password hash): at most 20 in any 15 minutes. Never marked as
 * succeeded, so every sign-up counts. The key has no `@`, so no sign-in (whose key is an email) can reach it.
 */
export const SIGN_UP_KEY = 'signup:';
export const SIGN_UP_LIMIT: AttemptLimit = { max: 20, windowSeconds: 15 * 60 };

/**
 * Wrong current passwords on the password page, per signed-in user: a counter of its own, so strangers failing to
 * sign in with someone's email cannot stop that person from changing their password (and the reverse).
 */
export function passwordChangeKey(userId: string): string {
  return `password-change:${userId}`;
}
export const PASSWORD_CHANGE_LIMIT: AttemptLimit = { max: 5, windowSeconds: 15 * 60 };

/** Sign-in keys are emails: anything without an `@` is refused unchecked, so it never touches the other keys. */
export function isSignInKey(email: string): boolean {
  return email.includes('@');
}

function windowStartOf(limit: AttemptLimit, now: Date): string {
  return new Date(now.getTime() - limit.windowSeconds * 1000).toISOString();
}

/** Rows of `key` that count against its limit: failures (or unfinished attempts) after its last success. */
function countedFailures(key: string, windowStart: string) {
  return sql`${signInAttempts.email} = ${key} and ${signInAttempts.succeeded} = 0 and ${signInAttempts.created_at} > ${windowStart} and ${signInAttempts.id} > coalesce((select max(${signInAttempts.id}) from ${signInAttempts} where ${signInAttempts.email} = ${key} and ${signInAttempts.succeeded} = 1), 0)`;
}

/**
 * Seconds `key` must wait before the next try, 0 when it may try now. Sliding window: the lock ends when the
 * `max`-th most recent failure (since the last success) is `windowSeconds` old. Unknown emails are counted alike,
 * so the answer says nothing about whether an account exists.
 */
export async function attemptWaitSeconds(
  db: Db,
  key: string,
  limit: AttemptLimit,
  now: Date,
): Promise<number> {
  const recent = await db
    .select({ created_at: signInAttempts.created_at })
    .from(signInAttempts)
    .where(countedFailures(key, windowStartOf(limit, now)))
    .orderBy(desc(signInAttempts.id))
    .limit(limit.max);
  const oldest = recent[limit.max - 1];
  if (!oldest) return 0;
  const unlockMs = Date.parse(oldest.created_at) + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((unlockMs - now.getTime()) / 1000));
}

/**
 * Records an attempt for `key` as a failure, in one statement and only if `key` is under its limit: the id of the
 * new row, or undefined when the limit is reached (then nothing is recorded and nothing may be checked).
 */
export async function reserveAttempt(
  db: Db,
  key: string,
  limit: AttemptLimit,
  now: Date,
): Promise<number | undefined> {
  const rows = await db.all<{ id: number }>(sql`
    insert into ${signInAttempts} (email, succeeded, created_at)
    select ${key}, 0, ${now.toISOString()}
    where (select count(*) from ${signInAttempts} where ${countedFailures(key, windowStartOf(limit, now))}) < ${limit.max}
    returning id`);
  await db
    .delete(signInAttempts)
    .where(
      and(
        eq(signInAttempts.email, key),
        lt(signInAttempts.created_at, new Date(now.getTime() - KEEP_ATTEMPTS_MS).toISOString()),
      ),
    );
  return rows[0]?.id;
}

/** Marks a reserved attempt as successful: the failures before it no longer count. */
export async function markAttemptSucceeded(db: Db, id: number): Promise<void> {
  await db.update(signInAttempts).set({ succeeded: true }).where(eq(signInAttempts.id, id));
}

/** Takes back a reserved attempt that cost nothing (refused before any password was hashed). */
export async function releaseAttempt(db: Db, id: number): Promise<void> {
  await db.delete(signInAttempts).where(eq(signInAttempts.id, id));
}
