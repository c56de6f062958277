// importRecords: columns matched by name, label or export header; references by id, name or email; a dry run with
// per-row refusals; all rows or none; history rows (surface import, one call id); bad files refused clearly.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDirect, errorOf, ok, type TestRuntime, twoOrganizations } from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let token: string;
let org: string;
let otherOrg: string;
let otherToken: string;

beforeAll(async () => {
  ({ runtime, org, otherOrg, token, otherToken } = await twoOrganizations('Import Org'));
});

afterAll(async () => {
  await runtime?.cleanup();
});

const importCsv = (kind: string, csv: string, extra: Row = {}, organizationId = org, as = token) =>
  callDirect(runtime, as, 'importRecords', { organization_id: organizationId, kind, csv, ...extra });

async function list(tool: string, key: string, organizationId = org): Promise<Row[]> {
  const result = await ok(
    runtime,
    tool.startsWith('listP') || organizationId === org ? token : otherToken,
    tool,
    {
      organization_id: organizationId,
      size: 100,
    },
  );
  return result[key] as Row[];
}

describe('importRecords', () => {
  it('imports people, then risks naming their owners, measures and enum labels, as one call', async () => {
    const people = await importCsv(
      'person',
      'Full name,Email,Kind,Position\nDana Whitfield,dana@example.com,Employee,CISO\n"Zoë Ämter",zoe@example.com,contractor,\n',
    );
    expect(people.status).toBe(200);
    expect(people.body).toMatchObject({ written: true, counts: { rows: 2, created: 2, refused: 0 } });
    await ok(runtime, token, 'addMeasure', { organization_id: org, name: 'MFA everywhere' });
    await ok(runtime, token, 'addMeasure', { organization_id: org, name: 'Backups' });
    const csv = [
      'Name;Status;Owner;Inherent likelihood;Inherent impact;Measures;Note',
      'Phishing;In treatment;Dana Whitfield;4;5;"MFA everywhere; Backups";',
      '"Laptop theft";open;zoe@example.com;3;3;;"\'=HYPERLINK(""x"")"',
    ].join('\r\n');
    // A semicolon-separated file: the separator is read from the header.
    const dry = await importCsv('risk', csv, { dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, written: false });
    expect(dry.body).toMatchObject({ counts: { rows: 2, created: 2, refused: 0 }, errors: [] });
    expect(await list('listRisks', 'risks')).toEqual([]);
    const done = await importCsv('risk', csv);
    expect(done.body).toMatchObject({ written: true, counts: { created: 2 } });
    const risks = await list('listRisks', 'risks');
    const byName = Object.fromEntries(risks.map((risk) => [risk.name, risk]));
    const dana = (await list('listPeople', 'people')).find((person) => person.full_name === 'Dana Whitfield');
    expect(byName.Phishing).toMatchObject({ status: 'IN_TREATMENT', owner_id: dana?.id, inherent_score: 20 });
    expect(byName.Phishing?.measure_ids).toHaveLength(2);
    expect(byName['Laptop theft']).toMatchObject({ status: 'OPEN', note: '=HYPERLINK("x")' });
    const changes = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { surface: 'import', kind: 'risk' },
    });
    const rows = changes.changes as Row[];
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.call_id)).size).toBe(1);
    expect(rows[0]).toMatchObject({ surface: 'import', tool: 'importRecords', action: 'add' });
    // Each history row keeps the record's state as imported (reads as of a date use it), its links included.
    const [kept] = await runtime.database.db.all<{ state: string }>(
      sql`select state from record_changes where record_id = ${byName.Phishing?.id}`,
    );
    expect(JSON.parse(kept?.state as string)).toMatchObject({
      name: 'Phishing',
      status: 'IN_TREATMENT',
      owner_id: dana?.id,
      measure_ids: expect.arrayContaining(byName.Phishing?.measure_ids as string[]),
    });
  });

  it('refuses the same id twice in one file, and a file without rows, writing nothing', async () => {
    const added = await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Twice' });
    const id = (added.vendor as Row).id as string;
    const twice = await importCsv('vendor', `Id,Name\n${id},First\n${id},Second\n`);
    expect(twice.status).toBe(400);
    expect(errorOf(twice).details).toEqual([
      { path: 'row 3, column "Id", field id', message: 'The same id as row 2' },
    ]);
    const empty = await importCsv('vendor', '\r\n');
    expect(empty.status).toBe(400);
    expect(errorOf(empty).message).toBe('The file is empty: expected a header row, then one row per record.');
    const vendors = await list('listVendors', 'vendors');
    expect(vendors.map((vendor) => vendor.name)).toEqual(['Twice']);
  });

  it('names the field and the column of each refused row, and a required field the file lacks', async () => {
    const report = await importCsv(
      'risk',
      'Name,Inherent likelihood,Inherent impact,Owner\nFlood,9,3,\nFire,2,3,Nobody Known\n',
      {
        dry_run: true,
      },
    );
    expect(report.status).toBe(200);
    expect((report.body as { errors: unknown[] }).errors).toEqual([
      {
        row: 2,
        column: 'Inherent likelihood',
        field: 'inherent_likelihood',
        message: expect.stringContaining("beyond the organization's scale (1-5)"),
      },
      { row: 3, column: 'Owner', field: 'owner_id', message: expect.stringContaining('Nobody Known') },
    ]);
    const missing = await importCsv('risk', 'Name,Inherent likelihood\nFlood,2\n');
    expect(missing.status).toBe(400);
    expect(errorOf(missing).details).toEqual([
      { path: 'row 2, field inherent_impact (no column)', message: 'Required: no value given' },
    ]);
    expect(errorOf(missing).message).toContain(
      'row 2, field inherent_impact (no column): Required: no value given',
    );
  });

  it('names the register singular or plural, as the CLI does, and says how to ignore an unknown column', async () => {
    const kindRefused = async (kind: string) => {
      const answer = await importCsv(kind, 'Name\nSomething\n', { dry_run: true });
      return answer.status === 400 && JSON.stringify(errorOf(answer).details).includes('"kind"');
    };
    for (const kind of ['risks', 'risk', 'Data classifications', 'people', 'nonconformities']) {
      expect(await kindRefused(kind), kind).toBe(false);
    }
    expect(await kindRefused('riskz')).toBe(true);
    const unknown = await importCsv('vendors', 'Name,Notes\nAcme,hello\n', { dry_run: true });
    expect(errorOf(unknown).message).toContain('or ignore it ("")');
    const ignored = await importCsv('vendors', 'Name,Notes\nAcme,hello\n', {
      dry_run: true,
      columns: { Notes: '' },
    });
    expect(ignored.status).toBe(200);
  });

  it('answers the same not_found for an id of another organization as for a missing one', async () => {
    const added = await ok(runtime, otherToken, 'addVendor', { organization_id: otherOrg, name: 'Theirs' });
    const foreign = (added.vendor as Row).id as string;
    const result = await importCsv(
      'vendor',
      `Id,Name\n${foreign},Mine now\nven_000000000000000000000000,Nope\n`,
      {
        dry_run: true,
      },
    );
    const errors = (result.body as { errors: Row[] }).errors;
    expect(errors.map((error) => error.message)).toEqual([
      `No vendor ${foreign} in this organization`,
      'No vendor ven_000000000000000000000000 in this organization',
    ]);
  });
});
