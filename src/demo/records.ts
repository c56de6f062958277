// The demo organization's records, as data: each names its register, a key other records refer to it by, and the
// arguments of its add tool; dates are days from the day the demo is seeded.
import type { RegisterKind } from '../tools/index.ts';

/** The id of the demo record with this key. */
export interface DemoRef {
  ref: string;
}
/** A date this many days from the seeding day (YYYY-MM-DD). */
export interface DemoDays {
  days: number;
}

const ref = (key: string): DemoRef => ({ ref: key });
const days = (count: number): DemoDays => ({ days: count });

export interface DemoRecord {
  kind: RegisterKind;
  /** How other demo records refer to this one (ref('cto')). */
  key?: string;
  values: Record<string, unknown>;
}

/** A link made with the register's link tools (a measure that mitigates a risk). */
export interface DemoLink {
  kind: RegisterKind;
  /** The relation field the link tools change (`measure_ids`). */
  field: string;
  owner: string;
  target: string;
}

export const DEMO_RECORDS: readonly DemoRecord[] = [
  {
    kind: 'person',
    key: 'cto',
    values: { full_name: 'Grace Hopper', email: 'grace@acme-health.example', position: 'CTO' },
  },
  {
    kind: 'person',
    key: 'dpo',
    values: {
      full_name: 'Jean Dupont',
      email: 'jean@acme-health.example',
      position: 'Data Protection Officer',
    },
  },
  {
    kind: 'person',
    values: { full_name: 'Backup Bot', email: 'backup-bot@acme-health.example', kind: 'SERVICE_ACCOUNT' },
  },
  {
    kind: 'person',
    values: {
      full_name: 'Priya Raman',
      email: 'priya@contractor.example',
      kind: 'CONTRACTOR',
      position: 'Security consultant',
      contract_start_date: days(-60),
      contract_end_date: days(120),
    },
  },
  {
    kind: 'vendor',
    key: 'aws',
    values: {
      name: 'Amazon Web Services',
      description: 'Hosting of the production platform (eu-central-1).',
      category: 'CLOUD_PROVIDER',
      legal_name: 'Amazon Web Services EMEA SARL',
      website_url: 'https://aws.amazon.com',
      privacy_policy_url: 'https://aws.amazon.com/privacy/',
      data_processing_agreement_url: 'https://aws.amazon.com/compliance/gdpr-center/',
      certifications: ['SOC 2 Type II', 'ISO 27001', 'ISO 27017'],
      countries: ['DE', 'IE'],
      security_owner_id: ref('cto'),
    },
  },
  {
    kind: 'vendor',
    key: 'slack',
    values: {
      name: 'Slack',
      description: 'Internal chat; no patient data allowed.',
      category: 'COLLABORATION',
      website_url: 'https://slack.com',
      certifications: ['SOC 2 Type II'],
      countries: ['US'],
      business_owner_id: ref('cto'),
    },
  },
  {
    kind: 'vendor',
    values: {
      name: 'Zendesk',
      description: 'Customer support tickets, may contain health data.',
      category: 'CUSTOMER_SUPPORT',
      website_url: 'https://www.zendesk.com',
      certifications: ['ISO 27001'],
      countries: ['US', 'IE'],
      business_owner_id: ref('dpo'),
    },
  },
  {
    kind: 'measure',
    key: 'mfa',
    values: {
      name: 'Enforce MFA on all SaaS accounts',
      category: 'Access control',
      state: 'IMPLEMENTED',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'measure',
    key: 'backups',
    values: {
      name: 'Encrypted daily backups with restore tests',
      category: 'Operations',
      state: 'IN_PROGRESS',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'measure',
    values: {
      name: 'Security awareness training',
      category: 'People',
      state: 'NOT_STARTED',
      owner_id: ref('dpo'),
    },
  },
  {
    kind: 'measure',
    values: { name: 'Physical access badges', category: 'Physical', state: 'NOT_APPLICABLE' },
  },
  {
    kind: 'risk',
    key: 'phishing',
    values: {
      name: 'Phishing leads to account takeover',
      description: 'An employee enters credentials on a fake login page.',
      category: 'Security',
      inherent_likelihood: 4,
      inherent_impact: 5,
      residual_likelihood: 2,
      residual_impact: 4,
      status: 'IN_TREATMENT',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'risk',
    key: 'data-loss',
    values: {
      name: 'Loss of patient records after a ransomware attack',
      category: 'Security',
      inherent_likelihood: 3,
      inherent_impact: 5,
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'risk',
    values: {
      name: 'Vendor processes health data outside the EU',
      category: 'Privacy',
      inherent_likelihood: 2,
      inherent_impact: 3,
      treatment: 'ACCEPT',
      status: 'ACCEPTED',
      note: 'Standard contractual clauses signed; reviewed yearly.',
      owner_id: ref('dpo'),
    },
  },
  {
    kind: 'obligation',
    values: {
      area: 'Data protection',
      source: 'GDPR Art. 30',
      requirement: 'Keep a record of processing activities',
      regulator: 'CNIL',
      status: 'PARTIALLY_COMPLIANT',
      owner_id: ref('dpo'),
      due_date: days(-10),
    },
  },
  {
    kind: 'obligation',
    values: {
      area: 'Data protection',
      source: 'GDPR Art. 33',
      requirement: 'Notify the supervisory authority of a personal data breach within 72 hours',
      regulator: 'CNIL',
      status: 'COMPLIANT',
      owner_id: ref('dpo'),
      last_review_date: days(-30),
    },
  },
  {
    kind: 'obligation',
    values: {
      area: 'Customer contracts',
      source: 'MSA with St. Mary Hospital, clause 14',
      requirement: 'Deliver the annual penetration test report to the customer',
      type: 'CONTRACTUAL',
      due_date: days(45),
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'framework',
    key: 'iso',
    values: {
      name: 'ISO/IEC 27001',
      version: '2022',
      description: 'Information security management systems.',
    },
  },
  {
    kind: 'framework',
    values: { name: 'SOC 2', version: '2017 TSC', description: 'Trust Services Criteria.' },
  },
  {
    kind: 'audit',
    key: 'stage-1',
    values: {
      framework_id: ref('iso'),
      name: 'ISO 27001 stage 1 audit',
      auditor: 'BSI',
      state: 'IN_PROGRESS',
      scope: 'Production platform and support operations',
      valid_from: days(-5),
      valid_until: days(3 * 365),
    },
  },
  {
    kind: 'asset',
    values: {
      name: 'Production PostgreSQL cluster',
      asset_type: 'VIRTUAL',
      amount: 3,
      owner_id: ref('cto'),
      data_types_stored: 'Patient records, appointment history',
      vendor_ids: [ref('aws')],
    },
  },
  {
    kind: 'asset',
    values: { name: 'Employee laptops', asset_type: 'PHYSICAL', amount: 118, owner_id: ref('cto') },
  },
  {
    kind: 'data_classification',
    values: {
      name: 'Patient health data',
      classification: 'SECRET',
      owner_id: ref('dpo'),
      vendor_ids: [ref('aws')],
    },
  },
  {
    kind: 'data_classification',
    values: { name: 'Internal chat', classification: 'INTERNAL', vendor_ids: [ref('slack')] },
  },
  {
    kind: 'nonconformity',
    values: {
      reference_id: 'NC-2026-001',
      description: 'Quarterly access reviews were not performed in Q2.',
      audit_id: ref('stage-1'),
      date_identified: days(-20),
      root_cause: 'No owner assigned to the review.',
      owner_id: ref('cto'),
      due_date: days(-2),
    },
  },
  {
    kind: 'nonconformity',
    values: {
      reference_id: 'NC-2026-002',
      description: 'Two laptops without disk encryption.',
      audit_id: ref('stage-1'),
      owner_id: ref('cto'),
      due_date: days(14),
    },
  },
  {
    kind: 'continual_improvement',
    values: {
      reference_id: 'CI-2026-001',
      description: 'Automate access reviews with the identity provider.',
      source: 'NC-2026-001',
      priority: 'HIGH',
      owner_id: ref('cto'),
      target_date: days(90),
    },
  },
];

export const DEMO_LINKS: readonly DemoLink[] = [
  { kind: 'risk', field: 'measure_ids', owner: 'phishing', target: 'mfa' },
  { kind: 'risk', field: 'measure_ids', owner: 'data-loss', target: 'backups' },
];
