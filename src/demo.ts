// Demo data: a user, an organization with realistic records of every kind (added through the tool map), a token.
import { count } from 'drizzle-orm';
import { createOrganization, createUser } from './accounts.ts';
import type { Principal } from './auth/principal.ts';
import type { TokenService } from './auth/tokens.ts';
import type { Db } from './db/client.ts';
import { users } from './db/schema.ts';
import { randomBase32 } from './ids.ts';
import { TOOLS } from './tools/index.ts';
import { contextOutsideSeam } from './tools/types.ts';

export interface DemoAccount {
  email: string;
  password: string;
  organization_id: string;
  token: string;
}

export async function isEmptyDatabase(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

function isoDate(base: Date, days: number): string {
  return new Date(base.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function seedDemo(db: Db, tokens: TokenService, now: () => Date): Promise<DemoAccount> {
  const email = `demo-${randomBase32(6)}@example.com`;
  const password = `demo-${randomBase32(16)}`;
  const user = await createUser(db, now(), { email, password, name: 'Demo Compliance Lead' });
  const organization = await createOrganization(db, now(), {
    name: 'Acme Health (demo)',
    description: 'A 120-person health-tech SaaS preparing for ISO 27001 certification.',
    ownerId: user.id,
  });
  const principal: Principal = {
    tokenId: 'tok_demo_seed',
    userId: user.id,
    scope: 'read_write',
    roles: { [organization.id]: 'OWNER' },
    expiresAt: null,
  };
  const ctx = contextOutsideSeam(db, principal, now, 'cli');
  const org = organization.id;
  async function add(tool: string, args: Record<string, unknown>): Promise<string> {
    const definition = TOOLS.get(tool);
    if (!definition) throw new Error(`No tool ${tool}`);
    const result = await definition.run(ctx, definition.input.parse({ organization_id: org, ...args }));
    const record = Object.values(result)[0] as { id: string };
    return record.id;
  }
  const today = now();

  const cto = await add('addPerson', {
    full_name: 'Grace Hopper',
    email: 'grace@acme-health.example',
    position: 'CTO',
  });
  const dpo = await add('addPerson', {
    full_name: 'Jean Dupont',
    email: 'jean@acme-health.example',
    position: 'Data Protection Officer',
  });
  await add('addPerson', {
    full_name: 'Backup Bot',
    email: 'backup-bot@acme-health.example',
    kind: 'SERVICE_ACCOUNT',
  });
  await add('addPerson', {
    full_name: 'Priya Raman',
    email: 'priya@contractor.example',
    kind: 'CONTRACTOR',
    position: 'Security consultant',
    contract_start_date: isoDate(today, -60),
    contract_end_date: isoDate(today, 120),
  });

  const aws = await add('addVendor', {
    name: 'Amazon Web Services',
    description: 'Hosting of the production platform (eu-central-1).',
    category: 'CLOUD_PROVIDER',
    legal_name: 'Amazon Web Services EMEA SARL',
    website_url: 'https://aws.amazon.com',
    privacy_policy_url: 'https://aws.amazon.com/privacy/',
    data_processing_agreement_url: 'https://aws.amazon.com/compliance/gdpr-center/',
    certifications: ['SOC 2 Type II', 'ISO 27001', 'ISO 27017'],
    countries: ['DE', 'IE'],
    security_owner_id: cto,
  });
  const slack = await add('addVendor', {
    name: 'Slack',
    description: 'Internal chat; no patient data allowed.',
    category: 'COLLABORATION',
    website_url: 'https://slack.com',
    certifications: ['SOC 2 Type II'],
    countries: ['US'],
    business_owner_id: cto,
  });
  await add('addVendor', {
    name: 'Zendesk',
    description: 'Customer support tickets, may contain health data.',
    category: 'CUSTOMER_SUPPORT',
    website_url: 'https://www.zendesk.com',
    certifications: ['ISO 27001'],
    countries: ['US', 'IE'],
    business_owner_id: dpo,
  });

  const mfa = await add('addMeasure', {
    name: 'Enforce MFA on all SaaS accounts',
    category: 'Access control',
    state: 'IMPLEMENTED',
    owner_id: cto,
  });
  const backups = await add('addMeasure', {
    name: 'Encrypted daily backups with restore tests',
    category: 'Operations',
    state: 'IN_PROGRESS',
    owner_id: cto,
  });
  await add('addMeasure', {
    name: 'Security awareness training',
    category: 'People',
    state: 'NOT_STARTED',
    owner_id: dpo,
  });
  await add('addMeasure', { name: 'Physical access badges', category: 'Physical', state: 'NOT_APPLICABLE' });

  const phishing = await add('addRisk', {
    name: 'Phishing leads to account takeover',
    description: 'An employee enters credentials on a fake login page.',
    category: 'Security',
    inherent_likelihood: 4,
    inherent_impact: 5,
    residual_likelihood: 2,
    residual_impact: 4,
    status: 'IN_TREATMENT',
    owner_id: cto,
  });
  const dataLoss = await add('addRisk', {
    name: 'Loss of patient records after a ransomware attack',
    category: 'Security',
    inherent_likelihood: 3,
    inherent_impact: 5,
    owner_id: cto,
  });
  await add('addRisk', {
    name: 'Vendor processes health data outside the EU',
    category: 'Privacy',
    inherent_likelihood: 2,
    inherent_impact: 3,
    treatment: 'ACCEPT',
    status: 'ACCEPTED',
    note: 'Standard contractual clauses signed; reviewed yearly.',
    owner_id: dpo,
  });
  const link = TOOLS.get('linkRiskMeasure');
  if (link) {
    await link.run(ctx, { risk_id: phishing, measure_id: mfa });
    await link.run(ctx, { risk_id: dataLoss, measure_id: backups });
  }

  await add('addObligation', {
    area: 'Data protection',
    source: 'GDPR Art. 30',
    requirement: 'Keep a record of processing activities',
    regulator: 'CNIL',
    status: 'PARTIALLY_COMPLIANT',
    owner_id: dpo,
    due_date: isoDate(today, -10),
  });
  await add('addObligation', {
    area: 'Data protection',
    source: 'GDPR Art. 33',
    requirement: 'Notify the supervisory authority of a personal data breach within 72 hours',
    regulator: 'CNIL',
    status: 'COMPLIANT',
    owner_id: dpo,
    last_review_date: isoDate(today, -30),
  });
  await add('addObligation', {
    area: 'Customer contracts',
    source: 'MSA with St. Mary Hospital, clause 14',
    requirement: 'Deliver the annual penetration test report to the customer',
    type: 'CONTRACTUAL',
    due_date: isoDate(today, 45),
    owner_id: cto,
  });

  const iso = await add('addFramework', {
    name: 'ISO/IEC 27001',
    version: '2022',
    description: 'Information security management systems.',
  });
  await add('addFramework', { name: 'SOC 2', version: '2017 TSC', description: 'Trust Services Criteria.' });

  const audit = await add('addAudit', {
    framework_id: iso,
    name: 'ISO 27001 stage 1 audit',
    auditor: 'BSI',
    state: 'IN_PROGRESS',
    scope: 'Production platform and support operations',
    valid_from: isoDate(today, -5),
    valid_until: isoDate(today, 3 * 365),
  });

  await add('addAsset', {
    name: 'Production PostgreSQL cluster',
    asset_type: 'VIRTUAL',
    amount: 3,
    owner_id: cto,
    data_types_stored: 'Patient records, appointment history',
    vendor_ids: [aws],
  });
  await add('addAsset', { name: 'Employee laptops', asset_type: 'PHYSICAL', amount: 118, owner_id: cto });

  await add('addDataClassification', {
    name: 'Patient health data',
    classification: 'SECRET',
    owner_id: dpo,
    vendor_ids: [aws],
  });
  await add('addDataClassification', {
    name: 'Internal chat',
    classification: 'INTERNAL',
    vendor_ids: [slack],
  });

  await add('addNonconformity', {
    reference_id: 'NC-2026-001',
    description: 'Quarterly access reviews were not performed in Q2.',
    audit_id: audit,
    date_identified: isoDate(today, -20),
    root_cause: 'No owner assigned to the review.',
    owner_id: cto,
    due_date: isoDate(today, -2),
  });
  await add('addNonconformity', {
    reference_id: 'NC-2026-002',
    description: 'Two laptops without disk encryption.',
    audit_id: audit,
    owner_id: cto,
    due_date: isoDate(today, 14),
  });

  await add('addContinualImprovement', {
    reference_id: 'CI-2026-001',
    description: 'Automate access reviews with the identity provider.',
    source: 'NC-2026-001',
    priority: 'HIGH',
    owner_id: cto,
    target_date: isoDate(today, 90),
  });

  const token = await tokens.create({
    userId: user.id,
    name: 'Demo token (created at first start)',
    scope: 'read_write',
    organizationIds: null,
    expiresAt: new Date(today.getTime() + 90 * 86_400_000).toISOString(),
  });
  return { email, password, organization_id: org, token: token.token };
}
