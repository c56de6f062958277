// Review cycles, a spec piece any register adds (fields, filter, sort, rule): an interval in days, the last review and
// its note, and the next review date, derived from them; markReviewed records a review of any such record in one call.
import { and, isNotNull, lt, lte, notInArray, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import {
  documents,
  dpias,
  measures,
  processingActivities,
  requirements,
  risks,
  vendors,
} from '../db/schema.ts';
import { invalidArguments } from '../errors.ts';
import { dateSchema, longText } from './fields.ts';
import { addDays, dueState } from './overdue.ts';
import type { OrderField } from './pagination.ts';
import { derived, type FieldSpec, type FilterSpec, filter, optional, type Row } from './registers/spec.ts';

/** What a register with review cycles declares: its table, next-review column, owners and retired states. */
export interface ReviewCycle {
  table: SQLiteTable & { id: SQLiteColumn; organization_id: SQLiteColumn };
  /** The record's name as people read it (notifications, my work). */
  title: SQLiteColumn;
  next: SQLiteColumn;
  /** Person columns (`per_...`) whose people are asked to review (myWork): owner_id, a vendor's two owners. */
  owners: SQLiteColumn[];
  /** Records no longer reviewed (a closed risk, a retired document): this column in these values; never due. */
  retired?: { column: SQLiteColumn; values: readonly string[] };
}

/** The registers with review cycles, by kind: the one list the specs, summary, my work and notifications read. */
export const REVIEW_CYCLES = {
  risk: {
    table: risks,
    title: risks.name,
    next: risks.next_review_on,
    owners: [risks.owner_id],
    retired: { column: risks.status, values: ['CLOSED'] },
  },
  vendor: {
    table: vendors,
    title: vendors.name,
    next: vendors.next_review_on,
    owners: [vendors.business_owner_id, vendors.security_owner_id],
  },
  measure: {
    table: measures,
    title: measures.name,
    next: measures.next_review_on,
    owners: [measures.owner_id],
    retired: { column: measures.state, values: ['NOT_APPLICABLE'] },
  },
  requirement: {
    table: requirements,
    title: requirements.title,
    next: requirements.next_review_on,
    owners: [],
    retired: { column: requirements.applicability, values: ['EXCLUDED'] },
  },
  document: {
    table: documents,
    title: documents.title,
    next: documents.next_review_on,
    owners: [documents.owner_id],
    retired: { column: documents.status, values: ['RETIRED'] },
  },
  processing_activity: {
    table: processingActivities,
    title: processingActivities.name,
    next: processingActivities.next_review_on,
    owners: [processingActivities.owner_id],
  },
  dpia: {
    table: dpias,
    title: dpias.title,
    next: dpias.next_review_on,
    owners: [dpias.owner_id],
  },
} as const satisfies Record<string, ReviewCycle>;

/** SQL: the record is still reviewed (not closed, retired, not applicable or excluded); undefined when always. */
export function stillReviewed(cycle: ReviewCycle): SQL | undefined {
  return cycle.retired ? notInArray(cycle.retired.column, [...cycle.retired.values]) : undefined;
}

/** SQL: a review is due before `date` (or on it, with `inclusive`), for a record still reviewed. */
export function reviewDueBefore(cycle: ReviewCycle, date: string, inclusive = false): SQL {
  return and(
    isNotNull(cycle.next),
    inclusive ? lte(cycle.next, date) : lt(cycle.next, date),
    stillReviewed(cycle),
  ) as SQL;
}

export const MAX_REVIEW_INTERVAL_DAYS = 3660;

/** The review fields of a register (the table spreads `reviewColumns()` of src/db/schema.ts). */
export function reviewFields(): Record<string, FieldSpec> {
  return {
    review_interval_days: optional(
      z.number().int().min(1).max(MAX_REVIEW_INTERVAL_DAYS).describe('Review every this many days.'),
      undefined,
      { label: 'Review every (days)', hint: 'Sets the next review date from the last review.' },
    ),
    last_reviewed_on: optional(dateSchema.describe('Last review date; markReviewed sets it.'), undefined, {
      label: 'Last reviewed on',
    }),
    last_review_note: optional(longText(2000).describe('Note of the last review.'), undefined, {
      label: 'Review note',
    }),
    next_review_on: optional(
      dateSchema.describe('Next review date; with an interval, derived from the last review.'),
      undefined,
      { label: 'Next review on', hint: 'With an interval, it follows from the last review.' },
    ),
    review_overdue: derived(
      z.boolean().describe('Derived: next_review_on is before today (never once closed or retired).'),
      {
        label: 'Review overdue',
      },
    ),
  };
}

/** The `review_due_before` list filter: records still reviewed whose next review date is before the given date. */
export function reviewFilters(cycle: ReviewCycle): Record<string, FilterSpec> {
  return {
    review_due_before: filter(
      dateSchema.describe(
        'Only those with next_review_on before this date (today: overdue); closed or retired ones left out.',
      ),
      (value) => reviewDueBefore(cycle, value),
    ),
  };
}

export const reviewOrderField = (next: SQLiteColumn): Record<string, OrderField> => ({
  next_review_on: { column: next, nullable: true },
});

/** The derived review field of a record as the tools answer it: its next review is before today, unless retired. */
export function reviewOverdue(row: Row, today: string, cycle: ReviewCycle): boolean {
  if (cycle.retired?.values.includes(String(row[cycle.retired.column.name]))) return false;
  return dueState(row.next_review_on, today) === 'overdue';
}

/**
 * Fills next_review_on from the change. With an interval: the last review + the interval (a different next_review_on
 * given is refused, it would be overwritten); never reviewed, the first review is the date given, else the date it
 * had while the interval stays, else one interval from today. Without an interval: what the caller sets.
 */
export function settleReview(next: Row, current: Row | null, given: Row, today: string): void {
  const interval = next.review_interval_days;
  if (typeof interval !== 'number') return;
  const asked = given.next_review_on;
  if (typeof next.last_reviewed_on === 'string') {
    const derived = addDays(next.last_reviewed_on, interval);
    if (typeof asked === 'string' && asked !== derived) {
      throw invalidArguments(
        `next_review_on follows from last_reviewed_on + review_interval_days (${derived}). Clear review_interval_days to set another date.`,
        [{ path: 'next_review_on', message: `Derived: ${derived}` }],
      );
    }
    next.next_review_on = derived;
    return;
  }
  if (typeof asked === 'string') return;
  const sameInterval = current !== null && current.review_interval_days === interval;
  if (!(sameInterval && typeof current.next_review_on === 'string'))
    next.next_review_on = addDays(today, interval);
}
