// Linking risks to the measures that mitigate them (many-to-many, within one organization).
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { measures, riskMeasures, risks } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { requireOrganization } from './access.ts';
import { changesOfRows } from './changes.ts';
import { idOf } from './fields.ts';
import { DELETE_ANNOTATIONS, defineTool, type Tool, type ToolContext, UPDATE_ANNOTATIONS } from './types.ts';

const linkInput = z.strictObject({
  risk_id: idOf('rsk', 'Risk').describe('The risk (`rsk_...`).'),
  measure_id: idOf('msr', 'Measure').describe('The measure (`msr_...`) of the same organization.'),
});

const linkOutput = z.object({
  risk_id: z.string().describe('The risk.'),
  measure_ids: z.array(z.string()).describe('All measures linked to the risk after the change.'),
});

async function loadPair(ctx: ToolContext, riskId: string, measureId: string) {
  const [risk] = await ctx.db
    .select({ organization_id: risks.organization_id })
    .from(risks)
    .where(eq(risks.id, riskId));
  if (!risk) throw notFound('Risk');
  requireOrganization(ctx, risk.organization_id, 'write', 'Risk');
  const [measure] = await ctx.db
    .select({ id: measures.id })
    .from(measures)
    .where(and(eq(measures.id, measureId), eq(measures.organization_id, risk.organization_id)));
  if (!measure) throw new AppError('not_found', 'Measure not found in the organization of this risk.');
  return risk.organization_id;
}

async function linkedMeasures(ctx: ToolContext, riskId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ id: riskMeasures.measure_id })
    .from(riskMeasures)
    .where(eq(riskMeasures.risk_id, riskId))
    .orderBy(riskMeasures.measure_id);
  return rows.map((row) => row.id);
}

/**
 * Moves the risk's updated_at forward when the statement just before it (in the same batch) changed a link, so
 * `expected_updated_at` also guards `measure_ids`. `changes()` is the row count of that previous statement.
 */
function touchRiskIfChanged(ctx: ToolContext, riskId: string) {
  const now = ctx.now().toISOString();
  return ctx.db
    .update(risks)
    .set({
      updated_at: sql`case when ${now} > ${risks.updated_at} then ${now} else strftime('%Y-%m-%dT%H:%M:%fZ', ${risks.updated_at}, '+0.001 seconds') end`,
    })
    .where(and(eq(risks.id, riskId), sql`changes() > 0`));
}

/**
 * The history row of a link or unlink, after the touch of the risk: written only if that touch changed the risk,
 * i.e. only if the link really changed. measure_ids before and after are read by SQL at that moment.
 */
function linkChange(ctx: ToolContext, tool: string, input: { risk_id: string; measure_id: string }) {
  const linking = tool === 'linkRiskMeasure';
  const list = (variant: 'as_is' | 'without' | 'with') =>
    sql`json_object('measure_ids', json((select json_group_array(x) from (select ${riskMeasures.measure_id} as x from ${riskMeasures} where ${riskMeasures.risk_id} = ${input.risk_id}${variant === 'without' ? sql` and ${riskMeasures.measure_id} != ${input.measure_id}` : variant === 'with' ? sql` union select ${input.measure_id}` : sql``} order by x))))`;
  return changesOfRows(ctx, {
    tool,
    kind: 'risk',
    action: linking ? 'link' : 'unlink',
    table: risks,
    idColumn: risks.id,
    organizationColumn: risks.organization_id,
    before: list(linking ? 'without' : 'with'),
    after: list('as_is'),
    at: ctx.now().toISOString(),
    where: sql`${risks.id} = ${input.risk_id} and changes() > 0`,
  });
}

export const riskMeasureTools: Tool[] = [
  defineTool({
    name: 'linkRiskMeasure',
    title: 'Link a measure to a risk',
    description:
      'Record that a measure mitigates a risk (same organization; linking twice is harmless); getRisk lists it in measure_ids. Then lower the residual likelihood/impact with updateRisk if the measure reduces the risk.',
    scope: 'write',
    toolset: 'risks',
    annotations: UPDATE_ANNOTATIONS,
    input: linkInput,
    output: linkOutput,
    async run(ctx, input) {
      const organizationId = await loadPair(ctx, input.risk_id, input.measure_id);
      await ctx.db.batch([
        ctx.db
          .insert(riskMeasures)
          .values({
            risk_id: input.risk_id,
            measure_id: input.measure_id,
            organization_id: organizationId,
            created_at: ctx.now().toISOString(),
          })
          .onConflictDoNothing(),
        touchRiskIfChanged(ctx, input.risk_id),
        linkChange(ctx, 'linkRiskMeasure', input),
        ...ctx.writeExtras(sql`1`),
      ]);
      return { risk_id: input.risk_id, measure_ids: await linkedMeasures(ctx, input.risk_id) };
    },
  }),
  defineTool({
    name: 'unlinkRiskMeasure',
    title: 'Unlink a measure from a risk',
    description:
      'Remove the link between a risk and a measure; neither record is deleted. Unlinking a pair that is not linked is harmless.',
    scope: 'write',
    toolset: 'risks',
    annotations: DELETE_ANNOTATIONS,
    input: linkInput,
    output: linkOutput,
    async run(ctx, input) {
      await loadPair(ctx, input.risk_id, input.measure_id);
      await ctx.db.batch([
        ctx.db
          .delete(riskMeasures)
          .where(and(eq(riskMeasures.risk_id, input.risk_id), eq(riskMeasures.measure_id, input.measure_id))),
        touchRiskIfChanged(ctx, input.risk_id),
        linkChange(ctx, 'unlinkRiskMeasure', input),
        ...ctx.writeExtras(sql`1`),
      ]);
      return { risk_id: input.risk_id, measure_ids: await linkedMeasures(ctx, input.risk_id) };
    },
  }),
];
