// Obligations: legal and contractual requirements with a compliance status and a due date (overdue is derived).

import { obligations } from '../db/schema.ts';
import { ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, longText, shortText } from './fields.ts';
import { isOverdue, overdueFilter, overdueOutput } from './overdue.ts';
import { derived, enumFilter, optional, type RegisterSpec, required, withDefault } from './registers/spec.ts';
import { OBLIGATION_STATUSES, OBLIGATION_TYPES } from './states.ts';

const status = caseInsensitiveEnum(OBLIGATION_STATUSES).describe('Compliance status.');
const type = caseInsensitiveEnum(OBLIGATION_TYPES).describe(
  'LEGAL (law, regulation) or CONTRACTUAL (customer contract).',
);

export const obligationSpec: RegisterSpec = {
  kind: 'obligation',
  prefix: 'obl',
  label: 'obligation',
  labelPlural: 'obligations',
  noun: 'Obligation',
  nounPlural: 'Obligations',
  key: 'obligation',
  listKey: 'obligations',
  table: obligations,
  nameFields: ['requirement'],
  about:
    'An obligation is a legal or contractual requirement to meet (e.g. GDPR Art. 33 breach notification); overdue when its due_date has passed and it is not COMPLIANT.',
  fields: {
    area: optional(shortText().describe('Area, e.g. "Data protection".')),
    source: optional(shortText().describe('Source text, e.g. "GDPR Art. 30" or "MSA with Acme, clause 12".')),
    requirement: required(
      longText(10_000, 1).describe('What must be done, e.g. "Keep a record of processing activities".'),
    ),
    regulator: optional(shortText().describe('Regulator or counterparty, e.g. "CNIL".')),
    type: withDefault(type, 'LEGAL'),
    status: withDefault(status, 'NON_COMPLIANT'),
    owner_id: ownerField(),
    last_review_date: optional(dateSchema.describe('Date of the last review.')),
    due_date: optional(dateSchema.describe('Date by which it must be met.')),
    overdue: derived(overdueOutput('COMPLIANT')),
  },
  relations: [evidenceIdsRelation()],
  search: [obligations.requirement, obligations.area, obligations.source, obligations.regulator],
  filters: {
    status: enumFilter(status, obligations.status, 'Any of these statuses.'),
    type: enumFilter(type, obligations.type, 'Any of these types.'),
    overdue: overdueFilter(obligations.due_date, obligations.status, 'COMPLIANT'),
    owner_id: ownerFilter(obligations.owner_id),
  },
  orderFields: {
    due_date: { column: obligations.due_date, nullable: true },
  },
  present: (row, today) => ({ ...row, overdue: isOverdue(row, 'due_date', 'status', 'COMPLIANT', today) }),
  hints: {
    list: 'Overdue ones: filter.overdue = true.',
    add: 'A legal or contractual duty, with its due date. Status defaults to NON_COMPLIANT, type to LEGAL.',
    update: 'Any status may follow any other.',
  },
  example: {
    organization_id: 'org_...',
    area: 'Data protection',
    source: 'GDPR Art. 33',
    requirement: 'Notify the supervisory authority of a personal data breach within 72 hours',
    regulator: 'CNIL',
    due_date: '2026-12-31',
  },
};
