// The built-in catalogues (src/catalogs/*.json) and crosswalks between them, loaded on first use only: each file is
// its own lazily imported module, so no request pays for them until a catalogue tool reads one (one parse per
// process or isolate, then kept).
import { invalidArguments } from '../../errors.ts';
import type { Catalog, CatalogEntry } from './entries.ts';

/** A catalogue file as src/catalogs/README.md describes it. */
export interface CatalogFile {
  key: string;
  revision: number;
  name: string;
  version: string;
  edition: string;
  publisher: string;
  source: string;
  description: string;
  licence_note: string;
  requirements: {
    ref: string;
    title: string;
    description: string;
    parent?: string;
    section: boolean;
    attributes?: Record<string, string>;
  }[];
}

export const RELATIONSHIPS = ['equal', 'subset', 'superset', 'intersects'] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

/** A crosswalk file: assessable requirements of `from` paired with those of `to`, read from the `from` side. */
export interface CrosswalkFile {
  from: string;
  to: string;
  revision: number;
  method: string;
  mappings: { from: string; to: string; relationship: Relationship }[];
}

type Loader<T> = () => Promise<{ default: unknown }> | Promise<T>;

/** Every catalogue by key: a static import path each, so bundlers (esbuild, wrangler) keep them as lazy modules. */
const CATALOG_LOADERS: Record<string, Loader<CatalogFile>> = {
  'iso-27001-2022': () => import('../../catalogs/iso-27001-2022.json'),
  'soc2-2017': () => import('../../catalogs/soc2-2017.json'),
  'nist-csf-2.0': () => import('../../catalogs/nist-csf-2.0.json'),
  gdpr: () => import('../../catalogs/gdpr.json'),
  nis2: () => import('../../catalogs/nis2.json'),
  dora: () => import('../../catalogs/dora.json'),
  'hipaa-security': () => import('../../catalogs/hipaa-security.json'),
  'pci-dss-4.0': () => import('../../catalogs/pci-dss-4.0.json'),
};

const CROSSWALK_LOADERS: Loader<CrosswalkFile>[] = [
  () => import('../../catalogs/crosswalks/iso-27001-2022__soc2-2017.json'),
  () => import('../../catalogs/crosswalks/nist-csf-2.0__iso-27001-2022.json'),
  () => import('../../catalogs/crosswalks/nis2__iso-27001-2022.json'),
  () => import('../../catalogs/crosswalks/dora__iso-27001-2022.json'),
  () => import('../../catalogs/crosswalks/hipaa-security__nist-csf-2.0.json'),
];

/** The keys of the built-in catalogues, in the order they are listed. */
export const CATALOG_KEYS: readonly string[] = Object.keys(CATALOG_LOADERS);

const loaded = new Map<string, Promise<CatalogFile>>();
let crosswalks: Promise<CrosswalkFile[]> | undefined;

async function moduleValue<T>(loader: Loader<T>): Promise<T> {
  const module = (await loader()) as { default?: unknown };
  return (module.default ?? module) as T;
}

/** An unknown key: invalid_arguments listing the known ones. */
export function unknownCatalog(key: string, path = 'catalog'): never {
  throw invalidArguments(
    `No built-in catalogue "${key}". Known catalogues: ${CATALOG_KEYS.join(', ')} (listCatalogs describes them).`,
    [{ path, message: `Unknown catalogue; known: ${CATALOG_KEYS.join(', ')}` }],
  );
}

/** The catalogue key as given, in any case and with spaces or underscores for hyphens; null when unknown. */
export function catalogKeyOf(given: string): string | null {
  const key = given
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-');
  return key in CATALOG_LOADERS ? key : null;
}

/** The catalogue file of a key (loaded once); an unknown key is invalid_arguments listing the known ones. */
export function loadCatalogFile(key: string): Promise<CatalogFile> {
  const known = catalogKeyOf(key);
  if (!known) unknownCatalog(key);
  let file = loaded.get(known);
  if (!file) {
    file = moduleValue(CATALOG_LOADERS[known] as Loader<CatalogFile>);
    loaded.set(known, file);
  }
  return file;
}

export function loadAllCatalogFiles(): Promise<CatalogFile[]> {
  return Promise.all(CATALOG_KEYS.map((key) => loadCatalogFile(key)));
}

export function loadCrosswalkFiles(): Promise<CrosswalkFile[]> {
  crosswalks ??= Promise.all(CROSSWALK_LOADERS.map((loader) => moduleValue(loader)));
  return crosswalks;
}

/** A catalogue file as the importer reads it: its tree, each entry's place among its siblings. */
export function catalogEntries(file: CatalogFile): Catalog {
  const siblings = new Map<string | null, number>();
  const entries = file.requirements.map((requirement, index): CatalogEntry => {
    const parent = requirement.parent ?? null;
    const position = siblings.get(parent) ?? 0;
    siblings.set(parent, position + 1);
    return {
      reference: requirement.ref,
      title: requirement.title,
      description: requirement.description,
      parent,
      isSection: requirement.section,
      position,
      source: `${file.key}.requirements[${index}]`,
    };
  });
  return { entries, skipped: [] };
}

/** Read from the other side, subset and superset swap; equal and intersects stay. */
export function reversed(relationship: Relationship): Relationship {
  if (relationship === 'subset') return 'superset';
  if (relationship === 'superset') return 'subset';
  return relationship;
}

/** One requirement of a catalogue seen from another through a crosswalk, read from the first one's side. */
export interface CrosswalkLink {
  catalog: string;
  reference: string;
  relationship: Relationship;
}

export interface CrosswalkIndex {
  /** catalogue key -> reference -> what it maps to in other catalogues, in the crosswalk files' order. */
  links: Map<string, Map<string, CrosswalkLink[]>>;
  files: CrosswalkFile[];
}

let index: Promise<CrosswalkIndex> | undefined;

/** Every crosswalk in both directions, built once. */
export function crosswalkIndex(): Promise<CrosswalkIndex> {
  index ??= loadCrosswalkFiles().then((files) => {
    const links = new Map<string, Map<string, CrosswalkLink[]>>();
    const add = (catalog: string, reference: string, link: CrosswalkLink) => {
      let byReference = links.get(catalog);
      if (!byReference) {
        byReference = new Map();
        links.set(catalog, byReference);
      }
      byReference.set(reference, [...(byReference.get(reference) ?? []), link]);
    };
    for (const file of files) {
      for (const mapping of file.mappings) {
        add(file.from, mapping.from, {
          catalog: file.to,
          reference: mapping.to,
          relationship: mapping.relationship,
        });
        add(file.to, mapping.to, {
          catalog: file.from,
          reference: mapping.from,
          relationship: reversed(mapping.relationship),
        });
      }
    }
    return { links, files };
  });
  return index;
}

/** What a catalogue's reference maps to (in every other catalogue, or in `other` only). */
export async function crosswalkLinksOf(
  catalog: string,
  reference: string,
  other?: string,
): Promise<CrosswalkLink[]> {
  const found = (await crosswalkIndex()).links.get(catalog)?.get(reference) ?? [];
  return other ? found.filter((link) => link.catalog === other) : found;
}

/**
 * How much a crosswalk relationship says a measure of the source covers the target: equal first, then a source
 * that covers more (superset), then a partial overlap, then a source that covers part of the target.
 */
export const RELATIONSHIP_STRENGTH: Record<Relationship, number> = {
  equal: 4,
  superset: 3,
  intersects: 2,
  subset: 1,
};
