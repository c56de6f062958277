// A list page without filters runs statements rendered once per shape, their values filled in: for every register,
// sort field, direction, cursor position and count, they are the statements built for the page itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeDatabase } from '../../src/db/open-node.ts';
import { REGISTERS } from '../../src/tools/index.ts';
import {
  type CursorPayload,
  type Direction,
  orderIndexName,
  pageRanges,
  TOTAL_COUNT_CAP,
} from '../../src/tools/pagination.ts';
import { orderFieldsOf } from '../../src/tools/registers/spec.ts';
import {
  builtStatements,
  type ListPage,
  unfilteredStatements,
} from '../../src/tools/registers/text-pages.ts';
import type { ToolContext } from '../../src/tools/types.ts';

let dir: string;
let ctx: ToolContext;
let close: () => void;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-list-statements-'));
  const database = await openNodeDatabase(`file:${join(dir, 'x.db')}`);
  ctx = { db: database.db } as unknown as ToolContext;
  close = () => database.client.close();
});

afterAll(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

const cursorAt = (v: string | number | null, i: string): CursorPayload =>
  ({ l: 'x', f: 'x', d: 'DESC', v, i, t: 5, c: false, h: 'h' }) as CursorPayload;

describe('unfiltered list statements', () => {
  it('equal the statements built for each page, in every shape and with other values each time', () => {
    let compared = 0;
    for (const { records, spec } of Object.values(REGISTERS)) {
      for (const [fieldName, orderField] of Object.entries(orderFieldsOf(spec))) {
        for (const direction of ['ASC', 'DESC'] as Direction[]) {
          for (const cursor of [
            null,
            cursorAt(typeof orderField.column.dataType === 'string' ? 'b' : 3, 'rsk_2'),
            cursorAt(7, 'rsk_9'),
            cursorAt(null, 'rsk_3'),
            cursorAt('', 'rsk_4'),
          ]) {
            for (const carried of [null, { total: 5, capped: false }]) {
              for (const [organizationId, size] of [
                ['org_a', 20],
                ['org_b', 7],
              ] as const) {
                const page: ListPage = {
                  organizationId,
                  orderField,
                  orderIndex: orderIndexName(records.table, orderField.column),
                  fieldName,
                  direction,
                  filtered: and(eq(records.table.organization_id, organizationId), undefined),
                  countFiltered: and(eq(records.table.organization_id, organizationId), undefined),
                  filters: undefined,
                  size,
                  ranges: pageRanges(orderField, records.table.id, direction, cursor),
                  carried,
                  cap: TOTAL_COUNT_CAP,
                  cursor,
                };
                expect(unfilteredStatements(ctx, records, page), `${spec.kind} ${fieldName}`).toEqual(
                  builtStatements(ctx, records, page, undefined),
                );
                compared += 1;
              }
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
    // Nullable sort fields (two ranges, cursors on a NULL) are among them.
    const nullable = Object.values(REGISTERS).flatMap(({ spec }) =>
      Object.entries(orderFieldsOf(spec)).filter(([, field]) => field.nullable),
    );
    expect(nullable.length).toBeGreaterThan(0);
  });
});
