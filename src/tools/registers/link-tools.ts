// Link and unlink tools of a relation kept out of add/update (e.g. linkRiskMeasure): one link row each, the owner's
// updated_at moved and a history row written only when the link really changed.
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { changesOfRows } from '../changes.ts';
import { idOf, idOfAny } from '../fields.ts';
import { DELETE_ANNOTATIONS, defineTool, type Tool, type ToolContext, UPDATE_ANNOTATIONS } from '../types.ts';
import { nextUpdatedAt } from './records.ts';
import { exactlyOneOf } from './schemas.ts';
import { capitalize, type LinkToolsSpec, type RegisterSpec, type RelationSpec, toolsetOf } from './spec.ts';

export interface LinkTools {
  relation: RelationSpec;
  link: Tool;
  unlink: Tool;
  /** The argument names: `{risk_id, measure_id}`. */
  ownerArgument: string;
  targetArgument: string;
}

export function buildLinkTools(
  owner: RegisterSpec,
  relation: RelationSpec & { links: LinkToolsSpec },
  targets: readonly RegisterSpec[],
): LinkTools {
  const ownerTable = owner.table;
  const ownerArgument = `${owner.kind}_id`;
  // One kind: `measure_id`; several kinds (evidence for measures, risks...): `record_id`, its kind by its prefix.
  const [single] = targets.length === 1 ? targets : [];
  const targetArgument = single ? `${single.kind}_id` : 'record_id';
  const targetLabel = single?.label ?? 'record';
  // A requirement may be named by framework and reference instead of its id: one of the two arguments.
  const named = owner.namedBy;
  const ownerId = idOf(owner.prefix, capitalize(owner.label)).describe(
    named
      ? `The ${owner.label} (\`${owner.prefix}_...\`), or give ${named.argument}.`
      : `The ${owner.label} (\`${owner.prefix}_...\`).`,
  );
  const shape = z.strictObject({
    [ownerArgument]: named ? ownerId.optional() : ownerId,
    ...(named ? { [named.argument]: named.schema.optional() } : {}),
    [targetArgument]: idOfAny(
      targets.map((target) => target.prefix),
      capitalize(targetLabel),
    ).describe(
      single
        ? `The ${single.label} (\`${single.prefix}_...\`).`
        : `The record: ${targets.map((target) => `${target.label} (\`${target.prefix}_...\`)`).join(', ')}.`,
    ),
  });
  const input = named ? shape.superRefine(exactlyOneOf(ownerArgument, named.argument)) : shape;
  const output = z.object({
    [ownerArgument]: z.string().describe(`The ${owner.label}.`),
    [relation.field]: z
      .array(z.string())
      .describe(`All ${single?.labelPlural ?? 'records'} linked to the ${owner.label} after the change.`),
  });
  type Pair = { ownerId: string; targetId: string };
  /** The owner's id: given, or named otherwise and resolved in the target's organization. */
  async function pairOf(ctx: ToolContext, values: Record<string, unknown>): Promise<Pair> {
    const targetId = String(values[targetArgument]);
    if (typeof values[ownerArgument] === 'string' || !named)
      return { ownerId: String(values[ownerArgument]), targetId };
    const target = targets.find((spec) => targetId.startsWith(`${spec.prefix}_`));
    const [other] = target
      ? await ctx.db
          .select({ organization_id: target.table.organization_id })
          .from(target.table)
          .where(eq(target.table.id, targetId))
      : [];
    const organizationId = (other?.organization_id as string | undefined) ?? null;
    return { ownerId: await named.resolve(ctx, values[named.argument], organizationId, 'write'), targetId };
  }

  /** The owner's organization, once the caller may write there and the target is of the same organization. */
  async function loadPair(ctx: ToolContext, { ownerId, targetId }: Pair): Promise<string> {
    const [found] = await ctx.db
      .select({ organization_id: ownerTable.organization_id })
      .from(ownerTable)
      .where(eq(ownerTable.id, ownerId));
    if (!found) throw notFound(capitalize(owner.label));
    requireOrganization(ctx, found.organization_id as string, 'write', capitalize(owner.label));
    const target = targets.find((spec) => targetId.startsWith(`${spec.prefix}_`));
    const [other] = target
      ? await ctx.db
          .select({ id: target.table.id })
          .from(target.table)
          .where(and(eq(target.table.id, targetId), eq(target.table.organization_id, found.organization_id)))
      : [];
    if (!other) {
      throw new AppError(
        'not_found',
        `${capitalize(target?.label ?? targetLabel)} not found in the organization of this ${owner.label}.`,
      );
    }
    return found.organization_id as string;
  }

  async function linked(ctx: ToolContext, ownerId: string): Promise<string[]> {
    const rows = await ctx.db
      .select({ id: relation.targetColumn })
      .from(relation.table)
      .where(eq(relation.ownerColumn, ownerId))
      .orderBy(relation.targetColumn);
    return rows.map((row) => String(row.id));
  }

  /**
   * Moves the owner's updated_at forward when the statement just before it (in the same batch) changed a link, so
   * `expected_updated_at` also guards the list. `changes()` is the row count of that previous statement.
   */
  function touchOwnerIfChanged(ctx: ToolContext, ownerId: string) {
    const now = ctx.now().toISOString();
    return ctx.db
      .update(ownerTable)
      .set({ updated_at: nextUpdatedAt(ownerTable.updated_at, now) } as never)
      .where(and(eq(ownerTable.id, ownerId), sql`changes() > 0`));
  }

  /**
   * The history row of a link or unlink, after the touch of the owner: written only if that touch changed it, i.e.
   * only if the link really changed. The list before and after is read by SQL at that moment.
   */
  function linkChange(ctx: ToolContext, tool: string, linking: boolean, { ownerId, targetId }: Pair) {
    const { table, ownerColumn, targetColumn } = relation;
    const list = (variant: 'as_is' | 'without' | 'with') =>
      sql`json_object(${relation.field}, json((select json_group_array(x) from (select ${targetColumn} as x from ${table} where ${ownerColumn} = ${ownerId}${variant === 'without' ? sql` and ${targetColumn} != ${targetId}` : variant === 'with' ? sql` union select ${targetId}` : sql``} order by x))))`;
    return changesOfRows(ctx, {
      tool,
      kind: owner.kind,
      action: linking ? 'link' : 'unlink',
      table: ownerTable,
      idColumn: ownerTable.id,
      organizationColumn: ownerTable.organization_id,
      before: list(linking ? 'without' : 'with'),
      after: list('as_is'),
      at: ctx.now().toISOString(),
      where: sql`${ownerTable.id} = ${ownerId} and changes() > 0`,
      written: true,
    });
  }

  const hasCreatedAt = 'created_at' in getTableColumns(relation.table);
  const answer = async (ctx: ToolContext, ownerId: string) => ({
    [ownerArgument]: ownerId,
    [relation.field]: await linked(ctx, ownerId),
  });
  const { links } = relation;
  const link = defineTool({
    ...links.link,
    scope: 'write',
    toolset: toolsetOf(owner),
    annotations: UPDATE_ANNOTATIONS,
    input,
    output,
    async run(ctx, values) {
      const pair = await pairOf(ctx, values);
      const organizationId = await loadPair(ctx, pair);
      await relation.beforeLink?.(ctx, pair.ownerId, pair.targetId);
      const row = {
        [relation.ownerColumn.name]: pair.ownerId,
        [relation.targetColumn.name]: pair.targetId,
        [relation.organizationColumn.name]: organizationId,
        ...(hasCreatedAt ? { created_at: ctx.now().toISOString() } : {}),
      };
      await ctx.db.batch([
        ctx.db
          .insert(relation.table)
          .values(row as never)
          .onConflictDoNothing(),
        touchOwnerIfChanged(ctx, pair.ownerId),
        linkChange(ctx, links.link.name, true, pair),
        ...ctx.writeExtras(sql`1`),
      ]);
      return answer(ctx, pair.ownerId);
    },
    answerAgain: async (ctx, values) => answer(ctx, (await pairOf(ctx, values)).ownerId),
  });
  const unlink = defineTool({
    ...links.unlink,
    scope: 'write',
    toolset: toolsetOf(owner),
    annotations: DELETE_ANNOTATIONS,
    input,
    output,
    async run(ctx, values) {
      const pair = await pairOf(ctx, values);
      await loadPair(ctx, pair);
      await ctx.db.batch([
        ctx.db
          .delete(relation.table)
          .where(and(eq(relation.ownerColumn, pair.ownerId), eq(relation.targetColumn, pair.targetId))),
        touchOwnerIfChanged(ctx, pair.ownerId),
        linkChange(ctx, links.unlink.name, false, pair),
        ...ctx.writeExtras(sql`1`),
      ]);
      return answer(ctx, pair.ownerId);
    },
    answerAgain: async (ctx, values) => answer(ctx, (await pairOf(ctx, values)).ownerId),
  });
  return { relation, link, unlink, ownerArgument, targetArgument };
}
