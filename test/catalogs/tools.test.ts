// The catalogue tools: listing the built-in catalogues, adopting one as a framework (idempotent, exact references and
// tree), requirements named by reference, crosswalk lookups, and mapping proposals accepted or rejected in bulk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, callDirect, errorOf, ok, type TestRuntime, twoOrganizations } from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let token: string;
let org: string;
let otherOrg: string;
let otherToken: string;

beforeAll(async () => {
  ({ runtime, org, otherOrg, token, otherToken } = await twoOrganizations('Catalogue Org'));
});

afterAll(async () => {
  await runtime?.cleanup();
});

const call = (tool: string, args: Row) => callDirect(runtime, token, tool, args);
const run = (tool: string, args: Row) => ok(runtime, token, tool, args);

async function allRequirements(frameworkId: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const page = await run('listRequirements', {
      organization_id: org,
      filter: { framework_id: frameworkId },
      size: 100,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...(page.requirements as Row[]));
    cursor = (page.next_cursor as string | null) ?? undefined;
  } while (cursor);
  return rows;
}

const measure = async (name: string) =>
  ((await run('addMeasure', { organization_id: org, name, state: 'IMPLEMENTED' })).measure as Row)
    .id as string;

describe('built-in catalogues', () => {
  let isoId: string;

  it('lists every catalogue with its counts and crosswalks', async () => {
    const listed = (await run('listCatalogs', { organization_id: org })).catalogs as Row[];
    expect(listed.map((item) => item.key)).toEqual([
      'iso-27001-2022',
      'soc2-2017',
      'nist-csf-2.0',
      'gdpr',
      'nis2',
      'dora',
      'hipaa-security',
      'pci-dss-4.0',
    ]);
    const iso = listed[0] as Row;
    // Clauses 4-10 and Annex A's four themes are sections; 93 controls and 30 clause requirements are assessed.
    expect([iso.name, iso.sections, iso.requirements, iso.adopted]).toEqual([
      'ISO/IEC 27001:2022',
      15,
      123,
      null,
    ]);
    expect(iso.crosswalks).toEqual([
      { catalog: 'soc2-2017', mappings: 170 },
      { catalog: 'nist-csf-2.0', mappings: 198 },
      { catalog: 'nis2', mappings: 76 },
      { catalog: 'dora', mappings: 152 },
    ]);
  });

  it('adopts ISO/IEC 27001:2022 with its tree, once however often it is loaded', async () => {
    const adopted = await run('importFrameworkCatalog', { catalog: 'ISO 27001 2022', organization_id: org });
    const framework = adopted.framework as Row;
    isoId = framework.id as string;
    expect([framework.name, framework.created, adopted.catalog]).toEqual([
      'ISO/IEC 27001:2022',
      true,
      { key: 'iso-27001-2022', revision: 1 },
    ]);
    expect(adopted.counts).toEqual({ created: 138, updated: 0, unchanged: 0, removed: 0, skipped: 0 });

    const again = await run('importFrameworkCatalog', { catalog: 'iso-27001-2022', organization_id: org });
    expect((again.framework as Row).id).toBe(isoId);
    expect(again.counts).toEqual({ created: 0, updated: 0, unchanged: 138, removed: 0, skipped: 0 });

    const got = (await run('getFramework', { id: isoId })).framework as Row;
    expect(got.version).toBe('2022 (Amd 1:2024)');
    const rows = await allRequirements(isoId);
    expect(rows).toHaveLength(138);
    const byRef = new Map(rows.map((row) => [row.reference, row]));
    const clause6 = byRef.get('6') as Row;
    const risks = byRef.get('6.1') as Row;
    const people = byRef.get('A.6') as Row;
    const screening = byRef.get('A.6.1') as Row;
    expect([
      clause6.is_section,
      risks.is_section,
      risks.parent_id,
      people.parent_id,
      screening.parent_id,
    ]).toEqual([true, true, clause6.id, null, people.id]);
    expect(rows.filter((row) => row.parent_id === people.id)).toHaveLength(8);
    expect(rows.filter((row) => String(row.reference).startsWith('A.') && !row.is_section)).toHaveLength(93);

    const listed = (await run('listCatalogs', { organization_id: org })).catalogs as Row[];
    expect(listed[0]?.adopted).toEqual({ framework_id: isoId, name: 'ISO/IEC 27001:2022', revision: 1 });
    // The other organization adopted nothing.
    const theirs = (await ok(runtime, otherToken, 'listCatalogs', { organization_id: otherOrg }))
      .catalogs as Row[];
    expect(theirs[0]?.adopted).toBeNull();
    // Nor can it be read from there.
    const foreign = await callDirect(runtime, otherToken, 'listCatalogs', { organization_id: org });
    expect(foreign.status).toBe(404);
  });

  it('refuses an unknown catalogue, listing the known ones', async () => {
    const refused = await call('importFrameworkCatalog', { catalog: 'iso-9001', organization_id: org });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toContain(
      'No built-in catalogue "iso-9001". Known catalogues: iso-27001-2022',
    );
  });

  it('takes a requirement by framework and reference, and lists an exact reference first', async () => {
    const mfa = await measure('Multi-factor authentication');
    const linked = await run('linkRequirementMeasure', {
      requirement: { framework: 'ISO/IEC 27001:2022', reference: 'A.8.5' },
      measure_id: mfa,
    });
    const a85 = (await allRequirements(isoId)).find((row) => row.reference === 'A.8.5') as Row;
    expect([linked.requirement_id, linked.measure_ids]).toEqual([a85.id, [mfa]]);

    const missing = await call('linkRequirementMeasure', {
      requirement: { framework: 'iso-27001-2022', reference: 'A.9.9' },
      measure_id: mfa,
    });
    expect(missing.status).toBe(404);
    expect(errorOf(missing).message).toContain('no requirement A.9.9 in ISO/IEC 27001:2022');

    const section = await call('linkRequirementMeasure', {
      requirement: { framework: 'iso-27001-2022', reference: 'A.8' },
      measure_id: mfa,
    });
    expect(section.status).toBe(400);

    const listed = await run('listRequirements', { organization_id: org, filter: { query: 'A.5.1' } });
    const references = (listed.requirements as Row[]).map((row) => row.reference);
    expect(references[0]).toBe('A.5.1');
    expect(references).toContain('A.5.18');
  });

  it('answers what a requirement maps to, and proposes mappings when SOC 2 is adopted', async () => {
    const crosswalk = await run('listCrosswalkMappings', {
      organization_id: org,
      requirement: { framework: 'iso-27001-2022', reference: 'A.8.5' },
      to_catalog: 'soc2-2017',
    });
    const pairs = (crosswalk.mappings as Row[]).map((pair) => [
      (pair.to as Row).reference,
      pair.relationship,
    ]);
    expect(pairs).toEqual([
      ['CC6.1', 'subset'],
      ['CC6.6', 'intersects'],
    ]);

    const soc = await run('importFrameworkCatalog', { catalog: 'soc2-2017', organization_id: org });
    const socId = (soc.framework as Row).id as string;
    expect(soc.counts).toEqual({ created: 81, updated: 0, unchanged: 0, removed: 0, skipped: 0 });
    expect(soc.proposals).toEqual({ created: 2, pending: 2 });

    const proposals = (
      await run('listMappingProposals', { organization_id: org, filter: { framework_id: socId } })
    ).proposals as Row[];
    expect(
      proposals.map((item) => [
        (item.requirement as Row).reference,
        (item.source as Row).reference,
        item.status,
      ]),
    ).toEqual([
      ['CC6.1', 'A.8.5', 'PROPOSED'],
      ['CC6.6', 'A.8.5', 'PROPOSED'],
    ]);
    const cc61 = proposals.find((item) => (item.requirement as Row).reference === 'CC6.1') as Row;
    const cc66 = proposals.find((item) => (item.requirement as Row).reference === 'CC6.6') as Row;

    const rejected = await run('declineMappingProposals', { organization_id: org, proposal_ids: [cc66.id] });
    const accepted = await run('acceptMappingProposals', { organization_id: org, framework_id: socId });
    expect([accepted.accepted, accepted.linked, rejected.skipped]).toEqual([1, 1, []]);

    const mapped = await run('getRequirement', {
      id: (cc61.requirement as Row).id,
    });
    expect((mapped.requirement as Row).measure_ids).toEqual([(cc61.measure as Row).id]);
    // Neither is proposed again into SOC 2; ISO controls CC6.1 pairs with are proposed for the measure now.
    const rerun = await run('proposeMappings', { organization_id: org, framework_id: socId });
    expect(rerun).toEqual({ created: 0, pending: 0, dry_run: false });
    const intoIso = await run('proposeMappings', {
      organization_id: org,
      framework_id: isoId,
      dry_run: true,
    });
    expect(intoIso.created).toBeGreaterThan(0);
  });
});

describe('a catalog from a stored file', () => {
  it("loads a CSV stored with the upload route, read as a stream, and refuses another organization's file", async () => {
    const rows = Array.from(
      { length: 300 },
      (_, index) => `S.${index + 1},Stored requirement ${index + 1},S,no`,
    );
    const csv = `ref,title,parent,section\nS,Stored section,,yes\n${rows.join('\n')}\n`;
    const response = await runtime.app.fetch(
      new Request(`${BASE}/api/v1/orgs/${org}/files?name=catalog.csv`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
        body: csv,
      }),
    );
    expect(response.status).toBe(201);
    const fileId = ((await response.json()) as { file: { id: string } }).file.id;
    const framework = ((await run('addFramework', { organization_id: org, name: 'Stored' })).framework as Row)
      .id as string;
    const loaded = await run('importFrameworkCatalog', {
      framework_id: framework,
      format: 'csv',
      file_id: fileId,
    });
    expect(loaded.counts).toEqual({ created: 301, updated: 0, unchanged: 0, removed: 0, skipped: 0 });
    expect((await allRequirements(framework)).find((row) => row.reference === 'S.300')?.title).toBe(
      'Stored requirement 300',
    );

    const theirs = (
      (await ok(runtime, otherToken, 'addFramework', { organization_id: otherOrg, name: 'Theirs' }))
        .framework as Row
    ).id as string;
    const refused = await callDirect(runtime, otherToken, 'importFrameworkCatalog', {
      framework_id: theirs,
      format: 'csv',
      file_id: fileId,
    });
    expect(refused.status).toBe(404);
  });
});
