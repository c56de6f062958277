// Transcript: a management review gathering its inputs. The period's records (a nonconformity, an incident, open
// risks, expired evidence, a task the last review raised) counted with their ids, the drafted inputs filling the review.
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
} from '../helpers.ts';
import { Transcript, transcribedCalls } from '../transcript.ts';

type Row = Record<string, unknown>;
type Figure = { count: number; ids: string[] };

const runtimes = runtimesCleanedAfterEach();

describe('management review transcript', () => {
  it('gathers the period’s inputs from the records and fills the review with them', async () => {
    const runtime = await createTestRuntime({
      env: { RATE_LIMIT_PER_MINUTE: '0' },
      now: () => new Date('2026-06-15T12:00:00.000Z'),
    });
    runtimes.push(runtime);
    const dana = await createActor(runtime, 'dana');
    const org = await createOrg(runtime, dana, 'Acme Health');
    const transcript = new Transcript(
      'Management review gathering its inputs',
      'Dana chairs the 2026 management review. Before the meeting the review’s inputs for the period are gathered from the registers, each figure with the ids of the records it counts, and drafted as text that fills the review.',
    );
    const call = transcribedCalls(transcript, runtime, await createToken(runtime, dana));
    const add = async (title: string, tool: string, key: string, args: Row) =>
      ((await call.ok(title, tool, { organization_id: org, ...args }))[key] as Row).id as string;
    const chair = await add('Add the chair', 'addPerson', 'person', {
      full_name: 'Dana Chair',
      email: dana.email,
    });
    const openTask = await add('A task the last review raised, still open', 'addTask', 'task', {
      title: 'Budget for a SIEM',
    });
    const previous = await add('Last year’s review', 'addManagementReview', 'management_review', {
      title: 'Management review 2025',
      held_on: '2025-12-10',
      status: 'HELD',
      task_ids: [openTask],
    });
    const nonconformity = await add(
      'A nonconformity found in the period',
      'addNonconformity',
      'nonconformity',
      {
        reference_id: 'NC-2026-001',
        description: 'Backups not tested in Q1.',
        date_identified: '2026-03-01',
      },
    );
    const incident = await add('An incident in the period', 'addIncident', 'incident', {
      title: 'Lost laptop',
      detected_at: '2026-05-01T09:00:00.000Z',
      severity: 'HIGH',
    });
    const risk = await add('An open risk', 'addRisk', 'risk', {
      name: 'Phishing',
      inherent_likelihood: 4,
      inherent_impact: 4,
    });
    const expired = await add('Evidence that expired in the period', 'addEvidence', 'evidence', {
      title: 'Vulnerability scan 2025',
      url: 'https://intranet.example.com/scan-2025.pdf',
      collected_on: '2025-03-31',
      valid_until: '2026-03-31',
    });
    const review = await add('Plan this year’s review', 'addManagementReview', 'management_review', {
      title: 'Management review 2026',
      held_on: '2026-06-20',
      period_from: '2026-01-01',
      period_to: '2026-06-15',
      chair_id: chair,
      attendee_ids: [chair],
    });

    const gathered = await call.ok<Row>(
      'Gather the inputs of the period',
      'gatherManagementReviewInputs',
      { organization_id: org, management_review_id: review },
      'Every figure names the records it counts, so each number can be checked.',
    );
    const figure = (name: string) => gathered[name] as Figure;
    transcript.table(
      ['input', 'count', 'ids'],
      [
        'nonconformities_opened',
        'incidents',
        'risks_open',
        'evidence_expired',
        'previous_review_tasks_open',
      ].map((name) => ({ input: name, count: figure(name).count, ids: figure(name).ids.join(', ') })),
    );
    expect(gathered.period).toEqual({ from: '2026-01-01', to: '2026-06-15' });
    expect(gathered.previous_review_id).toBe(previous);
    expect(figure('nonconformities_opened')).toEqual({ count: 1, ids: [nonconformity] });
    expect(figure('incidents')).toEqual({ count: 1, ids: [incident] });
    expect(gathered.incidents_by_severity).toEqual({ HIGH: 1 });
    expect(figure('risks_open')).toEqual({ count: 1, ids: [risk] });
    expect(figure('evidence_expired')).toEqual({ count: 1, ids: [expired] });
    expect(figure('previous_review_tasks_open')).toEqual({ count: 1, ids: [openTask] });
    const drafts = gathered.draft_inputs as Record<string, string>;
    expect(drafts.earlier_actions).toBe(`Tasks of review ${previous} still open: 1 (${openTask}).`);

    const filled = (
      await call.ok<{ management_review: Row }>(
        'Fill the review with the drafted inputs',
        'updateManagementReview',
        {
          id: review,
          ...drafts,
        },
      )
    ).management_review;
    expect(filled.earlier_actions).toBe(drafts.earlier_actions);
    const held = (
      await call.ok<{ management_review: Row }>(
        'Record the meeting: held, with its decision',
        'updateManagementReview',
        {
          id: review,
          status: 'HELD',
          decisions: 'Fund a SIEM in Q3; test backups monthly.',
        },
      )
    ).management_review;
    expect(held).toMatchObject({
      status: 'HELD',
      decisions: 'Fund a SIEM in Q3; test backups monthly.',
      earlier_actions: drafts.earlier_actions,
    });
    transcript.write('test-results/transcripts/management-review.md');
  });
});
