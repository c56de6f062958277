// The web import: upload a CSV or XLSX file, the preview of each column's match beside the first rows and the dry
// run's report, a changed match checked again, then the import (one call of importRecords per step).
import { describe, expect, it } from 'vitest';
import { createXlsxWriter } from '../../src/tools/tables/xlsx-writer.ts';
import { ok, runtimesCleanedAfterEach, type TestRuntime } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, type WebClient } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

/** POSTs a multipart form (a file upload) as a same-origin browser would. */
async function postMultipart(
  runtime: TestRuntime,
  client: WebClient,
  path: string,
  fields: Record<string, string | File>,
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await runtime.app.request(`http://127.0.0.1:8787${path}`, {
    method: 'POST',
    body: form,
    headers: { cookie, origin: 'http://127.0.0.1:8787' },
  });
  // Keep the cookies it sets (the notice shown after a redirect), as the browser would.
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    client.cookies.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** The hidden fields and chosen options of the preview form, as the browser would send them back. */
function formFieldsOf(html: string): Record<string, string> {
  const fields: Record<string, string> = { _csrf: csrfOf(html) };
  const csv = /<textarea name="csv"[^>]*>([\s\S]*?)<\/textarea>/.exec(html)?.[1] ?? '';
  fields.csv = csv
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  fields.file_name = /<input type="hidden" name="file_name" value="([^"]*)"/.exec(html)?.[1] ?? '';
  for (const match of html.matchAll(/<select id="column-(\d+)" name="(column\.\d+)">([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected/.exec(match[3] ?? '')?.[1] ?? '';
    fields[match[2] ?? ''] = selected;
  }
  return fields;
}

describe('importing a file in the web interface', () => {
  it('uploads a CSV, shows the matches and the refusals, checks a changed match again, then imports', async () => {
    const { runtime, client, organizationId, token } = await signedUpRuntime(runtimes);
    await ok(runtime, token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'Dana Whitfield',
      email: 'dana@example.com',
    });
    const base = `/orgs/${organizationId}/risks`;
    const form = await client.get(`${base}/import`);
    expect(form.status).toBe(200);
    expect(textOf(form.html)).toContain('CSV or XLSX file');
    const csv =
      'Risk title,Owner,Likelihood,Inherent impact,Status\nPhishing,Dana Whitfield,4,5,in treatment\nLaptops,Nobody Known,2,2,open\n';
    const uploaded = await postMultipart(runtime, client, `${base}/import`, {
      _csrf: csrfOf(form.html),
      file: new File([`\uFEFF${csv}`], 'risks.csv', { type: 'text/csv' }),
    });
    // "Risk title" and "Likelihood" are no field: the tool refuses the file, the preview asks for a choice.
    expect(uploaded.status).toBe(400);
    expect(textOf(uploaded.html)).toContain(
      'The columns "Risk title", "Likelihood" are not fields of risks: choose their fields above (or Ignore), then check again.',
    );
    const fields = formFieldsOf(uploaded.html);
    expect(fields.csv).toBe(csv);
    expect(fields['column.2']).toBe('owner_id');
    const checked = await postMultipart(runtime, client, `${base}/import`, {
      ...fields,
      'column.1': 'name',
      'column.3': 'inherent_likelihood',
      action: 'check',
    });
    expect(checked.status).toBe(200);
    expect(textOf(checked.html)).toContain('2 rows: 1 to create, 0 to update, 0 unchanged, 1 refused');
    expect(textOf(checked.html)).toContain('No person named "Nobody Known" in this organization');
    expect(checked.html).toMatch(/<button type="submit" name="action" value="import" disabled/);
    const withPeople = await postMultipart(runtime, client, `${base}/import`, {
      ...formFieldsOf(checked.html),
      create_people: 'yes',
      action: 'import',
    });
    expect(withPeople.status).toBe(303);
    expect(withPeople.location).toBe(base);
    const listed = await client.get(base);
    expect(textOf(listed.html)).toContain(
      'Imported risks.csv: 2 created, 0 updated, 0 unchanged, 1 people created.',
    );
    const risks = await ok<{ risks: { name: string; status: string }[] }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(risks.risks.map((risk) => [risk.name, risk.status]).sort()).toEqual([
      ['Laptops', 'OPEN'],
      ['Phishing', 'IN_TREATMENT'],
    ]);
    // The history names the import as where the records came from.
    const history = await client.get(`/orgs/${organizationId}/history?surface=import`);
    expect(textOf(history.html)).toContain('via the file import');
  });

  it('refuses a file over the size limit on its announced length, with a page, before reading it', async () => {
    const { runtime, client, organizationId } = await signedUpRuntime(runtimes);
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let read = false;
    // No chunk is pulled until someone reads (highWaterMark 0).
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          read = true;
          controller.error(new Error('the body was read'));
        },
      },
      { highWaterMark: 0 },
    );
    const response = await runtime.app.request(`http://127.0.0.1:8787/orgs/${organizationId}/risks/import`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: {
        cookie,
        origin: 'http://127.0.0.1:8787',
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(runtime.config.maxBodyBytes + 1),
      },
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(textOf(await response.text())).toContain('import a larger file with compliance-mcp import');
    expect(read).toBe(false);
  });

  it('reads the first sheet of an XLSX upload', async () => {
    const { runtime, client, organizationId, token } = await signedUpRuntime(runtimes);
    const writer = createXlsxWriter('Vendors');
    const parts = [
      writer.header(['Name', 'Category', 'Countries']),
      writer.rows([
        ['Ünïcode GmbH', 'Cloud provider', 'DE; AT'],
        ['=Formula-like', 'other', ''],
      ]),
      writer.finish(),
    ];
    const form = await client.get(`/orgs/${organizationId}/vendors/import`);
    const uploaded = await postMultipart(runtime, client, `/orgs/${organizationId}/vendors/import`, {
      _csrf: csrfOf(form.html),
      file: new File(parts as BlobPart[], 'vendors.xlsx'),
    });
    expect(uploaded.status).toBe(200);
    expect(textOf(uploaded.html)).toContain('2 rows: 2 to create');
    const done = await postMultipart(runtime, client, `/orgs/${organizationId}/vendors/import`, {
      ...formFieldsOf(uploaded.html),
      action: 'import',
    });
    expect(done.status).toBe(303);
    const vendors = await ok<{ vendors: { name: string; countries: string[] }[] }>(
      runtime,
      token,
      'listVendors',
      {
        organization_id: organizationId,
        order_by: { field: 'name', direction: 'ASC' },
      },
    );
    expect(vendors.vendors.map((vendor) => [vendor.name, vendor.countries])).toEqual([
      ['=Formula-like', []],
      ['Ünïcode GmbH', ['DE', 'AT']],
    ]);
  });
});
