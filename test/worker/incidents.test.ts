// Incidents on the Worker host in workerd: an incident with personal data, in an organization following GDPR and NIS2
// in Europe/Paris, gets its notification clocks computed there; a notice recorded stops its clock, and one dated
// before the incident was detected is refused with nothing written.
import { afterAll, describe, expect, it } from 'vitest';
import { callTool as call, ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

const database = testDatabase();
afterAll(() => database.client.close());

const HOUR = 3_600_000;
const iso = (time: number) => new Date(time).toISOString();

describe('incidents on the Worker', () => {
  it('computes the GDPR and NIS2 clocks of a personal data breach and stops the one whose notice is recorded', async () => {
    const { organizationId, token } = await ownedOrganization(database, 'incidents');
    const settings = await call(token, 'updateOrganizationSettings', {
      organization_id: organizationId,
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
    });
    expect(settings.status).toBe(200);

    // Detected 10.5 hours ago: 61.5 hours left of GDPR's 72 and NIS2's notification, 13.5 of the early warning.
    const detected = Math.floor((Date.now() - 10.5 * HOUR) / 1000) * 1000;
    const added = await call(token, 'addIncident', {
      organization_id: organizationId,
      title: 'Customer database exposed',
      detected_at: iso(detected),
      personal_data: true,
      nis2_significant: true,
      severity: 'HIGH',
    });
    expect(added.status).toBe(200);
    const incident = added.body.incident as Row;
    expect(incident.next_deadline_at).toBe(iso(detected + 24 * HOUR));

    const clocksOf = async () => {
      const got = await call(token, 'getIncident', { id: incident.id });
      expect(got.status).toBe(200);
      expect(got.body.time_zone).toBe('Europe/Paris');
      return (got.body.clocks as Row[]).map(({ regime, stage, state, due_at, hours_left, due_local }) => ({
        regime,
        stage,
        state,
        due_at,
        hours_left,
        paris: typeof due_local === 'string' && due_local.endsWith(' Europe/Paris'),
      }));
    };
    expect(await clocksOf()).toEqual([
      {
        regime: 'GDPR',
        stage: 'AUTHORITY',
        state: 'RUNNING',
        due_at: iso(detected + 72 * HOUR),
        hours_left: 61,
        paris: true,
      },
      {
        regime: 'NIS2',
        stage: 'EARLY_WARNING',
        state: 'RUNNING',
        due_at: iso(detected + 24 * HOUR),
        hours_left: 13,
        paris: true,
      },
      {
        regime: 'NIS2',
        stage: 'NOTIFICATION',
        state: 'RUNNING',
        due_at: iso(detected + 72 * HOUR),
        hours_left: 61,
        paris: true,
      },
      {
        regime: 'NIS2',
        stage: 'FINAL_REPORT',
        state: 'WAITING',
        due_at: null,
        hours_left: null,
        paris: false,
      },
    ]);

    // A notice dated before the incident was detected: refused on sent_at, nothing recorded.
    const early = await call(token, 'addIncidentNotification', {
      organization_id: organizationId,
      incident_id: incident.id,
      regime: 'NIS2',
      stage: 'EARLY_WARNING',
      recipient: 'CERT-FR',
      sent_at: iso(detected - HOUR),
    });
    expect(early.status).toBe(400);
    expect(JSON.stringify(early.body)).toContain('sent_at');
    const none = await call(token, 'listIncidentNotifications', {
      organization_id: organizationId,
      filter: { incident_id: incident.id },
    });
    expect(none.body.incident_notifications).toEqual([]);

    const sent = await call(token, 'addIncidentNotification', {
      organization_id: organizationId,
      incident_id: incident.id,
      regime: 'NIS2',
      stage: 'EARLY_WARNING',
      recipient: 'CERT-FR',
      sent_at: iso(detected + 2 * HOUR),
    });
    expect(sent.status).toBe(200);
    const after = await clocksOf();
    expect(after.map(({ stage, state, hours_left }) => [stage, state, hours_left])).toEqual([
      ['AUTHORITY', 'RUNNING', 61],
      ['EARLY_WARNING', 'MET', null],
      ['NOTIFICATION', 'RUNNING', 61],
      ['FINAL_REPORT', 'WAITING', null],
    ]);
  });
});
