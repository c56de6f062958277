// Nonconformities: findings (often from audits) with root cause, corrective action and a closing workflow.

import { eq } from 'drizzle-orm';
import { nonconformities } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { ownerField, ownerFilter } from './common-fields.ts';
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
  required,
  withDefault,
} from './registers/spec.ts';
import { WORKFLOW_STATUSES, WORKFLOW_TRANSITIONS } from './states.ts';

const status = caseInsensitiveEnum(WORKFLOW_STATUSES).describe(
  'Status: OPEN -> IN_PROGRESS -> CLOSED (needs a corrective_action); CLOSED -> OPEN reopens.',
);

/** A nonconformity closes only with a corrective action (its moves are the spec's `transitions`). */
function checkCorrectiveAction(label: string, next: Row, current: Row | null): void {
  if (next.status === 'CLOSED' && !next.corrective_action) {
    throw new AppError(
      'invalid_transition',
      `Cannot change ${label} status from ${String(current?.status ?? 'new')} to CLOSED without a corrective_action. Set corrective_action in the same call.`,
      {
        field: 'status',
        current: current?.status ?? null,
        requested: 'CLOSED',
        missing: 'corrective_action',
      },
    );
  }
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
    overdue: derived(overdueOutput('CLOSED')),
  },
  relations: [evidenceIdsRelation()],
  search: [nonconformities.reference_id, nonconformities.description, nonconformities.root_cause],
  filters: {
    status: enumFilter(status, nonconformities.status, 'Any of these statuses.'),
    overdue: overdueFilter(nonconformities.due_date, nonconformities.status, 'CLOSED'),
    audit_id: filter(idOf('aud', 'Audit').describe('Only those raised by this audit (`aud_...`).'), (value) =>
      eq(nonconformities.audit_id, value),
    ),
    owner_id: ownerFilter(nonconformities.owner_id),
  },
  orderFields: {
    reference_id: { column: nonconformities.reference_id },
    due_date: { column: nonconformities.due_date, nullable: true },
  },
  transitions: { status: WORKFLOW_TRANSITIONS },
  prepare: (next, current) => checkCorrectiveAction('nonconformity', next, current),
  present: (row, today) => ({ ...row, overdue: isOverdue(row, 'due_date', 'status', 'CLOSED', today) }),
  hints: {
    list: 'Open ones: filter.status = ["OPEN", "IN_PROGRESS"]; late ones: filter.overdue = true.',
    add: 'Status defaults to OPEN.',
  },
  example: {
    organization_id: 'org_...',
    reference_id: 'NC-2026-004',
    description: 'Access reviews were not performed in Q2',
    due_date: '2026-12-15',
  },
};
