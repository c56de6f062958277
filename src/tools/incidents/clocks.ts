// Regulatory notification clocks of an incident, as data with their legal sources, and the one function that turns
// an incident and the notifications recorded for it into each clock's deadline and state. Nothing here is typed by a
// person: deadlines follow from the awareness time, the classification and the notifications sent.

import { GDPR_RISK_LEVELS, REGIMES } from '../states.ts';
import { addMonthsIn } from './zoned-time.ts';

export { GDPR_RISK_LEVELS, REGIMES };

export type Regime = (typeof REGIMES)[number];

export type GdprRisk = (typeof GDPR_RISK_LEVELS)[number];

/** Every stage a notification can be recorded for, per regime. */
export const NOTIFICATION_STAGES = {
  GDPR: ['AUTHORITY', 'DATA_SUBJECTS'],
  NIS2: ['EARLY_WARNING', 'NOTIFICATION', 'INTERMEDIATE_REPORT', 'FINAL_REPORT'],
  DORA: ['INITIAL_NOTIFICATION', 'INTERMEDIATE_REPORT', 'FINAL_REPORT'],
} as const satisfies Record<Regime, readonly string[]>;
export const ALL_STAGES = [
  ...new Set(Object.values(NOTIFICATION_STAGES).flat()),
] as readonly string[] as readonly [string, ...string[]];

/** What the clocks read of an incident. */
export interface ClockIncident {
  /** When the organization became aware of the incident (ISO time): the start of every first-stage clock. */
  detected_at: string;
  personal_data: boolean;
  /** GDPR: null counts as a risk (a breach is notifiable unless assessed unlikely to result in one). */
  gdpr_risk: GdprRisk | null;
  nis2_significant: boolean;
  /** DORA: when the incident was classified as a major ICT-related incident (ISO time); null = not major. */
  dora_major_at: string | null;
}

/** A notification as recorded (regime, stage, when it was sent). */
export interface SentNotification {
  regime: string;
  stage: string;
  sent_at: string;
}

type Anchor =
  | { from: 'awareness' }
  /** DORA's initial notification: hours from classification, but never later than hours from awareness. */
  | { from: 'classification'; cap: number }
  /** A later stage: counted from when an earlier stage's notification was sent (the latest one recorded). */
  | { from: 'stage'; stage: string };

export interface ClockRule {
  regime: Regime;
  stage: string;
  /** What is due, in this project's words. */
  title: string;
  /** The legal source, cited. */
  source: string;
  /** Whether the regime asks for this stage for this incident. */
  applies(incident: ClockIncident): boolean;
  anchor: Anchor;
  /** The period: hours (absolute), calendar months (in the organization's time zone), or none ("without undue delay"). */
  period: { hours: number } | { months: number } | null;
}

const breach = (incident: ClockIncident) => incident.personal_data && incident.gdpr_risk !== 'UNLIKELY';

/** The rules. Intermediate NIS2 reports are due only on the authority's request, so they start no clock. */
export const CLOCK_RULES: readonly ClockRule[] = [
  {
    regime: 'GDPR',
    stage: 'AUTHORITY',
    title: 'Notify the supervisory authority of the personal data breach',
    source: 'Regulation (EU) 2016/679 (GDPR), Art. 33(1)',
    applies: breach,
    anchor: { from: 'awareness' },
    period: { hours: 72 },
  },
  {
    regime: 'GDPR',
    stage: 'DATA_SUBJECTS',
    title: 'Tell the people affected, without undue delay (high risk to them)',
    source: 'Regulation (EU) 2016/679 (GDPR), Art. 34(1)',
    applies: (incident) => incident.personal_data && incident.gdpr_risk === 'HIGH_RISK',
    anchor: { from: 'awareness' },
    period: null,
  },
  {
    regime: 'NIS2',
    stage: 'EARLY_WARNING',
    title: 'Send the CSIRT or authority an early warning of the significant incident',
    source: 'Directive (EU) 2022/2555 (NIS2), Art. 23(4)(a)',
    applies: (incident) => incident.nis2_significant,
    anchor: { from: 'awareness' },
    period: { hours: 24 },
  },
  {
    regime: 'NIS2',
    stage: 'NOTIFICATION',
    title: 'Send the incident notification with a first assessment',
    source: 'Directive (EU) 2022/2555 (NIS2), Art. 23(4)(b)',
    applies: (incident) => incident.nis2_significant,
    anchor: { from: 'awareness' },
    period: { hours: 72 },
  },
  {
    regime: 'NIS2',
    stage: 'FINAL_REPORT',
    title: 'Send the final report (one month after the incident notification)',
    source: 'Directive (EU) 2022/2555 (NIS2), Art. 23(4)(d)',
    applies: (incident) => incident.nis2_significant,
    anchor: { from: 'stage', stage: 'NOTIFICATION' },
    period: { months: 1 },
  },
  {
    regime: 'DORA',
    stage: 'INITIAL_NOTIFICATION',
    title: 'Send the initial notification of the major ICT-related incident',
    source:
      'Regulation (EU) 2022/2554 (DORA), Art. 19(4)(a); Commission Delegated Regulation (EU) 2025/301, Art. 5(1)(a)',
    applies: (incident) => incident.dora_major_at !== null,
    anchor: { from: 'classification', cap: 24 },
    period: { hours: 4 },
  },
  {
    regime: 'DORA',
    stage: 'INTERMEDIATE_REPORT',
    title: 'Send the intermediate report (72 hours after the initial notification)',
    source:
      'Regulation (EU) 2022/2554 (DORA), Art. 19(4)(b); Commission Delegated Regulation (EU) 2025/301, Art. 5(1)(b)',
    applies: (incident) => incident.dora_major_at !== null,
    anchor: { from: 'stage', stage: 'INITIAL_NOTIFICATION' },
    period: { hours: 72 },
  },
  {
    regime: 'DORA',
    stage: 'FINAL_REPORT',
    title: 'Send the final report (one month after the latest intermediate report)',
    source:
      'Regulation (EU) 2022/2554 (DORA), Art. 19(4)(c); Commission Delegated Regulation (EU) 2025/301, Art. 5(1)(c)',
    applies: (incident) => incident.dora_major_at !== null,
    anchor: { from: 'stage', stage: 'INTERMEDIATE_REPORT' },
    period: { months: 1 },
  },
];

/**
 * Where a clock stands: `WAITING` for the stage it counts from; `RUNNING` not sent and not yet due (a clock without a
 * fixed period runs until it is sent); `MISSED` not sent and past due; `MET` sent in time; `LATE` sent after the
 * deadline.
 */
export const CLOCK_STATES = ['WAITING', 'RUNNING', 'MISSED', 'MET', 'LATE'] as const;
export type ClockState = (typeof CLOCK_STATES)[number];

export interface Clock {
  regime: Regime;
  stage: string;
  title: string;
  source: string;
  /** The deadline (ISO time, UTC), or null: waiting for an earlier stage, or "without undue delay". */
  due_at: string | null;
  /** The same in the organization's time zone, as a person reads it: "2026-11-30 14:05 Europe/Paris". */
  due_local: string | null;
  /** Whole hours from now to the deadline (negative once passed); null without a deadline or once sent. */
  hours_left: number | null;
  /** When its notification was sent (the first recorded for the stage), or null. */
  sent_at: string | null;
  state: ClockState;
  /** What it counts from, in words. */
  basis: string;
}

const HOUR = 3_600_000;

function latestSent(sent: readonly SentNotification[], regime: string, stage: string): string | null {
  let latest: string | null = null;
  for (const item of sent)
    if (item.regime === regime && item.stage === stage && (!latest || item.sent_at > latest))
      latest = item.sent_at;
  return latest;
}

function firstSent(sent: readonly SentNotification[], regime: string, stage: string): string | null {
  let first: string | null = null;
  for (const item of sent)
    if (item.regime === regime && item.stage === stage && (!first || item.sent_at < first))
      first = item.sent_at;
  return first;
}

function iso(time: number): string {
  return new Date(time).toISOString();
}

/** The deadline of one rule (ms since the epoch), null when it has none yet, and what it counts from. */
function deadlineOf(
  rule: ClockRule,
  incident: ClockIncident,
  sent: readonly SentNotification[],
  timeZone: string,
): { due: number | null; basis: string } {
  const aware = Date.parse(incident.detected_at);
  const { anchor, period } = rule;
  if (period === null) return { due: null, basis: 'without undue delay after awareness' };
  if (anchor.from === 'awareness' && 'hours' in period)
    return { due: aware + period.hours * HOUR, basis: `${period.hours} hours after awareness` };
  if (anchor.from === 'classification' && 'hours' in period) {
    const cap = aware + anchor.cap * HOUR;
    const fromClassification = Date.parse(String(incident.dora_major_at)) + period.hours * HOUR;
    return fromClassification <= cap
      ? { due: fromClassification, basis: `${period.hours} hours after classification as major` }
      : {
          due: cap,
          basis: `${anchor.cap} hours after awareness (earlier than ${period.hours} h after classification)`,
        };
  }
  if (anchor.from === 'stage') {
    const start = latestSent(sent, rule.regime, anchor.stage);
    const what = `the ${anchor.stage.toLowerCase().replace(/_/g, ' ')} was sent`;
    if (!start) return { due: null, basis: `starts when ${what}` };
    const from = Date.parse(start);
    if ('hours' in period)
      return { due: from + period.hours * HOUR, basis: `${period.hours} hours after ${what}` };
    return {
      due: addMonthsIn(from, period.months, timeZone),
      basis: `${period.months} month${period.months > 1 ? 's' : ''} after ${what}`,
    };
  }
  throw new Error(`clock rule ${rule.regime} ${rule.stage}: unknown anchor`);
}

/** A time as a person in `timeZone` reads it: "2026-11-30 14:05 Europe/Paris". */
export function localStamp(time: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(time)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${timeZone}`;
}

/**
 * The clocks of an incident under the regimes that apply to it, in the rules' order: each with its deadline, the
 * hours left at `now`, and its state given the notifications recorded.
 */
export function clocksOf(
  incident: ClockIncident,
  regimes: readonly Regime[],
  sent: readonly SentNotification[],
  now: Date,
  timeZone: string,
): Clock[] {
  const clocks: Clock[] = [];
  for (const rule of CLOCK_RULES) {
    if (!regimes.includes(rule.regime) || !rule.applies(incident)) continue;
    const { due, basis } = deadlineOf(rule, incident, sent, timeZone);
    const sentAt = firstSent(sent, rule.regime, rule.stage);
    const waiting = due === null && rule.period !== null;
    const state: ClockState = sentAt
      ? due !== null && Date.parse(sentAt) > due
        ? 'LATE'
        : 'MET'
      : waiting
        ? 'WAITING'
        : due !== null && now.getTime() > due
          ? 'MISSED'
          : 'RUNNING';
    clocks.push({
      regime: rule.regime,
      stage: rule.stage,
      title: rule.title,
      source: rule.source,
      due_at: due === null ? null : iso(due),
      due_local: due === null ? null : localStamp(due, timeZone),
      hours_left: due === null || sentAt ? null : Math.floor((due - now.getTime()) / HOUR),
      sent_at: sentAt,
      state,
      basis,
    });
  }
  return clocks;
}

/** The stages a regime has: a notification recorded for another is refused. */
export function stagesOf(regime: Regime): readonly string[] {
  return NOTIFICATION_STAGES[regime];
}
