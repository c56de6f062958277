// An audit's checklist results as a file: a row per requirement in its scope (reference, title, result, notes,
// evidence id, the nonconformity's reference, its grade), written by the export and read back by importRecords (kind
// audit_checklist_result, with audit_id) and the CLI. Each row is checked as recordAuditChecklistResult checks it
// (in the audit's scope, a NONCONFORMITY names its nonconformity, evidence and nonconformity of the organization);
// a file raises no nonconformity: import the nonconformities first, then name them here by reference.
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import {
  auditChecklistResults,
  auditRequirements,
  evidence,
  nonconformities,
  requirements,
} from '../db/schema.ts';
import { invalidArguments, notFound } from '../errors.ts';
import { isIdOf } from '../ids.ts';
import { historyOf, loadAudit } from './audit-checklist.ts';
import { longText } from './fields.ts';
import {
  cellOf,
  enumOf,
  errorAt,
  type FileColumn,
  type FileImportOptions,
  type FileImportReport,
  readFileTable,
  refuseRows,
} from './imports/file-kinds.ts';
import type { RowError, TableRows } from './imports/run.ts';
import { changedExactly, GUARD_FAILED, type HistoryEntry, historyRows } from './imports/statements.ts';
import type { CHECKLIST_RESULTS } from './states.ts';
import type { ToolContext } from './types.ts';

type ChecklistResult = (typeof CHECKLIST_RESULTS)[number];

export const CHECKLIST_FILE_COLUMNS: readonly FileColumn[] = [
  {
    field: 'requirement',
    header: 'Requirement',
    aliases: ['reference', 'requirement id', 'requirement reference'],
  },
  { field: 'title', header: 'Title', aliases: ['requirement title'], readOnly: true },
  { field: 'result', header: 'Result' },
  { field: 'notes', header: 'Notes' },
  { field: 'evidence_id', header: 'Evidence', aliases: ['evidence id'] },
  {
    field: 'nonconformity',
    header: 'Nonconformity',
    aliases: ['nonconformity id', 'nonconformity reference'],
  },
  { field: 'grade', header: 'Grade', aliases: ['nonconformity grade'], readOnly: true },
];

export const CHECKLIST_RESULT_LABELS: Record<ChecklistResult, string> = {
  CONFORMING: 'Conforming',
  NONCONFORMITY: 'Nonconformity',
  OBSERVATION: 'Observation',
  OPPORTUNITY_FOR_IMPROVEMENT: 'Opportunity for improvement',
  NOT_AUDITED: 'Not audited',
};

const GRADE_LABELS: Record<string, string> = {
  MAJOR: 'Major',
  MINOR: 'Minor',
  OBSERVATION: 'Observation',
  OPPORTUNITY_FOR_IMPROVEMENT: 'Opportunity for improvement',
};

/** An item of listAuditChecklist, as the export reads it. */
export interface ChecklistItemForFile {
  requirement_id: string;
  reference: string;
  title: string;
  result: string;
  notes: string | null;
  evidence_id: string | null;
  nonconformity_id: string | null;
  nonconformity_reference: string | null;
  nonconformity_grade: string | null;
}

export function checklistFileHeader(): string[] {
  return CHECKLIST_FILE_COLUMNS.map((column) => column.header);
}

/** A row of the export: the requirement by reference, the result in words, the nonconformity by its reference. */
export function checklistFileRow(item: ChecklistItemForFile): string[] {
  return [
    item.reference,
    item.title,
    CHECKLIST_RESULT_LABELS[item.result as ChecklistResult] ?? item.result,
    item.notes ?? '',
    item.evidence_id ?? '',
    item.nonconformity_reference ?? item.nonconformity_id ?? '',
    item.nonconformity_grade ? (GRADE_LABELS[item.nonconformity_grade] ?? item.nonconformity_grade) : '',
  ];
}

const notesSchema = longText(5000);

interface PlannedResult {
  requirementId: string;
  values: {
    result: ChecklistResult;
    notes: string | null;
    evidence_id: string | null;
    nonconformity_id: string | null;
  };
}

/**
 * Imports an audit's checklist results from `rows`; the writes go to `write` only when every row passes and it is
 * not a dry run. Counts: a result recorded anew is created, a changed one updated.
 */
export async function importChecklistFile(
  ctx: ToolContext,
  rows: TableRows,
  options: FileImportOptions,
  write: (statements: SQL[]) => Promise<void>,
): Promise<FileImportReport> {
  if (!options.auditId)
    throw invalidArguments('An audit checklist file fills one audit: give audit_id (the CLI: --audit).', [
      { path: 'audit_id', message: 'Required with kind audit_checklist_result' },
    ]);
  const audit = await loadAudit(ctx, options.auditId, 'write');
  if (audit.organization_id !== options.organizationId) throw notFound('Audit');
  const table = await readFileTable(
    'audit_checklist_result',
    rows,
    CHECKLIST_FILE_COLUMNS,
    options,
    "an audit's checklist",
  );
  if (!table.columnOf.has('requirement') || !table.columnOf.has('result'))
    throw invalidArguments(
      'An audit checklist file needs a Requirement column (reference or req_ id) and a Result column.',
      [{ path: 'header', message: 'Requirement and Result columns are required' }],
    );
  const { report } = table;
  const orgId = audit.organization_id;
  const scope = await ctx.db
    .select({ id: requirements.id, reference: requirements.reference })
    .from(auditRequirements)
    .innerJoin(requirements, eq(requirements.id, auditRequirements.requirement_id))
    .where(eq(auditRequirements.audit_id, audit.id));
  const byReference = new Map<string, string[]>();
  for (const requirement of scope)
    byReference.set(requirement.reference, [
      ...(byReference.get(requirement.reference) ?? []),
      requirement.id,
    ]);
  const inScope = new Set(scope.map((requirement) => requirement.id));
  const ncCells = [...new Set(table.rows.flatMap((row) => cellOf(table, row, 'nonconformity') || []))];
  const evidenceCells = [...new Set(table.rows.flatMap((row) => cellOf(table, row, 'evidence_id') || []))];
  const [findings, evidenceRows, current] = await Promise.all([
    ncCells.length === 0
      ? []
      : ctx.db
          .select({ id: nonconformities.id, reference_id: nonconformities.reference_id })
          .from(nonconformities)
          .where(
            and(
              eq(nonconformities.organization_id, orgId),
              or(inArray(nonconformities.id, ncCells), inArray(nonconformities.reference_id, ncCells)),
            ),
          ),
    evidenceCells.length === 0
      ? []
      : ctx.db
          .select({ id: evidence.id })
          .from(evidence)
          .where(and(eq(evidence.organization_id, orgId), inArray(evidence.id, evidenceCells))),
    ctx.db.select().from(auditChecklistResults).where(eq(auditChecklistResults.audit_id, audit.id)),
  ]);
  const findingOf = new Map<string, string>();
  for (const finding of findings) {
    findingOf.set(finding.id, finding.id);
    findingOf.set(finding.reference_id, finding.id);
  }
  const evidenceIds = new Set(evidenceRows.map((row) => row.id));
  const currentOf = new Map(current.map((row) => [row.requirement_id, row]));
  const errors: RowError[] = [];
  const planned: PlannedResult[] = [];
  const seen = new Map<string, number>();
  for (const row of table.rows) {
    const at = (field: string | null, message: string) =>
      errors.push(errorAt(table, row.number, field, message));
    const before = errors.length;
    const named = cellOf(table, row, 'requirement') ?? '';
    let requirementId: string | undefined;
    if (!named) at('requirement', 'Give the requirement (its reference, e.g. A.5.15, or its req_ id).');
    else if (isIdOf('req', named)) {
      if (inScope.has(named)) requirementId = named;
      else at('requirement', `Requirement ${named} is not in the scope of this audit.`);
    } else {
      const ids = byReference.get(named) ?? [];
      if (ids.length === 1) requirementId = ids[0];
      else if (ids.length > 1)
        at(
          'requirement',
          `"${named}" is the reference of ${ids.length} requirements in scope: give its req_ id.`,
        );
      else
        at(
          'requirement',
          `No requirement "${named}" in the scope of this audit (add it with updateAudit first).`,
        );
    }
    if (requirementId) {
      const earlier = seen.get(requirementId);
      if (earlier !== undefined) at('requirement', `The same requirement as row ${earlier}.`);
      else seen.set(requirementId, row.number);
    }
    const resultCell = cellOf(table, row, 'result') ?? '';
    const result = enumOf(resultCell, CHECKLIST_RESULT_LABELS);
    if (!result)
      at(
        'result',
        `${resultCell ? `"${resultCell}" is not a result` : 'Give a result'}: ${Object.values(CHECKLIST_RESULT_LABELS).join(', ')}.`,
      );
    const notes = notesSchema.safeParse(cellOf(table, row, 'notes') ?? '');
    if (!notes.success) at('notes', `${notes.error.issues[0]?.message}`);
    const evidenceCell = cellOf(table, row, 'evidence_id') || null;
    if (evidenceCell && !evidenceIds.has(evidenceCell))
      at('evidence_id', `No evidence ${evidenceCell} in this organization (give an evd_ id).`);
    const ncCell = cellOf(table, row, 'nonconformity') || null;
    const nonconformityId = ncCell ? findingOf.get(ncCell) : undefined;
    if (ncCell && !nonconformityId)
      at(
        'nonconformity',
        `No nonconformity "${ncCell}" in this organization (give its reference or ncf_ id).`,
      );
    if (result === 'NONCONFORMITY' && !ncCell)
      at(
        'nonconformity',
        'A NONCONFORMITY result names its nonconformity: import the nonconformities first (importRecords, kind nonconformities), then give its reference here.',
      );
    if (errors.length > before || !requirementId || !result || !notes.success) continue;
    planned.push({
      requirementId,
      values: {
        result,
        notes: notes.data || null,
        evidence_id: evidenceCell,
        nonconformity_id: nonconformityId ?? null,
      },
    });
  }
  refuseRows(report, errors);
  const now = ctx.now().toISOString();
  const statements: SQL[] = [];
  const history: HistoryEntry[] = [];
  for (const { requirementId, values } of planned) {
    const existing = currentOf.get(requirementId);
    const blank =
      values.result === 'NOT_AUDITED' && !values.notes && !values.evidence_id && !values.nonconformity_id;
    const same =
      existing &&
      existing.result === values.result &&
      existing.notes === values.notes &&
      existing.evidence_id === values.evidence_id &&
      existing.nonconformity_id === values.nonconformity_id;
    // Not audited and nothing noted is what a requirement without a result reads: nothing to record.
    if (same || (!existing && blank)) {
      report.counts.unchanged++;
      continue;
    }
    const key = and(
      eq(auditChecklistResults.audit_id, audit.id),
      eq(auditChecklistResults.requirement_id, requirementId),
    );
    if (existing)
      statements.push(
        ctx.db
          .update(auditChecklistResults)
          .set({ ...values, updated_at: now })
          .where(and(key, eq(auditChecklistResults.updated_at, existing.updated_at)))
          .getSQL(),
      );
    else
      statements.push(
        ctx.db
          .insert(auditChecklistResults)
          .values({
            ...values,
            audit_id: audit.id,
            requirement_id: requirementId,
            organization_id: orgId,
            created_at: now,
            updated_at: now,
          })
          .onConflictDoNothing()
          .getSQL(),
      );
    statements.push(changedExactly(1));
    history.push({
      kind: 'audit',
      recordId: audit.id,
      action: 'update',
      before: historyOf(requirementId, existing ?? null),
      after: historyOf(requirementId, values),
    });
    if (existing) report.counts.updated++;
    else report.counts.created++;
  }
  if (report.counts.refused > 0 || options.dryRun || statements.length === 0) return report;
  // The nonconformities and evidence named must still be there when the batch runs.
  const named = [
    ...new Set(
      planned.flatMap(({ values }) => [values.nonconformity_id, values.evidence_id].filter(Boolean)),
    ),
  ] as string[];
  if (named.length > 0)
    statements.unshift(
      sql`select json(iif((select count(*) from ${nonconformities} where ${nonconformities.organization_id} = ${orgId} and ${nonconformities.id} in (select value from json_each(${JSON.stringify(named)}))) + (select count(*) from ${evidence} where ${evidence.organization_id} = ${orgId} and ${evidence.id} in (select value from json_each(${JSON.stringify(named)}))) = ${named.length}, '1', ${GUARD_FAILED}))`,
    );
  statements.push(...historyRows(ctx, orgId, options.tool, now, history));
  await write(statements);
  return report;
}
