// Inputs that attack the service's limits, as the security issue wrote them, for the tests and the bench
// (`npm run bench -- --worst-inputs`) alike, with Web APIs only so workerd builds them too: an email address that
// makes a backtracking pattern stall, and XLSX zip bombs made on the fly (CompressionStream; the zip written by hand,
// with CRCs, as a spreadsheet program reads it).
import { utf8 } from '../src/auth/crypto.ts';

/**
 * `a@` and dots up to `length` characters, then `@`: the old sign-up check (/^[^\s@]+@[^\s@]+\.[^\s@]+$/) tries
 * every dot as the one before the top-level domain and reads to the end each time, so its time grows with the square
 * of the length (30,000 characters held the event loop 1.5 s).
 */
export function stallingEmail(length: number): string {
  return `a@${'.'.repeat(Math.max(0, length - 3))}@`;
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, index) => {
  let crc = index;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  return crc >>> 0;
});

function crcUpdate(crc: number, bytes: Uint8Array): number {
  let value = crc;
  for (const byte of bytes) value = (CRC_TABLE[(value ^ byte) & 0xff] as number) ^ (value >>> 8);
  return value;
}

interface Part {
  name: string;
  /** The part's bytes, in pieces (a repeated piece is pushed again, never copied). */
  pieces: () => Iterable<Uint8Array<ArrayBuffer>>;
}

interface Compressed {
  name: Uint8Array;
  data: Uint8Array<ArrayBuffer>[];
  compressedSize: number;
  size: number;
  crc: number;
}

async function deflatePart(part: Part): Promise<Compressed> {
  const stream = new CompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  let crc = 0xffffffff;
  let size = 0;
  const written = (async () => {
    for (const piece of part.pieces()) {
      crc = crcUpdate(crc, piece);
      size += piece.byteLength;
      await writer.write(piece);
    }
    await writer.close();
  })();
  const data: Uint8Array<ArrayBuffer>[] = [];
  let compressedSize = 0;
  for await (const chunk of stream.readable as unknown as AsyncIterable<Uint8Array<ArrayBuffer>>) {
    data.push(chunk);
    compressedSize += chunk.byteLength;
  }
  await written;
  return { name: utf8(part.name), data, compressedSize, size, crc: (crc ^ 0xffffffff) >>> 0 };
}

/** A zip of deflated entries: local headers and data, then the central directory (no ZIP64: under 4 GiB). */
function zipOf(entries: Compressed[]): Blob {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  const central: Uint8Array<ArrayBuffer>[] = [];
  let offset = 0;
  const header = (signature: number, entry: Compressed, central: boolean, localOffset: number) => {
    const bytes = new Uint8Array((central ? 46 : 30) + entry.name.byteLength);
    const view = new DataView(bytes.buffer);
    let at = 0;
    const u32 = (value: number) => {
      view.setUint32(at, value, true);
      at += 4;
    };
    const u16 = (value: number) => {
      view.setUint16(at, value, true);
      at += 2;
    };
    u32(signature);
    if (central) u16(20); // made by
    u16(20); // needed to extract
    u16(0); // flags
    u16(8); // deflate
    u16(0); // time
    u16(0x21); // date: 1980-01-01
    u32(entry.crc);
    u32(entry.compressedSize);
    u32(entry.size);
    u16(entry.name.byteLength);
    u16(0); // extra field
    if (central) {
      u16(0); // comment
      u16(0); // disk
      u16(0); // internal attributes
      u32(0); // external attributes
      u32(localOffset);
    }
    bytes.set(entry.name, at);
    return bytes;
  };
  for (const entry of entries) {
    const local = header(0x04034b50, entry, false, 0);
    central.push(header(0x02014b50, entry, true, offset));
    chunks.push(local, ...entry.data);
    offset += local.byteLength + entry.compressedSize;
  }
  const centralSize = central.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, entries.length, true);
  view.setUint16(10, entries.length, true);
  view.setUint32(12, centralSize, true);
  view.setUint32(16, offset, true);
  return new Blob([...chunks, ...central, end]);
}

const text = (name: string, content: string): Part => ({ name, pieces: () => [utf8(content)] });

/** `head`, then `fill` repeated to about `bytes` bytes, then `tail`. */
function inflating(name: string, head: string, fill: string, bytes: number, tail: string): Part {
  const block = utf8(fill.repeat(Math.ceil((1024 * 1024) / fill.length)));
  return {
    name,
    *pieces() {
      yield utf8(head);
      for (let left = bytes; left > 0; left -= block.byteLength)
        yield left >= block.byteLength ? block : block.subarray(0, left - (left % fill.length));
      yield utf8(tail);
    },
  };
}

export interface XlsxBombOptions {
  /** About how many bytes the bomb part inflates to. */
  inflatedBytes: number;
  /** Which part inflates: the shared strings (one string of `A`s) or the sheet (empty rows). */
  part?: 'sharedStrings' | 'sheet';
}

/**
 * A workbook of one sheet ("Risks", header `name` then a row `Bomb`) in which one part inflates to about
 * `inflatedBytes`: a shared string of that many `A`s read as the header's second cell, or a sheet of that many bytes
 * of empty rows. Deflate keeps about 1,000:1, so 150 MB come to about 150 KB.
 */
export async function xlsxBomb(options: XlsxBombOptions): Promise<Uint8Array<ArrayBuffer>> {
  const bombInSheet = options.part === 'sheet';
  const rows =
    '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="s"><v>0</v></c></row>' +
    '<row r="2"><c r="A2" t="inlineStr"><is><t>Bomb</t></is></c></row>';
  const sheetHead = `${XML}<worksheet ${MAIN}><sheetData>${rows}`;
  const sheetTail = '</sheetData></worksheet>';
  const parts: Part[] = [
    text(
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    ),
    text(
      'xl/workbook.xml',
      `${XML}<workbook ${MAIN} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Risks" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    text(
      'xl/_rels/workbook.xml.rels',
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
    bombInSheet
      ? inflating('xl/worksheets/sheet1.xml', sheetHead, '<row/>', options.inflatedBytes, sheetTail)
      : text('xl/worksheets/sheet1.xml', `${sheetHead}${sheetTail}`),
    bombInSheet
      ? text('xl/sharedStrings.xml', `${XML}<sst ${MAIN}><si><t>Owner</t></si></sst>`)
      : inflating(
          'xl/sharedStrings.xml',
          `${XML}<sst ${MAIN} count="1" uniqueCount="1"><si><t>`,
          'A',
          options.inflatedBytes,
          '</t></si></sst>',
        ),
  ];
  const compressed: Compressed[] = [];
  for (const part of parts) compressed.push(await deflatePart(part));
  return new Uint8Array(await zipOf(compressed).arrayBuffer());
}
