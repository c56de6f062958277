// Keyset pagination: opaque cursors over (order expression, id), stable while rows are inserted.
import { and, asc, desc, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { invalidArguments } from '../errors.ts';

export type Direction = 'ASC' | 'DESC';

export interface OrderField {
  column: SQLiteColumn;
  /** Nullable text columns sort as '' so the keyset comparison stays total. */
  nullable?: boolean;
}

interface CursorPayload {
  f: string;
  d: Direction;
  v: string | number;
  i: string;
}

const CursorSchema = z.object({
  f: z.string(),
  d: z.enum(['ASC', 'DESC']),
  v: z.union([z.string(), z.number()]),
  i: z.string(),
});

export function orderExpression(field: OrderField): SQL {
  return field.nullable ? sql`ifnull(${field.column}, '')` : sql`${field.column}`;
}

export function encodeCursor(payload: CursorPayload): string {
  const json = JSON.stringify(payload);
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export function decodeCursor(cursor: string, field: string, direction: Direction): CursorPayload {
  let payload: CursorPayload;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    payload = CursorSchema.parse(JSON.parse(json));
  } catch {
    throw invalidArguments('The cursor is not valid. Pass `next_cursor` from the previous page unchanged.', [
      { path: 'cursor', message: 'Malformed cursor' },
    ]);
  }
  if (payload.f !== field || payload.d !== direction) {
    throw invalidArguments(
      'The cursor belongs to a different order_by. Keep order_by the same across pages.',
      [{ path: 'cursor', message: `Cursor was made for order_by ${payload.f} ${payload.d}` }],
    );
  }
  return payload;
}

/** WHERE part that starts after the cursor row. */
export function afterCursor(
  field: OrderField,
  idColumn: SQLiteColumn,
  cursor: CursorPayload,
): SQL | undefined {
  const expression = orderExpression(field);
  const beyond = cursor.d === 'ASC' ? gt : lt;
  return or(beyond(expression, cursor.v), and(eq(expression, cursor.v), beyond(idColumn, cursor.i)));
}

export function orderBy(field: OrderField, idColumn: SQLiteColumn, direction: Direction): SQL[] {
  const by = direction === 'ASC' ? asc : desc;
  return [by(orderExpression(field)), by(idColumn)];
}

export function cursorValue(field: OrderField, row: Record<string, unknown>): string | number {
  const value = row[field.column.name];
  if (value === null || value === undefined) return '';
  return typeof value === 'number' ? value : String(value);
}
