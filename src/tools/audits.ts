// Audits: an assessment against a framework, with a state and a validity period.

import { eq } from 'drizzle-orm';
import { audits } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, idOf, longText, shortText } from './fields.ts';
import { enumFilter, filter, optional, type RegisterSpec, required, withDefault } from './registers/spec.ts';
import { AUDIT_STATES, AUDIT_TRANSITIONS } from './states.ts';

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
  },
  relations: [evidenceIdsRelation()],
  search: [audits.name, audits.auditor, audits.scope],
  filters: {
    state: enumFilter(state, audits.state, 'Any of these states.'),
    framework_id: filter(
      idOf('fwk', 'Framework').describe('Only audits of this framework (`fwk_...`).'),
      (value) => eq(audits.framework_id, value),
    ),
  },
  orderFields: {
    valid_until: { column: audits.valid_until, nullable: true },
  },
  transitions: { state: AUDIT_TRANSITIONS },
  prepare(next) {
    if (
      typeof next.valid_from === 'string' &&
      typeof next.valid_until === 'string' &&
      next.valid_until < next.valid_from
    ) {
      throw new AppError('invalid_arguments', 'valid_until must not be before valid_from.', [
        { path: 'valid_until', message: 'Before valid_from' },
      ]);
    }
  },
  hints: {
    list: 'Audits under way: filter.state = ["IN_PROGRESS"].',
    add: 'Plans an audit of one framework (e.g. the 2026 ISO 27001 surveillance audit); state defaults to NOT_STARTED.',
  },
  example: {
    organization_id: 'org_...',
    framework_id: 'fwk_...',
    name: 'ISO 27001 certification audit',
    auditor: 'BSI',
    valid_from: '2026-01-01',
    valid_until: '2028-12-31',
  },
};
