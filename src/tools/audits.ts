// Audits: an assessment against a framework, with a state and a validity period; its type, planned and actual dates,
// lead auditor, scope (the requirements it audits) and report file.

import { and, eq, inArray, ne } from 'drizzle-orm';
import { auditRequirements, audits, requirements } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { fileFacts } from './attached-files.ts';
import { ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText, shortText } from './fields.ts';
import {
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  requireForward,
  withDefault,
  writableLinks,
} from './registers/spec.ts';
import { AUDIT_STATES, AUDIT_TRANSITIONS, AUDIT_TYPES } from './states.ts';
import type { ToolContext } from './types.ts';

const auditType = caseInsensitiveEnum(AUDIT_TYPES).describe(
  'INTERNAL (ISO 27001 9.2), CERTIFICATION_STAGE_1, CERTIFICATION_STAGE_2, SURVEILLANCE, RECERTIFICATION, SOC2_TYPE_I, SOC2_TYPE_II (with its observation period) or OTHER.',
);

/** Day pairs that must not run backwards: [start, end]. */
const DATE_PAIRS = [
  ['valid_from', 'valid_until'],
  ['planned_start_on', 'planned_end_on'],
  ['actual_start_on', 'actual_end_on'],
  ['observation_start_on', 'observation_end_on'],
] as const;

/** An audit's dates in order, and a SOC 2 Type II examination with the period it observed. */
function checkAudit(next: Row): void {
  for (const [start, end] of DATE_PAIRS)
    requireForward(next, start, end, `Give ${end} on or after ${start}.`);
  if (next.audit_type === 'SOC2_TYPE_II' && (!next.observation_start_on || !next.observation_end_on))
    throw new AppError(
      'invalid_arguments',
      'A SOC 2 Type II examination covers a period of operation: give observation_start_on and observation_end_on.',
      [{ path: 'observation_start_on', message: 'Required for SOC2_TYPE_II' }],
    );
}

/**
 * What settle reads: a report file of the audit's organization (another's is not_found, as if it did not exist), and
 * a scope of requirements of the audited framework.
 */
async function settleAudit(ctx: ToolContext, next: Row, current: Row | null, rules?: RuleContext) {
  if (typeof next.report_file_id === 'string' && next.report_file_id !== current?.report_file_id)
    await fileFacts(ctx, next.report_file_id);
  // The scope given, or the one kept when the audit moves to another framework.
  const given = rules?.given.requirement_ids;
  const moved = current !== null && next.framework_id !== current.framework_id;
  const scope = Array.isArray(given)
    ? inArray(requirements.id, given.map(String))
    : moved
      ? inArray(
          requirements.id,
          ctx.db
            .select({ id: auditRequirements.requirement_id })
            .from(auditRequirements)
            .where(eq(auditRequirements.audit_id, String(current.id))),
        )
      : undefined;
  if (!scope || (Array.isArray(given) && given.length === 0)) return;
  const [other] = await ctx.db
    .select({ id: requirements.id, reference: requirements.reference })
    .from(requirements)
    .where(
      and(
        scope,
        eq(requirements.organization_id, String(ctx.organizationId)),
        ne(requirements.framework_id, String(next.framework_id)),
      ),
    )
    .limit(1);
  if (other)
    throw new AppError(
      'invalid_arguments',
      `Requirement ${other.reference} (${other.id}) is of another framework than the one audited. Give requirement_ids of the audit's framework.`,
      [{ path: 'requirement_ids', message: `${other.id} is of another framework` }],
    );
}

const state = caseInsensitiveEnum(AUDIT_STATES).describe(
  'Audit state: NOT_STARTED -> IN_PROGRESS -> COMPLETED or REJECTED; any -> OUTDATED.',
);

export const auditSpec: RegisterSpec = {
  kind: 'audit',
  prefix: 'aud',
  label: 'audit',
  labelPlural: 'audits',
  noun: 'Audit',
  nounPlural: 'Audits',
  key: 'audit',
  listKey: 'audits',
  table: audits,
  about: 'An audit assesses the organization against one framework.',
  fields: {
    framework_id: required(
      idOf('fwk', 'Framework').describe('Framework audited against (`fwk_...`).'),
      'framework',
      { label: 'Framework', hint: 'The framework audited against.' },
    ),
    name: optional(shortText().describe('Name, e.g. "ISO 27001 surveillance audit 2026".')),
    state: withDefault(state, 'NOT_STARTED'),
    valid_from: optional(dateSchema.describe('Start of the validity of the report or certificate.')),
    valid_until: optional(dateSchema.describe('End of validity.')),
    auditor: optional(shortText().describe('Audit firm or auditor, e.g. "BSI".')),
    scope: optional(longText().describe('Scope of the audit.')),
    reference: optional(
      shortText(100).describe('Your reference, e.g. "AUD-2026-01"; unique in the organization.'),
    ),
    audit_type: optional(auditType, undefined, { label: 'Type' }),
    lead_auditor_id: ownerField(
      'Lead auditor',
      'The person leading it; an external auditor goes in auditor.',
    ),
    planned_start_on: optional(dateSchema.describe('First day planned.'), undefined, {
      label: 'Planned start',
    }),
    planned_end_on: optional(dateSchema.describe('Last day planned.'), undefined, { label: 'Planned end' }),
    actual_start_on: optional(dateSchema.describe('First day it took place.'), undefined, {
      label: 'Actual start',
    }),
    actual_end_on: optional(dateSchema.describe('Last day it took place.'), undefined, {
      label: 'Actual end',
    }),
    observation_start_on: optional(
      dateSchema.describe('SOC 2 Type II: first day of the period of operation examined.'),
      undefined,
      { label: 'Observation start' },
    ),
    observation_end_on: optional(
      dateSchema.describe('SOC 2 Type II: last day of the period of operation examined.'),
      undefined,
      { label: 'Observation end' },
    ),
    report_file_id: {
      ...optional(
        idOf('fil', 'Stored file').describe(
          'The audit report: a file uploaded to POST /api/v1/orgs/<org>/files (`fil_...`).',
        ),
        undefined,
        { label: 'Report file' },
      ),
      // Its organization is checked by settle, which imports do not run.
      notImported: true,
    },
  },
  relations: [
    {
      ...writableLinks(
        'requirement_ids',
        auditRequirements,
        { owner: auditRequirements.audit_id, target: auditRequirements.requirement_id },
        'requirement',
        'Requirements in scope',
        'The requirements it audits; its checklist has a result for each.',
      ),
      description:
        "Its scope: ids of the framework's requirements it audits (`req_...`); recordAuditChecklistResult takes only these.",
    },
    evidenceIdsRelation(),
  ],
  unique: ['reference'],
  search: [audits.name, audits.auditor, audits.scope],
  filters: {
    state: enumFilter(state, audits.state, 'Any of these states.'),
    framework_id: filter(
      idOf('fwk', 'Framework').describe('Only audits of this framework (`fwk_...`).'),
      (value) => eq(audits.framework_id, value),
    ),
    reference: filter(shortText(100).describe('The audit with this reference.'), (value) =>
      eq(audits.reference, value),
    ),
    audit_type: enumFilter(auditType, audits.audit_type, 'Any of these types, e.g. INTERNAL.'),
    lead_auditor_id: ownerFilter(audits.lead_auditor_id, 'Lead auditor'),
  },
  orderFields: {
    valid_until: { column: audits.valid_until, nullable: true },
  },
  transitions: { state: AUDIT_TRANSITIONS },
  prepare: checkAudit,
  settle: settleAudit,
  hints: {
    list: 'Audits under way: filter.state = ["IN_PROGRESS"].',
    add: 'Plans an audit of one framework (e.g. the 2026 ISO 27001 surveillance audit): audit_type, planned dates, lead auditor; state defaults to NOT_STARTED.',
  },
  example: {
    organization_id: 'org_...',
    framework_id: 'fwk_...',
    name: 'ISO 27001 certification audit',
    reference: 'AUD-2026-01',
    audit_type: 'CERTIFICATION_STAGE_2',
    planned_start_on: '2026-03-02',
    planned_end_on: '2026-03-04',
    auditor: 'BSI',
    valid_from: '2026-01-01',
    valid_until: '2028-12-31',
  },
};
