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

/** A node of an expected tree: a reference, or a section's reference with its children. */
type TreeNode = string | [string, TreeNode[]];

/** Every reference of a tree in document order, each mapped to its parent (undefined at the top). */
function parentsIn(nodes: TreeNode[], parent?: string, into = new Map<string, string | undefined>()) {
  for (const node of nodes) {
    const [ref, children] = typeof node === 'string' ? [node, []] : node;
    into.set(ref, parent);
    parentsIn(children, ref, into);
  }
  return into;
}

const upTo = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/** An EU act's article, split into paragraphs and a paragraph into points where listed: `Art. 5(1)(a)`. */
function article(number: number, paragraphs?: (number | [number, string])[]): TreeNode {
  const ref = `Art. ${number}`;
  if (!paragraphs) return ref;
  return [
    ref,
    paragraphs.map((paragraph): TreeNode => {
      if (typeof paragraph === 'number') return `${ref}(${paragraph})`;
      const [at, points] = paragraph;
      return [`${ref}(${at})`, points.split('').map((point) => `${ref}(${at})(${point})`)];
    }),
  ];
}
const articles = (first: number, last: number) => upTo(last - first + 1).map((i) => article(first + i - 1));

/** How many references of each level an EU act's tree holds; `sections` only where its chapters have sections. */
interface EuCounts {
  chapters: number;
  sections?: number;
  articles: number;
  paragraphs: number;
  points: number;
}

/** The levels of an EU act: chapter, chapter section (where present), article, paragraph, point. */
function euLevels(tree: TreeNode[], chapter: RegExp, section: RegExp | undefined, counts: EuCounts): Level[] {
  const parents = parentsIn(tree);
  const parentOf = (ref: string) => parents.get(ref);
  return [
    { name: 'chapter', pattern: chapter, count: counts.chapters, parentOf },
    ...(section
      ? [{ name: 'chapter section', pattern: section, count: counts.sections ?? 0, parentOf }]
      : []),
    { name: 'article', pattern: /^Art\. \d{1,2}$/, count: counts.articles, parentOf },
    { name: 'paragraph', pattern: /^Art\. \d{1,2}\(\d{1,2}\)$/, count: counts.paragraphs, parentOf },
    { name: 'point', pattern: /^Art\. \d{1,2}\(\d{1,2}\)\([a-z]\)$/, count: counts.points, parentOf },
  ];
}

// GDPR: Chapters II to V with the sections of III and IV; Art. 5, 7, 28, 32, 33 and 34 split into paragraphs (and
// Art. 5(1) into points), every other article whole. Art. 23 (restrictions) and Art. 40-43 (codes, certification)
// bind no controller or processor and are left out, so Chapter III Section 5 and Chapter IV Section 5 are absent.
const GDPR_TREE: TreeNode[] = [
  ['Chapter II', [article(5, [[1, 'abcdef'], 2]), article(6), article(7, upTo(4)), ...articles(8, 11)]],
  [
    'Chapter III',
    [
      ['Chapter III, Section 1', [article(12)]],
      ['Chapter III, Section 2', articles(13, 15)],
      ['Chapter III, Section 3', articles(16, 20)],
      ['Chapter III, Section 4', articles(21, 22)],
    ],
  ],
  [
    'Chapter IV',
    [
      ['Chapter IV, Section 1', [...articles(24, 27), article(28, upTo(4)), ...articles(29, 31)]],
      ['Chapter IV, Section 2', [article(32, [1, 2, 4]), article(33, upTo(5)), article(34, upTo(3))]],
      ['Chapter IV, Section 3', articles(35, 36)],
      ['Chapter IV, Section 4', articles(37, 39)],
    ],
  ],
  ['Chapter V', articles(44, 49)],
];
const gdpr: Expected = {
  levels: euLevels(GDPR_TREE, /^Chapter (?:II|III|IV|V)$/, /^Chapter (?:III|IV), Section [1-4]$/, {
    chapters: 4,
    sections: 8,
    articles: 40,
    paragraphs: 21,
    points: 6,
  }),
  refs: [...parentsIn(GDPR_TREE).keys()],
  // 4 chapters, 8 chapter sections, Art. 5, 5(1), 7, 28, 32, 33, 34.
  sections: 19,
  // 33 whole articles, 5(1)(a)-(f), 5(2) and the 20 paragraphs of Art. 7, 28, 32, 33, 34.
  assessable: 60,
};

// NIS2: the entity's duties in Art. 3(4) (national list), 20 (governance), 21 (measures, with 21(2)(a)-(j)),
// 23 (reporting, with 23(4)(a)-(e)) and 27(2)-(3) (ENISA registry). The Directive's chapters have no sections.
const NIS2_TREE: TreeNode[] = [
  ['Chapter I', [article(3, [4])]],
  [
    'Chapter IV',
    [article(20, [1, 2]), article(21, [1, [2, 'abcdefghij'], 3, 4]), article(23, [1, 2, 3, [4, 'abcde']])],
  ],
  ['Chapter V', [article(27, [2, 3])]],
];
const nis2: Expected = {
  levels: euLevels(NIS2_TREE, /^Chapter (?:I|IV|V)$/, undefined, {
    chapters: 3,
    articles: 5,
    paragraphs: 13,
    points: 15,
  }),
  refs: [...parentsIn(NIS2_TREE).keys()],
  // 3 chapters, 5 articles, 21(2) and 23(4).
  sections: 10,
  assessable: 26,
};

// DORA: the financial entity's duties in Chapters II to V. Paragraphs are the requirements; Art. 7 has one
// paragraph, and Art. 9(4) and 19(4) are split into points. Left out: paragraphs addressed to the ESAs, authorities
// or Member States and bare permissions (6(9), 6(10), 11(11), 16(3), 18(3) onward, 19(2), 19(5) onward, 26(4),
// 26(7), 26(9)-(11), 28(9)-(10), 30(4)-(5)), Art. 15 and 20 to 23, and Chapter V Section II (critical providers).
const DORA_TREE: TreeNode[] = [
  [
    'Chapter II',
    [
      ['Chapter II, Section I', [article(5, upTo(4))]],
      [
        'Chapter II, Section II',
        [
          article(6, upTo(8)),
          article(7),
          article(8, upTo(7)),
          article(9, [1, 2, 3, [4, 'abcdef']]),
          article(10, upTo(4)),
          article(11, upTo(10)),
          article(12, upTo(7)),
          article(13, upTo(7)),
          article(14, upTo(3)),
          article(16, upTo(2)),
        ],
      ],
    ],
  ],
  ['Chapter III', [article(17, upTo(3)), article(18, upTo(2)), article(19, [1, 3, [4, 'abc']])]],
  [
    'Chapter IV',
    [article(24, upTo(6)), article(25, upTo(3)), article(26, [1, 2, 3, 5, 6, 8]), article(27, upTo(3))],
  ],
  [
    'Chapter V',
    [['Chapter V, Section I', [article(28, upTo(8)), article(29, upTo(2)), article(30, upTo(3))]]],
  ],
];
const dora: Expected = {
  levels: euLevels(DORA_TREE, /^Chapter (?:II|III|IV|V)$/, /^Chapter (?:II|V), Section (?:I|II)$/, {
    chapters: 4,
    sections: 3,
    articles: 21,
    paragraphs: 95,
    points: 9,
  }),
  refs: [...parentsIn(DORA_TREE).keys()],
  // 4 chapters, 3 chapter sections, 20 articles with paragraphs, 9(4) and 19(4).
  sections: 29,
  // Art. 7, 92 paragraphs without points, 9(4)(a)-(f) and 19(4)(a)-(c).
  assessable: 103,
};

// HIPAA Security Rule: each section's standards and their implementation specifications, marked R (required) or A
// (addressable) as the rule marks them. A standard without implementation specifications is assessable itself.
const HIPAA_SECTIONS: [string, [string, string][]][] = [
  [
    '164.308',
    [
      ['(a)(1)(i)', '(a)(1)(ii)(A):R (a)(1)(ii)(B):R (a)(1)(ii)(C):R (a)(1)(ii)(D):R'],
      ['(a)(2)', ''],
      ['(a)(3)(i)', '(a)(3)(ii)(A):A (a)(3)(ii)(B):A (a)(3)(ii)(C):A'],
      ['(a)(4)(i)', '(a)(4)(ii)(A):R (a)(4)(ii)(B):A (a)(4)(ii)(C):A'],
      ['(a)(5)(i)', '(a)(5)(ii)(A):A (a)(5)(ii)(B):A (a)(5)(ii)(C):A (a)(5)(ii)(D):A'],
      ['(a)(6)(i)', '(a)(6)(ii):R'],
      ['(a)(7)(i)', '(a)(7)(ii)(A):R (a)(7)(ii)(B):R (a)(7)(ii)(C):R (a)(7)(ii)(D):A (a)(7)(ii)(E):A'],
      ['(a)(8)', ''],
      ['(b)(1)', '(b)(3):R'],
    ],
  ],
  [
    '164.310',
    [
      ['(a)(1)', '(a)(2)(i):A (a)(2)(ii):A (a)(2)(iii):A (a)(2)(iv):A'],
      ['(b)', ''],
      ['(c)', ''],
      ['(d)(1)', '(d)(2)(i):R (d)(2)(ii):R (d)(2)(iii):A (d)(2)(iv):A'],
    ],
  ],
  [
    '164.312',
    [
      ['(a)(1)', '(a)(2)(i):R (a)(2)(ii):R (a)(2)(iii):A (a)(2)(iv):A'],
      ['(b)', ''],
      ['(c)(1)', '(c)(2):A'],
      ['(d)', ''],
      ['(e)(1)', '(e)(2)(i):A (e)(2)(ii):A'],
    ],
  ],
  [
    '164.314',
    [
      ['(a)(1)', '(a)(2)(i):R (a)(2)(ii):R (a)(2)(iii):R'],
      ['(b)(1)', '(b)(2)(i):R (b)(2)(ii):R (b)(2)(iii):R (b)(2)(iv):R'],
    ],
  ],
  [
    '164.316',
    [
      ['(a)', ''],
      ['(b)(1)', '(b)(2)(i):R (b)(2)(ii):R (b)(2)(iii):R'],
    ],
  ],
];
/** Each implementation specification's full reference with `required` or `addressable`. */
const HIPAA_SPECIFICATIONS = new Map(
  HIPAA_SECTIONS.flatMap(([section, standards]) =>
    standards.flatMap(([, specifications]) =>
      specifications
        .split(' ')
        .filter(Boolean)
        .map((entry): [string, string] => {
          const [suffix, mark] = entry.split(':');
          return [`${section}${suffix}`, mark === 'R' ? 'required' : 'addressable'];
        }),
    ),
  ),
);
/** The standard an implementation specification belongs to, read from its reference. */
function hipaaStandardOf(ref: string): string {
  if (ref.startsWith('164.308(a)')) return ref.replace(/\(ii\)(?:\([A-E]\))?$/, '(i)');
  if (ref === '164.308(b)(3)') return '164.308(b)(1)';
  return ref.replace(/\(2\)(?:\((?:i|ii|iii|iv)\))?$/, '(1)');
}
const hipaa: Expected = {
  levels: [
    { name: 'section', pattern: /^164\.3(?:08|10|12|14|16)$/, count: 5, parentOf: () => undefined },
    {
      name: 'standard',
      pattern:
        /^164\.308\(a\)\((?:[1-7]\)\(i|[28])\)$|^164\.308\(b\)\(1\)$|^164\.31[0246]\([a-e]\)(?:\(1\))?$/,
      count: 22,
      parentOf: (ref) => ref.slice(0, 7),
    },
    {
      name: 'implementation specification',
      pattern:
        /^164\.308\(a\)\([1-7]\)\(ii\)(?:\([A-E]\))?$|^164\.308\(b\)\(3\)$|^164\.31[0246]\([a-e]\)\(2\)(?:\((?:i|ii|iii|iv)\))?$/,
      count: 46,
      parentOf: hipaaStandardOf,
    },
  ],
  refs: HIPAA_SECTIONS.flatMap(([section, standards]) => [
    section,
    ...standards.flatMap(([standard, specifications]) => [
      `${section}${standard}`,
      ...specifications
        .split(' ')
        .filter(Boolean)
        .map((entry) => `${section}${entry.split(':')[0]}`),
    ]),
  ]),
  // 5 sections and the 15 standards that have implementation specifications.
  sections: 20,
  // 7 standards without implementation specifications and 46 implementation specifications.
  assessable: 53,
};

// PCI DSS v4.0 (numbering unchanged in v4.0.1): each sub-requirement x.y with the numbers of its requirements, as
// written after "x.y."; a four- or five-part number is a requirement of its own, listed under x.y.
const PCI_SUBREQUIREMENTS: [string, string][] = [
  ['1.1', '1 2'],
  ['1.2', '1 2 3 4 5 6 7 8'],
  ['1.3', '1 2 3'],
  ['1.4', '1 2 3 4 5'],
  ['1.5', '1'],
  ['2.1', '1 2'],
  ['2.2', '1 2 3 4 5 6 7'],
  ['2.3', '1 2'],
  ['3.1', '1 2'],
  ['3.2', '1'],
  ['3.3', '1 1.1 1.2 1.3 2 3'],
  ['3.4', '1 2'],
  ['3.5', '1 1.1 1.2 1.3'],
  ['3.6', '1 1.1 1.2 1.3 1.4'],
  ['3.7', '1 2 3 4 5 6 7 8 9'],
  ['4.1', '1 2'],
  ['4.2', '1 1.1 1.2 2'],
  ['5.1', '1 2'],
  ['5.2', '1 2 3 3.1'],
  ['5.3', '1 2 2.1 3 4 5'],
  ['5.4', '1'],
  ['6.1', '1 2'],
  ['6.2', '1 2 3 3.1 4'],
  ['6.3', '1 2 3'],
  ['6.4', '1 2 3'],
  ['6.5', '1 2 3 4 5 6'],
  ['7.1', '1 2'],
  ['7.2', '1 2 3 4 5 5.1 6'],
  ['7.3', '1 2 3'],
  ['8.1', '1 2'],
  ['8.2', '1 2 3 4 5 6 7 8'],
  ['8.3', '1 2 3 4 5 6 7 8 9 10 10.1 11'],
  ['8.4', '1 2 3'],
  ['8.5', '1'],
  ['8.6', '1 2 3'],
  ['9.1', '1 2'],
  ['9.2', '1 1.1 2 3 4'],
  ['9.3', '1 1.1 2 3 4'],
  ['9.4', '1 1.1 1.2 2 3 4 5 5.1 6 7'],
  ['9.5', '1 1.1 1.2 1.2.1 1.3'],
  ['10.1', '1 2'],
  ['10.2', '1 1.1 1.2 1.3 1.4 1.5 1.6 1.7 2'],
  ['10.3', '1 2 3 4'],
  ['10.4', '1 1.1 2 2.1 3'],
  ['10.5', '1'],
  ['10.6', '1 2 3'],
  ['10.7', '1 2 3'],
  ['11.1', '1 2'],
  ['11.2', '1 2'],
  ['11.3', '1 1.1 1.2 1.3 2 2.1'],
  ['11.4', '1 2 3 4 5 6 7'],
  ['11.5', '1 1.1 2'],
  ['11.6', '1'],
  ['12.1', '1 2 3 4'],
  ['12.2', '1'],
  ['12.3', '1 2 3 4'],
  ['12.4', '1 2 2.1'],
  ['12.5', '1 2 2.1 3'],
  ['12.6', '1 2 3 3.1 3.2'],
  ['12.7', '1'],
  ['12.8', '1 2 3 4 5'],
  ['12.9', '1 2'],
  ['12.10', '1 2 3 4 4.1 5 6 7'],
];
const PCI_PRINCIPAL = '(?:[1-9]|1[0-2])';
const pci: Expected = {
  levels: [
    {
      name: 'principal requirement',
      pattern: new RegExp(`^${PCI_PRINCIPAL}$`),
      count: 12,
      parentOf: () => undefined,
    },
    {
      name: 'sub-requirement',
      pattern: new RegExp(`^${PCI_PRINCIPAL}\\.\\d{1,2}$`),
      count: 63,
      parentOf: upToLast(/\.\d{1,2}$/),
    },
    {
      name: 'requirement',
      pattern: new RegExp(`^${PCI_PRINCIPAL}\\.\\d{1,2}\\.\\d{1,2}$`),
      count: 205,
      parentOf: upToLast(/\.\d{1,2}$/),
    },
    {
      name: 'further-numbered requirement',
      pattern: new RegExp(`^${PCI_PRINCIPAL}\\.\\d{1,2}\\.\\d{1,2}(?:\\.\\d{1,2}){1,2}$`),
      count: 45,
      parentOf: (ref) => ref.split('.').slice(0, 2).join('.'),
    },
  ],
  refs: upTo(12).flatMap((principal) => [
    `${principal}`,
    ...PCI_SUBREQUIREMENTS.filter(([sub]) => sub.startsWith(`${principal}.`)).flatMap(([sub, numbers]) => [
      sub,
      ...numbers.split(' ').map((number) => `${sub}.${number}`),
    ]),
  ]),
  // 12 principal requirements and 63 sub-requirements.
  sections: 75,
  // 205 three-part numbers, 44 four-part and one five-part (9.5.1.2.1).
  assessable: 250,
};

const EXPECTED: Record<string, Expected> = {
  'iso-27001-2022': iso,
  'soc2-2017': soc2,
  'nist-csf-2.0': csf,
  gdpr,
  nis2,
  dora,
  'hipaa-security': hipaa,
  'pci-dss-4.0': pci,
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
  it('GDPR splits Art. 5(1) into points (a) to (f) and says whom each requirement binds', () => {
    expect(childrenOf('gdpr', 'Art. 5(1)')).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((point) => `Art. 5(1)(${point})`),
    );
    const byAddressee = new Map<string, string[]>();
    for (const requirement of assessable('gdpr')) {
      const addressee = requirement.attributes?.applies_to ?? 'none';
      byAddressee.set(addressee, [...(byAddressee.get(addressee) ?? []), requirement.ref]);
    }
    expect([...byAddressee.keys()].sort()).toEqual(['controller', 'controller_and_processor', 'processor']);
    expect(byAddressee.get('processor')).toEqual(['Art. 28(2)', 'Art. 28(4)', 'Art. 33(2)']);
    expect(byAddressee.get('controller')).toHaveLength(40);
    expect(byAddressee.get('controller_and_processor')).toHaveLength(17);
    for (const section of requirementsOf('gdpr').filter((requirement) => requirement.section))
      expect(section.attributes, section.ref).toBeUndefined();
  });

  it('NIS2 lists the ten measures of Art. 21(2) and the five reports of Art. 23(4)', () => {
    expect(childrenOf('nis2', 'Art. 21(2)')).toEqual(
      'abcdefghij'.split('').map((point) => `Art. 21(2)(${point})`),
    );
    expect(childrenOf('nis2', 'Art. 23(4)')).toEqual(
      'abcde'.split('').map((point) => `Art. 23(4)(${point})`),
    );
    expect(childrenOf('nis2', 'Chapter IV')).toEqual(['Art. 20', 'Art. 21', 'Art. 23']);
  });

  it('DORA keeps the chapter sections of the Regulation and leaves out the articles addressed to authorities', () => {
    expect(childrenOf('dora', 'Chapter II, Section I')).toEqual(['Art. 5']);
    expect(childrenOf('dora', 'Chapter II, Section II')).toEqual(
      [6, 7, 8, 9, 10, 11, 12, 13, 14, 16].map((number) => `Art. ${number}`),
    );
    expect(childrenOf('dora', 'Chapter V')).toEqual(['Chapter V, Section I']);
    expect(childrenOf('dora', 'Art. 9(4)')).toEqual('abcdef'.split('').map((point) => `Art. 9(4)(${point})`));
    const refs = new Set(requirementsOf('dora').map((requirement) => requirement.ref));
    for (const absent of [
      'Art. 15',
      'Art. 20',
      'Art. 21',
      'Art. 22',
      'Art. 23',
      'Art. 31',
      'Chapter V, Section II',
    ])
      expect(refs.has(absent), absent).toBe(false);
  });

  it('HIPAA marks every implementation specification required or addressable exactly as the rule does', () => {
    const requirements = requirementsOf('hipaa-security');
    const marked = requirements.filter((requirement) => requirement.attributes?.implementation !== undefined);
    expect(
      new Map(marked.map((requirement) => [requirement.ref, requirement.attributes?.implementation])),
    ).toEqual(HIPAA_SPECIFICATIONS);
    for (const requirement of requirements)
      if (!HIPAA_SPECIFICATIONS.has(requirement.ref))
        expect(requirement.attributes, requirement.ref).toBeUndefined();
    const count = (mark: string, sections: string[]) =>
      marked.filter(
        (requirement) =>
          requirement.attributes?.implementation === mark && sections.includes(requirement.ref.slice(0, 7)),
      ).length;
    // Appendix A to Subpart C (164.308 to 164.312): 14 required and 22 addressable; 164.314 and 164.316 add 10 required.
    const safeguards = ['164.308', '164.310', '164.312'];
    expect([count('required', safeguards), count('addressable', safeguards)]).toEqual([14, 22]);
    expect([count('required', ['164.314', '164.316']), count('addressable', ['164.314', '164.316'])]).toEqual(
      [10, 0],
    );
  });

  it('HIPAA standards without implementation specifications are assessable themselves', () => {
    const leafStandards = assessable('hipaa-security')
      .filter((requirement) => !HIPAA_SPECIFICATIONS.has(requirement.ref))
      .map((requirement) => requirement.ref);
    expect(leafStandards).toEqual([
      '164.308(a)(2)',
      '164.308(a)(8)',
      '164.310(b)',
      '164.310(c)',
      '164.312(b)',
      '164.312(d)',
      '164.316(a)',
    ]);
  });

  it('PCI DSS has 12 principal requirements and tags the requirements for service providers and issuers', () => {
    const requirements = requirementsOf('pci-dss-4.0');
    expect(requirements.filter((requirement) => requirement.parent === undefined).map((r) => r.ref)).toEqual(
      upTo(12).map(String),
    );
    expect(childrenOf('pci-dss-4.0', '9.5')).toEqual(['9.5.1', '9.5.1.1', '9.5.1.2', '9.5.1.2.1', '9.5.1.3']);
    const tagged = Object.fromEntries(
      requirements.flatMap((requirement) =>
        requirement.attributes?.applies_to ? [[requirement.ref, requirement.attributes.applies_to]] : [],
      ),
    );
    const serviceProviders = [
      '3.6.1.1',
      '3.7.9',
      '8.2.3',
      '8.3.10',
      '8.3.10.1',
      '10.7.1',
      '11.4.6',
      '11.5.1.1',
      '12.4.1',
      '12.4.2',
      '12.4.2.1',
      '12.5.2.1',
      '12.5.3',
      '12.9.1',
      '12.9.2',
    ];
    expect(tagged).toEqual({
      ...Object.fromEntries(serviceProviders.map((ref) => [ref, 'service_providers'])),
      '3.3.3': 'issuers',
      '11.4.7': 'multi_tenant_service_providers',
    });
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
  // Requirements of the `from` catalogue that each crosswalk leaves without a counterpart, on purpose.
  const UNMAPPED: [string, string[]][] = [
    ['nis2__iso-27001-2022.json', []],
    ['dora__iso-27001-2022.json', ['Art. 10(4)', 'Art. 11(10)', 'Art. 26(8)', 'Art. 27(2)']],
    ['hipaa-security__nist-csf-2.0.json', []],
  ];
  it.each(UNMAPPED)('%s gives every requirement a counterpart except the ones it names', (file, unmapped) => {
    const crosswalk = crosswalkSchema.parse(JSON.parse(readFileSync(resolve(CROSSWALKS, file), 'utf8')));
    const mapped = new Set(crosswalk.mappings.map((mapping) => mapping.from));
    expect(
      assessable(crosswalk.from)
        .filter((requirement) => !mapped.has(requirement.ref))
        .map((requirement) => requirement.ref),
    ).toEqual(unmapped);
    for (const ref of unmapped) expect(crosswalk.method, ref).toContain(ref);
  });
});
