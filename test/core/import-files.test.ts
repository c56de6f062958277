// Files as imports read them: CSV (separators, BOM, UTF-16, quotes, limits), XLSX as spreadsheet programs write it
// (shared and inline strings, formulas by their cached value, date styles, sparse rows, a named sheet), bad files
// refused with a clear error and nothing written, the CLI streaming a file in one transaction, and an import
// counting as one call against the rate limit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsvReader, decodeTableBytes, parseCsv } from '../../src/tools/tables/csv-reader.ts';
import { readXlsxRows } from '../../src/tools/tables/xlsx-reader.ts';
import { type BoundCli, cliOrganization } from '../cli-run.ts';
import {
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

async function rowsOf(bytes: Uint8Array, sheet?: string) {
  const rows: { number: number; cells: string[] }[] = [];
  for await (const row of readXlsxRows(bytes, sheet)) rows.push(row);
  return rows;
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** A workbook as spreadsheet programs write one: shared strings, styles, two sheets, a prefix on the sheet's XML. */
function workbook(options: { date1904?: boolean } = {}): Uint8Array {
  return zipSync({
    '[Content_Types].xml': strToU8(
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    ),
    'xl/workbook.xml': strToU8(
      `${XML}<workbook ${MAIN} ${REL}><workbookPr${options.date1904 ? ' date1904="1"' : ''}/><sheets><sheet name="Notes" sheetId="1" r:id="rId1"/><sheet name="Risks" sheetId="2" r:id="rId2"/></sheets></workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>`,
    ),
    'xl/sharedStrings.xml': strToU8(
      `${XML}<sst ${MAIN} count="4" uniqueCount="4"><si><t>Name</t></si><si><t>Due</t></si><si><r><t>Rich </t></r><r><rPr><b/></rPr><t>text &amp; more</t></r><rPh><t>ふりがな</t></rPh></si><si><t xml:space="preserve"> spaced </t></si></sst>`,
    ),
    'xl/styles.xml': strToU8(
      `${XML}<styleSheet ${MAIN}><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy;@"/></numFmts><cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="4"/></cellXfs></styleSheet>`,
    ),
    'xl/worksheets/sheet1.xml': strToU8(
      `${XML}<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>notes</t></is></c></row></sheetData></worksheet>`,
    ),
    'xl/worksheets/sheet2.xml': strToU8(
      `${XML}<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>` +
        '<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c><x:c r="C1" t="inlineStr"><x:is><x:t>Score</x:t></x:is></x:c><x:c r="D1" t="inlineStr"><x:is><x:t>Flag</x:t></x:is></x:c></x:row>' +
        '<x:row r="2"><x:c r="A2" t="s"><x:v>2</x:v></x:c><x:c r="B2" s="1"><x:v>46351</x:v></x:c><x:c r="C2"><x:f>SUM(1,1)</x:f><x:v>2</x:v></x:c><x:c r="D2" t="b"><x:v>1</x:v></x:c></x:row>' +
        '<x:row r="4"><x:c r="A4" t="str"><x:f>"=A"&amp;"1"</x:f><x:v>=A1</x:v></x:c><x:c r="B4" s="2"><x:v>46351.75</x:v></x:c><x:c r="C4" s="3"><x:v>1234.5</x:v></x:c></x:row>' +
        '<x:row r="5"><x:c r="A5" t="s"><x:v>3</x:v></x:c><x:c r="D5" t="e"><x:v>#N/A</x:v></x:c></x:row>' +
        '<x:row r="6"><x:c r="A6"><x:f>NOW()</x:f></x:c></x:row>' +
        '</x:sheetData></x:worksheet>',
    ),
  });
}

describe('CSV files', () => {
  it('reads commas, semicolons and tabs, quotes, a BOM or none, line breaks in quotes, whatever the pieces', () => {
    const text = '\uFEFFname;note\r\n"A; b";"line one\r\nline ""two"""\r\n\r\nC;\n';
    expect(parseCsv(text)).toEqual([
      ['name', 'note'],
      ['A; b', 'line one\r\nline "two"'],
      ['C', ''],
    ]);
    expect(parseCsv('a\tb\n1\t2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    const reader = createCsvReader();
    const rows = [...text].flatMap((char) => reader.push(char)).concat(reader.end());
    expect(rows.map((row) => [row.number, row.cells])).toEqual([
      [1, ['name', 'note']],
      [2, ['A; b', 'line one\r\nline "two"']],
      [4, ['C', '']],
    ]);
  });

  it('decodes UTF-16 saved with its byte-order mark, and refuses bytes that are not UTF-8', () => {
    const utf16 = new Uint8Array([
      0xff,
      0xfe,
      ...new Uint8Array(new Uint16Array([...'Nämé,x'].map((c) => c.charCodeAt(0))).buffer),
    ]);
    expect(decodeTableBytes(utf16)).toBe('Nämé,x');
    expect(() => decodeTableBytes(new Uint8Array([0x4e, 0xe4, 0x6d]))).toThrow(/not UTF-8 text/);
  });

  it('refuses an unbalanced quote and 10,000 columns, naming where', () => {
    expect(() => parseCsv('name\n"open\n')).toThrow(
      'The CSV has a quote that is never closed: row 2, column 1.',
    );
    expect(() =>
      parseCsv(`${Array.from({ length: 10_000 }, (_, index) => `c${index}`).join(',')}\n`),
    ).toThrow(/Row 1 has more than 500 columns/);
  });
});

describe('XLSX files', () => {
  it('reads the first sheet, or one by name, every cell as text: formulas by their cached value, dates as ISO', async () => {
    expect(await rowsOf(workbook())).toEqual([{ number: 1, cells: ['notes'] }]);
    expect(await rowsOf(workbook(), 'risks')).toEqual([
      { number: 1, cells: ['Name', 'Due', 'Score', 'Flag'] },
      { number: 2, cells: ['Rich text & more', '2026-11-25', '2', 'TRUE'] },
      { number: 4, cells: ['=A1', '2026-11-25T18:00:00', '1234.5'] },
      { number: 5, cells: [' spaced ', '', '', '#N/A'] },
    ]);
    const in1904 = await rowsOf(workbook({ date1904: true }), 'Risks');
    expect(in1904[1]?.cells[1]).toBe('2030-11-26');
    await expect(rowsOf(workbook(), 'Missing')).rejects.toThrow(
      'The workbook has no sheet named "Missing"; its sheets: "Notes", "Risks".',
    );
    await expect(rowsOf(strToU8('name,x\n'))).rejects.toThrow(/not an XLSX workbook/);
  });
});

describe('importing files', () => {
  let runtime: TestRuntime;
  let token: string;
  let org: string;

  beforeAll(async () => {
    // The clock starts at the beginning of a minute and runs on: the rate limit's window does not turn mid-test.
    const started = Date.now();
    const minute = Date.parse('2026-05-04T06:00:00.000Z');
    runtime = await createTestRuntime({
      env: { RATE_LIMIT_PER_MINUTE: '3', MAX_BODY_BYTES: '20000' },
      now: () => new Date(minute + (Date.now() - started)),
    });
    const alice = await createActor(runtime, 'alice');
    org = await createOrg(runtime, alice, 'Files Org');
    token = await createToken(runtime, alice);
  });

  afterAll(async () => {
    await runtime?.cleanup();
  });

  const importCsv = (csv: string, extra: Row = {}) =>
    callDirect(runtime, token, 'importRecords', { organization_id: org, kind: 'vendor', csv, ...extra });

  it('refuses bad files with a clear error and writes nothing; one import is one call against the rate limit', async () => {
    const big = `Name\n${Array.from({ length: 1000 }, (_, index) => `Vendor ${index}`).join('\n')}\n`;
    const first = await importCsv(big);
    expect(first.body).toMatchObject({ written: true, counts: { created: 1000 } });
    const refused = [
      await importCsv('Name,Website\n"Open quote,https://a.example\n'),
      await importCsv('Name,Website\n'),
    ];
    // Three calls in this minute: the fourth is refused, however many rows the first one held.
    const limited = await importCsv('Name\nOne more\n');
    expect(limited.status).toBe(429);
    expect(refused.map((result) => errorOf(result).message)).toEqual([
      'The CSV has a quote that is never closed: row 2, column 1.',
      'The file has only a header row: no vendors to import.',
    ]);
  });
});

describe('compliance-mcp import', () => {
  let dir: string;
  let env: Record<string, string>;
  let orgId: string;
  let cli: BoundCli;
  let remove: () => void;

  beforeAll(async () => {
    ({ dir, env, orgId, cli, remove } = await cliOrganization('cmcp-import-cli-'));
  });

  afterAll(() => remove());

  it('imports a UTF-16 tab-separated file in one transaction, and rolls back a file with one bad row', async () => {
    const people = join(dir, 'people.txt');
    const text =
      'Full name\tEmail\tKind\nAda Lovelace\tada@example.com\tEmployee\nGrace Hopper\tgrace@example.com\tcontractor\n';
    writeFileSync(people, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const imported = await cli('import', '--org', orgId, '--kind', 'people', people);
    expect(imported.code, imported.err).toBe(0);
    expect(JSON.parse(imported.out)).toMatchObject({ written: true, counts: { created: 2, refused: 0 } });
    const risks = join(dir, 'risks.csv');
    const rows = Array.from(
      { length: 2500 },
      (_, index) => `Risk ${index},Ada Lovelace,3,${index === 2400 ? 9 : 3}`,
    );
    writeFileSync(risks, `Name,Owner,Inherent likelihood,Inherent impact\n${rows.join('\n')}\n`);
    const dry = await cli('import', '--org', orgId, '--kind', 'risks', '--dry-run', risks);
    expect(JSON.parse(dry.out)).toMatchObject({
      dry_run: true,
      counts: { rows: 2500, created: 2499, refused: 1 },
      errors: [
        {
          row: 2402,
          column: 'Inherent impact',
          field: 'inherent_impact',
          message: expect.stringMatching(/beyond the organization's scale \(1-5\)/),
        },
      ],
    });
    const refused = await cli('import', '--org', orgId, '--kind', 'risks', risks);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      'Nothing was imported: 1 of 2500 rows are refused (row 2402, column "Inherent impact", field inherent_impact',
    );
    const database = (await import('../../src/db/open-node.ts')).openNodeDatabase;
    const db = await database(env.DATABASE_URL ?? '');
    const count = await db.client.execute({
      sql: 'select count(*) as n from risks where organization_id = ?',
      args: [orgId],
    });
    expect(Number(count.rows[0]?.n)).toBe(0);
    db.client.close();
  });
});
