// XLSX written as a stream (fflate's Zip, deflated as it goes): one sheet, a bold header row, text as inline strings
// (a spreadsheet never reads them as formulas), numbers as numbers, dates as date cells. Runs on Node and workerd.
import { Zip, ZipDeflate } from 'fflate';

/** A cell: text, a number, or a date (YYYY-MM-DD) shown as a date. */
export type XlsxCell = string | number | null | { date: string };

const encoder = new TextEncoder();

// XML 1.0 allows tab, line feed and carriage return, and no other control character.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML cannot hold.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** A 0-based column index as letters: 0 -> A, 26 -> AA. */
export function columnLetters(index: number): string {
  let letters = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

function serialOf(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 86_400_000 + 25_569;
}

function cellXml(cell: XlsxCell, reference: string, style: number): string {
  if (cell === null || cell === '') return '';
  const styled = style ? ` s="${style}"` : '';
  if (typeof cell === 'number') return `<c r="${reference}"${styled}><v>${cell}</v></c>`;
  if (typeof cell === 'object') {
    const serial = serialOf(cell.date);
    if (!Number.isNaN(serial)) return `<c r="${reference}" s="2"><v>${serial}</v></c>`;
    return cellXml(cell.date, reference, style);
  }
  return `<c r="${reference}" t="inlineStr"${styled}><is><t xml:space="preserve">${escapeXml(cell)}</t></is></c>`;
}

const STATIC_PARTS: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>',
  '_rels/.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  'xl/_rels/workbook.xml.rels':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  // Styles: 0 plain, 1 bold (the header), 2 a date (built-in format 14).
  'xl/styles.xml':
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>',
};

export interface XlsxWriter {
  /** Bytes of the workbook so far, from the header row (written at once). */
  header(cells: readonly string[]): Uint8Array;
  /** Rows, as the bytes they compress to (possibly none yet: deflate buffers). */
  rows(rows: readonly (readonly XlsxCell[])[]): Uint8Array;
  /** The end of the sheet and of the zip. */
  finish(): Uint8Array;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** A workbook of one sheet named `sheetName`, written row by row. */
export function createXlsxWriter(sheetName: string): XlsxWriter {
  let pending: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    pending.push(chunk);
  });
  const take = () => {
    const out = concat(pending);
    pending = [];
    return out;
  };
  const name = escapeXml(sheetName.replace(/[\\/?*[\]:]/g, ' ').slice(0, 31) || 'Sheet1');
  const parts = {
    ...STATIC_PARTS,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${name}" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  };
  for (const [path, text] of Object.entries(parts)) {
    const file = new ZipDeflate(path, { level: 6 });
    zip.add(file);
    file.push(encoder.encode(text), true);
  }
  const sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 6 });
  zip.add(sheet);
  let rowNumber = 0;
  const rowXml = (cells: readonly XlsxCell[], style: number) => {
    rowNumber++;
    return `<row r="${rowNumber}">${cells.map((cell, index) => cellXml(cell, `${columnLetters(index)}${rowNumber}`, style)).join('')}</row>`;
  };
  return {
    header(cells) {
      sheet.push(
        encoder.encode(
          `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rowXml(cells, 1)}`,
        ),
      );
      return take();
    },
    rows(rows) {
      if (rows.length > 0) sheet.push(encoder.encode(rows.map((cells) => rowXml(cells, 0)).join('')));
      return take();
    },
    finish() {
      sheet.push(encoder.encode('</sheetData></worksheet>'), true);
      zip.end();
      return take();
    },
  };
}
