// getAuditProgramme: the audit programme of one framework (ISO 27001 9.2.2): audits per year and type, and which
// applicable requirements an audit that took place checked (a checklist result other than NOT_AUDITED) within the last
// years, and which none did.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { auditChecklistResults, auditRequirements, audits, requirements } from '../db/schema.ts';
import { CHECKLIST_TOOLSET } from './audit-checklist.ts';
import { loadFramework } from './coverage.ts';
import { idOf } from './fields.ts';
import { todayOf } from './overdue.ts';
import { AUDIT_TYPES } from './states.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from './types.ts';

/** The most requirements listed per side; the counts are always whole. */
export const PROGRAMME_LIST_CAP = 500;

const requirementSchema = z
  .object({
    id: z.string().describe('`req_...`'),
    reference: z.string().describe('Its reference, e.g. "A.5.18".'),
    title: z.string().describe('Its title.'),
  })
  .describe('An applicable requirement.');

/** The day `years` years before `today` (29 February falls back to the 28th). */
export function yearsBefore(today: string, years: number): string {
  const [year = 0, month = 1, day = 1] = today.split('-').map(Number);
  const date = new Date(Date.UTC(year - years, month - 1, day));
  if (date.getUTCMonth() !== month - 1) date.setUTCDate(0);
  return date.toISOString().slice(0, 10);
}

export const auditProgrammeTool: Tool = defineTool({
  name: 'getAuditProgramme',
  title: 'Audit programme',
  description:
    "A framework's audit programme (ISO 27001 9.2.2): audits per year and type; which applicable requirements an audit that took place checked (a checklist result other than NOT_AUDITED) in the last years, with the last day, and which none did.",
  scope: 'read',
  toolset: CHECKLIST_TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    framework_id: idOf('fwk', 'Framework').describe('The framework (`fwk_...`).'),
    years: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe('How many years back an audit counts (default 3: a certification cycle).'),
  }),
  output: z.object({
    framework: z.object({ id: z.string(), name: z.string() }).describe('The framework.'),
    since: z.string().describe('First day counted: today less `years` years.'),
    years: z
      .array(
        z
          .object({
            year: z.number().int().describe('Calendar year of its actual start (else planned start).'),
            audits: z.number().int().describe('Audits of the framework that year.'),
            by_type: z
              .record(z.string(), z.number().int())
              .describe(`Count per audit_type (${AUDIT_TYPES.join(', ')}, or NONE).`),
          })
          .describe('One year of the programme.'),
      )
      .describe('Audits of the framework per year, oldest first; audits without dates are left out.'),
    applicable: z.number().int().describe('Applicable requirements of the framework (sections left out).'),
    audited_count: z
      .number()
      .int()
      .describe('Of them, checked by an audit that took place since `since` (a result but NOT_AUDITED).'),
    not_audited_count: z.number().int().describe('Of them, checked by none.'),
    audited: z
      .array(
        requirementSchema
          .extend({ last_audited_on: z.string().describe('Last day audited.') })
          .describe('An applicable requirement audited.'),
      )
      .describe(`Audited ones in document order (at most ${PROGRAMME_LIST_CAP}).`),
    not_audited: z
      .array(requirementSchema)
      .describe(`Not audited ones in document order (at most ${PROGRAMME_LIST_CAP}): plan them.`),
  }),
  async run(ctx, input) {
    const framework = await loadFramework(ctx, input.framework_id);
    const organizationId = framework.organization_id;
    const since = yearsBefore(todayOf(ctx), input.years);
    const started = sql<string | null>`coalesce(${audits.actual_start_on}, ${audits.planned_start_on})`;
    const perYear = await ctx.db
      .select({
        year: sql<string>`substr(${started}, 1, 4)`,
        type: audits.audit_type,
        n: sql<number>`count(*)`,
      })
      .from(audits)
      .where(
        and(
          eq(audits.organization_id, organizationId),
          eq(audits.framework_id, framework.id),
          sql`${started} is not null`,
        ),
      )
      .groupBy(sql`1`, audits.audit_type);
    const byYear = new Map<number, { year: number; audits: number; by_type: Record<string, number> }>();
    for (const row of perYear) {
      const year = Number(row.year);
      const entry = byYear.get(year) ?? { year, audits: 0, by_type: {} };
      entry.audits += Number(row.n);
      const type = row.type ?? 'NONE';
      entry.by_type[type] = (entry.by_type[type] ?? 0) + Number(row.n);
      byYear.set(year, entry);
    }
    // The last day each requirement was checked: a checklist result other than NOT_AUDITED, for a requirement still in
    // the audit's scope, of an audit that took place (actual start) since `since`, not REJECTED. Written out: a
    // one-table query names its columns bare.
    const lastAudited = sql<
      string | null
    >`(select max(coalesce(a.actual_end_on, a.actual_start_on)) from ${auditChecklistResults} r cross join ${auditRequirements} ar on ar.audit_id = r.audit_id and ar.requirement_id = r.requirement_id cross join ${audits} a on a.id = r.audit_id where r.requirement_id = ${sql.raw('"requirements"."id"')} and r.result <> 'NOT_AUDITED' and a.organization_id = ${organizationId} and a.state <> 'REJECTED' and a.actual_start_on is not null and coalesce(a.actual_end_on, a.actual_start_on) >= ${since})`;
    const rows = await ctx.db
      .select({
        id: requirements.id,
        reference: requirements.reference,
        title: requirements.title,
        last: lastAudited,
      })
      .from(requirements)
      .where(
        and(
          eq(requirements.organization_id, organizationId),
          eq(requirements.framework_id, framework.id),
          eq(requirements.is_section, false),
          ne(requirements.applicability, 'EXCLUDED'),
        ),
      )
      .orderBy(asc(requirements.reference_key), asc(requirements.id));
    const audited = rows.filter((row) => row.last !== null);
    const notAudited = rows.filter((row) => row.last === null);
    return {
      framework: { id: framework.id, name: framework.name },
      since,
      years: [...byYear.values()].sort((a, b) => a.year - b.year),
      applicable: rows.length,
      audited_count: audited.length,
      not_audited_count: notAudited.length,
      audited: audited.slice(0, PROGRAMME_LIST_CAP).map((row) => ({
        id: row.id,
        reference: row.reference,
        title: row.title,
        last_audited_on: String(row.last),
      })),
      not_audited: notAudited
        .slice(0, PROGRAMME_LIST_CAP)
        .map((row) => ({ id: row.id, reference: row.reference, title: row.title })),
    };
  },
});
