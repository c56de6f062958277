// The PDF writer: what a reader (pdf.js) reads back is the text written, wrapped and paged, with numbered pages.
import { describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/pdf/document.ts';
import { pdfText } from '../pdf-text.ts';

describe('renderPdf', () => {
  it('writes headings, paragraphs and tables a reader finds as text, on numbered A4 pages', async () => {
    const rows = Array.from({ length: 120 }, (_, index) => [
      `A.5.${index + 1}`,
      `Control ${index + 1} (résumé, naïve & “quoted”)`,
      index % 2 ? 'Applicable' : 'Excluded: no such process here',
    ]);
    const bytes = renderPdf(
      {
        title: 'Statement of applicability',
        footer: 'Acme Health · version 3',
        blocks: [
          { kind: 'heading', level: 1, text: 'Statement of applicability' },
          {
            kind: 'paragraph',
            text: 'Parentheses (like these) and a backslash \\ survive. 東京 is not Windows-1252.',
          },
          {
            kind: 'table',
            columns: [
              { title: 'Reference', width: 1 },
              { title: 'Requirement', width: 3 },
              { title: 'Applicability', width: 2 },
            ],
            rows,
          },
        ],
      },
      new Date('2026-11-28T10:00:00Z'),
    );
    expect(new TextDecoder('latin1').decode(bytes.slice(0, 8))).toBe('%PDF-1.4');
    const read = await pdfText(bytes);
    expect(read.title).toBe('Statement of applicability');
    expect(read.pages.length).toBeGreaterThan(2);
    read.pages.forEach((page, index) => {
      expect(page).toContain(`Page ${index + 1} of ${read.pages.length}`);
      expect(page).toContain('Acme Health · version 3');
      // The table's header row starts every page the table continues on.
      if (index > 0) expect(page).toContain('Reference');
    });
    const all = read.pages.join('\n');
    expect(all).toContain('Parentheses (like these) and a backslash \\ survive. ?? is not Windows-1252.');
    for (const [reference, title] of rows) {
      expect(all).toContain(reference);
      expect(all).toContain(String(title).slice(0, 12));
    }
    expect(all).toContain('résumé, naïve & “quoted”');
  });

  it('wraps a word longer than a column instead of letting it run over', async () => {
    const long = 'x'.repeat(400);
    const read = await pdfText(
      renderPdf(
        {
          title: 'Long',
          blocks: [
            {
              kind: 'table',
              columns: [
                { title: 'A', width: 1 },
                { title: 'B', width: 1 },
              ],
              rows: [[long, 'b']],
            },
          ],
        },
        new Date(),
      ),
    );
    const xs = read.pages[0]?.match(/x+/g) ?? [];
    expect(xs.join('')).toHaveLength(400);
    expect(xs.length).toBeGreaterThan(2);
  });
});
