// Tasks on record pages: a risk's linked tasks are its treatment plan, a nonconformity's its corrective actions,
// listed with status and due date; "Add a task" opens the new-task form already linked to the record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRuntime } from '../helpers.ts';
import { ok } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, type WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];
let runtime: TestRuntime;
let client: WebClient;
let organizationId: string;
let token: string;

beforeAll(async () => {
  ({ runtime, client, organizationId, token } = await signedUpRuntime(runtimes));
});

afterAll(async () => {
  for (const item of runtimes) await item.cleanup();
});

const idOf = (result: Record<string, unknown>, key: string) => String((result[key] as { id: string }).id);

describe('tasks on record pages', () => {
  it('shows a risk’s tasks as its treatment plan and adds one linked to it from the page', async () => {
    const risk = idOf(
      await ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name: 'Laptop theft',
        inherent_likelihood: 3,
        inherent_impact: 4,
      }),
      'risk',
    );
    await ok(runtime, token, 'addTask', {
      organization_id: organizationId,
      title: 'Encrypt every laptop disk',
      due_on: '2000-01-10',
      priority: 'HIGH',
      record_ids: [risk],
    });
    const page = await client.get(`/orgs/${organizationId}/risks/${risk}`);
    const text = textOf(page.html);
    expect(text).toContain('Treatment plan');
    expect(text).toMatch(/Encrypt every laptop disk\s+Todo\s+High\s+2000-01-10\s+overdue/);
    // Listed once: in the section, not again among the linked records.
    expect(text.split('Encrypt every laptop disk')).toHaveLength(2);
    const addHref = `/orgs/${organizationId}/tasks/new?record_ids=${risk}`;
    expect(page.html).toContain(`href="${addHref}"`);

    const form = await client.get(addHref);
    expect(form.status).toBe(200);
    expect(form.html).toContain(risk);
    const posted = await client.post(`/orgs/${organizationId}/tasks/new`, {
      _csrf: csrfOf(form.html),
      title: 'Enable remote wipe',
      status: 'TODO',
      priority: 'MEDIUM',
      record_ids: risk,
    });
    expect(posted.status).toBe(303);
    const listed = await ok(runtime, token, 'listTasks', {
      organization_id: organizationId,
      filter: { record_id: risk },
    });
    expect((listed.tasks as { title: string }[]).map((task) => task.title).sort()).toEqual([
      'Enable remote wipe',
      'Encrypt every laptop disk',
    ]);
  });

  it('calls a nonconformity’s tasks its corrective actions, and shows none yet', async () => {
    const nonconformity = idOf(
      await ok(runtime, token, 'addNonconformity', { organization_id: organizationId, reference_id: 'NC-1' }),
      'nonconformity',
    );
    const text = textOf((await client.get(`/orgs/${organizationId}/nonconformities/${nonconformity}`)).html);
    expect(text).toContain('Corrective actions');
    expect(text).toContain('No tasks yet.');
  });
});

describe('the My work page', () => {
  it('lists a task assigned to the signed-in person with its register, reason, due date and a link', async () => {
    const listed = await ok(runtime, token, 'listMembers', { organization_id: organizationId });
    const userId = String((listed.members as { user_id: string }[])[0]?.user_id);
    const task = idOf(
      await ok(runtime, token, 'addTask', {
        organization_id: organizationId,
        title: 'Rotate the backup keys',
        due_on: '2000-02-01',
        priority: 'LOW',
        assignee_user_id: userId,
      }),
      'task',
    );
    const page = await client.get('/my-work');
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toMatch(/Item\s+Register\s+Why\s+Due\s+Status\s+Organization/);
    expect(text).toMatch(/Rotate the backup keys\s+Task\s+\S.*2000-02-01\s+overdue\s+Todo/);
    expect(page.html).toContain(`href="/orgs/${organizationId}/tasks/${task}"`);
  });
});
