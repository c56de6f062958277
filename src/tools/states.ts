// Every enumerated value of the contract and the allowed state transitions, with one checker for all of them.
import { AppError } from '../errors.ts';

export const RISK_STATUSES = ['OPEN', 'IN_TREATMENT', 'MITIGATED', 'ACCEPTED', 'CLOSED'] as const;
export const RISK_TREATMENTS = ['MITIGATE', 'ACCEPT', 'AVOID', 'TRANSFER'] as const;
export const MEASURE_STATES = ['NOT_STARTED', 'IN_PROGRESS', 'IMPLEMENTED', 'NOT_APPLICABLE'] as const;
/** How a control test was made, and what it found. */
export const TEST_METHODS = ['INQUIRY', 'INSPECTION', 'OBSERVATION', 'RE_PERFORMANCE'] as const;
export const TEST_RESULTS = ['EFFECTIVE', 'EXCEPTION', 'NOT_EFFECTIVE'] as const;
export const OBLIGATION_STATUSES = ['NON_COMPLIANT', 'PARTIALLY_COMPLIANT', 'COMPLIANT'] as const;
export const OBLIGATION_TYPES = ['LEGAL', 'CONTRACTUAL'] as const;
export const PERSON_KINDS = ['EMPLOYEE', 'CONTRACTOR', 'SERVICE_ACCOUNT'] as const;
export const ASSET_TYPES = ['PHYSICAL', 'VIRTUAL'] as const;
export const CLASSIFICATIONS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'SECRET'] as const;
export const WORKFLOW_STATUSES = ['OPEN', 'IN_PROGRESS', 'CLOSED'] as const;
export const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH'] as const;
export const AUDIT_STATES = ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETED', 'REJECTED', 'OUTDATED'] as const;
/** What an audit is: internal (ISO 27001 9.2), a certification body's stage or cycle, or a SOC 2 examination. */
export const AUDIT_TYPES = [
  'INTERNAL',
  'CERTIFICATION_STAGE_1',
  'CERTIFICATION_STAGE_2',
  'SURVEILLANCE',
  'RECERTIFICATION',
  'SOC2_TYPE_I',
  'SOC2_TYPE_II',
  'OTHER',
] as const;
/** How serious a finding is, as certification bodies grade them. */
export const FINDING_GRADES = ['MAJOR', 'MINOR', 'OBSERVATION', 'OPPORTUNITY_FOR_IMPROVEMENT'] as const;
/** An audit checklist's result for one requirement in scope; NOT_AUDITED is also what one without a result reads. */
export const CHECKLIST_RESULTS = [
  'CONFORMING',
  'NONCONFORMITY',
  'OBSERVATION',
  'OPPORTUNITY_FOR_IMPROVEMENT',
  'NOT_AUDITED',
] as const;
export const TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const;
export const APPLICABILITIES = ['APPLICABLE', 'EXCLUDED'] as const;
/** Why a requirement is in the statement of applicability (ISO 27001 6.1.3 d, as auditors ask for it). */
export const INCLUSION_REASONS = ['LEGAL', 'CONTRACTUAL', 'RISK_ASSESSMENT', 'BEST_PRACTICE'] as const;
/** A requirement's implementation status, derived from its measures (migrations/0006_requirements.sql). */
export const IMPLEMENTATION_STATUSES = [
  'NOT_COVERED',
  'PLANNED',
  'PARTIALLY_IMPLEMENTED',
  'IMPLEMENTED',
  'NOT_APPLICABLE',
] as const;
/** How much the organization depends on a vendor: CRITICAL first. */
export const VENDOR_TIERS = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
/** The most sensitive data a vendor can reach. */
export const VENDOR_DATA_ACCESS = [
  'NONE',
  'INTERNAL',
  'CONFIDENTIAL',
  'PERSONAL',
  'SPECIAL_CATEGORY',
] as const;
/** Where a vendor is in its life with the organization. */
export const VENDOR_STATUSES = ['ONBOARDING', 'ACTIVE', 'OFFBOARDING', 'OFFBOARDED'] as const;
/** What an assessment concluded. */
export const VENDOR_ASSESSMENT_RESULTS = ['APPROVED', 'APPROVED_WITH_CONDITIONS', 'NOT_APPROVED'] as const;
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

export const DOCUMENT_TYPES = [
  'POLICY',
  'PROCEDURE',
  'STANDARD',
  'PLAN',
  'STATEMENT_OF_APPLICABILITY',
  'RISK_REGISTER',
  'RISK_TREATMENT_PLAN',
  'OTHER',
] as const;
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
export const REJECT_DOCUMENT = 'rejectDocument';
/** How many of a document's approvers approve a version: one, all, or a number of them (approvals_required). */
export const APPROVAL_RULES = ['ANY', 'ALL', 'QUORUM'] as const;

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

// ---- incidents and the privacy registers -------------------------------------------------------------------

export const INCIDENT_STATUSES = ['OPEN', 'CONTAINED', 'ERADICATED', 'RECOVERED', 'CLOSED'] as const;

export const INCIDENT_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

export const INCIDENT_CATEGORIES = [
  'MALWARE',
  'PHISHING',
  'UNAUTHORIZED_ACCESS',
  'DATA_LEAK',
  'LOST_OR_STOLEN_DEVICE',
  'DENIAL_OF_SERVICE',
  'SYSTEM_FAILURE',
  'HUMAN_ERROR',
  'THIRD_PARTY',
  'PHYSICAL',
  'OTHER',
] as const;

export const PROCESSING_ROLES = ['CONTROLLER', 'JOINT_CONTROLLER', 'PROCESSOR'] as const;

/** GDPR Art. 6(1)(a)-(f), in order. */
export const LAWFUL_BASES = [
  'CONSENT',
  'CONTRACT',
  'LEGAL_OBLIGATION',
  'VITAL_INTERESTS',
  'PUBLIC_TASK',
  'LEGITIMATE_INTERESTS',
] as const;

/** GDPR Art. 9(2)(a)-(j), in order: the condition that allows processing special categories of data. */
export const SPECIAL_CATEGORY_CONDITIONS = [
  'EXPLICIT_CONSENT',
  'EMPLOYMENT_AND_SOCIAL_PROTECTION',
  'VITAL_INTERESTS',
  'NOT_FOR_PROFIT_BODY',
  'MADE_PUBLIC_BY_SUBJECT',
  'LEGAL_CLAIMS',
  'SUBSTANTIAL_PUBLIC_INTEREST',
  'HEALTH_OR_SOCIAL_CARE',
  'PUBLIC_HEALTH',
  'ARCHIVING_RESEARCH_STATISTICS',
] as const;

/** GDPR Chapter V: what makes a transfer outside the EEA lawful. */
export const TRANSFER_SAFEGUARDS = [
  'ADEQUACY_DECISION',
  'STANDARD_CONTRACTUAL_CLAUSES',
  'BINDING_CORPORATE_RULES',
  'DEROGATION',
] as const;

export const DPIA_STATUSES = ['DRAFT', 'IN_REVIEW', 'APPROVED', 'REJECTED'] as const;

/**
 * The nine criteria of processing likely to result in a high risk, as the EDPB's guidelines on DPIAs (WP248 rev.01,
 * endorsed by the EDPB) list them; two or more usually call for a DPIA.
 */
export const DPIA_CRITERIA = [
  'EVALUATION_OR_SCORING',
  'AUTOMATED_DECISION_WITH_LEGAL_EFFECT',
  'SYSTEMATIC_MONITORING',
  'SENSITIVE_OR_HIGHLY_PERSONAL_DATA',
  'LARGE_SCALE',
  'MATCHED_OR_COMBINED_DATASETS',
  'VULNERABLE_DATA_SUBJECTS',
  'INNOVATIVE_TECHNOLOGY',
  'PREVENTS_EXERCISING_RIGHTS',
] as const;

export const DPIA_SCREENING_RESULTS = ['REQUIRED', 'RECOMMENDED', 'NOT_REQUIRED'] as const;

/** The rights of Art. 15-22, in order. */
export const REQUEST_TYPES = [
  'ACCESS',
  'RECTIFICATION',
  'ERASURE',
  'RESTRICTION',
  'PORTABILITY',
  'OBJECTION',
  'AUTOMATED_DECISION',
] as const;

export const REQUEST_STATUSES = ['RECEIVED', 'IN_PROGRESS', 'COMPLETED', 'REJECTED'] as const;

export const REGIMES = ['GDPR', 'NIS2', 'DORA'] as const;

/** How likely a personal data breach is to result in a risk to people's rights and freedoms (GDPR Art. 33, 34). */
export const GDPR_RISK_LEVELS = ['UNLIKELY', 'RISK', 'HIGH_RISK'] as const;

/** An access review campaign's statuses, and the decisions on its entries. */
export const ACCESS_REVIEW_STATUSES = ['DRAFT', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export const ACCESS_DECISIONS = ['KEEP', 'REVOKE', 'MODIFY', 'ESCALATE'] as const;

/** A management review (ISO 27001 9.3): planned, held (inputs discussed, decisions taken), closed (minutes final). */
export const MANAGEMENT_REVIEW_STATUSES = ['PLANNED', 'HELD', 'CLOSED'] as const;
