// What each account hears about in an organization (notification_preferences), with the defaults for no row.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { notificationPreferences, users } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { isTimeZone } from '../tools/overdue.ts';

export interface Preferences {
  assigned: boolean;
  due_soon: boolean;
  due_days: number;
  overdue: boolean;
  owned_changes: boolean;
  digest: boolean;
  digest_hour: number;
  email: boolean;
  time_zone: string;
}

/** An account that never opened its settings hears about everything but the digest, in-app and by email, in UTC. */
export const DEFAULT_PREFERENCES: Preferences = {
  assigned: true,
  due_soon: true,
  due_days: 7,
  overdue: true,
  owned_changes: true,
  digest: false,
  digest_hour: 8,
  email: true,
  time_zone: 'UTC',
};

export const MAX_DUE_DAYS = 90;

export const PreferencesSchema = z.object({
  assigned: z.boolean(),
  due_soon: z.boolean(),
  due_days: z.number().int().min(0).max(MAX_DUE_DAYS),
  overdue: z.boolean(),
  owned_changes: z.boolean(),
  digest: z.boolean(),
  digest_hour: z.number().int().min(0).max(23),
  email: z.boolean(),
  time_zone: z.string().refine(isTimeZone, 'not a known IANA time zone (e.g. Europe/Paris)'),
});

export function preferencesOf(row: Partial<Preferences> | undefined | null): Preferences {
  if (!row) return { ...DEFAULT_PREFERENCES };
  const { assigned, due_soon, due_days, overdue, owned_changes, digest, digest_hour, email, time_zone } = {
    ...DEFAULT_PREFERENCES,
    ...row,
  };
  return { assigned, due_soon, due_days, overdue, owned_changes, digest, digest_hour, email, time_zone };
}

export async function loadPreferences(db: Db, userId: string, organizationId: string): Promise<Preferences> {
  const [row] = await db
    .select()
    .from(notificationPreferences)
    .where(
      and(
        eq(notificationPreferences.user_id, userId),
        eq(notificationPreferences.organization_id, organizationId),
      ),
    );
  return preferencesOf(row);
}

/** Stores an account's preferences for one organization (the caller checked the membership). */
export async function savePreferences(
  db: Db,
  userId: string,
  organizationId: string,
  input: Preferences,
  now: Date,
): Promise<void> {
  const parsed = PreferencesSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new AppError('invalid_arguments', `Notification settings refused: ${problems.join('; ')}.`);
  }
  const values = { ...parsed.data, updated_at: now.toISOString() };
  // The time zone is the account's too: the one "today" (src/tools/overdue.ts) of its tools, pages and lists.
  await db.batch([
    db
      .insert(notificationPreferences)
      .values({ user_id: userId, organization_id: organizationId, ...values })
      .onConflictDoUpdate({
        target: [notificationPreferences.user_id, notificationPreferences.organization_id],
        set: values,
      }),
    db.update(users).set({ time_zone: parsed.data.time_zone }).where(eq(users.id, userId)),
  ]);
}
