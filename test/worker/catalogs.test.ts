// The built-in catalogues on the Worker host, inside workerd: the catalogue files are lazily imported modules of the
// Worker bundle; adopting ISO/IEC 27001:2022 and SOC 2 writes their trees over the libSQL HTTP client, idempotently,
// and the crosswalk proposes a mapping by reference as on Node.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { type ContractHost, ok } from '../contract/host.ts';
import { cliTokenService, testDatabase, world } from './helpers.ts';

const host: ContractHost = { fetch: (request) => exports.default.fetch(request), world };

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: number;
}

describe('built-in catalogues on the Worker', () => {
  it('lists the catalogues, adopts ISO 27001 twice without duplicates, then SOC 2 with a proposal', async () => {
    const database = testDatabase();
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email: `catalogs-${crypto.randomUUID()}@example.com`,
      password: 'correct horse battery staple',
    });
    const org = (
      await createOrganization(database.db, new Date(), { name: 'Worker Catalogs', ownerId: user.id })
    ).id;
    const { token } = await cliTokenService(database).create({
      userId: user.id,
      name: 'worker catalogs',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    database.client.close();

    const listed = await ok<{ catalogs: { key: string; requirements: number }[] }>(
      host,
      token,
      'listCatalogs',
      {},
    );
    expect(listed.catalogs.map((item) => [item.key, item.requirements]).slice(0, 2)).toEqual([
      ['iso-27001-2022', 123],
      ['soc2-2017', 61],
    ]);

    type Adopted = { framework: { id: string; name: string }; counts: Counts; proposals: unknown };
    const iso = await ok<Adopted>(host, token, 'importFrameworkCatalog', {
      catalog: 'iso-27001-2022',
      organization_id: org,
    });
    expect([iso.framework.name, iso.counts.created]).toEqual(['ISO/IEC 27001:2022', 138]);
    const again = await ok<Adopted>(host, token, 'importFrameworkCatalog', {
      catalog: 'iso-27001-2022',
      organization_id: org,
    });
    expect([again.framework.id, again.counts.created, again.counts.unchanged]).toEqual([
      iso.framework.id,
      0,
      138,
    ]);

    const measure = await ok<{ measure: { id: string } }>(host, token, 'addMeasure', {
      organization_id: org,
      name: 'Multi-factor authentication',
    });
    await ok(host, token, 'linkRequirementMeasure', {
      requirement: { framework: 'iso-27001-2022', reference: 'A.8.5' },
      measure_id: measure.measure.id,
    });
    const soc = await ok<Adopted>(host, token, 'importFrameworkCatalog', {
      catalog: 'soc2-2017',
      organization_id: org,
    });
    expect([soc.counts.created, soc.proposals]).toEqual([81, { created: 2, pending: 2 }]);
  });
});
