// Links mailed through the notification outbox: acknowledgement requests and vendor questionnaires (send and remind)
// queue a mail to the person or contact when the service mails; the outbox row never holds the link, the delivery
// run issues it as it sends, and a link no longer wanted is not sent.
import { eq } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acknowledgements,
  notifications,
  trustAccessRequests,
  vendorQuestionnaires,
} from '../../src/db/schema.ts';
import { runNotifications } from '../../src/notify/engine.ts';
import { nodeMailer } from '../../src/notify/mailer-node.ts';
import { createActor, createOrg, createTestRuntime, createToken, ok, type TestRuntime } from '../helpers.ts';
import {
  type LoopbackSmtp,
  loopbackMailEnv,
  loopbackMailSettings,
  startLoopbackSmtp,
} from '../smtp-loopback.ts';
import { askForTrustDocument } from '../trust-visitor.ts';
import { csrfOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

const PUBLIC_URL = 'https://compliance.example.test';
let runtime: TestRuntime;
let plain: TestRuntime;
let token: string;
let plainToken: string;
let org: string;
let plainOrg: string;
let aliceEmail: string;
let smtp: LoopbackSmtp;
const clock = new Date('2026-06-01T09:00:00.000Z');

const smtpEnv = () => ({ ...loopbackMailEnv(smtp.port), PUBLIC_URL });

/** One delivery run of the outbox through the loopback SMTP server. */
async function deliver() {
  return runNotifications({
    db: runtime.database.db,
    now: clock,
    mailer: nodeMailer(loopbackMailSettings(smtp.port)),
    publicUrl: PUBLIC_URL,
  });
}

/** A published document approved by the caller's person, and a person without an account to ask. */
async function documentAndReader(
  runtimeOf: TestRuntime,
  tokenOf: string,
  organization: string,
  email: string,
) {
  const person = async (full_name: string, address: string) =>
    String(
      (
        (
          await ok(runtimeOf, tokenOf, 'addPerson', {
            organization_id: organization,
            full_name,
            email: address,
          })
        ).person as Row
      ).id,
    );
  const approver = await person('Owner', email);
  const reader = await person('Rita Reader', `rita@${organization.slice(4, 10)}.example`);
  const document = String(
    (
      (
        await ok(runtimeOf, tokenOf, 'addDocument', {
          organization_id: organization,
          title: 'Acceptable use policy',
          content: 'Be careful.',
          approver_ids: [approver],
        })
      ).document as Row
    ).id,
  );
  await ok(runtimeOf, tokenOf, 'updateDocument', { id: document, status: 'IN_REVIEW' });
  await ok(runtimeOf, tokenOf, 'approveDocument', { id: document });
  await ok(runtimeOf, tokenOf, 'updateDocument', { id: document, status: 'PUBLISHED' });
  return { document, reader, readerEmail: `rita@${organization.slice(4, 10)}.example` };
}

beforeAll(async () => {
  smtp = await startLoopbackSmtp();
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0', ...smtpEnv() }, now: () => clock });
  plain = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Mailing Org');
  token = await createToken(runtime, alice);
  const bob = await createActor(plain, 'bob');
  plainOrg = await createOrg(plain, bob, 'Quiet Org');
  plainToken = await createToken(plain, bob);
  await documentAndReader(plain, plainToken, plainOrg, bob.email);
  aliceEmail = alice.email;
});

afterAll(async () => {
  await runtime?.cleanup();
  await plain?.cleanup();
  await smtp?.close();
});

const pathIn = (mail: ParsedMail | undefined, prefix: string) => {
  const match = new RegExp(`${PUBLIC_URL}(${prefix}[A-Za-z0-9_-]{43})`).exec(mail?.text ?? '');
  return match?.[1] ?? '';
};

describe('acknowledgement links by mail', () => {
  it('queues a mail instead of returning the link, stores no link, and the delivered link acknowledges once', async () => {
    const { document, reader, readerEmail } = await documentAndReader(runtime, token, org, aliceEmail);
    const asked = await ok(runtime, token, 'requestAcknowledgements', {
      document_id: document,
      audience: 'PEOPLE',
      person_ids: [reader],
      due_date: '2026-06-15',
    });
    expect(asked).toMatchObject({ requested: 1, mails_queued: 1 });
    expect(asked.links).toEqual([
      { person_id: reader, email: readerEmail, link_path: null, mail_queued: true },
    ]);
    const { db } = runtime.database;
    // Until the mail goes there is no secret at all, and the outbox row names the record, not a link.
    const [pending] = await db.select().from(acknowledgements).where(eq(acknowledgements.person_id, reader));
    expect(pending?.secret_hash).toBeNull();
    const queued = await db.select().from(notifications).where(eq(notifications.kind, 'link'));
    expect(
      queued.map((row) => [row.user_id, row.to_address, row.record_kind, row.record_id, row.status]),
    ).toEqual([[null, readerEmail, 'acknowledgement', pending?.id, 'pending']]);
    expect(JSON.stringify(queued)).not.toContain('/ack/');
    expect(queued[0]?.title).toBe('Please acknowledge: Acceptable use policy v1');

    const report = await deliver();
    expect(report.emails_sent).toBe(1);
    const mail = smtp.received.find(
      (item) => item.subject === 'Please acknowledge: Acceptable use policy v1',
    );
    expect(mail?.to && 'text' in mail.to ? mail.to.text : '').toBe(readerEmail);
    expect(mail?.text).toContain('Mailing Org asks you to read version 1 of "Acceptable use policy"');
    expect(mail?.text).toContain('by 2026-06-15');
    const path = pathIn(mail, '/ack/');
    expect(path).toMatch(/^\/ack\//);
    const [sent] = await db.select().from(notifications).where(eq(notifications.kind, 'link'));
    expect(sent?.status).toBe('sent');
    expect(JSON.stringify(sent)).not.toContain(path.slice(5));

    const web = new WebClient(runtime);
    const page = await web.get(path);
    expect(page.status).toBe(200);
    expect((await web.post(path, { _csrf: csrfOf(page.html) })).status).toBe(200);

    // A reminder for no one pending queues nothing; a mail queued for an acknowledgement done since is skipped.
    const request = String((asked.request as Row).id);
    const reminded = await ok(runtime, token, 'sendAcknowledgementReminders', { request_id: request });
    expect([reminded.reminded, reminded.mails_queued]).toEqual([0, 0]);
  });

  it('returns the link as before when the service sends no mail', async () => {
    const listed = await ok(plain, plainToken, 'listPeople', { organization_id: plainOrg });
    const reader = (listed.people as Row[]).find((person) => person.full_name === 'Rita Reader') as Row;
    const documents = await ok(plain, plainToken, 'listDocuments', { organization_id: plainOrg });
    const asked = await ok(plain, plainToken, 'requestAcknowledgements', {
      document_id: String((documents.documents as Row[])[0]?.id),
      audience: 'PEOPLE',
      person_ids: [reader.id],
    });
    expect(asked.mails_queued).toBe(0);
    const link = (asked.links as Row[])[0] as Row;
    expect(link.mail_queued).toBe(false);
    expect(String(link.link_path)).toMatch(/^\/ack\/[A-Za-z0-9_-]{43}$/);
    const queued = await plain.database.db.select().from(notifications).where(eq(notifications.kind, 'link'));
    expect(queued).toEqual([]);
  });
});

describe('questionnaire links by mail', () => {
  it('mails the vendor contact on send and on remind; the reminder replaces the first link; none once expired', async () => {
    const vendor = String(
      ((await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Acme Hosting' })).vendor as Row)
        .id,
    );
    const made = await ok(runtime, token, 'addStarterQuestionnaireTemplate', { organization_id: org });
    const templateId = String((made.questionnaire_template as Row).id);
    const sent = await ok(runtime, token, 'sendVendorQuestionnaire', {
      vendor_id: vendor,
      template_id: templateId,
      contact_name: 'Vera Vendor',
      contact_email: 'vera@acme.example',
      due_date: '2026-06-20',
    });
    expect(sent).toMatchObject({ link_path: null, mail_queued: true });
    const id = String((sent.vendor_questionnaire as Row).id);
    const { db } = runtime.database;
    const [stored] = await db.select().from(vendorQuestionnaires).where(eq(vendorQuestionnaires.id, id));
    expect(stored?.secret_hash).toBeNull();
    await deliver();
    const first = smtp.received.filter((item) =>
      item.subject?.startsWith('Security questionnaire from Mailing Org'),
    );
    expect(first.length).toBe(1);
    expect(first[0]?.text).toContain('Mailing Org asks Acme Hosting to answer the questionnaire');
    const firstPath = pathIn(first[0], '/q/');
    expect(firstPath).toMatch(/^\/q\//);

    const reminded = await ok(runtime, token, 'remindQuestionnaire', { id });
    expect(reminded).toMatchObject({ link_path: null, mail_queued: true });
    await deliver();
    const both = smtp.received.filter((item) =>
      item.subject?.startsWith('Security questionnaire from Mailing Org'),
    );
    expect(both.length).toBe(2);
    const secondPath = pathIn(both[1], '/q/');
    expect(secondPath).not.toBe(firstPath);
    const web = new WebClient(runtime);
    expect((await web.get(firstPath)).status).toBe(404);
    expect((await web.get(secondPath)).status).toBe(200);

    // A mail still queued for a questionnaire whose link has expired is skipped, not sent.
    await ok(runtime, token, 'remindQuestionnaire', { id, link_days: 20 });
    await db
      .update(vendorQuestionnaires)
      .set({ link_expires_at: '2026-05-01T00:00:00.000Z' })
      .where(eq(vendorQuestionnaires.id, id));
    const report = await deliver();
    expect([report.emails_sent, report.emails_skipped]).toEqual([0, 1]);
  });
});

describe('trust page links by mail', () => {
  it('mails the approved link to the requester (issued as it is sent), and tells the owner of the request', async () => {
    const documents = await ok(runtime, token, 'listDocuments', { organization_id: org });
    const document = String(
      (documents.documents as Row[]).find((row) => row.title === 'Acceptable use policy')?.id,
    );
    await ok(runtime, token, 'updateTrustPage', { organization_id: org, enabled: true, slug: 'mailing-org' });
    await ok(runtime, token, 'setTrustPageItem', {
      organization_id: org,
      record_id: document,
      visibility: 'ON_REQUEST',
    });
    const ask = (email: string) =>
      askForTrustDocument(runtime, { slug: 'mailing-org', org, token }, document, { email });
    const request = await ask('vic@buyer.example');

    // The owner hears of the request by mail, with the address of the page where it is decided.
    await deliver();
    const told = smtp.received.find(
      (mail) => mail.subject === 'Trust page request for Acceptable use policy',
    );
    expect(told?.to && 'text' in told.to ? told.to.text : '').toBe(aliceEmail);
    expect(told?.text).toContain(
      'Vic Visitor (vic@buyer.example) of Buyer Ltd asks for "Acceptable use policy"',
    );
    expect(told?.text).toContain(`Open: ${PUBLIC_URL}/orgs/${org}/trust#trust-requests`);

    const decided = await ok(runtime, token, 'decideTrustAccessRequest', {
      id: request,
      decision: 'APPROVE',
    });
    expect(decided).toMatchObject({ link_path: null, mail_queued: true });
    expect((decided.trust_access_request as Row).link_expires_at).toBe('2026-06-08T09:00:00.000Z');
    const { db } = runtime.database;
    const [pending] = await db.select().from(trustAccessRequests).where(eq(trustAccessRequests.id, request));
    expect([pending?.status, pending?.secret_hash]).toEqual(['APPROVED', null]);
    const queued = await db.select().from(notifications).where(eq(notifications.record_id, request));
    const linkRows = queued.filter((row) => row.kind === 'link');
    expect(linkRows.map((row) => [row.user_id, row.to_address, row.record_kind, row.status])).toEqual([
      [null, 'vic@buyer.example', 'trust_access_request', 'pending'],
    ]);
    expect(JSON.stringify(queued)).not.toContain('/download/');

    const report = await deliver();
    expect(report.emails_sent).toBe(1);
    const mail = smtp.received.find(
      (item) => item.subject === 'Your request for Acceptable use policy was approved',
    );
    expect(mail?.to && 'text' in mail.to ? mail.to.text : '').toBe('vic@buyer.example');
    expect(mail?.text).toContain('approved your request for "Acceptable use policy"');
    expect(mail?.text).toContain('until 2026-06-08 09:00 UTC');
    const path = pathIn(mail, '/trust/mailing-org/download/');
    expect(path).toMatch(/^\/trust\/mailing-org\/download\//);
    const [sent] = await db
      .select()
      .from(notifications)
      .where(eq(notifications.id, String(linkRows[0]?.id)));
    expect(sent?.status).toBe('sent');
    expect(JSON.stringify(sent)).not.toContain(path.slice(-43));
    const [issued] = await db.select().from(trustAccessRequests).where(eq(trustAccessRequests.id, request));
    expect(issued?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    const download = await runtime.app.request(`http://127.0.0.1:8787${path}`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('Be careful.');

    // A mail still queued when its link has expired is skipped, not sent.
    const late = await ask('late@buyer.example');
    await ok(runtime, token, 'decideTrustAccessRequest', { id: late, decision: 'APPROVE' });
    await db
      .update(trustAccessRequests)
      .set({ link_expires_at: '2026-05-01T00:00:00.000Z' })
      .where(eq(trustAccessRequests.id, late));
    const skipped = await deliver();
    expect([skipped.emails_sent, skipped.emails_skipped]).toEqual([1, 1]);
    expect(smtp.received.filter((item) => item.subject?.startsWith('Your request for')).length).toBe(1);
  });
});
