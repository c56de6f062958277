// The built-in catalogues in src/catalogs: their shape, the official tree of references (every identifier, in the
// document's order, with its counts by level) and the crosswalks between them. Reads the JSON files only.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const CATALOGS = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/catalogs');
const CROSSWALKS = resolve(CATALOGS, 'crosswalks');
const TITLE_MAX = 100;

const text = z
  .string()
  .refine((value) => value.trim() === value && value.length > 0, 'non-empty and trimmed');
const requirementSchema = z.strictObject({
  ref: text,
  title: text,
  description: text,
  parent: text.optional(),
  section: z.boolean(),
  attributes: z.record(z.string(), text).optional(),
});
const catalogSchema = z.strictObject({
  key: z.string().regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/),
  revision: z.number().int().positive(),
  name: text,
  version: text,
  edition: text,
  publisher: text,
  source: text,
  description: text,
  licence_note: text,
  requirements: z.array(requirementSchema).min(1),
});
const RELATIONSHIPS = ['equal', 'subset', 'superset', 'intersects'] as const;
const crosswalkSchema = z.strictObject({
  from: text,
  to: text,
  revision: z.number().int().positive(),
  method: text,
  mappings: z.array(z.strictObject({ from: text, to: text, relationship: z.enum(RELATIONSHIPS) })).min(1),
});
type Catalog = z.infer<typeof catalogSchema>;
type Requirement = z.infer<typeof requirementSchema>;

/** One level of a catalogue's tree: the references it holds, how many, and each one's parent derived from the ref. */
interface Level {
  name: string;
  pattern: RegExp;
  count: number;
  parentOf: (ref: string) => string | undefined;
}

interface Expected {
  levels: Level[];
  /** Every reference, in the official document's order. */
  refs: string[];
  sections: number;
  assessable: number;
}

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
const upToLast = (separator: RegExp) => (ref: string) => ref.replace(separator, '');

// ISO/IEC 27001:2022: clauses 4 to 10 (with their sub-clauses and the sub-sub-clauses of 6.1, 7.5, 9.2 and 9.3),
// then Annex A's four themes with 37 + 8 + 14 + 34 = 93 controls.
const ISO_CLAUSES: [string, string[]][] = [
  ['4', ['4.1', '4.2', '4.3', '4.4']],
  ['5', ['5.1', '5.2', '5.3']],
  ['6', ['6.1', '6.1.1', '6.1.2', '6.1.3', '6.2', '6.3']],
  ['7', ['7.1', '7.2', '7.3', '7.4', '7.5', '7.5.1', '7.5.2', '7.5.3']],
  ['8', ['8.1', '8.2', '8.3']],
  ['9', ['9.1', '9.2', '9.2.1', '9.2.2', '9.3', '9.3.1', '9.3.2', '9.3.3']],
  ['10', ['10.1', '10.2']],
];
const ISO_THEMES: [string, number][] = [
  ['A.5', 37],
  ['A.6', 8],
  ['A.7', 14],
  ['A.8', 34],
];
const iso: Expected = {
  levels: [
    { name: 'clause', pattern: /^(?:[4-9]|10)$/, count: 7, parentOf: () => undefined },
    { name: 'sub-clause', pattern: /^(?:[4-9]|10)\.\d$/, count: 23, parentOf: upToLast(/\.\d$/) },
    { name: 'sub-sub-clause', pattern: /^(?:[4-9]|10)\.\d\.\d$/, count: 11, parentOf: upToLast(/\.\d$/) },
    { name: 'Annex A theme', pattern: /^A\.[5-8]$/, count: 4, parentOf: () => undefined },
    { name: 'Annex A control', pattern: /^A\.[5-8]\.\d{1,2}$/, count: 93, parentOf: upToLast(/\.\d{1,2}$/) },
  ],
  refs: [
    ...ISO_CLAUSES.flatMap(([clause, children]) => [clause, ...children]),
    ...ISO_THEMES.flatMap(([theme, count]) => [theme, ...range(`${theme}.`, count)]),
  ],
  // 7 clauses, 6.1, 7.5, 9.2, 9.3 and the 4 themes.
  sections: 15,
  // 19 sub-clauses without children, 11 sub-sub-clauses, 93 controls.
  assessable: 123,
};

// AICPA Trust Services Criteria 2017: 33 common criteria and 28 additional ones (3 + 2 + 5 + 18), 61 in all.
const SOC2_SERIES: [string, number][] = [
  ['CC1', 5],
  ['CC2', 3],
  ['CC3', 4],
  ['CC4', 2],
  ['CC5', 3],
  ['CC6', 8],
  ['CC7', 5],
  ['CC8', 1],
  ['CC9', 2],
  ['A1', 3],
  ['C1', 2],
  ['PI1', 5],
  ['P1', 1],
  ['P2', 1],
  ['P3', 2],
  ['P4', 3],
  ['P5', 2],
  ['P6', 7],
  ['P7', 1],
  ['P8', 1],
];
const SOC2_SERIES_PATTERN = 'CC[1-9]|A1|C1|PI1|P[1-8]';
const soc2: Expected = {
  levels: [
    {
      name: 'series',
      pattern: new RegExp(`^(?:${SOC2_SERIES_PATTERN})$`),
      count: 20,
      parentOf: () => undefined,
    },
    {
      name: 'criterion',
      pattern: new RegExp(`^(?:${SOC2_SERIES_PATTERN})\\.\\d$`),
      count: 61,
      parentOf: upToLast(/\.\d$/),
    },
  ],
  refs: SOC2_SERIES.flatMap(([series, count]) => [series, ...range(`${series}.`, count)]),
  sections: 20,
  assessable: 61,
};

// NIST CSF 2.0 Core: 6 functions, 22 categories, 106 subcategories; numbering keeps the gaps of withdrawn items.
const CSF_CATEGORIES: [string, string][] = [
  ['GV.OC', '01 02 03 04 05'],
  ['GV.RM', '01 02 03 04 05 06 07'],
  ['GV.RR', '01 02 03 04'],
  ['GV.PO', '01 02'],
  ['GV.OV', '01 02 03'],
  ['GV.SC', '01 02 03 04 05 06 07 08 09 10'],
  ['ID.AM', '01 02 03 04 05 07 08'],
  ['ID.RA', '01 02 03 04 05 06 07 08 09 10'],
  ['ID.IM', '01 02 03 04'],
  ['PR.AA', '01 02 03 04 05 06'],
  ['PR.AT', '01 02'],
  ['PR.DS', '01 02 10 11'],
  ['PR.PS', '01 02 03 04 05 06'],
  ['PR.IR', '01 02 03 04'],
  ['DE.CM', '01 02 03 06 09'],
  ['DE.AE', '02 03 04 06 07 08'],
  ['RS.MA', '01 02 03 04 05'],
  ['RS.AN', '03 06 07 08'],
  ['RS.CO', '02 03'],
  ['RS.MI', '01 02'],
  ['RC.RP', '01 02 03 04 05 06'],
  ['RC.CO', '03 04'],
];
const CSF_FUNCTIONS = ['GV', 'ID', 'PR', 'DE', 'RS', 'RC'];
const csf: Expected = {
  levels: [
    { name: 'function', pattern: /^(?:GV|ID|PR|DE|RS|RC)$/, count: 6, parentOf: () => undefined },
    {
      name: 'category',
      pattern: /^(?:GV|ID|PR|DE|RS|RC)\.[A-Z]{2}$/,
      count: 22,
      parentOf: upToLast(/\.[A-Z]{2}$/),
    },
    {
      name: 'subcategory',
      pattern: /^(?:GV|ID|PR|DE|RS|RC)\.[A-Z]{2}-\d{2}$/,
      count: 106,
      parentOf: upToLast(/-\d{2}$/),
    },
  ],
  refs: CSF_FUNCTIONS.flatMap((fn) => [
    fn,
    ...CSF_CATEGORIES.filter(([category]) => category.startsWith(`${fn}.`)).flatMap(([category, numbers]) => [
      category,
      ...numbers.split(' ').map((number) => `${category}-${number}`),
    ]),
  ]),
  sections: 28,
  assessable: 106,
};

const EXPECTED: Record<string, Expected> = {
  'iso-27001-2022': iso,
  'soc2-2017': soc2,
  'nist-csf-2.0': csf,
};

function jsonFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort();
}

function readCatalog(file: string): Catalog {
  return catalogSchema.parse(JSON.parse(readFileSync(resolve(CATALOGS, file), 'utf8')));
}

const catalogs = new Map(jsonFiles(CATALOGS).map((file) => [file.replace(/\.json$/, ''), readCatalog(file)]));
const crosswalkFiles = jsonFiles(CROSSWALKS);

function catalogOf(key: string): Catalog {
  const catalog = catalogs.get(key);
  if (!catalog) throw new Error(`No catalogue file src/catalogs/${key}.json`);
  return catalog;
}

const requirementsOf = (key: string): Requirement[] => catalogOf(key).requirements;

const assessable = (key: string) => requirementsOf(key).filter((requirement) => !requirement.section);
const childrenOf = (key: string, parent: string) =>
  requirementsOf(key)
    .filter((requirement) => requirement.parent === parent)
    .map((requirement) => requirement.ref);

describe('built-in catalogues', () => {
  it('each have their official tree of references in this test', () => {
    expect([...catalogs.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  describe.each(Object.entries(EXPECTED))('%s', (key, expected) => {
    const catalog = catalogOf(key);
    const refs = catalog.requirements.map((requirement) => requirement.ref);

    it('is named by its key', () => {
      expect(catalog.key).toBe(key);
    });

    it('holds every official reference once, in the document order', () => {
      expect(new Set(refs).size).toBe(refs.length);
      expect(refs).toEqual(expected.refs);
    });

    it('has each reference at one level of the tree, with the counts the official document has', () => {
      const counts = expected.levels.map(() => 0);
      for (const ref of refs) {
        const matches = expected.levels.flatMap((level, index) => (level.pattern.test(ref) ? [index] : []));
        expect(matches, ref).toHaveLength(1);
        counts[matches[0]!]! += 1;
      }
      expect(counts).toEqual(expected.levels.map((level) => level.count));
    });

    it('gives each requirement the parent its reference implies, listed before it', () => {
      const position = new Map(refs.map((ref, index) => [ref, index]));
      for (const [index, requirement] of catalog.requirements.entries()) {
        const level = expected.levels.find((candidate) => candidate.pattern.test(requirement.ref));
        expect(requirement.parent, requirement.ref).toBe(level?.parentOf(requirement.ref));
        if (requirement.parent !== undefined) expect(position.get(requirement.parent)).toBeLessThan(index);
      }
    });

    it('marks exactly the nodes with children as sections, and only those', () => {
      const parents = new Set(catalog.requirements.flatMap((requirement) => requirement.parent ?? []));
      for (const requirement of catalog.requirements)
        expect(requirement.section, requirement.ref).toBe(parents.has(requirement.ref));
      expect(catalog.requirements.filter((requirement) => requirement.section)).toHaveLength(
        expected.sections,
      );
      expect(assessable(key)).toHaveLength(expected.assessable);
    });

    it(`has short, distinct titles (at most ${TITLE_MAX} characters) and a description for every entry`, () => {
      for (const requirement of catalog.requirements) {
        expect(requirement.title.length, requirement.ref).toBeLessThanOrEqual(TITLE_MAX);
        expect(requirement.title, requirement.ref).not.toBe(requirement.ref);
        expect(requirement.description.length, requirement.ref).toBeGreaterThan(requirement.title.length);
      }
      const titles = catalog.requirements.map((requirement) => requirement.title);
      expect(new Set(titles).size).toBe(titles.length);
      const descriptions = catalog.requirements.map((requirement) => requirement.description);
      expect(new Set(descriptions).size).toBe(descriptions.length);
    });
  });

  it('ISO/IEC 27001:2022 has 93 Annex A controls, 37 + 8 + 14 + 34 under the four themes, each carrying its theme', () => {
    const themes = requirementsOf('iso-27001-2022').filter((requirement) => /^A\.\d$/.test(requirement.ref));
    expect(themes.map((theme) => [theme.ref, theme.attributes?.theme])).toEqual([
      ['A.5', 'organizational'],
      ['A.6', 'people'],
      ['A.7', 'physical'],
      ['A.8', 'technological'],
    ]);
    expect(themes.map((theme) => childrenOf('iso-27001-2022', theme.ref).length)).toEqual([37, 8, 14, 34]);
    const controls = requirementsOf('iso-27001-2022').filter((requirement) =>
      requirement.ref.startsWith('A.'),
    );
    for (const control of controls) {
      const theme = themes.find((candidate) => candidate.ref === (control.parent ?? control.ref));
      expect(control.attributes?.theme, control.ref).toBe(theme?.attributes?.theme);
    }
    expect(controls.filter((control) => !control.section)).toHaveLength(93);
  });

  it('ISO/IEC 27001:2022 has 7 clause sections and 30 assessable clause requirements', () => {
    const clauses = requirementsOf('iso-27001-2022').filter(
      (requirement) => !requirement.ref.startsWith('A.'),
    );
    expect(clauses.filter((clause) => clause.parent === undefined).map((clause) => clause.ref)).toEqual([
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    expect(clauses.filter((clause) => clause.section).map((clause) => clause.ref)).toEqual([
      '4',
      '5',
      '6',
      '6.1',
      '7',
      '7.5',
      '8',
      '9',
      '9.2',
      '9.3',
      '10',
    ]);
    expect(clauses.filter((clause) => !clause.section)).toHaveLength(30);
  });

  it('SOC 2 has 33 common criteria and 61 criteria in all, each tagged with its trust services category', () => {
    const criteria = assessable('soc2-2017');
    expect(criteria.filter((criterion) => criterion.ref.startsWith('CC'))).toHaveLength(33);
    const byCategory = new Map<string, number>();
    for (const criterion of criteria) {
      const category = criterion.attributes?.category ?? 'none';
      byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
    }
    expect(Object.fromEntries(byCategory)).toEqual({
      security: 33,
      availability: 3,
      confidentiality: 2,
      processing_integrity: 5,
      privacy: 18,
    });
    for (const criterion of criteria) {
      const series = requirementsOf('soc2-2017').find((candidate) => candidate.ref === criterion.parent);
      expect(criterion.attributes?.category, criterion.ref).toBe(series?.attributes?.category);
    }
  });

  it('SOC 2 criteria CC1.1 to CC5.3 name the 17 COSO principles, each once', () => {
    const principles = assessable('soc2-2017')
      .filter((criterion) => /^CC[1-5]\./.test(criterion.ref))
      .map((criterion) => Number(criterion.attributes?.coso_principle));
    expect(principles).toEqual([1, 2, 3, 4, 5, 13, 14, 15, 6, 7, 8, 9, 16, 17, 10, 11, 12]);
    expect(assessable('soc2-2017').filter((criterion) => criterion.attributes?.coso_principle)).toHaveLength(
      17,
    );
  });

  it('CSF 2.0 has 6 functions, 22 categories and 106 subcategories, each under its own category and function', () => {
    const requirements = requirementsOf('nist-csf-2.0');
    const functions = requirements.filter((requirement) => requirement.parent === undefined);
    expect(functions.map((fn) => fn.ref)).toEqual(CSF_FUNCTIONS);
    expect(functions.map((fn) => childrenOf('nist-csf-2.0', fn.ref).length)).toEqual([6, 3, 5, 2, 4, 2]);
    const subcategories = requirements.filter((requirement) => /-\d{2}$/.test(requirement.ref));
    expect(subcategories).toHaveLength(106);
    for (const subcategory of subcategories) {
      expect(subcategory.parent, subcategory.ref).toBe(subcategory.ref.slice(0, 5));
      expect(requirements.find((category) => category.ref === subcategory.parent)?.parent).toBe(
        subcategory.ref.slice(0, 2),
      );
    }
    const perFunction = CSF_FUNCTIONS.map(
      (fn) => subcategories.filter((subcategory) => subcategory.ref.startsWith(`${fn}.`)).length,
    );
    expect(perFunction).toEqual([31, 21, 22, 11, 13, 8]);
    // Withdrawn or moved in 2.0: their numbers stay unused.
    for (const gone of ['ID.AM-06', 'PR.DS-03', 'DE.CM-04', 'DE.AE-01', 'RS.AN-01', 'RC.CO-01'])
      expect(requirements.some((requirement) => requirement.ref === gone)).toBe(false);
  });
});

describe('crosswalks', () => {
  describe.each(crosswalkFiles)('%s', (file) => {
    const crosswalk = crosswalkSchema.parse(JSON.parse(readFileSync(resolve(CROSSWALKS, file), 'utf8')));

    it('is named <from>__<to> after two catalogues that exist', () => {
      expect(file).toBe(`${crosswalk.from}__${crosswalk.to}.json`);
      expect(catalogs.has(crosswalk.from)).toBe(true);
      expect(catalogs.has(crosswalk.to)).toBe(true);
      expect(crosswalk.from).not.toBe(crosswalk.to);
    });

    it('says how it was made and that it is not an official mapping', () => {
      expect(crosswalk.method).toContain('not an official mapping');
    });

    it('maps assessable requirements that exist on their side, each pair once, in document order', () => {
      const fromRefs = new Map(
        assessable(crosswalk.from).map((requirement, index) => [requirement.ref, index]),
      );
      const toRefs = new Map(assessable(crosswalk.to).map((requirement, index) => [requirement.ref, index]));
      const pairs = new Set<string>();
      let previous = [-1, -1];
      for (const mapping of crosswalk.mappings) {
        const pair = `${mapping.from} -> ${mapping.to}`;
        expect(fromRefs.has(mapping.from), pair).toBe(true);
        expect(toRefs.has(mapping.to), pair).toBe(true);
        expect(pairs.has(pair), pair).toBe(false);
        pairs.add(pair);
        const at = [fromRefs.get(mapping.from)!, toRefs.get(mapping.to)!];
        expect(at[0]! > previous[0]! || (at[0] === previous[0] && at[1]! > previous[1]!), pair).toBe(true);
        previous = at;
      }
    });
  });

  it('give every SOC 2 common criterion an ISO/IEC 27001 counterpart', () => {
    const crosswalk = crosswalkSchema.parse(
      JSON.parse(readFileSync(resolve(CROSSWALKS, 'iso-27001-2022__soc2-2017.json'), 'utf8')),
    );
    const mapped = new Set(crosswalk.mappings.map((mapping) => mapping.to));
    const common = assessable('soc2-2017').filter((criterion) => criterion.ref.startsWith('CC'));
    expect(
      common.filter((criterion) => !mapped.has(criterion.ref)).map((criterion) => criterion.ref),
    ).toEqual([]);
  });

  it('give every CSF 2.0 subcategory an ISO/IEC 27001 counterpart', () => {
    const crosswalk = crosswalkSchema.parse(
      JSON.parse(readFileSync(resolve(CROSSWALKS, 'nist-csf-2.0__iso-27001-2022.json'), 'utf8')),
    );
    const mapped = new Set(crosswalk.mappings.map((mapping) => mapping.from));
    expect(
      assessable('nist-csf-2.0')
        .filter((subcategory) => !mapped.has(subcategory.ref))
        .map((subcategory) => subcategory.ref),
    ).toEqual([]);
  });
});
