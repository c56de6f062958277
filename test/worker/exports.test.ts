// Exports on the Worker host: a signed-in person downloads a register and the history, streamed from the Worker
// over the libSQL HTTP client, with the same content as on Node.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { readXlsxRows } from '../../src/tools/tables/xlsx-reader.ts';
import { browserSession } from '../browser-session.ts';
import { csvCatalog } from '../catalogs.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, testDatabase } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';

/** GETs of a person signed in on the Worker through the login form. */
async function signedIn(email: string) {
  const session = browserSession((request) => exports.default.fetch(request), BASE);
  expect((await session.signIn({ email, password: PASSWORD })).status).toBe(303);
  return (path: string) => session.send(path);
}

describe('exports on the Worker', () => {
  it('streams a register as CSV and JSON and the history as CSV, filters honoured', async () => {
    const database = testDatabase();
    const email = `exporter-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: PASSWORD,
    });
    const org = (
      await createOrganization(database.db, new Date(), { name: 'Worker Export Org', ownerId: user.id })
    ).id;
    const get = await signedIn(email);
    // 150 vendors: more than one page of 100, so the stream pages on over HTTP to the database.
    const now = new Date().toISOString();
    const values = Array.from(
      { length: 150 },
      (_, index) =>
        `('ven_${String(index).padStart(24, '0')}', '${org}', 'Vendor ${index}${index === 7 ? ', "quoted"' : ''}', 'OTHER', '${now}', '${now}')`,
    ).join(',');
    await database.client.execute(
      `insert into vendors (id, organization_id, name, category, created_at, updated_at) values ${values}`,
    );

    const csv = await get(`/orgs/${org}/vendors/export.csv?sort=name&direction=ASC&headers=api`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="worker-export-org-vendors-.*\.csv"$/,
    );
    const lines = (await csv.text()).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(151);
    expect(lines[0]?.startsWith('id,name,description,category')).toBe(true);
    expect(lines.some((line) => line.includes('"Vendor 7, ""quoted"""'))).toBe(true);

    const json = await get(`/orgs/${org}/vendors/export.json?query=Vendor 1`);
    const vendors = (await json.json()) as { name: string }[];
    // Vendor 1, 10-19, 100-149.
    expect(vendors).toHaveLength(1 + 10 + 50);
    expect(vendors.every((vendor) => vendor.name.startsWith('Vendor 1'))).toBe(true);

    // One change through the API, recorded in its batch over HTTP, then exported.
    const created = await cliTokenService(database).create({
      userId: user.id,
      name: 'worker export',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const updated = await exports.default.fetch(
      new Request(`${BASE}/api/mcp/tools/updateVendor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'ven_000000000000000000000003', name: '=Renamed' }),
      }),
    );
    expect(updated.status).toBe(200);
    const history = await get(`/orgs/${org}/history/export.csv`);
    expect(history.status).toBe(200);
    const historyLines = (await history.text()).split('\r\n').filter(Boolean);
    expect(historyLines[0]).toBe(
      'time,change_id,kind,record_id,action,surface,user_id,user_email,person_id,person_name,token_id,token_name,call_id,tool,field,before,after,proposal_id,proposed_by_token_id',
    );
    expect(historyLines).toHaveLength(2);
    expect(historyLines[1]).toContain(
      `vendor,ven_000000000000000000000003,update,direct,${user.id},${email},,,${created.id},worker export,`,
    );
    expect(historyLines[1]?.endsWith(",updateVendor,name,Vendor 3,'=Renamed,,")).toBe(true);
    database.client.close();
  });

  it('imports a catalog and exports the statement of applicability as CSV and JSON, over 100 rows', async () => {
    const database = testDatabase();
    const email = `soa-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: PASSWORD,
    });
    const org = (
      await createOrganization(database.db, new Date(), { name: 'Worker SoA Org', ownerId: user.id })
    ).id;
    const { token } = await cliTokenService(database).create({
      userId: user.id,
      name: 'worker soa',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const call = async (tool: string, args: Record<string, unknown>) => {
      const response = await exports.default.fetch(
        new Request(`${BASE}/api/mcp/tools/${tool}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(args),
        }),
      );
      const body = (await response.json()) as Record<string, unknown>;
      expect(response.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const framework = (await call('addFramework', { organization_id: org, name: 'Worker framework' }))
      .framework as { id: string };
    // 4 sections of 30 requirements (and a sub-requirement each): 128 rows, more than one page of 100.
    const imported = await call('importFrameworkCatalog', {
      framework_id: framework.id,
      format: 'csv',
      content: csvCatalog(4, 30),
    });
    expect(imported.counts).toMatchObject({ created: 128 });
    const get = await signedIn(email);
    const csv = await get(`/orgs/${org}/frameworks/${framework.id}/soa.csv`);
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(1 + 128);
    expect(lines[1]?.startsWith('S1,Section 1,yes,')).toBe(true);
    expect(lines[2]?.startsWith('S1.1,Requirement 1.1,no,yes,,Not covered,')).toBe(true);
    const json = (await (await get(`/orgs/${org}/frameworks/${framework.id}/soa.json`)).json()) as {
      coverage: { requirements: number };
      requirements: { reference: string }[];
    };
    expect(json.coverage.requirements).toBe(124);
    expect(json.requirements.map((row) => row.reference).slice(-2)).toEqual(['S4.29', 'S4.30']);
    database.client.close();
  });

  it('imports 2,000 risks with importRecords in one batch over HTTP, and exports them as XLSX read back in workerd', async () => {
    const database = testDatabase();
    const email = `importer-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: PASSWORD,
    });
    const org = (
      await createOrganization(database.db, new Date(), { name: 'Worker Import Org', ownerId: user.id })
    ).id;
    const { token } = await cliTokenService(database).create({
      userId: user.id,
      name: 'worker import',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const call = (tool: string, args: Record<string, unknown>) =>
      exports.default.fetch(
        new Request(`${BASE}/api/mcp/tools/${tool}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(args),
        }),
      );
    const rows = Array.from(
      { length: 2000 },
      (_, index) => `Risk ${index} ü,${(index % 5) + 1},3,in treatment`,
    );
    const csv = `Name,Inherent likelihood,Inherent impact,Status\n${rows.join('\n')}\n`;
    const imported = await call('importRecords', { organization_id: org, kind: 'risk', csv });
    const body = (await imported.json()) as { written: boolean; counts: { created: number } };
    expect(imported.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ written: true, counts: { created: 2000 } });
    const stored = await database.client.execute({
      sql: "select count(*) as n from record_changes where organization_id = ? and surface = 'import'",
      args: [org],
    });
    expect(Number(stored.rows[0]?.n)).toBe(2000);
    const get = await signedIn(email);
    const xlsx = await get(`/orgs/${org}/risks/export.xlsx?sort=name&direction=ASC`);
    expect(xlsx.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const read: string[][] = [];
    for await (const row of readXlsxRows(new Uint8Array(await xlsx.arrayBuffer()))) read.push(row.cells);
    expect(read).toHaveLength(2001);
    expect(read[0]?.slice(0, 6)).toEqual(['Id', 'Name', 'Description', 'Category', 'Status', 'Treatment']);
    expect(read[1]?.slice(1, 5)).toEqual(['Risk 0 ü', '', 'General', 'In treatment']);
    database.client.close();
  });
});
