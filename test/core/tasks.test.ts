// Review cycles, tasks and myWork with a pinned clock: derived review dates, markReviewed and its history row, the
// task workflow, filters as of the caller's today in a non-UTC time zone, assignees and isolation, myWork's pages.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/db/schema.ts';
import { addDays, dueState, todayIn } from '../../src/tools/overdue.ts';
import { TASK_STATUSES, TASK_TRANSITIONS } from '../../src/tools/states.ts';
import {
  type Actor,
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

// 23:30 UTC on 10 March: already 11 March in Auckland (UTC+13), still 10 March in UTC and Los Angeles.
const NOW = new Date('2026-03-10T23:30:00.000Z');
const UTC_TODAY = '2026-03-10';
const AUCKLAND_TODAY = '2026-03-11';

let runtime: TestRuntime;
let alice: Actor;
let aliceToken: string;
let kiwi: Actor;
let kiwiToken: string;
let outsider: Actor;
let org: string;
let otherOrg: string;
let otherToken: string;

async function add(token: string, tool: string, key: string, args: Row): Promise<Row> {
  return (await ok(runtime, token, tool, args))[key] as Row;
}

const ids = (rows: Row[]) => rows.map((row) => String(row.id)).sort();

async function listIds(token: string, tool: string, key: string, filter: Row): Promise<string[]> {
  return ids((await ok(runtime, token, tool, { organization_id: org, filter }))[key] as Row[]);
}

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => NOW });
  alice = await createActor(runtime, 'alice');
  kiwi = await createActor(runtime, 'kiwi');
  outsider = await createActor(runtime, 'outsider');
  org = await createOrg(runtime, alice, 'Due Org');
  await addMember(runtime, org, kiwi, 'EDITOR');
  otherOrg = await createOrg(runtime, outsider, 'Other Org');
  await runtime.database.db
    .update(users)
    .set({ time_zone: 'Pacific/Auckland' })
    .where(eq(users.id, kiwi.userId));
  aliceToken = await createToken(runtime, alice);
  kiwiToken = await createToken(runtime, kiwi);
  otherToken = await createToken(runtime, outsider);
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('one overdue rule', () => {
  it('takes today as the date in the time zone, UTC by default or for an unknown zone', () => {
    expect(todayIn(NOW)).toBe(UTC_TODAY);
    expect(todayIn(NOW, 'Pacific/Auckland')).toBe(AUCKLAND_TODAY);
    expect(todayIn(new Date('2026-03-11T05:00:00Z'), 'America/Los_Angeles')).toBe('2026-03-10');
    expect(todayIn(NOW, 'Not/AZone')).toBe(UTC_TODAY);
  });

  it('says overdue before today, due soon from today to N days later, nothing after or without a date', () => {
    expect(dueState('2026-03-09', UTC_TODAY)).toBe('overdue');
    expect(dueState(UTC_TODAY, UTC_TODAY)).toBe('due_soon');
    expect(dueState('2026-03-17', UTC_TODAY, 7)).toBe('due_soon');
    expect(dueState('2026-03-18', UTC_TODAY, 7)).toBeNull();
    expect(dueState(null, UTC_TODAY, 7)).toBeNull();
    expect(addDays('2026-02-27', 2)).toBe('2026-03-01');
  });
});

describe('review cycles', () => {
  it('derives the next review from the interval and markReviewed records the review with its note', async () => {
    const risk = await add(aliceToken, 'addRisk', 'risk', {
      organization_id: org,
      name: 'Quarterly risk',
      inherent_likelihood: 3,
      inherent_impact: 3,
      review_interval_days: 90,
    });
    // Never reviewed: the first review is one interval after the cycle starts.
    expect(risk).toMatchObject({
      review_interval_days: 90,
      last_reviewed_on: null,
      next_review_on: addDays(UTC_TODAY, 90),
      review_overdue: false,
    });
    const reviewed = await ok(runtime, aliceToken, 'markReviewed', {
      id: risk.id,
      note: 'Scores still right',
      reviewed_on: '2026-01-02',
    });
    expect(reviewed).toMatchObject({
      id: risk.id,
      kind: 'risk',
      last_reviewed_on: '2026-01-02',
      last_review_note: 'Scores still right',
      next_review_on: '2026-04-02',
    });
    const history = (
      await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { record_id: risk.id } })
    ).changes as Row[];
    expect(history[0]).toMatchObject({
      tool: 'markReviewed',
      action: 'update',
      after: {
        last_reviewed_on: '2026-01-02',
        last_review_note: 'Scores still right',
        next_review_on: '2026-04-02',
      },
    });
    // Today by default.
    const again = await ok(runtime, aliceToken, 'markReviewed', { id: risk.id });
    expect(again).toMatchObject({ last_reviewed_on: UTC_TODAY, last_review_note: null });
  });

  it('refuses a next review date other than the interval gives, and takes one without an interval', async () => {
    const first = await add(aliceToken, 'addVendor', 'vendor', {
      organization_id: org,
      name: 'First review set',
      review_interval_days: 365,
      next_review_on: '2026-05-01',
    });
    expect(first).toMatchObject({ next_review_on: '2026-05-01', last_reviewed_on: null });
    const refused = await callDirect(runtime, aliceToken, 'addVendor', {
      organization_id: org,
      name: 'Interval vendor',
      review_interval_days: 365,
      last_reviewed_on: '2026-01-10',
      next_review_on: '2026-05-01',
    });
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).code).toBe('invalid_arguments');
    const vendor = await add(aliceToken, 'addVendor', 'vendor', {
      organization_id: org,
      name: 'One-off vendor',
      next_review_on: '2026-03-01',
    });
    expect(vendor).toMatchObject({ next_review_on: '2026-03-01', review_overdue: true });
    // A one-off review date is done once reviewed.
    const reviewed = await ok(runtime, aliceToken, 'markReviewed', { id: vendor.id });
    expect(reviewed).toMatchObject({ last_reviewed_on: UTC_TODAY, next_review_on: null });
  });

  it('filters on review_due_before and counts overdue reviews per register in the summary', async () => {
    const late = await add(aliceToken, 'addMeasure', 'measure', {
      organization_id: org,
      name: 'Late measure',
      review_interval_days: 30,
      last_reviewed_on: '2026-01-01',
    });
    const soon = await add(aliceToken, 'addMeasure', 'measure', {
      organization_id: org,
      name: 'Soon measure',
      next_review_on: '2026-03-20',
    });
    await add(aliceToken, 'addMeasure', 'measure', { organization_id: org, name: 'No cycle' });
    expect(late).toMatchObject({ next_review_on: '2026-01-31', review_overdue: true });
    expect(await listIds(aliceToken, 'listMeasures', 'measures', { review_due_before: UTC_TODAY })).toEqual(
      ids([late]),
    );
    expect(
      await listIds(aliceToken, 'listMeasures', 'measures', { review_due_before: '2026-04-01' }),
    ).toEqual(ids([late, soon]));
    const summary = await ok(runtime, aliceToken, 'getComplianceSummary', { organization_id: org });
    expect(summary.reviews_overdue).toEqual({
      risks: 0,
      vendors: 0,
      measures: 1,
      requirements: 0,
      documents: 0,
    });
  });

  it('leaves closed, not applicable and retired records out of reviews due (never overdue, not counted)', async () => {
    const before = await ok(runtime, aliceToken, 'getComplianceSummary', { organization_id: org });
    const risk = await add(aliceToken, 'addRisk', 'risk', {
      organization_id: org,
      name: 'Closed risk with a lapsed review',
      inherent_likelihood: 1,
      inherent_impact: 1,
      next_review_on: '2026-02-01',
    });
    expect(risk.review_overdue).toBe(true);
    expect(await listIds(aliceToken, 'listRisks', 'risks', { review_due_before: UTC_TODAY })).toContain(
      risk.id,
    );
    const closed = await add(aliceToken, 'updateRisk', 'risk', { id: risk.id, status: 'CLOSED' });
    expect(closed).toMatchObject({ status: 'CLOSED', next_review_on: '2026-02-01', review_overdue: false });
    expect(await listIds(aliceToken, 'listRisks', 'risks', { review_due_before: UTC_TODAY })).not.toContain(
      risk.id,
    );
    const measure = await add(aliceToken, 'addMeasure', 'measure', {
      organization_id: org,
      name: 'Not applicable, lapsed review',
      state: 'NOT_APPLICABLE',
      next_review_on: '2026-02-01',
    });
    expect(measure.review_overdue).toBe(false);
    const after = await ok(runtime, aliceToken, 'getComplianceSummary', { organization_id: org });
    expect(after.reviews_overdue).toEqual(before.reviews_overdue);
  });

  it('answers a record of another organization as missing', async () => {
    const foreign = await add(otherToken, 'addRisk', 'risk', {
      organization_id: otherOrg,
      name: 'Foreign',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    const response = await callDirect(runtime, aliceToken, 'markReviewed', { id: foreign.id });
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not_found');
    const wrongKind = await callDirect(runtime, aliceToken, 'markReviewed', { id: org });
    expect(wrongKind.status).toBe(400);
  });
});

describe('tasks', () => {
  /** The design's moves, written apart from states.ts: TODO and IN_PROGRESS move freely, DONE/CANCELLED reopen. */
  const allowed = (from: string, to: string) =>
    from === to ||
    (['TODO', 'IN_PROGRESS'].includes(from) && to !== from) ||
    (['DONE', 'CANCELLED'].includes(from) && to === 'TODO');

  it('allows exactly the defined status moves', async () => {
    expect(Object.keys(TASK_TRANSITIONS).sort()).toEqual([...TASK_STATUSES].sort());
    for (const from of TASK_STATUSES) {
      for (const to of TASK_STATUSES) {
        const task = await add(aliceToken, 'addTask', 'task', {
          organization_id: org,
          title: `${from} to ${to}`,
          status: from,
        });
        const response = await callDirect(runtime, aliceToken, 'updateTask', { id: task.id, status: to });
        if (allowed(from, to)) {
          expect(response.status, `${from} -> ${to}`).toBe(200);
          expect((response.body.task as Row).status).toBe(to);
        } else {
          expect(response.status, `${from} -> ${to}`).toBe(409);
          const error = await errorOf(response);
          expect(error.code).toBe('invalid_transition');
          expect(error.details).toMatchObject({ current: from, requested: to, allowed: ['TODO'] });
        }
      }
    }
  });

  it('accepts a member as assignee and answers a non-member exactly like an unknown account', async () => {
    const task = await add(aliceToken, 'addTask', 'task', {
      organization_id: org,
      title: 'Assigned to kiwi',
      assignee_user_id: kiwi.userId,
    });
    expect(task).toMatchObject({ assignee_user_id: kiwi.userId, status: 'TODO', priority: 'MEDIUM' });
    const outsiderAnswer = await callDirect(runtime, aliceToken, 'addTask', {
      organization_id: org,
      title: 'To an outsider',
      assignee_user_id: outsider.userId,
    });
    const unknownAnswer = await callDirect(runtime, aliceToken, 'addTask', {
      organization_id: org,
      title: 'To nobody',
      assignee_user_id: 'usr_8zq3m0v5k1t7w2x9c4n6p0ha',
    });
    expect(outsiderAnswer.status).toBe(404);
    expect(unknownAnswer.status).toBe(404);
    expect(await errorOf(outsiderAnswer)).toEqual(await errorOf(unknownAnswer));
    const moved = await callDirect(runtime, aliceToken, 'updateTask', {
      id: task.id,
      assignee_user_id: outsider.userId,
    });
    expect(moved.status).toBe(404);
  });

  it('answers another organization’s task and owner as missing', async () => {
    const foreign = await add(otherToken, 'addTask', 'task', { organization_id: otherOrg, title: 'Theirs' });
    const person = await add(otherToken, 'addPerson', 'person', {
      organization_id: otherOrg,
      full_name: 'Their person',
      email: 'their@example.com',
    });
    for (const [tool, args] of [
      ['getTask', { id: foreign.id }],
      ['updateTask', { id: foreign.id, title: 'Mine now' }],
      ['deleteTask', { id: foreign.id }],
      ['addTask', { organization_id: org, title: 'Owned elsewhere', owner_id: person.id }],
    ] as const) {
      const response = await callDirect(runtime, aliceToken, tool, args);
      expect(response.status, tool).toBe(404);
      expect((await errorOf(response)).code, tool).toBe('not_found');
    }
  });

  it('filters by status, assignee, owner, due_before and overdue as of the caller’s today', async () => {
    const owner = await add(aliceToken, 'addPerson', 'person', {
      organization_id: org,
      full_name: 'Task Owner',
      email: 'task-owner@example.com',
    });
    const base = { organization_id: org };
    const yesterday = await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Due 9 March',
      due_on: '2026-03-09',
    });
    const today = await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Due 10 March',
      due_on: UTC_TODAY,
      owner_id: owner.id,
      assignee_user_id: kiwi.userId,
    });
    const done = await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Done late',
      due_on: '2026-03-01',
      status: 'DONE',
    });
    const mine = [yesterday, today, done];
    const only = async (token: string, filter: Row) =>
      (await listIds(token, 'listTasks', 'tasks', filter)).filter((id) => ids(mine).includes(id));
    // In UTC (alice) only the task due yesterday is overdue; in Auckland (kiwi) today's is too.
    expect(await only(aliceToken, { overdue: true })).toEqual(ids([yesterday]));
    expect(await only(kiwiToken, { overdue: true })).toEqual(ids([yesterday, today]));
    expect(await only(aliceToken, { overdue: false })).toEqual(ids([today, done]));
    const kiwiView = (await ok(runtime, kiwiToken, 'getTask', { id: today.id })).task as Row;
    const aliceView = (await ok(runtime, aliceToken, 'getTask', { id: today.id })).task as Row;
    expect([kiwiView.overdue, aliceView.overdue]).toEqual([true, false]);
    expect(await only(aliceToken, { status: 'DONE' })).toEqual(ids([done]));
    expect(await only(aliceToken, { status: ['TODO', 'IN_PROGRESS'] })).toEqual(ids([yesterday, today]));
    expect(await only(aliceToken, { assignee_user_id: kiwi.userId })).toEqual(ids([today]));
    expect(await only(aliceToken, { owner_id: owner.id })).toEqual(ids([today]));
    expect(await only(aliceToken, { due_before: UTC_TODAY })).toEqual(ids([yesterday, done]));
  });
});

describe('tasks linked to records', () => {
  it('links records of several registers, filters by one, refuses another organization’s as missing', async () => {
    const risk = await add(aliceToken, 'addRisk', 'risk', {
      organization_id: org,
      name: 'Treated risk',
      inherent_likelihood: 4,
      inherent_impact: 4,
    });
    const finding = await add(aliceToken, 'addNonconformity', 'nonconformity', {
      organization_id: org,
      reference_id: 'NC-TASK-1',
    });
    const task = await add(aliceToken, 'addTask', 'task', {
      organization_id: org,
      title: 'Treat and correct',
      record_ids: [risk.id, finding.id],
    });
    expect(task.record_ids).toEqual([risk.id, finding.id].sort());
    expect(await listIds(aliceToken, 'listTasks', 'tasks', { record_id: finding.id })).toEqual(ids([task]));
    const foreign = await add(otherToken, 'addRisk', 'risk', {
      organization_id: otherOrg,
      name: 'Their risk',
      inherent_likelihood: 1,
      inherent_impact: 1,
    });
    const refused = await callDirect(runtime, aliceToken, 'updateTask', {
      id: task.id,
      record_ids: [risk.id, foreign.id],
    });
    const missing = await callDirect(runtime, aliceToken, 'updateTask', {
      id: task.id,
      record_ids: [risk.id, 'rsk_8zq3m0v5k1t7w2x9c4n6p0ha'],
    });
    expect(refused.status).toBe(404);
    const unknownId = 'rsk_8zq3m0v5k1t7w2x9c4n6p0ha';
    expect(JSON.stringify(errorOf(refused)).replaceAll(String(foreign.id), unknownId)).toBe(
      JSON.stringify(errorOf(missing)),
    );
    expect(((await ok(runtime, aliceToken, 'getTask', { id: task.id })).task as Row).record_ids).toEqual(
      [risk.id, finding.id].sort(),
    );
    // Deleting a linked record takes it out of the task's list.
    await ok(runtime, aliceToken, 'deleteNonconformity', { id: finding.id });
    expect(((await ok(runtime, aliceToken, 'getTask', { id: task.id })).task as Row).record_ids).toEqual([
      risk.id,
    ]);
  });
});

describe('myWork', () => {
  it('lists the caller’s assigned tasks, reviews due and open owned items by due date, in pages', async () => {
    const base = { organization_id: org };
    const me = await add(aliceToken, 'addPerson', 'person', {
      ...base,
      full_name: 'Kiwi as a person',
      email: kiwi.email.toUpperCase(),
    });
    const assigned = await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Kiwi: late task',
      due_on: '2026-03-05',
      assignee_user_id: kiwi.userId,
    });
    const owned = await add(aliceToken, 'addObligation', 'obligation', {
      ...base,
      requirement: 'Kiwi: owned obligation',
      owner_id: me.id,
      due_date: '2026-03-12',
    });
    const review = await add(aliceToken, 'addRisk', 'risk', {
      ...base,
      name: 'Kiwi: risk to review',
      owner_id: me.id,
      inherent_likelihood: 2,
      inherent_impact: 2,
      next_review_on: '2026-03-20',
    });
    const undated = await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Kiwi: owned task',
      owner_id: me.id,
    });
    // Not kiwi's: compliant, closed, reviewed far ahead, assigned to someone else.
    await add(aliceToken, 'addObligation', 'obligation', {
      ...base,
      requirement: 'Met',
      owner_id: me.id,
      status: 'COMPLIANT',
      due_date: '2026-03-01',
    });
    await add(aliceToken, 'addRisk', 'risk', {
      ...base,
      name: 'Later review',
      owner_id: me.id,
      inherent_likelihood: 1,
      inherent_impact: 1,
      next_review_on: '2026-12-01',
    });
    await add(aliceToken, 'addTask', 'task', {
      ...base,
      title: 'Alice only',
      assignee_user_id: alice.userId,
    });
    const closedRisk = await add(aliceToken, 'addRisk', 'risk', {
      ...base,
      name: 'Closed, review lapsed',
      owner_id: me.id,
      inherent_likelihood: 1,
      inherent_impact: 1,
      next_review_on: '2026-03-01',
    });
    await add(aliceToken, 'updateRisk', 'risk', { id: closedRisk.id, status: 'CLOSED' });

    const first = await ok(runtime, kiwiToken, 'myWork', { size: 2 });
    expect(first.today).toBe(AUCKLAND_TODAY);
    expect(first.total_count).toBe(6);
    const pages = [first.items as Row[]];
    let cursor = first.next_cursor as string | null;
    while (cursor) {
      const page = await ok(runtime, kiwiToken, 'myWork', { size: 2, cursor });
      pages.push(page.items as Row[]);
      cursor = page.next_cursor as string | null;
    }
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    const items = pages.flat();
    // Besides these, the earlier tests assigned kiwi 'Due 10 March' (overdue in Auckland) and, undated, 'Assigned
    // to kiwi'; the undated come last, in id order.
    const seen = items.map((item) => [
      item.id === assigned.id ? 'assigned' : item.title,
      item.reason,
      item.overdue,
      item.due_soon,
    ]);
    expect(seen.slice(0, 4)).toEqual([
      ['assigned', 'ASSIGNED', true, false],
      ['Due 10 March', 'ASSIGNED', true, false],
      ['Kiwi: owned obligation', 'OWNED', false, true],
      ['Kiwi: risk to review', 'REVIEW', false, true],
    ]);
    expect(seen.slice(4).sort()).toEqual([
      ['Assigned to kiwi', 'ASSIGNED', false, false],
      ['Kiwi: owned task', 'OWNED', false, false],
    ]);
    expect(items.slice(4).map((item) => String(item.id))).toEqual(
      items
        .slice(4)
        .map((item) => String(item.id))
        .sort(),
    );
    expect(items.map((item) => item.id)).toEqual(expect.arrayContaining([owned.id, review.id, undated.id]));
    const narrow = await ok(runtime, kiwiToken, 'myWork', { within_days: 5 });
    expect((narrow.items as Row[]).some((item) => item.id === review.id)).toBe(false);
    const foreign = await callDirect(runtime, kiwiToken, 'myWork', { organization_id: otherOrg });
    expect(foreign.status).toBe(404);
  });
});
