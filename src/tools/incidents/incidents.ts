// Incidents: what happened, when the organization became aware (the regulatory clocks start there), how severe, what
// it touched, and how it was handled, through OPEN -> CONTAINED -> ERADICATED -> RECOVERED -> CLOSED.
import { and, eq, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import {
  incidentAssets,
  incidentDataClassifications,
  incidentDeadlines,
  incidentObligations,
  incidentProcessingActivities,
  incidentRisks,
  incidents,
  incidentVendors,
} from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { ID_PREFIXES, type IdPrefix } from '../../ids.ts';
import { descriptionField, linkedFilter, ownerField, ownerFilter } from '../common-fields.ts';
import { evidenceIdsRelation } from '../evidence.ts';
import { caseInsensitiveEnum, idOf, instantSchema, longText, shortText } from '../fields.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterKind,
  type RegisterSpec,
  type RelationSpec,
  type Row,
  required,
  sparseMatches,
  withDefault,
  writableLinks,
} from '../registers/spec.ts';
import { INCIDENT_CATEGORIES, INCIDENT_SEVERITIES, INCIDENT_STATUSES } from '../states.ts';
import { clocksOfIncident, refreshClocks } from './clock-store.ts';
import { CLOCK_STATES, GDPR_RISK_LEVELS, REGIMES } from './clocks.ts';

const clockSchema = z
  .object({
    regime: z.enum(REGIMES).describe('GDPR, NIS2 or DORA.'),
    stage: z
      .string()
      .describe('The notification stage, e.g. AUTHORITY, EARLY_WARNING, INITIAL_NOTIFICATION.'),
    title: z.string().describe('What is due.'),
    source: z.string().describe('The legal source.'),
    due_at: z
      .string()
      .nullable()
      .describe('Deadline (ISO time, UTC); null while waiting, or "without undue delay".'),
    due_local: z.string().nullable().describe("Deadline in the organization's time zone."),
    hours_left: z
      .number()
      .int()
      .nullable()
      .describe('Whole hours to the deadline (negative once passed); null once sent.'),
    sent_at: z.string().nullable().describe('When its notification was recorded as sent.'),
    state: z.enum(CLOCK_STATES).describe('WAITING, RUNNING, MISSED, MET or LATE.'),
    basis: z.string().describe('What the deadline counts from.'),
  })
  .describe('A regulatory notification clock.');

/** Forward through the stages (a stage may be skipped), and CLOSED reopens to OPEN. */
export const INCIDENT_TRANSITIONS = {
  OPEN: ['CONTAINED', 'ERADICATED', 'RECOVERED', 'CLOSED'],
  CONTAINED: ['ERADICATED', 'RECOVERED', 'CLOSED'],
  ERADICATED: ['RECOVERED', 'CLOSED'],
  RECOVERED: ['CLOSED'],
  CLOSED: ['OPEN'],
} as const;

const status = caseInsensitiveEnum(INCIDENT_STATUSES).describe(
  'OPEN -> CONTAINED -> ERADICATED -> RECOVERED -> CLOSED (stages may be skipped forward); CLOSED reopens to OPEN.',
);
const severity = caseInsensitiveEnum(INCIDENT_SEVERITIES).describe('LOW, MEDIUM, HIGH or CRITICAL.');
const category = caseInsensitiveEnum(INCIDENT_CATEGORIES).describe(
  `One of ${INCIDENT_CATEGORIES.join(', ')}.`,
);
const gdprRisk = caseInsensitiveEnum(GDPR_RISK_LEVELS).describe(
  'GDPR: risk to people from this personal data breach: UNLIKELY (no authority notice), RISK (notify the authority in 72 h), HIGH_RISK (also tell the people affected).',
);
const regime = caseInsensitiveEnum(REGIMES);

/** A writable list of links from an incident to records of one register, stored in `table`. */
const incidentLink = (
  field: string,
  table: SQLiteTable & Record<'incident_id' | 'organization_id', SQLiteColumn>,
  targetColumn: SQLiteColumn,
  target: RegisterKind,
  label: string,
  hint: string,
): RelationSpec =>
  writableLinks(field, table, { owner: table.incident_id, target: targetColumn }, target, label, hint);

/** The links an incident has, each with its filter (`asset_id`: incidents that touched this asset). */
const LINKS = [
  incidentLink(
    'asset_ids',
    incidentAssets,
    incidentAssets.asset_id,
    'asset',
    'Affected assets',
    'Systems and assets it touched.',
  ),
  incidentLink(
    'vendor_ids',
    incidentVendors,
    incidentVendors.vendor_id,
    'vendor',
    'Vendors involved',
    'Vendors it involved or came through.',
  ),
  incidentLink(
    'data_classification_ids',
    incidentDataClassifications,
    incidentDataClassifications.data_classification_id,
    'data_classification',
    'Data affected',
    'The classes of data it exposed or affected.',
  ),
  incidentLink(
    'risk_ids',
    incidentRisks,
    incidentRisks.risk_id,
    'risk',
    'Risks',
    'Risks it realised or revealed.',
  ),
  incidentLink(
    'processing_activity_ids',
    incidentProcessingActivities,
    incidentProcessingActivities.processing_activity_id,
    'processing_activity',
    'Processing activities',
    'Processing of personal data it affected.',
  ),
  incidentLink(
    'obligation_ids',
    incidentObligations,
    incidentObligations.obligation_id,
    'obligation',
    'Obligations',
    'Legal or contractual obligations it bears on (e.g. a customer notification clause).',
  ),
] as const;

/** A filter per link: incidents linked to one record of the link's register. */
function linkFilters() {
  return Object.fromEntries(
    LINKS.map((link) => {
      const kind = link.target as RegisterKind;
      const prefix = ID_PREFIXES[kind] as IdPrefix;
      const words = kind.replace(/_/g, ' ');
      return [
        link.field.replace(/_ids$/, '_id'),
        linkedFilter(
          { ownerId: incidents.id, owner: link.ownerColumn, target: link.targetColumn },
          { prefix, what: words.charAt(0).toUpperCase() + words.slice(1) },
          `Only incidents linked to this ${words} (\`${prefix}_...\`).`,
        ),
      ];
    }),
  );
}

/** The earliest open deadline of an incident, read with the record (`incident_deadlines`, kept by clocks-store.ts). */
const nextDeadline = sql<
  string | null
>`(select min(${incidentDeadlines.due_at}) from ${incidentDeadlines} where ${incidentDeadlines.incident_id} = ${incidents.id} and ${incidentDeadlines.open} = 1)`;

/** Times must make sense together: it cannot be detected before it occurred, nor classified before detected. */
function checkTimes(next: Row): void {
  const detected = String(next.detected_at);
  if (typeof next.occurred_at === 'string' && next.occurred_at > detected)
    throw new AppError(
      'invalid_arguments',
      `occurred_at (${next.occurred_at}) is after detected_at (${detected}): an incident is detected when or after it occurs. Fix one of them.`,
      { path: 'occurred_at' },
    );
  if (typeof next.dora_major_at === 'string' && next.dora_major_at < detected)
    throw new AppError(
      'invalid_arguments',
      `dora_major_at (${next.dora_major_at}) is before detected_at (${detected}): an incident is classified as major after the organization becomes aware of it.`,
      { path: 'dora_major_at' },
    );
}

export const incidentSpec: RegisterSpec = {
  kind: 'incident',
  prefix: 'inc',
  label: 'incident',
  labelPlural: 'incidents',
  noun: 'Incident',
  nounPlural: 'Incidents',
  key: 'incident',
  listKey: 'incidents',
  table: incidents,
  toolset: 'incidents',
  nameFields: ['title'],
  about:
    'An incident is a security or privacy event handled to closure (a data breach, malware, an outage), with its notification deadlines.',
  fields: {
    title: required(
      shortText().describe('What happened, in a line, e.g. "Laptop with customer data stolen".'),
    ),
    description: descriptionField('incident'),
    detected_at: required(
      instantSchema.describe(
        'When the organization became aware of it, ISO time with zone (e.g. 2026-11-28T09:30:00Z): the notification clocks start here.',
      ),
      undefined,
      { label: 'Detected at' },
    ),
    occurred_at: optional(instantSchema.describe('When it happened, if known (ISO time).'), undefined, {
      label: 'Occurred at',
    }),
    reported_by_id: optional(idOf('per', 'Person').describe('Who reported it (`per_...`).'), 'person', {
      label: 'Reported by',
      hint: 'The person who reported it.',
    }),
    owner_id: ownerField('Incident manager', 'The person handling it.'),
    severity: withDefault(severity, 'MEDIUM'),
    category: withDefault(category, 'OTHER'),
    status: withDefault(status, 'OPEN'),
    personal_data: withDefault(
      z.boolean().describe('Personal data is involved (a GDPR personal data breach).'),
      false,
      { label: 'Personal data involved' },
    ),
    affected_people: optional(
      z.number().int().min(0).max(10_000_000_000).describe('Estimated number of people affected.'),
      undefined,
      { label: 'People affected (estimate)' },
    ),
    gdpr_risk: optional(gdprRisk, undefined, {
      label: 'GDPR risk to people',
      hint: 'Unset counts as a risk: the 72-hour notice applies unless you assess it unlikely.',
    }),
    nis2_significant: withDefault(
      z
        .boolean()
        .describe('NIS2: a significant incident (Art. 23(3)): starts the 24 h / 72 h / 1 month reports.'),
      false,
      { label: 'NIS2 significant' },
    ),
    dora_major_at: optional(
      instantSchema.describe(
        'DORA: when it was classified as a major ICT-related incident (Art. 18), ISO time; setting it starts the DORA reports (initial notice within 4 h).',
      ),
      undefined,
      { label: 'DORA major since' },
    ),
    regimes: optional(
      z
        .array(regime)
        .max(REGIMES.length)
        .describe(`Regimes whose clocks apply (${REGIMES.join(', ')}); unset: the organization's setting.`),
      undefined,
      { label: 'Regimes', hint: "Leave empty to follow the organization's setting." },
    ),
    root_cause: optional(longText().describe('Root cause, once known.'), undefined, { label: 'Root cause' }),
    lessons_learned: optional(
      longText().describe('Lessons learned; raise a continual improvement or nonconformity for each action.'),
      undefined,
      { label: 'Lessons learned' },
    ),
    next_deadline_at: derived(
      z
        .string()
        .nullable()
        .describe('Derived: the earliest notification deadline still open (ISO time), or null.'),
      { label: 'Next deadline' },
    ),
  },
  computed: { next_deadline_at: nextDeadline },
  relations: [...LINKS, evidenceIdsRelation()],
  search: [incidents.title, incidents.description, incidents.root_cause],
  filters: {
    status: enumFilter(status, incidents.status, 'Any of these statuses.'),
    severity: enumFilter(severity, incidents.severity, 'Any of these severities.'),
    category: enumFilter(category, incidents.category, 'Any of these categories.'),
    personal_data: filter(z.boolean().describe('true: personal data breaches only.'), (value) =>
      eq(incidents.personal_data, value),
    ),
    open_deadlines: {
      ...filter(
        z.boolean().describe('true: incidents with a notification still due (running, waiting or missed).'),
        (value) => {
          const open = sql`exists (select 1 from ${incidentDeadlines} where ${incidentDeadlines.incident_id} = ${incidents.id} and ${incidentDeadlines.open} = 1)`;
          return value ? open : sql`not ${open}`;
        },
      ),
      // Few incidents have a notice still due: read from the open clocks' index, not by walking every incident.
      matches: (value, _today, organizationId) =>
        value === true
          ? sparseMatches(
              incidentDeadlines.incident_id,
              incidentDeadlines,
              and(eq(incidentDeadlines.organization_id, organizationId), eq(incidentDeadlines.open, true)),
            )
          : undefined,
    },
    owner_id: ownerFilter(incidents.owner_id, 'Incident manager'),
    ...linkFilters(),
  },
  orderFields: {
    title: { column: incidents.title },
    detected_at: { column: incidents.detected_at },
  },
  transitions: { status: INCIDENT_TRANSITIONS },
  beforeRead: (ctx, organizationId) => refreshClocks(ctx.db, [organizationId], ctx.now()),
  getExtras: {
    shape: {
      clocks: z
        .array(clockSchema)
        .describe(
          'The notification clocks that apply (GDPR, NIS2, DORA), computed now; relay MISSED and RUNNING ones.',
        ),
      time_zone: z.string().describe("The organization's time zone, in which due_local is written."),
    },
    read: async (ctx, record) => {
      const { clocks, timeZone } = await clocksOfIncident(ctx.db, record as never, ctx.now());
      return { clocks, time_zone: timeZone };
    },
  },
  prepare: (next) => checkTimes(next),
  hints: {
    list: 'Notices still due: filter.open_deadlines = true; those of a month or quarter: order_by detected_at.',
    delete: 'For an incident reported twice.',
    get: 'With its notification clocks (GDPR, NIS2, DORA): each deadline to notify the authority, the hours left, met or missed.',
    update:
      'Move its status (contained, eradicated, recovered, closed), classify it (personal_data, gdpr_risk, nis2_significant, dora_major_at) or note the root cause.',
    add: 'Report a security or privacy incident (a stolen laptop, malware, an outage) as soon as it is known: detected_at starts its clocks. Then getIncident shows them; addIncidentAction logs each step, addIncidentNotification each notice sent.',
  },
  example: {
    organization_id: 'org_...',
    title: 'Laptop with customer data stolen from a car',
    detected_at: '2026-11-28T09:30:00.000Z',
    severity: 'HIGH',
    category: 'LOST_OR_STOLEN_DEVICE',
    personal_data: true,
    affected_people: 1200,
    gdpr_risk: 'RISK',
  },
};
