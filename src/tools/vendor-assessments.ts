// Vendor assessments: each review of a vendor kept as its own record (when, by whom, the result, the tier decided,
// until when it holds, the evidence), instead of one note overwritten at each review. A vendor is due for assessment
// when none of its assessments holds on a day (vendors filter assessment_due_before).
import { eq, sql } from 'drizzle-orm';
import { vendorAssessments } from '../db/schema.ts';
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
  ruleRefusal,
} from './registers/spec.ts';
import { VENDOR_ASSESSMENT_RESULTS } from './states.ts';
import { vendorTier } from './vendors.ts';

const result = caseInsensitiveEnum(VENDOR_ASSESSMENT_RESULTS).describe(
  'APPROVED, APPROVED_WITH_CONDITIONS or NOT_APPROVED.',
);

function checkDates(next: Row, current: Row | null, rules: RuleContext): void {
  if (current) return;
  next.assessed_on ??= rules.today;
  const assessed = String(next.assessed_on);
  if (assessed > rules.today)
    throw ruleRefusal(
      'assessed_on',
      `assessed_on ${assessed} is in the future.`,
      'Give the day the assessment was made, today or earlier.',
    );
  if (String(next.expires_on) <= assessed)
    throw ruleRefusal(
      'expires_on',
      `expires_on ${String(next.expires_on)} is not after assessed_on ${assessed}.`,
      'An assessment holds until a later day: give one, e.g. a year after assessed_on.',
    );
}

export const vendorAssessmentSpec: RegisterSpec = {
  kind: 'vendor_assessment',
  prefix: 'vas',
  label: 'vendor assessment',
  labelPlural: 'vendor assessments',
  noun: 'VendorAssessment',
  nounPlural: 'VendorAssessments',
  key: 'vendor_assessment',
  listKey: 'vendor_assessments',
  toolset: 'vendor_assessments',
  table: vendorAssessments,
  nameFields: ['assessed_on', 'result'],
  about:
    'A vendor assessment records one review: when, by whom, the result, the tier decided and until when it holds; each is kept as history.',
  fields: {
    vendor_id: {
      ...required(idOf('ven', 'Vendor').describe('The vendor assessed (`ven_...`).'), 'vendor', {
        label: 'Vendor',
      }),
      fixed: true,
      cascade: true,
    },
    assessed_on: {
      ...filledOnAdd(dateSchema.describe('Day it was assessed (default today, not later).')),
      fixed: true,
    },
    assessor_id: {
      ...required(idOf('per', 'Person').describe('Who assessed it (`per_...`).'), 'person', {
        label: 'Assessor',
      }),
      fixed: true,
    },
    result: { ...required(result), fixed: true },
    tier: { ...required(vendorTier.describe('Tier decided: CRITICAL, HIGH, MEDIUM or LOW.')), fixed: true },
    expires_on: {
      ...required(
        dateSchema.describe('Day it stops holding; the vendor is due again then. After assessed_on.'),
      ),
      fixed: true,
    },
    summary: optional(longText(5000).describe('Findings, conditions and follow-ups.')),
  },
  relations: [evidenceIdsRelation()],
  search: [vendorAssessments.summary],
  filters: {
    vendor_id: filter(idOf('ven', 'Vendor').describe('Only those of this vendor.'), (value) =>
      eq(vendorAssessments.vendor_id, value),
    ),
    assessor_id: ownerFilter(vendorAssessments.assessor_id, 'Assessor'),
    result: enumFilter(result, vendorAssessments.result, 'Any of these results.'),
    expires_before: filter(
      dateSchema.describe('Only those expiring before this day.'),
      (value) => sql`${vendorAssessments.expires_on} < ${value}`,
    ),
  },
  orderFields: {
    assessed_on: { column: vendorAssessments.assessed_on },
    expires_on: { column: vendorAssessments.expires_on },
  },
  prepare: checkDates,
  hints: {
    list: 'Of one vendor: filter.vendor_id; running out: filter.expires_before.',
    get: 'With its vendor, assessor, result, tier decided, expiry, summary and evidence.',
    add: "Kept as history, never overwritten; set the vendor's tier with updateVendor if it changed.",
    delete: 'Remove one recorded against the wrong vendor.',
    update:
      'Change its summary (conditions, follow-ups); the rest is fixed: record a new assessment for a new review.',
  },
  example: {
    organization_id: 'org_...',
    vendor_id: 'ven_...',
    assessor_id: 'per_...',
    assessed_on: '2026-11-02',
    result: 'APPROVED_WITH_CONDITIONS',
    tier: 'HIGH',
    expires_on: '2027-11-02',
    summary: 'SOC 2 Type II report read; MFA for admin accounts to be enforced by Q1.',
  },
};
