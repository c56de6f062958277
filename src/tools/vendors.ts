// Vendors: third parties that process the organization's data, with their security documents.

import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { vendorQuestionnaireFiles, vendorQuestionnaires, vendorRisks, vendors } from '../db/schema.ts';
import { descriptionField, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, countryCode, dateSchema, httpUrl, shortText } from './fields.ts';
import {
  enumFilter,
  filter,
  maintainedField,
  optional,
  type RegisterSpec,
  type Row,
  requireForward,
  withDefault,
} from './registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import { VENDOR_CATEGORIES, VENDOR_DATA_ACCESS, VENDOR_STATUSES, VENDOR_TIERS } from './states.ts';

const category = caseInsensitiveEnum(VENDOR_CATEGORIES).describe('Vendor category (default OTHER).');
export const vendorTier = caseInsensitiveEnum(VENDOR_TIERS).describe(
  'Criticality: CRITICAL, HIGH, MEDIUM or LOW.',
);
const dataAccess = caseInsensitiveEnum(VENDOR_DATA_ACCESS).describe(
  'Most sensitive data it reaches: NONE, INTERNAL, CONFIDENTIAL, PERSONAL or SPECIAL_CATEGORY.',
);
const status = caseInsensitiveEnum(VENDOR_STATUSES).describe(
  'ONBOARDING, ACTIVE (default), OFFBOARDING or OFFBOARDED.',
);

/**
 * Vendors with no assessment valid on `day`: none at all, or every one expiring before it. One probe of
 * vendor_assessments (vendor_id, expires_on) per vendor, so it stays cheap with many assessments each.
 */
/** Due for assessment on `day`: never assessed, or its latest assessment's expiry is before it (assessed_until). */
export function dueForAssessment(day: string) {
  // Never assessed (null) reads as '', before every day: one range of vendors_org_assessment_due_idx, count included.
  return sql`coalesce(${vendors.assessed_until}, '') < ${day}`;
}

/** Vendors in these statuses are leaving or gone: their renewals and assessments are no longer anyone's work. */
export const VENDOR_ENDED = ['OFFBOARDING', 'OFFBOARDED'] as const;

/** When a vendor's assessment comes due: its latest expiry, or (never assessed) the day it was added. */
export const VENDOR_ASSESSMENT_DUE = sql<string>`coalesce(${vendors.assessed_until}, substr(${vendors.created_at}, 1, 10))`;

function checkContract(next: Row): void {
  requireForward(
    next,
    'contract_start_on',
    'contract_end_on',
    'Give an end on or after the start, or correct the start.',
  );
}

export const vendorSpec: RegisterSpec = {
  kind: 'vendor',
  prefix: 'ven',
  label: 'vendor',
  labelPlural: 'vendors',
  noun: 'Vendor',
  nounPlural: 'Vendors',
  key: 'vendor',
  listKey: 'vendors',
  table: vendors,
  about: 'A vendor is a third party (SaaS, cloud, contractor) relied on or sharing data.',
  fields: {
    name: nameField('Amazon Web Services'),
    description: descriptionField('vendor and what it is used for'),
    category: withDefault(category, 'OTHER'),
    legal_name: optional(shortText().describe('Legal entity name, e.g. "Amazon Web Services EMEA SARL".')),
    website_url: optional(httpUrl.describe('Website.'), undefined, { label: 'Website' }),
    privacy_policy_url: optional(httpUrl.describe('Privacy policy.'), undefined, {
      label: 'Privacy policy',
    }),
    data_processing_agreement_url: optional(
      httpUrl.describe('Signed data processing agreement (DPA).'),
      undefined,
      { label: 'Data processing agreement' },
    ),
    security_page_url: optional(httpUrl.describe('Security or trust page.'), undefined, {
      label: 'Security page',
    }),
    certifications: withDefault(
      z.array(shortText(100)).max(50).describe('Certifications held, e.g. ["SOC 2 Type II", "ISO 27001"].'),
      [],
    ),
    countries: withDefault(
      z
        .array(countryCode)
        .max(250)
        .describe('Countries where it processes data, ISO 3166-1 alpha-2, e.g. ["DE", "US"].'),
      [],
    ),
    business_owner_id: ownerField('Business owner', 'The person accountable for the relationship.'),
    security_owner_id: ownerField('Security owner', 'The person who reviews its security.'),
    tier: optional(vendorTier, undefined, { label: 'Tier', hint: 'How critical the vendor is to you.' }),
    data_access: optional(dataAccess, undefined, { label: 'Data access' }),
    status: withDefault(status, 'ACTIVE'),
    contract_start_on: optional(dateSchema.describe('Day the contract started.'), undefined, {
      label: 'Contract start',
    }),
    contract_end_on: optional(dateSchema.describe('Day the contract ends, if fixed.'), undefined, {
      label: 'Contract end',
    }),
    renewal_on: optional(
      dateSchema.describe('Day the contract renews or must be renewed or cancelled.'),
      undefined,
      {
        label: 'Renewal',
      },
    ),
    sub_processor: withDefault(
      z.boolean().describe('true: it processes personal data on our behalf (a sub-processor).'),
      false,
      { label: 'Sub-processor' },
    ),
    assessed_until: maintainedField(
      dateSchema
        .nullable()
        .describe('Latest expiry of its assessments (derived); null: never assessed. Due once before today.'),
      'Assessed until',
    ),
    ...reviewFields(),
  },
  relations: [
    {
      field: 'risk_ids',
      table: vendorRisks,
      ownerColumn: vendorRisks.vendor_id,
      targetColumn: vendorRisks.risk_id,
      organizationColumn: vendorRisks.organization_id,
      target: 'risk',
      writable: true,
      description: 'Ids of the risks this vendor brings or affects (`rsk_...`).',
      label: 'Risks',
      hint: 'The risks this vendor brings or affects.',
    },
    evidenceIdsRelation(),
  ],
  search: [vendors.name, vendors.description, vendors.legal_name],
  filters: {
    category: enumFilter(category, vendors.category, 'Any of these categories.'),
    business_owner_id: ownerFilter(vendors.business_owner_id, 'Business owner'),
    security_owner_id: ownerFilter(vendors.security_owner_id, 'Security owner'),
    tier: enumFilter(vendorTier, vendors.tier, 'Any of these tiers.'),
    status: enumFilter(status, vendors.status, 'Any of these statuses.'),
    data_access: enumFilter(dataAccess, vendors.data_access, 'Any of these data access levels.'),
    sub_processor: filter(
      z.boolean().describe('true: only sub-processors; false: the others.'),
      (value) => sql`${vendors.sub_processor} = ${value ? 1 : 0}`,
    ),
    renewal_before: filter(
      dateSchema.describe('Only those renewing before this day.'),
      (value) => sql`${vendors.renewal_on} < ${value}`,
    ),
    assessment_due_before: filter(
      dateSchema.describe('Due for assessment: none, or every one expiring before this day; e.g. today.'),
      (value) => dueForAssessment(value),
    ),
    ...reviewFilters(REVIEW_CYCLES.vendor),
  },
  orderFields: {
    name: { column: vendors.name },
    renewal_on: { column: vendors.renewal_on },
    ...reviewOrderField(vendors.next_review_on),
  },
  review: REVIEW_CYCLES.vendor,
  prepare: (next) => checkContract(next),
  // Its questionnaires go with it: their contact's address and answers are about this vendor only.
  afterDelete: (ctx, id, gone) => [
    // Their attached files' links first (the files, referenced by nothing, go with upkeep).
    ctx.db
      .delete(vendorQuestionnaireFiles)
      .where(
        and(
          inArray(
            vendorQuestionnaireFiles.questionnaire_id,
            ctx.db
              .select({ id: vendorQuestionnaires.id })
              .from(vendorQuestionnaires)
              .where(eq(vendorQuestionnaires.vendor_id, id)),
          ),
          gone,
        ),
      ),
    ctx.db.delete(vendorQuestionnaires).where(and(eq(vendorQuestionnaires.vendor_id, id), gone)),
  ],
  hints: {
    list: 'Due for assessment: filter.assessment_due_before (e.g. today).',
    delete: 'the questionnaires sent to it go with it',
    get: 'Everything about one vendor: category, tier, owners, certifications and its security documents.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Slack',
    description: 'Team chat',
    category: 'COLLABORATION',
    website_url: 'https://slack.com',
    certifications: ['SOC 2 Type II', 'ISO 27001'],
    countries: ['US'],
    tier: 'HIGH',
    data_access: 'PERSONAL',
    status: 'ACTIVE',
    renewal_on: '2027-03-01',
    sub_processor: true,
  },
};
