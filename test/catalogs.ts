// Framework catalogs the tests write themselves (their own words): OSCAL catalogs shaped as NIST publishes them
// (groups, controls, enhancements, parameters, withdrawn controls) and the same content as CSV.

export interface CatalogShape {
  /** Groups (families) of the catalog. */
  groups: number;
  /** Controls per group. */
  controls: number;
  /** Enhancements per control. */
  enhancements: number;
  /** Title suffix, so that a second edition can differ. */
  edition?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An OSCAL catalog: group `G<g>` (label `F<g>`), control `F<g>-<c>`, enhancement `F<g>-<c>(<e>)`. */
export function oscalCatalog(shape: CatalogShape): string {
  const edition = shape.edition ?? '';
  const groups = Array.from({ length: shape.groups }, (_, g) => ({
    id: `g${g + 1}`,
    class: 'family',
    title: `Family ${g + 1}${edition}`,
    props: [{ name: 'label', value: `F${g + 1}` }],
    controls: Array.from({ length: shape.controls }, (_, c) => {
      const reference = `F${g + 1}-${c + 1}`;
      const id = `f${g + 1}-${c + 1}`;
      return {
        id,
        class: 'test-catalog',
        title: `Control ${reference}${edition}`,
        params: [
          { id: `${id}_prm_1`, label: 'frequency' },
          { id: `${id}_prm_2`, select: { choice: ['quarterly', 'yearly'] } },
        ],
        props: [
          { name: 'label', value: reference },
          { name: 'label', class: 'zero-padded', value: `F${pad(g + 1)}-${pad(c + 1)}` },
        ],
        parts: [
          {
            id: `${id}_smt`,
            name: 'statement',
            prose: `The team reviews item ${reference} {{ insert: param, ${id}_prm_1 }}.`,
            parts: [
              {
                id: `${id}_smt.a`,
                name: 'item',
                props: [{ name: 'label', value: 'a.' }],
                prose: `Records the review {{ insert: param, ${id}_prm_2 }};`,
              },
            ],
          },
          { id: `${id}_gdn`, name: 'guidance', prose: 'Guidance is not imported.' },
        ],
        controls: Array.from({ length: shape.enhancements }, (_, e) => ({
          id: `${id}.${e + 1}`,
          class: 'test-catalog',
          title: `Enhancement ${reference}(${e + 1})${edition}`,
          props: [{ name: 'label', value: `${reference}(${e + 1})` }],
          parts: [{ id: `${id}.${e + 1}_smt`, name: 'statement', prose: `Also ${reference}(${e + 1}).` }],
        })),
      };
    }),
  }));
  // One withdrawn control, as SP 800-53 keeps them: read and skipped.
  groups[0]?.controls.push({
    id: 'f1-99',
    class: 'test-catalog',
    title: 'Withdrawn control',
    params: [],
    props: [
      { name: 'label', value: 'F1-99' },
      { name: 'status', value: 'withdrawn' } as { name: string; value: string; class: string },
    ],
    parts: [],
    controls: [],
  });
  return JSON.stringify({
    catalog: { uuid: '00000000-0000-4000-8000-000000000000', metadata: { title: 'Test catalog' }, groups },
  });
}

/** A catalog shaped as CSF 2.0's: functions (labels "NAME (ID)", an overview), categories, subcategories. */
export function csfShapedCatalog(): string {
  const subcategory = (id: string, prose: string) => ({
    id,
    class: 'subcategory',
    title: id,
    props: [{ name: 'label', value: id }],
    parts: [
      { id: `${id}_statement`, name: 'statement', prose },
      { name: 'example', prose: 'Not imported.' },
    ],
  });
  return JSON.stringify({
    catalog: {
      uuid: '00000000-0000-4000-8000-000000000001',
      metadata: { title: 'CSF-shaped test catalog' },
      groups: [
        {
          id: 'GV',
          class: 'function',
          title: 'GOVERN',
          props: [{ name: 'label', value: 'GOVERN (GV)' }],
          parts: [{ id: 'GV_overview', name: 'overview', prose: 'How the team steers its risk work.' }],
          controls: [
            {
              id: 'GV.OC',
              class: 'category',
              title: 'Context',
              props: [{ name: 'label', value: 'Context (GV.OC)' }],
              parts: [{ id: 'GV.OC_statement', name: 'statement', prose: 'The setting is understood.' }],
              controls: [
                subcategory('GV.OC-01', 'The purpose guides the work.'),
                subcategory('GV.OC-02', 'People are known.'),
              ],
            },
          ],
        },
      ],
    },
  });
}

/** A CSV catalog: sections S<s> with requirements S<s>.<r>, and a sub-requirement under the first of each. */
export function csvCatalog(sections: number, perSection: number): string {
  const lines = ['ref,title,description,parent,section'];
  for (let s = 1; s <= sections; s++) {
    lines.push(`S${s},"Section ${s}",,,yes`);
    for (let r = 1; r <= perSection; r++)
      lines.push(`S${s}.${r},"Requirement ${s}.${r}","What ""${s}.${r}"" asks, with a comma",S${s},no`);
    lines.push(`S${s}.1.a,"Part a of ${s}.1",,S${s}.1,`);
  }
  return `${lines.join('\r\n')}\r\n`;
}
