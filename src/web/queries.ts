// The web interface's own reads and writes: accounts, memberships and the call log. Registers go through the tool map.
import { and, asc, count, desc, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { apiTokens, memberships, organizations, toolCalls, users } from '../db/schema.ts';
import type { Surface } from '../usage.ts';
import type { Membership } from './context.ts';

export async function loadMemberships(db: Db, userId: string): Promise<Membership[]> {
  const rows = await db
    .select({ organizationId: memberships.organization_id, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organization_id))
    .where(eq(memberships.user_id, userId))
    .orderBy(asc(organizations.name), asc(organizations.id));
  return rows;
}

export async function setPasswordHash(
  db: Db,
  userId: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await db
    .update(users)
    .set({ password_hash: passwordHash, updated_at: now.toISOString() })
    .where(eq(users.id, userId));
}

/** A stronger hash of the same password, written only if the stored one is still `previous` (no change meanwhile). */
export async function replacePasswordHash(
  db: Db,
  userId: string,
  previous: string,
  passwordHash: string,
): Promise<void> {
  await db
    .update(users)
    .set({ password_hash: passwordHash })
    .where(and(eq(users.id, userId), eq(users.password_hash, previous)));
}

export async function passwordHashOf(db: Db, userId: string): Promise<string | undefined> {
  const [row] = await db.select({ hash: users.password_hash }).from(users).where(eq(users.id, userId));
  return row?.hash;
}

export interface MemberRow {
  userId: string;
  email: string;
  name: string | null;
  role: Membership['role'];
  since: string;
}

export async function listMembers(db: Db, organizationId: string): Promise<MemberRow[]> {
  return db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      since: memberships.created_at,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(eq(memberships.organization_id, organizationId))
    .orderBy(
      sql`case ${memberships.role} when 'OWNER' then 0 when 'ADMIN' then 1 when 'EDITOR' then 2 else 3 end`,
      asc(users.email),
    );
}

export interface CallRow {
  id: number;
  created_at: string;
  surface: Surface;
  tool: string;
  organization_id: string | null;
  organization_name: string | null;
  outcome: string;
  duration_ms: number;
  token_id: string;
  token_name: string | null;
  user_email: string | null;
  /** Shared with the change-history rows the call's writes made. */
  call_id: string | null;
}

export interface DayCount {
  day: string;
  calls: number;
  errors: number;
}

const RECENT_CALLS = 100;

function callSelection() {
  return {
    id: toolCalls.id,
    created_at: toolCalls.created_at,
    surface: toolCalls.surface,
    tool: toolCalls.tool,
    organization_id: toolCalls.organization_id,
    organization_name: organizations.name,
    outcome: toolCalls.outcome,
    duration_ms: toolCalls.duration_ms,
    token_id: toolCalls.token_id,
    token_name: apiTokens.name,
    user_email: users.email,
    call_id: toolCalls.call_id,
  };
}

/** The most recent calls and the calls per day since `since` (UTC days), of one token or one organization. */
export async function callActivity(
  db: Db,
  by: { tokenId: string } | { organizationId: string },
  since: Date,
): Promise<{ recent: CallRow[]; perDay: DayCount[]; total: number }> {
  const where =
    'tokenId' in by ? eq(toolCalls.token_id, by.tokenId) : eq(toolCalls.organization_id, by.organizationId);
  const day = sql<string>`substr(${toolCalls.created_at}, 1, 10)`;
  const [recent, perDay, totals] = await db.batch([
    db
      .select(callSelection())
      .from(toolCalls)
      .leftJoin(organizations, eq(organizations.id, toolCalls.organization_id))
      .leftJoin(apiTokens, eq(apiTokens.id, toolCalls.token_id))
      .leftJoin(users, eq(users.id, toolCalls.user_id))
      .where(where)
      .orderBy(desc(toolCalls.created_at), desc(toolCalls.id))
      .limit(RECENT_CALLS),
    db
      .select({
        day,
        calls: count(),
        errors: sql<number>`sum(case when ${toolCalls.outcome} = 'ok' then 0 else 1 end)`,
      })
      .from(toolCalls)
      .where(and(where, gte(toolCalls.created_at, since.toISOString())))
      .groupBy(day)
      .orderBy(day),
    db.select({ n: count() }).from(toolCalls).where(where),
  ]);
  return {
    recent: recent as CallRow[],
    perDay: perDay.map((row) => ({
      day: row.day,
      calls: Number(row.calls),
      errors: Number(row.errors ?? 0),
    })),
    total: totals[0]?.n ?? 0,
  };
}
