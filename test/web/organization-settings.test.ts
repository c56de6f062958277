// The organization settings page: every member reads the time zone, regimes and privacy contact; owners and admins
// change them through updateOrganizationSettings (an unknown time zone is refused on the form, nothing saved).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRuntime } from '../helpers.ts';
import { ok } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, type WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];
let runtime: TestRuntime;
let client: WebClient;
let organizationId: string;
let token: string;

beforeAll(async () => {
  ({ runtime, client, organizationId, token } = await signedUpRuntime(runtimes));
});

afterAll(async () => {
  for (const item of runtimes) await item.cleanup();
});

describe('organization settings in the web', () => {
  it('shows the defaults, saves a time zone, regimes and contact, and refuses an unknown zone', async () => {
    const page = await client.get(`/orgs/${organizationId}/settings`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('value="UTC"');
    expect(page.html).toMatch(/id="regime-GDPR"[^>]*checked/);
    expect(page.html).not.toMatch(/id="regime-NIS2"[^>]*checked/);
    expect(page.html).toMatch(/id="reacknowledge-NEVER"[^>]*checked/);

    const refused = await client.post(`/orgs/${organizationId}/settings`, {
      _csrf: csrfOf(page.html),
      time_zone: 'Mars/Olympus_Mons',
      incident_regimes: 'NIS2',
      privacy_contact: '',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain('Expected an IANA time zone such as Europe/Paris or UTC');
    // The form keeps what was typed.
    expect(refused.html).toContain('value="Mars/Olympus_Mons"');
    const unchanged = await ok(runtime, token, 'getOrganizationSettings', {
      organization_id: organizationId,
    });
    expect((unchanged.settings as Record<string, unknown>).time_zone).toBe('UTC');

    const saved = await client.post(`/orgs/${organizationId}/settings`, {
      _csrf: csrfOf(page.html),
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
      privacy_contact: 'Acme SAS, DPO: dpo@acme.example',
      reacknowledge_on: 'MAJOR_ONLY',
    });
    expect(saved.status).toBe(303);
    const read = await ok(runtime, token, 'getOrganizationSettings', { organization_id: organizationId });
    expect(read.settings).toMatchObject({
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
      privacy_contact: 'Acme SAS, DPO: dpo@acme.example',
      reacknowledge_on: 'MAJOR_ONLY',
    });
    const again = await client.get(`/orgs/${organizationId}/settings`);
    expect(textOf(again.html)).toContain('Settings saved.');
    expect(again.html).toMatch(/id="regime-NIS2"[^>]*checked/);
    expect(again.html).toMatch(/id="reacknowledge-MAJOR_ONLY"[^>]*checked/);
  });

  it('shows the risk method, saves a 4 x 4 method with its levels, re-derives levels, and refuses a bad one', async () => {
    const page = await client.get(`/orgs/${organizationId}/settings`);
    expect(page.html).toContain('Very low\nLow\nMedium\nHigh\nVery high</textarea>');
    expect(page.html).toContain('low, 1, GREEN\nmedium, 8, AMBER\nhigh, 15, RED</textarea>');
    const risk = await ok(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Supplier outage',
      inherent_likelihood: 3,
      inherent_impact: 3,
    });
    const riskId = String((risk.risk as Record<string, unknown>).id);

    const refused = await client.post(`/orgs/${organizationId}/settings/risk-method`, {
      _csrf: csrfOf(page.html),
      likelihood: 'Rare\nPossible\nLikely\nAlmost certain',
      impact: 'Minor\nModerate\nMajor\nSevere',
      levels: 'low, 1, GREEN\nhigh, 1, RED',
      appetite: 'low',
    });
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain('Must be above 1 (the level before it)');
    // The form keeps what was typed; nothing changed.
    expect(refused.html).toContain('low, 1, GREEN\nhigh, 1, RED</textarea>');
    const before = await ok(runtime, token, 'getOrganizationSettings', { organization_id: organizationId });
    expect(
      (before.settings as { risk_method: { likelihood: string[] } }).risk_method.likelihood,
    ).toHaveLength(5);

    const saved = await client.post(`/orgs/${organizationId}/settings/risk-method`, {
      _csrf: csrfOf(page.html),
      likelihood: 'Rare\n Possible \n\nLikely\nAlmost certain',
      impact: 'Minor\nModerate\nMajor\nSevere',
      levels: 'low, 1, green\nmedium, 5, amber\nhigh, 9, red',
      appetite: 'Low',
    });
    expect(saved.status).toBe(303);
    const read = await ok(runtime, token, 'getOrganizationSettings', { organization_id: organizationId });
    expect((read.settings as { risk_method: unknown }).risk_method).toMatchObject({
      likelihood: ['Rare', 'Possible', 'Likely', 'Almost certain'],
      impact: ['Minor', 'Moderate', 'Major', 'Severe'],
      levels: [
        { name: 'low', min_score: 1, colour: 'GREEN' },
        { name: 'medium', min_score: 5, colour: 'AMBER' },
        { name: 'high', min_score: 9, colour: 'RED' },
      ],
      appetite: 'low',
    });
    // 3 x 3 = 9: high under the new levels (medium under the default 5 x 5).
    const after = await ok(runtime, token, 'getRisk', { id: riskId });
    expect((after.risk as Record<string, unknown>).inherent_level).toBe('high');
    const again = await client.get(`/orgs/${organizationId}/settings`);
    expect(textOf(again.html)).toContain('Risk method saved');
  });
});
