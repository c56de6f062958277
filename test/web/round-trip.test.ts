// Readable exports import back: every register of an organization filled with the demo records plus unicode,
// quotes, line breaks and formula-like text, exported from the web interface as CSV and as XLSX and imported into
// empty organizations, gives the same records and links (references compared by the names of what they point at).

import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/accounts.ts';
import { users } from '../../src/db/schema.ts';
import { addDemoRecords } from '../../src/demo/seed.ts';
import { importInOneBatch } from '../../src/tools/imports/tool.ts';
import { REGISTER_SPECS, REGISTERS, type RegisterKind } from '../../src/tools/index.ts';
import { nameFieldsOf } from '../../src/tools/registers/spec.ts';
import type { TableRow } from '../../src/tools/tables/csv-reader.ts';
import { readXlsxRows } from '../../src/tools/tables/xlsx-reader.ts';
import { contextOutsideSeam } from '../../src/tools/types.ts';
import { BASE, createTestRuntime, ok, type TestRuntime } from '../helpers.ts';
import { signUpWithToken, type WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

/** The registers in an order where each one's references are imported before it. */
const ORDER: RegisterKind[] = [
  'person',
  'vendor',
  'framework',
  'measure',
  'risk',
  'obligation',
  'asset',
  'data_classification',
  // Before audits (their scope) and nonconformities (the requirements they are against).
  'requirement',
  'audit',
  'nonconformity',
  'continual_improvement',
];

let runtime: TestRuntime;
let client: WebClient;
let token: string;
let userId: string;
let source: string;
let csvTarget: string;
let xlsxTarget: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const signedUp = await signUpWithToken(runtime);
  client = signedUp.client;
  token = signedUp.token;
  source = signedUp.organizationId;
  const [user] = await runtime.database.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.email, 'ada@example.com'));
  userId = user?.id ?? '';
  // Made before the token is first used, so its cached rights include them.
  csvTarget = await emptyOrganization('CSV copy');
  xlsxTarget = await emptyOrganization('XLSX copy');
  await addDemoRecords(ownerContext(source), source);
  await addTrickyRecords(source);
});

afterAll(async () => {
  await runtime?.cleanup();
});

function ownerContext(organizationId: string) {
  return contextOutsideSeam(
    runtime.database.db,
    { tokenId: 'test', userId, scope: 'read_write', roles: { [organizationId]: 'OWNER' }, expiresAt: null },
    () => new Date(),
    'cli',
  );
}

/** Records whose text a spreadsheet or a CSV reader could get wrong. */
async function addTrickyRecords(organizationId: string) {
  const add = async (tool: string, key: string, args: Row) =>
    ((await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row).id as string;
  const person = await add('addPerson', 'person', {
    full_name: '=Zoë "Zed", Ämter',
    email: 'zoe@example.com',
    position: '@lead, 東京',
  });
  const vendor = await add('addVendor', 'vendor', {
    name: '+Vendor ✓ 東京',
    description: 'line one\nline "two", end\n-three',
    business_owner_id: person,
    certifications: ['ISO 27001', '@SOC 2'],
    countries: ['DE', 'JP'],
  });
  const measure = await add('addMeasure', 'measure', { name: "-Measure 'quoted'", owner_id: person });
  const risk = await add('addRisk', 'risk', {
    name: 'Risk 🚀 with emoji',
    note: "=1+2\n'=already quoted",
    owner_id: person,
    inherent_likelihood: 5,
    inherent_impact: 4,
    residual_likelihood: 2,
    status: 'in treatment',
  });
  await ok(runtime, token, 'linkRiskMeasure', { risk_id: risk, measure_id: measure });
  await add('addAsset', 'asset', { name: 'Ünïcode asset', vendor_ids: [vendor], amount: 0 });
}

async function download(path: string): Promise<Response> {
  const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await runtime.app.request(`${BASE}${path}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return response;
}

async function everyRecord(kind: RegisterKind, organizationId: string): Promise<Row[]> {
  const { spec, list } = REGISTERS[kind];
  const records: Row[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(runtime, token, list.name, {
      organization_id: organizationId,
      size: 100,
      ...(cursor ? { cursor } : {}),
    });
    records.push(...(page[spec.listKey] as Row[]));
    cursor = (page.next_cursor as string | null) ?? undefined;
  } while (cursor);
  return records;
}

const ID = /^[a-z]{3}_[0-9a-z]{24}$/;

/**
 * Every register's records without ids and timestamps, references replaced by what they point at's names; and apart,
 * how many evidence items each register's records list (evidence_ids, the other side of evidence's record_ids).
 */
async function snapshot(
  organizationId: string,
): Promise<{ records: Record<string, string[]>; evidenceLinks: Record<string, number> }> {
  const lists = new Map<RegisterKind, Row[]>();
  const names = new Map<string, string>();
  // Documents, evidence and tasks are left out: documents' versions and approvals and evidence's stored files do not
  // travel in a file; importRecords takes neither evidence nor tasks, and their record_ids (several kinds) are exported
  // as names, which imports read as ids only. So the copies' records have no evidence (evidenceLinks says so).
  for (const spec of REGISTER_SPECS.filter((candidate) => ORDER.includes(candidate.kind))) {
    const records = await everyRecord(spec.kind, organizationId);
    lists.set(spec.kind, records);
    for (const record of records)
      names.set(
        String(record.id),
        `${spec.kind}:${nameFieldsOf(spec)
          .map((field) => record[field])
          .join(' ')}`,
      );
  }
  const named = (value: unknown): unknown =>
    typeof value === 'string' && ID.test(value)
      ? (names.get(value) ?? value)
      : Array.isArray(value)
        ? value.map(named).sort()
        : value;
  const out: Record<string, string[]> = {};
  const evidenceLinks: Record<string, number> = {};
  for (const [kind, records] of lists) {
    out[kind] = records
      .map((record) => {
        const {
          id: _id,
          organization_id: _org,
          created_at: _created,
          updated_at: _updated,
          // Names by id: the ids differ between the two organizations, the names are compared in their fields.
          labels: _labels,
          evidence_ids: evidenceIds,
          // Which built-in catalogue a framework was adopted from: its provenance, not a value an import writes.
          catalog_key: _catalog,
          catalog_revision: _revision,
          // Derived from evidence, documents and control tests, which do not travel (above): compared where they do.
          readiness: _readiness,
          readiness_reasons: _reasons,
          last_tested_on: _tested,
          last_test_result: _result,
          next_test_on: _next,
          test_overdue: _overdue,
          // Derived from a vendor's assessments, which do not travel either.
          assessed_until: _assessed,
          ...rest
        } = acceptedAsOpen(kind, record);
        if (Array.isArray(evidenceIds)) evidenceLinks[kind] = (evidenceLinks[kind] ?? 0) + evidenceIds.length;
        return JSON.stringify(
          Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, named(value)])),
        );
      })
      .sort();
  }
  return { records: out, evidenceLinks };
}

/** What the demo's evidence items are attached to, per register (a superseded item stays listed). */
const DEMO_EVIDENCE_LINKS = {
  measure: 5,
  requirement: 2,
  risk: 0,
  vendor: 0,
  audit: 0,
  nonconformity: 0,
  obligation: 0,
};
const NO_EVIDENCE_LINKS = Object.fromEntries(Object.keys(DEMO_EVIDENCE_LINKS).map((kind) => [kind, 0]));

/**
 * A risk is ACCEPTED through a risk acceptance (an approval, which importRecords does not take, as documents'
 * approvals): an ACCEPTED risk's row comes in OPEN, as a new risk must, and is compared so (acceptedAsOpen).
 */
const ACCEPTED_IN_WORDS = 'Accepted';
async function* openRows(kind: RegisterKind, rows: AsyncGenerator<TableRow>): AsyncGenerator<TableRow> {
  for await (const row of rows)
    yield kind === 'risk'
      ? { ...row, cells: row.cells.map((cell) => (cell === ACCEPTED_IN_WORDS ? 'Open' : cell)) }
      : row;
}

/** A risk as its copy has it: an ACCEPTED one is OPEN, without its acceptance. */
function acceptedAsOpen(kind: RegisterKind, record: Row): Row {
  if (kind !== 'risk' || record.status !== 'ACCEPTED') return record;
  return { ...record, status: 'OPEN', accepted_until: null, accepted_score: null, acceptance_status: 'NONE' };
}

/** The copy has the source's records and links, without evidence (which stays behind). */
async function expectCopied(target: string) {
  const [copied, original] = [await snapshot(target), await snapshot(source)];
  expect(Object.entries(copied.records).filter(([, records]) => records.length === 0)).toEqual([]);
  expect(copied.records).toEqual(original.records);
  expect(original.evidenceLinks).toEqual(DEMO_EVIDENCE_LINKS);
  expect(copied.evidenceLinks).toEqual(NO_EVIDENCE_LINKS);
}

async function emptyOrganization(name: string): Promise<string> {
  return (await createOrganization(runtime.database.db, new Date(), { name, ownerId: userId })).id;
}

describe('readable exports import back', () => {
  it('CSV: every register exported and imported into an empty organization gives the same records and links', async () => {
    const target = csvTarget;
    for (const kind of ORDER) {
      const slug = REGISTERS[kind].spec.labelPlural.replace(/\s+/g, '-');
      const exported = await (await download(`/orgs/${source}/${slug}/export.csv`)).text();
      const csv = kind === 'risk' ? exported.replaceAll(`,${ACCEPTED_IN_WORDS},`, ',Open,') : exported;
      const imported = await ok(runtime, token, 'importRecords', {
        organization_id: target,
        kind,
        csv,
        // Ids are the source organization's: the copies are new records.
        columns: { Id: '' },
      });
      expect(imported, kind).toMatchObject({ written: true, counts: { refused: 0 } });
    }
    await expectCopied(target);
  });

  it('XLSX: the same through the workbook export and the XLSX reader', async () => {
    const target = xlsxTarget;
    for (const kind of ORDER) {
      const slug = REGISTERS[kind].spec.labelPlural.replace(/\s+/g, '-');
      const bytes = new Uint8Array(
        await (await download(`/orgs/${source}/${slug}/export.xlsx`)).arrayBuffer(),
      );
      const rows = openRows(kind, readXlsxRows(bytes));
      const imported = await importInOneBatch(ownerContext(target), REGISTERS, kind, rows, {
        organizationId: target,
        dryRun: false,
        columns: { Id: '' },
        tool: 'importRecords',
      });
      expect(imported, kind).toMatchObject({ written: true, counts: { refused: 0 } });
    }
    await expectCopied(target);
  });

  it('a readable export names owners (with their email), measures and states in words', async () => {
    const csv = await (await download(`/orgs/${source}/risks/export.csv`)).text();
    const [header = '', ...lines] = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(header).toContain('Name,Description,Category,Status,Treatment,Owner,Owner email');
    const line = lines.find((item) => item.includes('Risk 🚀 with emoji')) ?? '';
    expect(line).toContain('In treatment');
    expect(line).toContain('"\'=Zoë ""Zed"", Ämter",zoe@example.com');
    expect(line).toContain("-Measure 'quoted'");
    const api = await (await download(`/orgs/${source}/risks/export.csv?headers=api`)).text();
    expect(
      api.replace(/^\uFEFF/, '').startsWith('id,name,description,category,status,treatment,owner_id,'),
    ).toBe(true);
  });
});
