// getComplianceSummary: one call that tells an assistant where an organization stands.
import { and, asc, count, eq, gte, inArray, lt, lte, ne, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import {
  audits,
  continualImprovements,
  dataSubjectRequests,
  dpias,
  frameworks,
  incidentDeadlines,
  incidents,
  measures,
  nonconformities,
  obligations,
  requirements,
  risks,
} from '../db/schema.ts';
import { requireOrganization } from './access.ts';
import { type CoverageCounts, coverageOf, coverageSchema, lacksJustification } from './coverage.ts';
import { idOf } from './fields.ts';
import { refreshClocks } from './incidents/clock-store.ts';
import { incompleteClosure } from './nonconformities.ts';
import { overdueCondition, todayOf } from './overdue.ts';
import { REQUEST_OPEN } from './privacy/data-subject-requests.ts';
import { measureReadinessFilter } from './readiness.ts';
import { REVIEW_CYCLES, reviewDueBefore } from './reviews.ts';
import { firstScoreAboveAppetite, levelOf, MAX_SCORE, type RiskMethod } from './risk-method.ts';
import { acceptanceDueCondition } from './risks.ts';
import { readSettings } from './settings.ts';
import {
  AUDIT_STATES,
  DPIA_STATUSES,
  INCIDENT_SEVERITIES,
  MEASURE_STATES,
  OBLIGATION_STATUSES,
  REQUEST_STATUSES,
  RISK_STATUSES,
  WORKFLOW_STATUSES,
} from './states.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from './types.ts';

function countsOf<const T extends readonly string[]>(values: T, what: string) {
  return z
    .object(Object.fromEntries(values.map((value) => [value, z.number().int().describe(`${what} ${value}`)])))
    .describe(`Count per value (${values.join(', ')}).`);
}

function tally(values: readonly string[], rows: { key: unknown; n: number }[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(values.map((value) => [value, 0]));
  for (const row of rows) if (typeof row.key === 'string' && row.key in out) out[row.key] = row.n;
  return out;
}

export const heatCells = z.array(
  z
    .object({
      likelihood: z.number().int().describe('Likelihood, 1 (lowest) up the scale.'),
      impact: z.number().int().describe('Impact, 1 (lowest) up the scale.'),
      level: z.string().describe("The cell's level (likelihood x impact) by the method."),
      count: z.number().int().describe('Risks not CLOSED in this cell (at least 1).'),
    })
    .describe('A cell of the grid.'),
);

type HeatCell = { likelihood: number; impact: number; level: string; count: number };

/** Folds the grouped (inherent L, I, residual L, I) counts into the two grids, cells in likelihood, impact order. */
export function heatMapOf(
  rows: { il: number; ii: number; rl: number; ri: number; n: number }[],
  method: RiskMethod,
) {
  const inherent = new Map<string, HeatCell>();
  const residual = new Map<string, HeatCell>();
  const add = (cells: Map<string, HeatCell>, likelihood: number, impact: number, n: number) => {
    const key = `${likelihood}:${impact}`;
    const cell = cells.get(key) ?? {
      likelihood,
      impact,
      level: levelOf(method, likelihood * impact).name,
      count: 0,
    };
    cell.count += n;
    cells.set(key, cell);
  };
  for (const row of rows) {
    add(inherent, Number(row.il), Number(row.ii), Number(row.n));
    add(residual, Number(row.rl), Number(row.ri), Number(row.n));
  }
  const sorted = (cells: Map<string, HeatCell>) =>
    [...cells.values()].sort((a, b) => a.likelihood - b.likelihood || a.impact - b.impact);
  return { inherent: sorted(inherent), residual: sorted(residual) };
}

/** The registers with review cycles, as the summary counts their overdue reviews. */
const REVIEWED = {
  risks: REVIEW_CYCLES.risk,
  vendors: REVIEW_CYCLES.vendor,
  measures: REVIEW_CYCLES.measure,
  requirements: REVIEW_CYCLES.requirement,
  documents: REVIEW_CYCLES.document,
} as const;

const total = (what: string) => z.number().int().describe(`Number of ${what}.`);

export const summaryTool: Tool = defineTool({
  name: 'getComplianceSummary',
  title: 'Compliance summary',
  description:
    'Where an organization stands in one call: risks (status, levels, above appetite, acceptances due, heat maps), measures, overdue obligations and reviews, nonconformities, improvements, audits, framework coverage, incidents and their deadlines, data-subject requests, DPIAs.',
  scope: 'read',
  toolset: 'core',
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').describe('Organization to summarise (`org_...`).'),
    residual_score_threshold: z
      .number()
      .int()
      .min(1)
      .max(MAX_SCORE)
      .optional()
      .describe(
        'Residual score from which a risk counts as high; default the first score above the appetite.',
      ),
  }),
  output: z.object({
    organization_id: z.string().describe('The organization summarised.'),
    generated_at: z.string().describe('When the summary was computed (ISO 8601).'),
    risks: z
      .object({
        total: total('risks'),
        by_status: countsOf(RISK_STATUSES, 'Risks in status'),
        residual_score_threshold: z.number().int().describe('The threshold used.'),
        at_or_above_threshold: z
          .number()
          .int()
          .describe('Risks not CLOSED whose residual_score >= the threshold.'),
        by_residual_level: z
          .record(z.string(), z.number().int())
          .describe('Risks not CLOSED per residual level of the method, every level listed.'),
        above_appetite: z.number().int().describe('Risks not CLOSED above the appetite.'),
        acceptances_due: z
          .number()
          .int()
          .describe(
            'ACCEPTED risks whose acceptance ran out or was never recorded (listRisks filter.acceptance_due).',
          ),
        method: z
          .object({
            likelihood: z.array(z.string()).describe('Likelihood labels, value 1 first.'),
            impact: z.array(z.string()).describe('Impact labels, value 1 first.'),
            levels: z
              .array(
                z.object({
                  name: z.string().describe('Name.'),
                  min_score: z.number().int().describe('Lowest score.'),
                  colour: z.string().describe('Colour.'),
                }),
              )
              .describe('Levels, lowest first.'),
            appetite: z.string().describe('Highest level accepted without a formal acceptance.'),
          })
          .describe("The organization's risk method the counts and heat maps follow."),
        heat_map: z
          .object({
            inherent: heatCells.describe(
              'Risks not CLOSED per inherent_likelihood x inherent_impact cell (before measures).',
            ),
            residual: heatCells.describe(
              'Risks not CLOSED per residual_likelihood x residual_impact cell (after measures).',
            ),
          })
          .describe(
            'The likelihood x impact heat map (the scales of the method) of the risks not CLOSED, inherent and residual; cells without risks are left out. List the risks of a cell with listRisks filter {inherent_likelihood, inherent_impact} (or residual_likelihood, residual_impact) and status.',
          ),
      })
      .describe('Risks.'),
    measures: z
      .object({
        total: total('measures'),
        by_state: countsOf(MEASURE_STATES, 'Measures in state'),
        applicable: z
          .number()
          .int()
          .describe('Measures that count toward implemented_share: all but NOT_APPLICABLE.'),
        implemented_share: z
          .number()
          .nullable()
          .describe(
            'IMPLEMENTED / (all - NOT_APPLICABLE), 0..1, rounded to 3 places; null when there is none.',
          ),
        ready: z.number().int().describe('Measures whose readiness is READY (evidenced, not only declared).'),
        implemented_not_ready: z
          .number()
          .int()
          .describe('Declared IMPLEMENTED but readiness NOT_READY (listMeasures filter.readiness).'),
        tests_overdue: z.number().int().describe('Measures whose next control test is overdue.'),
      })
      .describe('Measures (controls).'),
    obligations: z
      .object({
        total: total('obligations'),
        by_status: countsOf(OBLIGATION_STATUSES, 'Obligations with status'),
        overdue: z.number().int().describe('Due date passed and not COMPLIANT.'),
      })
      .describe('Obligations.'),
    nonconformities: z
      .object({
        total: total('nonconformities'),
        by_status: countsOf(WORKFLOW_STATUSES, 'Nonconformities with status'),
        open: z.number().int().describe('Not CLOSED (OPEN or IN_PROGRESS).'),
        overdue: z.number().int().describe('Due date passed and not CLOSED.'),
        closure_incomplete: z
          .number()
          .int()
          .describe(
            'CLOSED without root cause, corrective action or an effective check (filter.closure_incomplete).',
          ),
      })
      .describe('Nonconformities.'),
    continual_improvements: z
      .object({
        total: total('continual improvements'),
        open: z.number().int().describe('Not CLOSED.'),
      })
      .describe('Continual improvements.'),
    audits: z
      .object({
        total: total('audits'),
        by_state: countsOf(AUDIT_STATES, 'Audits in state'),
        in_progress: z.number().int().describe('Audits IN_PROGRESS.'),
      })
      .describe('Audits.'),
    frameworks: z
      .array(
        z
          .object({
            id: z.string().describe('`fwk_...`'),
            name: z.string().describe('Name.'),
            version: z.string().nullable().describe('Version.'),
            coverage: coverageSchema,
            without_justification: z
              .number()
              .int()
              .describe('Requirements without a justification (publishing the statement needs one each).'),
          })
          .describe('A framework and its coverage (as getFrameworkCoverage).'),
      )
      .describe('Frameworks, by name, with their requirements by applicability and implementation status.'),
    reviews_overdue: z
      .object(
        Object.fromEntries(Object.keys(REVIEWED).map((name) => [name, total(`overdue ${name} reviews`)])),
      )
      .describe(
        'Records whose next_review_on is before today, per register (closed or retired ones left out).',
      ),
    incidents: z
      .object({
        total: total('incidents'),
        open: z.number().int().describe('Not CLOSED.'),
        open_by_severity: countsOf(INCIDENT_SEVERITIES, 'Open incidents of severity'),
        deadlines_due_24h: z
          .number()
          .int()
          .describe('Notification deadlines not met, due within the next 24 hours.'),
        deadlines_missed: z
          .number()
          .int()
          .describe('Notification deadlines passed with no notice recorded (counted until it is).'),
      })
      .describe('Incidents and their regulatory notification deadlines (GDPR, NIS2, DORA).'),
    data_subject_requests: z
      .object({
        total: total('data-subject requests'),
        open: z.number().int().describe('Not COMPLETED or REJECTED.'),
        overdue: z.number().int().describe('Open and due_on before today.'),
      })
      .describe('Data-subject requests.'),
    dpias: z
      .object({ total: total('DPIAs'), in_review: z.number().int().describe('DPIAs IN_REVIEW.') })
      .describe('DPIAs.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const organizationId = input.organization_id;
    const today = todayOf(ctx);
    const method = (await readSettings(ctx.db, organizationId)).risk_method;
    const threshold = input.residual_score_threshold ?? firstScoreAboveAppetite(method) ?? MAX_SCORE + 1;
    const now = ctx.now();
    await refreshClocks(ctx.db, [organizationId], now);
    const nowIso = now.toISOString();
    const dayAhead = new Date(now.getTime() + 86_400_000).toISOString();
    const grouped = (table: SQLiteTable & { organization_id: SQLiteColumn }, column: SQLiteColumn) =>
      ctx.db
        .select({ key: column, n: count() })
        .from(table)
        .where(eq(table.organization_id, organizationId))
        .groupBy(column);
    const counted = (table: SQLiteTable & { organization_id: SQLiteColumn }, where: SQL | undefined) =>
      ctx.db
        .select({ n: count() })
        .from(table)
        .where(and(eq(table.organization_id, organizationId), where));
    const [
      riskRows,
      highRows,
      measureRows,
      measureReadyRows,
      measureNotReadyRows,
      testOverdueRows,
      obligationRows,
      obligationOverdue,
      ncRows,
      ncOverdue,
      ciRows,
      auditRows,
      heatRows,
      frameworkRows,
      coverageRows,
      levelRows,
      aboveRows,
      acceptanceRows,
      closureRows,
      justificationRows,
      incidentRows,
      deadlineRows,
      requestRows,
      requestOverdue,
      dpiaRows,
      ...reviewRows
    ] = await ctx.db.batch([
      grouped(risks, risks.status),
      counted(risks, and(gte(risks.residual_score, threshold), ne(risks.status, 'CLOSED'))),
      grouped(measures, measures.state),
      counted(measures, measureReadinessFilter.where('READY', today)),
      counted(
        measures,
        and(eq(measures.state, 'IMPLEMENTED'), measureReadinessFilter.where('NOT_READY', today)),
      ),
      counted(measures, and(lt(measures.next_test_on, today), ne(measures.state, 'NOT_APPLICABLE'))),
      grouped(obligations, obligations.status),
      counted(obligations, overdueCondition(obligations.due_date, obligations.status, 'COMPLIANT', today)),
      grouped(nonconformities, nonconformities.status),
      counted(
        nonconformities,
        overdueCondition(nonconformities.due_date, nonconformities.status, 'CLOSED', today),
      ),
      grouped(continualImprovements, continualImprovements.status),
      grouped(audits, audits.state),
      // One grouped pass over the heat-map index (it covers every column used): at most 625 groups.
      ctx.db
        .select({
          il: risks.inherent_likelihood,
          ii: risks.inherent_impact,
          rl: risks.residual_likelihood,
          ri: risks.residual_impact,
          n: count(),
        })
        .from(risks)
        .where(and(eq(risks.organization_id, organizationId), ne(risks.status, 'CLOSED')))
        .groupBy(
          risks.inherent_likelihood,
          risks.inherent_impact,
          risks.residual_likelihood,
          risks.residual_impact,
        ),
      ctx.db
        .select({ id: frameworks.id, name: frameworks.name, version: frameworks.version })
        .from(frameworks)
        .where(eq(frameworks.organization_id, organizationId))
        .orderBy(asc(frameworks.name), asc(frameworks.id)),
      // One grouped pass over the requirements' coverage index.
      ctx.db
        .select({
          framework: requirements.framework_id,
          section: requirements.is_section,
          applicability: requirements.applicability,
          status: requirements.implementation_status,
          n: count(),
        })
        .from(requirements)
        .where(eq(requirements.organization_id, organizationId))
        .groupBy(
          requirements.framework_id,
          requirements.is_section,
          requirements.applicability,
          requirements.implementation_status,
        ),
      ctx.db
        .select({ key: risks.residual_level, n: count() })
        .from(risks)
        .where(and(eq(risks.organization_id, organizationId), ne(risks.status, 'CLOSED')))
        .groupBy(risks.residual_level),
      counted(risks, and(eq(risks.above_appetite, true), ne(risks.status, 'CLOSED'))),
      counted(risks, acceptanceDueCondition(today)),
      counted(nonconformities, incompleteClosure),
      ctx.db
        .select({ framework: requirements.framework_id, n: count() })
        .from(requirements)
        .where(and(eq(requirements.organization_id, organizationId), lacksJustification))
        .groupBy(requirements.framework_id),
      ctx.db
        .select({ status: incidents.status, severity: incidents.severity, n: count() })
        .from(incidents)
        .where(eq(incidents.organization_id, organizationId))
        .groupBy(incidents.status, incidents.severity),
      // The open clocks due by tomorrow this time, on their index (organization, open, due_at): O(open clocks).
      ctx.db
        .select({
          soon: sql<number>`coalesce(sum(${incidentDeadlines.due_at} > ${nowIso}), 0)`,
          missed: sql<number>`coalesce(sum(${incidentDeadlines.due_at} <= ${nowIso}), 0)`,
        })
        .from(incidentDeadlines)
        .where(
          and(
            eq(incidentDeadlines.organization_id, organizationId),
            eq(incidentDeadlines.open, true),
            lte(incidentDeadlines.due_at, dayAhead),
          ),
        ),
      grouped(dataSubjectRequests, dataSubjectRequests.status),
      counted(
        dataSubjectRequests,
        and(inArray(dataSubjectRequests.status, [...REQUEST_OPEN]), lt(dataSubjectRequests.due_on, today)),
      ),
      grouped(dpias, dpias.status),
      ...Object.values(REVIEWED).map((cycle) => counted(cycle.table, reviewDueBefore(cycle, today))),
    ]);
    const missingOf = new Map(justificationRows.map((row) => [row.framework, Number(row.n)]));
    const byLevel = Object.fromEntries(method.levels.map((level) => [level.name, 0]));
    for (const row of levelRows) {
      // A level renamed by a method change whose re-derivation has not landed yet counts under its score's level.
      const name = method.levels.find(
        (level) => level.name.toLowerCase() === String(row.key).toLowerCase(),
      )?.name;
      if (name) byLevel[name] = (byLevel[name] ?? 0) + Number(row.n);
    }
    const coverageRowsOf = new Map<string, typeof coverageRows>();
    for (const row of coverageRows)
      coverageRowsOf.set(row.framework, [...(coverageRowsOf.get(row.framework) ?? []), row]);
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    const riskCounts = tally(RISK_STATUSES, riskRows);
    const measureCounts = tally(MEASURE_STATES, measureRows);
    const obligationCounts = tally(OBLIGATION_STATUSES, obligationRows);
    const ncCounts = tally(WORKFLOW_STATUSES, ncRows);
    const ciCounts = tally(WORKFLOW_STATUSES, ciRows);
    const auditCounts = tally(AUDIT_STATES, auditRows);
    const applicable = sum(measureCounts) - (measureCounts.NOT_APPLICABLE ?? 0);
    const openBySeverity: Record<string, number> = Object.fromEntries(
      INCIDENT_SEVERITIES.map((severity) => [severity, 0]),
    );
    for (const row of incidentRows)
      if (row.status !== 'CLOSED' && row.severity in openBySeverity)
        openBySeverity[row.severity] = (openBySeverity[row.severity] ?? 0) + row.n;
    const requestCounts = tally(REQUEST_STATUSES, requestRows);
    const dpiaCounts = tally(DPIA_STATUSES, dpiaRows);
    return {
      organization_id: organizationId,
      generated_at: ctx.now().toISOString(),
      risks: {
        total: sum(riskCounts),
        by_status: riskCounts,
        residual_score_threshold: threshold,
        at_or_above_threshold: highRows[0]?.n ?? 0,
        by_residual_level: byLevel,
        above_appetite: aboveRows[0]?.n ?? 0,
        acceptances_due: acceptanceRows[0]?.n ?? 0,
        method: {
          likelihood: method.likelihood,
          impact: method.impact,
          levels: method.levels,
          appetite: method.appetite,
        },
        heat_map: heatMapOf(heatRows, method),
      },
      measures: {
        total: sum(measureCounts),
        by_state: measureCounts,
        applicable,
        implemented_share:
          applicable > 0 ? Math.round(((measureCounts.IMPLEMENTED ?? 0) / applicable) * 1000) / 1000 : null,
        ready: measureReadyRows[0]?.n ?? 0,
        implemented_not_ready: measureNotReadyRows[0]?.n ?? 0,
        tests_overdue: testOverdueRows[0]?.n ?? 0,
      },
      obligations: {
        total: sum(obligationCounts),
        by_status: obligationCounts,
        overdue: obligationOverdue[0]?.n ?? 0,
      },
      nonconformities: {
        total: sum(ncCounts),
        by_status: ncCounts,
        open: sum(ncCounts) - (ncCounts.CLOSED ?? 0),
        overdue: ncOverdue[0]?.n ?? 0,
        closure_incomplete: closureRows[0]?.n ?? 0,
      },
      continual_improvements: { total: sum(ciCounts), open: sum(ciCounts) - (ciCounts.CLOSED ?? 0) },
      audits: { total: sum(auditCounts), by_state: auditCounts, in_progress: auditCounts.IN_PROGRESS ?? 0 },
      frameworks: frameworkRows.map((framework) => ({
        ...framework,
        coverage: coverageOf(coverageRowsOf.get(framework.id) ?? []) satisfies CoverageCounts,
        without_justification: missingOf.get(framework.id) ?? 0,
      })),
      reviews_overdue: Object.fromEntries(
        Object.keys(REVIEWED).map((name, at) => [name, (reviewRows[at] as { n: number }[])[0]?.n ?? 0]),
      ),
      incidents: {
        total: incidentRows.reduce((all, row) => all + row.n, 0),
        open: sum(openBySeverity),
        open_by_severity: openBySeverity,
        deadlines_due_24h: Number(deadlineRows[0]?.soon ?? 0),
        deadlines_missed: Number(deadlineRows[0]?.missed ?? 0),
      },
      data_subject_requests: {
        total: sum(requestCounts),
        open: REQUEST_OPEN.reduce((all, status) => all + (requestCounts[status] ?? 0), 0),
        overdue: requestOverdue[0]?.n ?? 0,
      },
      dpias: { total: sum(dpiaCounts), in_review: dpiaCounts.IN_REVIEW ?? 0 },
    };
  },
});
