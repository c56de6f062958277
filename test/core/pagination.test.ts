// Keyset pagination: pages without duplicates while rows are inserted, size bounds, order_by, cursor checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callDirect,
  createTestRuntime,
  createToken,
  createWorld,
  errorOf,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;
const originals: string[] = [];

type Page = { vendors: { id: string; name: string }[]; next_cursor: string | null; total_count: number };

beforeAll(async () => {
  runtime = await createTestRuntime();
  world = await createWorld(runtime);
  for (let i = 0; i < 45; i++) {
    const name = `Vendor ${String(i).padStart(2, '0')}`;
    const result = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
      organization_id: world.orgA,
      name,
    });
    originals.push(result.vendor.id);
  }
});

afterAll(async () => runtime.cleanup());

async function page(args: Record<string, unknown>): Promise<Page> {
  return ok<Page>(runtime, world.aliceToken, 'listVendors', { organization_id: world.orgA, ...args });
}

async function addVendor(name: string): Promise<string> {
  const result = await ok<{ vendor: { id: string } }>(runtime, world.aliceToken, 'addVendor', {
    organization_id: world.orgA,
    name,
  });
  return result.vendor.id;
}

describe('pagination', () => {
  it('defaults to 20 per page, newest first, with total_count over all pages', async () => {
    const first = await page({});
    expect(first.vendors).toHaveLength(20);
    expect(first.total_count).toBeGreaterThanOrEqual(45);
    expect(first.vendors[0]?.id).toBe(originals.at(-1));
    expect(first.next_cursor).toEqual(expect.any(String));
  });

  it('walks every page without duplicates or gaps while rows are inserted between pages', async () => {
    for (const order of [
      undefined,
      { field: 'name', direction: 'ASC' },
      { field: 'name', direction: 'DESC' },
      { field: 'created_at', direction: 'ASC' },
    ]) {
      const seen: string[] = [];
      const inserted: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const result = await page({ size: 10, cursor, ...(order ? { order_by: order } : {}) });
        seen.push(...result.vendors.map((vendor) => vendor.id));
        cursor = result.next_cursor ?? undefined;
        pages += 1;
        // Names that sort before and after everything, inserted mid-walk.
        inserted.push(await addVendor(`AAA inserted ${pages}`), await addVendor(`zzz inserted ${pages}`));
      } while (cursor && pages < 50);
      expect(new Set(seen).size, `duplicates with order ${JSON.stringify(order)}`).toBe(seen.length);
      for (const id of originals) expect(seen).toContain(id);
      for (const id of inserted) await ok(runtime, world.aliceToken, 'deleteVendor', { id });
    }
  });

  it('sorts by name in the asked direction', async () => {
    const ascending = await page({
      size: 5,
      order_by: { field: 'name', direction: 'asc' },
      filter: { query: 'Vendor' },
    });
    expect(ascending.vendors.map((vendor) => vendor.name)).toEqual([
      'Vendor 00',
      'Vendor 01',
      'Vendor 02',
      'Vendor 03',
      'Vendor 04',
    ]);
    const descending = await page({
      size: 2,
      order_by: { field: 'name', direction: 'DESC' },
      filter: { query: 'Vendor' },
    });
    expect(descending.vendors.map((vendor) => vendor.name)).toEqual(['Vendor 44', 'Vendor 43']);
  });

  it('ends with next_cursor null on the last page', async () => {
    const all = await page({ size: 100, filter: { query: 'Vendor ' } });
    expect(all.vendors).toHaveLength(45);
    expect(all.next_cursor).toBeNull();
    expect(all.total_count).toBe(45);
  });

  it('keeps total_count to the filtered set while paging', async () => {
    const first = await page({ size: 4, filter: { query: 'Vendor 1' } });
    expect(first.total_count).toBe(10);
    const second = await page({ size: 4, filter: { query: 'Vendor 1' }, cursor: first.next_cursor });
    expect(second.total_count).toBe(10);
    expect(second.vendors.map((vendor) => vendor.name).every((name) => name.startsWith('Vendor 1'))).toBe(
      true,
    );
  });

  it.each([0, 101, -1, 2.5, '10'])('refuses size %s as invalid_arguments', async (size) => {
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      size,
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).code).toBe('invalid_arguments');
    expect(JSON.stringify(errorOf(result).details)).toContain('size');
  });

  it('accepts size 1 and 100', async () => {
    expect((await page({ size: 1 })).vendors).toHaveLength(1);
    expect((await page({ size: 100 })).vendors.length).toBeGreaterThanOrEqual(45);
  });

  it('refuses a malformed cursor', async () => {
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      cursor: 'not-a-cursor',
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'cursor' }] });
  });

  it('refuses a cursor made for another order_by', async () => {
    const first = await page({ size: 2 });
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      cursor: first.next_cursor,
      order_by: { field: 'name', direction: 'ASC' },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).message).toMatch(/order_by/);
  });

  it('refuses a cursor made by another list tool, naming it', async () => {
    const first = await page({ size: 2 });
    const result = await callDirect(runtime, world.aliceToken, 'listRisks', {
      organization_id: world.orgA,
      cursor: first.next_cursor,
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'cursor' }] });
    expect(errorOf(result).message).toContain('made by listVendors, not listRisks');
    // A list name that is not one is a malformed cursor, never echoed.
    const payload = JSON.parse(Buffer.from(String(first.next_cursor), 'base64url').toString()) as object;
    const forged = Buffer.from(JSON.stringify({ ...payload, l: '<b>listX</b>' })).toString('base64url');
    const refused = await callDirect(runtime, world.aliceToken, 'listRisks', {
      organization_id: world.orgA,
      cursor: forged,
    });
    expect(errorOf(refused).message).toContain('The cursor is not valid');
    expect(JSON.stringify(errorOf(refused))).not.toContain('<b>');
  });

  it('carries total_count only for the same organization and filter, and never above the cap', async () => {
    const first = await page({ size: 2 });
    const payload = JSON.parse(Buffer.from(String(first.next_cursor), 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({ l: 'listVendors', t: first.total_count });
    // An edited count is held to the cap.
    const forged = Buffer.from(JSON.stringify({ ...payload, t: 99_999_999, c: false })).toString('base64url');
    const capped = await ok<Page & { total_count_capped: boolean }>(
      runtime,
      world.aliceToken,
      'listVendors',
      {
        organization_id: world.orgA,
        size: 2,
        cursor: forged,
      },
    );
    expect(capped.total_count).toBe(1000);
    expect(capped.total_count_capped).toBe(true);
    // Another organization's walk counts its own records. (A token of Bob's own: a test below changes his
    // memberships, which a cached principal of world.bobToken would not see.)
    const bob = await createToken(runtime, world.bob);
    for (const name of ['Beta one', 'Beta two', 'Beta three']) {
      await ok(runtime, bob, 'addVendor', { organization_id: world.orgB, name });
    }
    const other = await ok<Page>(runtime, bob, 'listVendors', {
      organization_id: world.orgB,
      size: 2,
      cursor: first.next_cursor,
    });
    expect(other.total_count).toBe(3);
    expect(first.total_count).toBeGreaterThanOrEqual(45);
  });

  it('refuses an order_by field the register does not sort by', async () => {
    const result = await callDirect(runtime, world.aliceToken, 'listVendors', {
      organization_id: world.orgA,
      order_by: { field: 'website_url' },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).code).toBe('invalid_arguments');
  });

  it('pages through a nullable sort field (obligations by due_date) without losing rows', async () => {
    const dates = ['2026-01-05', null, '2026-03-01', null, '2025-12-31', '2026-03-01', null];
    const ids: string[] = [];
    for (const [index, due_date] of dates.entries()) {
      const result = await ok<{ obligation: { id: string } }>(runtime, world.aliceToken, 'addObligation', {
        organization_id: world.orgA,
        requirement: `Requirement ${index}`,
        due_date,
      });
      ids.push(result.obligation.id);
    }
    for (const direction of ['ASC', 'DESC']) {
      const seen: (string | null)[] = [];
      const seenIds: string[] = [];
      let cursor: string | undefined;
      do {
        const result = await ok<{
          obligations: { id: string; due_date: string | null }[];
          next_cursor: string | null;
        }>(runtime, world.aliceToken, 'listObligations', {
          organization_id: world.orgA,
          size: 2,
          cursor,
          order_by: { field: 'due_date', direction },
        });
        seen.push(...result.obligations.map((obligation) => obligation.due_date));
        seenIds.push(...result.obligations.map((obligation) => obligation.id));
        cursor = result.next_cursor ?? undefined;
      } while (cursor);
      expect(seenIds.sort()).toEqual([...ids].sort());
      const expected =
        direction === 'ASC'
          ? [null, null, null, '2025-12-31', '2026-01-05', '2026-03-01', '2026-03-01']
          : ['2026-03-01', '2026-03-01', '2026-01-05', '2025-12-31', null, null, null];
      expect(seen).toEqual(expected);
    }
  });

  it('pages organizations too', async () => {
    const { createOrganization } = await import('../../src/accounts.ts');
    for (let i = 0; i < 3; i++) {
      await createOrganization(runtime.database.db, new Date(), {
        name: `Extra ${i}`,
        ownerId: world.bob.userId,
      });
    }
    const first = await ok<{ organizations: { name: string }[]; next_cursor: string }>(
      runtime,
      world.bobToken,
      'listOrganizations',
      {
        size: 2,
      },
    );
    const second = await ok<{
      organizations: { name: string }[];
      next_cursor: string | null;
      total_count: number;
    }>(runtime, world.bobToken, 'listOrganizations', { size: 2, cursor: first.next_cursor });
    expect(
      [...first.organizations, ...second.organizations].map((organization) => organization.name),
    ).toEqual(['Beta Corp', 'Extra 0', 'Extra 1', 'Extra 2']);
    expect(second.next_cursor).toBeNull();
    expect(second.total_count).toBe(4);
  });
});
