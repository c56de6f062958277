// Records of processing activities (GDPR Art. 30): what personal data is processed, why, on which lawful basis, for
// whom, by which processors, where it goes and for how long, and the measures that protect it.
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  processingActivities,
  processingActivityDataClassifications,
  processingActivityMeasures,
  processingActivityVendors,
} from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { descriptionField, linkedFilter, nameField, ownerField, ownerFilter } from '../common-fields.ts';
import { evidenceIdsRelation } from '../evidence.ts';
import { caseInsensitiveEnum, countryCode, longText, shortText } from '../fields.ts';
import {
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  required,
  withDefault,
} from '../registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from '../reviews.ts';
import {
  LAWFUL_BASES,
  PROCESSING_ROLES,
  SPECIAL_CATEGORY_CONDITIONS,
  TRANSFER_SAFEGUARDS,
} from '../states.ts';

const role = caseInsensitiveEnum(PROCESSING_ROLES).describe(
  'The organization acts as CONTROLLER, JOINT_CONTROLLER or PROCESSOR for it (default CONTROLLER).',
);
const lawfulBasis = caseInsensitiveEnum(LAWFUL_BASES);
const condition = caseInsensitiveEnum(SPECIAL_CATEGORY_CONDITIONS).describe(
  `GDPR Art. 9(2) condition, when special categories are processed: ${SPECIAL_CATEGORY_CONDITIONS.join(', ')} ((a) to (j)).`,
);
const safeguard = caseInsensitiveEnum(TRANSFER_SAFEGUARDS).describe(
  `Safeguard of transfers outside the EEA: ${TRANSFER_SAFEGUARDS.join(', ')}.`,
);
const textList = (what: string, example: string) =>
  z.array(shortText(200)).max(50).describe(`${what}, e.g. ${example}.`);

/** A transfer outside the EEA needs its safeguard, and a processor names the controllers it works for (Art. 30(2)(a)). */
function checkRecord(next: Row): void {
  const countries = (next.transfer_countries as string[] | null) ?? [];
  if (countries.length > 0 && !next.transfer_safeguard)
    throw new AppError(
      'invalid_arguments',
      `Transfers to ${countries.join(', ')} need their safeguard: set transfer_safeguard (${TRANSFER_SAFEGUARDS.join(', ')}).`,
      { path: 'transfer_safeguard' },
    );
  if (next.role === 'PROCESSOR' && !next.controllers)
    throw new AppError(
      'invalid_arguments',
      'A PROCESSOR record names the controllers it processes for (Art. 30(2)(a)): set controllers.',
      { path: 'controllers' },
    );
}

export const processingActivitySpec: RegisterSpec = {
  kind: 'processing_activity',
  prefix: 'pra',
  label: 'processing activity',
  labelPlural: 'processing activities',
  noun: 'ProcessingActivity',
  nounPlural: 'ProcessingActivities',
  key: 'processing_activity',
  listKey: 'processing_activities',
  table: processingActivities,
  toolset: 'privacy',
  about:
    'A processing activity is an entry of the GDPR Art. 30 record: personal data processed for a purpose, its lawful basis, people and data concerned, processors, transfers and retention.',
  fields: {
    name: nameField('Payroll'),
    description: descriptionField('processing activity'),
    role: withDefault(role, 'CONTROLLER'),
    controllers: optional(
      longText(2000).describe(
        'For a PROCESSOR: the controllers it processes for, with their contact details.',
      ),
      undefined,
      { label: 'Controllers' },
    ),
    purposes: required(
      longText(5000, 1).describe('Why the data is processed, e.g. "Paying staff salaries".'),
    ),
    lawful_bases: withDefault(
      z
        .array(lawfulBasis)
        .max(LAWFUL_BASES.length)
        .describe(`GDPR Art. 6(1) bases: ${LAWFUL_BASES.join(', ')} ((a) to (f)).`),
      [],
      { label: 'Lawful bases' },
    ),
    special_category_condition: optional(condition, undefined, {
      label: 'Special category condition (Art. 9(2))',
    }),
    data_subject_categories: withDefault(textList('Categories of people', '["employees", "customers"]'), [], {
      label: 'Data subjects',
    }),
    personal_data_categories: withDefault(
      textList('Categories of personal data', '["bank details", "health data"]'),
      [],
      { label: 'Personal data' },
    ),
    recipients: optional(
      longText(2000).describe(
        'Categories of recipients the data is disclosed to (processors are linked as vendor_ids).',
      ),
      undefined,
      { label: 'Recipients' },
    ),
    transfer_countries: withDefault(
      z
        .array(countryCode)
        .max(250)
        .describe('Countries outside the EEA the data goes to (ISO 3166-1 alpha-2).'),
      [],
      { label: 'Transfers to' },
    ),
    transfer_safeguard: optional(safeguard, undefined, { label: 'Transfer safeguard' }),
    retention: optional(
      longText(2000).describe(
        'How long the data is kept, or the rule, e.g. "10 years after the end of employment".',
      ),
      undefined,
      { label: 'Retention' },
    ),
    owner_id: ownerField(),
    ...reviewFields(),
  },
  relations: [
    {
      field: 'vendor_ids',
      table: processingActivityVendors,
      ownerColumn: processingActivityVendors.processing_activity_id,
      targetColumn: processingActivityVendors.vendor_id,
      organizationColumn: processingActivityVendors.organization_id,
      target: 'vendor',
      writable: true,
      description: 'Vendors processing the data for it: processors and sub-processors (`ven_...`).',
      label: 'Processors',
      hint: 'Vendors that process this data for you (processors, sub-processors).',
    },
    {
      field: 'data_classification_ids',
      table: processingActivityDataClassifications,
      ownerColumn: processingActivityDataClassifications.processing_activity_id,
      targetColumn: processingActivityDataClassifications.data_classification_id,
      organizationColumn: processingActivityDataClassifications.organization_id,
      target: 'data_classification',
      writable: true,
      description: 'Data classifications of the personal data (`dcl_...`).',
      label: 'Data classifications',
      hint: 'How the personal data is classified.',
    },
    {
      field: 'measure_ids',
      table: processingActivityMeasures,
      ownerColumn: processingActivityMeasures.processing_activity_id,
      targetColumn: processingActivityMeasures.measure_id,
      organizationColumn: processingActivityMeasures.organization_id,
      target: 'measure',
      writable: true,
      description: 'Security measures protecting the data (Art. 30(1)(g)) (`msr_...`).',
      label: 'Security measures',
      hint: 'The measures that protect this data.',
    },
    evidenceIdsRelation(),
  ],
  search: [processingActivities.name, processingActivities.description, processingActivities.purposes],
  filters: {
    role: enumFilter(role, processingActivities.role, 'Any of these roles.'),
    transfers: filter(
      z.boolean().describe('true: only those transferring data outside the EEA; false: none.'),
      (value) =>
        value
          ? sql`${processingActivities.transfer_countries} <> '[]'`
          : sql`${processingActivities.transfer_countries} = '[]'`,
    ),
    owner_id: ownerFilter(processingActivities.owner_id),
    vendor_id: linkedFilter(
      {
        ownerId: processingActivities.id,
        owner: processingActivityVendors.processing_activity_id,
        target: processingActivityVendors.vendor_id,
      },
      { prefix: 'ven', what: 'Vendor' },
      'Only those this vendor processes for (`ven_...`).',
    ),
    ...reviewFilters(REVIEW_CYCLES.processing_activity),
  },
  orderFields: {
    name: { column: processingActivities.name },
    ...reviewOrderField(processingActivities.next_review_on),
  },
  review: REVIEW_CYCLES.processing_activity,
  prepare: (next) => checkRecord(next),
  hints: {
    get: 'Its purposes, lawful basis, data, recipients and retention.',
    update: 'Change its retention, lawful bases, processors, transfers or other fields.',
    add: 'One entry of the Art. 30 record: link processors with vendor_ids and protections with measure_ids.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Payroll',
    purposes: 'Paying salaries and meeting tax and social security duties',
    lawful_bases: ['CONTRACT', 'LEGAL_OBLIGATION'],
    data_subject_categories: ['employees'],
    personal_data_categories: ['identity', 'bank details', 'salary'],
    retention: '10 years after the end of employment',
  },
};
