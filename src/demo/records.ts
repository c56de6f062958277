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

/** The key of the account the demo is seeded for (a task's assignee): addDemoRecords knows its id. */
export const DEMO_USER = 'demo-user';
const days = (count: number): DemoDays => ({ days: count });
/** A time this many hours from the seeding time (ISO, UTC): when an incident was detected. */
export interface DemoHours {
  hours: number;
}
const hours = (count: number): DemoHours => ({ hours: count });

/** A change made after a demo record is added, on a day relative to the seeding day: an update or an approval. */
export type DemoStep =
  | { at: DemoDays; update: Record<string, unknown> }
  | { at: DemoDays; approveBy: DemoRef };

export interface DemoRecord {
  kind: RegisterKind;
  /** How other demo records refer to this one (ref('cto')). */
  key?: string;
  values: Record<string, unknown>;
  /** The day it is added (default the seeding day). */
  at?: DemoDays;
  /** What happens to it next, in order (a document reviewed, approved, published). */
  steps?: DemoStep[];
}

/** A link made with the register's link tools (a measure that mitigates a risk). */
export interface DemoLink {
  kind: RegisterKind;
  /** The relation field the link tools change (`measure_ids`). */
  field: string;
  owner: string;
  target: string;
}

const REGISTER_RECORDS: readonly DemoRecord[] = [
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
      tier: 'CRITICAL',
      data_access: 'SPECIAL_CATEGORY',
      status: 'ACTIVE',
      contract_start_on: days(-900),
      renewal_on: days(45),
      sub_processor: true,
      review_interval_days: 365,
      last_reviewed_on: days(-400),
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
      tier: 'HIGH',
      data_access: 'SPECIAL_CATEGORY',
      status: 'ONBOARDING',
      sub_processor: true,
    },
  },
  {
    kind: 'vendor_assessment',
    values: {
      vendor_id: ref('aws'),
      assessor_id: ref('cto'),
      assessed_on: days(-760),
      result: 'APPROVED',
      tier: 'CRITICAL',
      expires_on: days(-395),
      summary: 'SOC 2 Type II report and ISO 27001 certificate read; no exceptions affecting us.',
    },
  },
  {
    kind: 'vendor_assessment',
    values: {
      vendor_id: ref('aws'),
      assessor_id: ref('cto'),
      assessed_on: days(-30),
      result: 'APPROVED_WITH_CONDITIONS',
      tier: 'CRITICAL',
      expires_on: days(335),
      summary:
        'Report read again; root account MFA and region restriction to be confirmed by the next review.',
    },
  },
  {
    kind: 'measure',
    key: 'mfa',
    values: {
      review_interval_days: 180,
      last_reviewed_on: days(-20),
      name: 'Enforce MFA on all SaaS accounts',
      category: 'Access control',
      state: 'IMPLEMENTED',
      owner_id: ref('cto'),
      test_interval_days: 90,
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
    key: 'training',
    values: {
      name: 'Security awareness training',
      category: 'People',
      state: 'NOT_STARTED',
      owner_id: ref('dpo'),
    },
  },
  {
    kind: 'measure',
    key: 'edr',
    values: {
      name: 'Endpoint protection on every laptop',
      category: 'Endpoints',
      state: 'IMPLEMENTED',
      owner_id: ref('cto'),
      // Declared IMPLEMENTED, but no evidence and never tested: its readiness says so.
      test_interval_days: 180,
    },
  },
  {
    kind: 'measure',
    key: 'scanning',
    values: {
      name: 'Weekly vulnerability scans with patch deadlines',
      category: 'Operations',
      state: 'IN_PROGRESS',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'measure',
    key: 'supplier-reviews',
    values: {
      name: 'Yearly security review of critical suppliers',
      category: 'Suppliers',
      state: 'IMPLEMENTED',
      owner_id: ref('dpo'),
    },
  },
  {
    kind: 'measure',
    key: 'logging',
    values: {
      name: 'Central logging with 12 months of retention',
      category: 'Operations',
      state: 'NOT_STARTED',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'measure',
    key: 'badges',
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
      review_interval_days: 90,
      last_reviewed_on: days(-30),
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
      review_interval_days: 90,
      last_reviewed_on: days(-95),
    },
  },
  {
    kind: 'risk',
    key: 'transfer',
    values: {
      name: 'Vendor processes health data outside the EU',
      category: 'Privacy',
      inherent_likelihood: 2,
      inherent_impact: 3,
      treatment: 'ACCEPT',
      note: 'Standard contractual clauses signed; reviewed yearly.',
      owner_id: ref('dpo'),
    },
  },
  {
    // Makes the risk above ACCEPTED; it runs out in three weeks, so the risk comes due soon.
    kind: 'risk_acceptance',
    values: {
      risk_id: ref('transfer'),
      approver_id: ref('cto'),
      rationale: 'Standard contractual clauses signed; the residual risk is within our appetite.',
      expires_on: days(21),
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
    kind: 'audit',
    key: 'internal-2026',
    values: {
      framework_id: ref('iso'),
      name: 'Internal audit 2026: access control and endpoints',
      reference: 'AUD-2026-01',
      audit_type: 'INTERNAL',
      state: 'COMPLETED',
      lead_auditor_id: ref('dpo'),
      planned_start_on: days(-45),
      planned_end_on: days(-44),
      actual_start_on: days(-44),
      actual_end_on: days(-43),
      requirement_ids: [ref('A.5.15'), ref('A.5.18'), ref('A.8.1'), ref('A.8.5')],
    },
  },
  {
    kind: 'asset',
    key: 'postgres',
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
    key: 'health-data',
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
    key: 'nc-access',
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
    key: 'nc-laptops',
    values: {
      reference_id: 'NC-2026-002',
      description: 'Two laptops without disk encryption.',
      audit_id: ref('internal-2026'),
      grade: 'MINOR',
      clause: 'A.8.1',
      requirement_ids: [ref('A.8.1')],
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
  {
    kind: 'task',
    values: {
      title: 'Run the overdue Q2 access review',
      description: 'Corrective action for NC-2026-001: review every account of the identity provider.',
      owner_id: ref('cto'),
      assignee_user_id: ref(DEMO_USER),
      due_on: days(-1),
      status: 'IN_PROGRESS',
      priority: 'HIGH',
      record_ids: [ref('nc-access')],
    },
  },
  {
    kind: 'task',
    values: {
      title: 'Roll out phishing-resistant MFA to contractors',
      owner_id: ref('cto'),
      assignee_user_id: ref(DEMO_USER),
      due_on: days(10),
      record_ids: [ref('phishing'), ref('mfa')],
    },
  },
  {
    kind: 'task',
    key: 'restore-test',
    values: {
      title: 'Test a restore of the patient database backups',
      owner_id: ref('cto'),
      due_on: days(30),
      priority: 'HIGH',
      record_ids: [ref('data-loss'), ref('backups')],
    },
  },
  {
    kind: 'task',
    values: {
      title: "Collect AWS's current SOC 2 report",
      owner_id: ref('dpo'),
      due_on: days(-15),
      status: 'DONE',
      priority: 'LOW',
      record_ids: [ref('aws')],
    },
  },
];

/**
 * The built-in catalogues the demo organization adopts before its records (src/demo/seed.ts): the framework's id
 * under `key`, and with `references`, each requirement's id under its reference (records and links name them so).
 * `excluded`: requirements it excludes, with why (its statement of applicability says so).
 */
export interface DemoCatalog {
  key: string;
  catalog: string;
  references: boolean;
  excluded: Record<string, string>;
  /** Accept the mappings the crosswalks propose into it once the demo's measures are mapped. */
  acceptProposals: boolean;
  /** Why every applicable requirement is in the statement of applicability; it is then published and approved. */
  applicable?: string;
}

/** Annex A controls the demo organization excludes, with why. */
const EXCLUDED: Record<string, string> = {
  'A.7.13': 'No equipment of our own is on premises: production runs on AWS, offices use leased devices.',
  'A.8.30': 'No development is outsourced; all engineers are employees.',
};

export const DEMO_CATALOGS: readonly DemoCatalog[] = [
  {
    key: 'iso',
    catalog: 'iso-27001-2022',
    references: true,
    excluded: EXCLUDED,
    acceptProposals: false,
    applicable:
      'Selected by the 2026 risk assessment: it applies to the platform, the patient data it holds and the offices.',
  },
  { key: 'soc', catalog: 'soc2-2017', references: false, excluded: {}, acceptProposals: true },
];

const ACCESS_POLICY_V1 = `# Access control policy

## Purpose
Access to Acme Health systems and data is granted on a need-to-know basis.

## Rules
- Every account belongs to one named person.
- Multi-factor authentication is required on every SaaS account.
- Access is reviewed every quarter by the system owner.
`;

const ACCESS_POLICY_V2 = `# Access control policy

## Purpose
Access to Acme Health systems and data is granted on a need-to-know basis.

## Rules
- Every account belongs to one named person; shared accounts are not allowed.
- Multi-factor authentication with a hardware key is required on every SaaS account.
- Access is reviewed every quarter by the system owner.
- Leavers lose all access on their last working day.
`;

/** Two policies: access control published twice (version 2 in force), backups in review. */
const DOCUMENTS: DemoRecord[] = [
  {
    kind: 'document',
    key: 'access-policy',
    at: days(-400),
    values: {
      title: 'Access control policy',
      type: 'POLICY',
      owner_id: ref('cto'),
      approver_ids: [ref('dpo')],
      requirement_ids: [ref('A.5.15'), ref('A.8.5')],
      measure_ids: [ref('mfa')],
      content: ACCESS_POLICY_V1,
      next_review_on: days(20),
    },
    steps: [
      { at: days(-398), update: { status: 'IN_REVIEW' } },
      { at: days(-395), approveBy: ref('dpo') },
      { at: days(-394), update: { status: 'PUBLISHED' } },
      { at: days(-40), update: { content: ACCESS_POLICY_V2 } },
      { at: days(-38), update: { status: 'IN_REVIEW' } },
      { at: days(-35), approveBy: ref('dpo') },
      { at: days(-34), update: { status: 'PUBLISHED' } },
    ],
  },
  {
    kind: 'document',
    key: 'backup-policy',
    at: days(-10),
    values: {
      title: 'Backup and restore policy',
      type: 'POLICY',
      owner_id: ref('cto'),
      approver_ids: [ref('cto'), ref('dpo')],
      requirement_ids: [ref('A.8.13')],
      measure_ids: [ref('backups')],
      content:
        '# Backup and restore policy\n\n- Production data is backed up daily, encrypted, to a second region.\n- A restore is tested every month.\n',
      next_review_on: days(355),
    },
    steps: [{ at: days(-3), update: { status: 'IN_REVIEW' } }],
  },
];

/** Evidence links for the measures: one current, one running out within 30 days, one expired and superseded. */
const EVIDENCE: DemoRecord[] = [
  {
    kind: 'evidence',
    values: {
      title: 'MFA enforcement policy in the identity provider',
      url: 'https://idp.acme-health.example/admin/policies/mfa',
      record_ids: [ref('mfa'), ref('A.8.5')],
      collected_on: days(-10),
      valid_until: days(355),
    },
  },
  {
    kind: 'evidence',
    key: 'backup-test-2025',
    values: {
      title: 'Backup restore test report (last year)',
      url: 'https://wiki.acme-health.example/ops/backup-restore-test-2025',
      record_ids: [ref('backups')],
      collected_on: days(-380),
      valid_until: days(-15),
    },
  },
  {
    kind: 'evidence',
    values: {
      title: 'Backup restore test report',
      url: 'https://wiki.acme-health.example/ops/backup-restore-test',
      record_ids: [ref('backups'), ref('A.8.13')],
      supersedes_id: ref('backup-test-2025'),
      collected_on: days(-5),
      valid_until: days(20),
    },
  },
  {
    kind: 'evidence',
    values: {
      title: 'Vulnerability scan summary',
      url: 'https://scanner.acme-health.example/reports/latest',
      record_ids: [ref('scanning')],
      collected_on: days(-2),
    },
  },
  {
    kind: 'evidence',
    values: {
      title: 'Critical supplier review summary',
      url: 'https://wiki.acme-health.example/security/supplier-reviews',
      record_ids: [ref('supplier-reviews')],
      collected_on: days(-400),
      valid_until: days(-28),
    },
  },
];

/**
 * Control tests: MFA inspected and effective (with its evidence and its policy in force, the measure is READY); the
 * supplier reviews' evidence expired (NOT_READY: evidence_expired); endpoint protection never tested.
 */
const CONTROL_TESTS: DemoRecord[] = [
  {
    kind: 'control_test',
    values: {
      measure_id: ref('mfa'),
      tester_id: ref('dpo'),
      tested_on: days(-30),
      period_from: days(-120),
      period_to: days(-31),
      method: 'INSPECTION',
      sample: '25 of 140 SaaS accounts, picked at random in the identity provider',
      result: 'EFFECTIVE',
    },
  },
  {
    kind: 'control_test',
    values: {
      measure_id: ref('supplier-reviews'),
      tester_id: ref('cto'),
      tested_on: days(-60),
      method: 'INQUIRY',
      sample: 'The 4 critical suppliers',
      result: 'EFFECTIVE',
      notes: 'Reviews held; the summary was not renewed since.',
    },
  },
];

/** Last quarter's management review, held: Grace chaired, Jean attended; it decided the restore test. */
const MANAGEMENT_REVIEWS: DemoRecord[] = [
  {
    kind: 'management_review',
    at: days(-20),
    values: {
      title: 'Management review, first half of the year',
      held_on: days(-20),
      status: 'HELD',
      period_from: days(-200),
      period_to: days(-21),
      chair_id: ref('cto'),
      attendee_ids: [ref('cto'), ref('dpo')],
      earlier_actions: 'First review of the ISMS: no earlier actions.',
      issue_changes: 'Two new hospital customers; the regional health data rules were updated.',
      nonconformities_summary:
        'NC-2026-001 (access reviews not run in Q2) is open; its corrective action is in progress.',
      audit_summary: 'The internal audit of access control found the access review gap above.',
      risk_summary:
        'Phishing and data loss remain the two risks above appetite; MFA roll-out and restore tests treat them.',
      improvement_opportunities: 'Automate access reviews with the identity provider.',
      outputs: 'The ISMS stays suitable; backups must be proven by a restore, not assumed.',
      decisions:
        'Fund a restore test of the patient database this quarter; keep the MFA roll-out as planned.',
      task_ids: [ref('restore-test')],
    },
  },
];

/**
 * The privacy registers and incidents: the patient records' processing (Art. 30) with its DPIA in review, an open
 * access request, an open personal data breach detected 20 hours ago (its GDPR 72-hour clock running) and a closed
 * phishing attempt without personal data (no clock).
 */
const PRIVACY: DemoRecord[] = [
  {
    kind: 'processing_activity',
    key: 'patient-records',
    values: {
      name: 'Patient records',
      role: 'PROCESSOR',
      controllers: 'The clinics using the platform, each for its own patients.',
      purposes: 'Keeping appointment history and clinical notes for the clinics that use the platform.',
      lawful_bases: ['CONTRACT'],
      special_category_condition: 'HEALTH_OR_SOCIAL_CARE',
      data_subject_categories: ['patients'],
      personal_data_categories: ['contact details', 'appointment history', 'health data'],
      recipients: 'Hosting provider (processor); the clinics themselves.',
      transfer_countries: ['US'],
      transfer_safeguard: 'STANDARD_CONTRACTUAL_CLAUSES',
      retention: '10 years after the last appointment, then deleted.',
      owner_id: ref('dpo'),
      vendor_ids: [ref('aws')],
      data_classification_ids: [ref('health-data')],
      measure_ids: [ref('mfa'), ref('backups'), ref('logging')],
    },
  },
  {
    kind: 'processing_activity',
    values: {
      name: 'Payroll',
      purposes: 'Paying staff salaries and meeting tax and social security obligations.',
      lawful_bases: ['CONTRACT', 'LEGAL_OBLIGATION'],
      data_subject_categories: ['employees'],
      personal_data_categories: ['identity', 'bank details', 'salary'],
      retention: '5 years after the end of employment.',
      owner_id: ref('cto'),
    },
  },
  {
    kind: 'dpia',
    values: {
      title: 'Patient records platform',
      description: 'Health data of patients processed at large scale for the clinics.',
      status: 'IN_REVIEW',
      screening_criteria: ['SENSITIVE_OR_HIGHLY_PERSONAL_DATA', 'LARGE_SCALE', 'VULNERABLE_DATA_SUBJECTS'],
      necessity: 'Only what the clinics need to follow up appointments is kept; access is per clinic.',
      dpo_advice: 'Proceed once the encryption of backups is verified.',
      owner_id: ref('dpo'),
      approver_id: ref('cto'),
      processing_activity_ids: [ref('patient-records')],
      risk_ids: [ref('data-loss')],
      measure_ids: [ref('backups')],
    },
  },
  {
    kind: 'data_subject_request',
    values: {
      reference: 'DSR-0001',
      request_type: 'ACCESS',
      received_on: days(-12),
      identity_verified_on: days(-11),
      verification_method: "Reply from the account's email address",
      status: 'IN_PROGRESS',
      owner_id: ref('dpo'),
      processing_activity_ids: [ref('patient-records')],
    },
  },
  // The quarter's access review of production: Grace reviews the accounts of the database cluster and AWS; one
  // entry decided (kept), one to revoke, two still open.
  {
    kind: 'access_review',
    key: 'q4-access-review',
    at: days(-10),
    values: {
      name: 'Production access review, this quarter',
      description: 'Who can reach patient data in production: database accounts and the AWS console.',
      status: 'IN_PROGRESS',
      period_start: days(-100),
      period_end: days(-10),
      due_on: days(14),
      owner_id: ref('cto'),
      asset_ids: [ref('postgres')],
      vendor_ids: [ref('aws')],
      reviewer_ids: [ref('cto')],
    },
  },
  {
    kind: 'access_review_entry',
    at: days(-10),
    values: {
      access_review_id: ref('q4-access-review'),
      account: 'grace@acme-health.example',
      person_id: ref('cto'),
      system: 'AWS console',
      access_level: 'AdministratorAccess',
      reviewer_id: ref('cto'),
    },
    steps: [
      { at: days(-3), update: { decision: 'KEEP', decision_comment: 'Runs the platform; MFA enforced.' } },
    ],
  },
  {
    kind: 'access_review_entry',
    at: days(-10),
    values: {
      access_review_id: ref('q4-access-review'),
      account: 'contractor-2024',
      system: 'Production PostgreSQL cluster',
      access_level: 'read_write',
      reviewer_id: ref('cto'),
    },
    steps: [
      {
        at: days(-2),
        update: {
          decision: 'REVOKE',
          decision_comment: 'Contract ended in the summer; account left behind.',
        },
      },
    ],
  },
  {
    kind: 'access_review_entry',
    at: days(-10),
    values: {
      access_review_id: ref('q4-access-review'),
      account: 'jean@acme-health.example',
      person_id: ref('dpo'),
      system: 'Production PostgreSQL cluster',
      access_level: 'read_only',
      reviewer_id: ref('cto'),
    },
  },
  {
    kind: 'access_review_entry',
    at: days(-10),
    values: {
      access_review_id: ref('q4-access-review'),
      account: 'backup-service',
      system: 'AWS console',
      access_level: 'S3 write to the backup bucket',
      reviewer_id: ref('cto'),
    },
  },
  {
    kind: 'incident',
    values: {
      title: 'Laptop with a patient export stolen',
      description:
        "An engineer's laptop was stolen from a car; it held a CSV export of one clinic's appointments.",
      detected_at: hours(-20),
      occurred_at: hours(-30),
      owner_id: ref('cto'),
      severity: 'HIGH',
      category: 'LOST_OR_STOLEN_DEVICE',
      personal_data: true,
      affected_people: 1200,
      asset_ids: [ref('postgres')],
      data_classification_ids: [ref('health-data')],
      processing_activity_ids: [ref('patient-records')],
      risk_ids: [ref('data-loss')],
    },
  },
  {
    kind: 'incident',
    values: {
      title: 'Phishing email reported by staff',
      detected_at: hours(-24 * 20),
      owner_id: ref('cto'),
      severity: 'LOW',
      category: 'PHISHING',
      status: 'CLOSED',
      root_cause: 'A spoofed invoice; no one entered credentials.',
      lessons_learned: 'Keep the monthly phishing drill.',
      risk_ids: [ref('phishing')],
    },
  },
];

export const DEMO_RECORDS: readonly DemoRecord[] = [
  ...REGISTER_RECORDS,
  ...PRIVACY,
  ...DOCUMENTS,
  ...EVIDENCE,
  ...CONTROL_TESTS,
  ...MANAGEMENT_REVIEWS,
];

/** A result of an audit's checklist (recordAuditChecklistResult), recorded once the records are in. */
export interface DemoChecklistResult {
  audit: string;
  requirement: string;
  result: string;
  notes: string;
  nonconformity?: string;
}

/** The internal audit's checklist: two controls conforming, an observation, and the laptops' finding. */
export const DEMO_CHECKLIST: readonly DemoChecklistResult[] = [
  {
    audit: 'internal-2026',
    requirement: 'A.5.15',
    result: 'CONFORMING',
    notes: 'Access control policy approved; roles mapped in the identity provider.',
  },
  {
    audit: 'internal-2026',
    requirement: 'A.5.18',
    result: 'OBSERVATION',
    notes: 'Leavers removed within 3 days, but the Q2 review was late (NC-2026-001).',
  },
  {
    audit: 'internal-2026',
    requirement: 'A.8.1',
    result: 'NONCONFORMITY',
    notes: 'Sample of 25 laptops: two without disk encryption.',
    nonconformity: 'nc-laptops',
  },
  {
    audit: 'internal-2026',
    requirement: 'A.8.5',
    result: 'CONFORMING',
    notes: 'MFA enforced for every account sampled.',
  },
];

/** Which demo measures cover which controls: MFA is implemented, backups in progress, training not started. */
const ANNEX_A_MAPPING: [measure: string, controls: string[]][] = [
  ['mfa', ['A.5.15', 'A.5.17', 'A.8.2', 'A.8.5']],
  ['backups', ['A.5.30', 'A.8.13', 'A.8.24']],
  ['training', ['A.6.3', 'A.5.10']],
  ['badges', ['A.7.2']],
  ['edr', ['A.8.1', 'A.8.7', 'A.7.9']],
  ['scanning', ['A.8.8', 'A.5.7']],
  ['supplier-reviews', ['A.5.19', 'A.5.23']],
  ['logging', ['A.8.15']],
];

export const DEMO_LINKS: readonly DemoLink[] = [
  ...ANNEX_A_MAPPING.flatMap(([measure, controls]) =>
    controls.map((control) => ({
      kind: 'requirement' as const,
      field: 'measure_ids',
      owner: control,
      target: measure,
    })),
  ),
  { kind: 'risk', field: 'measure_ids', owner: 'phishing', target: 'mfa' },
  { kind: 'risk', field: 'measure_ids', owner: 'data-loss', target: 'backups' },
];
