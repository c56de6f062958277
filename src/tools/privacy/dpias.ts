// Data protection impact assessments (GDPR Art. 35): screened against the common criteria of high-risk processing,
// then described, weighed, advised on by the DPO, decided and approved, with the risks and measures they rest on.
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { dpiaMeasures, dpiaProcessingActivities, dpiaRisks, dpias } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { descriptionField, linkedFilter, ownerField, ownerFilter } from '../common-fields.ts';
import { evidenceIdsRelation } from '../evidence.ts';
import { caseInsensitiveEnum, idOf, longText, shortText } from '../fields.ts';
import { todayOf } from '../overdue.ts';
import {
  derived,
  enumFilter,
  optional,
  type RegisterSpec,
  type Row,
  required,
  withDefault,
} from '../registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from '../reviews.ts';
import { DPIA_CRITERIA, DPIA_SCREENING_RESULTS, DPIA_STATUSES } from '../states.ts';

/** DRAFT <-> IN_REVIEW; IN_REVIEW -> APPROVED or REJECTED; a decided one goes back to DRAFT to be revised. */
export const DPIA_TRANSITIONS = {
  DRAFT: ['IN_REVIEW'],
  IN_REVIEW: ['DRAFT', 'APPROVED', 'REJECTED'],
  APPROVED: ['DRAFT'],
  REJECTED: ['DRAFT'],
} as const;

const status = caseInsensitiveEnum(DPIA_STATUSES).describe(
  'DRAFT -> IN_REVIEW -> APPROVED or REJECTED (needs approver_id and decision); back to DRAFT to revise.',
);
const criterion = caseInsensitiveEnum(DPIA_CRITERIA);

/** Two criteria or more: a DPIA is required; one: recommended; none: not required. */
export function screeningResult(criteria: readonly string[]): (typeof DPIA_SCREENING_RESULTS)[number] {
  return criteria.length >= 2 ? 'REQUIRED' : criteria.length === 1 ? 'RECOMMENDED' : 'NOT_REQUIRED';
}

/** A decision needs who decided, what, and when; the approval date comes with the approval. */
function checkDecision(next: Row, current: Row | null, today: string): void {
  if (next.status === 'APPROVED' || next.status === 'REJECTED') {
    const missing = ['approver_id', 'decision'].filter((field) => !next[field]);
    if (missing.length > 0)
      throw new AppError(
        'invalid_transition',
        `Cannot move the DPIA to ${String(next.status)} without ${missing.join(' and ')}: set ${missing.join(' and ')} in the same call.`,
        { field: 'status', current: current?.status ?? null, requested: next.status, missing },
      );
    if (current?.status !== next.status && !next.approved_on) next.approved_on = today;
  } else next.approved_on = null;
}

const link = (
  field: string,
  table: SQLiteTable & Record<'dpia_id' | 'organization_id', SQLiteColumn>,
  target: 'risk' | 'measure' | 'processing_activity',
  targetColumn: SQLiteColumn,
  description: string,
  label: string,
) => ({
  field,
  table,
  ownerColumn: table.dpia_id,
  targetColumn,
  organizationColumn: table.organization_id,
  target,
  writable: true,
  description,
  label,
  hint: description,
});

export const dpiaSpec: RegisterSpec = {
  kind: 'dpia',
  prefix: 'dpi',
  label: 'DPIA',
  labelPlural: 'DPIAs',
  noun: 'Dpia',
  nounPlural: 'Dpias',
  key: 'dpia',
  listKey: 'dpias',
  table: dpias,
  toolset: 'privacy',
  nameFields: ['title'],
  about: 'A DPIA (GDPR Art. 35) assesses processing likely to put people at high risk, up to a decision.',
  fields: {
    title: required(shortText().describe('What is assessed, e.g. "Video surveillance of the warehouse".')),
    description: descriptionField('processing assessed'),
    status: withDefault(status, 'DRAFT'),
    screening_criteria: withDefault(
      z
        .array(criterion)
        .max(DPIA_CRITERIA.length)
        .describe(`High-risk criteria the processing meets: ${DPIA_CRITERIA.join(', ')}.`),
      [],
      { label: 'Screening criteria' },
    ),
    screening_result: derived(
      z
        .enum(DPIA_SCREENING_RESULTS)
        .describe('Derived from the criteria: REQUIRED (2 or more), RECOMMENDED (1), NOT_REQUIRED (none).'),
      { label: 'Screening result' },
    ),
    necessity: optional(
      longText(10_000).describe('Why the processing is necessary and proportionate to its purposes.'),
      undefined,
      { label: 'Necessity and proportionality' },
    ),
    dpo_advice: optional(longText(5000).describe("The data protection officer's advice."), undefined, {
      label: 'DPO advice',
    }),
    decision: optional(
      longText(5000).describe('The decision taken and why; needed to approve or reject.'),
      undefined,
      {
        label: 'Decision',
      },
    ),
    prior_consultation: withDefault(
      z
        .boolean()
        .describe('GDPR Art. 36: residual high risk, so the supervisory authority must be consulted first.'),
      false,
      { label: 'Prior consultation needed' },
    ),
    owner_id: ownerField(),
    approver_id: optional(
      idOf('per', 'Person').describe('Who approves or rejects it (`per_...`).'),
      'person',
      {
        label: 'Approver',
        hint: 'The person who decides.',
      },
    ),
    approved_on: derived(z.string().nullable().describe('Derived: the day it was approved or rejected.'), {
      label: 'Decided on',
    }),
    ...reviewFields(),
  },
  relations: [
    link(
      'processing_activity_ids',
      dpiaProcessingActivities,
      'processing_activity',
      dpiaProcessingActivities.processing_activity_id,
      'The processing activities assessed (`pra_...`).',
      'Processing activities',
    ),
    link(
      'risk_ids',
      dpiaRisks,
      'risk',
      dpiaRisks.risk_id,
      "Risks to people's rights and freedoms (`rsk_...`).",
      'Risks',
    ),
    link(
      'measure_ids',
      dpiaMeasures,
      'measure',
      dpiaMeasures.measure_id,
      'Measures that address them (`msr_...`).',
      'Measures',
    ),
    evidenceIdsRelation(),
  ],
  search: [dpias.title, dpias.description],
  filters: {
    status: enumFilter(status, dpias.status, 'Any of these statuses.'),
    owner_id: ownerFilter(dpias.owner_id),
    processing_activity_id: linkedFilter(
      {
        ownerId: dpias.id,
        owner: dpiaProcessingActivities.dpia_id,
        target: dpiaProcessingActivities.processing_activity_id,
      },
      { prefix: 'pra', what: 'Processing activity' },
      'Only those assessing this processing activity (`pra_...`).',
    ),
    ...reviewFilters(REVIEW_CYCLES.dpia),
  },
  orderFields: { title: { column: dpias.title }, ...reviewOrderField(dpias.next_review_on) },
  transitions: { status: DPIA_TRANSITIONS },
  review: REVIEW_CYCLES.dpia,
  settle: async (ctx, next, current) => checkDecision(next, current, todayOf(ctx)),
  present: (row) => ({
    ...row,
    screening_result: screeningResult((row.screening_criteria as string[] | null) ?? []),
  }),
  hints: {
    list: 'Those in review: filter.status = IN_REVIEW; decided ones: filter.status = ["APPROVED", "REJECTED"]; by title: filter.query.',
    get: 'With its screening, necessity, the DPO advice and the decision.',
    update: 'Decide it (status with approver_id and decision), or send it back to draft.',
    add: 'Start a data protection impact assessment: list screening_criteria first (screening_result says whether one is required), link the processing with processing_activity_ids.',
  },
  example: {
    organization_id: 'org_...',
    title: 'Video surveillance of the warehouse',
    screening_criteria: ['SYSTEMATIC_MONITORING', 'LARGE_SCALE'],
  },
};
