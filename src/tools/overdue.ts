// "Overdue" and "due within N days", computed one way for tools, pages, emails and webhooks: a date is overdue when
// it is before today, and today is the calendar date in the reader's time zone (UTC unless the account sets one).
import { and, isNotNull, lt, lte, ne, not, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { type FilterSpec, filter, type Row } from './registers/spec.ts';
import type { ToolContext } from './types.ts';

export const DEFAULT_TIME_ZONE = 'UTC';

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** True for a time zone name the runtime knows (IANA, e.g. `Europe/Paris`, or `UTC`). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    formatIn(name);
    return true;
  } catch {
    return false;
  }
}

/** The calendar date (YYYY-MM-DD) and hour (0-23) at `now` in a known `timeZone`. */
export function localTime(now: Date, timeZone: string): { date: string; hour: number } {
  const parts = Object.fromEntries(
    formatIn(timeZone)
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
}

/** The calendar date (YYYY-MM-DD) at `now` in `timeZone` (UTC when none or unknown). */
export function todayIn(now: Date, timeZone: string | null | undefined = DEFAULT_TIME_ZONE): string {
  const zone = timeZone && isTimeZone(timeZone) ? timeZone : DEFAULT_TIME_ZONE;
  if (zone === DEFAULT_TIME_ZONE) return now.toISOString().slice(0, 10);
  return localTime(now, zone).date;
}

export function todayOf(ctx: Pick<ToolContext, 'now' | 'principal'>): string {
  return todayIn(ctx.now(), ctx.principal.timeZone);
}

/** A date (YYYY-MM-DD) moved by a number of days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export type DueState = 'overdue' | 'due_soon' | null;

/**
 * Where a date stands from `today`: `overdue` before today, `due_soon` from today to `withinDays` days later
 * (inclusive), else null (no date, or later).
 */
export function dueState(due: unknown, today: string, withinDays = 0): DueState {
  if (typeof due !== 'string' || due === '') return null;
  if (due < today) return 'overdue';
  return due <= addDays(today, withinDays) ? 'due_soon' : null;
}

/** SQL: the date is set and before `today` (overdue), or on or before the last day `withinDays` from today. */
export function dueCondition(dateColumn: SQLiteColumn, today: string, withinDays?: number): SQL {
  return and(
    isNotNull(dateColumn),
    withinDays === undefined ? lt(dateColumn, today) : lte(dateColumn, addDays(today, withinDays)),
  ) as SQL;
}

/** SQL: the due date is before `today` and the status is not `done`. */
export function overdueCondition(
  dueColumn: SQLiteColumn,
  statusColumn: SQLiteColumn,
  done: string | readonly string[],
  today: string,
): SQL {
  const open = (typeof done === 'string' ? [done] : done).map((state) => ne(statusColumn, state));
  return and(dueCondition(dueColumn, today), ...open) as SQL;
}

const doneWords = (done: string | readonly string[]) => (typeof done === 'string' ? done : done.join(' or '));

export function overdueFilter(
  dueColumn: SQLiteColumn,
  statusColumn: SQLiteColumn,
  done: string | readonly string[],
): FilterSpec {
  return filter(
    z
      .boolean()
      .describe(`true: only overdue ones (due date passed, not ${doneWords(done)}); false: the others.`),
    (value, today) => {
      const overdue = overdueCondition(dueColumn, statusColumn, done, today);
      return value ? overdue : not(overdue);
    },
  );
}

export function isOverdue(
  row: Row,
  dueField: string,
  statusField: string,
  done: string | readonly string[],
  today: string,
): boolean {
  const closed = typeof done === 'string' ? [done] : done;
  return dueState(row[dueField], today) === 'overdue' && !closed.includes(String(row[statusField]));
}

export const overdueOutput = (done: string | readonly string[]) =>
  z.boolean().describe(`Derived: due date is before today and status is not ${doneWords(done)}.`);
