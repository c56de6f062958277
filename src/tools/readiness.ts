// Readiness: whether a measure (and a requirement, through its measures) is evidenced, beside its declared state, with
// the reasons when not. Facts are read by SQL with the rows (subqueries on indexed links, no per-row round trip);
// what depends on today (an expiry, a test due) is decided from them with the caller's date. Rules: docs/frameworks.md.
import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { measures, requirements } from '../db/schema.ts';
import { caseInsensitiveEnum } from './fields.ts';
import { derived, type FieldSpec, type FilterSpec, filter, type Row } from './registers/spec.ts';

export const READINESS = ['READY', 'NOT_READY', 'NOT_APPLICABLE'] as const;
export type Readiness = (typeof READINESS)[number];

export const READINESS_REASON_CODES = [
  'not_implemented',
  'no_evidence',
  'evidence_expired',
  'policy_not_approved',
  'never_tested',
  'last_test_not_effective',
  'test_overdue',
  'no_measures',
  'measure_not_ready',
] as const;

export interface ReadinessReason {
  code: (typeof READINESS_REASON_CODES)[number];
  message: string;
}

/** A day later than any real one: "never runs out" in min/max over dates. */
const NEVER = '9999-12-31';

/** The evidence items linked to a measure that no other item supersedes, as a FROM clause over `e`. */
const currentEvidence = (measureId: SQL) =>
  sql`evidence_records er cross join evidence e on e.id = er.evidence_id where er.record_id = ${measureId} and not exists (select 1 from evidence s where s.supersedes_id = e.id)`;

/**
 * That day and the title of its item, as a JSON array (`[null, null]` without evidence): an aggregate's bare column
 * comes from the row of its max, so no sort is needed.
 */
const evidenceFacts = (measureId: SQL) =>
  sql`(select json_array(max(coalesce(e.valid_until, ${NEVER})), e.title) from ${currentEvidence(measureId)})`;

/** The documents covering the measure (linked by their measure_ids), not retired, with no approved version in force. */
const unapprovedDocuments = (measureId: SQL) =>
  sql`document_measures dm cross join documents d on d.id = dm.document_id where dm.measure_id = ${measureId} and d.status <> 'RETIRED' and d.published_version is null`;

/**
 * The rules as SQL live in migration 0043: triggers keep on each measure `readiness_blocked` (not ready whatever the
 * day: state, missing evidence, a document not in force, never tested, last test not effective) and `ready_until`
 * (the last day it stays ready: its evidence's expiry or its next test), and on each requirement the same over its
 * mapped measures. Filters, counts and coverage read those columns and apply the day; `measureReadiness` below gives
 * the reasons of a shown row from its columns and facts, by the same rules (test/core/readiness.test.ts holds both).
 */
const MEASURE = '"measures"';

/** The facts a measure's readiness is decided from, read with its row (left out of the answer). */
export const measureReadinessFacts = {
  readiness_evidence: evidenceFacts(sql.raw(`${MEASURE}.id`)),
  readiness_document: sql`(select min(d.title) from ${unapprovedDocuments(sql.raw(`${MEASURE}.id`))})`,
} satisfies Record<string, SQL>;

/** A JSON array read from SQL, or an empty one. */
function jsonArray(value: unknown): unknown[] {
  if (typeof value !== 'string') return [];
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed : [];
}

/** A measure's readiness on `today`, from its row and facts: READY, or NOT_READY with every reason, or NOT_APPLICABLE. */
export function measureReadiness(
  row: Row,
  today: string,
): { readiness: Readiness; reasons: ReadinessReason[] } {
  if (row.state === 'NOT_APPLICABLE') return { readiness: 'NOT_APPLICABLE', reasons: [] };
  const reasons: ReadinessReason[] = [];
  if (row.state !== 'IMPLEMENTED')
    reasons.push({
      code: 'not_implemented',
      message: `the measure is ${String(row.state)}, not IMPLEMENTED`,
    });
  if (row.evidence_required === true || row.evidence_required === 1) {
    const [until, title] = jsonArray(row.readiness_evidence);
    if (typeof until !== 'string')
      reasons.push({ code: 'no_evidence', message: 'no evidence is attached (evidence_required)' });
    else if (until < today)
      reasons.push({
        code: 'evidence_expired',
        message: `evidence "${String(title)}" expired on ${until}`,
      });
  }
  if (typeof row.readiness_document === 'string')
    reasons.push({
      code: 'policy_not_approved',
      message: `document "${row.readiness_document}" has no approved version in force`,
    });
  const interval = row.test_interval_days;
  const result = row.last_test_result;
  if (typeof interval === 'number' && typeof row.last_tested_on !== 'string')
    reasons.push({ code: 'never_tested', message: `never tested (expected every ${interval} days)` });
  if (typeof result === 'string' && result !== 'EFFECTIVE')
    reasons.push({
      code: 'last_test_not_effective',
      message: `the last test, on ${String(row.last_tested_on)}, found ${result}`,
    });
  if (typeof interval === 'number' && typeof row.last_tested_on === 'string') {
    const next = String(row.next_test_on);
    if (next < today) reasons.push({ code: 'test_overdue', message: `the next test was due on ${next}` });
  }
  return { readiness: reasons.length === 0 ? 'READY' : 'NOT_READY', reasons };
}

const readinessSchema = caseInsensitiveEnum(READINESS);

const reasonSchema = z.object({
  code: z.enum(READINESS_REASON_CODES).describe('Machine code of the reason.'),
  message: z.string().describe('The reason in words, with its date.'),
});

/** The derived readiness fields of measures and requirements. */
export function readinessFields(what: string): Record<string, FieldSpec> {
  return {
    readiness: derived(
      readinessSchema.describe(
        `Derived beside the declared state: READY when ${what}; NOT_READY with reasons; NOT_APPLICABLE.`,
      ),
      { label: 'Readiness' },
    ),
    readiness_reasons: derived(
      z.array(reasonSchema).describe('Why it is not ready (code and message); empty when READY.'),
      { label: 'Not ready because' },
    ),
  };
}

/** SQL: the measure (the row of `measures`) is READY on `today`. */
function measureReady(today: string): SQL {
  return sql`(${measures.readiness_blocked} = 0 and ${measures.ready_until} >= ${today})`;
}

const readinessFilterSchema = (what: string) =>
  readinessSchema.describe(
    `Only ${what} with this readiness; with state IMPLEMENTED and NOT_READY: "implemented but not ready".`,
  );

/** The measures' `readiness` list filter. */
export const measureReadinessFilter: FilterSpec = filter(
  readinessFilterSchema('measures'),
  (value, today) => {
    if (value === 'NOT_APPLICABLE') return sql`${measures.state} = 'NOT_APPLICABLE'`;
    const ready = measureReady(today);
    return value === 'READY' ? ready : sql`(${measures.state} <> 'NOT_APPLICABLE' and not ${ready})`;
  },
);

// ---- requirements: from the measures mapped to them (NOT_APPLICABLE ones ignored) --------------------------------

const REQUIREMENT = '"requirements"';

/** The mapped measures of a requirement that count, as a FROM clause over `m`. */
const mappedMeasures = sql.raw(
  `requirement_measures rm cross join measures m on m.id = rm.measure_id where rm.requirement_id = ${REQUIREMENT}.id and m.state <> 'NOT_APPLICABLE'`,
);

/**
 * The facts a requirement's readiness is decided from, as JSON arrays (left out of the answer): [measures counted,
 * measures blocked, the first blocked one's name] and [the earliest last ready day, the name of its measure]. The
 * counts and the day are the requirement's stored columns; the names are read for the shown row.
 */
export const requirementReadinessFacts = {
  readiness_counts: sql`json_array(coalesce(${sql.raw(REQUIREMENT)}.readiness_measures, 0), coalesce(${sql.raw(REQUIREMENT)}.readiness_blocked, 0), (select min(m.name) from ${mappedMeasures} and m.readiness_blocked = 1))`,
  readiness_last: sql`(select json_array(min(m.ready_until), m.name) from ${mappedMeasures})`,
} satisfies Record<string, SQL>;

/** A requirement's readiness on `today`: every applicable mapped measure READY. */
export function requirementReadiness(
  row: Row,
  today: string,
): { readiness: Readiness; reasons: ReadinessReason[] } {
  if (row.is_section === true || row.is_section === 1 || row.applicability === 'EXCLUDED')
    return { readiness: 'NOT_APPLICABLE', reasons: [] };
  const [total = 0, blocked = 0, blockedName] = jsonArray(row.readiness_counts);
  if (Number(total) === 0)
    return {
      readiness: 'NOT_READY',
      reasons: [{ code: 'no_measures', message: 'no applicable measure covers it' }],
    };
  if (Number(blocked) > 0)
    return {
      readiness: 'NOT_READY',
      reasons: [
        {
          code: 'measure_not_ready',
          message: `${Number(blocked)} of ${Number(total)} measures not ready, e.g. "${String(blockedName)}"`,
        },
      ],
    };
  const [last, untilName] = jsonArray(row.readiness_last);
  const until = typeof last === 'string' ? last : NEVER;
  if (until < today)
    return {
      readiness: 'NOT_READY',
      reasons: [
        {
          code: 'measure_not_ready',
          message: `measure "${String(untilName)}": its evidence or test ran out on ${until}`,
        },
      ],
    };
  return { readiness: 'READY', reasons: [] };
}

/** SQL: the requirement (the row of `requirements`) is READY on `today`, from its stored columns. */
export function requirementReady(today: string): SQL {
  return sql`(${requirements.is_section} = 0 and ${requirements.applicability} <> 'EXCLUDED' and ${requirements.readiness_measures} > 0 and ${requirements.readiness_blocked} = 0 and ${requirements.ready_until} >= ${today})`;
}

/** The requirements' `readiness` list filter. */
export const requirementReadinessFilter: FilterSpec = filter(
  readinessFilterSchema('requirements'),
  (value, today) => {
    const excluded = sql`(${requirements.is_section} = 1 or ${requirements.applicability} = 'EXCLUDED')`;
    if (value === 'NOT_APPLICABLE') return excluded;
    const ready = requirementReady(today);
    return value === 'READY' ? ready : sql`(not ${excluded} and not ${ready})`;
  },
);

/** Strips the facts from a presented row and adds readiness and its reasons. */
export function presentReadiness(
  row: Row,
  facts: Record<string, SQL>,
  decided: { readiness: Readiness; reasons: ReadinessReason[] },
): Row {
  const out: Row = {};
  for (const name in row) if (!(name in facts)) out[name] = row[name];
  out.readiness = decided.readiness;
  out.readiness_reasons = decided.reasons;
  return out;
}
