// Invitations to an organization: made by its owners and admins for an address, accepted (or declined) by the
// person of that address. Nothing of the organization reaches the invitee before they accept.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { checkEmail } from './accounts.ts';
import { randomBase64Url, sha256Hex } from './auth/crypto.ts';
import type { Role } from './auth/principal.ts';
import type { Db } from './db/client.ts';
import { invitations, memberships, organizations, users } from './db/schema.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

/** How long an invitation waits for its answer. */
export const INVITATION_DAYS = 7;

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function invitationPath(secret: string): string {
  return `/invite/${secret}`;
}

/** The secret of an invitation path (`/invite/<secret>`), or undefined: a sign-up coming from an invitation link. */
export function invitationSecretOf(path: string | null | undefined): string | undefined {
  const match = /^\/invite\/([A-Za-z0-9_-]{43})$/.exec(path ?? '');
  return match?.[1];
}

export interface InvitationView {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

const viewColumns = {
  id: invitations.id,
  organizationId: invitations.organization_id,
  organizationName: organizations.name,
  email: invitations.email,
  role: invitations.role,
  invitedBy: sql<string>`coalesce((select coalesce(u.name, u.email) from users u where u.id = ${invitations.invited_by_user_id}), 'a former member')`,
  createdAt: invitations.created_at,
  expiresAt: invitations.expires_at,
};

/**
 * Invites `email` with `role` (the caller checked the inviter may hand out that role). The answer is the same whether
 * or not an account has that address; only an address that is already a member is refused (the members list shows
 * it anyway). Inviting an address again replaces its pending invitation (new role, new link, new expiry).
 */
export async function invite(
  db: Db,
  now: Date,
  input: { organizationId: string; email: string; role: Role; invitedBy: string },
): Promise<{ id: string; email: string; secret: string; expiresAt: string }> {
  const email = checkEmail(input.email);
  const [member] = await db
    .select({ id: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(and(eq(memberships.organization_id, input.organizationId), eq(users.email, email)));
  if (member) throw new AppError('conflict', `${email} is already a member.`);
  const secret = randomBase64Url(32);
  const at = now.toISOString();
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000).toISOString();
  const values = {
    role: input.role,
    invited_by_user_id: input.invitedBy,
    secret_hash: await sha256Hex(secret),
    created_at: at,
    expires_at: expiresAt,
  };
  const [row] = await db
    .insert(invitations)
    .values({ id: newId('inv'), organization_id: input.organizationId, email, ...values })
    .onConflictDoUpdate({ target: [invitations.organization_id, invitations.email], set: values })
    .returning({ id: invitations.id });
  return { id: row?.id ?? '', email, secret, expiresAt };
}

/** The organization's invitations, pending and expired (an expired one can be sent again), oldest first. */
export async function listOrganizationInvitations(db: Db, organizationId: string): Promise<InvitationView[]> {
  return db
    .select(viewColumns)
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organization_id))
    .where(eq(invitations.organization_id, organizationId))
    .orderBy(asc(invitations.created_at), asc(invitations.id));
}

/** Withdraws an invitation of the organization; false if it was already answered or withdrawn. */
export async function withdrawInvitation(db: Db, organizationId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.organization_id, organizationId)))
    .returning({ id: invitations.id });
  return removed.length > 0;
}

/** The pending (unexpired) invitations addressed to `email`, for that person's Invitations page. */
export async function invitationsFor(db: Db, email: string, now: Date): Promise<InvitationView[]> {
  return db
    .select(viewColumns)
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organization_id))
    .where(and(eq(invitations.email, email), gt(invitations.expires_at, now.toISOString())))
    .orderBy(asc(invitations.created_at), asc(invitations.id));
}

/** True while some organization has an open invitation for `email` (SIGNUP=invite-only lets such addresses in). */
export async function hasOpenInvitation(db: Db, email: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(and(eq(invitations.email, email), gt(invitations.expires_at, now.toISOString())))
    .limit(1);
  return row !== undefined;
}

/** The invitation a link names (pending or expired), or undefined. */
export async function invitationBySecret(db: Db, secret: string): Promise<InvitationView | undefined> {
  if (!SECRET_PATTERN.test(secret)) return undefined;
  const [row] = await db
    .select(viewColumns)
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organization_id))
    .where(eq(invitations.secret_hash, await sha256Hex(secret)));
  return row;
}

export const INVITATION_GONE =
  'This invitation is no longer open: it was accepted, declined or withdrawn. Ask the organization for a new one.';

/** An invitation of `id` addressed to `email`, in any state; undefined if there is none. */
async function invitationOf(db: Db, id: string, email: string): Promise<InvitationView | undefined> {
  const [row] = await db
    .select(viewColumns)
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organization_id))
    .where(and(eq(invitations.id, id), eq(invitations.email, email)));
  return row;
}

/**
 * Accepts an invitation for the signed-in account `user`, whose address must be the invitation's: one batch makes
 * the membership and deletes the invitation, only while it is pending. `byLink`: the person opened the link mailed to
 * that address, which also confirms the address. `earlierTokens`: their tokens for all organizations issued before
 * now reach the organization too. Returns the organization; a second accept, an expired or withdrawn invitation, or
 * an unconfirmed address are errors in words for the page.
 */
export async function acceptInvitation(
  db: Db,
  now: Date,
  input: {
    invitationId: string;
    user: { id: string; email: string; emailVerified: boolean };
    byLink: boolean;
    earlierTokens: boolean;
  },
): Promise<{ organizationId: string; organizationName: string }> {
  const { user } = input;
  const invitation = await invitationOf(db, input.invitationId, user.email);
  if (!invitation) throw new AppError('not_found', INVITATION_GONE);
  const at = now.toISOString();
  if (invitation.expiresAt <= at)
    throw new AppError(
      'conflict',
      `This invitation expired on ${invitation.expiresAt.slice(0, 10)}. Ask ${invitation.invitedBy} to invite you again.`,
    );
  if (!user.emailVerified && !input.byLink)
    throw new AppError(
      'forbidden',
      `Confirm your address ${user.email} first (Settings > Password shows how), or open the link of the invitation email.`,
    );
  const pending = and(
    eq(invitations.id, input.invitationId),
    eq(invitations.email, user.email),
    gt(invitations.expires_at, at),
  );
  const [, inserted, deleted] = await db.batch([
    // The link was mailed to the address: using it confirms the address (as a confirmation link would).
    db
      .update(users)
      .set({ email_verified_at: sql`coalesce(${users.email_verified_at}, ${at})` })
      .where(
        and(
          eq(users.id, user.id),
          eq(users.email, user.email),
          input.byLink ? undefined : sql`0`,
          sql`exists (select 1 from ${invitations} where ${pending})`,
        ),
      ),
    // Columns in the table's order: organization_id, user_id, role, created_at, earlier_tokens.
    db
      .insert(memberships)
      .select(
        sql`select ${invitations.organization_id}, ${user.id}, ${invitations.role}, ${at}, ${input.earlierTokens ? 1 : 0} from ${invitations} where ${pending}`,
      )
      .onConflictDoNothing()
      .returning({ organizationId: memberships.organization_id }),
    db.delete(invitations).where(pending).returning({ id: invitations.id }),
  ]);
  if (deleted.length === 0) throw new AppError('conflict', INVITATION_GONE);
  if (inserted.length === 0)
    throw new AppError('conflict', `You are already a member of ${invitation.organizationName}.`);
  return { organizationId: invitation.organizationId, organizationName: invitation.organizationName };
}

/** Declines an invitation addressed to `email` (deletes it); false if it was no longer open. */
export async function declineInvitation(db: Db, id: string, email: string): Promise<boolean> {
  const removed = await db
    .delete(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.email, email)))
    .returning({ id: invitations.id });
  return removed.length > 0;
}
