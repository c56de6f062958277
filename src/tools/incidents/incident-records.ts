// An incident's timeline entries (what was done, when, by whom) and the notifications sent for it (to an authority or
// to the people affected), each a register of its own linked to the incident and deleted with it.
import { eq } from 'drizzle-orm';
import { incidentActions, incidentNotifications, incidents } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { caseInsensitiveEnum, idOf, instantSchema, longText, shortText } from '../fields.ts';
import { enumFilter, filter, optional, type RegisterSpec, type Row, required } from '../registers/spec.ts';
import type { ToolContext } from '../types.ts';
import { ALL_STAGES, NOTIFICATION_STAGES, REGIMES, type Regime } from './clocks.ts';

/** The incident a timeline entry or notification belongs to: set on add, never moved; deleted with the incident. */
const incidentField = () => ({
  ...required(
    idOf('inc', 'Incident').describe('The incident (`inc_...`); cannot change later.'),
    'incident',
    {
      label: 'Incident',
      hint: 'The incident it belongs to.',
    },
  ),
  fixed: true,
  cascade: true,
});

const incidentFilter = (
  column: typeof incidentActions.incident_id | typeof incidentNotifications.incident_id,
) =>
  filter(idOf('inc', 'Incident').describe('Only those of this incident (`inc_...`).'), (value) =>
    eq(column, value),
  );

/** The incident's awareness time, read for checks that compare with it. */
async function detectedAt(ctx: ToolContext, incidentId: unknown): Promise<string | null> {
  if (typeof incidentId !== 'string') return null;
  const [row] = await ctx.db
    .select({ detected_at: incidents.detected_at })
    .from(incidents)
    .where(eq(incidents.id, incidentId))
    .limit(1);
  return row?.detected_at ?? null;
}

export const incidentActionSpec: RegisterSpec = {
  kind: 'incident_action',
  prefix: 'ina',
  label: 'incident action',
  labelPlural: 'incident actions',
  noun: 'IncidentAction',
  nounPlural: 'IncidentActions',
  key: 'incident_action',
  listKey: 'incident_actions',
  table: incidentActions,
  toolset: 'incidents',
  nameFields: ['action'],
  about: "An incident action is a step of an incident's timeline: what was done, when and by whom.",
  fields: {
    incident_id: incidentField(),
    at: required(instantSchema.describe('When it was done (ISO time with zone).'), undefined, {
      label: 'At',
    }),
    actor_id: optional(idOf('per', 'Person').describe('Who did it (`per_...`).'), 'person', {
      label: 'By',
      hint: 'The person who did it.',
    }),
    action: required(
      longText(2000, 1).describe('What was done, e.g. "Revoked the laptop\'s certificates".'),
      undefined,
      { label: 'Action' },
    ),
    outcome: optional(longText(5000).describe('What it achieved or found, if worth noting.'), undefined, {
      label: 'Outcome',
    }),
  },
  search: [incidentActions.action, incidentActions.outcome],
  filters: { incident_id: incidentFilter(incidentActions.incident_id) },
  orderFields: { at: { column: incidentActions.at } },
  hints: {
    list: "An incident's timeline, step by step: filter.incident_id and order_by at.",
    get: 'Open one timeline entry by its id.',
    add: "Add a step to an incident's timeline: what was done (action), when (at) and by whom (actor_id).",
    update: "Correct an entry of an incident's timeline: its time, who or what.",
    delete: "Remove a wrong entry from an incident's timeline.",
  },
  example: {
    organization_id: 'org_...',
    incident_id: 'inc_...',
    at: '2026-11-28T10:05:00.000Z',
    action: 'Wiped the stolen laptop remotely and revoked its VPN certificate',
  },
};

const regime = caseInsensitiveEnum(REGIMES).describe(`Regime: ${REGIMES.join(', ')}.`);
const stageWords = (Object.entries(NOTIFICATION_STAGES) as [Regime, readonly string[]][])
  .map(([name, stages]) => `${name}: ${stages.join(', ')}`)
  .join('; ');
const stage = caseInsensitiveEnum(ALL_STAGES).describe(`Stage of that regime (${stageWords}).`);

/** The stage must be one of its regime's, and a notice cannot be sent before the incident was known. */
async function checkNotification(ctx: ToolContext, next: Row): Promise<void> {
  const stages = NOTIFICATION_STAGES[next.regime as Regime] as readonly string[];
  if (!stages.includes(String(next.stage)))
    throw new AppError(
      'invalid_arguments',
      `${String(next.stage)} is not a stage of ${String(next.regime)}: use one of ${stages.join(', ')}.`,
      { path: 'stage' },
    );
  const detected = await detectedAt(ctx, next.incident_id);
  if (detected && String(next.sent_at) < detected)
    throw new AppError(
      'invalid_arguments',
      `sent_at (${String(next.sent_at)}) is before the incident was detected (${detected}): a notification follows awareness. Fix sent_at, or the incident's detected_at.`,
      { path: 'sent_at' },
    );
}

export const incidentNotificationSpec: RegisterSpec = {
  kind: 'incident_notification',
  prefix: 'inn',
  label: 'incident notification',
  labelPlural: 'incident notifications',
  noun: 'IncidentNotification',
  nounPlural: 'IncidentNotifications',
  key: 'incident_notification',
  listKey: 'incident_notifications',
  table: incidentNotifications,
  toolset: 'incidents',
  nameFields: ['recipient'],
  about:
    'An incident notification records a notice sent under a regime and stage (e.g. GDPR AUTHORITY, NIS2 EARLY_WARNING): recording it stops that clock.',
  fields: {
    incident_id: incidentField(),
    regime: required(regime, undefined, { label: 'Regime' }),
    stage: required(stage, undefined, { label: 'Stage' }),
    recipient: required(
      shortText().describe('Who it was sent to, e.g. "CNIL", "CERT-FR", "affected customers".'),
      undefined,
      {
        label: 'Sent to',
      },
    ),
    sent_at: required(instantSchema.describe('When it was sent (ISO time with zone).'), undefined, {
      label: 'Sent at',
    }),
    reference: optional(shortText(200).describe("The recipient's case or reference number."), undefined, {
      label: 'Reference',
    }),
    document_id: optional(
      idOf('doc', 'Document').describe('The notice as a document (`doc_...`), if stored.'),
      'document',
      {
        label: 'Document',
        hint: 'The notice as sent, if kept as a document.',
      },
    ),
    note: optional(longText(5000).describe('Anything to remember about it.'), undefined, { label: 'Note' }),
  },
  search: [incidentNotifications.recipient, incidentNotifications.reference, incidentNotifications.note],
  filters: {
    incident_id: incidentFilter(incidentNotifications.incident_id),
    regime: enumFilter(regime, incidentNotifications.regime, 'Any of these regimes.'),
  },
  orderFields: { sent_at: { column: incidentNotifications.sent_at } },
  settle: (ctx, next) => checkNotification(ctx, next),
  hints: {
    list: 'Notices already sent to regulators for an incident: filter.incident_id.',
    get: 'One notice sent to a supervisory authority, a CSIRT or the people affected.',
    add: 'Record a notice once sent to an authority, a CSIRT or the people affected: it stops the clock of its regime and stage.',
    update: "Correct a recorded notice: the recipient, the authority's case reference, the time or the note.",
    delete: 'Remove a notice recorded against the wrong incident; its clock runs again.',
  },
  example: {
    organization_id: 'org_...',
    incident_id: 'inc_...',
    regime: 'GDPR',
    stage: 'AUTHORITY',
    recipient: 'CNIL',
    sent_at: '2026-11-29T16:00:00.000Z',
    reference: 'CNIL-2026-11873',
  },
};
