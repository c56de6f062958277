// Links sent by mail (or printed by the operator's CLI) to confirm a sign-up, confirm an address, reset a password:
// a random secret whose SHA-256 alone is kept, used once, and only until it expires.
import { and, desc, eq, gt, isNull, lt } from 'drizzle-orm';
import { createOrganization, createUser, findUserByEmail } from './accounts.ts';
import { randomBase64Url, sha256Hex } from './auth/crypto.ts';
import type { SignUpPolicy } from './config.ts';
import type { Db } from './db/client.ts';
import { accountLinks } from './db/schema.ts';
import { AppError } from './errors.ts';
import { hasOpenInvitation } from './invitations.ts';

export type LinkPurpose = 'signup' | 'verify' | 'reset';

/** How long each kind of link is valid. */
export const LINK_HOURS: Record<LinkPurpose, number> = { signup: 24, verify: 24, reset: 1 };

/** The path each link opens (both confirmations share one page). */
export const LINK_PATHS: Record<LinkPurpose, string> = {
  signup: '/verify/',
  verify: '/verify/',
  reset: '/reset/',
};

/** What a sign-up form said, kept with its link until the link is used (the account is made only then). */
export interface PendingSignUp {
  name: string | null;
  password_hash: string;
  organization: string | null;
  next: string | null;
}

export type AccountLink = typeof accountLinks.$inferSelect;

/** Why a link cannot be used; the pages word each for a person. */
export type LinkRefusal = 'unknown' | 'used' | 'expired';

/** A secret's shape: anything else is unknown without a database read. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Used and expired links are kept this long (so a reused link is told apart from an unknown one), then deleted. */
const KEEP_ENDED_MS = 7 * 24 * 60 * 60 * 1000;

export function linkPath(purpose: LinkPurpose, secret: string): string {
  return `${LINK_PATHS[purpose]}${secret}`;
}

/**
 * Makes a link for `email`: its row (secret hashed) and, in the same batch, housekeeping of long-ended links; a reset
 * link also ends the unused reset links of the address before it (only the newest works). Returns the secret.
 */
export async function issueLink(
  db: Db,
  now: Date,
  input: { purpose: LinkPurpose; email: string; userId: string | null; signUp?: PendingSignUp },
): Promise<{ secret: string; expiresAt: string }> {
  const secret = randomBase64Url(32);
  const at = now.toISOString();
  const expiresAt = new Date(now.getTime() + LINK_HOURS[input.purpose] * 3_600_000).toISOString();
  const housekeeping = db
    .delete(accountLinks)
    .where(lt(accountLinks.expires_at, new Date(now.getTime() - KEEP_ENDED_MS).toISOString()));
  const insert = db.insert(accountLinks).values({
    secret_hash: await sha256Hex(secret),
    purpose: input.purpose,
    email: input.email,
    user_id: input.userId,
    details: input.signUp ? { ...input.signUp } : null,
    created_at: at,
    expires_at: expiresAt,
  });
  if (input.purpose !== 'reset') {
    await db.batch([housekeeping, insert]);
    return { secret, expiresAt };
  }
  const endEarlier = db
    .update(accountLinks)
    .set({ used_at: at })
    .where(
      and(
        eq(accountLinks.email, input.email),
        eq(accountLinks.purpose, 'reset'),
        isNull(accountLinks.used_at),
      ),
    );
  await db.batch([housekeeping, endEarlier, insert]);
  return { secret, expiresAt };
}

/** The link of `secret` for one of `purposes` if it can be used now, or why not. */
export async function findLink(
  db: Db,
  secret: string,
  purposes: readonly LinkPurpose[],
  now: Date,
): Promise<{ link: AccountLink } | { refusal: LinkRefusal }> {
  if (!SECRET_PATTERN.test(secret)) return { refusal: 'unknown' };
  const [link] = await db
    .select()
    .from(accountLinks)
    .where(eq(accountLinks.secret_hash, await sha256Hex(secret)));
  if (!link || !purposes.includes(link.purpose)) return { refusal: 'unknown' };
  if (link.used_at) return { refusal: 'used' };
  if (link.expires_at <= now.toISOString()) return { refusal: 'expired' };
  return { link };
}

/** Marks the link used, in one statement that only an unused, unexpired link passes: true for the one use that won. */
export async function useLink(db: Db, link: AccountLink, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const used = await db
    .update(accountLinks)
    .set({ used_at: at })
    .where(
      and(
        eq(accountLinks.secret_hash, link.secret_hash),
        isNull(accountLinks.used_at),
        gt(accountLinks.expires_at, at),
      ),
    )
    .returning({ secret_hash: accountLinks.secret_hash });
  return used.length > 0;
}

/** The newest sign-up of `email` still waiting for its link (the operator's `user verify` completes it). */
export async function pendingSignUpOf(db: Db, email: string, now: Date): Promise<AccountLink | undefined> {
  const [link] = await db
    .select()
    .from(accountLinks)
    .where(
      and(
        eq(accountLinks.email, email),
        eq(accountLinks.purpose, 'signup'),
        isNull(accountLinks.used_at),
        gt(accountLinks.expires_at, now.toISOString()),
      ),
    )
    .orderBy(desc(accountLinks.created_at))
    .limit(1);
  return link;
}

/** A pending sign-up's form, as issueLink stored it. */
export function signUpOf(link: AccountLink): PendingSignUp | undefined {
  const details = link.details;
  if (!details || typeof details.password_hash !== 'string') return undefined;
  return {
    name: details.name ?? null,
    password_hash: details.password_hash,
    organization: details.organization ?? null,
    next: details.next ?? null,
  };
}

export function accountExists(email: string): AppError {
  return new AppError(
    'conflict',
    `An account with ${email} already exists. Sign in, or reset its password if you forgot it.`,
  );
}

/**
 * Makes the account of a pending sign-up whose link was opened (or that the operator confirmed: `operator`), with the
 * address confirmed and the organization it named, then marks the link used. The SIGNUP policy is checked again:
 * it may have changed, or an invitation may have been withdrawn, since the form was sent. An account made meanwhile
 * for the address (another link of it, the CLI) is a conflict in words.
 */
export async function completeSignUp(
  db: Db,
  now: Date,
  link: AccountLink,
  policy: SignUpPolicy | 'operator',
): Promise<{ userId: string; next: string | null }> {
  const signUp = signUpOf(link);
  if (link.purpose !== 'signup' || !signUp) throw new AppError('not_found', 'This is not a sign-up link.');
  if (policy === 'closed')
    throw new AppError('forbidden', 'Sign-up is closed on this instance. Ask its operator for an account.');
  if (policy === 'invite-only' && !(await hasOpenInvitation(db, link.email, now)))
    throw new AppError(
      'forbidden',
      `This instance accepts invited addresses only, and no invitation for ${link.email} is open. Ask to be invited again.`,
    );
  if (await findUserByEmail(db, link.email)) throw accountExists(link.email);
  let user: { id: string };
  try {
    user = await createUser(db, now, {
      email: link.email,
      passwordHash: signUp.password_hash,
      name: signUp.name,
      emailVerified: true,
    });
  } catch (error) {
    // Two uses of links of the same address at once: the unique address lets one account through.
    if (error instanceof AppError && error.code === 'conflict') throw accountExists(link.email);
    throw error;
  }
  if (signUp.organization) await createOrganization(db, now, { name: signUp.organization, ownerId: user.id });
  await useLink(db, link, now);
  return { userId: user.id, next: signUp.next };
}
