// A small PDF writer for the documents the service renders itself (the Art. 30 record, the statement of applicability):
// A4 pages of headings, paragraphs and tables in the standard Helvetica fonts, text selectable, pages numbered. Plain
// JavaScript over Uint8Array, so both hosts make the same bytes. Text outside Windows-1252 is written as "?".

/** One piece of a document, in reading order. */
export type Block =
  | { kind: 'heading'; text: string; level: 1 | 2 }
  | { kind: 'paragraph'; text: string; small?: boolean }
  | { kind: 'table'; columns: { title: string; width: number }[]; rows: string[][] };

export interface PdfDocument {
  title: string;
  /** A4 upright (default) or on its side, for wide tables. */
  landscape?: boolean;
  /** A line under every page's number, e.g. the organization and the date rendered. */
  footer?: string;
  blocks: Block[];
}

const A4 = { width: 595.28, height: 841.89 }; // in points
const MARGIN = { left: 48, right: 48, top: 56, bottom: 64 };

// Glyph widths (1/1000 em) of Helvetica and Helvetica-Bold for the codes 32-126, from the standard font metrics.
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278,
  500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469,
  556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500,
  278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278,
  556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584,
  556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556,
  333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

/** Windows-1252 codes of the characters 0x80-0x9F that differ from Latin-1. */
const CP1252: Record<number, number> = {
  8364: 0x80,
  8218: 0x82,
  402: 0x83,
  8222: 0x84,
  8230: 0x85,
  8224: 0x86,
  8225: 0x87,
  710: 0x88,
  8240: 0x89,
  352: 0x8a,
  8249: 0x8b,
  338: 0x8c,
  381: 0x8e,
  8216: 0x91,
  8217: 0x92,
  8220: 0x93,
  8221: 0x94,
  8226: 0x95,
  8211: 0x96,
  8212: 0x97,
  732: 0x98,
  8482: 0x99,
  353: 0x9a,
  8250: 0x9b,
  339: 0x9c,
  382: 0x9e,
  376: 0x9f,
};

/** The text's bytes in Windows-1252 (WinAnsiEncoding); a character it lacks becomes "?". */
function encode(text: string): number[] {
  const out: number[] = [];
  for (const char of text.normalize('NFC')) {
    const code = char.codePointAt(0) ?? 63;
    if (code === 9) out.push(32);
    else if (code >= 32 && code < 127) out.push(code);
    else if (code >= 0xa0 && code <= 0xff) out.push(code);
    else out.push(CP1252[code] ?? 63);
  }
  return out;
}

/** A code's width: the metrics for ASCII, an estimate (an average letter) for the rest. */
function widthOf(codes: number[], size: number, bold: boolean): number {
  const table = bold ? BOLD : REGULAR;
  let units = 0;
  for (const code of codes) units += code >= 32 && code < 127 ? (table[code - 32] ?? 556) : 600;
  return (units * size) / 1000;
}

/** Lines of at most `width` points; a word longer than a line is cut. */
function wrap(text: string, width: number, size: number, bold: boolean): number[][] {
  const lines: number[][] = [];
  for (const paragraph of text.split('\n')) {
    let line: number[] = [];
    for (const word of paragraph.split(' ')) {
      const codes = encode(word);
      const candidate = line.length === 0 ? codes : [...line, 32, ...codes];
      if (widthOf(candidate, size, bold) <= width) {
        line = candidate;
        continue;
      }
      if (line.length > 0) lines.push(line);
      line = [];
      let rest = codes;
      while (widthOf(rest, size, bold) > width) {
        let cut = rest.length - 1;
        while (cut > 1 && widthOf(rest.slice(0, cut), size, bold) > width) cut -= 1;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

/** A PDF string literal of the codes, with `(`, `)` and `\` escaped and bytes beyond ASCII in octal. */
function literal(codes: number[]): string {
  let out = '(';
  for (const code of codes) {
    if (code === 40 || code === 41 || code === 92) out += `\\${String.fromCharCode(code)}`;
    else if (code < 32 || code > 126) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(code);
  }
  return `${out})`;
}

interface Page {
  ops: string[];
}

/** Lays the blocks out on pages, then writes the file: catalog, pages, fonts, one content stream a page, info. */
export function renderPdf(doc: PdfDocument, createdAt: Date): Uint8Array {
  const PAGE = doc.landscape ? { width: A4.height, height: A4.width } : A4;
  const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
  const pages: Page[] = [];
  let page: Page = { ops: [] };
  let y = PAGE.height - MARGIN.top;
  const newPage = () => {
    pages.push(page);
    page = { ops: [] };
    y = PAGE.height - MARGIN.top;
  };
  const text = (codes: number[], x: number, at: number, size: number, bold: boolean) =>
    page.ops.push(
      `BT /${bold ? 'F2' : 'F1'} ${size} Tf ${x.toFixed(2)} ${at.toFixed(2)} Td ${literal(codes)} Tj ET`,
    );
  const room = (height: number) => {
    if (y - height < MARGIN.bottom) newPage();
  };

  for (const block of doc.blocks) {
    if (block.kind === 'heading') {
      const size = block.level === 1 ? 16 : 12.5;
      const lines = wrap(block.text, CONTENT_WIDTH, size, true);
      room(lines.length * size * 1.3 + size * 2.5);
      y -= size * 0.6;
      for (const line of lines) {
        y -= size * 1.3;
        text(line, MARGIN.left, y, size, true);
      }
      y -= size * 0.5;
    } else if (block.kind === 'paragraph') {
      const size = block.small ? 8.5 : 10;
      for (const line of wrap(block.text, CONTENT_WIDTH, size, false)) {
        room(size * 1.4);
        y -= size * 1.4;
        text(line, MARGIN.left, y, size, false);
      }
      y -= size * 0.6;
    } else {
      const size = 8.5;
      const leading = size * 1.3;
      const total = block.columns.reduce((sum, column) => sum + column.width, 0);
      const widths = block.columns.map((column) => (column.width / total) * CONTENT_WIDTH);
      const drawRow = (cells: string[], bold: boolean) => {
        const wrapped = cells.map((cell, index) => wrap(cell, (widths[index] ?? 0) - 6, size, bold));
        const height = Math.max(1, ...wrapped.map((lines) => lines.length)) * leading + 4;
        let x = MARGIN.left;
        const top = y;
        wrapped.forEach((lines, index) => {
          lines.forEach((line, at) => {
            text(line, x + 3, top - (at + 1) * leading, size, bold);
          });
          x += widths[index] ?? 0;
        });
        y -= height;
        page.ops.push(
          `0.75 G 0.5 w ${MARGIN.left} ${y.toFixed(2)} m ${(MARGIN.left + CONTENT_WIDTH).toFixed(2)} ${y.toFixed(2)} l S 0 G`,
        );
        return height;
      };
      const headers = block.columns.map((column) => column.title);
      room(leading * 3);
      drawRow(headers, true);
      for (const row of block.rows) {
        const lines = Math.max(
          1,
          ...row.map((cell, index) => wrap(cell, (widths[index] ?? 0) - 6, size, false).length),
        );
        if (y - (lines * leading + 4) < MARGIN.bottom) {
          newPage();
          drawRow(headers, true);
        }
        drawRow(row, false);
      }
      y -= 10;
    }
  }
  pages.push(page);

  // Every page's number and the footer, now that the count is known.
  pages.forEach((each, index) => {
    const number = encode(`Page ${index + 1} of ${pages.length}`);
    const size = 8;
    each.ops.push(
      `BT /F1 ${size} Tf ${(PAGE.width - MARGIN.right - widthOf(number, size, false)).toFixed(2)} 36 Td ${literal(number)} Tj ET`,
    );
    if (doc.footer)
      each.ops.push(`BT /F1 ${size} Tf ${MARGIN.left} 36 Td ${literal(encode(doc.footer))} Tj ET`);
  });

  return writeFile(doc.title, pages, PAGE, createdAt);
}

function pdfDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** The objects and their cross-reference table. Objects: 1 catalog, 2 pages, 3-4 fonts, 5 info, then page/content pairs. */
function writeFile(
  title: string,
  pages: Page[],
  size: { width: number; height: number },
  createdAt: Date,
): Uint8Array {
  const objects: string[] = [];
  const pageIds = pages.map((_, index) => 6 + index * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  objects[4] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>';
  objects[5] = `<< /Title ${literal(encode(title))} /Producer (compliance-mcp) /CreationDate (${pdfDate(createdAt)}) >>`;
  pages.forEach((page, index) => {
    const id = pageIds[index] as number;
    const content = page.ops.join('\n');
    objects[id] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size.width} ${size.height}] ` +
      `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${id + 1} 0 R >>`;
    objects[id + 1] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  });
  // Every byte written is below 256 (encode's codes, ASCII syntax), so a string's length is its byte length.
  let out = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const bytes = new Uint8Array(out.length);
  for (let index = 0; index < out.length; index++) bytes[index] = out.charCodeAt(index);
  return bytes;
}
