// Parse budgets of the files an import reads (docs/security.md, "Input limits"): an XLSX zip bomb is refused at its
// inflate limit, naming it, through the reader and the web import; a shared string cannot make a cell longer than a
// cell may be; one importRecords call takes at most 10,000 rows and a web upload's text at most 8 characters per byte
// of the body limit; an OSCAL catalog is measured before it is parsed and cannot grow its descriptions past their
// limit. The same zip bomb on the Worker: test/worker/input-limits.test.ts; memory and time against a real Node host:
// test/core/input-limits-host.test.ts.
import { deflateSync, strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { parseCatalog } from '../../src/tools/catalogs/import.ts';
import { OSCAL_BUDGET, parseOscalCatalog } from '../../src/tools/catalogs/oscal.ts';
import { MAX_IMPORT_ROWS } from '../../src/tools/imports/limits.ts';
import { inflateBudget, RATIO_GRACE_BYTES } from '../../src/tools/tables/inflate.ts';
import { readXlsxRows } from '../../src/tools/tables/xlsx-reader.ts';
import { xlsxBomb } from '../attacks.ts';
import { callDirect, errorOf, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf } from '../web/web-client.ts';

const runtimes = runtimesCleanedAfterEach();

/** The AppError `work` throws (the test fails when it throws none or another kind). */
async function refusal(work: () => unknown): Promise<AppError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function rowsOf(bytes: Uint8Array) {
  const rows: string[][] = [];
  for await (const row of readXlsxRows(bytes)) rows.push(row.cells);
  return rows;
}

/** Text that deflates about 3:1 (digits of a counter), `bytes` long. */
function lowRatioText(bytes: number): Uint8Array {
  let text = '';
  for (let index = 0; text.length < bytes; index++) text += `${(index * 7919) % 100_003},`;
  return strToU8(text.slice(0, bytes));
}

/** A workbook of one sheet whose rows' cells are given as XML, with the given shared strings. */
function workbookWith(rowsXml: string, sharedStrings: string[]): Uint8Array<ArrayBuffer> {
  const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  const zip = zipSync({
    'xl/workbook.xml': strToU8(
      `<workbook ${main} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    'xl/_rels/workbook.xml.rels': strToU8(
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
    ),
    'xl/sharedStrings.xml': strToU8(
      `<sst ${main}>${sharedStrings.map((text) => `<si><t>${text}</t></si>`).join('')}</sst>`,
    ),
    'xl/worksheets/sheet1.xml': strToU8(`<worksheet ${main}><sheetData>${rowsXml}</sheetData></worksheet>`),
  });
  return new Uint8Array(zip);
}

describe('the inflate budget', () => {
  const limits = { maxEntryBytes: 100_000, maxTotalBytes: 150_000, maxRatio: 100 };

  it('stops an entry at the first piece over its limit, naming the limit, before passing that piece on', () => {
    const budget = inflateBudget(limits, 'The workbook');
    let delivered = 0;
    const entry = budget.entry('xl/sharedStrings.xml', 8, (chunk) => {
      delivered += chunk.byteLength;
    });
    const error = (() => {
      try {
        entry.push(deflateSync(lowRatioText(300_000)), true);
      } catch (caught) {
        return caught as AppError;
      }
    })();
    expect(error?.code).toBe('invalid_arguments');
    expect(error?.message).toBe(
      'The workbook is refused: its part xl/sharedStrings.xml inflates to more than 100,000 bytes, the limit of one part.',
    );
    expect(error?.details).toEqual([
      { path: 'xl/sharedStrings.xml', message: 'Over the limit of one part: 100000 bytes inflated' },
    ]);
    expect(delivered).toBeGreaterThan(50_000);
    expect(delivered).toBeLessThanOrEqual(100_000);
  });

  it('counts all the entries of a file together, and reads stored entries too', () => {
    const budget = inflateBudget(limits, 'The workbook');
    const first = lowRatioText(90_000);
    let delivered = 0;
    budget
      .entry('xl/styles.xml', 0, (chunk) => {
        delivered += chunk.byteLength;
      })
      .push(first, true);
    expect(delivered).toBe(90_000);
    expect(budget.totalBytes).toBe(90_000);
    const error = (() => {
      try {
        budget.entry('xl/sharedStrings.xml', 8, () => {}).push(deflateSync(lowRatioText(90_000)), true);
      } catch (caught) {
        return caught as AppError;
      }
    })();
    expect(error?.message).toBe(
      'The workbook is refused: its parts inflate to more than 150,000 bytes together, the limit of a file.',
    );
  });

  it('refuses a part past 1 MiB that inflates more than the ratio limit, and lets a small one compress far better', () => {
    const wide = { maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024, maxRatio: 100 };
    let small = 0;
    inflateBudget(wide, 'The workbook')
      .entry('xl/styles.xml', 8, (chunk) => {
        small += chunk.byteLength;
      })
      .push(deflateSync(new Uint8Array(RATIO_GRACE_BYTES)), true);
    expect(small).toBe(RATIO_GRACE_BYTES);
    const error = (() => {
      try {
        inflateBudget(wide, 'The workbook')
          .entry('xl/sharedStrings.xml', 8, () => {})
          .push(deflateSync(new Uint8Array(RATIO_GRACE_BYTES * 4)), true);
      } catch (caught) {
        return caught as AppError;
      }
    })();
    expect(error?.message).toBe(
      'The workbook is refused: its part xl/sharedStrings.xml inflates to more than 100 times its compressed size, the ratio limit (a zip bomb?).',
    );
  });
});

describe('XLSX zip bombs', () => {
  it('refuses the 150 KB workbook whose shared strings inflate to 150 MB at the ratio limit', async () => {
    const bomb = await xlsxBomb({ inflatedBytes: 150_000_000 });
    expect(bomb.byteLength).toBeLessThan(200_000);
    const error = await refusal(() => rowsOf(bomb));
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('its part xl/sharedStrings.xml inflates to more than 100 times');
    expect(error.details).toEqual([
      {
        path: 'xl/sharedStrings.xml',
        message: 'Over the inflate ratio limit: 100 times its compressed size',
      },
    ]);
  });

  it('refuses a sheet that inflates to 50 MB of empty rows, streamed or not', async () => {
    const bomb = await xlsxBomb({ inflatedBytes: 50_000_000, part: 'sheet' });
    const error = await refusal(() => rowsOf(bomb));
    expect(error.message).toContain('its part xl/worksheets/sheet1.xml inflates to more than 100 times');
  });

  it('holds a cell that shows a shared string to the cell limit of 100,000 characters', async () => {
    const long = 'x'.repeat(100_001);
    const fits = workbookWith('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', ['x'.repeat(100_000)]);
    expect((await rowsOf(fits))[0]?.[0]).toHaveLength(100_000);
    const error = await refusal(() =>
      rowsOf(workbookWith('<row r="1"><c r="A1" t="s"><v>0</v></c></row>', [long])),
    );
    expect(error.message).toBe('A cell of row 1 is longer than 100000 characters.');
  });

  it('refuses the bomb uploaded to the web import, naming the limit, and writes nothing', async () => {
    const { runtime, client, organizationId, token } = await signedUpRuntime(runtimes);
    const path = `/orgs/${organizationId}/risks/import`;
    const form = new FormData();
    form.append('_csrf', csrfOf((await client.get(path)).html));
    form.append('file', new File([await xlsxBomb({ inflatedBytes: 150_000_000 })], 'bomb.xlsx'));
    const page = await client.request(path, {
      method: 'POST',
      body: form,
      headers: { origin: client.base },
    });
    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain(
      'The workbook is refused: its part xl/sharedStrings.xml inflates to more than 100 times its compressed size, the ratio limit (a zip bomb?).',
    );
    const risks = await ok<{ total_count: number }>(runtime, token, 'listRisks', {
      organization_id: organizationId,
    });
    expect(risks.total_count).toBe(0);
  });

  it('holds the text an uploaded workbook gives to 8 characters per byte of the body limit', async () => {
    const { client, organizationId } = await signedUpRuntime(runtimes);
    // 90 rows each showing a shared string of 100,000 characters: 9 million characters from a file of a few KB.
    const rows = Array.from(
      { length: 90 },
      (_, index) => `<row r="${index + 2}"><c r="A${index + 2}" t="s"><v>1</v></c></row>`,
    ).join('');
    const workbook = workbookWith(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>${rows}`, [
      'name',
      'x'.repeat(100_000),
    ]);
    const path = `/orgs/${organizationId}/vendors/import`;
    const form = new FormData();
    form.append('_csrf', csrfOf((await client.get(path)).html));
    form.append('file', new File([workbook], 'wide.xlsx'));
    const page = await client.request(path, { method: 'POST', body: form, headers: { origin: client.base } });
    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain(
      "The file's cells hold more than 8,388,608 characters, the most one upload may give",
    );
  });
});

describe('rows an import takes', () => {
  it(`refuses row ${MAX_IMPORT_ROWS + 1} of a CSV, a 1 MiB body of short rows, and takes ${MAX_IMPORT_ROWS}`, async () => {
    const { runtime, organizationId, token } = await signedUpRuntime(runtimes);
    const csv = (rows: number) =>
      `name\n${Array.from({ length: rows }, (_, index) => `v${index.toString(36)}`).join('\n')}`;
    const taken = await ok<{ counts: { rows: number; created: number } }>(runtime, token, 'importRecords', {
      organization_id: organizationId,
      kind: 'vendor',
      csv: csv(MAX_IMPORT_ROWS),
      dry_run: true,
    });
    expect(taken.counts).toMatchObject({ rows: MAX_IMPORT_ROWS, created: MAX_IMPORT_ROWS });
    // The attack: 150,000 short rows in an 810 KB body (100,000 of them held ~350 MB while their batch was built).
    const refused = await callDirect(runtime, token, 'importRecords', {
      organization_id: organizationId,
      kind: 'vendor',
      csv: csv(150_000),
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({
      code: 'invalid_arguments',
      message:
        'The file has more than 10,000 rows, the most one import takes: import it in parts, or with the CLI (compliance-mcp import), which takes any number.',
      details: [{ path: 'row 10002', message: 'More than 10000 rows' }],
    });
    const vendors = await ok<{ total_count: number }>(runtime, token, 'listVendors', {
      organization_id: organizationId,
    });
    expect(vendors.total_count).toBe(0);
  });
});

describe('the OSCAL parse budget', () => {
  const catalogOf = (controls: unknown[], params: unknown[] = []) =>
    JSON.stringify({ catalog: { groups: [{ id: 'ac', title: 'Access', controls, params }] } });

  it('refuses JSON nested deeper than 64 levels before parsing it', () => {
    let parts: unknown = { name: 'item', prose: 'deep' };
    for (let depth = 0; depth < 40; depth++) parts = { name: 'item', parts: [parts] };
    const text = catalogOf([{ id: 'ac-1', title: 'Policy', parts: [{ name: 'statement', parts: [parts] }] }]);
    expect(() => parseOscalCatalog(text)).toThrowError(
      'The catalog is refused: it nests more than 64 levels deep, the limit of a parse.',
    );
  });

  it('refuses more values or characters than its budget, and takes what fits', () => {
    const text = catalogOf([{ id: 'ac-1', title: 'Policy' }]);
    expect(parseOscalCatalog(text).entries.map((entry) => entry.reference)).toEqual(['ac', 'ac-1']);
    expect(() => parseOscalCatalog(text, { ...OSCAL_BUDGET, maxValues: 10 })).toThrowError(
      'The catalog is refused: it holds more than 10 values, the limit of a parse.',
    );
    expect(() => parseOscalCatalog(text, { ...OSCAL_BUDGET, maxLength: 20 })).toThrowError(
      'The catalog is refused: it has more than 20 characters, the limit of its length.',
    );
  });

  it('builds a description no longer than its limit when a long parameter is inserted many times', () => {
    // 20,000 insertions of a 10,000-character label: 200 million characters from a 500 KB file.
    const prose = '{{ insert: param, ac-1_prm_1 }} '.repeat(20_000);
    const text = catalogOf(
      [{ id: 'ac-1', title: 'Policy', parts: [{ name: 'statement', prose }] }],
      [{ id: 'ac-1_prm_1', label: 'l'.repeat(10_000) }],
    );
    const entry = parseOscalCatalog(text).entries.find((item) => item.reference === 'ac-1');
    expect(entry?.description?.length).toBeGreaterThan(20_000);
    expect(entry?.description?.length).toBeLessThan(prose.length + 40_000);
    expect(() => parseCatalog('oscal', text)).toThrowError(
      'The catalog was not imported: catalog.groups[0].controls[0].description: Longer than 20000 characters.',
    );
  });
});
