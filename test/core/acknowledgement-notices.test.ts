// Notifications for acknowledgements: a person asked who has an account hears about it as due work (due soon, then
// overdue: the reminders), until they acknowledge; a person of another organization never does.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../src/db/schema.ts';
import { runNotifications } from '../../src/notify/engine.ts';
import { listDueSources } from '../../src/notify/sources.ts';
import {
  type Actor,
  addMember,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-07-01T09:00:00.000Z');
let alice: Actor;
let carol: Actor;
let aliceToken: string;
let carolToken: string;
let org: string;
let documentId: string;
let requestId: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  carol = await createActor(runtime, 'carol');
  org = await createOrg(runtime, alice, 'Notice Org');
  await addMember(runtime, org, carol, 'VIEWER');
  aliceToken = await createToken(runtime, alice);
  carolToken = await createToken(runtime, carol);
  const person = async (full_name: string, email: string) =>
    String(
      ((await ok(runtime, aliceToken, 'addPerson', { organization_id: org, full_name, email })).person as Row)
        .id,
    );
  const owner = await person('Alice Owner', alice.email);
  const carolPerson = await person('Carol Staff', carol.email);
  const noAccount = await person('Nina Noaccount', 'nina@example.com');
  documentId = String(
    (
      (
        await ok(runtime, aliceToken, 'addDocument', {
          organization_id: org,
          title: 'Code of conduct',
          content: 'Be kind.',
          approver_ids: [owner],
        })
      ).document as Row
    ).id,
  );
  await ok(runtime, aliceToken, 'updateDocument', { id: documentId, status: 'IN_REVIEW' });
  await ok(runtime, aliceToken, 'approveDocument', { id: documentId });
  await ok(runtime, aliceToken, 'updateDocument', { id: documentId, status: 'PUBLISHED' });
  const asked = await ok(runtime, aliceToken, 'requestAcknowledgements', {
    document_id: documentId,
    audience: 'PEOPLE',
    person_ids: [carolPerson, noAccount],
    due_date: '2026-07-05',
  });
  requestId = String((asked.request as Row).id);
});

afterAll(async () => {
  await runtime?.cleanup();
});

/** The in-app notices of an account about the document: [kind, title]. */
async function noticesOf(actor: Actor) {
  const rows = await runtime.database.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.user_id, actor.userId), eq(notifications.channel, 'in_app')));
  return rows
    .filter((row) => row.record_id === documentId)
    .map((row) => [row.kind, row.title])
    .sort();
}

describe('acknowledgement notifications', () => {
  it('tells the person asked, as due work within their days, then overdue; never someone not asked', async () => {
    await runNotifications({ db: runtime.database.db, now: clock, mailer: null });
    expect(await noticesOf(carol)).toEqual([
      ['due_soon', 'The document "Code of conduct v1 (to acknowledge)" is due on 2026-07-05'],
    ]);
    expect(await noticesOf(alice)).toEqual([]);
    // The next run tells nothing new; past the due date, the overdue notice is the reminder.
    await runNotifications({ db: runtime.database.db, now: clock, mailer: null });
    expect((await noticesOf(carol)).length).toBe(1);
    clock = new Date('2026-07-06T09:00:00.000Z');
    await runNotifications({ db: runtime.database.db, now: clock, mailer: null });
    expect(await noticesOf(carol)).toEqual([
      ['due_soon', 'The document "Code of conduct v1 (to acknowledge)" is due on 2026-07-05'],
      ['overdue', 'The document "Code of conduct v1 (to acknowledge)" is overdue (due 2026-07-05)'],
    ]);
  });

  it('stops once acknowledged, and no one hears for a person without an account', async () => {
    const source = listDueSources().find((candidate) => candidate.kind === 'acknowledgement');
    const due = async () =>
      ((await source?.query({ db: runtime.database.db, now: clock }, org, '2026-12-31')) ?? [])
        .map((item) => [item.owner_person_id === null, item.title, item.due_date, item.facet])
        .sort();
    expect(await due()).toEqual([
      [false, 'Code of conduct v1 (to acknowledge)', '2026-07-05', 'acknowledge-v1'],
      [false, 'Code of conduct v1 (to acknowledge)', '2026-07-05', 'acknowledge-v1'],
    ]);
    await ok(runtime, carolToken, 'acknowledgeDocument', { document_id: documentId });
    expect((await due()).length).toBe(1);
    const pending = await ok(runtime, aliceToken, 'listAcknowledgements', {
      organization_id: org,
      filter: { request_id: requestId, status: 'PENDING' },
    });
    expect((pending.acknowledgements as Row[]).map((row) => row.person_name)).toEqual(['Nina Noaccount']);
    // Nina's pending item reaches no account: every notice about the document is Carol's.
    const all = await runtime.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.record_id, documentId));
    expect(new Set(all.map((row) => row.user_id))).toEqual(new Set([carol.userId]));
  });
});
