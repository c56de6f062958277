// The change history in the web interface (record page, history page, activity links) and the streamed exports of
// registers (CSV, JSON) and of the history (CSV).
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addMembership, createUser } from '../../src/accounts.ts';
import { csvCell } from '../../src/tools/tables/csv-writer.ts';
import { BASE, createTestRuntime, ok, runtimesCleanedAfterEach, type TestRuntime } from '../helpers.ts';
import { signUpWithToken, textOf, type WebClient } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function setup() {
  const runtime = await createTestRuntime();
  runtimes.push(runtime);
  const signedUp = await signUpWithToken(runtime);
  return { runtime, ...signedUp, base: `/orgs/${signedUp.organizationId}` };
}

/** GET with the client's session, the Response untouched (its body not yet read). */
function rawGet(runtime: TestRuntime, client: WebClient, path: string): Promise<Response> {
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return Promise.resolve(runtime.app.request(`${BASE}${path}`, { headers: { cookie } }));
}

/** A minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF inside quotes), to check what we write. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index++;
    } else field += char;
  }
  if (field || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** The body of a CSV download: it starts with the UTF-8 byte-order mark (for Excel), dropped by the decoder. */
async function csvText(response: Response): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return new TextDecoder().decode(bytes);
}

describe('history in the web interface', () => {
  it('filters the history by person, choosing among the organization’s members', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const grace = await createUser(runtime.database.db, new Date(), {
      emailVerified: true,
      email: 'grace@example.com',
      password: 'a long enough password',
      name: 'Grace Hopper',
    });
    await addMembership(runtime.database.db, new Date(), organizationId, grace.id, 'EDITOR');
    const graceToken = (
      await runtime.tokens.create({
        userId: grace.id,
        name: 'grace',
        scope: 'read_write',
        organizationIds: null,
        expiresAt: null,
      })
    ).token;
    await ok(runtime, token, 'addVendor', { organization_id: organizationId, name: 'Ada Corp' });
    await ok(runtime, graceToken, 'addVendor', { organization_id: organizationId, name: 'Grace Corp' });
    const page = await client.get(`${base}/history`);
    expect(page.html).toContain(`<option value="${grace.id}">Grace Hopper (grace@example.com)</option>`);
    const hers = textOf((await client.get(`${base}/history?user_id=${grace.id}`)).html);
    expect(hers).toContain('1 of 1 changes, newest first.');
    expect(hers).toContain('Grace Corp');
    expect(hers).not.toContain('Ada Corp');
  });

  it('shows a record’s changes on its page: who, through which token, when, field before -> after', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const risk = (
      await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name: 'Ransomware',
        inherent_likelihood: 3,
        inherent_impact: 5,
      })
    ).risk;
    const person = (
      await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: organizationId,
        full_name: 'Grace Hopper',
        email: 'grace@example.com',
      })
    ).person;
    await ok(runtime, token, 'updateRisk', {
      id: risk.id,
      status: 'in treatment',
      note: 'EDR rolled out',
      owner_id: person.id,
    });
    const page = await client.get(`${base}/risks/${risk.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    const history = text.slice(text.indexOf('History'));
    expect(history).toContain('The 2 most recent of 2 changes of this risk, newest first.');
    expect(history).toContain('ada@example.com via HTTP (direct), token seeding');
    expect(history).toContain('Status : Open → In treatment');
    expect(history).toContain('Note : — → EDR rolled out');
    // Ids the page knows are shown by name.
    expect(history).toContain('Owner : — → Grace Hopper');
    // The organization's history names records and references the same way.
    const organization = textOf((await client.get(`${base}/history`)).html);
    expect(organization).toContain('risk Ransomware');
    expect(organization).toContain(`record ${risk.id}`);
    expect(organization).toContain('Owner : — → Grace Hopper');
    expect(history).toContain('Added Details tool addRisk');
    expect(history.indexOf('Changed Details tool updateRisk')).toBeLessThan(
      history.indexOf('Added Details tool addRisk'),
    );
    expect(history.indexOf('Changed')).toBeGreaterThan(0);
  });

  it('shows a change made in the web interface as the signed-in user, without a token', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const measure = (
      await ok<{ measure: { id: string; updated_at: string } }>(runtime, token, 'addMeasure', {
        organization_id: organizationId,
        name: 'Backups',
      })
    ).measure;
    const edit = await client.get(`${base}/measures/${measure.id}/edit`);
    expect(edit.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(edit.html)?.[1] ?? '';
    const saved = await client.post(`${base}/measures/${measure.id}/edit`, {
      _csrf: csrf,
      name: 'Backups',
      description: '',
      category: 'Operations',
      state: 'IMPLEMENTED',
      owner_id: '',
      expected_updated_at: measure.updated_at,
    });
    expect(saved.status, saved.html.slice(0, 400)).toBe(303);
    const changes = await ok<{ changes: { surface: string; token_id: string | null; after: unknown }[] }>(
      runtime,
      token,
      'listChanges',
      { organization_id: organizationId, filter: { record_id: measure.id, action: 'update' } },
    );
    expect(changes.changes).toHaveLength(1);
    expect(changes.changes[0]).toMatchObject({ surface: 'web', token_id: null });
    expect(changes.changes[0]?.after).toMatchObject({ state: 'IMPLEMENTED' });
    const text = textOf((await client.get(`${base}/measures/${measure.id}`)).html);
    expect(text).toContain('ada@example.com via the web interface');
    expect(text).toContain('State : Not started → Implemented');
  });

  it('lists the organization’s history with filters, and keeps a deleted record’s changes', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const vendor = (
      await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: 'Gone Corp',
      })
    ).vendor;
    await ok(runtime, token, 'addFramework', { organization_id: organizationId, name: 'ISO 27001' });
    await ok(runtime, token, 'deleteVendor', { id: vendor.id });
    const all = textOf((await client.get(`${base}/history`)).html);
    expect(all).toContain('3 of 3 changes, newest first.');
    const vendors = await client.get(`${base}/history?kind=vendor`);
    const text = textOf(vendors.html);
    expect(text).toContain('2 of 2 changes, newest first.');
    // Named by its last values although it is gone, with its id.
    expect(text).toContain('vendor Gone Corp');
    expect(text).toContain(`record ${vendor.id}`);
    // People's words first; the tool's name under Details, for the technical reader.
    expect(text).toContain(`Deleted Details record ${vendor.id} tool deleteVendor`);
    expect(text).not.toContain('ISO 27001');
    const refused = await client.get(`${base}/history?since=yesterday`);
    expect(refused.status).toBe(400);
    expect(textOf(refused.html)).toContain('filter.since');
  });

  it('links each successful write on the activity page to what it changed', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const risk = (
      await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name: 'Insider',
        inherent_likelihood: 2,
        inherent_impact: 2,
      })
    ).risk;
    await ok(runtime, token, 'getRisk', { id: risk.id });
    await runtime.usage.flush();
    const activity = await client.get(`${base}/activity`);
    const links = [...activity.html.matchAll(/href="(\/orgs\/[^"]+\/history\?call_id=(cal_[a-z0-9]+))"/g)];
    // The add links to its change; the read does not link anywhere.
    expect(links).toHaveLength(1);
    const changes = await client.get(links[0]?.[1] ?? '');
    const text = textOf(changes.html);
    expect(text).toContain(`The changes of tool call ${links[0]?.[2]}`);
    expect(text).toContain('1 of 1 changes');
    expect(text).toContain('risk Insider');
    expect(text).toContain(`record ${risk.id}`);
    expect(text).toContain('Name : Insider');
  });
});

describe('exports', () => {
  it('escapes CSV cells: quotes, commas, line breaks and formula prefixes', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-cmd')).toBe("'-cmd");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(['DE', 'FR'])).toBe('DE; FR');
    expect(csvCell(true)).toBe('true');
  });

  it('exports a register as CSV with the page’s filters, escaped, as an attachment', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const add = (name: string, status: string, note: string | null) =>
      ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name,
        status,
        note,
        inherent_likelihood: 2,
        inherent_impact: 4,
      });
    await add('=cmd|calc', 'OPEN', 'line one\nline "two", end');
    await add('Plain risk', 'OPEN', null);
    await add('Closed risk', 'CLOSED', null);
    const response = await rawGet(
      runtime,
      client,
      `${base}/risks/export.csv?status=OPEN&sort=name&direction=ASC&headers=api`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="acme-health-risks-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const rows = parseCsv(await csvText(response));
    const header = rows[0] ?? [];
    expect(header.slice(0, 3)).toEqual(['id', 'name', 'description']);
    expect(header).toContain('measure_ids');
    expect(header).not.toContain('organization_id');
    expect(rows).toHaveLength(3);
    const column = (name: string) => header.indexOf(name);
    expect(rows.slice(1).map((row) => row[column('name')])).toEqual(["'=cmd|calc", 'Plain risk']);
    expect(rows[1]?.[column('note')]).toBe('line one\nline "two", end');
    expect(rows[1]?.[column('inherent_score')]).toBe('8');
    expect(rows[2]?.[column('note')]).toBe('');
  });

  it('exports a register as JSON: the records the list tool returns, filters honoured', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      await ok(runtime, token, 'addVendor', { organization_id: organizationId, name, countries: ['DE'] });
    }
    const response = await rawGet(
      runtime,
      client,
      `${base}/vendors/export.json?query=a&sort=name&direction=DESC`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/filename="acme-health-vendors-.*\.json"/);
    const exported = JSON.parse(await response.text()) as Record<string, unknown>[];
    const listed = await ok<{ vendors: Record<string, unknown>[] }>(runtime, token, 'listVendors', {
      organization_id: organizationId,
      filter: { query: 'a' },
      order_by: { field: 'name', direction: 'DESC' },
    });
    expect(exported).toEqual(listed.vendors);
    expect(exported.map((vendor) => vendor.name)).toEqual(['Gamma', 'Beta', 'Alpha']);
    const empty = await rawGet(runtime, client, `${base}/vendors/export.json?query=zzz`);
    expect(JSON.parse(await empty.text())).toEqual([]);
  });

  it('refuses a filter the list tool refuses, and answers 404 outside the person’s organizations', async () => {
    const { runtime, client, base } = await setup();
    const refused = await rawGet(runtime, client, `${base}/risks/export.csv?status=BURNING`);
    expect(refused.status).toBe(400);
    expect(textOf(await refused.text())).toContain('filter.status');
    const foreign = await rawGet(runtime, client, '/orgs/org_000000000000000000000000/risks/export.csv');
    expect(foreign.status).toBe(404);
  });

  it('exports the history as CSV, one line per changed field, with the page’s filters', async () => {
    const { runtime, client, base, token, organizationId } = await setup();
    const vendor = (
      await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
        organization_id: organizationId,
        name: 'Acme, Inc.',
      })
    ).vendor;
    await ok(runtime, token, 'updateVendor', {
      id: vendor.id,
      name: '=Acme',
      website_url: 'https://acme.example',
    });
    await ok(runtime, token, 'addFramework', { organization_id: organizationId, name: 'SOC 2' });
    const response = await rawGet(runtime, client, `${base}/history/export.csv?record_id=${vendor.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/filename="acme-health-history-.*\.csv"/);
    const rows = parseCsv(await csvText(response));
    const header = rows[0] ?? [];
    expect(header).toEqual([
      'time',
      'change_id',
      'kind',
      'record_id',
      'action',
      'surface',
      'user_id',
      'user_email',
      'person_id',
      'person_name',
      'token_id',
      'token_name',
      'call_id',
      'tool',
      'field',
      'before',
      'after',
      'proposal_id',
      'proposed_by_token_id',
    ]);
    const at = (name: string) => header.indexOf(name);
    const updates = rows.filter((row) => row[at('action')] === 'update');
    expect(updates.map((row) => [row[at('field')], row[at('before')], row[at('after')]]).sort()).toEqual([
      ['name', 'Acme, Inc.', "'=Acme"],
      ['website_url', '', 'https://acme.example'],
    ]);
    expect(rows.every((row, index) => index === 0 || row[at('record_id')] === vendor.id)).toBe(true);
    const adds = rows.filter((row) => row[at('action')] === 'add');
    expect(adds.find((row) => row[at('field')] === 'name')?.[at('after')]).toBe('Acme, Inc.');
    expect(
      adds.every((row) => row[at('user_email')] === 'ada@example.com' && row[at('token_name')] === 'seeding'),
    ).toBe(true);
  });

  it('streams a large register page by page: 20,000 rows, later pages read only as the reader asks', async () => {
    const { runtime, client, base, organizationId } = await setup();
    const total = 20_000;
    // Written straight into the table: the export is under test, not 20,000 tool calls.
    await runtime.database.db.run(sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${total})
      insert into measures (id, organization_id, name, description, category, state, owner_id, created_at, updated_at)
      select 'msr_' || printf('%024d', i), ${organizationId}, 'Measure ' || i, null, 'Bulk', 'NOT_STARTED', null,
             strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds'),
             strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' seconds')
      from n`);
    const response = await rawGet(runtime, client, `${base}/measures/export.csv`);
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect([...(first.value ?? []).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const firstText = decoder.decode(first.value, { stream: true });
    // The first chunk is the header and the first page only.
    expect(firstText.split('\r\n').length - 2).toBeLessThanOrEqual(100);
    // A record added now with the oldest created_at (last in the default order, created_at DESC) is in the file:
    // the later pages are read from the database after the first chunk went out, not loaded up front.
    await runtime.database.db.run(sql`
      insert into measures (id, organization_id, name, category, state, created_at, updated_at)
      values ('msr_zzzzzzzzzzzzzzzzzzzzzzzz', ${organizationId}, 'Added while streaming', 'Bulk', 'NOT_STARTED',
              '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`);
    let text = firstText;
    let chunks = 1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(total + 2);
    expect(lines.at(-1)).toContain('Added while streaming');
    expect(new Set(lines).size).toBe(lines.length);
    expect(chunks).toBeGreaterThanOrEqual(200);
  });
});
