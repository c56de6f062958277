// Nonconformities: findings (often from audits) with root cause, corrective action and a closing workflow that needs
// an effectiveness check (when, who, result). Closed ones without them (written before the rule) stay closed, flagged.

import { eq, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { nonconformities, nonconformityRequirements, nonconformityRisks } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { linkedFilter, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText, shortText } from './fields.ts';
import { isOverdue, overdueFilter, overdueOutput } from './overdue.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  ruleRefusal,
  type Warning,
  withDefault,
  writableLinks,
} from './registers/spec.ts';
import { FINDING_GRADES, WORKFLOW_STATUSES, WORKFLOW_TRANSITIONS } from './states.ts';

const grade = caseInsensitiveEnum(FINDING_GRADES).describe(
  'Audit grade: MAJOR, MINOR, OBSERVATION or OPPORTUNITY_FOR_IMPROVEMENT.',
);

/** A finding's links: the requirements it is against, the risks it bears on. */
const requirementLinks = writableLinks(
  'requirement_ids',
  nonconformityRequirements,
  { owner: nonconformityRequirements.nonconformity_id, target: nonconformityRequirements.requirement_id },
  'requirement',
  'Requirements',
  'The requirements or controls it is against.',
);
const riskLinks = writableLinks(
  'risk_ids',
  nonconformityRisks,
  { owner: nonconformityRisks.nonconformity_id, target: nonconformityRisks.risk_id },
  'risk',
  'Risks',
  'The risks it bears on or reveals.',
);

const status = caseInsensitiveEnum(WORKFLOW_STATUSES).describe(
  'Status: OPEN -> IN_PROGRESS -> CLOSED (needs root_cause, corrective_action and an EFFECTIVE effectiveness check); CLOSED -> OPEN reopens.',
);

export const EFFECTIVENESS_RESULTS = ['EFFECTIVE', 'NOT_EFFECTIVE'] as const;
const effectivenessResult = caseInsensitiveEnum(EFFECTIVENESS_RESULTS).describe(
  'Result of the effectiveness check: EFFECTIVE closes it; NOT_EFFECTIVE calls for a new corrective action.',
);

/** What closing asks: the fields that must hold a value, and the result that must be EFFECTIVE. */
export const CLOSING_FIELDS = [
  'root_cause',
  'corrective_action',
  'effectiveness_checked_on',
  'effectiveness_checked_by_id',
  'effectiveness_result',
] as const;

/** The closing fields a record lacks (a NOT_EFFECTIVE result counts as lacking an effective check). */
export function closingGaps(row: Row): string[] {
  const gaps: string[] = CLOSING_FIELDS.filter((field) => !row[field]);
  if (row.effectiveness_result === 'NOT_EFFECTIVE') gaps.push('effectiveness_result');
  return gaps;
}

/** SQL: CLOSED without everything closing asks (records closed before the rule): flagged, never rewritten. */
export const incompleteClosure: SQL = sql`(${nonconformities.status} = 'CLOSED' and (${sql.join(
  CLOSING_FIELDS.map((field) => sql`${nonconformities[field]} is null or ${nonconformities[field]} = ''`),
  sql` or `,
)} or ${nonconformities.effectiveness_result} = 'NOT_EFFECTIVE'))`;

/**
 * The closing rule, the same for a nonconformity added CLOSED and for one moved there: root cause, corrective
 * action, and an effectiveness check (when, by whom, EFFECTIVE). A CLOSED one keeps them: clearing one is refused.
 */
function checkClosing(label: string, next: Row, current: Row | null, rules: RuleContext): void {
  const checkedOn = next.effectiveness_checked_on;
  if (typeof checkedOn === 'string' && checkedOn > rules.today && 'effectiveness_checked_on' in rules.given)
    throw ruleRefusal(
      'effectiveness_checked_on',
      `effectiveness_checked_on ${checkedOn} is in the future.`,
      'Give the day the check was made, today or earlier.',
    );
  if (next.status !== 'CLOSED') return;
  const closing = current?.status !== 'CLOSED';
  const gaps = closingGaps(next);
  const cleared = gaps.filter((field) => field in rules.given);
  if (!closing && cleared.length === 0) return;
  const [field] = closing ? gaps : cleared;
  if (!field) return;
  const fix =
    field === 'effectiveness_result' && next.effectiveness_result === 'NOT_EFFECTIVE'
      ? 'The corrective action was not effective: plan a new one and check it again before closing.'
      : `Set ${gaps.join(', ')} in the same call (the effectiveness check: when, by whom, result EFFECTIVE).`;
  throw new AppError(
    'invalid_transition',
    closing
      ? `Cannot change ${label} status from ${String(current?.status ?? 'new')} to CLOSED without ${gaps.join(', ')}. ${fix}`
      : `A CLOSED ${label} keeps ${cleared.join(', ')}. Reopen it (status OPEN) first.`,
    {
      field,
      current: current?.status ?? null,
      requested: 'CLOSED',
      missing: gaps,
      path: field,
      fix,
    },
  );
}

function nonconformityWarnings(next: Row): Warning[] {
  if (next.status !== 'CLOSED') return [];
  const gaps = closingGaps(next);
  return gaps.length === 0
    ? []
    : [
        {
          field: gaps[0] as string,
          message: `Closed without ${gaps.join(', ')} (closed before closing asked for them): record them, or reopen it.`,
        },
      ];
}

export const nonconformitySpec: RegisterSpec = {
  kind: 'nonconformity',
  prefix: 'ncf',
  label: 'nonconformity',
  labelPlural: 'nonconformities',
  noun: 'Nonconformity',
  nounPlural: 'Nonconformities',
  key: 'nonconformity',
  listKey: 'nonconformities',
  table: nonconformities,
  nameFields: ['reference_id'],
  about:
    'A nonconformity is a finding that a requirement is not met (e.g. in an audit), tracked to CLOSED with root cause and corrective action.',
  fields: {
    reference_id: required(shortText(100).describe('Your reference, e.g. "NC-2026-004".'), undefined, {
      label: 'Reference',
    }),
    description: optional(longText().describe('What was found.')),
    audit_id: optional(idOf('aud', 'Audit').describe('Audit that raised it (`aud_...`), if any.'), 'audit', {
      label: 'Audit',
      hint: 'The audit that raised it, if any.',
    }),
    date_identified: optional(dateSchema.describe('When it was found.')),
    root_cause: optional(longText().describe('Root cause analysis.')),
    corrective_action: optional(
      longText().describe('Corrective action taken or planned; required to close.'),
    ),
    owner_id: ownerField(),
    due_date: optional(dateSchema.describe('Date by which it must be closed.')),
    status: withDefault(status, 'OPEN'),
    effectiveness_check: optional(
      longText().describe('How the effectiveness of the corrective action was verified.'),
    ),
    effectiveness_checked_on: optional(dateSchema.describe('Day the effectiveness was checked.'), undefined, {
      label: 'Effectiveness checked on',
    }),
    effectiveness_checked_by_id: optional(
      idOf('per', 'Person').describe('Who checked the effectiveness (`per_...`).'),
      'person',
      {
        label: 'Effectiveness checked by',
        hint: 'The person who checked that the corrective action worked.',
      },
    ),
    effectiveness_result: optional(effectivenessResult, undefined, { label: 'Effectiveness result' }),
    grade: optional(grade, undefined, { label: 'Grade', hint: 'As the audit graded the finding.' }),
    clause: optional(
      shortText(100).describe('Clause or control it is against, e.g. "9.2.2" or "A.5.18".'),
      undefined,
      { label: 'Clause' },
    ),
    overdue: derived(overdueOutput('CLOSED')),
    closure_incomplete: derived(
      z.boolean().describe('CLOSED without root cause, corrective action or an EFFECTIVE check (derived).'),
    ),
  },
  relations: [requirementLinks, riskLinks, evidenceIdsRelation()],
  unique: ['reference_id'],
  search: [nonconformities.reference_id, nonconformities.description, nonconformities.root_cause],
  filters: {
    status: enumFilter(status, nonconformities.status, 'Any of these statuses.'),
    overdue: overdueFilter(nonconformities.due_date, nonconformities.status, 'CLOSED'),
    audit_id: filter(idOf('aud', 'Audit').describe('Only those raised by this audit (`aud_...`).'), (value) =>
      eq(nonconformities.audit_id, value),
    ),
    owner_id: ownerFilter(nonconformities.owner_id),
    grade: enumFilter(grade, nonconformities.grade, 'Any of these grades, e.g. MAJOR.'),
    requirement_id: linkedFilter(
      {
        ownerId: nonconformities.id,
        owner: requirementLinks.ownerColumn,
        target: requirementLinks.targetColumn,
      },
      { prefix: 'req', what: 'Requirement' },
      'Only those against this requirement (`req_...`).',
    ),
    risk_id: linkedFilter(
      { ownerId: nonconformities.id, owner: riskLinks.ownerColumn, target: riskLinks.targetColumn },
      { prefix: 'rsk', what: 'Risk' },
      'Only those linked to this risk (`rsk_...`).',
    ),
    closure_incomplete: filter(
      z.boolean().describe('true: CLOSED ones lacking what closing asks (flagged).'),
      (value) => (value ? incompleteClosure : sql`not ${incompleteClosure}`),
    ),
  },
  orderFields: {
    reference_id: { column: nonconformities.reference_id },
    due_date: { column: nonconformities.due_date, nullable: true },
  },
  transitions: { status: WORKFLOW_TRANSITIONS },
  prepare: (next, current, rules) => checkClosing('nonconformity', next, current, rules),
  warnings: nonconformityWarnings,
  present: (row, today) => ({
    ...row,
    overdue: isOverdue(row, 'due_date', 'status', 'CLOSED', today),
    closure_incomplete: row.status === 'CLOSED' && closingGaps(row).length > 0,
  }),
  hints: {
    list: 'Open ones: filter.status = ["OPEN", "IN_PROGRESS"]; late ones: filter.overdue = true.',
    add: 'Status defaults to OPEN; reference_id is unique in the organization.',
  },
  example: {
    organization_id: 'org_...',
    reference_id: 'NC-2026-004',
    description: 'Access reviews were not performed in Q2',
    due_date: '2026-12-15',
  },
};
