// Measures: controls the organization puts in place, with an implementation state.

import { measures, requirementMeasures, riskMeasures } from '../db/schema.ts';
import { descriptionField, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, shortText } from './fields.ts';
import { enumFilter, type RegisterSpec, withDefault } from './registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import { MEASURE_STATES } from './states.ts';

const state = caseInsensitiveEnum(MEASURE_STATES).describe('Implementation state.');

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
      shortText(100).describe('Free text, e.g. "Access control" (default "General").'),
      'General',
    ),
    state: withDefault(state, 'NOT_STARTED'),
    owner_id: ownerField(),
    ...reviewFields(),
  },
  relations: [
    {
      field: 'risk_ids',
      table: riskMeasures,
      ownerColumn: riskMeasures.measure_id,
      targetColumn: riskMeasures.risk_id,
      organizationColumn: riskMeasures.organization_id,
      target: 'risk',
      writable: false,
      inverse: true,
      description: 'Ids of the risks it mitigates (read-only here; see linkRiskMeasure).',
      label: 'Risks mitigated',
    },
    {
      field: 'requirement_ids',
      table: requirementMeasures,
      ownerColumn: requirementMeasures.measure_id,
      targetColumn: requirementMeasures.requirement_id,
      organizationColumn: requirementMeasures.organization_id,
      target: 'requirement',
      writable: false,
      inverse: true,
      description: 'Ids of the requirements it covers (read-only here; see linkRequirementMeasure).',
      label: 'Requirements covered',
    },
    evidenceIdsRelation(),
  ],
  search: [measures.name, measures.description],
  filters: {
    state: enumFilter(state, measures.state, 'Any of these states.'),
    owner_id: ownerFilter(measures.owner_id),
    ...reviewFilters(REVIEW_CYCLES.measure),
  },
  orderFields: {
    name: { column: measures.name },
    ...reviewOrderField(measures.next_review_on),
  },
  review: REVIEW_CYCLES.measure,
  hints: {
    add: 'Add a control or safeguard (e.g. enforce MFA for admins). State defaults to NOT_STARTED. Link it to risks with linkRiskMeasure, to requirements with linkRequirementMeasure.',
    update: 'Any state may follow any other (e.g. mark it IMPLEMENTED).',
  },
  example: {
    organization_id: 'org_...',
    name: 'Enforce MFA on all SaaS',
    category: 'Access control',
    state: 'IN_PROGRESS',
  },
};
