// A framework catalog read from CSV (src/tools/tables/csv-reader.ts): columns ref, title, description, parent (a ref of the same file) and section (yes/no), in any case and order.
import { invalidArguments } from '../../errors.ts';
import { parseCsv } from '../tables/csv-reader.ts';
import type { Catalog, CatalogEntry } from './entries.ts';

const COLUMNS: Record<string, keyof Omit<CatalogEntry, 'position' | 'source'>> = {
  ref: 'reference',
  reference: 'reference',
  title: 'title',
  description: 'description',
  parent: 'parent',
  parentref: 'parent',
  parentreference: 'parent',
  section: 'isSection',
  issection: 'isSection',
};

const YES = new Set(['yes', 'y', 'true', '1', 'x']);
const NO = new Set(['no', 'n', 'false', '0', '']);

export function parseCatalogCsv(text: string): Catalog {
  const [header, ...rows] = parseCsv(text);
  if (!header)
    throw invalidArguments('The CSV is empty: expected a header row (ref, title, description, parent).');
  const columns = header.map((name, index) => {
    const column =
      COLUMNS[
        name
          .trim()
          .toLowerCase()
          .replace(/[\s_-]+/g, '')
      ];
    if (!column) {
      throw invalidArguments(
        `Unknown column "${name}" (column ${index + 1}): expected ref, title, description, parent, section.`,
        [{ path: `row 1, column ${index + 1}`, message: `Unknown column ${name}` }],
      );
    }
    return column;
  });
  for (const needed of ['reference', 'title'] as const) {
    if (!columns.includes(needed))
      throw invalidArguments(`The CSV has no ${needed === 'reference' ? 'ref' : 'title'} column.`);
  }
  const siblings = new Map<string | null, number>();
  const entries = rows.map((cells, index): CatalogEntry => {
    const source = `row ${index + 2}`;
    if (cells.length > columns.length) {
      throw invalidArguments(`${source} has ${cells.length} fields, the header ${columns.length}.`, [
        { path: `${source}, column ${columns.length + 1}`, message: 'More fields than columns' },
      ]);
    }
    const value = (column: (typeof columns)[number]) => {
      const at = columns.indexOf(column);
      return at < 0 ? '' : (cells[at] ?? '').trim();
    };
    const sectionText = value('isSection').toLowerCase();
    if (!YES.has(sectionText) && !NO.has(sectionText)) {
      throw invalidArguments(`${source}: section must be yes or no, not "${sectionText}".`, [
        { path: `${source}, column ${columns.indexOf('isSection') + 1}`, message: 'Expected yes or no' },
      ]);
    }
    const parent = value('parent') || null;
    const position = siblings.get(parent) ?? 0;
    siblings.set(parent, position + 1);
    return {
      reference: value('reference'),
      title: value('title'),
      description: value('description') || null,
      parent,
      isSection: YES.has(sectionText),
      position,
      source,
    };
  });
  return { entries, skipped: [] };
}
