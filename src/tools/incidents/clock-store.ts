// The incidents' clocks kept for reading: `incident_deadlines` holds each clock as last computed, and triggers queue an
// incident in `incident_clock_queue` whenever it, its notifications or its organization's settings change (in the same
// transaction as the change). Readers of deadlines (My work, the summary, the deadline scan) call refreshClocks
// first, which computes the queued incidents of their organizations and takes them off the queue.
import { and, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  incidentClockQueue,
  incidentDeadlines,
  incidentNotifications,
  incidents,
  organizations,
} from '../../db/schema.ts';
import { readSettings, settingsFrom } from '../settings.ts';
import {
  CLOCK_RULES,
  type Clock,
  type ClockIncident,
  clocksOf,
  localStamp,
  type Regime,
  type SentNotification,
} from './clocks.ts';
import { wallTimeAt } from './zoned-time.ts';

/** At most this many incidents are computed per refresh call (a large backlog is worked off over several reads). */
const REFRESH_BATCH = 200;

type IncidentRow = typeof incidents.$inferSelect;

function clockIncident(row: IncidentRow): ClockIncident {
  return {
    detected_at: row.detected_at,
    personal_data: row.personal_data,
    gdpr_risk: (row.gdpr_risk as ClockIncident['gdpr_risk']) ?? null,
    nis2_significant: row.nis2_significant,
    dora_major_at: row.dora_major_at,
  };
}

/** The regimes an incident follows: its own list when it has one, else the organization's. */
export function regimesOf(
  row: Pick<IncidentRow, 'regimes'>,
  organizationRegimes: readonly Regime[],
): Regime[] {
  return (row.regimes as Regime[] | null) ?? [...organizationRegimes];
}

/** The clocks of one incident as they stand at `now` (what getIncident and the incident page show). */
export async function clocksOfIncident(
  db: Db,
  row: IncidentRow,
  now: Date,
): Promise<{ clocks: Clock[]; timeZone: string }> {
  const settings = await readSettings(db, row.organization_id);
  const sent = await db
    .select({
      regime: incidentNotifications.regime,
      stage: incidentNotifications.stage,
      sent_at: incidentNotifications.sent_at,
    })
    .from(incidentNotifications)
    .where(eq(incidentNotifications.incident_id, row.id));
  return {
    clocks: clocksOf(
      clockIncident(row),
      regimesOf(row, settings.incident_regimes),
      sent,
      now,
      settings.time_zone,
    ),
    timeZone: settings.time_zone,
  };
}

/** The calendar date (YYYY-MM-DD) of an ISO time in a time zone. */
function localDate(iso: string, timeZone: string): string {
  const wall = wallTimeAt(Date.parse(iso), timeZone);
  return `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
}

/**
 * Computes the clocks of the queued incidents of these organizations and stores them, each incident's rows replaced
 * and its queue entry removed in one batch, only while the entry is the one read (a write meanwhile queues it again
 * with a new token, and the next refresh computes it).
 */
export async function refreshClocks(db: Db, organizationIds: readonly string[], now: Date): Promise<number> {
  if (organizationIds.length === 0) return 0;
  const queued = await db
    .select()
    .from(incidentClockQueue)
    .where(inArray(incidentClockQueue.organization_id, [...organizationIds]))
    .limit(REFRESH_BATCH);
  if (queued.length === 0) return 0;
  const ids = queued.map((entry) => entry.incident_id);
  const [rows, sent, orgs] = await db.batch([
    db.select().from(incidents).where(inArray(incidents.id, ids)),
    db
      .select({
        incident_id: incidentNotifications.incident_id,
        regime: incidentNotifications.regime,
        stage: incidentNotifications.stage,
        sent_at: incidentNotifications.sent_at,
      })
      .from(incidentNotifications)
      .where(inArray(incidentNotifications.incident_id, ids)),
    db
      .select({ id: organizations.id, settings: organizations.settings })
      .from(organizations)
      .where(inArray(organizations.id, [...new Set(queued.map((entry) => entry.organization_id))])),
  ]);
  const settingsOf = new Map(orgs.map((org) => [org.id, settingsFrom(org.settings)]));
  const byIncident = new Map<string, SentNotification[]>();
  for (const item of sent)
    byIncident.set(item.incident_id, [...(byIncident.get(item.incident_id) ?? []), item]);
  const rowOf = new Map(rows.map((row) => [row.id, row]));
  const statements = [];
  for (const entry of queued) {
    const stillQueued = sql`exists (select 1 from ${incidentClockQueue} where ${incidentClockQueue.incident_id} = ${entry.incident_id} and ${incidentClockQueue.token} = ${entry.token})`;
    statements.push(
      db
        .delete(incidentDeadlines)
        .where(and(eq(incidentDeadlines.incident_id, entry.incident_id), stillQueued)),
    );
    const row = rowOf.get(entry.incident_id);
    const settings = settingsOf.get(entry.organization_id);
    if (row && settings) {
      const clocks = clocksOf(
        clockIncident(row),
        regimesOf(row, settings.incident_regimes),
        byIncident.get(row.id) ?? [],
        now,
        settings.time_zone,
      );
      for (const clock of clocks) {
        const dueOn =
          clock.due_at !== null
            ? localDate(clock.due_at, settings.time_zone)
            : clock.state === 'RUNNING'
              ? localDate(row.detected_at, settings.time_zone)
              : null;
        statements.push(
          db.run(
            sql`insert into ${incidentDeadlines} (organization_id, incident_id, regime, stage, due_at, due_on, sent_at, open) select ${row.organization_id}, ${row.id}, ${clock.regime}, ${clock.stage}, ${clock.due_at}, ${dueOn}, ${clock.sent_at}, ${clock.sent_at ? 0 : 1} where ${stillQueued}`,
          ),
        );
      }
    }
    statements.push(
      db
        .delete(incidentClockQueue)
        .where(
          and(
            eq(incidentClockQueue.incident_id, entry.incident_id),
            eq(incidentClockQueue.token, entry.token),
          ),
        ),
    );
  }
  await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  return queued.length;
}

/** An open clock as stored, with what a reader tells about it: the incident, the rule, the organization's zone. */
export interface OpenDeadline {
  organization_id: string;
  incident_id: string;
  title: string;
  status: string;
  owner_id: string | null;
  regime: Regime;
  stage: string;
  /** The deadline (ISO time, UTC); null for a notice due "without undue delay". */
  due_at: string | null;
  /** Its calendar date in the organization's time zone (the awareness day for "without undue delay"). */
  due_on: string;
  /** The deadline as a person in the organization reads it: "2026-12-01 09:30 Europe/Paris". */
  due_local: string | null;
  time_zone: string;
  /** What is due and its legal source (CLOCK_RULES). */
  what: string;
  source: string;
}

/**
 * The open clocks of these organizations that have a due date (not those waiting for an earlier stage), matching
 * `where` (a condition on `incident_deadlines`), at most `limit`: read from `incident_deadlines` by its index on
 * (organization, open, due_at), so the cost follows the open clocks, not the incidents. Refresh the clocks first.
 */
export async function openDeadlines(
  db: Db,
  organizationIds: readonly string[],
  where: SQL | undefined,
  limit: number,
): Promise<OpenDeadline[]> {
  if (organizationIds.length === 0) return [];
  const rows = await db
    .select({
      organization_id: incidentDeadlines.organization_id,
      incident_id: incidentDeadlines.incident_id,
      regime: incidentDeadlines.regime,
      stage: incidentDeadlines.stage,
      due_at: incidentDeadlines.due_at,
      due_on: incidentDeadlines.due_on,
      title: incidents.title,
      status: incidents.status,
      owner_id: incidents.owner_id,
      settings: organizations.settings,
    })
    .from(incidentDeadlines)
    .innerJoin(incidents, eq(incidents.id, incidentDeadlines.incident_id))
    .innerJoin(organizations, eq(organizations.id, incidentDeadlines.organization_id))
    .where(
      and(
        inArray(incidentDeadlines.organization_id, [...organizationIds]),
        eq(incidentDeadlines.open, true),
        isNotNull(incidentDeadlines.due_on),
        where,
      ),
    )
    .orderBy(incidentDeadlines.due_at, incidentDeadlines.incident_id, incidentDeadlines.stage)
    .limit(limit);
  return rows.map(({ settings, ...row }) => {
    const timeZone = settingsFrom(settings).time_zone;
    const rule = CLOCK_RULES.find((item) => item.regime === row.regime && item.stage === row.stage);
    return {
      ...row,
      regime: row.regime as Regime,
      due_on: String(row.due_on),
      due_local: row.due_at === null ? null : localStamp(Date.parse(row.due_at), timeZone),
      time_zone: timeZone,
      what: rule?.title ?? `${row.regime} ${row.stage}`,
      source: rule?.source ?? '',
    };
  });
}
