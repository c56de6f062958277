// The regulatory clocks of incidents: each regime's arithmetic, including across daylight-saving changes, and the
// states a clock moves through as notifications are recorded.
import { describe, expect, it } from 'vitest';
import { type ClockIncident, clocksOf, type SentNotification } from '../../src/tools/incidents/clocks.ts';
import { addMonthsIn, timeOfWall } from '../../src/tools/incidents/zoned-time.ts';

const base: ClockIncident = {
  detected_at: '2026-03-28T09:00:00.000Z',
  personal_data: false,
  gdpr_risk: null,
  nis2_significant: false,
  dora_major_at: null,
};
const PARIS = 'Europe/Paris';
const sent = (regime: string, stage: string, sent_at: string): SentNotification => ({
  regime,
  stage,
  sent_at,
});
const byStage = (clocks: ReturnType<typeof clocksOf>) => Object.fromEntries(clocks.map((c) => [c.stage, c]));

describe('GDPR Art. 33 and 34', () => {
  it('gives the authority 72 hours from awareness, counted in hours across the change to summer time', () => {
    const incident = { ...base, personal_data: true };
    const [clock] = clocksOf(incident, ['GDPR'], [], new Date('2026-03-29T09:00:00Z'), PARIS);
    expect(clock).toMatchObject({
      regime: 'GDPR',
      stage: 'AUTHORITY',
      due_at: '2026-03-31T09:00:00.000Z',
      // 10:00 winter time on the 28th; 72 hours later the clocks show 11:00 summer time.
      due_local: '2026-03-31 11:00 Europe/Paris',
      hours_left: 48,
      state: 'RUNNING',
      source: 'Regulation (EU) 2016/679 (GDPR), Art. 33(1)',
    });
  });

  it('starts no clock for a breach assessed unlikely to result in a risk, or without personal data', () => {
    expect(
      clocksOf({ ...base, personal_data: true, gdpr_risk: 'UNLIKELY' }, ['GDPR'], [], new Date(), PARIS),
    ).toEqual([]);
    expect(clocksOf(base, ['GDPR'], [], new Date(), PARIS)).toEqual([]);
  });

  it('asks to tell the people affected without undue delay when the risk to them is high', () => {
    const clocks = byStage(
      clocksOf(
        { ...base, personal_data: true, gdpr_risk: 'HIGH_RISK' },
        ['GDPR'],
        [],
        new Date('2026-04-05T00:00:00Z'),
        PARIS,
      ),
    );
    expect(clocks.AUTHORITY?.state).toBe('MISSED');
    expect(clocks.AUTHORITY?.hours_left).toBe(-111);
    expect(clocks.DATA_SUBJECTS).toMatchObject({
      due_at: null,
      state: 'RUNNING',
      basis: 'without undue delay after awareness',
    });
  });

  it('is met when the notification is recorded in time, and late when after the deadline', () => {
    const incident = { ...base, personal_data: true };
    const now = new Date('2026-04-10T00:00:00Z');
    const [met] = clocksOf(
      incident,
      ['GDPR'],
      [sent('GDPR', 'AUTHORITY', '2026-03-30T12:00:00.000Z')],
      now,
      PARIS,
    );
    expect(met).toMatchObject({ state: 'MET', sent_at: '2026-03-30T12:00:00.000Z', hours_left: null });
    const [late] = clocksOf(
      incident,
      ['GDPR'],
      [sent('GDPR', 'AUTHORITY', '2026-03-31T09:00:01.000Z')],
      now,
      PARIS,
    );
    expect(late?.state).toBe('LATE');
  });

  it('starts no clock of a regime the organization or the incident does not follow', () => {
    expect(clocksOf({ ...base, personal_data: true }, ['NIS2', 'DORA'], [], new Date(), PARIS)).toEqual([]);
  });
});

describe('NIS2 Art. 23(4)', () => {
  const incident = { ...base, detected_at: '2026-10-20T08:00:00.000Z', nis2_significant: true };

  it('gives 24 hours for the early warning and 72 for the notification; the final report waits for the notification', () => {
    const clocks = byStage(clocksOf(incident, ['NIS2'], [], new Date('2026-10-20T10:00:00Z'), PARIS));
    expect(clocks.EARLY_WARNING).toMatchObject({ due_at: '2026-10-21T08:00:00.000Z', hours_left: 22 });
    expect(clocks.NOTIFICATION).toMatchObject({ due_at: '2026-10-23T08:00:00.000Z', hours_left: 70 });
    expect(clocks.FINAL_REPORT).toMatchObject({
      due_at: null,
      state: 'WAITING',
      basis: 'starts when the notification was sent',
    });
  });

  it('counts the final report one calendar month from the notification, in local time across the end of summer time', () => {
    const notified = [
      sent('NIS2', 'EARLY_WARNING', '2026-10-21T07:00:00.000Z'),
      sent('NIS2', 'NOTIFICATION', '2026-10-22T08:00:00.000Z'),
    ];
    const clocks = byStage(clocksOf(incident, ['NIS2'], notified, new Date('2026-11-01T00:00:00Z'), PARIS));
    expect(clocks.EARLY_WARNING?.state).toBe('MET');
    expect(clocks.NOTIFICATION?.state).toBe('MET');
    // 10:00 summer time (UTC+2) on 22 October; a month later 10:00 winter time (UTC+1) is 09:00 UTC.
    expect(clocks.FINAL_REPORT).toMatchObject({
      due_at: '2026-11-22T09:00:00.000Z',
      due_local: '2026-11-22 10:00 Europe/Paris',
      state: 'RUNNING',
    });
  });
});

describe('DORA Art. 19(4) and Delegated Regulation (EU) 2025/301', () => {
  const incident = {
    ...base,
    detected_at: '2026-06-01T10:00:00.000Z',
    dora_major_at: '2026-06-01T12:00:00.000Z',
  };

  it('gives the initial notification 4 hours from classification as major, never more than 24 from awareness, none when not major', () => {
    const early = byStage(
      clocksOf(
        { ...incident, dora_major_at: '2026-06-01T20:00:00.000Z' },
        ['DORA'],
        [],
        new Date('2026-06-01T21:00:00Z'),
        'UTC',
      ),
    );
    expect(early.INITIAL_NOTIFICATION).toMatchObject({ due_at: '2026-06-02T00:00:00.000Z', hours_left: 3 });
    const late = byStage(
      clocksOf(
        { ...incident, dora_major_at: '2026-06-02T08:00:00.000Z' },
        ['DORA'],
        [],
        new Date('2026-06-02T09:00:00Z'),
        'UTC',
      ),
    );
    expect(late.INITIAL_NOTIFICATION?.due_at).toBe('2026-06-02T10:00:00.000Z');
    const classified = byStage(clocksOf(incident, ['DORA'], [], new Date('2026-06-01T13:00:00Z'), 'UTC'));
    expect(classified.INITIAL_NOTIFICATION?.due_at).toBe('2026-06-01T16:00:00.000Z');
    expect(classified.INTERMEDIATE_REPORT?.state).toBe('WAITING');
    expect(clocksOf({ ...incident, dora_major_at: null }, ['DORA'], [], new Date(), 'UTC')).toEqual([]);
  });

  it('chains the intermediate report 72 hours after the initial one and the final report a month after the intermediate', () => {
    const notified = [
      sent('DORA', 'INITIAL_NOTIFICATION', '2026-06-01T23:00:00.000Z'),
      sent('DORA', 'INTERMEDIATE_REPORT', '2026-06-04T12:00:00.000Z'),
      sent('DORA', 'INTERMEDIATE_REPORT', '2026-06-05T12:00:00.000Z'),
    ];
    const clocks = byStage(clocksOf(incident, ['DORA'], notified, new Date('2026-06-06T00:00:00Z'), 'UTC'));
    expect(clocks.INTERMEDIATE_REPORT).toMatchObject({ due_at: '2026-06-04T23:00:00.000Z', state: 'MET' });
    // From the latest intermediate report.
    expect(clocks.FINAL_REPORT).toMatchObject({ due_at: '2026-07-05T12:00:00.000Z', state: 'RUNNING' });
  });
});

describe('calendar months in a time zone', () => {
  it('keeps the wall-clock time and clamps the day to the end of a shorter month', () => {
    expect(new Date(addMonthsIn(Date.parse('2027-01-31T12:00:00Z'), 1, 'UTC')).toISOString()).toBe(
      '2027-02-28T12:00:00.000Z',
    );
    expect(
      new Date(addMonthsIn(Date.parse('2026-02-28T23:30:00Z'), 1, 'Pacific/Auckland')).toISOString(),
    ).toBe('2026-03-31T23:30:00.000Z');
  });

  it('reads a wall time skipped by the change to summer time an hour later, and a repeated one at its first moment', () => {
    const wall = (day: number, hour: number) => ({
      year: 2026,
      month: 3,
      day,
      hour,
      minute: 30,
      second: 0,
      millisecond: 0,
    });
    expect(new Date(timeOfWall(wall(29, 2), PARIS)).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    const repeated = { year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0, millisecond: 0 };
    expect(new Date(timeOfWall(repeated, PARIS)).toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });
});
