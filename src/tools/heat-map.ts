// getRiskHeatMap: the likelihood x impact grid of an organization's open risks, now or as of a past time.
import { and, count, eq, ne } from 'drizzle-orm';
import { z } from 'zod';
import { risks } from '../db/schema.ts';
import { requireOrganization } from './access.ts';
import { idOf } from './fields.ts';
import { asOfNote, asOfNoteSchema, asOfSchema, checkAsOf } from './registers/as-of.ts';
import { rebuildRegister } from './registers/as-of-reads.ts';
import type { RegisterRecords } from './registers/records.ts';
import { readSettings } from './settings.ts';
import { heatCells, heatMapOf } from './summary.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from './types.ts';

/** The heat map tool, over the risk register's records (for its as-of rebuild). */
export function riskHeatMapTool(riskRecords: RegisterRecords): Tool {
  return defineTool({
    name: 'getRiskHeatMap',
    title: 'Risk heat map',
    description:
      'Likelihood x impact grid (heat map) of the open, not CLOSED ones: counts and level per cell, inherent and residual. as_of: the grid as it stood on a past date (an audit date).',
    scope: 'read',
    // With the history: the grid now is in getComplianceSummary (core); this tool's purpose is as_of. Kept out of
    // the default risks toolset, which must fit the default connection's budget whole.
    toolset: 'history',
    annotations: READ_ANNOTATIONS,
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
      as_of: asOfSchema.optional(),
    }),
    output: z.object({
      inherent: heatCells.describe('Cells by inherent likelihood and impact; empty cells left out.'),
      residual: heatCells.describe('Cells by residual likelihood and impact; empty cells left out.'),
      open_risks: z.number().int().describe('Risks not CLOSED counted in each grid.'),
      as_of: asOfNoteSchema.optional(),
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      const method = (await readSettings(ctx.db, input.organization_id)).risk_method;
      let rows: { il: number; ii: number; rl: number; ri: number; n: number }[];
      if (input.as_of === undefined) {
        rows = await ctx.db
          .select({
            il: risks.inherent_likelihood,
            ii: risks.inherent_impact,
            rl: risks.residual_likelihood,
            ri: risks.residual_impact,
            n: count(),
          })
          .from(risks)
          .where(and(eq(risks.organization_id, input.organization_id), ne(risks.status, 'CLOSED')))
          .groupBy(
            risks.inherent_likelihood,
            risks.inherent_impact,
            risks.residual_likelihood,
            risks.residual_impact,
          );
      } else {
        checkAsOf(ctx, input.as_of);
        const rebuilt = await rebuildRegister(ctx, riskRecords, input.organization_id, input.as_of);
        rows = rebuilt
          .filter((risk) => risk.status !== 'CLOSED')
          .map((risk) => ({
            il: Number(risk.inherent_likelihood),
            ii: Number(risk.inherent_impact),
            rl: Number(risk.residual_likelihood),
            ri: Number(risk.residual_impact),
            n: 1,
          }));
      }
      const open = rows.reduce((sum, row) => sum + Number(row.n), 0);
      return {
        ...heatMapOf(rows, method),
        open_risks: open,
        ...(input.as_of === undefined
          ? {}
          : {
              as_of: await asOfNote(
                ctx,
                input.organization_id,
                input.as_of,
                [],
                ["Levels follow the organization's risk method as it is today."],
              ),
            }),
      };
    },
  });
}
