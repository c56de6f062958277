// Mappings the crosswalks propose: a measure mapped to a requirement of a framework adopted from a built-in catalogue
// may cover the requirements a crosswalk pairs it with in another adopted framework. Proposed, never applied: a person
// or an assistant accepts them (the links are made, with history, as linkRequirementMeasure makes them) or rejects
// them, in bulk. One proposal per measure and target requirement, ever: a rejected one is not proposed again.
import { and, eq, inArray, isNotNull, ne, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import {
  frameworks,
  mappingProposals,
  measures,
  requirementMeasures,
  requirements,
} from '../../db/schema.ts';
import { changesOfRows } from '../changes.ts';
import { nextUpdatedAt } from '../registers/records.ts';
import type { ToolContext } from '../types.ts';
import { crosswalkIndex, RELATIONSHIP_STRENGTH, type Relationship } from './builtin.ts';

/** Rows written per statement (one JSON parameter each). */
const CHUNK = 2000;

export interface ProposalCounts {
  /** New proposals written (or, on a dry run, that would be). */
  created: number;
  /** Proposals of the frameworks still waiting for a decision, the new ones included. */
  pending: number;
}

interface Candidate {
  measure: string;
  target: string;
  framework: string;
  source: string;
  relationship: Relationship;
}

type Json = (values: unknown) => SQL;
const jsonOf: Json = (values) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * The proposals into `targetIds` (frameworks of the organization adopted from a catalogue; all of them when absent):
 * for each measure mapped to a requirement of another adopted framework, each requirement the crosswalk between their
 * catalogues pairs it with, unless the measure is mapped to it already, it is a section, or it was proposed before.
 * The strongest relationship wins when several of the measure's requirements lead to the same one.
 */
export async function proposeMappings(
  ctx: ToolContext,
  organizationId: string,
  targetIds: readonly string[] | null,
  options: { dryRun: boolean; withExtras: boolean },
): Promise<ProposalCounts> {
  const adopted = await ctx.db
    .select({ id: frameworks.id, key: frameworks.catalog_key })
    .from(frameworks)
    .where(and(eq(frameworks.organization_id, organizationId), isNotNull(frameworks.catalog_key)));
  const keyOf = new Map(adopted.map((framework) => [framework.id, String(framework.key)]));
  const targets = adopted.filter((framework) => !targetIds || targetIds.includes(framework.id));
  const index = await crosswalkIndex();
  const paired = (a: string, b: string) =>
    index.files.some((file) => (file.from === a && file.to === b) || (file.from === b && file.to === a));
  // The frameworks whose links can lead into a target, and the targets themselves (their links are not proposed).
  const sources = adopted.filter((source) =>
    targets.some((target) => target.id !== source.id && paired(String(source.key), String(target.key))),
  );
  if (targets.length === 0 || sources.length === 0) return { created: 0, pending: 0 };
  const targetSet = new Set(targets.map((framework) => framework.id));
  const [links, targetRequirements, proposed] = (await ctx.db.batch([
    ctx.db
      .select({
        measure: requirementMeasures.measure_id,
        requirement: requirements.id,
        reference: requirements.reference,
        framework: requirements.framework_id,
      })
      .from(requirementMeasures)
      .innerJoin(requirements, eq(requirements.id, requirementMeasures.requirement_id))
      .innerJoin(measures, eq(measures.id, requirementMeasures.measure_id))
      .where(
        and(
          eq(requirementMeasures.organization_id, organizationId),
          inArray(requirements.framework_id, [...new Set([...sources, ...targets].map((item) => item.id))]),
          ne(measures.state, 'NOT_APPLICABLE'),
        ),
      ),
    ctx.db
      .select({
        id: requirements.id,
        reference: requirements.reference,
        framework: requirements.framework_id,
        section: requirements.is_section,
      })
      .from(requirements)
      .where(inArray(requirements.framework_id, [...targetSet])),
    ctx.db
      .select({ measure: mappingProposals.measure_id, requirement: mappingProposals.requirement_id })
      .from(mappingProposals)
      .where(
        and(
          eq(mappingProposals.organization_id, organizationId),
          inArray(mappingProposals.framework_id, [...targetSet]),
        ),
      ),
  ])) as unknown as [
    { measure: string; requirement: string; reference: string; framework: string }[],
    { id: string; reference: string; framework: string; section: boolean }[],
    { measure: string; requirement: string }[],
  ];
  const byReference = new Map<string, Map<string, { id: string; section: boolean }>>();
  for (const row of targetRequirements) {
    let map = byReference.get(row.framework);
    if (!map) {
      map = new Map();
      byReference.set(row.framework, map);
    }
    map.set(row.reference, { id: row.id, section: row.section });
  }
  const taken = new Set<string>();
  for (const link of links)
    if (targetSet.has(link.framework)) taken.add(`${link.measure}|${link.requirement}`);
  for (const row of proposed) taken.add(`${row.measure}|${row.requirement}`);
  const candidates = new Map<string, Candidate>();
  for (const link of links) {
    const sourceKey = keyOf.get(link.framework);
    if (!sourceKey) continue;
    for (const mapped of index.links.get(sourceKey)?.get(link.reference) ?? []) {
      for (const target of targets) {
        if (target.id === link.framework || target.key !== mapped.catalog) continue;
        const found = byReference.get(target.id)?.get(mapped.reference);
        if (!found || found.section) continue;
        const key = `${link.measure}|${found.id}`;
        if (taken.has(key)) continue;
        const earlier = candidates.get(key);
        if (
          earlier &&
          RELATIONSHIP_STRENGTH[earlier.relationship] >= RELATIONSHIP_STRENGTH[mapped.relationship]
        )
          continue;
        candidates.set(key, {
          measure: link.measure,
          target: found.id,
          framework: target.id,
          source: link.requirement,
          relationship: mapped.relationship,
        });
      }
    }
  }
  const fresh = [...candidates.values()];
  if (!options.dryRun && fresh.length > 0) {
    const now = ctx.now().toISOString();
    const statements: BatchItem<'sqlite'>[] = [];
    for (let at = 0; at < fresh.length; at += CHUNK) {
      const rows = fresh
        .slice(at, at + CHUNK)
        .map((item) => [
          `mpp_${randomTail()}`,
          item.measure,
          item.target,
          item.framework,
          item.source,
          item.relationship,
        ]);
      const column = (position: number) => sql.raw(`json_extract(rows.value, '$[${position}]')`);
      // Only while the measure and both requirements are still there (the triggers remove proposals of deleted
      // ones); `or ignore`: a proposal written meanwhile by another call stays as it is.
      statements.push(
        ctx.db.run(
          sql`insert or ignore into ${mappingProposals} (id, organization_id, measure_id, requirement_id, framework_id, source_requirement_id, relationship, status, created_at, updated_at) select ${column(0)}, ${organizationId}, ${column(1)}, ${column(2)}, ${column(3)}, ${column(4)}, ${column(5)}, 'PROPOSED', ${now}, ${now} from json_each(${JSON.stringify(rows)}) as rows where exists (select 1 from ${measures} where ${measures.id} = ${column(1)} and ${measures.organization_id} = ${organizationId}) and exists (select 1 from ${requirements} where ${requirements.id} = ${column(2)} and ${requirements.organization_id} = ${organizationId}) and exists (select 1 from ${requirements} where ${requirements.id} = ${column(4)} and ${requirements.organization_id} = ${organizationId})`,
        ),
      );
    }
    await ctx.db.batch([...statements, ...(options.withExtras ? ctx.writeExtras(sql`1`) : [])] as [
      BatchItem<'sqlite'>,
      ...BatchItem<'sqlite'>[],
    ]);
  }
  const [pending] = await ctx.db
    .select({ n: sql<number>`count(*)` })
    .from(mappingProposals)
    .where(
      and(
        eq(mappingProposals.organization_id, organizationId),
        inArray(mappingProposals.framework_id, [...targetSet]),
        eq(mappingProposals.status, 'PROPOSED'),
      ),
    );
  return {
    created: fresh.length,
    pending: Number(pending?.n ?? 0) + (options.dryRun ? fresh.length : 0),
  };
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The 24 random characters of an id (newId's alphabet), drawn in bulk for thousands of proposals. */
function randomTail(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

/** A proposal as accept and reject read it. */
export interface ProposalRow {
  id: string;
  status: string;
  measure_id: string;
  requirement_id: string;
  framework_id: string;
  applicability: string;
  is_section: boolean;
  linked: boolean;
}

/** The statements that accept `rows` (PROPOSED, target applicable or allowed): the links, their history, the status. */
export function acceptStatements(
  ctx: ToolContext,
  organizationId: string,
  rows: readonly ProposalRow[],
  tool: string,
): BatchItem<'sqlite'>[] {
  if (rows.length === 0) return [];
  const now = ctx.now().toISOString();
  const pairs = JSON.stringify(rows.map((row) => [row.requirement_id, row.measure_id]));
  const pair = (position: number) => sql.raw(`json_extract(pairs.value, '$[${position}]')`);
  // A pair still to link: its measure and requirement are still there (and not a section), not linked yet.
  const open = sql`exists (select 1 from ${measures} where ${measures.id} = ${pair(1)} and ${measures.organization_id} = ${organizationId}) and not exists (select 1 from ${requirementMeasures} where ${requirementMeasures.requirement_id} = ${pair(0)} and ${requirementMeasures.measure_id} = ${pair(1)})`;
  const touched = sql`${requirements.id} in (select ${pair(0)} from json_each(${pairs}) as pairs where ${open}) and ${requirements.organization_id} = ${organizationId} and ${requirements.is_section} = 0`;
  // A requirement's list before and after, as linkRequirementMeasure records it.
  const list = (withNew: boolean) =>
    sql`json_object('measure_ids', json((select json_group_array(x) from (select ${requirementMeasures.measure_id} as x from ${requirementMeasures} where ${requirementMeasures.requirement_id} = ${requirements.id}${withNew ? sql` union select ${pair(1)} from json_each(${pairs}) as pairs where ${pair(0)} = ${requirements.id} and ${open}` : sql``} order by x))))`;
  const ids = JSON.stringify(rows.map((row) => row.id));
  return [
    // History first, while the lists are as they were; then the owners' updated_at, the links, the decisions.
    changesOfRows(ctx, {
      tool,
      kind: 'requirement',
      action: 'link',
      table: requirements,
      idColumn: requirements.id,
      organizationColumn: requirements.organization_id,
      before: list(false),
      after: list(true),
      at: now,
      where: touched,
    }),
    ctx.db
      .update(requirements)
      .set({ updated_at: nextUpdatedAt(requirements.updated_at, now) } as never)
      .where(touched),
    ctx.db.run(
      sql`insert or ignore into ${requirementMeasures} (requirement_id, measure_id, organization_id, created_at) select ${pair(0)}, ${pair(1)}, ${organizationId}, ${now} from json_each(${pairs}) as pairs where ${open} and exists (select 1 from ${requirements} where ${requirements.id} = ${pair(0)} and ${requirements.organization_id} = ${organizationId} and ${requirements.is_section} = 0)`,
    ),
    decideStatement(ctx, ids, 'ACCEPTED', now),
  ];
}

/** Marks the proposals of `ids` (a JSON list) decided, where they are still PROPOSED. */
export function decideStatement(
  ctx: ToolContext,
  ids: string,
  status: 'ACCEPTED' | 'REJECTED',
  now: string,
): BatchItem<'sqlite'> {
  return ctx.db
    .update(mappingProposals)
    .set({ status, decided_by: ctx.principal.userId, decided_at: now, updated_at: now })
    .where(
      and(
        sql`${mappingProposals.id} in (select value from json_each(${ids}))`,
        eq(mappingProposals.status, 'PROPOSED'),
      ),
    );
}

/** The proposals among `ids`, or every PROPOSED one of a framework, of the organization, as accept/reject read them. */
export async function proposalsToDecide(
  ctx: ToolContext,
  organizationId: string,
  selection: { ids?: readonly string[]; frameworkId?: string; measureId?: string },
): Promise<ProposalRow[]> {
  const conditions: (SQL | undefined)[] = [eq(mappingProposals.organization_id, organizationId)];
  if (selection.ids) conditions.push(sql`${mappingProposals.id} in ${jsonOf(selection.ids)}`);
  else conditions.push(eq(mappingProposals.status, 'PROPOSED'));
  if (selection.frameworkId) conditions.push(eq(mappingProposals.framework_id, selection.frameworkId));
  if (selection.measureId) conditions.push(eq(mappingProposals.measure_id, selection.measureId));
  return ctx.db
    .select({
      id: mappingProposals.id,
      status: mappingProposals.status,
      measure_id: mappingProposals.measure_id,
      requirement_id: mappingProposals.requirement_id,
      framework_id: mappingProposals.framework_id,
      applicability: requirements.applicability,
      is_section: requirements.is_section,
      linked:
        sql<boolean>`exists (select 1 from ${requirementMeasures} where ${requirementMeasures.requirement_id} = ${mappingProposals.requirement_id} and ${requirementMeasures.measure_id} = ${mappingProposals.measure_id})`.mapWith(
          Boolean,
        ),
    })
    .from(mappingProposals)
    .innerJoin(requirements, eq(requirements.id, mappingProposals.requirement_id))
    .where(and(...conditions));
}
