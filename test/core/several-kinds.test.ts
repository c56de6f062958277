// A relation whose targets are records of several kinds (evidence for measures, risks, vendors...): ids of any of
// them, told apart by prefix; deleting any of them takes it out of the owners' lists.
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { idOfAny } from '../../src/tools/fields.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { buildReferenceGraph, deleteEffectsOf } from '../../src/tools/registers/references.ts';
import {
  kindOfId,
  type RegisterSpec,
  type RelationSpec,
  singleTargetOf,
  targetsOf,
} from '../../src/tools/registers/spec.ts';

describe('idOfAny', () => {
  const schema = idOfAny(['msr', 'rsk'], 'record');

  it('accepts an id of any of the kinds and refuses others with the prefixes named', () => {
    const measure = newId('msr');
    const risk = newId('rsk');
    expect(schema.parse(measure)).toBe(measure);
    expect(schema.parse(risk)).toBe(risk);
    // A well-formed id of another kind is named for what it is, with the tool that reads it.
    const vendor = newId('ven');
    const refused = schema.safeParse(vendor);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe(
      `"${vendor}" is a vendor id, not the id of a kind this argument takes (\`msr_...\`, \`rsk_...\`): read it with getVendor.`,
    );
    // A malformed one is told the shape.
    const short = schema.safeParse('msr_short');
    expect(short.success).toBe(false);
    expect(short.error?.issues[0]?.message).toBe(
      'Expected the id of a record: one starting msr_, rsk_ followed by 24 characters from 0-9 and a-z except i, l, o, u',
    );
    expect(schema.description).toBe('Record id (`msr_...`, `rsk_...`)');
  });

  it('is idOf for one prefix', () => {
    const one = idOfAny(['msr'], 'Measure');
    expect(one.description).toBe('Measure id (`msr_...`)');
    expect(one.safeParse(newId('rsk')).success).toBe(false);
  });
});

describe('kindOfId', () => {
  it('tells the kind among the targets by the prefix', () => {
    expect(kindOfId(['measure', 'risk'], newId('rsk'))).toBe('risk');
    expect(kindOfId(['measure', 'risk'], newId('msr'))).toBe('measure');
    expect(kindOfId(['measure', 'risk'], newId('ven'))).toBeUndefined();
    expect(kindOfId(['measure'], 'no-prefix')).toBeUndefined();
  });
});

describe('a several-kinds relation in the reference graph', () => {
  const risk = REGISTER_SPECS.find((spec) => spec.kind === 'risk') as RegisterSpec;
  const base = risk.relations?.[0] as RelationSpec;
  // The risks' measure link table, read as if its target column could hold measures or vendors.
  const relation: RelationSpec = { ...base, field: 'record_ids', target: ['measure', 'vendor'] };
  const owner: RegisterSpec = { ...risk, relations: [relation] };

  it('lists the kinds and has no single target', () => {
    expect(targetsOf(relation)).toEqual(['measure', 'vendor']);
    expect(singleTargetOf(relation)).toBeUndefined();
    expect(singleTargetOf(base)).toBe('measure');
  });

  it('deleting a record of either kind takes it out of the owner list', () => {
    const graph = buildReferenceGraph([owner]);
    for (const kind of ['measure', 'vendor'] as const) {
      expect(deleteEffectsOf(graph.get(kind) ?? []).removesFrom).toEqual([
        { kind: 'risk', field: 'record_ids' },
      ]);
    }
    expect(graph.get('audit')).toBeUndefined();
  });
});
