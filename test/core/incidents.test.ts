// Incidents and the privacy registers through the tools: the clocks an incident gets from its classification and the
// organization's settings, notifications that stop them, My work's deadlines, and the refusals of bad input.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RISK_METHOD } from '../../src/tools/risk-method.ts';
import {
  addMember,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-11-28T10:00:00.000Z');
let token: string;
let readToken: string;
let editorToken: string;
let org: string;
let person: Row;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const dana = await createActor(runtime, 'dana');
  org = await createOrg(runtime, dana, 'Incident Org');
  // Tokens that never expire: the test moves the clock days ahead.
  token = await createToken(runtime, dana, { expiresAt: null });
  readToken = await createToken(runtime, dana, { scope: 'read', expiresAt: null });
  const editor = await createActor(runtime, 'ed');
  await addMember(runtime, org, editor, 'EDITOR');
  editorToken = await createToken(runtime, editor, { expiresAt: null });
  // The incident manager is the person with Dana's email, so her My work shows the deadlines.
  person = (
    await ok(runtime, token, 'addPerson', { organization_id: org, full_name: 'Dana', email: dana.email })
  ).person as Row;
});

afterAll(async () => runtime.cleanup());

const call = (tool: string, args: Row, as = token) => callDirect(runtime, as, tool, args);
const add = async (tool: string, key: string, args: Row) =>
  (await ok(runtime, token, tool, { organization_id: org, ...args }))[key] as Row;
const clocksOf = async (id: unknown) =>
  ((await ok(runtime, token, 'getIncident', { id })).clocks as Row[]).map((clock) => ({
    regime: clock.regime,
    stage: clock.stage,
    state: clock.state,
    due_at: clock.due_at,
    hours_left: clock.hours_left,
  }));

describe('incident clocks', () => {
  it('start at awareness under the organization’s regimes, and stop when the notice is recorded', async () => {
    clock = new Date('2026-11-28T10:00:00.000Z');
    const incident = await add('addIncident', 'incident', {
      title: 'Laptop with customer data stolen',
      detected_at: '2026-11-28T09:30:00+01:00',
      personal_data: true,
      nis2_significant: true,
      owner_id: person.id,
    });
    expect(incident.detected_at).toBe('2026-11-28T08:30:00.000Z');
    // The default setting follows GDPR only: NIS2's clocks wait for the setting or the incident's own list.
    expect(await clocksOf(incident.id)).toEqual([
      {
        regime: 'GDPR',
        stage: 'AUTHORITY',
        state: 'RUNNING',
        due_at: '2026-12-01T08:30:00.000Z',
        hours_left: 70,
      },
    ]);
    expect(incident.next_deadline_at).toBe('2026-12-01T08:30:00.000Z');

    const settings = await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      incident_regimes: ['gdpr', 'nis2'],
      time_zone: 'Europe/Paris',
    });
    expect(settings.settings).toEqual({
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
      privacy_contact: null,
      // The risk settings stay at their defaults (test/core/risk-method.test.ts changes them).
      risk_method: { ...DEFAULT_RISK_METHOD, high_score: 15 },
      risk_acceptance_approver_ids: [],
      independent_risk_acceptance: true,
      // The approval settings stay off (test/core/document-approvals.test.ts turns them on).
      allow_document_self_approval: false,
      web_only_decisions: false,
      // Nobody is asked to acknowledge again unless the organization chooses it (test/core/due-work.test.ts).
      reacknowledge_on: 'NEVER',
      // Writes from tokens are not held for approval unless the organization asks (test/core/proposals.test.ts).
      approval_required: [],
      proposal_expiry_days: 7,
    });
    expect((await clocksOf(incident.id)).map((item) => `${item.regime} ${item.stage} ${item.state}`)).toEqual(
      [
        'GDPR AUTHORITY RUNNING',
        'NIS2 EARLY_WARNING RUNNING',
        'NIS2 NOTIFICATION RUNNING',
        'NIS2 FINAL_REPORT WAITING',
      ],
    );
    const get = await ok(runtime, token, 'getIncident', { id: incident.id });
    expect(get.time_zone).toBe('Europe/Paris');
    expect((get.clocks as Row[])[1]?.due_local).toBe('2026-11-29 09:30 Europe/Paris');

    // My work shows the incident at its earliest open deadline, with the hours left.
    const work = await ok(runtime, token, 'myWork', { organization_id: org });
    expect(work.items).toEqual([
      expect.objectContaining({
        kind: 'incident',
        id: incident.id,
        reason: 'DEADLINE',
        due_at: '2026-11-29T08:30:00.000Z',
        due_on: '2026-11-29',
        due_local: '2026-11-29 09:30 Europe/Paris',
        hours_left: 22,
        overdue: false,
      }),
    ]);

    await add('addIncidentNotification', 'incident_notification', {
      incident_id: incident.id,
      regime: 'NIS2',
      stage: 'EARLY_WARNING',
      recipient: 'CERT-FR',
      sent_at: '2026-11-28T20:00:00Z',
    });
    clock = new Date('2026-12-02T09:00:00.000Z');
    expect((await clocksOf(incident.id)).map((item) => `${item.stage} ${item.state}`)).toEqual([
      'AUTHORITY MISSED',
      'EARLY_WARNING MET',
      'NOTIFICATION MISSED',
      'FINAL_REPORT WAITING',
    ]);
    const late = await ok(runtime, token, 'myWork', { organization_id: org });
    expect(late.items).toEqual([
      expect.objectContaining({
        id: incident.id,
        hours_left: -25,
        overdue: true,
        due_at: '2026-12-01T08:30:00.000Z',
      }),
    ]);
    const due = await ok(runtime, token, 'listIncidents', {
      organization_id: org,
      filter: { open_deadlines: true },
    });
    expect((due.incidents as Row[]).map((row) => row.id)).toEqual([incident.id]);

    // Every notice recorded: nothing is due any more, and the missed ones stay visible as LATE.
    for (const [regime, stage, sent_at] of [
      ['GDPR', 'AUTHORITY', '2026-12-02T08:00:00Z'],
      ['NIS2', 'NOTIFICATION', '2026-12-02T08:00:00Z'],
      ['NIS2', 'FINAL_REPORT', '2026-12-20T08:00:00Z'],
    ])
      await add('addIncidentNotification', 'incident_notification', {
        incident_id: incident.id,
        regime,
        stage,
        recipient: regime === 'GDPR' ? 'CNIL' : 'ANSSI',
        sent_at,
      });
    expect((await clocksOf(incident.id)).map((item) => `${item.stage} ${item.state}`)).toEqual([
      'AUTHORITY LATE',
      'EARLY_WARNING MET',
      'NOTIFICATION LATE',
      'FINAL_REPORT MET',
    ]);
    expect((await ok(runtime, token, 'myWork', { organization_id: org })).items).toEqual([]);
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      incident_regimes: ['GDPR'],
    });
  });

  it('refuses a notice sent before the incident was known, a stage of another regime, and times out of order', async () => {
    const incident = await add('addIncident', 'incident', {
      title: 'Phishing',
      detected_at: '2026-11-20T10:00:00Z',
    });
    const before = await call('addIncidentNotification', {
      organization_id: org,
      incident_id: incident.id,
      regime: 'GDPR',
      stage: 'AUTHORITY',
      recipient: 'CNIL',
      sent_at: '2026-11-19T10:00:00Z',
    });
    expect(before.status).toBe(400);
    expect(errorOf(before).message).toContain('before the incident was detected');
    const stage = await call('addIncidentNotification', {
      organization_id: org,
      incident_id: incident.id,
      regime: 'GDPR',
      stage: 'EARLY_WARNING',
      recipient: 'CNIL',
      sent_at: '2026-11-21T10:00:00Z',
    });
    expect(stage.status).toBe(400);
    expect(errorOf(stage).message).toBe(
      'EARLY_WARNING is not a stage of GDPR: use one of AUTHORITY, DATA_SUBJECTS.',
    );
    const order = await call('updateIncident', { id: incident.id, occurred_at: '2026-11-21T00:00:00Z' });
    expect(order.status).toBe(400);
    expect(errorOf(order).message).toContain('occurred_at');
    const major = await call('updateIncident', { id: incident.id, dora_major_at: '2026-11-19T00:00:00Z' });
    expect(errorOf(major).message).toContain('dora_major_at');
    expect(
      (
        await ok(runtime, token, 'listIncidentNotifications', {
          organization_id: org,
          filter: { incident_id: incident.id },
        })
      ).total_count,
    ).toBe(0);
  });

  it('moves an incident forward through its stages and reopens a closed one', async () => {
    const incident = await add('addIncident', 'incident', {
      title: 'Ransomware',
      detected_at: '2026-11-27T10:00:00Z',
    });
    expect(
      (await ok(runtime, token, 'updateIncident', { id: incident.id, status: 'contained' })).incident,
    ).toMatchObject({
      status: 'CONTAINED',
    });
    const back = await call('updateIncident', { id: incident.id, status: 'OPEN' });
    expect(back.status).toBe(409);
    expect(errorOf(back).code).toBe('invalid_transition');
    await ok(runtime, token, 'updateIncident', { id: incident.id, status: 'CLOSED' });
    expect(
      (await ok(runtime, token, 'updateIncident', { id: incident.id, status: 'OPEN' })).incident,
    ).toMatchObject({
      status: 'OPEN',
    });
    // The timeline is deleted with the incident.
    const step = await add('addIncidentAction', 'incident_action', {
      incident_id: incident.id,
      at: '2026-11-27T11:00:00Z',
      action: 'Isolated the file server',
    });
    await ok(runtime, token, 'deleteIncident', { id: incident.id });
    expect((await call('getIncidentAction', { id: step.id })).status).toBe(404);
  });

  it('lets only an OWNER or ADMIN change settings, and refuses a time zone that does not exist', async () => {
    const read = await call(
      'updateOrganizationSettings',
      { organization_id: org, time_zone: 'UTC' },
      readToken,
    );
    expect(read.status).toBe(403);
    const editor = await call(
      'updateOrganizationSettings',
      { organization_id: org, time_zone: 'UTC' },
      editorToken,
    );
    expect(editor.status).toBe(403);
    expect(errorOf(editor)).toMatchObject({ code: 'forbidden' });
    expect(
      (await ok(runtime, editorToken, 'getOrganizationSettings', { organization_id: org })).settings,
    ).toMatchObject({
      time_zone: 'Europe/Paris',
    });
    const zone = await call('updateOrganizationSettings', {
      organization_id: org,
      time_zone: 'Mars/Olympus',
    });
    expect(zone.status).toBe(400);
    expect(errorOf(zone).message).toContain('IANA time zone');
  });
});

describe('data-subject requests', () => {
  it('are due a calendar month after receipt, extended with a reason, and answered before they close', async () => {
    const request = await add('addDataSubjectRequest', 'data_subject_request', {
      reference: 'DSR-1',
      request_type: 'access',
      received_on: '2026-01-31',
    });
    expect(request.due_on).toBe('2026-02-28');
    const extended = await call('updateDataSubjectRequest', { id: request.id, extension_months: 2 });
    expect(extended.status).toBe(400);
    expect(errorOf(extended).message).toContain('extension_reason');
    expect(
      (
        await ok(runtime, token, 'updateDataSubjectRequest', {
          id: request.id,
          extension_months: 2,
          extension_reason: 'Many requests at once',
        })
      ).data_subject_request,
    ).toMatchObject({ due_on: '2026-04-30', extension_months: 2 });
    const closed = await call('updateDataSubjectRequest', { id: request.id, status: 'COMPLETED' });
    expect(closed.status).toBe(409);
    expect(errorOf(closed).message).toContain('response_sent_on');
    expect(
      (
        await ok(runtime, token, 'updateDataSubjectRequest', {
          id: request.id,
          status: 'COMPLETED',
          response_sent_on: '2026-03-15',
        })
      ).data_subject_request,
    ).toMatchObject({ status: 'COMPLETED', overdue: false });
    const duplicate = await call('addDataSubjectRequest', {
      organization_id: org,
      reference: 'DSR-1',
      request_type: 'ERASURE',
      received_on: '2026-02-01',
    });
    expect(duplicate.status).toBe(409);
  });
});

describe('processing activities and DPIAs', () => {
  it('need a safeguard for transfers and a controller for a processor; a DPIA is screened and decided with an approver', async () => {
    clock = new Date('2026-11-28T10:00:00.000Z');
    const transfer = await call('addProcessingActivity', {
      organization_id: org,
      name: 'Support desk',
      purposes: 'Answering customers',
      transfer_countries: ['us'],
    });
    expect(transfer.status).toBe(400);
    expect(errorOf(transfer).message).toContain('transfer_safeguard');
    const processor = await call('addProcessingActivity', {
      organization_id: org,
      name: 'Payroll for clients',
      purposes: 'Running payroll',
      role: 'processor',
    });
    expect(errorOf(processor).message).toContain('controllers');
    const activity = await add('addProcessingActivity', 'processing_activity', {
      name: 'Support desk',
      purposes: 'Answering customers',
      transfer_countries: ['us'],
      transfer_safeguard: 'standard contractual clauses',
      lawful_bases: ['contract'],
    });
    expect(activity).toMatchObject({
      transfer_countries: ['US'],
      transfer_safeguard: 'STANDARD_CONTRACTUAL_CLAUSES',
    });
    const dpia = await add('addDpia', 'dpia', {
      title: 'Call recording',
      screening_criteria: ['systematic monitoring', 'large scale'],
      processing_activity_ids: [activity.id],
    });
    expect(dpia).toMatchObject({ screening_result: 'REQUIRED', status: 'DRAFT', approved_on: null });
    await ok(runtime, token, 'updateDpia', { id: dpia.id, status: 'IN_REVIEW' });
    const unapproved = await call('updateDpia', { id: dpia.id, status: 'APPROVED' });
    expect(unapproved.status).toBe(409);
    expect(errorOf(unapproved).message).toContain('approver_id and decision');
    const approved = await ok(runtime, token, 'updateDpia', {
      id: dpia.id,
      status: 'APPROVED',
      approver_id: person.id,
      decision: 'Record calls with a notice; delete after 30 days',
    });
    expect(approved.dpia).toMatchObject({ status: 'APPROVED', approved_on: '2026-11-28' });
  });
});
