// Reads a PDF's text back with pdf.js (Mozilla's reader, a devDependency): the pages' text items joined by line, and
// the document's title, so tests check what a reader of the file sees.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfText {
  title: string | undefined;
  pages: string[];
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const document = await getDocument({ data: bytes.slice(), useSystemFonts: false, isEvalSupported: false })
    .promise;
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number++) {
    const page = await document.getPage(number);
    const content = await page.getTextContent();
    const lines: string[] = [];
    let line = '';
    for (const item of content.items) {
      if (!('str' in item)) continue;
      line += item.str;
      if (item.hasEOL) {
        lines.push(line);
        line = '';
      } else line += ' ';
    }
    if (line.trim()) lines.push(line);
    pages.push(lines.map((each) => each.trim()).join('\n'));
  }
  const { info } = (await document.getMetadata()) as { info: { Title?: string } };
  await document.destroy();
  return { title: info.Title, pages };
}
