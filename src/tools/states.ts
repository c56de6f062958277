// Every enumerated value of the contract and the allowed state transitions, with one checker for all of them.
import { AppError } from '../errors.ts';

export const RISK_STATUSES = ['OPEN', 'IN_TREATMENT', 'MITIGATED', 'ACCEPTED', 'CLOSED'] as const;
export const RISK_TREATMENTS = ['MITIGATE', 'ACCEPT', 'AVOID', 'TRANSFER'] as const;
export const MEASURE_STATES = ['NOT_STARTED', 'IN_PROGRESS', 'IMPLEMENTED', 'NOT_APPLICABLE'] as const;
export const OBLIGATION_STATUSES = ['NON_COMPLIANT', 'PARTIALLY_COMPLIANT', 'COMPLIANT'] as const;
export const OBLIGATION_TYPES = ['LEGAL', 'CONTRACTUAL'] as const;
export const PERSON_KINDS = ['EMPLOYEE', 'CONTRACTOR', 'SERVICE_ACCOUNT'] as const;
export const ASSET_TYPES = ['PHYSICAL', 'VIRTUAL'] as const;
export const CLASSIFICATIONS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'SECRET'] as const;
export const WORKFLOW_STATUSES = ['OPEN', 'IN_PROGRESS', 'CLOSED'] as const;
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH'] as const;
export const AUDIT_STATES = ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'REJECTED', 'OUTDATED'] as const;
export const TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const;
export const APPLICABILITIES = ['APPLICABLE', 'EXCLUDED'] as const;
/** A requirement's implementation status, derived from its measures (migrations/0006_requirements.sql). */
export const IMPLEMENTATION_STATUSES = [
  'NOT_COVERED',
  'PLANNED',
  'PARTIALLY_IMPLEMENTED',
  'IMPLEMENTED',
  'NOT_APPLICABLE',
] as const;
export const VENDOR_CATEGORIES = [
  'ANALYTICS',
  'CLOUD_PROVIDER',
  'COLLABORATION',
  'CUSTOMER_SUPPORT',
  'DATA_STORAGE_AND_PROCESSING',
  'DOCUMENT_MANAGEMENT',
  'EMPLOYEE_MANAGEMENT',
  'ENGINEERING',
  'FINANCE',
  'IDENTITY_PROVIDER',
  'IT',
  'MARKETING',
  'OFFICE_OPERATIONS',
  'PASSWORD_MANAGEMENT',
  'PRODUCT_AND_DESIGN',
  'PROFESSIONAL_SERVICES',
  'RECRUITING',
  'SALES',
  'SECURITY',
  'VERSION_CONTROL',
  'OTHER',
] as const;

export const DOCUMENT_TYPES = ['POLICY', 'PROCEDURE', 'STANDARD', 'PLAN', 'OTHER'] as const;
export const DOCUMENT_STATUSES = ['DRAFT', 'IN_REVIEW', 'APPROVED', 'PUBLISHED', 'RETIRED'] as const;
/** A document version's own state: a document's states, and SUPERSEDED once a later version replaced it. */
export const DOCUMENT_VERSION_STATUSES = [...DOCUMENT_STATUSES, 'SUPERSEDED'] as const;

/** From-state -> states it may move to. A state not listed as a key may move anywhere. */
export type Transitions = Record<string, readonly string[]>;

export const RISK_TRANSITIONS: Transitions = { CLOSED: ['OPEN'] };

export const WORKFLOW_TRANSITIONS: Transitions = {
  OPEN: ['IN_PROGRESS'],
  IN_PROGRESS: ['CLOSED'],
  CLOSED: ['OPEN'],
};

/** A task moves between TODO and IN_PROGRESS and ends DONE or CANCELLED; an ended task only reopens (TODO). */
export const TASK_TRANSITIONS: Transitions = {
  TODO: ['IN_PROGRESS', 'DONE', 'CANCELLED'],
  IN_PROGRESS: ['TODO', 'DONE', 'CANCELLED'],
  DONE: ['TODO'],
  CANCELLED: ['TODO'],
};

export const AUDIT_TRANSITIONS: Transitions = {
  NOT_STARTED: ['IN_PROGRESS', 'OUTDATED'],
  IN_PROGRESS: ['COMPLETED', 'REJECTED', 'OUTDATED'],
  COMPLETED: ['OUTDATED'],
  REJECTED: ['OUTDATED'],
  OUTDATED: [],
};

/**
 * A document's moves through updateDocument; IN_REVIEW -> APPROVED only through approveDocument, and a content
 * change of an APPROVED or PUBLISHED document starts a new DRAFT version instead of moving its status.
 */
export const DOCUMENT_TRANSITIONS: Transitions = {
  DRAFT: ['IN_REVIEW'],
  IN_REVIEW: ['DRAFT'],
  APPROVED: ['PUBLISHED'],
  PUBLISHED: ['RETIRED'],
  RETIRED: [],
};

/** The tool that approves a document (IN_REVIEW -> APPROVED), which an update cannot do. */
export const APPROVE_DOCUMENT = 'approveDocument';

/**
 * Throws `invalid_transition` naming the current state, the asked one and the allowed ones; a state that a tool of
 * its own sets (`setBy`: a document's APPROVED, approveDocument) names that tool.
 */
export function checkTransition(
  label: string,
  field: string,
  from: string,
  to: string,
  transitions: Transitions,
  setBy: Readonly<Record<string, string>> = {},
): void {
  if (from === to) return;
  const allowed = transitions[from];
  if (!allowed || allowed.includes(to)) return;
  const options = allowed.length > 0 ? allowed.join(', ') : 'none (final state)';
  const tool = Object.hasOwn(setBy, to) ? setBy[to] : undefined;
  throw new AppError(
    'invalid_transition',
    `Cannot change ${label} ${field} from ${from} to ${to}${tool ? ` with an update: ${to} is set by ${tool}` : ''}. Allowed from ${from}: ${options}.`,
    { field, current: from, requested: to, allowed, ...(tool ? { tool } : {}) },
  );
}

/** Evidence kinds: a stored file or a link. */
export const EVIDENCE_KINDS = ['FILE', 'LINK'] as const;
