// The notification engine on a pinned clock, sending through a real SMTP server on loopback (smtp-server), each
// message parsed back with mailparser: who hears what, in which time zone, and never twice.
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeMembership } from '../../src/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { notifications } from '../../src/db/schema.ts';
import { type NotifyReport, runNotifications, SETTLE_MS } from '../../src/notify/engine.ts';
import { listInbox, markRead, unreadCount } from '../../src/notify/inbox.ts';
import type { Mailer } from '../../src/notify/mailer.ts';
import { nodeMailer } from '../../src/notify/mailer-node.ts';
import { DEFAULT_PREFERENCES, savePreferences } from '../../src/notify/preferences.ts';
import { notifyOnce } from '../../src/notify/schedule.ts';
import { registerAssignable, registerDueSource } from '../../src/notify/sources.ts';
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
import { type LoopbackSmtp, loopbackMailSettings, startLoopbackSmtp } from '../smtp-loopback.ts';
import { csrfOf, WebClient } from '../web/web-client.ts';

// ---- helpers: a clock, a world (the loopback SMTP server is test/smtp-loopback.ts) ----------------------------

let clock = new Date('2026-05-04T06:00:00.000Z');
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

let smtp: LoopbackSmtp;
let runtime: TestRuntime;
let owner: Actor;
let alice: Actor;
let org: string;
let token: string;
let alicePerson: string;

beforeAll(async () => {
  smtp = await startLoopbackSmtp();
});
afterAll(async () => {
  await smtp.close();
});

beforeEach(async () => {
  clock = new Date('2026-05-04T06:00:00.000Z');
  smtp.received.length = 0;
  smtp.refuse.clear();
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  owner = await createActor(runtime, 'owner');
  alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, owner, 'Acme');
  await addMember(runtime, org, alice, 'EDITOR');
  token = await createToken(runtime, owner);
  alicePerson = (
    await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
      organization_id: org,
      full_name: 'Alice Example',
      // People are matched to accounts by email, whatever its case.
      email: alice.email.toUpperCase(),
      kind: 'EMPLOYEE',
    })
  ).person.id;
});

afterEach(async () => {
  await runtime.cleanup();
});

/** One engine run at the pinned clock, sending through the loopback SMTP server (or none). */
function run(options: { mail?: boolean; mailer?: Mailer } = {}): Promise<NotifyReport> {
  const mailer =
    options.mailer ?? (options.mail === false ? null : nodeMailer(loopbackMailSettings(smtp.port)));
  return runNotifications({
    db: runtime.database.db,
    now: clock,
    mailer,
    publicUrl: 'https://compliance.example.test',
  });
}

async function rowsOf(userId: string) {
  return runtime.database.db
    .select()
    .from(notifications)
    .where(eq(notifications.user_id, userId))
    .orderBy(notifications.event_key, notifications.channel);
}

const mailsTo = (actor: Actor) =>
  smtp.received.filter((mail) => mail.to && JSON.stringify(mail.to).includes(actor.email));

/** The subjects of the emails an actor received, sorted. */
const subjectsTo = (actor: Actor) =>
  mailsTo(actor)
    .map((mail) => String(mail.subject))
    .sort();

// ---- (a) changes to records I own ---------------------------------------------------------------------------------

describe('changes to records a person owns', () => {
  it('tells the owner in the app and by one email, with the change and a link, and never twice', async () => {
    const added = await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
      organization_id: org,
      name: 'Laptop theft',
      category: 'Physical',
      inherent_likelihood: 3,
      inherent_impact: 4,
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    const first = await run();
    expect(first.emails_sent).toBe(1);
    const rows = await rowsOf(alice.userId);
    expect(rows.map((row) => [row.kind, row.channel, row.status])).toEqual([
      ['owned_change', 'email', 'sent'],
      ['owned_change', 'in_app', 'delivered'],
    ]);
    expect(rows[0]?.title).toBe('The risk "Laptop theft" you own was added');
    expect(rows[0]?.record_id).toBe(added.risk.id);

    const [mail] = mailsTo(alice);
    expect(mail?.subject).toBe('The risk "Laptop theft" you own was added');
    expect(mail?.from?.text).toBe('"Compliance" <compliance@example.test>');
    expect(mail?.text).toContain('name: Laptop theft');
    expect(mail?.text).toContain(`Open: https://compliance.example.test/orgs/${org}/risks/${added.risk.id}`);
    expect(mail?.headers.get('x-compliance-notification')).toBe(rows[0]?.id);

    // The same change read again (the cursor lost, a second process): no new row, no second email.
    await runtime.database.client.execute('DELETE FROM notification_cursors');
    advance(60_000);
    const second = await run();
    expect(second.changes_read).toBeGreaterThan(0);
    expect(second.notifications_created).toBe(0);
    expect(second.emails_sent).toBe(0);
    expect(mailsTo(alice)).toHaveLength(1);
  });

  it('does not tell owners about their own changes, nor members who own nothing, nor the actor', async () => {
    const aliceToken = await createToken(runtime, alice);
    await ok(runtime, aliceToken, 'addObligation', {
      organization_id: org,
      requirement: 'Keep a record of processing activities',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    const report = await run();
    expect(report.notifications_created).toBe(0);
    expect(await rowsOf(alice.userId)).toEqual([]);
    expect(await rowsOf(owner.userId)).toEqual([]);
    expect(smtp.received).toHaveLength(0);
  });

  it('tells the previous owner too when a record is given to someone else', async () => {
    const bob = await createActor(runtime, 'bob');
    await addMember(runtime, org, bob, 'EDITOR');
    const bobPerson = (
      await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: org,
        full_name: 'Bob Example',
        email: bob.email,
        kind: 'EMPLOYEE',
      })
    ).person.id;
    const measure = await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'Disk encryption',
      category: 'Technical',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    await run({ mail: false });
    await ok(runtime, token, 'updateMeasure', { id: measure.measure.id, owner_id: bobPerson });
    advance(SETTLE_MS + 1000);
    await run({ mail: false });
    const aliceTitles = (await listInbox(runtime.database.db, alice.userId, false)).map((item) => item.title);
    const bobTitles = (await listInbox(runtime.database.db, bob.userId, false)).map((item) => item.title);
    expect(aliceTitles).toEqual([
      'The measure "Disk encryption" you own was changed',
      'The measure "Disk encryption" you own was added',
    ]);
    expect(bobTitles).toEqual(['The measure "Disk encryption" you own was changed']);
    const [change] = await listInbox(runtime.database.db, bob.userId, false);
    expect(change?.body).toBe(`owner_id: ${alicePerson} -> ${bobPerson}`);
  });

  it('waits until a change has settled before reading it', async () => {
    await ok(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'Backups',
      category: 'Technical',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS - 1000);
    expect((await run({ mail: false })).changes_read).toBe(0);
    advance(2000);
    // The person added before the measure, and the measure.
    expect((await run({ mail: false })).changes_read).toBe(2);
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(1);
  });
});

// ---- (b) due soon and overdue, in the person's time zone ---------------------------------------------------------

describe('due and overdue items', () => {
  it('tells the owner once when an obligation comes due within their days, and once when it is overdue', async () => {
    await savePreferences(
      runtime.database.db,
      alice.userId,
      org,
      { ...DEFAULT_PREFERENCES, owned_changes: false, due_days: 3 },
      clock,
    );
    await ok(runtime, token, 'addObligation', {
      organization_id: org,
      requirement: 'File the annual report',
      owner_id: alicePerson,
      due_date: '2026-05-08',
    });
    advance(SETTLE_MS);
    await run();
    expect(mailsTo(alice)).toHaveLength(0); // due in 4 days: not within 3
    advance(86_400_000); // 2026-05-05: due in 3 days
    await run();
    await run();
    expect(mailsTo(alice).map((mail) => mail.subject)).toEqual([
      'The obligation "File the annual report" is due on 2026-05-08',
    ]);
    advance(4 * 86_400_000); // 2026-05-09: overdue
    await run();
    advance(86_400_000);
    await run();
    expect(mailsTo(alice).map((mail) => mail.subject)).toEqual([
      'The obligation "File the annual report" is due on 2026-05-08',
      'The obligation "File the annual report" is overdue (due 2026-05-08)',
    ]);
    // Done: nothing more.
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(2);
  });

  it('decides overdue on the local date of the person: Auckland is a day ahead of UTC', async () => {
    await ok(runtime, token, 'addNonconformity', {
      organization_id: org,
      reference_id: 'NC-7',
      owner_id: alicePerson,
      due_date: '2026-05-04',
    });
    // 2026-05-04T13:00Z is 01:00 on 2026-05-05 in Auckland (UTC+12) and still 2026-05-04 in UTC.
    clock = new Date('2026-05-04T13:00:00.000Z');
    const prefs = { ...DEFAULT_PREFERENCES, owned_changes: false, due_days: 0 };
    await savePreferences(runtime.database.db, alice.userId, org, { ...prefs, time_zone: 'UTC' }, clock);
    await run({ mail: false });
    expect((await listInbox(runtime.database.db, alice.userId, false)).map((item) => item.kind)).toEqual([
      'due_soon',
    ]);
    await savePreferences(
      runtime.database.db,
      alice.userId,
      org,
      { ...prefs, time_zone: 'Pacific/Auckland' },
      clock,
    );
    await run({ mail: false });
    expect(
      (await listInbox(runtime.database.db, alice.userId, false)).map((item) => item.title).sort(),
    ).toEqual([
      'The nonconformity "NC-7" is due on 2026-05-04',
      'The nonconformity "NC-7" is overdue (due 2026-05-04)',
    ]);
  });

  it('tells the owner of a record whose review comes due, once per person, and never for a closed one', async () => {
    const prefer = { ...DEFAULT_PREFERENCES, owned_changes: false };
    await savePreferences(runtime.database.db, alice.userId, org, prefer, clock);
    const base = { organization_id: org, inherent_likelihood: 2, inherent_impact: 2 };
    await ok(runtime, token, 'addRisk', {
      ...base,
      name: 'Supplier outage',
      owner_id: alicePerson,
      next_review_on: '2026-05-01',
    });
    const closed = await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
      ...base,
      name: 'Retired datacenter',
      owner_id: alicePerson,
      next_review_on: '2026-05-01',
    });
    await ok(runtime, token, 'updateRisk', { id: closed.risk.id, status: 'CLOSED' });
    // Alice is both owners of the vendor: one notification.
    await ok(runtime, token, 'addVendor', {
      organization_id: org,
      name: 'Acme Cloud',
      business_owner_id: alicePerson,
      security_owner_id: alicePerson,
      next_review_on: '2026-05-06',
    });
    advance(SETTLE_MS);
    await run();
    await run();
    // The vendor was never assessed: its assessment is due since it was added.
    expect(subjectsTo(alice)).toEqual([
      'The review of the risk "Supplier outage" is overdue (due 2026-05-01)',
      'The review of the vendor "Acme Cloud" is due on 2026-05-06',
      'The vendor "Acme Cloud (assessment due)" is due on 2026-05-04',
    ]);
    // Two mails name the vendor, sent in no fixed order: the review's is the one with its date.
    expect(mailsTo(alice).find((mail) => mail.subject?.includes('review of the vendor'))?.text).toContain(
      'Next review: 2026-05-06',
    );
  });

  it('tells the owner of a measure whose control test comes due, and nothing once it is tested', async () => {
    const prefer = { ...DEFAULT_PREFERENCES, owned_changes: false };
    await savePreferences(runtime.database.db, alice.userId, org, prefer, clock);
    const measure = await ok<{ measure: { id: string } }>(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'Endpoint protection',
      owner_id: alicePerson,
      state: 'IMPLEMENTED',
      test_interval_days: 90,
    });
    await ok(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'Badges',
      owner_id: alicePerson,
      state: 'NOT_APPLICABLE',
      test_interval_days: 90,
    });
    advance(SETTLE_MS);
    await run();
    await run();
    expect(subjectsTo(alice)).toEqual([
      'The measure "Endpoint protection (control test due)" is due on 2026-05-04',
    ]);
    await ok(runtime, token, 'addControlTest', {
      organization_id: org,
      measure_id: measure.measure.id,
      tester_id: alicePerson,
      method: 'inspection',
      result: 'effective',
    });
    smtp.received.length = 0;
    advance(86_400_000);
    await run();
    expect(subjectsTo(alice)).toEqual([]);
  });

  it('tells an access review’s owner and its reviewers with undecided entries it is due, then overdue; nothing once completed', async () => {
    const prefer = { ...DEFAULT_PREFERENCES, owned_changes: false };
    await savePreferences(runtime.database.db, alice.userId, org, prefer, clock);
    await savePreferences(runtime.database.db, owner.userId, org, prefer, clock);
    const ownerPerson = (
      await ok<{ person: { id: string } }>(runtime, token, 'addPerson', {
        organization_id: org,
        full_name: 'Olivia Owner',
        email: owner.email,
      })
    ).person.id;
    const campaign = (
      await ok<{ access_review: { id: string } }>(runtime, token, 'addAccessReview', {
        organization_id: org,
        name: 'Q2 production access',
        status: 'IN_PROGRESS',
        due_on: '2026-05-08',
        owner_id: ownerPerson,
        reviewer_ids: [alicePerson, ownerPerson],
      })
    ).access_review.id;
    const entry = async (account: string, reviewer: string) =>
      (
        await ok<{ access_review_entry: { id: string } }>(runtime, token, 'addAccessReviewEntry', {
          organization_id: org,
          access_review_id: campaign,
          account,
          system: 'Production',
          reviewer_id: reviewer,
        })
      ).access_review_entry.id;
    const aliceEntry = await entry('deploy@corp.example', alicePerson);
    const ownerEntry = await entry('admin@corp.example', ownerPerson);
    // A campaign still in DRAFT, and one of another day far ahead, tell nobody.
    await ok(runtime, token, 'addAccessReview', {
      organization_id: org,
      name: 'Draft campaign',
      due_on: '2026-05-05',
      owner_id: alicePerson,
    });
    await ok(runtime, token, 'addAccessReview', {
      organization_id: org,
      name: 'Q3 campaign',
      status: 'IN_PROGRESS',
      due_on: '2026-08-01',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS);
    await run();
    await run();
    const due = 'The access review "Q2 production access" is due on 2026-05-08';
    expect(subjectsTo(alice)).toEqual([due]);
    expect(subjectsTo(owner)).toEqual([due]);
    // Alice decides hers: overdue, only the owner (also a reviewer with an undecided entry) hears it.
    await ok(runtime, token, 'updateAccessReviewEntry', { id: aliceEntry, decision: 'KEEP' });
    advance(5 * 86_400_000);
    await run();
    const overdue = 'The access review "Q2 production access" is overdue (due 2026-05-08)';
    expect(subjectsTo(alice)).toEqual([due]);
    expect(subjectsTo(owner)).toEqual([due, overdue]);
    // Completed: nothing more.
    await ok(runtime, token, 'updateAccessReviewEntry', { id: ownerEntry, decision: 'REVOKE' });
    await ok(runtime, token, 'updateAccessReview', { id: campaign, status: 'COMPLETED' });
    smtp.received.length = 0;
    advance(86_400_000);
    await run();
    expect(subjectsTo(owner)).toEqual([]);
    expect(subjectsTo(alice)).toEqual([]);
  });

  it('tells a vendor’s owners its contract renewal and its assessment due on the same day, each once, until renewed and assessed', async () => {
    const prefer = { ...DEFAULT_PREFERENCES, owned_changes: false };
    await savePreferences(runtime.database.db, alice.userId, org, prefer, clock);
    const vendor = await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
      organization_id: org,
      name: 'Payroll Co',
      category: 'FINANCE',
      business_owner_id: alicePerson,
      security_owner_id: alicePerson,
      renewal_on: '2026-05-08',
    });
    await ok(runtime, token, 'addVendorAssessment', {
      organization_id: org,
      vendor_id: vendor.vendor.id,
      assessor_id: alicePerson,
      assessed_on: '2025-05-08',
      result: 'APPROVED',
      tier: 'HIGH',
      expires_on: '2026-05-08',
    });
    // An offboarded vendor's dates are nobody's work.
    await ok(runtime, token, 'addVendor', {
      organization_id: org,
      name: 'Gone Co',
      category: 'OTHER',
      business_owner_id: alicePerson,
      status: 'OFFBOARDED',
      renewal_on: '2026-05-05',
    });
    advance(SETTLE_MS);
    await run();
    await run();
    const due = [
      'The vendor "Payroll Co (assessment due)" is due on 2026-05-08',
      'The vendor "Payroll Co (contract renewal)" is due on 2026-05-08',
    ];
    expect(subjectsTo(alice)).toEqual(due);
    expect(mailsTo(alice).find((mail) => mail.subject?.includes('renewal'))?.text).toContain(
      'Status: RENEWAL_DUE',
    );
    // Past the day: overdue, each once; then assessed again and renewed a year on: nothing more.
    advance(5 * 86_400_000);
    await run();
    await run();
    const overdue = [
      'The vendor "Payroll Co (assessment due)" is overdue (due 2026-05-08)',
      'The vendor "Payroll Co (contract renewal)" is overdue (due 2026-05-08)',
    ];
    expect(subjectsTo(alice)).toEqual([...due, ...overdue].sort());
    await ok(runtime, token, 'addVendorAssessment', {
      organization_id: org,
      vendor_id: vendor.vendor.id,
      assessor_id: alicePerson,
      result: 'APPROVED',
      tier: 'HIGH',
      expires_on: '2027-05-09',
    });
    await ok(runtime, token, 'updateVendor', { id: vendor.vendor.id, renewal_on: '2027-05-08' });
    smtp.received.length = 0;
    advance(86_400_000);
    await run();
    expect(subjectsTo(alice)).toEqual([]);
  });

  it('tells a task’s assignee it was assigned, then that it is due, then overdue; nothing once done', async () => {
    const added = await ok<{ task: { id: string } }>(runtime, token, 'addTask', {
      organization_id: org,
      title: 'Rotate the signing keys',
      assignee_user_id: alice.userId,
      due_on: '2026-05-06',
    });
    advance(SETTLE_MS + 1000);
    await run();
    expect(subjectsTo(alice)).toEqual([
      'The task "Rotate the signing keys" is due on 2026-05-06',
      'The task "Rotate the signing keys" was assigned to you',
    ]);
    advance(3 * 86_400_000); // 2026-05-07: overdue
    await run();
    expect(mailsTo(alice).map((mail) => mail.subject)).toContain(
      'The task "Rotate the signing keys" is overdue (due 2026-05-06)',
    );
    await ok(runtime, token, 'updateTask', { id: added.task.id, status: 'DONE' });
    const sent = mailsTo(alice).length;
    advance(86_400_000 + SETTLE_MS);
    await run();
    // The change to DONE is not alice's to hear about (she owns nothing), and a done task is no longer due.
    expect(mailsTo(alice)).toHaveLength(sent);
  });

  it('tells the sender of a vendor questionnaire it is due, and nothing more once the vendor answered', async () => {
    const vendor = await ok<{ vendor: { id: string } }>(runtime, token, 'addVendor', {
      organization_id: org,
      name: 'Cloudy Storage',
    });
    const template = await ok<{ questionnaire_template: { id: string } }>(
      runtime,
      token,
      'addQuestionnaireTemplate',
      {
        organization_id: org,
        name: 'Short',
        questions: [
          { key: 'mfa', topic: 'Access', text: 'Is a second factor required?', answer_type: 'YES_NO' },
        ],
      },
    );
    const sent = await ok<{ link_path: string }>(runtime, token, 'sendVendorQuestionnaire', {
      vendor_id: vendor.vendor.id,
      template_id: template.questionnaire_template.id,
      contact_name: 'Vera Vendor',
      contact_email: 'vera@cloudy.example',
      due_date: '2026-05-06',
    });
    advance(SETTLE_MS + 1000);
    await run();
    const due = 'The vendor "Cloudy Storage (questionnaire unanswered)" is due on 2026-05-06';
    expect(subjectsTo(owner).filter((subject) => subject.includes('questionnaire'))).toEqual([due]);
    const web = new WebClient(runtime);
    const page = await web.get(sent.link_path);
    expect((await web.post(sent.link_path, { _csrf: csrfOf(page.html), answer_mfa: 'YES' })).status).toBe(
      200,
    );
    advance(3 * 86_400_000); // 2026-05-07: it would be overdue, but it was answered
    await run();
    expect(subjectsTo(owner).filter((subject) => subject.includes('questionnaire'))).toEqual([due]);
  });

  it('reads due sources other kinds register, and tells the assignee account', async () => {
    registerDueSource({
      kind: 'test_due_kind',
      async query(_ctx, organizationId, until) {
        if (organizationId !== org || until < '2026-05-04') return [];
        return [
          {
            kind: 'test_due_kind',
            id: 'tsk_0000000000000000000000aa',
            title: 'Rotate keys',
            due_date: '2026-05-01',
            status: 'TODO',
            done_status: 'DONE',
            owner_person_id: null,
            assignee_user_id: alice.userId,
          },
        ];
      },
    });
    await run({ mail: false });
    const [item] = await listInbox(runtime.database.db, alice.userId, false);
    expect(item?.title).toBe('The test due kind "Rotate keys" is overdue (due 2026-05-01)');
    expect(item?.record_id).toBe('tsk_0000000000000000000000aa');
    registerDueSource({ kind: 'test_due_kind', query: async () => [] });
  });
});

// ---- incident notification deadlines and data-subject requests --------------------------------------------------

describe('incident deadlines and data-subject requests', () => {
  it('tells the incident manager each clock with its local deadline and hours left, then each one missed, once per deadline', async () => {
    const prefer = { ...DEFAULT_PREFERENCES, owned_changes: false };
    await savePreferences(runtime.database.db, alice.userId, org, prefer, clock);
    // A token that outlives the months the clock moves.
    const token = await createToken(runtime, owner, { expiresAt: null });
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      time_zone: 'Europe/Paris',
      incident_regimes: ['GDPR', 'NIS2'],
    });
    clock = new Date('2026-11-28T10:00:00.000Z');
    const incident = (
      await ok<{ incident: { id: string } }>(runtime, token, 'addIncident', {
        organization_id: org,
        title: 'Laptop stolen',
        detected_at: '2026-11-28T08:30:00Z',
        personal_data: true,
        gdpr_risk: 'HIGH_RISK',
        nis2_significant: true,
        owner_id: alicePerson,
      })
    ).incident;
    const request = (
      await ok<{ data_subject_request: { id: string } }>(runtime, token, 'addDataSubjectRequest', {
        organization_id: org,
        reference: 'DSR-2026-031',
        request_type: 'ACCESS',
        received_on: '2026-11-01',
        owner_id: alicePerson,
      })
    ).data_subject_request;
    // Answered long ago, or handled by nobody with an account: never told.
    await ok(runtime, token, 'addDataSubjectRequest', {
      organization_id: org,
      reference: 'DSR-2026-001',
      request_type: 'ERASURE',
      received_on: '2026-01-05',
      status: 'COMPLETED',
      response_sent_on: '2026-01-20',
      owner_id: alicePerson,
    });
    await ok(runtime, token, 'addDataSubjectRequest', {
      organization_id: org,
      reference: 'DSR-2026-002',
      request_type: 'ACCESS',
      received_on: '2026-11-01',
    });
    advance(SETTLE_MS);
    await run();
    await run();
    const first = [
      'The GDPR authority notification of the incident "Laptop stolen" is due 2026-12-01 09:30 Europe/Paris (70 hours left)',
      'The GDPR data subjects notification of the incident "Laptop stolen" is due without undue delay',
      'The NIS2 early warning of the incident "Laptop stolen" is due 2026-11-29 09:30 Europe/Paris (22 hours left)',
      'The NIS2 notification of the incident "Laptop stolen" is due 2026-12-01 09:30 Europe/Paris (70 hours left)',
      'The data-subject request "DSR-2026-031" is due on 2026-12-01',
    ];
    expect(subjectsTo(alice)).toEqual(first);
    const authority = mailsTo(alice).find((mail) => mail.subject?.startsWith('The GDPR authority'));
    expect(authority?.headers.get('x-compliance-event')).toBe(
      `due:incident:${incident.id}:GDPR:AUTHORITY:2026-12-01T08:30:00.000Z`,
    );
    expect(authority?.text).toContain('Due: 2026-12-01 09:30 Europe/Paris (2026-12-01T08:30:00.000Z)');
    expect(authority?.text).toContain('Hours left: 70');
    expect(authority?.text).toContain('Source: Regulation (EU) 2016/679 (GDPR), Art. 33(1)');
    expect(authority?.text).toContain(`https://compliance.example.test/orgs/${org}/incidents/${incident.id}`);

    // The early warning is sent; past the 72 hours, the two notices not sent are missed (the one without a deadline
    // is never overdue), each told once.
    await ok(runtime, token, 'addIncidentNotification', {
      organization_id: org,
      incident_id: incident.id,
      regime: 'NIS2',
      stage: 'EARLY_WARNING',
      recipient: 'CERT-FR',
      sent_at: '2026-11-28T20:00:00Z',
    });
    clock = new Date('2026-12-01T09:00:00.000Z');
    await run();
    await run();
    const missed = [
      'The GDPR authority notification of the incident "Laptop stolen" was missed: due 2026-12-01 09:30 Europe/Paris, no notice recorded',
      'The NIS2 notification of the incident "Laptop stolen" was missed: due 2026-12-01 09:30 Europe/Paris, no notice recorded',
    ];
    expect(subjectsTo(alice)).toEqual([...first, ...missed].sort());

    // A day later the request is overdue; the awareness time corrected moves the deadlines: new events (the notice due
    // without undue delay too: it counts from the new awareness day).
    clock = new Date('2026-12-02T09:00:00.000Z');
    await ok(runtime, token, 'updateIncident', { id: incident.id, detected_at: '2026-11-29T10:00:00Z' });
    await run();
    const moved = [
      'The GDPR authority notification of the incident "Laptop stolen" is due 2026-12-02 11:00 Europe/Paris (1 hour left)',
      'The GDPR data subjects notification of the incident "Laptop stolen" is due without undue delay',
      'The NIS2 notification of the incident "Laptop stolen" is due 2026-12-02 11:00 Europe/Paris (1 hour left)',
      'The data-subject request "DSR-2026-031" is overdue (due 2026-12-01)',
    ];
    expect(subjectsTo(alice)).toEqual([...first, ...missed, ...moved].sort());

    // Answered and notified: nothing more, whatever the clock.
    await ok(runtime, token, 'updateDataSubjectRequest', {
      id: request.id,
      status: 'COMPLETED',
      response_sent_on: '2026-12-02',
    });
    for (const [regime, stage] of [
      ['GDPR', 'AUTHORITY'],
      ['GDPR', 'DATA_SUBJECTS'],
      ['NIS2', 'NOTIFICATION'],
    ])
      await ok(runtime, token, 'addIncidentNotification', {
        organization_id: org,
        incident_id: incident.id,
        regime,
        stage,
        recipient: regime === 'GDPR' ? 'CNIL' : 'CERT-FR',
        sent_at: '2026-12-02T09:30:00Z',
      });
    clock = new Date('2026-12-05T09:00:00.000Z');
    await run();
    expect(mailsTo(alice)).toHaveLength(first.length + missed.length + moved.length);
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(11);
  });
});

// ---- (c) assigned to me -----------------------------------------------------------------------------------------

describe('assigned to me', () => {
  it('tells the account a history row of an assignable kind assigns the record to', async () => {
    // An obligation stands in for a task: its history row names the assignee in `after`.
    registerAssignable('obligation', 'assignee_id');
    const at = clock.toISOString();
    await runtime.database.client.execute({
      sql: `INSERT INTO record_changes (id, organization_id, kind, record_id, action, surface, user_id, tool, before, after, created_at)
            VALUES ('chg_assign1', ?, 'obligation', 'obl_x', 'add', 'direct', ?, 'addTask', NULL, ?, ?)`,
      args: [
        org,
        owner.userId,
        JSON.stringify({ requirement: 'Review access', assignee_id: alice.userId }),
        at,
      ],
    });
    advance(SETTLE_MS + 1000);
    await run();
    expect(mailsTo(alice).map((mail) => mail.subject)).toEqual([
      'The obligation "Review access" was assigned to you',
    ]);
    registerAssignable('obligation', '');
  });
});

// ---- (d) the daily digest ---------------------------------------------------------------------------------------

describe('daily digest', () => {
  it('is made once per local day from the chosen hour, listing what is due and overdue', async () => {
    await savePreferences(
      runtime.database.db,
      alice.userId,
      org,
      {
        ...DEFAULT_PREFERENCES,
        owned_changes: false,
        due_soon: false,
        overdue: false,
        digest: true,
        digest_hour: 8,
        due_days: 10,
        time_zone: 'Europe/Paris',
      },
      clock,
    );
    await ok(runtime, token, 'addObligation', {
      organization_id: org,
      requirement: 'Sign the DPA',
      owner_id: alicePerson,
      due_date: '2026-05-01',
    });
    await ok(runtime, token, 'addObligation', {
      organization_id: org,
      requirement: 'Renew the certificate',
      owner_id: alicePerson,
      due_date: '2026-05-10',
    });
    clock = new Date('2026-05-04T05:30:00.000Z'); // 07:30 in Paris
    await run();
    expect(mailsTo(alice)).toHaveLength(0);
    clock = new Date('2026-05-04T06:05:00.000Z'); // 08:05 in Paris
    await run();
    clock = new Date('2026-05-04T15:00:00.000Z');
    await run();
    const digests = mailsTo(alice);
    expect(digests.map((mail) => mail.subject)).toEqual([
      'Your compliance digest for 2026-05-04: 2 items due',
    ]);
    expect(digests[0]?.text).toContain('Overdue 2026-05-01: obligation "Sign the DPA"');
    expect(digests[0]?.text).toContain('Due 2026-05-10: obligation "Renew the certificate"');
    clock = new Date('2026-05-05T06:05:00.000Z');
    await run();
    expect(mailsTo(alice).map((mail) => mail.subject)).toEqual([
      'Your compliance digest for 2026-05-04: 2 items due',
      'Your compliance digest for 2026-05-05: 2 items due',
    ]);
  });
});

// ---- exactly once, and never to someone who left ----------------------------------------------------------------

describe('exactly once per event', () => {
  async function aliceOwnsSomething(name: string) {
    await ok(runtime, token, 'addMeasure', {
      organization_id: org,
      name,
      category: 'Technical',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
  }

  it('sends one email when runs overlap (two processes at once)', async () => {
    await aliceOwnsSomething('Patching');
    const reports = await Promise.all([run(), run(), run()]);
    expect(reports.reduce((sum, report) => sum + report.emails_sent, 0)).toBe(1);
    expect(mailsTo(alice)).toHaveLength(1);
    expect((await rowsOf(alice.userId)).length).toBe(2);
  });

  it('never sends again an email whose run stopped between sending and marking it', async () => {
    await aliceOwnsSomething('Logging');
    // A mailer that delivers, then the process "dies" before the row is marked sent.
    const dying: Mailer = {
      async send(email) {
        const real = nodeMailer(loopbackMailSettings(smtp.port));
        await real.send(email);
        await real.close();
        throw new Error('process killed');
      },
      async close() {},
    };
    await run({ mailer: dying }).catch(() => undefined);
    expect(mailsTo(alice)).toHaveLength(1);
    // Simulate the crash exactly: the claim stays in `sending`.
    await runtime.database.db
      .update(notifications)
      .set({ status: 'sending' })
      .where(and(eq(notifications.user_id, alice.userId), eq(notifications.channel, 'email')));
    advance(60_000);
    await run();
    expect(mailsTo(alice)).toHaveLength(1);
    advance(16 * 60_000);
    await run();
    const [email] = (await rowsOf(alice.userId)).filter((row) => row.channel === 'email');
    expect(email?.status).toBe('unknown');
    expect(mailsTo(alice)).toHaveLength(1);
  });

  it('retries an email the SMTP server refused, and sends it once accepted', async () => {
    await aliceOwnsSomething('Firewall');
    smtp.refuse.add(alice.email);
    const refused = await run();
    expect(refused.emails_sent).toBe(0);
    let [email] = (await rowsOf(alice.userId)).filter((row) => row.channel === 'email');
    expect(email?.status).toBe('pending');
    expect(email?.attempts).toBe(1);
    expect(email?.last_error).toContain('550');
    smtp.refuse.clear();
    advance(60_000);
    expect((await run()).emails_sent).toBe(1);
    [email] = (await rowsOf(alice.userId)).filter((row) => row.channel === 'email');
    expect([email?.status, email?.attempts]).toEqual(['sent', 2]);
    expect(mailsTo(alice)).toHaveLength(1);
  });

  it('sends nothing to an account removed from the organization, and hides its in-app notifications', async () => {
    await aliceOwnsSomething('Badge access');
    // The notification was made, then Alice left before the email went out.
    await run({ mail: false }).then(() => undefined);
    await runtime.database.db.delete(notifications);
    await runtime.database.client.execute('DELETE FROM notification_cursors');
    const mailer = nodeMailer(loopbackMailSettings(smtp.port));
    const stored = await runNotifications({
      db: runtime.database.db,
      now: clock,
      mailer: { send: () => Promise.reject(new Error('not yet')), close: async () => {} },
    });
    expect(stored.notifications_created).toBe(2);
    await removeMembership(runtime.database.db, new Date(), org, alice.userId);
    await runtime.database.db
      .update(notifications)
      .set({ status: 'pending' })
      .where(eq(notifications.channel, 'email'));
    const report = await runNotifications({ db: runtime.database.db, now: clock, mailer });
    expect(report.emails_skipped).toBe(1);
    expect(mailsTo(alice)).toHaveLength(0);
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(0);
    expect(await listInbox(runtime.database.db, alice.userId, false)).toEqual([]);
  });

  it('sends nothing for a person deleted before the email went out, and makes nothing once they are gone', async () => {
    await aliceOwnsSomething('Visitor log');
    await runNotifications({
      db: runtime.database.db,
      now: clock,
      mailer: { send: () => Promise.reject(new Error('not yet')), close: async () => {} },
    });
    // Deleting the person clears the owner of their records (history rows say so) and removes the person.
    await ok(runtime, token, 'deletePerson', { id: alicePerson });
    await runtime.database.db
      .update(notifications)
      .set({ status: 'pending' })
      .where(eq(notifications.channel, 'email'));
    advance(SETTLE_MS + 1000);
    const report = await run();
    expect(report.emails_skipped).toBe(1);
    expect(report.emails_sent).toBe(0);
    expect(mailsTo(alice)).toHaveLength(0);
  });
});

// ---- in-app list and settings -----------------------------------------------------------------------------------

describe('in-app notifications and settings', () => {
  it('keeps in-app notifications only, with read and unread, when there are no SMTP settings', async () => {
    await ok(runtime, token, 'addAsset', {
      organization_id: org,
      name: 'Laptop fleet',
      asset_type: 'PHYSICAL',
      amount: 40,
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    const report = await notifyOnce({
      db: runtime.database.db,
      config: loadConfig({}),
      mailer: () => {
        throw new Error('no mailer without SMTP settings');
      },
      now: clock,
    });
    expect(report.notifications_created).toBe(1);
    expect((await rowsOf(alice.userId)).map((row) => row.channel)).toEqual(['in_app']);
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(1);
    const [item] = await listInbox(runtime.database.db, alice.userId, true);
    // Another account cannot mark it read.
    expect(await markRead(runtime.database.db, owner.userId, [item?.id ?? ''], clock)).toBe(0);
    expect(await markRead(runtime.database.db, alice.userId, [item?.id ?? ''], clock)).toBe(1);
    expect(await unreadCount(runtime.database.db, alice.userId)).toBe(0);
    expect(await listInbox(runtime.database.db, alice.userId, true)).toEqual([]);
  });

  it('sends no email to an account that turned email off, and nothing of a kind it turned off', async () => {
    await savePreferences(
      runtime.database.db,
      alice.userId,
      org,
      { ...DEFAULT_PREFERENCES, email: false },
      clock,
    );
    await ok(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'MFA',
      category: 'Technical',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    await run();
    expect((await rowsOf(alice.userId)).map((row) => row.channel)).toEqual(['in_app']);
    await savePreferences(
      runtime.database.db,
      alice.userId,
      org,
      { ...DEFAULT_PREFERENCES, owned_changes: false },
      clock,
    );
    await ok(runtime, token, 'addMeasure', {
      organization_id: org,
      name: 'SSO',
      category: 'Technical',
      owner_id: alicePerson,
    });
    advance(SETTLE_MS + 1000);
    await run();
    expect(await rowsOf(alice.userId)).toHaveLength(1);
    expect(smtp.received).toHaveLength(0);
  });

  it('refuses a time zone that does not exist', async () => {
    await expect(
      savePreferences(
        runtime.database.db,
        alice.userId,
        org,
        { ...DEFAULT_PREFERENCES, time_zone: 'Mars/Olympus' },
        clock,
      ),
    ).rejects.toThrow(/time_zone: not a known IANA time zone/);
  });
});

describe('SMTP settings', () => {
  it('reads SMTP_URL or SMTP_HOST and the others, and needs MAIL_FROM', () => {
    expect(loadConfig({}).mail).toBeNull();
    expect(
      loadConfig({ SMTP_URL: 'smtps://u%40x:p%20w@mail.example.com', MAIL_FROM: 'a@example.com' }).mail,
    ).toEqual({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      user: 'u@x',
      password: 'p w',
      insecure: false,
      from: 'a@example.com',
    });
    expect(
      loadConfig({
        SMTP_HOST: 'mail.example.com',
        SMTP_PORT: '2525',
        SMTP_USER: 'u',
        SMTP_PASSWORD: 'p',
        SMTP_INSECURE: 'true',
        MAIL_FROM: 'a@example.com',
      }).mail,
    ).toEqual({
      host: 'mail.example.com',
      port: 2525,
      secure: false,
      user: 'u',
      password: 'p',
      insecure: true,
      from: 'a@example.com',
    });
    expect(() => loadConfig({ SMTP_HOST: 'mail.example.com' })).toThrow(/MAIL_FROM is required/);
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'a@example.com' })).toThrow(
      /smtp:\/\/ or smtps:\/\//,
    );
  });
});
