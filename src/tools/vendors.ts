// Vendors: third parties that process the organization's data, with their security documents.

import { z } from 'zod';
import { vendors } from '../db/schema.ts';
import { descriptionField, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, countryCode, httpUrl, shortText } from './fields.ts';
import { enumFilter, optional, type RegisterSpec, withDefault } from './registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import { VENDOR_CATEGORIES } from './states.ts';

const category = caseInsensitiveEnum(VENDOR_CATEGORIES).describe('Vendor category (default OTHER).');

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
    ...reviewFields(),
  },
  relations: [evidenceIdsRelation()],
  search: [vendors.name, vendors.description, vendors.legal_name],
  filters: {
    category: enumFilter(category, vendors.category, 'Any of these categories.'),
    business_owner_id: ownerFilter(vendors.business_owner_id, 'Business owner'),
    security_owner_id: ownerFilter(vendors.security_owner_id, 'Security owner'),
    ...reviewFilters(REVIEW_CYCLES.vendor),
  },
  orderFields: {
    name: { column: vendors.name },
    ...reviewOrderField(vendors.next_review_on),
  },
  review: REVIEW_CYCLES.vendor,
  example: {
    organization_id: 'org_...',
    name: 'Slack',
    description: 'Team chat',
    category: 'COLLABORATION',
    website_url: 'https://slack.com',
    certifications: ['SOC 2 Type II', 'ISO 27001'],
    countries: ['US'],
  },
};
