// The registries the notification engine reads: kinds with due dates ("due sources") and kinds with an assignee.
import { and, eq, isNotNull, lte, ne } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import { nonconformities, obligations } from '../db/schema.ts';
import { isOverdue } from '../tools/overdue.ts';

/** One thing that comes due: who owns it (a person) and who it is assigned to (an account), either may be null. */
export interface DueItem {
  kind: string;
  id: string;
  title: string;
  due_date: string;
  status: string;
  /** The status in which it is done (no longer due): overdue means due before today and not in it. */
  done_status: string;
  owner_person_id: string | null;
  assignee_user_id: string | null;
}

export interface DueSource {
  kind: string;
  /** Items of the organization not yet done and due on or before `until` (YYYY-MM-DD), overdue ones included. */
  query(ctx: { db: Db }, organizationId: string, until: string): Promise<DueItem[]>;
}

const dueSources: DueSource[] = [];

/** Adds a kind whose records come due (tasks, reviews, evidence and documents add theirs beside the two here). */
export function registerDueSource(source: DueSource): void {
  const at = dueSources.findIndex((existing) => existing.kind === source.kind);
  if (at >= 0) dueSources[at] = source;
  else dueSources.push(source);
}

export function listDueSources(): readonly DueSource[] {
  return dueSources;
}

/** The one place notifications decide "overdue": the same function as the registers' `overdue` field. */
export function itemIsOverdue(item: DueItem, today: string): boolean {
  return isOverdue({ ...item }, 'due_date', 'status', item.done_status, today);
}

/** A due source over a register table with `due_date`, `status` and `owner_id` columns. */
export function tableDueSource(options: {
  kind: string;
  table: typeof obligations | typeof nonconformities;
  title: SQLiteColumn;
  done: string;
}): DueSource {
  const { table } = options;
  return {
    kind: options.kind,
    async query(ctx, organizationId, until) {
      const rows = await ctx.db
        .select({
          id: table.id,
          title: options.title,
          due_date: table.due_date,
          status: table.status,
          owner: table.owner_id,
        })
        .from(table)
        .where(
          and(
            eq(table.organization_id, organizationId),
            isNotNull(table.due_date),
            lte(table.due_date, until),
            ne(table.status, options.done),
          ),
        );
      return rows.map((row) => ({
        kind: options.kind,
        id: row.id,
        title: String(row.title),
        due_date: row.due_date as string,
        status: row.status,
        done_status: options.done,
        owner_person_id: row.owner,
        assignee_user_id: null,
      }));
    },
  };
}

registerDueSource(
  tableDueSource({
    kind: 'obligation',
    table: obligations,
    title: obligations.requirement,
    done: 'COMPLIANT',
  }),
);
registerDueSource(
  tableDueSource({
    kind: 'nonconformity',
    table: nonconformities,
    title: nonconformities.reference_id,
    done: 'CLOSED',
  }),
);

/**
 * Kinds whose records are assigned to an account: a history row (record_changes) of such a kind whose `after`
 * sets `field` to a user id notifies that account ("assigned to me"). A `task` kind calls this with `assignee_id`.
 */
const assignable = new Map<string, string>();

export function registerAssignable(kind: string, field: string): void {
  assignable.set(kind, field);
}

export function assigneeFieldOf(kind: string): string | undefined {
  return assignable.get(kind);
}
