// Measures: controls the organization puts in place, with an implementation state, what their readiness expects
// (evidence, a test interval) and the readiness derived from it (src/tools/readiness.ts).
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { measures, requirementMeasures, riskMeasures } from '../db/schema.ts';
import { descriptionField, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, shortText } from './fields.ts';
import {
  measureReadiness,
  measureReadinessFacts,
  measureReadinessFilter,
  presentReadiness,
  readinessFields,
} from './readiness.ts';
import {
  derived,
  enumFilter,
  filter,
  maintainedField,
  optional,
  type RegisterSpec,
  withDefault,
} from './registers/spec.ts';
import {
  MAX_REVIEW_INTERVAL_DAYS,
  REVIEW_CYCLES,
  reviewFields,
  reviewFilters,
  reviewOrderField,
} from './reviews.ts';
import { MEASURE_STATES, TEST_RESULTS } from './states.ts';

/** A measure's next test is due before `today`: it has an interval and is still in force. */
export function testOverdue(row: Record<string, unknown>, today: string): boolean {
  return row.state !== 'NOT_APPLICABLE' && typeof row.next_test_on === 'string' && row.next_test_on < today;
}

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
    evidence_required: withDefault(
      z
        .boolean()
        .describe('Readiness needs current evidence attached (default true; false for older measures).'),
      true,
      { label: 'Evidence required' },
    ),
    test_interval_days: optional(
      z
        .number()
        .int()
        .min(1)
        .max(MAX_REVIEW_INTERVAL_DAYS)
        .describe('Test it every this many days (addControlTest); null: not tested periodically.'),
      undefined,
      { label: 'Test every (days)', hint: 'Sets when the next control test is due.' },
    ),
    last_tested_on: maintainedField(
      dateSchema.nullable().describe('Day of its latest control test (derived).'),
      'Last tested on',
    ),
    last_test_result: maintainedField(
      caseInsensitiveEnum(TEST_RESULTS).nullable().describe('Result of its latest control test (derived).'),
      'Last test result',
    ),
    next_test_on: maintainedField(
      dateSchema
        .nullable()
        .describe('Next test due (derived: latest test + test_interval_days; never tested: due now).'),
      'Next test on',
    ),
    test_overdue: derived(z.boolean().describe('Derived: next_test_on is before today.'), {
      label: 'Test overdue',
    }),
    ...readinessFields(
      'IMPLEMENTED, its required evidence current, its documents approved and its last test EFFECTIVE and not overdue',
    ),
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
    readiness: measureReadinessFilter,
    test_due_before: filter(
      dateSchema.describe('Only those whose next test is due before this date (today: overdue).'),
      (value) => sql`${measures.next_test_on} < ${value} and ${measures.state} <> 'NOT_APPLICABLE'`,
    ),
  },
  orderFields: {
    name: { column: measures.name },
    ...reviewOrderField(measures.next_review_on),
    next_test_on: { column: measures.next_test_on, nullable: true },
  },
  review: REVIEW_CYCLES.measure,
  computed: measureReadinessFacts,
  present: (row, today) =>
    presentReadiness(
      { ...row, test_overdue: testOverdue(row, today) },
      measureReadinessFacts,
      measureReadiness(row, today),
    ),
  hints: {
    add: 'Add a control or safeguard (e.g. enforce MFA for admins). State defaults to NOT_STARTED. Link it to risks with linkRiskMeasure, to requirements with linkRequirementMeasure.',
    list: 'Implemented but not ready: filter.state IMPLEMENTED with filter.readiness NOT_READY; tests due: filter.test_due_before.',
    update:
      'Any state may follow any other (e.g. mark it IMPLEMENTED); readiness expects evidence_required and test_interval_days.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Enforce MFA on all SaaS',
    category: 'Access control',
    state: 'IN_PROGRESS',
    test_interval_days: 90,
  },
};
