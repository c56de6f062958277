// Data-subject requests (GDPR Art. 15-22): their type, receipt, identity check, the one-month answer period (Art. 12(3)),
// its extension by up to two months with the reason, and the answer. The requester's own details stay out unless the
// team chooses to note them: no field asks for them.
import { and, eq, inArray, lt, ne, not, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import {
  dataSubjectRequestAssets,
  dataSubjectRequestProcessingActivities,
  dataSubjectRequests,
} from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { linkedFilter, ownerField, ownerFilter } from '../common-fields.ts';
import { evidenceIdsRelation } from '../evidence.ts';
import { caseInsensitiveEnum, dateSchema, longText, shortText } from '../fields.ts';
import { isOverdue, overdueOutput } from '../overdue.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  required,
  sparseMatches,
  withDefault,
} from '../registers/spec.ts';
import { REQUEST_STATUSES, REQUEST_TYPES } from '../states.ts';

const ENDED = ['COMPLETED', 'REJECTED'] as const;
/** The statuses in which a request is answered (no longer due), and those in which it is still open. */
export const REQUEST_ENDED = ENDED;
export const REQUEST_OPEN = REQUEST_STATUSES.filter(
  (status) => !(ENDED as readonly string[]).includes(status),
) as readonly string[];

export const REQUEST_TRANSITIONS = {
  RECEIVED: ['IN_PROGRESS', 'COMPLETED', 'REJECTED'],
  IN_PROGRESS: ['RECEIVED', 'COMPLETED', 'REJECTED'],
  COMPLETED: ['IN_PROGRESS'],
  REJECTED: ['IN_PROGRESS'],
} as const;

const requestType = caseInsensitiveEnum(REQUEST_TYPES).describe(
  'ACCESS (Art. 15), RECTIFICATION (16), ERASURE (17), RESTRICTION (18), PORTABILITY (20), OBJECTION (21), AUTOMATED_DECISION (22).',
);
const status = caseInsensitiveEnum(REQUEST_STATUSES).describe(
  'RECEIVED -> IN_PROGRESS -> COMPLETED or REJECTED (both need response_sent_on); an ended request reopens to IN_PROGRESS.',
);

/**
 * A date moved by calendar months (GDPR Art. 12(3), with Regulation (EEC, Euratom) No 1182/71 on periods: a period
 * in months ends on the same day of the later month, or on its last day when it has no such day).
 */
export function addMonthsToDate(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const index = year * 12 + (month - 1) + months;
  const toYear = Math.floor(index / 12);
  const toMonth = (index % 12) + 1;
  const lastDay = new Date(Date.UTC(toYear, toMonth, 0)).getUTCDate();
  return `${toYear}-${String(toMonth).padStart(2, '0')}-${String(Math.min(day, lastDay)).padStart(2, '0')}`;
}

/** Derives the due date and checks the dates, the extension's reason and the answer of an ended request. */
function prepare(next: Row, current: Row | null): void {
  const received = String(next.received_on);
  const extension = Number(next.extension_months ?? 0);
  if (extension > 0 && !next.extension_reason)
    throw new AppError(
      'invalid_arguments',
      'An extension of the answer period needs its reason (Art. 12(3): complexity or number of requests): set extension_reason.',
      { path: 'extension_reason' },
    );
  for (const field of ['identity_verified_on', 'response_sent_on'] as const) {
    const value = next[field];
    if (typeof value === 'string' && value < received)
      throw new AppError('invalid_arguments', `${field} (${value}) is before received_on (${received}).`, {
        path: field,
      });
  }
  if ((ENDED as readonly string[]).includes(String(next.status)) && !next.response_sent_on)
    throw new AppError(
      'invalid_transition',
      `Cannot move the request from ${String(current?.status ?? 'new')} to ${String(next.status)} without response_sent_on: set the day the answer was sent in the same call.`,
      {
        field: 'status',
        current: current?.status ?? null,
        requested: next.status,
        missing: 'response_sent_on',
      },
    );
  next.due_on = addMonthsToDate(received, 1 + extension);
}

const overdue = (today: string): SQL =>
  and(
    lt(dataSubjectRequests.due_on, today),
    ...ENDED.map((state) => ne(dataSubjectRequests.status, state)),
  ) as SQL;

export const dataSubjectRequestSpec: RegisterSpec = {
  kind: 'data_subject_request',
  prefix: 'dsr',
  label: 'data-subject request',
  labelPlural: 'data-subject requests',
  noun: 'DataSubjectRequest',
  nounPlural: 'DataSubjectRequests',
  key: 'data_subject_request',
  listKey: 'data_subject_requests',
  table: dataSubjectRequests,
  toolset: 'privacy',
  nameFields: ['reference'],
  about:
    "A data-subject request is a person's request to exercise a GDPR right (Art. 15-22), due a month after receipt.",
  fields: {
    reference: required(
      shortText(100).describe('Your reference, e.g. "DSR-2026-031"; avoid the requester\'s name.'),
      undefined,
      { label: 'Reference' },
    ),
    request_type: required(requestType, undefined, { label: 'Type' }),
    received_on: required(
      dateSchema.describe('Day the request was received: the answer period starts here.'),
      undefined,
      {
        label: 'Received on',
      },
    ),
    identity_verified_on: optional(
      dateSchema.describe("Day the requester's identity was verified."),
      undefined,
      {
        label: 'Identity verified on',
      },
    ),
    verification_method: optional(
      shortText(500).describe('How identity was verified, e.g. "reply from the account\'s email".'),
      undefined,
      { label: 'Verification method' },
    ),
    due_on: derived(dateSchema.describe('Derived: received_on + 1 month + extension_months (Art. 12(3)).'), {
      label: 'Due on',
    }),
    extension_months: withDefault(
      z
        .number()
        .int()
        .min(0)
        .max(2)
        .describe('Extension of the answer period, 0 to 2 months; needs extension_reason.'),
      0,
      { label: 'Extension (months)' },
    ),
    extension_reason: optional(
      longText(2000).describe('Why the period was extended (told to the requester).'),
      undefined,
      {
        label: 'Extension reason',
      },
    ),
    status: withDefault(status, 'RECEIVED'),
    response_sent_on: optional(
      dateSchema.describe('Day the answer was sent; needed to complete or reject.'),
      undefined,
      {
        label: 'Answered on',
      },
    ),
    owner_id: ownerField('Handled by', 'The person handling it.'),
    note: optional(
      longText(5000).describe('Working notes; keep personal data of the requester out unless needed.'),
      undefined,
      { label: 'Note' },
    ),
    overdue: derived(overdueOutput(ENDED)),
  },
  relations: [
    {
      field: 'processing_activity_ids',
      table: dataSubjectRequestProcessingActivities,
      ownerColumn: dataSubjectRequestProcessingActivities.data_subject_request_id,
      targetColumn: dataSubjectRequestProcessingActivities.processing_activity_id,
      organizationColumn: dataSubjectRequestProcessingActivities.organization_id,
      target: 'processing_activity',
      writable: true,
      description: 'Processing activities concerned (`pra_...`).',
      label: 'Processing activities',
      hint: 'The processing the request concerns.',
    },
    {
      field: 'asset_ids',
      table: dataSubjectRequestAssets,
      ownerColumn: dataSubjectRequestAssets.data_subject_request_id,
      targetColumn: dataSubjectRequestAssets.asset_id,
      organizationColumn: dataSubjectRequestAssets.organization_id,
      target: 'asset',
      writable: true,
      description: 'Systems searched or changed to answer it (`ast_...`).',
      label: 'Systems',
      hint: 'The systems searched or changed to answer it.',
    },
    evidenceIdsRelation(),
  ],
  search: [dataSubjectRequests.reference, dataSubjectRequests.note],
  filters: {
    status: enumFilter(status, dataSubjectRequests.status, 'Any of these statuses.'),
    request_type: enumFilter(requestType, dataSubjectRequests.request_type, 'Any of these types.'),
    overdue: {
      ...filter(
        z
          .boolean()
          .describe(
            'true: only overdue ones (due date passed, not COMPLETED or REJECTED); false: the others.',
          ),
        (value, today) => (value ? overdue(today) : not(overdue(today))),
      ),
      // Few requests are overdue: read from the (organization, status, due_on) index of the open ones.
      matches: (value, today, organizationId) =>
        value === true
          ? sparseMatches(
              dataSubjectRequests.id,
              dataSubjectRequests,
              and(
                eq(dataSubjectRequests.organization_id, organizationId),
                inArray(dataSubjectRequests.status, [...REQUEST_OPEN]),
                lt(dataSubjectRequests.due_on, today),
              ),
            )
          : undefined,
    },
    owner_id: ownerFilter(dataSubjectRequests.owner_id, 'Handled by'),
    processing_activity_id: linkedFilter(
      {
        ownerId: dataSubjectRequests.id,
        owner: dataSubjectRequestProcessingActivities.data_subject_request_id,
        target: dataSubjectRequestProcessingActivities.processing_activity_id,
      },
      { prefix: 'pra', what: 'Processing activity' },
      'Only those about this processing activity (`pra_...`).',
    ),
  },
  orderFields: {
    reference: { column: dataSubjectRequests.reference },
    due_on: { column: dataSubjectRequests.due_on },
    received_on: { column: dataSubjectRequests.received_on },
  },
  unique: ['reference'],
  transitions: { status: REQUEST_TRANSITIONS },
  prepare,
  present: (row, today) => ({ ...row, overdue: isOverdue(row, 'due_on', 'status', ENDED, today) }),
  hints: {
    get: 'With its deadline, status and answer.',
    update:
      'Extend its deadline (extension_months with extension_reason) or record the answer (COMPLETED with response_sent_on).',
    list: 'Those due soonest: order_by due_on; late ones: filter.overdue = true; by reference: filter.query.',
    add: "Log a request from a person exercising a GDPR right; the answer period is computed. No field needs the requester's personal data.",
  },
  example: {
    organization_id: 'org_...',
    reference: 'DSR-2026-031',
    request_type: 'ACCESS',
    received_on: '2026-02-20',
  },
};
