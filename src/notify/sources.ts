// The registries the notification engine reads: kinds with due dates ("due sources") and kinds with an assignee.
import { and, eq, isNotNull, lte, notInArray, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client.ts';
import { nonconformities, obligations, risks, tasks } from '../db/schema.ts';
import { isOverdue } from '../tools/overdue.ts';
import { REVIEW_CYCLES, type ReviewCycle, reviewDueBefore } from '../tools/reviews.ts';
import { TASK_ENDED } from '../tools/tasks.ts';

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
  /** The record's next review is what comes due (review cycles), not the record itself. */
  review?: true;
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

/**
 * A due source over a register table: its due date, status and owner columns (and an assignee account column), the
 * statuses in which a record is no longer due (the first is the done one that ends it).
 */
export function tableDueSource(options: {
  kind: string;
  table: typeof obligations | typeof nonconformities | typeof tasks;
  title: SQLiteColumn;
  due: SQLiteColumn;
  ended: readonly [string, ...string[]];
  assignee?: SQLiteColumn;
}): DueSource {
  const { table, due } = options;
  return {
    kind: options.kind,
    async query(ctx, organizationId, until) {
      const rows = await ctx.db
        .select({
          id: table.id,
          title: options.title,
          due_date: due,
          status: table.status,
          owner: table.owner_id,
          assignee: options.assignee ?? sql<null>`null`,
        })
        .from(table)
        .where(
          and(
            eq(table.organization_id, organizationId),
            isNotNull(due),
            lte(due, until),
            notInArray(table.status, [...options.ended]),
          ),
        );
      return rows.map((row) => ({
        kind: options.kind,
        id: row.id,
        title: String(row.title),
        due_date: String(row.due_date),
        status: row.status,
        done_status: options.ended[0],
        owner_person_id: row.owner,
        assignee_user_id: typeof row.assignee === 'string' ? row.assignee : null,
      }));
    },
  };
}

registerDueSource(
  tableDueSource({
    kind: 'obligation',
    table: obligations,
    title: obligations.requirement,
    due: obligations.due_date,
    ended: ['COMPLIANT'],
  }),
);
registerDueSource(
  tableDueSource({
    kind: 'nonconformity',
    table: nonconformities,
    title: nonconformities.reference_id,
    due: nonconformities.due_date,
    ended: ['CLOSED'],
  }),
);
registerDueSource(
  tableDueSource({
    kind: 'task',
    table: tasks,
    title: tasks.title,
    due: tasks.due_on,
    ended: TASK_ENDED,
    assignee: tasks.assignee_user_id,
  }),
);

/**
 * ACCEPTED risks whose acceptance runs out (or was never recorded: due since the risk last changed), for their owner:
 * renewing it (addRiskAcceptance) or moving the risk out of ACCEPTED ends the item.
 */
registerDueSource({
  kind: 'risk_acceptance',
  async query(ctx, organizationId, until) {
    const due = sql<string>`coalesce(${risks.accepted_until}, substr(${risks.updated_at}, 1, 10))`;
    const rows = await ctx.db
      .select({ id: risks.id, name: risks.name, due_date: due, owner: risks.owner_id })
      .from(risks)
      .where(and(eq(risks.organization_id, organizationId), eq(risks.status, 'ACCEPTED'), lte(due, until)));
    return rows.map((row) => ({
      kind: 'risk',
      id: row.id,
      title: `${row.name} (acceptance runs out)`,
      due_date: String(row.due_date),
      status: 'ACCEPTED',
      done_status: 'RENEWED',
      owner_person_id: row.owner,
      assignee_user_id: null,
    }));
  },
});

/** Reviews coming due of a register with review cycles, one item per distinct owner (a vendor has two). */
function reviewDueSource(kind: string, cycle: ReviewCycle): DueSource {
  return {
    kind: `${kind}_review`,
    async query(ctx, organizationId, until) {
      const owners = Object.fromEntries(cycle.owners.map((column, at) => [`owner${at}`, column]));
      const rows = (await ctx.db
        .select({ id: cycle.table.id, title: cycle.title, due_date: cycle.next, ...owners })
        .from(cycle.table)
        .where(
          and(eq(cycle.table.organization_id, organizationId), reviewDueBefore(cycle, until, true)),
        )) as Record<string, unknown>[];
      return rows.flatMap((row) => {
        const people = new Set(
          cycle.owners.map((_, at) => row[`owner${at}`]).filter((id) => typeof id === 'string'),
        );
        return [...people].map((personId) => ({
          kind,
          id: String(row.id),
          title: String(row.title),
          due_date: String(row.due_date),
          status: 'REVIEW_DUE',
          done_status: 'REVIEWED',
          owner_person_id: personId as string,
          assignee_user_id: null,
          review: true as const,
        }));
      });
    },
  };
}

for (const [kind, cycle] of Object.entries(REVIEW_CYCLES) as [string, ReviewCycle][]) {
  if (cycle.owners.length > 0) registerDueSource(reviewDueSource(kind, cycle));
}

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

registerAssignable('task', 'assignee_user_id');
