// Slows down password guessing: after 5 failed sign-ins for an email within 15 minutes, that email waits.
import { and, desc, eq, gt, lt } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { signInAttempts } from '../db/schema.ts';

export const SIGN_IN_MAX_FAILURES = 5;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
/** Attempts older than this are deleted as new ones arrive. */
const KEEP_ATTEMPTS_MS = 24 * 60 * 60 * 1000;

/**
 * Seconds the email must wait before the next try, 0 when it may try now. Sliding window: the lock ends when the
 * 5th most recent failure (since the last success) is 15 minutes old. Unknown emails are counted alike, so the
 * answer says nothing about whether an account exists.
 */
export async function signInWaitSeconds(db: Db, email: string, now: Date): Promise<number> {
  const windowStart = new Date(now.getTime() - SIGN_IN_WINDOW_SECONDS * 1000).toISOString();
  const recent = await db
    .select({ succeeded: signInAttempts.succeeded, created_at: signInAttempts.created_at })
    .from(signInAttempts)
    .where(and(eq(signInAttempts.email, email), gt(signInAttempts.created_at, windowStart)))
    .orderBy(desc(signInAttempts.created_at), desc(signInAttempts.id))
    .limit(SIGN_IN_MAX_FAILURES + 1);
  const failures: string[] = [];
  for (const attempt of recent) {
    if (attempt.succeeded) break;
    failures.push(attempt.created_at);
  }
  const fifth = failures[SIGN_IN_MAX_FAILURES - 1];
  if (!fifth) return 0;
  const unlockMs = Date.parse(fifth) + SIGN_IN_WINDOW_SECONDS * 1000;
  return Math.max(0, Math.ceil((unlockMs - now.getTime()) / 1000));
}

export async function recordSignInAttempt(
  db: Db,
  email: string,
  succeeded: boolean,
  now: Date,
): Promise<void> {
  const oldest = new Date(now.getTime() - KEEP_ATTEMPTS_MS).toISOString();
  await db.batch([
    db.insert(signInAttempts).values({ email, succeeded, created_at: now.toISOString() }),
    db
      .delete(signInAttempts)
      .where(and(eq(signInAttempts.email, email), lt(signInAttempts.created_at, oldest))),
  ]);
}
