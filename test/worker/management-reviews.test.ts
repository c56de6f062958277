// Management reviews on the Worker host in workerd: gatherManagementReviewInputs counts a seeded organization's
// records of the period over libSQL's HTTP client (nonconformities, an audit, a control test with an exception,
// expired evidence, an incident, the previous review's open task), each with its id.
import { afterAll, describe, expect, it } from 'vitest';
import { callTool as call, ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

const database = testDatabase();
afterAll(() => database.client.close());

const DAY = 86_400_000;
const dayAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString().slice(0, 10);

describe('management reviews on the Worker', () => {
  it("gathers the period's figures from the organization's records, with ids", async () => {
    const { organizationId: org, token } = await ownedOrganization(database, 'mreview');
    const add = async (tool: string, key: string, args: Row): Promise<string> => {
      const result = await call(token, tool, { organization_id: org, ...args });
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      return String((result.body[key] as Row).id);
    };

    const person = await add('addPerson', 'person', {
      full_name: 'Chair',
      email: 'chair@example.com',
    });
    const framework = await add('addFramework', 'framework', { name: 'ISO/IEC 27001', version: '2022' });
    const ncIn = await add('addNonconformity', 'nonconformity', {
      reference_id: 'NC-1',
      description: 'In the period',
      date_identified: dayAgo(10),
    });
    await add('addNonconformity', 'nonconformity', {
      reference_id: 'NC-0',
      description: 'Before the period',
      date_identified: dayAgo(100),
    });
    const audit = await add('addAudit', 'audit', {
      framework_id: framework,
      name: 'Internal audit',
      state: 'COMPLETED',
      valid_from: dayAgo(20),
    });
    const measure = await add('addMeasure', 'measure', { name: 'Backups' });
    const exception = await add('addControlTest', 'control_test', {
      measure_id: measure,
      tester_id: person,
      tested_on: dayAgo(5),
      method: 'INSPECTION',
      result: 'EXCEPTION',
    });
    const expired = await add('addEvidence', 'evidence', {
      title: 'Restore test',
      url: 'https://intranet.example.com/restore.png',
      collected_on: dayAgo(200),
      valid_until: dayAgo(3),
    });
    const incident = await add('addIncident', 'incident', {
      title: 'Phishing mail clicked',
      detected_at: new Date(Date.now() - 3_600_000).toISOString(),
      severity: 'LOW',
    });
    const openTask = await add('addTask', 'task', { title: 'Hire a second admin' });
    const previous = await add('addManagementReview', 'management_review', {
      title: 'Previous review',
      held_on: dayAgo(60),
      status: 'HELD',
      task_ids: [openTask],
    });

    const gathered = await call(token, 'gatherManagementReviewInputs', {
      organization_id: org,
      period_from: dayAgo(30),
      period_to: dayAgo(0),
    });
    expect(gathered.status).toBe(200);
    expect(gathered.body).toMatchObject({
      previous_review_id: previous,
      nonconformities_opened: { count: 1, ids: [ncIn] },
      audits_held: { count: 1, ids: [audit] },
      audits_by_state: { COMPLETED: 1 },
      control_test_exceptions: { count: 1, ids: [exception] },
      evidence_expired: { count: 1, ids: [expired] },
      incidents: { count: 1, ids: [incident] },
      incidents_by_severity: { LOW: 1 },
      previous_review_tasks_open: { count: 1, ids: [openTask] },
    });
    expect((gathered.body.nonconformities_open as { count: number }).count).toBe(2);
  });
});
