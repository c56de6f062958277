// Vendor security questionnaires: templates (the starter one and one's own), sending through a single-use link,
// answering on the public page (kept answers on a mistake, cross-site refused, tampered 404, used and expired 410),
// the score from the weights, a drafted assessment saved by nobody, reminders, history and isolation.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vendorQuestionnaires } from '../../src/db/schema.ts';
import { STARTER_QUESTIONS } from '../../src/tools/questionnaires/starter-template.ts';
import {
  ACTOR_PASSWORD,
  type Actor,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-05-04T09:00:00.000Z');
let alice: Actor;
let org: string;
let aliceToken: string;
let bobToken: string;
let vendorId: string;
let templateId: string;
let alicePerson: string;

/** Four scored questions (weights 3, 1, 2 and 4) and one in free text. */
const QUESTIONS = [
  {
    key: 'mfa',
    topic: 'Access control',
    text: 'Do staff sign in with a second factor?',
    answer_type: 'YES_NO',
    weight: 3,
  },
  {
    key: 'breach',
    topic: 'Incident response',
    text: 'Had a breach this year?',
    answer_type: 'yes_no',
    acceptable: ['NO'],
  },
  {
    key: 'notice',
    topic: 'Incident response',
    text: 'How soon would you tell us?',
    answer_type: 'CHOICE',
    options: ['A day', 'A week', 'Never'],
    acceptable: ['A day'],
    weight: 2,
  },
  { key: 'backups', topic: 'Continuity', text: 'Are backups tested?', answer_type: 'YES_NO', weight: 4 },
  { key: 'contact', topic: 'Continuity', text: 'Whom do we call?', answer_type: 'TEXT' },
];

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Buyer Org');
  await createOrg(runtime, bob, 'Other Org');
  aliceToken = await createToken(runtime, alice);
  bobToken = await createToken(runtime, bob);
  const person = await ok(runtime, aliceToken, 'addPerson', {
    organization_id: org,
    full_name: 'Alice Owner',
    email: alice.email,
    kind: 'EMPLOYEE',
  });
  alicePerson = String((person.person as Row).id);
  const vendor = await ok(runtime, aliceToken, 'addVendor', {
    organization_id: org,
    name: 'Cloudy Storage',
    tier: 'HIGH',
  });
  vendorId = String((vendor.vendor as Row).id);
  const template = await ok(runtime, aliceToken, 'addQuestionnaireTemplate', {
    organization_id: org,
    name: 'Storage vendors',
    questions: QUESTIONS,
  });
  templateId = String((template.questionnaire_template as Row).id);
});

afterAll(async () => {
  await runtime?.cleanup();
});

const refused = async (token: string, tool: string, args: Row) =>
  errorOf(await callDirect(runtime, token, tool, args));

const send = async (due_date = '2026-05-20', link_days = 30) =>
  ok(runtime, aliceToken, 'sendVendorQuestionnaire', {
    vendor_id: vendorId,
    template_id: templateId,
    contact_name: 'Vera Vendor',
    contact_email: 'Vera@Cloudy.example',
    due_date,
    link_days,
  });

const statusesOf = async (filter: Row) =>
  (
    (await ok(runtime, aliceToken, 'listVendorQuestionnaires', { organization_id: org, filter }))
      .vendor_questionnaires as Row[]
  ).map((row) => [row.id, row.status]);

describe('questionnaire templates', () => {
  it('stores the questions with their defaults: YES_NO acceptable YES, weight 1, TEXT unscored', async () => {
    const got = await ok(runtime, aliceToken, 'getQuestionnaireTemplate', { id: templateId });
    const questions = (got.questionnaire_template as Row).questions as Row[];
    expect(
      questions.map((question) => [question.key, question.answer_type, question.acceptable, question.weight]),
    ).toEqual([
      ['mfa', 'YES_NO', ['YES'], 3],
      ['breach', 'YES_NO', ['NO'], 1],
      ['notice', 'CHOICE', ['A day'], 2],
      ['backups', 'YES_NO', ['YES'], 4],
      ['contact', 'TEXT', [], 0],
    ]);
  });

  it('refuses a template whose questions do not hold together, naming the question', async () => {
    const error = await refused(aliceToken, 'addQuestionnaireTemplate', {
      organization_id: org,
      name: 'Broken',
      questions: [
        { key: 'a', topic: 'T', text: 'Pick', answer_type: 'CHOICE', options: ['x', 'y'], acceptable: ['z'] },
        { key: 'a', topic: 'T', text: 'Say', answer_type: 'TEXT', weight: 2 },
      ],
    });
    expect(error.code).toBe('invalid_arguments');
    const paths = ((error.details as Row[] | undefined) ?? []).map((issue) => issue.path);
    expect(paths).toEqual(['questions.0.acceptable', 'questions.1.key', 'questions.1.weight']);
    const listed = await ok(runtime, aliceToken, 'listQuestionnaireTemplates', { organization_id: org });
    expect((listed.questionnaire_templates as Row[]).map((row) => row.name)).toEqual(['Storage vendors']);
  });

  it('adds the starter template on the six topics, every scored question with a weight', async () => {
    const added = await ok(runtime, aliceToken, 'addStarterQuestionnaireTemplate', { organization_id: org });
    const template = added.questionnaire_template as Row;
    const questions = template.questions as Row[];
    expect(questions).toHaveLength(STARTER_QUESTIONS.length);
    expect([...new Set(questions.map((question) => question.topic))]).toEqual([
      'Access control',
      'Encryption',
      'Incident response',
      'Business continuity',
      'Sub-processors',
      'Certifications',
    ]);
    expect(
      questions.filter((question) => question.answer_type !== 'TEXT').every((q) => Number(q.weight) > 0),
    ).toBe(true);
    const history = await ok(runtime, aliceToken, 'listChanges', {
      organization_id: org,
      filter: { record_id: template.id },
    });
    expect((history.changes as Row[]).map((row) => [row.tool, row.action])).toEqual([
      ['addStarterQuestionnaireTemplate', 'add'],
    ]);
  });
});

describe('sending and answering', () => {
  it('answers through the public link: mistakes keep the answers, the score follows the weights, the link then ends', async () => {
    const sent = await send();
    const questionnaire = sent.vendor_questionnaire as Row;
    expect(questionnaire).toMatchObject({
      status: 'PENDING',
      vendor_name: 'Cloudy Storage',
      contact_email: 'vera@cloudy.example',
      due_date: '2026-05-20',
      link_expires_at: '2026-06-03T09:00:00.000Z',
      score: null,
    });
    expect(String(sent.note)).toContain('No mail was sent');
    const path = String(sent.link_path);
    expect(path).toMatch(/^\/q\/[A-Za-z0-9_-]{43}$/);

    const web = new WebClient(runtime);
    const page = await web.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('For Cloudy Storage. Please answer by 2026-05-20.');
    expect(page.html).toContain('How soon would you tell us?');
    // Only the vendor, the questions and the due date: not the buyer's organization nor the template's name.
    expect(page.html).not.toContain('Buyer Org');
    expect(page.html).not.toContain('Storage vendors');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');

    const answers = {
      answer_mfa: 'YES',
      answer_breach: 'YES',
      answer_notice: 'A day',
      answer_backups: 'NO',
      // A control character is dropped and the ends trimmed, as every text input is.
      answer_contact: ' security@cloudy.example\u0000 ',
    };
    const crossSite = await web.post(
      path,
      { _csrf: csrfOf(page.html), ...answers },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    // A missing answer and a made-up choice: shown again with what was typed kept, nothing stored.
    const wrong = await web.post(path, {
      _csrf: csrfOf(page.html),
      ...answers,
      answer_backups: '',
      answer_notice: 'Tomorrow',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('2 questions need an answer or a correction; nothing was sent yet.');
    expect(wrong.html).toContain('security@cloudy.example');
    expect(wrong.html).toContain('Pick one of the answers offered.');
    expect(await statusesOf({ status: 'PENDING' })).toEqual([[questionnaire.id, 'PENDING']]);

    clock = new Date('2026-05-06T14:30:00.000Z');
    const done = await web.post(path, { _csrf: csrfOf(wrong.html), ...answers });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Your answers for Cloudy Storage were received on 2026-05-06.');

    const got = (await ok(runtime, aliceToken, 'getQuestionnaireAnswers', { id: questionnaire.id }))
      .vendor_questionnaire as Row;
    // Earned: mfa 3 + notice 2 of 3 + 1 + 2 + 4 = 10 → 50.
    expect(got).toMatchObject({ status: 'ANSWERED', score: 50, answered_at: '2026-05-06T14:30:00.000Z' });
    expect((got.questions as Row[]).map((q) => [q.key, q.answer, q.acceptable_answer])).toEqual([
      ['mfa', 'YES', true],
      ['breach', 'YES', false],
      ['notice', 'A day', true],
      ['backups', 'NO', false],
      ['contact', 'security@cloudy.example', null],
    ]);

    const again = await web.get(path);
    expect(again.status).toBe(410);
    expect(again.html).toContain('This link was already used');
    expect(again.html).not.toContain('Cloudy Storage');
    const replay = await web.post(path, { _csrf: csrfOf(page.html), ...answers, answer_backups: 'YES' });
    expect(replay.status).toBe(410);
    const unchanged = (await ok(runtime, aliceToken, 'getQuestionnaireAnswers', { id: questionnaire.id }))
      .vendor_questionnaire as Row;
    expect([unchanged.score, unchanged.answered_at]).toEqual([50, '2026-05-06T14:30:00.000Z']);
    expect((await refused(aliceToken, 'remindQuestionnaire', { id: questionnaire.id })).code).toBe(
      'conflict',
    );
  });

  it('drafts an assessment from the answers and saves nothing', async () => {
    const [answered] = await statusesOf({ status: 'ANSWERED' });
    const before = await ok(runtime, aliceToken, 'listVendorAssessments', { organization_id: org });
    const draft = await ok(runtime, aliceToken, 'draftVendorAssessment', { questionnaire_id: answered?.[0] });
    expect(draft.score).toBe(50);
    expect(draft.proposed).toMatchObject({
      organization_id: org,
      vendor_id: vendorId,
      assessor_id: alicePerson,
      assessed_on: '2026-05-06',
      result: 'APPROVED_WITH_CONDITIONS',
      tier: 'HIGH',
      expires_on: '2027-05-06',
    });
    expect((draft.findings as Row[]).map((finding) => [finding.key, finding.answer])).toEqual([
      ['breach', 'YES'],
      ['backups', 'NO'],
    ]);
    expect(String((draft.proposed as Row).summary)).toContain('- Are backups tested? Answer: NO.');
    const after = await ok(runtime, aliceToken, 'listVendorAssessments', { organization_id: org });
    expect(after.total_count).toBe(before.total_count);
    // The proposal is valid input for the person who confirms it.
    const saved = await ok(runtime, aliceToken, 'addVendorAssessment', draft.proposed as Row);
    expect((saved.vendor_assessment as Row).result).toBe('APPROVED_WITH_CONDITIONS');
  });

  it('shows no data for a tampered or expired link; a reminder replaces the link and revives an expired one', async () => {
    const sent = await send('2026-05-07', 1);
    const id = String((sent.vendor_questionnaire as Row).id);
    const path = String(sent.link_path);
    const web = new WebClient(runtime);
    const tampered = `${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`;
    const bad = await web.get(tampered);
    expect(bad.status).toBe(404);
    expect(bad.html).toContain('This link does not work');
    expect(bad.html).not.toContain('Cloudy Storage');
    expect((await web.get('/q/short')).status).toBe(404);

    clock = new Date('2026-05-08T10:00:00.000Z');
    const expired = await web.get(path);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('This link has expired');
    expect(expired.html).not.toContain('Cloudy Storage');
    expect(await statusesOf({ status: 'EXPIRED' })).toEqual([[id, 'EXPIRED']]);

    const reminded = await ok(runtime, aliceToken, 'remindQuestionnaire', {
      id,
      due_date: '2026-05-15',
      link_days: 14,
    });
    expect(reminded.vendor_questionnaire).toMatchObject({
      status: 'PENDING',
      due_date: '2026-05-15',
      reminded_at: '2026-05-08T10:00:00.000Z',
    });
    expect((await web.get(path)).status).toBe(404);
    const fresh = await web.get(String(reminded.link_path));
    expect(fresh.status).toBe(200);
    expect(fresh.html).toContain('Please answer by 2026-05-15.');
    const history = await ok(runtime, aliceToken, 'listChanges', {
      organization_id: org,
      filter: { record_id: vendorId },
    });
    const tools = (history.changes as Row[]).map((row) => row.tool);
    expect(tools.filter((tool) => tool === 'sendVendorQuestionnaire')).toHaveLength(2);
    expect(tools.filter((tool) => tool === 'remindQuestionnaire')).toHaveLength(1);
  });

  it('filters by vendor and status, and refuses a due date the link would not reach', async () => {
    const other = await ok(runtime, aliceToken, 'addVendor', { organization_id: org, name: 'Other vendor' });
    const otherId = String((other.vendor as Row).id);
    expect(await statusesOf({ vendor_id: otherId })).toEqual([]);
    expect((await statusesOf({ vendor_id: vendorId })).map((row) => row[1]).sort()).toEqual([
      'ANSWERED',
      'PENDING',
    ]);
    const error = await refused(aliceToken, 'sendVendorQuestionnaire', {
      vendor_id: vendorId,
      template_id: templateId,
      contact_name: 'Vera Vendor',
      contact_email: 'vera@cloudy.example',
      due_date: '2026-09-01',
      link_days: 10,
    });
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('before due_date 2026-09-01');
    // The sender's work holds the vendor while a questionnaire is unanswered, due on its due date.
    const work = ((await ok(runtime, aliceToken, 'myWork', { organization_id: org })).items as Row[]).filter(
      (item) => item.reason === 'QUESTIONNAIRE',
    );
    expect(work.map((item) => [item.kind, item.id, item.title, item.due_on])).toEqual([
      ['vendor', vendorId, 'Questionnaire unanswered: Cloudy Storage', '2026-05-15'],
    ]);
    const bobWork = (await ok(runtime, bobToken, 'myWork', {})).items as Row[];
    expect(bobWork.filter((item) => item.reason === 'QUESTIONNAIRE')).toEqual([]);
  });

  it('pages the list by id and keeps the questions a questionnaire was sent with when the template changes', async () => {
    const first = await ok(runtime, aliceToken, 'listVendorQuestionnaires', {
      organization_id: org,
      size: 1,
    });
    expect(first.total_count).toBe(2);
    const second = await ok(runtime, aliceToken, 'listVendorQuestionnaires', {
      organization_id: org,
      size: 1,
      cursor: first.next_cursor,
    });
    expect(second.next_cursor).toBeNull();
    const ids = [...(first.vendor_questionnaires as Row[]), ...(second.vendor_questionnaires as Row[])].map(
      (row) => row.id,
    );
    expect(new Set(ids).size).toBe(2);
    const updated = await ok(runtime, aliceToken, 'updateQuestionnaireTemplate', {
      id: templateId,
      questions: [{ key: 'only', topic: 'New', text: 'One question now?', answer_type: 'YES_NO' }],
    });
    expect(((updated.questionnaire_template as Row).questions as Row[]).map((q) => q.key)).toEqual(['only']);
    const sent = (await ok(runtime, aliceToken, 'getQuestionnaireAnswers', { id: ids[0] }))
      .vendor_questionnaire as Row;
    expect((sent.questions as Row[]).map((q) => q.key)).toEqual([
      'mfa',
      'breach',
      'notice',
      'backups',
      'contact',
    ]);
    const history = await ok(runtime, aliceToken, 'listChanges', {
      organization_id: org,
      filter: { record_id: templateId },
    });
    expect((history.changes as Row[]).map((row) => [row.tool, row.before, row.after])).toEqual([
      ['updateQuestionnaireTemplate', { questions: 5 }, { questions: 1 }],
      ['addQuestionnaireTemplate', null, { name: 'Storage vendors', description: null, questions: 5 }],
    ]);
  });

  it("keeps organizations apart: another organization's token reads, reminds and drafts nothing", async () => {
    const [first] = await statusesOf({});
    const id = String(first?.[0]);
    for (const [tool, args] of [
      ['getQuestionnaireAnswers', { id }],
      ['remindQuestionnaire', { id }],
      ['draftVendorAssessment', { questionnaire_id: id }],
      ['listVendorQuestionnaires', { organization_id: org }],
      ['getQuestionnaireTemplate', { id: templateId }],
      [
        'sendVendorQuestionnaire',
        {
          vendor_id: vendorId,
          template_id: templateId,
          contact_name: 'X',
          contact_email: 'x@example.com',
          due_date: '2026-05-20',
        },
      ],
    ] as const)
      expect([tool, (await refused(bobToken, tool, args)).code]).toEqual([tool, 'not_found']);
    // Bob's own template cannot be sent to Alice's vendor, nor Alice's to Bob's.
    const bobOrg = String(
      ((await ok(runtime, bobToken, 'listOrganizations', {})).organizations as Row[])[0]?.id,
    );
    const bobTemplate = await ok(runtime, bobToken, 'addStarterQuestionnaireTemplate', {
      organization_id: bobOrg,
    });
    const crossed = await refused(aliceToken, 'sendVendorQuestionnaire', {
      vendor_id: vendorId,
      template_id: (bobTemplate.questionnaire_template as Row).id,
      contact_name: 'X',
      contact_email: 'x@example.com',
      due_date: '2026-05-20',
    });
    expect(crossed.code).toBe('not_found');
  });

  it("lists the questionnaires on the vendor's page, with status and score", async () => {
    const web = new WebClient(runtime);
    expect((await web.signIn(alice.email, ACTOR_PASSWORD)).status).toBe(303);
    const page = await web.get(`/orgs/${org}/vendors/${vendorId}`);
    expect(page.status).toBe(200);
    const start = page.html.indexOf('id="questionnaires"');
    const section = page.html.slice(start, page.html.indexOf('</section>', start));
    expect(section).toContain('Security questionnaires');
    expect(section).toContain('vera@cloudy.example');
    // A header row and the two questionnaires sent to this vendor.
    expect(section.match(/<tr>/g)?.length).toBe(3);
    expect(section).toContain(
      '<span class="badge ok">Answered</span><span class="small muted"> 2026-05-06</span>',
    );
    expect(section).toContain('<td class="num">50</td>');
    expect(section).toContain('<span class="badge warn">Pending</span>');
  });

  it("deletes a vendor's questionnaires with the vendor: its link then shows nothing", async () => {
    const added = await ok(runtime, aliceToken, 'addVendor', {
      organization_id: org,
      name: 'Short-lived vendor',
    });
    const id = String((added.vendor as Row).id);
    const sent = await ok(runtime, aliceToken, 'sendVendorQuestionnaire', {
      vendor_id: id,
      template_id: templateId,
      contact_name: 'Lou Leaving',
      contact_email: 'lou@leaving.example',
      due_date: '2026-05-20',
    });
    await ok(runtime, aliceToken, 'deleteVendor', { id });
    const questionnaire = String((sent.vendor_questionnaire as Row).id);
    expect((await refused(aliceToken, 'getQuestionnaireAnswers', { id: questionnaire })).code).toBe(
      'not_found',
    );
    const page = await new WebClient(runtime).get(String(sent.link_path));
    expect(page.status).toBe(404);
    expect(page.html).not.toContain('Short-lived vendor');
    const rows = await runtime.database.db
      .select()
      .from(vendorQuestionnaires)
      .where(eq(vendorQuestionnaires.id, questionnaire));
    expect(rows).toEqual([]);
  });
});
