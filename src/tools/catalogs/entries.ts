// A framework catalog as the importers read it: entries (sections and requirements) with their place in the tree,
// checked before anything is written (references unique and within limits, parents present, no cycle).
import { invalidArguments } from '../../errors.ts';
import { normalizeText } from '../fields.ts';

export interface CatalogEntry {
  reference: string;
  title: string;
  description: string | null;
  /** The reference of its parent in the same catalog; null at the top level. */
  parent: string | null;
  isSection: boolean;
  /** Order among its siblings, from 0. */
  position: number;
  /** Where it was read (`catalog.groups[0].controls[3]`, `row 12`), for error messages. */
  source: string;
}

export interface Catalog {
  entries: CatalogEntry[];
  /** Entries read but not imported (withdrawn controls), with why. */
  skipped: { reference: string; reason: string }[];
}

/**
 * The top-level ancestor of each entry (itself at the top level; an entry whose parent is missing counts as one), or
 * null for one whose parents go round in a circle. Each entry is walked once: linear, where a walk up from every
 * entry would be quadratic in a long chain (a 1 MiB catalog of 100,000 entries, each the parent of the next).
 */
export function topsOf(entries: readonly CatalogEntry[]): Map<string, string | null> {
  const byReference = new Map(entries.map((entry) => [entry.reference, entry]));
  const tops = new Map<string, string | null>();
  for (const start of entries) {
    const path = new Set<string>();
    let at = start;
    let top: string | null | undefined;
    while (top === undefined) {
      if (tops.has(at.reference)) top = tops.get(at.reference) ?? null;
      else if (path.has(at.reference)) top = null;
      else {
        path.add(at.reference);
        const parent = at.parent === null ? undefined : byReference.get(at.parent);
        if (parent) at = parent;
        else top = at.reference;
      }
    }
    for (const reference of path) tops.set(reference, top);
  }
  return tops;
}

/** The same limits as addRequirement's fields. */
export const ENTRY_LIMITS = { reference: 50, title: 500, description: 20_000 } as const;

/**
 * Normalises text as the tools do (NFC, control characters), then checks every entry: a reference and a title
 * within limits, references unique, parents among the entries, no entry its own ancestor. All problems at once.
 */
export function checkedCatalog(catalog: Catalog): Catalog {
  const problems: { path: string; message: string }[] = [];
  const entries = catalog.entries.map((entry) => ({
    ...entry,
    reference: normalizeText(entry.reference, false),
    title: normalizeText(entry.title, false),
    description: entry.description === null ? null : normalizeText(entry.description, true) || null,
    parent: entry.parent === null ? null : normalizeText(entry.parent, false),
  }));
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const problem = (field: string, message: string) =>
      problems.push({ path: `${entry.source}.${field}`, message });
    if (!entry.reference) problem('reference', 'Empty reference');
    else if (entry.reference.length > ENTRY_LIMITS.reference)
      problem('reference', `Longer than ${ENTRY_LIMITS.reference} characters`);
    if (!entry.title) problem('title', 'Empty title');
    else if (entry.title.length > ENTRY_LIMITS.title)
      problem('title', `Longer than ${ENTRY_LIMITS.title} characters`);
    if ((entry.description?.length ?? 0) > ENTRY_LIMITS.description)
      problem('description', `Longer than ${ENTRY_LIMITS.description} characters`);
    const earlier = seen.get(entry.reference);
    if (earlier !== undefined)
      problem('reference', `Duplicate reference ${entry.reference} (also at ${earlier})`);
    else seen.set(entry.reference, entry.source);
  }
  const byReference = new Map(entries.map((entry) => [entry.reference, entry]));
  const tops = topsOf(entries);
  for (const entry of entries) {
    if (entry.parent === null) continue;
    if (!byReference.has(entry.parent)) {
      problems.push({ path: `${entry.source}.parent`, message: `No entry with reference ${entry.parent}` });
      continue;
    }
    if (tops.get(entry.reference) === null)
      problems.push({
        path: `${entry.source}.parent`,
        message: `Its parents go round in a circle (${entry.reference})`,
      });
  }
  if (entries.length === 0) problems.push({ path: 'content', message: 'No requirements in the catalog' });
  if (problems.length > 0) {
    const shown = problems.slice(0, 20);
    throw invalidArguments(
      `The catalog was not imported: ${shown.map((problem) => `${problem.path}: ${problem.message}`).join('; ')}${problems.length > shown.length ? `; and ${problems.length - shown.length} more` : ''}.`,
      shown,
    );
  }
  return { ...catalog, entries };
}
