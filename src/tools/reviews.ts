// Review cycles, a spec piece any register adds (fields, filter, sort, rule): an interval in days, the last review and
// its note, and the next review date, derived from them; markReviewed records a review of any such record in one call.
import { and, isNotNull, lt } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { invalidArguments } from '../errors.ts';
import { dateSchema, longText } from './fields.ts';
import { addDays, dueState } from './overdue.ts';
import type { OrderField } from './pagination.ts';
import { derived, type FieldSpec, type FilterSpec, filter, optional, type Row } from './registers/spec.ts';

/** What a register with review cycles declares: its next-review column and the columns naming its owners. */
export interface ReviewCycle {
  next: SQLiteColumn;
  /** Person columns (`per_...`) whose people are asked to review (myWork): owner_id, a vendor's two owners. */
  owners: SQLiteColumn[];
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
    review_overdue: derived(z.boolean().describe('Derived: next_review_on is before today.'), {
      label: 'Review overdue',
    }),
  };
}

/** The `review_due_before` list filter: records whose next review date is before the given date. */
export function reviewFilters(next: SQLiteColumn): Record<string, FilterSpec> {
  return {
    review_due_before: filter(
      dateSchema.describe('Only those with next_review_on before this date (today: overdue).'),
      (value) => and(isNotNull(next), lt(next, value)),
    ),
  };
}

export const reviewOrderField = (next: SQLiteColumn): Record<string, OrderField> => ({
  next_review_on: { column: next, nullable: true },
});

/** The derived review field of a record as the tools answer it: review_overdue, its next review is before today. */
export function reviewOverdue(row: Row, today: string): boolean {
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
