// Users, organizations and memberships: the operations the CLI and the web interface share.
import { and, count, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { hashPassword, MIN_PASSWORD_LENGTH } from './auth/passwords.ts';
import type { Role } from './auth/principal.ts';
import type { Db } from './db/client.ts';
import { invitations, memberships, organizations, users, webhookEndpoints } from './db/schema.ts';
import { isEmailAddress } from './email-address.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createUser(
  db: Db,
  now: Date,
  // passwordHash: hashPassword(password) computed beforehand (tests share one instead of deriving it per user).
  // emailVerified: the person showed they get mail at the address (a link sent there, the operator's word, or the
  // first account of the instance); an account without it cannot accept invitations, approve as a person, get mail.
  input: {
    email: string;
    name?: string | null;
    emailVerified: boolean;
    /** Only while the instance has no account at all (its first one); otherwise a conflict. */
    onlyIfFirst?: boolean;
  } & ({ password: string; passwordHash?: string } | { password?: undefined; passwordHash: string }),
): Promise<{ id: string; email: string }> {
  const email = checkEmail(input.email);
  if (input.password !== undefined && input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('invalid_arguments', `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if ((input.name?.trim().length ?? 0) > 200)
    throw new AppError('invalid_arguments', 'A name has at most 200 characters.');
  if (await findUserByEmail(db, email))
    throw new AppError('conflict', `A user with email ${email} already exists.`);
  const id = newId('usr');
  const timestamp = now.toISOString();
  const row = {
    id,
    email,
    name: input.name?.trim() || null,
    password_hash: input.passwordHash ?? (await hashPassword(input.password ?? '')),
    time_zone: null,
    email_verified_at: input.emailVerified ? timestamp : null,
    created_at: timestamp,
    updated_at: timestamp,
  };
  if (!input.onlyIfFirst) {
    await db.insert(users).values(row);
    return { id, email };
  }
  // In one statement, so of several sign-ups racing on an empty instance exactly one is its first account.
  const inserted = await db
    .insert(users)
    .select(
      sql`select ${sql.join(
        Object.values(row).map((value) => sql`${value}`),
        sql`, `,
      )} where not exists (select 1 from ${users})`,
    )
    .returning({ id: users.id });
  if (inserted.length === 0) throw new AppError('conflict', 'This instance already has its first account.');
  return { id, email };
}

/** Checks an address as createUser does (the sign-up form checks it before any link is sent). */
export function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!isEmailAddress(normalized)) throw new AppError('invalid_arguments', `Not an email address: ${email}`);
  return normalized;
}

/** Records that the account receives mail at its address (a link sent there was used, or the operator said so). */
export async function markEmailVerified(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .update(users)
    .set({ email_verified_at: now.toISOString(), updated_at: now.toISOString() })
    .where(and(eq(users.id, userId), isNull(users.email_verified_at)));
}

export async function findUserByEmail(db: Db, email: string) {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return user;
}

export async function requireUserByEmail(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw new AppError('not_found', `No user with email ${normalizeEmail(email)}.`);
  return user;
}

/** Creates an organization owned by `ownerId`, in one batch. */
export async function createOrganization(
  db: Db,
  now: Date,
  input: { name: string; description?: string | null; ownerId: string },
): Promise<{ id: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200)
    throw new AppError('invalid_arguments', 'An organization needs a name of 1 to 200 characters.');
  if ((input.description?.trim().length ?? 0) > 2000)
    throw new AppError('invalid_arguments', 'An organization description has at most 2,000 characters.');
  const id = newId('org');
  const timestamp = now.toISOString();
  await db.batch([
    db.insert(organizations).values({
      id,
      name,
      description: input.description?.trim() || null,
      created_at: timestamp,
      updated_at: timestamp,
    }),
    // The founder's own organization: their tokens for all organizations reach it, as they made it themselves.
    db.insert(memberships).values({
      organization_id: id,
      user_id: input.ownerId,
      role: 'OWNER',
      created_at: timestamp,
      earlier_tokens: true,
    }),
  ]);
  return { id };
}

const LAST_OWNER = 'An organization keeps at least one OWNER. Make someone else OWNER first.';
export const MEMBERSHIP_CHANGED_MEANWHILE =
  'This membership was changed meanwhile (in another tab, or by someone else). Reload the page and try again.';

async function requireOrganization(db: Db, organizationId: string): Promise<void> {
  const [organization] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  if (!organization) throw new AppError('not_found', `No organization ${organizationId}.`);
}

/**
 * True while the organization has an OWNER other than `userId`. Evaluated inside the statement that demotes or
 * removes `userId`, so two owners acting on each other at once cannot both pass it.
 */
function anotherOwner(organizationId: string, userId: string) {
  return sql`(select count(*) from ${memberships} as others where others.organization_id = ${organizationId} and others.role = 'OWNER' and others.user_id <> ${userId}) >= 1`;
}

/** Adds a member; a user who is already a member (whatever their role) is a conflict, never overwritten. */
export async function addMembership(
  db: Db,
  now: Date,
  organizationId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await requireOrganization(db, organizationId);
  const added = await db
    .insert(memberships)
    .values({ organization_id: organizationId, user_id: userId, role, created_at: now.toISOString() })
    .onConflictDoNothing({ target: [memberships.organization_id, memberships.user_id] })
    .returning({ role: memberships.role });
  if (added.length === 0) throw new AppError('conflict', 'This user is already a member.');
}

/**
 * Changes a member's role from `from` (the role the person saw) to `to`, in one statement: if the member left or
 * their role changed meanwhile nothing changes, and the last OWNER is never demoted.
 */
export async function changeRole(
  db: Db,
  organizationId: string,
  userId: string,
  from: Role,
  to: Role,
): Promise<void> {
  const changed = await db
    .update(memberships)
    .set({ role: to })
    .where(
      and(
        eq(memberships.organization_id, organizationId),
        eq(memberships.user_id, userId),
        eq(memberships.role, from),
        from === 'OWNER' && to !== 'OWNER' ? anotherOwner(organizationId, userId) : undefined,
      ),
    )
    .returning({ role: memberships.role });
  if (changed.length === 0) await explainRefusal(db, organizationId, userId, from);
}

/**
 * Removes a member (or the member leaves: no `removable`), in one statement that keeps the last OWNER; with
 * `removable`, only while their role is one of those (the roles the remover may remove: an ADMIN never removes
 * someone who became an OWNER meanwhile, while a role change between two roles the remover manages does not stop the
 * removal). In the same batch, the webhook endpoints the member made are paused (docs/security.md): a person who is
 * gone no longer chooses where the organization's events go (an owner or admin turns them back on); and the
 * invitations they sent that are still open are withdrawn.
 */
export async function removeMembership(
  db: Db,
  now: Date,
  organizationId: string,
  userId: string,
  removable?: readonly Role[],
): Promise<void> {
  const gone = sql`not exists (select 1 from ${memberships} where ${memberships.organization_id} = ${organizationId} and ${memberships.user_id} = ${userId})`;
  const [removed] = await db.batch([
    db
      .delete(memberships)
      .where(
        and(
          eq(memberships.organization_id, organizationId),
          eq(memberships.user_id, userId),
          removable ? inArray(memberships.role, [...removable]) : undefined,
          or(ne(memberships.role, 'OWNER'), anotherOwner(organizationId, userId)),
        ),
      )
      .returning({ role: memberships.role }),
    // Only once they are not a member (the delete above may have been refused).
    db
      .update(webhookEndpoints)
      .set({ enabled: false, paused_reason: 'creator_left', updated_at: now.toISOString() })
      .where(
        and(
          eq(webhookEndpoints.organization_id, organizationId),
          eq(webhookEndpoints.created_by_user_id, userId),
          eq(webhookEndpoints.enabled, true),
          gone,
        ),
      ),
    // Their invitations still open are withdrawn: nobody joins on the word of someone who is gone.
    db
      .delete(invitations)
      .where(
        and(
          eq(invitations.organization_id, organizationId),
          eq(invitations.invited_by_user_id, userId),
          gone,
        ),
      ),
  ]);
  if (removed.length === 0) await explainRefusal(db, organizationId, userId, removable);
}

/** Why a guarded change touched no row: the last-owner rule, or the membership changed (or went) meanwhile. */
async function explainRefusal(
  db: Db,
  organizationId: string,
  userId: string,
  expected: Role | readonly Role[] | undefined,
): Promise<never> {
  const allowed = expected === undefined ? undefined : typeof expected === 'string' ? [expected] : expected;
  const current = await roleOf(db, organizationId, userId);
  if (current === 'OWNER' && (allowed === undefined || allowed.includes('OWNER')))
    throw new AppError('conflict', LAST_OWNER);
  if (current === undefined && allowed === undefined)
    throw new AppError('not_found', `User ${userId} is not a member of ${organizationId}.`);
  throw new AppError('conflict', MEMBERSHIP_CHANGED_MEANWHILE);
}

/**
 * The operator's add-or-change (CLI `member add`): makes the user a member with `role` at once, without an
 * invitation (the operator answers for the instance), in one statement that never demotes the last OWNER.
 * `earlierTokens`: a new member's tokens for all organizations issued before now reach it too (CLI
 * `--earlier-tokens`; test setups whose clock is not the wall clock).
 */
export async function setMembership(
  db: Db,
  now: Date,
  organizationId: string,
  userId: string,
  role: Role,
  options: { earlierTokens?: boolean } = {},
): Promise<void> {
  await requireOrganization(db, organizationId);
  const written = await db
    .insert(memberships)
    .values({
      organization_id: organizationId,
      user_id: userId,
      role,
      created_at: now.toISOString(),
      earlier_tokens: options.earlierTokens === true,
    })
    .onConflictDoUpdate({
      target: [memberships.organization_id, memberships.user_id],
      set: { role },
      setWhere:
        role === 'OWNER'
          ? undefined
          : or(ne(memberships.role, 'OWNER'), anotherOwner(organizationId, userId)),
    })
    .returning({ role: memberships.role });
  if (written.length === 0) throw new AppError('conflict', LAST_OWNER);
}

export async function roleOf(db: Db, organizationId: string, userId: string): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)));
  return row?.role;
}

/** How many accounts exist (the first one made by `npm start` or the CLI is confirmed). */
export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users);
  return row?.n ?? 0;
}
