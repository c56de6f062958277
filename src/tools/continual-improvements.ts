// Continual improvements: planned improvements of the management system, with a priority and a workflow.
import { continualImprovements } from '../db/schema.ts';
import { ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum, dateSchema, longText, shortText } from './fields.ts';
import { enumFilter, optional, type RegisterSpec, required, withDefault } from './registers/spec.ts';
import { PRIORITIES, WORKFLOW_STATUSES, WORKFLOW_TRANSITIONS } from './states.ts';

const status = caseInsensitiveEnum(WORKFLOW_STATUSES).describe(
  'Status: OPEN -> IN_PROGRESS -> CLOSED; CLOSED -> OPEN reopens.',
);
const priority = caseInsensitiveEnum(PRIORITIES).describe('Priority (default MEDIUM).');

export const continualImprovementSpec: RegisterSpec = {
  kind: 'continual_improvement',
  prefix: 'cim',
  label: 'continual improvement',
  labelPlural: 'continual improvements',
  noun: 'ContinualImprovement',
  nounPlural: 'ContinualImprovements',
  key: 'continual_improvement',
  listKey: 'continual_improvements',
  table: continualImprovements,
  nameFields: ['reference_id'],
  about: 'A continual improvement is a planned improvement of the management system (ISO 27001 clause 10).',
  fields: {
    reference_id: required(shortText(100).describe('Your reference, e.g. "CI-2026-012".'), undefined, {
      label: 'Reference',
    }),
    description: optional(longText().describe('What will be improved.')),
    source: optional(shortText().describe('Where it came from, e.g. "Management review 2026-Q3".')),
    owner_id: ownerField(),
    target_date: optional(dateSchema.describe('Target date.')),
    status: withDefault(status, 'OPEN'),
    priority: withDefault(priority, 'MEDIUM'),
  },
  search: [
    continualImprovements.reference_id,
    continualImprovements.description,
    continualImprovements.source,
  ],
  filters: {
    status: enumFilter(status, continualImprovements.status, 'Any of these statuses.'),
    priority: enumFilter(priority, continualImprovements.priority, 'Any of these priorities.'),
    owner_id: ownerFilter(continualImprovements.owner_id),
  },
  orderFields: {
    reference_id: { column: continualImprovements.reference_id },
    target_date: { column: continualImprovements.target_date, nullable: true },
  },
  unique: ['reference_id'],
  transitions: { status: WORKFLOW_TRANSITIONS },
  hints: {
    add: 'Status defaults to OPEN and priority to MEDIUM.',
  },
  example: {
    organization_id: 'org_...',
    reference_id: 'CI-2026-012',
    description: 'Automate quarterly access reviews',
    priority: 'HIGH',
    target_date: '2027-03-31',
  },
};
