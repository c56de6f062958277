// Web sessions: a random cookie whose SHA-256 alone is stored, with idle and absolute expiry and a CSRF token.
import { and, eq, lte, ne, or } from 'drizzle-orm';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { randomBase64Url, sha256Hex } from '../auth/crypto.ts';
import type { Db } from '../db/client.ts';
import { sessions, users } from '../db/schema.ts';
import type { SignedInUser, WebSession } from './context.ts';

/** A session unused for this long is over. */
export const SESSION_IDLE_SECONDS = 12 * 60 * 60;
/** A session is over this long after sign-in, however active. */
export const SESSION_ABSOLUTE_SECONDS = 7 * 24 * 60 * 60;
/** `last_seen_at` is written at most this often, so page views do not each cost a write. */
const TOUCH_INTERVAL_MS = 60_000;

const SESSION_COOKIE = 'cmcp_session';
const FORM_COOKIE = 'cmcp_form';
const FORM_COOKIE_SECONDS = 2 * 60 * 60;
/** 32 random bytes, base64url: 256 bits. */
const SECRET_BYTES = 32;

/** HTTPS as seen by the browser (directly, or through a TLS-terminating proxy that says so). */
export function isSecureRequest(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

// Over HTTPS the cookies take the __Host- prefix: Secure, Path=/, no Domain, so no subdomain can plant one.
function cookieOptions(c: Context, maxAge: number) {
  const secure = isSecureRequest(c);
  return {
    httpOnly: true,
    sameSite: 'Lax' as const,
    path: '/',
    secure,
    maxAge,
    ...(secure ? { prefix: 'host' as const } : {}),
  };
}

function readCookie(c: Context, name: string): string | undefined {
  return isSecureRequest(c) ? getCookie(c, name, 'host') : getCookie(c, name);
}

export interface LoadedSession {
  user: SignedInUser;
  session: WebSession;
}

export async function createSession(c: Context, db: Db, userId: string, now: Date): Promise<void> {
  const secret = randomBase64Url(SECRET_BYTES);
  const timestamp = now.toISOString();
  await db.insert(sessions).values({
    id_hash: await sha256Hex(secret),
    user_id: userId,
    csrf_token: randomBase64Url(SECRET_BYTES),
    created_at: timestamp,
    last_seen_at: timestamp,
    expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_SECONDS * 1000).toISOString(),
  });
  setCookie(c, SESSION_COOKIE, secret, cookieOptions(c, SESSION_ABSOLUTE_SECONDS));
}

/** The session named by the request's cookie, if it exists and has neither idled out nor reached its end. */
export async function loadSession(c: Context, db: Db, now: Date): Promise<LoadedSession | null> {
  const secret = readCookie(c, SESSION_COOKIE);
  if (!secret || secret.length > 100) return null;
  const idHash = await sha256Hex(secret);
  const [row] = await db
    .select({
      id_hash: sessions.id_hash,
      csrf_token: sessions.csrf_token,
      last_seen_at: sessions.last_seen_at,
      expires_at: sessions.expires_at,
      user_id: users.id,
      email: users.email,
      name: users.name,
      time_zone: users.time_zone,
      email_verified_at: users.email_verified_at,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.user_id))
    .where(eq(sessions.id_hash, idHash))
    .limit(1);
  if (!row) return null;
  const nowMs = now.getTime();
  const idleEnd = Date.parse(row.last_seen_at) + SESSION_IDLE_SECONDS * 1000;
  if (Date.parse(row.expires_at) <= nowMs || idleEnd <= nowMs) {
    await db.delete(sessions).where(eq(sessions.id_hash, idHash));
    return null;
  }
  if (nowMs - Date.parse(row.last_seen_at) >= TOUCH_INTERVAL_MS) {
    await db.update(sessions).set({ last_seen_at: now.toISOString() }).where(eq(sessions.id_hash, idHash));
  }
  return {
    user: {
      id: row.user_id,
      email: row.email,
      name: row.name,
      timeZone: row.time_zone,
      emailVerified: row.email_verified_at !== null,
    },
    session: { idHash, csrfToken: row.csrf_token },
  };
}

export async function endSession(c: Context, db: Db, idHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id_hash, idHash));
  clearSessionCookie(c);
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, {
    path: '/',
    secure: isSecureRequest(c),
    ...(isSecureRequest(c) ? { prefix: 'host' } : {}),
  });
}

/** Signs the user out everywhere else (after a password change), and drops their sessions that are over. */
export async function endOtherSessions(db: Db, userId: string, keepIdHash: string): Promise<void> {
  await db.delete(sessions).where(and(eq(sessions.user_id, userId), ne(sessions.id_hash, keepIdHash)));
}

/** Signs the user out everywhere (after a password reset by link). */
export async function endAllSessions(db: Db, userId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.user_id, userId));
}

/** Housekeeping at sign-in: a user's sessions that are over are deleted. */
export async function deleteEndedSessions(db: Db, userId: string, now: Date): Promise<void> {
  const idleCutoff = new Date(now.getTime() - SESSION_IDLE_SECONDS * 1000).toISOString();
  await db
    .delete(sessions)
    .where(
      and(
        eq(sessions.user_id, userId),
        or(lte(sessions.expires_at, now.toISOString()), lte(sessions.last_seen_at, idleCutoff)),
      ),
    );
}

/**
 * The CSRF token of the forms shown before there is a session (sign in, sign up): a random value in a cookie that
 * the form must repeat (double submit). Created when such a form is shown.
 */
export function formToken(c: Context): string {
  const existing = readCookie(c, FORM_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBase64Url(SECRET_BYTES);
  setCookie(c, FORM_COOKIE, token, cookieOptions(c, FORM_COOKIE_SECONDS));
  return token;
}

export function formCookie(c: Context): string | undefined {
  return readCookie(c, FORM_COOKIE);
}
