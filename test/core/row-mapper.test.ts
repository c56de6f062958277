// The row mapper made once per selection (src/db/rows.ts) maps a client's rows as drizzle maps them: JSON columns
// parsed, NULL as null, other values as they are; SQL with mapWith decoded by its column.
import { getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowMapper } from '../../src/db/rows.ts';
import { apiTokens } from '../../src/db/schema.ts';
import { createTestRuntime, createToken, createWorld, type TestRuntime, type World } from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  await createToken(runtime, world.alice, { organizationIds: [world.orgA], expiresAt: null });
});

afterAll(async () => runtime.cleanup());

describe('rowMapper', () => {
  it('maps the rows of a selection as drizzle does, JSON and NULL columns included', async () => {
    const columns = getTableColumns(apiTokens);
    const selection = {
      ...columns,
      organization_ids_again: sql`${apiTokens.organization_ids}`.mapWith(apiTokens.organization_ids),
      name_length: sql<number>`length(${apiTokens.name})`,
    };
    const { db } = runtime.database;
    const byDrizzle = await db.select(selection).from(apiTokens).orderBy(apiTokens.id);
    const values = (await db
      .select(selection)
      .from(apiTokens)
      .orderBy(apiTokens.id)
      .values()) as unknown as ArrayLike<unknown>[];
    const mapped = values.map(rowMapper(selection));
    expect(mapped).toEqual(byDrizzle);
    const restricted = mapped.find((row) => Array.isArray(row.organization_ids));
    expect(restricted?.organization_ids).toEqual([world.orgA]);
    expect(restricted?.organization_ids_again).toEqual([world.orgA]);
    expect(mapped.some((row) => row.expires_at === null)).toBe(true);
    expect(mapped.every((row) => typeof row.name_length === 'number')).toBe(true);
  });
});
