// Measures: controls the organization puts in place, with an implementation state.
import { eq } from 'drizzle-orm';
import { measures } from '../db/schema.ts';
import { descriptionField, nameField, ownerField } from './common-fields.ts';
import { caseInsensitiveEnum, idOf, shortText } from './fields.ts';
import { enumFilter, filter, type RegisterSpec, withDefault } from './register.ts';
import { MEASURE_STATES } from './states.ts';

const state = caseInsensitiveEnum(MEASURE_STATES).describe(
  `Implementation state: ${MEASURE_STATES.join(', ')} (case-insensitive; "not started" is NOT_STARTED).`,
);

export const measureSpec: RegisterSpec = {
  kind: 'measure',
  prefix: 'msr',
  label: 'measure',
  labelPlural: 'measures',
  noun: 'Measure',
  nounPlural: 'Measures',
  key: 'measure',
  listKey: 'measures',
  table: measures,
  about: 'A measure is a control or safeguard (e.g. "Enforce MFA") that mitigates risks; it has a state.',
  fields: {
    name: nameField('Enforce multi-factor authentication'),
    description: descriptionField('measure'),
    category: withDefault(
      shortText(100).describe('Category, free text, e.g. "Access control" (default "General").'),
      'General',
    ),
    state: withDefault(state, 'NOT_STARTED'),
    owner_id: ownerField(),
  },
  search: [measures.name, measures.description],
  filters: {
    state: enumFilter(state, measures.state, 'Only measures in this state (or any of these).'),
    owner_id: filter(
      idOf('per', 'Person').describe('Only measures owned by this person (`per_...`).'),
      (value) => eq(measures.owner_id, value),
    ),
  },
  orderFields: {
    created_at: { column: measures.created_at },
    updated_at: { column: measures.updated_at },
    name: { column: measures.name },
  },
  hints: {
    add: 'State defaults to NOT_STARTED. Link it to risks with linkRiskMeasure.',
    update: 'Any state may follow any other.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Enforce MFA on all SaaS',
    category: 'Access control',
    state: 'IN_PROGRESS',
  },
};
