// An audit's checklist: a result per requirement in its scope (recordAuditChecklistResult, listAuditChecklist). A
// NONCONFORMITY (or an observation, an opportunity for improvement) raises its graded nonconformity in the same write.
import { and, asc, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { selectRow } from '../db/client.ts';
import {
  auditChecklistResults,
  auditRequirements,
  audits,
  evidence,
  nonconformities,
  requirements,
} from '../db/schema.ts';
import { AppError, invalidArguments, notFound } from '../errors.ts';
import { requireOrganization } from './access.ts';
import { changeAfterWrite } from './changes.ts';
import { caseInsensitiveEnum, cursorSchema, dateSchema, idOf, longText, shortText } from './fields.ts';
import { afterAscending, decodeCursor, encodeCursor } from './pagination.ts';
import { personRefSchema } from './people-refs.ts';
import type { Registers } from './registers/builder.ts';
import type { Row } from './registers/spec.ts';
import { addRecord } from './registers/write-tools.ts';
import { CHECKLIST_RESULTS, FINDING_GRADES } from './states.ts';
import {
  CHANGED_A_ROW,
  defineTool,
  READ_ANNOTATIONS,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from './types.ts';

export const CHECKLIST_TOOLSET = 'audit_programme';
const RECORD = 'recordAuditChecklistResult';
const LIST = 'listAuditChecklist';

const result = caseInsensitiveEnum(CHECKLIST_RESULTS).describe(
  'CONFORMING, NONCONFORMITY (raise or link its nonconformity), OBSERVATION, OPPORTUNITY_FOR_IMPROVEMENT or NOT_AUDITED.',
);
const grade = caseInsensitiveEnum(FINDING_GRADES).describe(
  'MAJOR or MINOR for a NONCONFORMITY; an OBSERVATION or OPPORTUNITY_FOR_IMPROVEMENT result gives its own grade.',
);

/** The grade a raised finding takes from the result when none is given; a NONCONFORMITY names MAJOR or MINOR. */
const GRADE_OF_RESULT: Record<string, string | undefined> = {
  OBSERVATION: 'OBSERVATION',
  OPPORTUNITY_FOR_IMPROVEMENT: 'OPPORTUNITY_FOR_IMPROVEMENT',
};

const raiseSchema = z
  .strictObject({
    reference_id: shortText(100).describe('Its reference, e.g. "NC-2026-004"; unique in the organization.'),
    grade: grade.optional(),
    description: longText().optional().describe('What was found.'),
    owner_id: personRefSchema('Owner').optional(),
    due_date: dateSchema.optional().describe('Date by which it must be closed.'),
    risk_ids: z.array(idOf('rsk', 'Risk')).max(100).optional().describe('Risks it bears on (`rsk_...`).'),
  })
  .describe(
    'Raise the finding as a nonconformity in the same write: audit_id, clause and requirement_ids come from here.',
  );

const itemSchema = z
  .object({
    requirement_id: z.string().describe('`req_...`'),
    reference: z.string().describe('Its reference, e.g. "A.5.18".'),
    title: z.string().describe('Its title.'),
    result: z.enum(CHECKLIST_RESULTS).describe('The result; NOT_AUDITED until one is recorded.'),
    recorded: z.boolean().describe('Whether a result was recorded (false: none yet).'),
    notes: z.string().nullable().describe('What the auditor noted.'),
    evidence_id: z.string().nullable().describe('Evidence item examined (`evd_...`).'),
    nonconformity_id: z.string().nullable().describe('The finding it raised or names (`ncf_...`).'),
    nonconformity_reference: z.string().nullable().describe("That finding's reference_id."),
    nonconformity_grade: z.string().nullable().describe("That finding's grade."),
    updated_at: z.string().nullable().describe('When the result was last recorded.'),
  })
  .describe('One requirement of the scope and its result.');

const checklistKey = (auditId: string, requirementId: string) =>
  and(
    eq(auditChecklistResults.audit_id, auditId),
    eq(auditChecklistResults.requirement_id, requirementId),
  ) as SQL;

/** An audit of an organization the caller reaches in `mode`, else not_found. */
export async function loadAudit(ctx: ToolContext, id: string, mode: 'read' | 'write') {
  const [audit] = await ctx.db
    .select({
      id: audits.id,
      name: audits.name,
      state: audits.state,
      framework_id: audits.framework_id,
      organization_id: audits.organization_id,
      actual_end_on: audits.actual_end_on,
      actual_start_on: audits.actual_start_on,
    })
    .from(audits)
    .where(eq(audits.id, id));
  if (!audit) throw notFound('Audit');
  requireOrganization(ctx, audit.organization_id, mode, 'Audit');
  return audit;
}

/** The requirement, when it is in the audit's scope; else a refusal naming it (its reference only if the org's). */
async function requirementInScope(ctx: ToolContext, auditId: string, requirementId: string, orgId: string) {
  const [row] = await ctx.db
    .select({ id: requirements.id, reference: requirements.reference, scoped: auditRequirements.audit_id })
    .from(requirements)
    .leftJoin(
      auditRequirements,
      and(eq(auditRequirements.requirement_id, requirements.id), eq(auditRequirements.audit_id, auditId)),
    )
    .where(and(eq(requirements.id, requirementId), eq(requirements.organization_id, orgId)));
  if (row?.scoped) return row;
  const named = row ? `Requirement ${row.reference} (${requirementId})` : `Requirement ${requirementId}`;
  throw invalidArguments(
    `${named} is not in the scope of this audit. Add it to the audit's requirement_ids (updateAudit) first, or record the result in the audit that has it in scope.`,
    [{ path: 'requirement_id', message: `${requirementId} is not in the audit's scope` }],
  );
}

/** A record of the organization named by an optional id argument, else not_found. */
async function requireOwn(
  ctx: ToolContext,
  table: typeof evidence | typeof nonconformities,
  id: string | null | undefined,
  orgId: string,
  what: string,
) {
  if (typeof id !== 'string') return;
  const [row] = await ctx.db
    .select({ id: table.id })
    .from(table)
    .where(and(eq(table.id, id), eq(table.organization_id, orgId)));
  if (!row) throw notFound(what);
}

const HISTORY_FIELDS = ['result', 'notes', 'evidence_id', 'nonconformity_id'] as const;
/** The fields `clear` empties. */
const CLEARABLE = ['notes', 'evidence_id', 'nonconformity_id'] as const;

/** The checklist's part of an audit's history row: the requirement and the result's values. */
export function historyOf(requirementId: string, row: Row | null): Row | null {
  if (!row) return null;
  return {
    checklist: {
      requirement_id: requirementId,
      ...Object.fromEntries(HISTORY_FIELDS.map((field) => [field, row[field] ?? null])),
    },
  };
}

export function auditChecklistTools(registers: Registers): { record: Tool; list: Tool } {
  const ncRecords = registers.nonconformity.records;

  const record = defineTool({
    name: RECORD,
    title: 'Record an audit checklist result',
    description:
      "Record an audit's result for one requirement in its scope (requirement_ids): CONFORMING, NONCONFORMITY, OBSERVATION, OPPORTUNITY_FOR_IMPROVEMENT or NOT_AUDITED, with notes and evidence; raise_nonconformity files the graded finding in the same write.",
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: CHECKLIST_TOOLSET,
    input: z.strictObject({
      audit_id: idOf('aud', 'Audit').describe('The audit (`aud_...`).'),
      requirement_id: idOf('req', 'Requirement').describe('A requirement in its scope (`req_...`).'),
      result,
      notes: longText(5000).optional().describe('What was examined and found (kept when left out).'),
      evidence_id: idOf('evd', 'Evidence').optional().describe('Evidence item examined (`evd_...`).'),
      nonconformity_id: idOf('ncf', 'Nonconformity')
        .optional()
        .describe('A nonconformity already recorded for this finding (`ncf_...`), instead of raising one.'),
      clear: z
        .array(z.enum(CLEARABLE))
        .max(CLEARABLE.length)
        .optional()
        .describe('Fields to empty: notes, evidence_id, nonconformity_id.'),
      raise_nonconformity: raiseSchema.optional(),
    }),
    output: z.object({
      audit_id: z.string().describe('The audit.'),
      item: itemSchema,
      raised_nonconformity: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe('The nonconformity this call raised, as getNonconformity shows it; null if none.'),
    }),
    example: {
      audit_id: 'aud_...',
      requirement_id: 'req_...',
      result: 'NONCONFORMITY',
      notes: 'Two of 25 sampled laptops without disk encryption.',
      raise_nonconformity: { reference_id: 'NC-2026-004', grade: 'MINOR', due_date: '2026-12-15' },
    },
    async run(ctx, input) {
      const audit = await loadAudit(ctx, input.audit_id, 'write');
      const orgId = audit.organization_id;
      const requirement = await requirementInScope(ctx, audit.id, input.requirement_id, orgId);
      const raise = input.raise_nonconformity;
      if (raise && input.nonconformity_id)
        throw invalidArguments('Give raise_nonconformity or nonconformity_id, not both.', [
          { path: 'raise_nonconformity', message: 'Not with nonconformity_id' },
        ]);
      const raisedGrade = raise ? (raise.grade ?? GRADE_OF_RESULT[input.result]) : undefined;
      if (raise && (input.result === 'CONFORMING' || input.result === 'NOT_AUDITED'))
        throw invalidArguments(`A ${input.result} result raises no finding: leave out raise_nonconformity.`, [
          { path: 'raise_nonconformity', message: `Not with ${input.result}` },
        ]);
      if (raise && input.result === 'NONCONFORMITY' && raisedGrade !== 'MAJOR' && raisedGrade !== 'MINOR')
        throw invalidArguments('A NONCONFORMITY is graded MAJOR or MINOR: give raise_nonconformity.grade.', [
          { path: 'raise_nonconformity.grade', message: 'MAJOR or MINOR' },
        ]);
      await requireOwn(ctx, evidence, input.evidence_id, orgId, 'Evidence');
      await requireOwn(ctx, nonconformities, input.nonconformity_id, orgId, 'Nonconformity');
      const key = checklistKey(audit.id, requirement.id);
      const [current] = await ctx.db.select().from(auditChecklistResults).where(key);
      if (raise && current?.nonconformity_id)
        throw new AppError(
          'conflict',
          `This requirement's result already names nonconformity ${current.nonconformity_id}: update that one (updateNonconformity) rather than raise another.`,
          [{ path: 'raise_nonconformity', message: `Already raised: ${current.nonconformity_id}` }],
        );
      const cleared = new Set<string>(input.clear ?? []);
      const kept = <T>(given: T | undefined, field: (typeof CLEARABLE)[number], now: T | null | undefined) =>
        given !== undefined ? given : cleared.has(field) ? null : (now ?? null);
      const nonconformityId = kept(input.nonconformity_id, 'nonconformity_id', current?.nonconformity_id);
      if (input.result === 'NONCONFORMITY' && !raise && !nonconformityId)
        throw invalidArguments(
          'A NONCONFORMITY result is tracked as a nonconformity: give raise_nonconformity {reference_id, grade MAJOR or MINOR} or the nonconformity_id of one already recorded.',
          [{ path: 'raise_nonconformity', message: 'Required with NONCONFORMITY' }],
        );
      const now = ctx.now().toISOString();
      const next = {
        result: input.result,
        notes: kept(input.notes, 'notes', current?.notes),
        evidence_id: kept(input.evidence_id, 'evidence_id', current?.evidence_id),
        nonconformity_id: nonconformityId,
      };
      // The write lands only on the row as read (absent, or with the updated_at read): its history is then true.
      const unchanged = current
        ? sql`exists (select 1 from ${auditChecklistResults} where ${key} and ${auditChecklistResults.updated_at} = ${current.updated_at})`
        : sql`not exists (select 1 from ${auditChecklistResults} where ${key})`;
      const write = (values: typeof next, landed: SQL): BatchItem<'sqlite'>[] => [
        current
          ? ctx.db
              .update(auditChecklistResults)
              .set({ ...values, updated_at: now })
              .where(and(key, eq(auditChecklistResults.updated_at, current.updated_at), landed))
              .returning({ id: auditChecklistResults.audit_id })
          : ctx.db
              .insert(auditChecklistResults)
              .select(
                selectRow(
                  auditChecklistResults,
                  {
                    ...values,
                    audit_id: audit.id,
                    requirement_id: requirement.id,
                    organization_id: orgId,
                    created_at: now,
                    updated_at: now,
                  },
                  sql`${unchanged} and ${landed}`,
                ),
              )
              .returning({ id: auditChecklistResults.audit_id }),
        changeAfterWrite(ctx, {
          tool: RECORD,
          kind: 'audit',
          recordId: audit.id,
          organizationId: orgId,
          action: 'update',
          before: historyOf(requirement.id, current ?? null),
          after: historyOf(requirement.id, values),
          at: now,
        }),
      ];
      const stale = new AppError(
        'conflict',
        'This checklist result changed meanwhile: read it again (listAuditChecklist) and retry.',
      );
      let raised: Row | null = null;
      if (raise) {
        const added = await addRecord(
          ctx,
          ncRecords,
          RECORD,
          {
            organization_id: orgId,
            reference_id: raise.reference_id,
            description: raise.description ?? input.notes ?? null,
            audit_id: audit.id,
            grade: raisedGrade,
            clause: requirement.reference,
            date_identified: audit.actual_end_on ?? audit.actual_start_on ?? now.slice(0, 10),
            owner_id: raise.owner_id ?? null,
            due_date: raise.due_date ?? null,
            requirement_ids: [requirement.id],
            risk_ids: raise.risk_ids ?? [],
          },
          {},
          {
            guard: unchanged,
            statements: (id, landed) => write({ ...next, nonconformity_id: id }, landed),
            refusal: async () => {
              const [row] = await ctx.db
                .select({ updated_at: auditChecklistResults.updated_at })
                .from(auditChecklistResults)
                .where(key);
              return row?.updated_at !== current?.updated_at ? stale : null;
            },
          },
        );
        raised = added[ncRecords.spec.key] as Row;
      } else {
        const [written] = await ctx.db.batch([
          ...(write(next, sql`1`) as [BatchItem<'sqlite'>, BatchItem<'sqlite'>]),
          ...ctx.writeExtras(CHANGED_A_ROW),
        ]);
        if ((written as unknown[]).length === 0) throw stale;
      }
      const [item] = await readItems(ctx, audit.id, { requirementId: requirement.id, size: 1 });
      if (!item) throw stale;
      return { audit_id: audit.id, item, raised_nonconformity: raised };
    },
  });

  const list = defineTool({
    name: LIST,
    title: 'Audit checklist',
    description:
      "An audit's checklist: every requirement in its scope in document order with its result (NOT_AUDITED until recorded), notes, evidence and the nonconformity raised, and the count per result.",
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: CHECKLIST_TOOLSET,
    input: z.strictObject({
      audit_id: idOf('aud', 'Audit').describe('The audit (`aud_...`).'),
      filter: z
        .strictObject({
          result: z
            .union([result, z.array(result).min(1).max(5)])
            .optional()
            .describe('Only these results, e.g. ["NONCONFORMITY", "OBSERVATION"].'),
        })
        .optional()
        .describe('Filters.'),
      size: z.number().int().min(1).max(200).default(100).describe('Items per page (1..200, default 100).'),
      cursor: cursorSchema.optional().describe('next_cursor of the previous page.'),
    }),
    output: z.object({
      audit: z
        .object({
          id: z.string(),
          name: z.string().nullable(),
          state: z.string(),
          framework_id: z.string(),
        })
        .describe('The audit.'),
      counts: z
        .record(z.string(), z.number().int())
        .describe(
          `Requirements in scope per result (${CHECKLIST_RESULTS.join(', ')}), over the whole scope.`,
        ),
      items: z.array(itemSchema).describe('Requirements of the scope in document order.'),
      next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last.'),
    }),
    async run(ctx, input) {
      const audit = await loadAudit(ctx, input.audit_id, 'read');
      const results = input.filter?.result;
      const wanted = results === undefined ? undefined : Array.isArray(results) ? results : [results];
      const after = input.cursor ? decodeCursor(input.cursor, LIST, 'reference_key', 'ASC') : null;
      const [rows, perResult] = await Promise.all([
        readItems(ctx, audit.id, { results: wanted, size: input.size + 1, after }),
        ctx.db
          .select({ result: resultOrNone, n: count() })
          .from(auditRequirements)
          .leftJoin(
            auditChecklistResults,
            and(
              eq(auditChecklistResults.audit_id, auditRequirements.audit_id),
              eq(auditChecklistResults.requirement_id, auditRequirements.requirement_id),
            ),
          )
          .where(eq(auditRequirements.audit_id, audit.id))
          .groupBy(resultOrNone),
      ]);
      const counts: Record<string, number> = Object.fromEntries(CHECKLIST_RESULTS.map((name) => [name, 0]));
      for (const row of perResult) counts[row.result] = row.n;
      const shown = rows.slice(0, input.size);
      const last = shown.at(-1);
      return {
        audit: { id: audit.id, name: audit.name, state: audit.state, framework_id: audit.framework_id },
        counts,
        items: shown.map(({ reference_key: _key, ...item }) => item),
        next_cursor:
          rows.length > input.size && last
            ? encodeCursor({
                l: LIST,
                f: 'reference_key',
                d: 'ASC',
                v: last.reference_key,
                i: last.requirement_id,
              })
            : null,
      };
    },
  });

  return { record, list };
}

const resultOrNone = sql<
  (typeof CHECKLIST_RESULTS)[number]
>`coalesce(${auditChecklistResults.result}, 'NOT_AUDITED')`;

/** The requirements of an audit's scope with their results, in document order. */
async function readItems(
  ctx: ToolContext,
  auditId: string,
  options: {
    requirementId?: string;
    results?: string[];
    size: number;
    after?: ReturnType<typeof decodeCursor> | null;
  },
) {
  const rows = await ctx.db
    .select({
      requirement_id: requirements.id,
      reference: requirements.reference,
      reference_key: requirements.reference_key,
      title: requirements.title,
      result: resultOrNone,
      recorded: sql<number>`${auditChecklistResults.result} is not null`,
      notes: auditChecklistResults.notes,
      evidence_id: auditChecklistResults.evidence_id,
      nonconformity_id: auditChecklistResults.nonconformity_id,
      nonconformity_reference: nonconformities.reference_id,
      nonconformity_grade: nonconformities.grade,
      updated_at: auditChecklistResults.updated_at,
    })
    .from(auditRequirements)
    .innerJoin(requirements, eq(requirements.id, auditRequirements.requirement_id))
    .leftJoin(
      auditChecklistResults,
      and(
        eq(auditChecklistResults.audit_id, auditRequirements.audit_id),
        eq(auditChecklistResults.requirement_id, auditRequirements.requirement_id),
      ),
    )
    .leftJoin(nonconformities, eq(nonconformities.id, auditChecklistResults.nonconformity_id))
    .where(
      and(
        eq(auditRequirements.audit_id, auditId),
        options.requirementId ? eq(auditRequirements.requirement_id, options.requirementId) : undefined,
        options.results ? inArray(resultOrNone, options.results) : undefined,
        afterAscending(requirements.reference_key, requirements.id, options.after ?? null),
      ),
    )
    .orderBy(asc(requirements.reference_key), asc(requirements.id))
    .limit(options.size);
  return rows.map((row) => ({ ...row, recorded: Boolean(row.recorded) }));
}
