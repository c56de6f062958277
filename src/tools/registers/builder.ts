// Builds every register's tools from the specs: typed handles per kind ({list, get, add, update, delete, links}).
import { z } from 'zod';
import { registerIdKind } from '../id-kinds.ts';
import { defineTool, READ_ANNOTATIONS, RECORD_SCHEMAS, type Tool } from '../types.ts';
import { asOfNoteSchema } from './as-of.ts';
import { getRecordAsOf } from './as-of-reads.ts';
import { buildDeleteTool } from './delete-tool.ts';
import { buildLinkTools, type LinkTools } from './link-tools.ts';
import { buildListTool } from './list-tool.ts';
import { type RegisterRecords, registerRecords } from './records.ts';
import { buildReferenceGraph, type DeleteEffects, deleteEffectsOf } from './references.ts';
import { getInput, recordSchema } from './schemas.ts';
import { type RegisterKind, type RegisterSpec, type RegisterTable, targetsOf, toolsetOf } from './spec.ts';
import { buildAddTool, buildUpdateTool } from './write-tools.ts';

/** One register's tools, as handles: call sites name `registers.risk.add`, never a name glued from strings. */
export interface RegisterTools {
  spec: RegisterSpec;
  list: Tool;
  get: Tool;
  add: Tool;
  update: Tool;
  delete: Tool;
  /** Link/unlink tools of the relations kept out of add/update (a risk's measures). */
  links: LinkTools[];
  /** What deleting one of its records does to the records that point at it. */
  deleteEffects: DeleteEffects;
  /** Its records as the tools read and write them (columns, history values): for bulk writes such as imports. */
  records: RegisterRecords;
}

export type Registers = Readonly<Record<RegisterKind, RegisterTools>>;

export function buildRegisters(specs: readonly RegisterSpec[]): Registers {
  const byKind = new Map(specs.map((spec) => [spec.kind, spec]));
  const specOf = (kind: RegisterKind): RegisterSpec => {
    const spec = byKind.get(kind);
    if (!spec) throw new Error(`No register for ${kind}`);
    return spec;
  };
  const tableOf = (kind: RegisterKind): RegisterTable => specOf(kind).table;
  const pluralOf = (kind: string) => specOf(kind as RegisterKind).labelPlural;
  const graph = buildReferenceGraph(specs);
  const entries = specs.map((spec): [RegisterKind, RegisterTools] => {
    const records = registerRecords(spec, tableOf);
    const record = recordSchema(spec);
    RECORD_SCHEMAS.set(record, { label: spec.label, spelledOutIn: `get${spec.noun}` });
    const single = z.object({ [spec.key]: record });
    const asOfOutput = { as_of: asOfNoteSchema.optional() };
    const references = graph.get(spec.kind) ?? [];
    const deleteEffects = deleteEffectsOf(references);
    const get = defineTool({
      name: `get${spec.noun}`,
      title: `Get ${spec.label}`,
      description: [
        spec.namedBy
          ? `Get one ${spec.label} by id or by ${spec.namedBy.argument}.`
          : `Get one ${spec.label} by id.`,
        spec.hints?.get ?? '',
      ]
        .filter(Boolean)
        .join(' '),
      scope: 'read',
      annotations: READ_ANNOTATIONS,
      toolset: toolsetOf(spec),
      input: getInput(spec),
      output: (spec.getExtras ? single.extend(spec.getExtras.shape) : single).extend(asOfOutput),
      async run(ctx, input) {
        const values = input as Record<string, unknown>;
        const id =
          typeof values.id === 'string' || !spec.namedBy
            ? String(values.id)
            : await spec.namedBy.resolve(
                ctx,
                values[spec.namedBy.argument],
                (values.organization_id as string | undefined) ?? null,
                'read',
              );
        if (typeof values.as_of === 'string') {
          const { record, at, note } = await getRecordAsOf(ctx, records, id, values.as_of);
          return { [spec.key]: record, ...(await spec.getExtras?.read(at, record)), as_of: note };
        }
        const record = records.present(await records.load(ctx, id, 'read'), ctx);
        return { [spec.key]: record, ...(await spec.getExtras?.read(ctx, record)) };
      },
    });
    const list = buildListTool(records, record);
    registerIdKind(spec.prefix, {
      label: spec.label,
      plural: spec.labelPlural,
      read: get.name,
      list: list.name,
      ...(spec.idNote ? { note: spec.idNote } : {}),
    });
    const links = (spec.relations ?? []).flatMap((relation) =>
      relation.links && !relation.inverse
        ? [buildLinkTools(spec, { ...relation, links: relation.links }, targetsOf(relation).map(specOf))]
        : [],
    );
    return [
      spec.kind,
      {
        spec,
        list,
        get,
        add: buildAddTool(records, single),
        update: buildUpdateTool(records, single),
        delete: buildDeleteTool(
          records,
          references,
          deleteEffects,
          pluralOf,
          (kind) => graph.get(kind) ?? [],
        ),
        links,
        deleteEffects,
        records,
      },
    ];
  });
  return Object.fromEntries(entries) as Record<RegisterKind, RegisterTools>;
}
