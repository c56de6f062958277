// `expired`: a validity end date before today; as a SQL filter and as a field (evidence's valid_until).
import { and, isNotNull, lt, not, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { type FilterSpec, filter, type Row } from './registers/spec.ts';

/** SQL: the validity ended before `today`. */
export function expiredCondition(validUntil: SQLiteColumn, today: string): SQL {
  return and(isNotNull(validUntil), lt(validUntil, today)) as SQL;
}

export function expiredFilter(validUntil: SQLiteColumn): FilterSpec {
  return filter(
    z.boolean().describe('true: only expired ones (valid_until before today); false: the others.'),
    (value, today) => {
      const expired = expiredCondition(validUntil, today);
      return value ? expired : not(expired);
    },
  );
}

export function isExpired(row: Row, field: string, today: string): boolean {
  const until = row[field];
  return typeof until === 'string' && until < today;
}
