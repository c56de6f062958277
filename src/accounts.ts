// Users, organizations and memberships: the operations the CLI and the web interface share.
import { and, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { hashPassword, MIN_PASSWORD_LENGTH } from './auth/passwords.ts';
import type { Role } from './auth/principal.ts';
import type { Db } from './db/client.ts';
import { memberships, organizations, users } from './db/schema.ts';
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
  input: { email: string; password: string; name?: string | null; passwordHash?: string },
): Promise<{ id: string; email: string }> {
  const email = normalizeEmail(input.email);
  if (!isEmailAddress(email)) throw new AppError('invalid_arguments', `Not an email address: ${input.email}`);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('invalid_arguments', `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if ((input.name?.trim().length ?? 0) > 200)
    throw new AppError('invalid_arguments', 'A name has at most 200 characters.');
  if (await findUserByEmail(db, email))
    throw new AppError('conflict', `A user with email ${email} already exists.`);
  const id = newId('usr');
  const timestamp = now.toISOString();
  await db.insert(users).values({
    id,
    email,
    name: input.name?.trim() || null,
    password_hash: input.passwordHash ?? (await hashPassword(input.password)),
    created_at: timestamp,
    updated_at: timestamp,
  });
  return { id, email };
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
    db
      .insert(memberships)
      .values({ organization_id: id, user_id: input.ownerId, role: 'OWNER', created_at: timestamp }),
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
 * Removes a member, in one statement that keeps the last OWNER; with `removable`, only while their role is one of
 * those (the roles the remover may remove: an ADMIN never removes someone who became an OWNER meanwhile, while a
 * role change between two roles the remover manages does not stop the removal).
 */
export async function removeMembership(
  db: Db,
  organizationId: string,
  userId: string,
  removable?: readonly Role[],
): Promise<void> {
  const removed = await db
    .delete(memberships)
    .where(
      and(
        eq(memberships.organization_id, organizationId),
        eq(memberships.user_id, userId),
        removable ? inArray(memberships.role, [...removable]) : undefined,
        or(ne(memberships.role, 'OWNER'), anotherOwner(organizationId, userId)),
      ),
    )
    .returning({ role: memberships.role });
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
 * The operator's add-or-change (CLI `member add`): makes the user a member with `role`, in one statement that
 * never demotes the last OWNER.
 */
export async function setMembership(
  db: Db,
  now: Date,
  organizationId: string,
  userId: string,
  role: Role,
): Promise<void> {
  await requireOrganization(db, organizationId);
  const written = await db
    .insert(memberships)
    .values({ organization_id: organizationId, user_id: userId, role, created_at: now.toISOString() })
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
