// Reads as of a date on the Worker (libSQL over HTTP): the rebuild's SQL (json_each, indexed by, the filter run over a
// common table expression named as the table) answers there as on the Node host.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE } from '../contract/host.ts';
import { ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

let token = '';

async function call(tool: string, args: Row): Promise<{ status: number; body: Row }> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return { status: response.status, body: (await response.json()) as Row };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('reads as of a date on the Worker', () => {
  it('rebuilds a risk, a filtered page and the heat map as they stood before an update', async () => {
    // An organization of its own: no other test changes its risks between the reads compared.
    const owned = await ownedOrganization(testDatabase(), 'asof');
    const org = owned.organizationId;
    token = owned.token;
    const name = `Worker as-of ${crypto.randomUUID().slice(0, 8)}`;
    const risk = (
      await call('addRisk', { organization_id: org, name, inherent_likelihood: 2, inherent_impact: 3 })
    ).body.risk as Row;
    await pause();
    const before = new Date().toISOString();
    const heatBefore = (await call('getRiskHeatMap', { organization_id: org })).body;
    await pause();
    await call('updateRisk', { id: risk.id, name: `${name} renamed`, status: 'CLOSED' });

    const then = await call('getRisk', { id: risk.id, as_of: before });
    expect(then.status).toBe(200);
    expect([(then.body.risk as Row).name, (then.body.risk as Row).status]).toEqual([name, 'OPEN']);
    const page = await call('listRisks', {
      organization_id: org,
      filter: { status: 'OPEN', query: name },
      as_of: before,
    });
    expect(page.status).toBe(200);
    expect((page.body.risks as Row[]).map((item) => item.id)).toEqual([risk.id]);
    const heat = await call('getRiskHeatMap', { organization_id: org, as_of: before });
    expect(heat.status).toBe(200);
    expect([heat.body.inherent, heat.body.open_risks]).toEqual([heatBefore.inherent, heatBefore.open_risks]);
  });
});
