// Which columns each register page shows; everything else (tools, filters, fields) comes from the tool map's specs.
import { REGISTER_SPECS } from '../tools/index.ts';
import type { RegisterKind, RegisterSpec } from '../tools/register.ts';

export interface RegisterPage {
  kind: RegisterKind;
  /** URL segment: /orgs/<id>/<slug>. */
  slug: string;
  title: string;
  spec: RegisterSpec;
  /** The first column links to the record's page. */
  columns: readonly string[];
  /** Default sort when the person has not chosen one. */
  defaultOrder?: { field: string; direction: 'ASC' | 'DESC' };
}

const COLUMNS: Record<RegisterKind, { columns: string[]; defaultOrder?: RegisterPage['defaultOrder'] }> = {
  vendor: { columns: ['name', 'category', 'website_url', 'certifications', 'countries'] },
  risk: {
    columns: ['name', 'category', 'status', 'treatment', 'inherent_score', 'residual_score', 'owner_id'],
    defaultOrder: { field: 'residual_score', direction: 'DESC' },
  },
  measure: { columns: ['name', 'category', 'state', 'owner_id'] },
  obligation: { columns: ['requirement', 'source', 'type', 'status', 'due_date', 'overdue', 'owner_id'] },
  person: { columns: ['full_name', 'email', 'kind', 'position'] },
  framework: { columns: ['name', 'version', 'description'] },
  asset: { columns: ['name', 'asset_type', 'amount', 'owner_id', 'vendor_ids'] },
  data_classification: { columns: ['name', 'classification', 'owner_id', 'vendor_ids'] },
  nonconformity: { columns: ['reference_id', 'description', 'status', 'due_date', 'overdue', 'owner_id'] },
  continual_improvement: {
    columns: ['reference_id', 'description', 'status', 'priority', 'target_date', 'owner_id'],
  },
  audit: { columns: ['name', 'framework_id', 'state', 'valid_from', 'valid_until', 'auditor'] },
};

function titleOf(spec: RegisterSpec): string {
  return spec.labelPlural.charAt(0).toUpperCase() + spec.labelPlural.slice(1);
}

export const REGISTER_PAGES: readonly RegisterPage[] = REGISTER_SPECS.map((spec) => ({
  kind: spec.kind,
  slug: spec.labelPlural.replace(/\s+/g, '-'),
  title: titleOf(spec),
  spec,
  ...COLUMNS[spec.kind],
}));

export function registerPageBySlug(slug: string): RegisterPage | undefined {
  return REGISTER_PAGES.find((page) => page.slug === slug);
}

export function registerPageByKind(kind: RegisterKind): RegisterPage | undefined {
  return REGISTER_PAGES.find((page) => page.kind === kind);
}

/** "residual_score" -> "Residual score", "owner_id" -> "Owner", "vendor_ids" -> "Vendors". */
export function fieldLabel(field: string): string {
  const special: Record<string, string> = {
    owner_id: 'Owner',
    business_owner_id: 'Business owner',
    security_owner_id: 'Security owner',
    vendor_ids: 'Vendors',
    measure_ids: 'Measures',
    framework_id: 'Framework',
    audit_id: 'Audit',
    website_url: 'Website',
    privacy_policy_url: 'Privacy policy',
    data_processing_agreement_url: 'Data processing agreement',
    security_page_url: 'Security page',
    reference_id: 'Reference',
    id: 'Id',
    query: 'Search',
  };
  if (special[field]) return special[field];
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a person calls a record: its name, full name, reference or requirement, else its id. */
export function displayName(record: Record<string, unknown>): string {
  for (const key of ['name', 'full_name', 'reference_id', 'requirement']) {
    const value = record[key];
    if (typeof value === 'string' && value) return value;
  }
  return String(record.id);
}
