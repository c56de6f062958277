// The incident page's notification deadlines, and the Art. 30 record of processing activities as XLSX and PDF.
import { describe, expect, it } from 'vitest';
import { readXlsxRows } from '../../src/tools/tables/xlsx-reader.ts';
import { BASE, createTestRuntime, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { pdfText } from '../pdf-text.ts';
import { signUpWithToken, textOf } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup(now = new Date('2026-11-28T10:00:00.000Z')) {
  const runtime = await createTestRuntime({ now: () => now });
  runtimes.push(runtime);
  const signedUp = await signUpWithToken(runtime);
  const download = async (path: string) => {
    const cookie = [...signedUp.client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await runtime.app.request(`${BASE}${path}`, { headers: { cookie } });
    expect(response.status, path).toBe(200);
    return response;
  };
  return { runtime, ...signedUp, download, base: `/orgs/${signedUp.organizationId}` };
}

describe('incident page', () => {
  it('shows each notification deadline in the organization’s time zone, with hours left and a link to record it', async () => {
    const { runtime, token, organizationId, client, base } = await setup();
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: organizationId,
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
    });
    const { incident } = await ok<{ incident: { id: string } }>(runtime, token, 'addIncident', {
      organization_id: organizationId,
      title: 'Customer database exposed',
      detected_at: '2026-11-28T08:00:00Z',
      personal_data: true,
      nis2_significant: true,
    });
    await ok(runtime, token, 'addIncidentNotification', {
      organization_id: organizationId,
      incident_id: incident.id,
      regime: 'NIS2',
      stage: 'EARLY_WARNING',
      recipient: 'CERT-FR',
      sent_at: '2026-11-28T09:00:00Z',
    });
    const page = await client.get(`${base}/incidents/${incident.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('Notification deadlines');
    expect(text).toContain('Deadline (Europe/Paris)');
    expect(text).toContain('2026-12-01 09:00 Running 70 h left Record the notice');
    expect(text).toContain('Regulation (EU) 2016/679 (GDPR), Art. 33(1)');
    expect(text).toContain('2026-11-29 09:00 Met sent 2026-11-28 09:00 UTC');
    expect(text).toContain('Waiting starts when the notification was sent');
    // The link opens the notification form for that incident, regime and stage.
    const href = /href="([^"]*incident-notifications\/new\?[^"]*stage=AUTHORITY[^"]*)"/.exec(page.html)?.[1];
    expect(href?.replace(/&amp;/g, '&')).toBe(
      `${base}/incident-notifications/new?incident_id=${incident.id}&regime=GDPR&stage=AUTHORITY`,
    );
    const form = await client.get(href?.replace(/&amp;/g, '&') ?? '');
    expect(form.status).toBe(200);
    expect(form.html).toContain(`<option value="${incident.id}" selected`);
  });
});

describe('Art. 30 record', () => {
  it('is one row per processing activity with the controller’s contact, as XLSX and as a PDF a reader can read', async () => {
    const { runtime, token, organizationId, base, download, client } = await setup();
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: organizationId,
      privacy_contact: 'Acme Health Ltd, privacy@acme.example; DPO: Jo Doe',
    });
    const { vendor } = await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
      organization_id: organizationId,
      name: 'Zendesk',
    });
    const { measure } = await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
      organization_id: organizationId,
      name: 'Encryption at rest',
    });
    await ok(runtime, token, 'addProcessingActivity', {
      organization_id: organizationId,
      name: 'Customer support',
      purposes: 'Answering customer questions',
      lawful_bases: ['CONTRACT'],
      data_subject_categories: ['customers'],
      personal_data_categories: ['contact details', 'tickets'],
      transfer_countries: ['US'],
      transfer_safeguard: 'STANDARD_CONTRACTUAL_CLAUSES',
      retention: '2 years after the last ticket',
      vendor_ids: [vendor.id],
      measure_ids: [measure.id],
    });
    await ok(runtime, token, 'addProcessingActivity', {
      organization_id: organizationId,
      name: 'Payroll for clients',
      role: 'PROCESSOR',
      controllers: 'Client Co, hr@client.example',
      purposes: 'Running payroll for clients',
    });
    const list = await client.get(`${base}/processing-activities`);
    expect(list.html).toContain(`href="${base}/processing-activities/art30.pdf"`);

    const xlsx = await download(`${base}/processing-activities/art30.xlsx`);
    expect(xlsx.headers.get('content-disposition')).toMatch(
      /attachment; filename="acme-health-art30-record-2026-11-28\.xlsx"/,
    );
    const rows: string[][] = [];
    for await (const row of readXlsxRows(new Uint8Array(await xlsx.arrayBuffer())))
      rows.push(row.cells.map(String));
    expect(rows[0]?.slice(0, 4)).toEqual([
      'Processing activity',
      'Role (Art. 30(1)(a), 30(2)(a))',
      'Purposes (Art. 30(1)(b))',
      'Lawful basis (Art. 6(1), 9(2))',
    ]);
    expect(rows[1]).toEqual([
      'Customer support',
      'Controller',
      'Answering customer questions',
      'Contract',
      'customers',
      'contact details; tickets',
      'Zendesk',
      'US (Standard contractual clauses)',
      '2 years after the last ticket',
      'Encryption at rest',
    ]);
    expect(rows[2]?.slice(0, 2)).toEqual([
      'Payroll for clients',
      'Processor for: Client Co, hr@client.example',
    ]);
    expect(rows.flat()).toContain(
      'Contact of the controller and the data protection officer (Art. 30(1)(a)): Acme Health Ltd, privacy@acme.example; DPO: Jo Doe',
    );

    const pdf = await download(`${base}/processing-activities/art30.pdf`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const read = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(read.title).toBe('Record of processing activities: Acme Health');
    const all = read.pages.join('\n');
    expect(all).toContain('Record of processing activities (GDPR Art. 30)');
    expect(all).toContain('Customer support');
    // Cells wrap within their columns: the words are there, line by line.
    expect(all).toContain('US (Standard');
    expect(all).toContain('Jo Doe');
    expect(all).toContain(`Page 1 of ${read.pages.length}`);
  });

  it('answers 404 for any other register', async () => {
    const { runtime, base, client } = await setup();
    expect(runtime).toBeDefined();
    expect((await client.get(`${base}/risks/art30.pdf`)).status).toBe(404);
  });
});
