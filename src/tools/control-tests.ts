// Control tests: a test of a measure (who, when, the period covered, method, sample, result); the measure keeps its
// latest test and, with a test interval, when the next one is due (triggers of migrations/0028).
import { eq, sql } from 'drizzle-orm';
import { controlTests } from '../db/schema.ts';
import { ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText } from './fields.ts';
import {
  enumFilter,
  filledOnAdd,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  requireForward,
  ruleRefusal,
} from './registers/spec.ts';
import { TEST_METHODS, TEST_RESULTS } from './states.ts';

const method = caseInsensitiveEnum(TEST_METHODS).describe(
  'How it was tested: INQUIRY, INSPECTION, OBSERVATION or RE_PERFORMANCE.',
);
const result = caseInsensitiveEnum(TEST_RESULTS).describe(
  'EFFECTIVE, EXCEPTION (deviations found) or NOT_EFFECTIVE.',
);

/** Dates in order: the period covered ends after it starts and by the test day; a test is not in the future. */
function checkDates(next: Row, current: Row | null, rules: RuleContext): void {
  if (!current) next.tested_on ??= rules.today;
  const tested = String(next.tested_on);
  if ('tested_on' in rules.given && tested > rules.today)
    throw ruleRefusal(
      'tested_on',
      `tested_on ${tested} is in the future.`,
      'Give the day it was tested, today or earlier.',
    );
  requireForward(next, 'period_from', 'period_to', 'Give a period that ends on or after its start.');
  const to = next.period_to;
  if (typeof to === 'string' && to > tested)
    throw ruleRefusal(
      'period_to',
      `period_to ${to} is after tested_on ${tested}.`,
      'A test covers a period up to the day it was made.',
    );
}

export const controlTestSpec: RegisterSpec = {
  kind: 'control_test',
  prefix: 'ctt',
  label: 'control test',
  labelPlural: 'control tests',
  noun: 'ControlTest',
  nounPlural: 'ControlTests',
  key: 'control_test',
  listKey: 'control_tests',
  toolset: 'control_tests',
  table: controlTests,
  nameFields: ['method', 'tested_on'],
  about:
    'A control test records who tested a measure, when, the period covered, method, sample and result; the latest test and next due date are kept on it.',
  fields: {
    measure_id: {
      ...required(idOf('msr', 'Measure').describe('The measure tested (`msr_...`).'), 'measure', {
        label: 'Measure',
        hint: 'The control that was tested.',
      }),
      fixed: true,
      cascade: true,
    },
    tester_id: {
      ...required(idOf('per', 'Person').describe('Who tested (`per_...`).'), 'person', {
        label: 'Tester',
        hint: 'The person who performed the test.',
      }),
      fixed: true,
    },
    tested_on: filledOnAdd(dateSchema.describe('Day of the test (default today, not later).'), {
      label: 'Tested on',
    }),
    period_from: optional(dateSchema.describe('First day of the period the test covers.'), undefined, {
      label: 'Period from',
    }),
    period_to: optional(dateSchema.describe('Last day of the period covered (by tested_on).'), undefined, {
      label: 'Period to',
    }),
    method: required(method),
    sample: optional(
      longText(2000).describe('What was sampled, e.g. "25 of 340 laptops, picked at random".'),
    ),
    result: required(result),
    notes: optional(longText(5000).describe('Findings, deviations, follow-up.')),
    nonconformity_id: optional(
      idOf('ncf', 'Nonconformity').describe('Nonconformity raised from an exception (`ncf_...`).'),
      'nonconformity',
      { label: 'Nonconformity raised', hint: 'The nonconformity raised from this test, if any.' },
    ),
  },
  relations: [evidenceIdsRelation()],
  search: [controlTests.sample, controlTests.notes],
  filters: {
    measure_id: filter(idOf('msr', 'Measure').describe('Only the tests of this measure.'), (value) =>
      eq(controlTests.measure_id, value),
    ),
    tester_id: ownerFilter(controlTests.tester_id, 'Tester'),
    result: enumFilter(result, controlTests.result, 'Any of these results.'),
    method: enumFilter(method, controlTests.method, 'Any of these methods.'),
    tested_before: filter(
      dateSchema.describe('Only tests made before this day.'),
      (value) => sql`${controlTests.tested_on} < ${value}`,
    ),
  },
  orderFields: {
    tested_on: { column: controlTests.tested_on },
  },
  prepare: checkDates,
  hints: {
    list: 'Of one measure: filter.measure_id; failures: filter.result EXCEPTION or NOT_EFFECTIVE.',
    add: "Records a test of a measure; the measure's last_tested_on, last_test_result and next_test_on follow. An exception: addNonconformity, then nonconformity_id here. Attach proof with addEvidence record_ids.",
    get: 'Everything about one test: its tester, period, method, sample, result, evidence and nonconformity.',
    update: 'Correct a test, or link the nonconformity raised (nonconformity_id).',
    delete: 'one test, e.g. one recorded twice or in error; the measure and its other tests stay',
  },
  example: {
    organization_id: 'org_...',
    measure_id: 'msr_...',
    tester_id: 'per_...',
    tested_on: '2026-10-15',
    period_from: '2026-07-01',
    period_to: '2026-09-30',
    method: 'INSPECTION',
    sample: '25 of 340 laptops, picked at random',
    result: 'EFFECTIVE',
  },
};
