// Slows down password guessing and the forms that cost a password hash or send mail, in the `sign_in_attempts` table.
// Sign-in: per (email, client address) with a backoff, so a stranger's failures never lock the owner out from another
// address, and a cap per email over all addresses (distributed guessing) that addresses the account signed in from
// lately are exempt from. Sign-ups, password resets, invitations and password changes: a sliding window per key.
// An attempt is reserved (recorded as a failure) in one statement before anything is checked, so parallel requests
// cannot all pass the check; every attempt counts, whatever its outcome, so the counts say nothing about accounts.
import { and, desc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { signInAttempts } from '../db/schema.ts';

/** Failed sign-ins for an email from one client address before the backoff starts. */
export const SIGN_IN_FREE_FAILURES = 5;
/** The wait after the free failures, doubled by each further one, up to the maximum. */
export const SIGN_IN_BACKOFF_SECONDS = 60;
export const SIGN_IN_BACKOFF_MAX_SECONDS = 60 * 60;
/** Failures of an (email, client) pair older than this (or before its last success) no longer count. */
const PAIR_MEMORY_MS = 24 * 60 * 60 * 1000;
/**
 * Failed sign-ins for one email from all addresses together in any hour before the email is locked everywhere,
 * except from addresses it signed in from within SIGN_IN_KNOWN_CLIENT_DAYS.
 */
export const SIGN_IN_ACCOUNT_LIMIT: AttemptLimit = { max: 100, windowSeconds: 60 * 60 };
export const SIGN_IN_KNOWN_CLIENT_DAYS = 30;
/** Failures are deleted after a day, successes (the known addresses) after SIGN_IN_KNOWN_CLIENT_DAYS. */
const KEEP_FAILURES_MS = 24 * 60 * 60 * 1000;
const KEEP_SUCCESSES_MS = SIGN_IN_KNOWN_CLIENT_DAYS * 24 * 60 * 60 * 1000;

/** A limit on one key of `sign_in_attempts`: at most `max` failures (since the last success) in `windowSeconds`. */
export interface AttemptLimit {
  max: number;
  windowSeconds: number;
}

/** The counter of sign-ins of one email (rows carry the client's address). */
export function signInKey(email: string): string {
  return `signin:${email}`;
}

/**
 * Sign-ups and password-reset requests: per client address, per address typed (each may send a mail there), and for
 * the whole instance (each costs a password hash). Never marked as succeeded: every request counts.
 */
export const SIGN_UP_CLIENT_KEY = 'signup:client';
export const SIGN_UP_CLIENT_LIMIT: AttemptLimit = { max: 10, windowSeconds: 15 * 60 };
export const SIGN_UP_KEY = 'signup:all';
export const SIGN_UP_LIMIT: AttemptLimit = { max: 50, windowSeconds: 15 * 60 };
export const RESET_CLIENT_KEY = 'reset:client';
export const RESET_CLIENT_LIMIT: AttemptLimit = { max: 10, windowSeconds: 15 * 60 };
/** Mail asked for one address by anyone (sign-up, password reset): a stranger cannot flood a mailbox. */
export function mailKey(email: string): string {
  return `mail:${email}`;
}
export const MAIL_LIMIT: AttemptLimit = { max: 5, windowSeconds: 60 * 60 };
/** Invitations sent by one member (each sends a mail when mail is set up). */
export function invitationKey(userId: string): string {
  return `invite:${userId}`;
}
export const INVITATION_LIMIT: AttemptLimit = { max: 30, windowSeconds: 60 * 60 };
/** Links to confirm one's own address, asked for by a signed-in account. */
export function verifyKey(userId: string): string {
  return `verify:${userId}`;
}
export const VERIFY_LIMIT: AttemptLimit = { max: 5, windowSeconds: 60 * 60 };

/**
 * Wrong current passwords on the password page, per signed-in user: a counter of its own, so strangers failing to
 * sign in with someone's email cannot stop that person from changing their password (and the reverse).
 */
export function passwordChangeKey(userId: string): string {
  return `password-change:${userId}`;
}
export const PASSWORD_CHANGE_LIMIT: AttemptLimit = { max: 5, windowSeconds: 15 * 60 };

const t = signInAttempts;

function isoBefore(now: Date, ms: number): string {
  return new Date(now.getTime() - ms).toISOString();
}

/** Rows of `key` (and `client`) that count against its limit: failures (or unfinished attempts) after its last success. */
function countedFailures(key: string, client: string, windowStart: string) {
  const pair = sql`${t.email} = ${key} and ${t.client} = ${client}`;
  return sql`${pair} and ${t.succeeded} = 0 and ${t.created_at} > ${windowStart} and ${t.id} > coalesce((select max(${t.id}) from ${t} where ${pair} and ${t.succeeded} = 1), 0)`;
}

/** Deletes what no counter of `key` reads any more, in the statement after a reservation. */
async function forgetOld(db: Db, key: string, now: Date): Promise<void> {
  await db
    .delete(t)
    .where(
      and(
        eq(t.email, key),
        or(
          and(eq(t.succeeded, false), lt(t.created_at, isoBefore(now, KEEP_FAILURES_MS))),
          lt(t.created_at, isoBefore(now, KEEP_SUCCESSES_MS)),
        ),
      ),
    );
}

/** Seconds until the `max`-th most recent counted failure leaves the window; 0 when a try may go now. */
function slidingWait(createdAts: string[], limit: AttemptLimit, now: Date): number {
  const oldest = createdAts[limit.max - 1];
  if (!oldest) return 0;
  const unlockMs = Date.parse(oldest) + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((unlockMs - now.getTime()) / 1000));
}

/**
 * Seconds `key` must wait before the next try, 0 when it may try now. Sliding window: the lock ends when the
 * `max`-th most recent failure (since the last success) is `windowSeconds` old.
 */
export async function attemptWaitSeconds(
  db: Db,
  key: string,
  limit: AttemptLimit,
  now: Date,
  client = '',
): Promise<number> {
  const recent = await db
    .select({ created_at: t.created_at })
    .from(t)
    .where(countedFailures(key, client, isoBefore(now, limit.windowSeconds * 1000)))
    .orderBy(desc(t.id))
    .limit(limit.max);
  return slidingWait(
    recent.map((row) => row.created_at),
    limit,
    now,
  );
}

/**
 * Records an attempt for `key` (and `client`) as a failure, in one statement and only if it is under its limit: the
 * id of the new row, or undefined when the limit is reached (then nothing is recorded and nothing may be checked).
 */
export async function reserveAttempt(
  db: Db,
  key: string,
  limit: AttemptLimit,
  now: Date,
  client = '',
): Promise<number | undefined> {
  const windowStart = isoBefore(now, limit.windowSeconds * 1000);
  const rows = await db.all<{ id: number }>(sql`
    insert into ${t} (email, client, succeeded, created_at)
    select ${key}, ${client}, 0, ${now.toISOString()}
    where (select count(*) from ${t} where ${countedFailures(key, client, windowStart)}) < ${limit.max}
    returning id`);
  await forgetOld(db, key, now);
  return rows[0]?.id;
}

/** Reserves one attempt under each limit in turn: the first key refused (whose wait to show), or null if none was. */
export async function reserveAttempts(
  db: Db,
  now: Date,
  limits: readonly { key: string; limit: AttemptLimit; client?: string }[],
): Promise<{ key: string; limit: AttemptLimit; client?: string } | null> {
  for (const entry of limits) {
    if ((await reserveAttempt(db, entry.key, entry.limit, now, entry.client)) === undefined) return entry;
  }
  return null;
}

/** Marks a reserved attempt as successful: the failures before it no longer count (for its key and client). */
export async function markAttemptSucceeded(db: Db, id: number): Promise<void> {
  await db.update(t).set({ succeeded: true }).where(eq(t.id, id));
}

// ---- sign-in ---------------------------------------------------------------------------------------------------

/** The wait the backoff sets after `failures` counted failures of a pair (0 under the free ones). */
export function backoffSeconds(failures: number): number {
  if (failures < SIGN_IN_FREE_FAILURES) return 0;
  return Math.min(
    SIGN_IN_BACKOFF_SECONDS * 2 ** Math.min(failures - SIGN_IN_FREE_FAILURES, 12),
    SIGN_IN_BACKOFF_MAX_SECONDS,
  );
}

/** True while `client` signed in to `email` within SIGN_IN_KNOWN_CLIENT_DAYS: the cap over all addresses spares it. */
function knownClient(key: string, client: string, now: Date) {
  return sql`exists (select 1 from ${t} where ${t.email} = ${key} and ${t.client} = ${client} and ${t.succeeded} = 1 and ${t.created_at} > ${isoBefore(now, KEEP_SUCCESSES_MS)})`;
}

function accountFailures(key: string, now: Date) {
  return sql`${t.email} = ${key} and ${t.succeeded} = 0 and ${t.created_at} > ${isoBefore(now, SIGN_IN_ACCOUNT_LIMIT.windowSeconds * 1000)}`;
}

/**
 * Reserves a sign-in of `email` from `client` (recorded as a failure until marked succeeded), in one statement: only
 * if the pair is past its backoff and the email under its cap over all addresses (or the address is a known one).
 * The id of the row, or undefined when refused (nothing recorded, no password to check).
 */
export async function reserveSignIn(
  db: Db,
  email: string,
  client: string,
  now: Date,
): Promise<number | undefined> {
  const key = signInKey(email);
  const at = now.toISOString();
  const pair = countedFailures(key, client, isoBefore(now, PAIR_MEMORY_MS));
  // The backoff in SQL: BASE * 2^(n - FREE) as a shift, capped; the milliseconds since the last failure from
  // julianday, rounded (its floating point would make a wait of exactly 60 s read as 59.99999 s).
  const rows = await db.all<{ id: number }>(sql`
    insert into ${t} (email, client, succeeded, created_at)
    select ${key}, ${client}, 0, ${at}
    where not exists (
      select 1 from (select count(*) as n, max(${t.created_at}) as last from ${t} where ${pair}) as p
      where p.n >= ${SIGN_IN_FREE_FAILURES}
        and round((julianday(${at}) - julianday(p.last)) * 86400000) <
          1000 * min(${SIGN_IN_BACKOFF_SECONDS} << min(p.n - ${SIGN_IN_FREE_FAILURES}, 12), ${SIGN_IN_BACKOFF_MAX_SECONDS})
    )
    and (${knownClient(key, client, now)}
      or (select count(*) from ${t} where ${accountFailures(key, now)}) < ${SIGN_IN_ACCOUNT_LIMIT.max})
    returning id`);
  await forgetOld(db, key, now);
  return rows[0]?.id;
}

export interface SignInWait {
  seconds: number;
  /** `client`: this address's backoff; `account`: the cap over all addresses. */
  reason: 'client' | 'account';
}

/** How long `email` must wait before the next sign-in from `client`, and why; null when it may try now. */
export async function signInWait(
  db: Db,
  email: string,
  client: string,
  now: Date,
): Promise<SignInWait | null> {
  const key = signInKey(email);
  const [pairRows, accountRows, known] = await db.batch([
    db
      .select({ created_at: t.created_at })
      .from(t)
      .where(countedFailures(key, client, isoBefore(now, PAIR_MEMORY_MS)))
      .orderBy(desc(t.id)),
    db
      .select({ created_at: t.created_at })
      .from(t)
      .where(accountFailures(key, now))
      .orderBy(desc(t.id))
      .limit(SIGN_IN_ACCOUNT_LIMIT.max),
    db
      .select({ id: t.id })
      .from(t)
      .where(
        and(
          eq(t.email, key),
          eq(t.client, client),
          eq(t.succeeded, true),
          gt(t.created_at, isoBefore(now, KEEP_SUCCESSES_MS)),
        ),
      )
      .limit(1),
  ]);
  const last = pairRows[0]?.created_at;
  const pairSeconds = last
    ? Math.ceil((Date.parse(last) + backoffSeconds(pairRows.length) * 1000 - now.getTime()) / 1000)
    : 0;
  const accountSeconds =
    known.length > 0
      ? 0
      : slidingWait(
          accountRows.map((row) => row.created_at),
          SIGN_IN_ACCOUNT_LIMIT,
          now,
        );
  if (pairSeconds <= 0 && accountSeconds <= 0) return null;
  return pairSeconds >= accountSeconds
    ? { seconds: Math.max(1, pairSeconds), reason: 'client' }
    : { seconds: accountSeconds, reason: 'account' };
}

/** A wait in whole minutes, as a refusal page says it ("3 minutes"). */
export function minutes(seconds: number): string {
  const value = Math.max(1, Math.ceil(seconds / 60));
  return value === 1 ? '1 minute' : `${value} minutes`;
}
