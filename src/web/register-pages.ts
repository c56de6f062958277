// The register pages: their URL slugs and columns; tools, filters, fields and labels come from the register specs.

import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import { REGISTER_SPECS, REGISTERS, type RegisterKind, type RegisterTools } from '../tools/index.ts';
import { addDays } from '../tools/overdue.ts';
import { registerSlug } from '../tools/registers/naming.ts';
import type { RegisterSpec } from '../tools/registers/spec.ts';
import type { Membership, WebEnv } from './context.ts';
import type { WebCalls } from './tool-calls.ts';

/** The window of "expiring soon" evidence, on its register and the home page. */
export const EXPIRING_DAYS = 30;

export interface RegisterPage {
  kind: RegisterKind;
  /** URL segment: /orgs/<id>/<slug>. */
  slug: string;
  title: string;
  spec: RegisterSpec;
  /** The register's tools (list, get, add, update, delete, links). */
  tools: RegisterTools;
  /** The first column links to the record's page. */
  columns: readonly string[];
  /** Default sort when the person has not chosen one. */
  defaultOrder?: { field: string; direction: 'ASC' | 'DESC' };
  /** Records the list leaves out until the person asks for them (closed risks), unless a filter names the field. */
  hiddenByDefault?: { field: string; values: string[]; label: string };
  /** Whether its records can be imported from a file (documents cannot: their versions do not travel in one). */
  importable?: boolean;
  /** Links to the list with filters set, beside the filter form (evidence expiring in 30 days). */
  quickFilters?: { label: string; filter(today: string): Record<string, string> }[];
}

const COLUMNS: Record<
  RegisterKind,
  Pick<RegisterPage, 'defaultOrder' | 'hiddenByDefault' | 'importable' | 'quickFilters'> & {
    columns: string[];
  }
> = {
  vendor: {
    columns: ['name', 'category', 'tier', 'status', 'data_access', 'renewal_on', 'sub_processor'],
    quickFilters: [
      {
        label: 'Due for assessment',
        filter: (today) => ({ assessment_due_before: today, status: 'ACTIVE' }),
      },
    ],
  },
  vendor_assessment: {
    columns: ['vendor_id', 'assessed_on', 'result', 'tier', 'assessor_id', 'expires_on'],
    defaultOrder: { field: 'assessed_on', direction: 'DESC' },
  },
  risk: {
    columns: [
      'name',
      'category',
      'status',
      'treatment',
      'inherent_score',
      'residual_score',
      'residual_level',
      'owner_id',
    ],
    defaultOrder: { field: 'residual_score', direction: 'DESC' },
    hiddenByDefault: { field: 'status', values: ['CLOSED'], label: 'closed risks' },
    quickFilters: [
      { label: 'Above the appetite', filter: () => ({ above_appetite: 'true' }) },
      { label: 'Acceptances due', filter: () => ({ acceptance_due: 'true' }) },
    ],
  },
  risk_acceptance: {
    columns: ['risk_id', 'accepted_level', 'approver_id', 'accepted_on', 'expires_on', 'status'],
    defaultOrder: { field: 'expires_on', direction: 'ASC' },
    importable: false,
  },
  measure: { columns: ['name', 'category', 'state', 'readiness', 'owner_id'] },
  control_test: {
    columns: ['measure_id', 'tested_on', 'method', 'result', 'tester_id', 'nonconformity_id'],
    defaultOrder: { field: 'tested_on', direction: 'DESC' },
  },
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
  requirement: {
    columns: ['reference', 'title', 'framework_id', 'applicability', 'implementation_status'],
    defaultOrder: { field: 'reference', direction: 'ASC' },
  },
  document: {
    columns: ['title', 'type', 'status', 'published_version', 'next_review_on', 'owner_id'],
    defaultOrder: { field: 'title', direction: 'ASC' },
    importable: false,
  },
  evidence: {
    columns: ['title', 'kind', 'collected_on', 'valid_until', 'expired', 'superseded_by'],
    quickFilters: [
      {
        label: `Expiring in ${EXPIRING_DAYS} days`,
        filter: (today) => ({ expired: 'false', expiring_before: addDays(today, EXPIRING_DAYS) }),
      },
      { label: 'Expired', filter: () => ({ expired: 'true' }) },
    ],
  },
  task: {
    columns: ['title', 'status', 'priority', 'due_on', 'overdue', 'owner_id', 'assignee_user_id'],
    defaultOrder: { field: 'due_on', direction: 'ASC' },
    hiddenByDefault: { field: 'status', values: ['DONE', 'CANCELLED'], label: 'done and cancelled tasks' },
  },
  incident: {
    columns: ['title', 'severity', 'status', 'detected_at', 'next_deadline_at', 'owner_id'],
    defaultOrder: { field: 'detected_at', direction: 'DESC' },
    hiddenByDefault: { field: 'status', values: ['CLOSED'], label: 'closed incidents' },
    quickFilters: [{ label: 'Notifications due', filter: () => ({ open_deadlines: 'true' }) }],
  },
  incident_action: {
    columns: ['action', 'incident_id', 'at', 'actor_id'],
    defaultOrder: { field: 'at', direction: 'DESC' },
  },
  incident_notification: {
    columns: ['recipient', 'incident_id', 'regime', 'stage', 'sent_at', 'reference'],
    defaultOrder: { field: 'sent_at', direction: 'DESC' },
  },
  processing_activity: {
    columns: ['name', 'role', 'lawful_bases', 'transfer_countries', 'owner_id'],
    defaultOrder: { field: 'name', direction: 'ASC' },
  },
  dpia: {
    columns: ['title', 'status', 'screening_result', 'prior_consultation', 'next_review_on', 'owner_id'],
    defaultOrder: { field: 'title', direction: 'ASC' },
  },
  data_subject_request: {
    columns: ['reference', 'request_type', 'received_on', 'due_on', 'status', 'overdue', 'owner_id'],
    defaultOrder: { field: 'due_on', direction: 'ASC' },
    hiddenByDefault: { field: 'status', values: ['COMPLETED', 'REJECTED'], label: 'answered requests' },
    quickFilters: [{ label: 'Overdue', filter: () => ({ overdue: 'true' }) }],
  },
  access_review: {
    columns: ['name', 'status', 'due_on', 'entries_undecided', 'entries_total', 'owner_id'],
    defaultOrder: { field: 'due_on', direction: 'ASC' },
    hiddenByDefault: {
      field: 'status',
      values: ['COMPLETED', 'CANCELLED'],
      label: 'completed and cancelled campaigns',
    },
  },
  access_review_entry: {
    columns: [
      'account',
      'system',
      'access_level',
      'access_review_id',
      'reviewer_id',
      'decision',
      'decided_at',
    ],
    defaultOrder: { field: 'system', direction: 'ASC' },
    quickFilters: [{ label: 'To decide', filter: () => ({ decided: 'false' }) }],
  },
  management_review: {
    columns: ['title', 'held_on', 'status', 'period_from', 'period_to', 'chair_id'],
    defaultOrder: { field: 'held_on', direction: 'DESC' },
  },
};

export const REGISTER_PAGES: readonly RegisterPage[] = REGISTER_SPECS.map((spec) => ({
  kind: spec.kind,
  slug: registerSlug(spec),
  title: spec.labelPlural.charAt(0).toUpperCase() + spec.labelPlural.slice(1),
  spec,
  tools: REGISTERS[spec.kind],
  ...COLUMNS[spec.kind],
}));

/** A route pattern matching exactly the register slugs (`vendors|risks|...`), so no other page is read as one. */
export const REGISTER_SLUG_PATTERN = `(?:${REGISTER_PAGES.map((page) => page.slug).join('|')})`;

export function registerPageBySlug(slug: string): RegisterPage | undefined {
  return REGISTER_PAGES.find((page) => page.slug === slug);
}

export function registerPageByKind(kind: string): RegisterPage | undefined {
  return REGISTER_PAGES.find((page) => page.kind === kind);
}

export { displayName } from '../tools/registers/naming.ts';

/** `/orgs/:org/:register`, matching only a register's slug. */
export const REGISTER_PATH = `/orgs/:org/:register{${REGISTER_SLUG_PATTERN}}`;
/** A record of a register: `:id` has a record id's shape (never `new`, `export.csv`), so no route shadows another. */
export const RECORD_PATH = `${REGISTER_PATH}/:id{[a-z]{3}_[0-9a-z]+}`;

/** A section a page group adds to a record page of one kind (rendered below its fields). */
export type RecordSectionOf = (
  c: Context<WebEnv>,
  calls: WebCalls,
  membership: Membership,
  id: string,
) => Promise<Child>;
