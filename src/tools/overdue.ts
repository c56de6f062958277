// `overdue`: a due date before today on a record not yet in its done state; as a SQL filter and as a field.
import { and, isNotNull, lt, ne, not, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { type FilterSpec, filter, type Row } from './registers/spec.ts';

/** SQL: the due date is before `today` and the status is not `done`. */
export function overdueCondition(
  dueColumn: SQLiteColumn,
  statusColumn: SQLiteColumn,
  done: string,
  today: string,
): SQL {
  return and(isNotNull(dueColumn), lt(dueColumn, today), ne(statusColumn, done)) as SQL;
}

export function overdueFilter(dueColumn: SQLiteColumn, statusColumn: SQLiteColumn, done: string): FilterSpec {
  return filter(
    z.boolean().describe(`true: only overdue ones (due date passed, not ${done}); false: the others.`),
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
  done: string,
  today: string,
): boolean {
  const due = row[dueField];
  return typeof due === 'string' && due < today && row[statusField] !== done;
}

export const overdueOutput = (done: string) =>
  z.boolean().describe(`Derived: due date is before today and status is not ${done}.`);
