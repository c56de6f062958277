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
    });
    expect(saved.status).toBe(303);
    const read = await ok(runtime, token, 'getOrganizationSettings', { organization_id: organizationId });
    expect(read.settings).toMatchObject({
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
      privacy_contact: 'Acme SAS, DPO: dpo@acme.example',
    });
    const again = await client.get(`/orgs/${organizationId}/settings`);
    expect(textOf(again.html)).toContain('Settings saved.');
    expect(again.html).toMatch(/id="regime-NIS2"[^>]*checked/);
  });
});
