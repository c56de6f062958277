// Contract: keyset pagination without duplicates or gaps under inserts, size bounds, cursor checks.
import { beforeAll, describe, expect, it } from 'vitest';
import { type ContractHost, callDirect, errorOf, type HostRef, ok } from './host.ts';

const ORIGINALS = 25;

type Page = { vendors: { id: string; name: string }[]; next_cursor: string | null; total_count: number };

function page(host: ContractHost, args: Record<string, unknown>): Promise<Page> {
  return ok<Page>(host, host.world.tokens.alicePaging, 'listVendors', {
    organization_id: host.world.orgPaging,
    ...args,
  });
}

async function addVendor(host: ContractHost, name: string): Promise<string> {
  const result = await ok<{ vendor: { id: string } }>(host, host.world.tokens.alicePaging, 'addVendor', {
    organization_id: host.world.orgPaging,
    name,
  });
  return result.vendor.id;
}

export function describePaginationContract(hostRef: HostRef): void {
  describe('pagination', () => {
    const originals: string[] = [];

    beforeAll(async () => {
      const host = hostRef();
      for (let i = 0; i < ORIGINALS; i++)
        originals.push(await addVendor(host, `Vendor ${String(i).padStart(2, '0')}`));
    });

    it('defaults to 20 per page, newest first, with total_count over all pages', async () => {
      const first = await page(hostRef(), { filter: { query: 'Vendor ' } });
      expect(first.vendors).toHaveLength(20);
      expect(first.total_count).toBe(ORIGINALS);
      expect(first.vendors[0]?.id).toBe(originals.at(-1));
      expect(first.next_cursor).toEqual(expect.any(String));
    });

    it('walks every page without duplicates or gaps while rows are inserted between pages', async () => {
      const host = hostRef();
      for (const order of [
        undefined,
        { field: 'name', direction: 'ASC' },
        { field: 'created_at', direction: 'ASC' },
      ]) {
        const seen: string[] = [];
        const inserted: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const result = await page(host, { size: 7, cursor, ...(order ? { order_by: order } : {}) });
          seen.push(...result.vendors.map((vendor) => vendor.id));
          cursor = result.next_cursor ?? undefined;
          pages += 1;
          // Names that sort before and after everything, inserted mid-walk.
          inserted.push(
            await addVendor(host, `AAA inserted ${pages}`),
            await addVendor(host, `zzz inserted ${pages}`),
          );
        } while (cursor && pages < 30);
        expect(new Set(seen).size, `duplicates with order ${JSON.stringify(order)}`).toBe(seen.length);
        expect(
          originals.filter((id) => !seen.includes(id)),
          `gaps with order ${JSON.stringify(order)}`,
        ).toEqual([]);
        for (const id of inserted) await ok(host, host.world.tokens.alicePaging, 'deleteVendor', { id });
      }
    });

    it('finds accented names from a query without accents, and the reverse (filter.query folds accents)', async () => {
      const host = hostRef();
      const id = await addVendor(host, 'Sécurité Ærø Fournisseur');
      try {
        for (const query of ['securite', 'SÉCURITÉ', 'fournisseur', 'cu', 'ÉC']) {
          const found = await page(host, { size: 100, filter: { query } });
          expect(
            found.vendors.map((vendor) => vendor.name),
            query,
          ).toEqual(['Sécurité Ærø Fournisseur']);
        }
      } finally {
        await ok(host, host.world.tokens.alice, 'deleteVendor', { id });
      }
    });

    it('sorts by name in the asked direction and ends with next_cursor null', async () => {
      const host = hostRef();
      const ascending = await page(host, {
        size: 3,
        order_by: { field: 'name', direction: 'asc' },
        filter: { query: 'Vendor' },
      });
      expect(ascending.vendors.map((vendor) => vendor.name)).toEqual(['Vendor 00', 'Vendor 01', 'Vendor 02']);
      const all = await page(host, { size: 100, filter: { query: 'Vendor ' } });
      expect(all.vendors).toHaveLength(ORIGINALS);
      expect(all.next_cursor).toBeNull();
    });

    it.each([0, 101, -1, 2.5, '10'])('refuses size %s as invalid_arguments naming size', async (size) => {
      const host = hostRef();
      const result = await callDirect(host, host.world.tokens.alicePaging, 'listVendors', {
        organization_id: host.world.orgPaging,
        size,
      });
      expect(result.status).toBe(400);
      expect(errorOf(result).code).toBe('invalid_arguments');
      expect(JSON.stringify(errorOf(result).details)).toContain('size');
    });

    it('refuses a malformed cursor', async () => {
      const host = hostRef();
      const result = await callDirect(host, host.world.tokens.alicePaging, 'listVendors', {
        organization_id: host.world.orgPaging,
        cursor: 'not-a-cursor',
      });
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'cursor' }] });
    });
  });
}
