// Users, organizations and memberships: the operations the CLI and the web interface share.
import { and, count, eq } from 'drizzle-orm';
import { hashPassword, MIN_PASSWORD_LENGTH } from './auth/passwords.ts';
import type { Role } from './auth/principal.ts';
import type { Db } from './db/client.ts';
import { memberships, organizations, users } from './db/schema.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(
  db: Db,
  now: Date,
  input: { email: string; password: string; name?: string | null },
): Promise<{ id: string; email: string }> {
  const email = normalizeEmail(input.email);
  if (!EMAIL_PATTERN.test(email))
    throw new AppError('invalid_arguments', `Not an email address: ${input.email}`);
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('invalid_arguments', `The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (await findUserByEmail(db, email))
    throw new AppError('conflict', `A user with email ${email} already exists.`);
  const id = newId('usr');
  const timestamp = now.toISOString();
  await db.insert(users).values({
    id,
    email,
    name: input.name?.trim() || null,
    password_hash: await hashPassword(input.password),
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

export async function setMembership(
  db: Db,
  now: Date,
  organizationId: string,
  userId: string,
  role: Role,
): Promise<void> {
  const [organization] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  if (!organization) throw new AppError('not_found', `No organization ${organizationId}.`);
  const current = await roleOf(db, organizationId, userId);
  if (current === 'OWNER' && role !== 'OWNER') await refuseLastOwner(db, organizationId);
  await db
    .insert(memberships)
    .values({ organization_id: organizationId, user_id: userId, role, created_at: now.toISOString() })
    .onConflictDoUpdate({ target: [memberships.organization_id, memberships.user_id], set: { role } });
}

export async function removeMembership(db: Db, organizationId: string, userId: string): Promise<void> {
  if ((await roleOf(db, organizationId, userId)) === 'OWNER') await refuseLastOwner(db, organizationId);
  await db
    .delete(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)));
}

export async function roleOf(db: Db, organizationId: string, userId: string): Promise<Role | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)));
  return row?.role;
}

async function refuseLastOwner(db: Db, organizationId: string): Promise<void> {
  const [row] = await db
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.role, 'OWNER')));
  if ((row?.n ?? 0) <= 1) {
    throw new AppError(
      'conflict',
      'An organization keeps at least one OWNER. Make someone else OWNER first.',
    );
  }
}
