// Files a vendor's contact attaches to a questionnaire's answers through its link: stored through the upload seam
// (sniffed type, byte limits, the call log), shown with the answers to the organization, refused for a tampered,
// expired or used link, over the file limit, over the questionnaire's count, or without the form's token; nothing
// is stored by a refused upload (a race for the last place removes the loser's file), nothing is attached once the
// answers are in, and deleting the vendor deletes the links.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFiles, toolCalls, vendorQuestionnaireFiles } from '../../src/db/schema.ts';
import { attachmentsOf, QUESTIONNAIRE_MAX_FILES } from '../../src/tools/questionnaires/attachments.ts';
import {
  ACTOR_PASSWORD,
  type Actor,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, type PageResponse, textOf, WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

const FILE_MAX_BYTES = 64 * 1024;
let runtime: TestRuntime;
let clock = new Date('2026-05-04T09:00:00.000Z');
let alice: Actor;
let org: string;
let token: string;
let vendorId: string;
let templateId: string;

const QUESTIONS = [
  {
    key: 'mfa',
    topic: 'Access control',
    text: 'Do staff use a second factor?',
    answer_type: 'YES_NO',
    weight: 3,
  },
  { key: 'certs', topic: 'Certifications', text: 'Which certifications do you hold?', answer_type: 'TEXT' },
];

/** A small PDF's first bytes: enough for the type to be sniffed as one. */
const pdf = (size: number) => {
  const bytes = new Uint8Array(size).fill(0x20);
  bytes.set(new TextEncoder().encode('%PDF-1.7\n'));
  return bytes;
};

beforeAll(async () => {
  runtime = await createTestRuntime({
    env: { RATE_LIMIT_PER_MINUTE: '0', FILE_MAX_BYTES: String(FILE_MAX_BYTES) },
    now: () => clock,
  });
  alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Buyer Org');
  token = await createToken(runtime, alice);
  vendorId = String(
    ((await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Cloudy' })).vendor as Row).id,
  );
  const template = await ok(runtime, token, 'addQuestionnaireTemplate', {
    organization_id: org,
    name: 'Storage vendors',
    questions: QUESTIONS,
  });
  templateId = String((template.questionnaire_template as Row).id);
});

afterAll(async () => {
  await runtime.cleanup();
});

/** A questionnaire sent to the vendor: its id and link path. */
async function send(): Promise<{ id: string; path: string }> {
  const sent = await ok(runtime, token, 'sendVendorQuestionnaire', {
    vendor_id: vendorId,
    template_id: templateId,
    contact_name: 'Vera Vendor',
    contact_email: 'vera@cloudy.example',
    due_date: '2026-05-20',
  });
  return { id: String((sent.vendor_questionnaire as Row).id), path: String(sent.link_path) };
}

/** The form posted as the browser posts it: multipart, the token first, the file last. */
function postForm(
  client: WebClient,
  action: string,
  fields: [string, string | File][],
): Promise<PageResponse> {
  const body = new FormData();
  for (const [name, value] of fields) body.append(name, value);
  return client.request(action, { method: 'POST', body, headers: { origin: new URL(client.base).origin } });
}

async function storedCount(): Promise<number> {
  const [row] = await runtime.database.db.select({ n: count() }).from(storedFiles);
  return row?.n ?? 0;
}

async function attachedTo(questionnaireId: string) {
  return runtime.database.db
    .select()
    .from(vendorQuestionnaireFiles)
    .where(eq(vendorQuestionnaireFiles.questionnaire_id, questionnaireId));
}

/** The vendor's contact with the link's page open: the client and the form's token. */
async function openLink(path: string): Promise<{ client: WebClient; csrf: string }> {
  const client = new WebClient(runtime);
  const page = await client.get(path);
  expect(page.status).toBe(200);
  return { client, csrf: csrfOf(page.html) };
}

describe('files attached to questionnaire answers', () => {
  it('attaches a file to an answer, keeps what was typed, and shows it to the organization with the answers', async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const attached = await postForm(client, `${path}/attach`, [
      ['_csrf', csrf],
      ['answer_mfa', 'YES'],
      ['answer_certs', 'SOC 2 Type II, report attached'],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(2048)], 'soc2-report.pdf', { type: 'application/pdf' })],
    ]);
    expect(attached.status).toBe(200);
    const shown = textOf(attached.html);
    expect(shown).toContain('Attached soc2-report.pdf. Your answers are not sent yet.');
    expect(shown).toContain('Attached: soc2-report.pdf (2.0 KB)');
    expect(attached.html).toContain('SOC 2 Type II, report attached</textarea>');
    expect(attached.html).toMatch(/id="answer_mfa-0" name="answer_mfa" value="YES" checked=""/);

    // Read by the organization with the answers, before and after they are sent: the file, its facts, a link.
    const read = async () =>
      (
        (await ok(runtime, token, 'getQuestionnaireAnswers', { id })).vendor_questionnaire as {
          questions: { key: string; files: Row[] }[];
        }
      ).questions;
    const certs = (await read()).find((question) => question.key === 'certs');
    expect(certs?.files).toHaveLength(1);
    const file = certs?.files[0] as Row;
    expect(file).toMatchObject({ file_name: 'soc2-report.pdf', size: 2048, content_type: 'application/pdf' });
    expect((await read()).find((question) => question.key === 'mfa')?.files).toEqual([]);
    const download = await runtime.app.request(
      new URL(String(file.download_url), 'http://localhost').pathname,
    );
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(pdf(2048));

    // The questionnaire's page in the organization's web links the file under its answer.
    const member = new WebClient(runtime);
    await member.signIn(alice.email, ACTOR_PASSWORD);
    const answersPage = await member.get(`/orgs/${org}/vendors/${vendorId}/questionnaires/${id}`);
    expect(answersPage.status).toBe(200);
    expect(answersPage.html).toMatch(/<a href="[^"]*\/files\/[^"]+" download="">soc2-report\.pdf<\/a>/);

    // Through the seam: the call log holds the link's storeFile call in the organization.
    await runtime.usage.flush();
    const calls = await runtime.database.db.select().from(toolCalls).where(eq(toolCalls.token_id, id));
    expect(calls.map((call) => [call.tool, call.outcome, call.organization_id, call.surface])).toEqual([
      ['storeFile', 'ok', org, 'web'],
    ]);
    // The organization's activity page names the link, not an unknown user.
    const activity = textOf((await member.get(`/orgs/${org}/activity`)).html);
    expect(activity).toContain(`storeFile vendor's contact questionnaire link (${id}) ok`);

    const answered = await postForm(client, path, [
      ['_csrf', csrf],
      ['answer_mfa', 'YES'],
      ['answer_certs', 'SOC 2 Type II, report attached'],
      ['attach_question', ''],
      ['attachment', new File([], '')],
    ]);
    expect(answered.status).toBe(200);
    expect(textOf(answered.html)).toContain('Your answers for Cloudy were received');

    // Once answered, the link attaches nothing more, and the answer keeps its one file.
    const stored = await storedCount();
    const late = await postForm(client, `${path}/attach`, [
      ['_csrf', csrf],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(100)], 'late.pdf')],
    ]);
    expect(late.status).toBe(410);
    expect(await storedCount()).toBe(stored);
    expect((await read()).find((question) => question.key === 'certs')?.files).toHaveLength(1);
  });

  it('attaches the file chosen when the answers are sent with it', async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const answered = await postForm(client, path, [
      ['_csrf', csrf],
      ['answer_mfa', 'NO'],
      ['answer_certs', 'ISO 27001'],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(300)], 'iso-certificate.pdf')],
    ]);
    expect(answered.status).toBe(200);
    expect((await attachedTo(id)).map((row) => row.question_key)).toEqual(['certs']);
  });

  it('stores nothing through a tampered, expired or replaced link, or without the form token', async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const before = await storedCount();
    const fields = (token: string): [string, string | File][] => [
      ['_csrf', token],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(1000)], 'soc2.pdf')],
    ];
    const tampered = `${path.slice(0, -2)}${path.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await postForm(client, `${tampered}/attach`, fields(csrf))).status).toBe(404);
    const forged = await postForm(client, `${path}/attach`, fields('x'.repeat(43)));
    expect(forged.status).toBe(403);
    expect(textOf(forged.html)).toContain('Form expired');
    const crossSite = await client.request(`${path}/attach`, {
      method: 'POST',
      body: (() => {
        const body = new FormData();
        for (const [name, value] of fields(csrf)) body.append(name, value);
        return body;
      })(),
      headers: { origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);

    // A reminder's fresh link replaces this one: the old link attaches nothing.
    await ok(runtime, token, 'remindQuestionnaire', { id });
    expect((await postForm(client, `${path}/attach`, fields(csrf))).status).toBe(404);

    const { path: later } = await send();
    const opened = await openLink(later);
    clock = new Date(clock.getTime() + 31 * 86_400_000);
    try {
      expect((await postForm(opened.client, `${later}/attach`, fields(opened.csrf))).status).toBe(410);
    } finally {
      clock = new Date(clock.getTime() - 31 * 86_400_000);
    }
    expect(await storedCount()).toBe(before);
    expect(await attachedTo(id)).toEqual([]);
  });

  it('refuses a file over the limit, or a question that is not asked, storing nothing', async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const before = await storedCount();
    const tooLarge = await postForm(client, `${path}/attach`, [
      ['_csrf', csrf],
      ['answer_certs', 'kept'],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(FILE_MAX_BYTES + 1)], 'huge.pdf')],
    ]);
    expect(tooLarge.status).toBe(413);
    expect(textOf(tooLarge.html)).toContain(
      'Not attached: The file is larger than 64.0 KB: attach a smaller file.',
    );
    expect(tooLarge.html).toContain('kept</textarea>');
    const unasked = await postForm(client, `${path}/attach`, [
      ['_csrf', csrf],
      ['attach_question', 'not_a_question'],
      ['attachment', new File([pdf(10)], 'a.pdf')],
    ]);
    expect(unasked.status).toBe(400);
    expect(textOf(unasked.html)).toContain('Choose the question the file is for');
    expect(await storedCount()).toBe(before);
    expect(await attachedTo(id)).toEqual([]);
  });

  it(`takes at most ${QUESTIONNAIRE_MAX_FILES} files per questionnaire`, async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const attach = (index: number) =>
      postForm(client, `${path}/attach`, [
        ['_csrf', csrf],
        ['attach_question', 'certs'],
        ['attachment', new File([pdf(50)], `part-${index}.pdf`)],
      ]);
    for (let index = 0; index < QUESTIONNAIRE_MAX_FILES - 1; index++)
      expect((await attach(index)).status).toBe(200);
    // Two at once for the last place: both are stored, one is linked, the other's file removed at once.
    const before = await storedCount();
    const racing = await Promise.all([attach(100), attach(101)]);
    expect(racing.map((page) => page.status).sort()).toEqual([200, 413]);
    expect(await storedCount()).toBe(before + 1);
    const over = await attach(QUESTIONNAIRE_MAX_FILES);
    expect(over.status).toBe(413);
    expect(textOf(over.html)).toContain(`This questionnaire has ${QUESTIONNAIRE_MAX_FILES} files already`);
    expect(await storedCount()).toBe(before + 1);
    expect(await attachedTo(id)).toHaveLength(QUESTIONNAIRE_MAX_FILES);
  });

  it('removes a mistaken file through its link before the answers are sent, keeping what was typed', async () => {
    const { id, path } = await send();
    const { client, csrf } = await openLink(path);
    const attach = (name: string) =>
      postForm(client, `${path}/attach`, [
        ['_csrf', csrf],
        ['attach_question', 'certs'],
        ['attachment', new File([pdf(128)], name)],
      ]);
    expect((await attach('wrong-report.pdf')).status).toBe(200);
    expect((await attach('soc2.pdf')).status).toBe(200);
    // Told apart by name: both came at the same instant of the test's clock.
    const held = await attachmentsOf(runtime.database.db, id);
    const wrong = held.find((file) => file.file_name === 'wrong-report.pdf');
    const right = held.find((file) => file.file_name === 'soc2.pdf');
    const before = await storedCount();
    const removed = await postForm(client, `${path}/remove`, [
      ['_csrf', csrf],
      ['answer_certs', 'typed before removing'],
      ['remove_file', String(wrong?.id)],
      ['attach_question', ''],
      ['attachment', new File([], '')],
    ]);
    expect(removed.status).toBe(200);
    const shown = textOf(removed.html);
    expect(shown).toContain('Removed wrong-report.pdf. Your answers are not sent yet.');
    expect(shown).not.toContain('Attached: wrong-report.pdf');
    expect(shown).toContain('Attached: soc2.pdf');
    expect(removed.html).toContain('typed before removing</textarea>');
    expect((await attachedTo(id)).map((row) => row.id)).toEqual([right?.id]);
    // The stored file went with it, and the organization's reading lists only the file kept.
    expect(await storedCount()).toBe(before - 1);
    const read = await ok(runtime, token, 'getQuestionnaireAnswers', { id });
    const certs = (
      read.vendor_questionnaire as { questions: { key: string; files: Row[] }[] }
    ).questions.find((question) => question.key === 'certs');
    expect(certs?.files.map((file) => file.file_name)).toEqual(['soc2.pdf']);
    // Removed already: not found, nothing else goes.
    const again = await postForm(client, `${path}/remove`, [
      ['_csrf', csrf],
      ['remove_file', String(wrong?.id)],
    ]);
    expect(again.status).toBe(404);
    expect(textOf(again.html)).toContain('That file is not attached to this questionnaire');
    expect(await attachedTo(id)).toHaveLength(1);
  });

  it('removes no file of another questionnaire, through a tampered link, without the token, or once answered', async () => {
    const mine = await send();
    const theirs = await send();
    const own = await openLink(mine.path);
    const other = await openLink(theirs.path);
    const attachTo = (link: { client: WebClient; csrf: string }, path: string) =>
      postForm(link.client, `${path}/attach`, [
        ['_csrf', link.csrf],
        ['attach_question', 'certs'],
        ['attachment', new File([pdf(64)], 'kept.pdf')],
      ]);
    expect((await attachTo(own, mine.path)).status).toBe(200);
    expect((await attachTo(other, theirs.path)).status).toBe(200);
    const [ownFile] = await attachedTo(mine.id);
    const [otherFile] = await attachedTo(theirs.id);
    const before = await storedCount();
    const remove = (
      link: { client: WebClient; csrf: string },
      path: string,
      fileId: string,
      csrf = link.csrf,
    ) =>
      postForm(link.client, `${path}/remove`, [
        ['_csrf', csrf],
        ['remove_file', fileId],
      ]);

    // My link naming the other questionnaire's file: not found, and that file stays.
    expect((await remove(own, mine.path, String(otherFile?.id))).status).toBe(404);
    const tampered = `${mine.path.slice(0, -2)}${mine.path.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await remove(own, tampered, String(ownFile?.id))).status).toBe(404);
    const forged = await remove(own, mine.path, String(ownFile?.id), 'x'.repeat(43));
    expect(forged.status).toBe(403);
    expect(textOf(forged.html)).toContain('Form expired');

    // Once the answers are sent, the link removes nothing: the file stays with them.
    const answered = await postForm(own.client, mine.path, [
      ['_csrf', own.csrf],
      ['answer_mfa', 'YES'],
      ['answer_certs', 'ISO 27001'],
    ]);
    expect(answered.status).toBe(200);
    expect((await remove(own, mine.path, String(ownFile?.id))).status).toBe(410);

    expect(await storedCount()).toBe(before);
    expect((await attachedTo(mine.id)).map((row) => row.id)).toEqual([ownFile?.id]);
    expect((await attachedTo(theirs.id)).map((row) => row.id)).toEqual([otherFile?.id]);
  });

  it("deletes the links of a vendor's attached files with the vendor", async () => {
    const other = (await ok(runtime, token, 'addVendor', { organization_id: org, name: 'Leaving' }))
      .vendor as Row;
    const sent = await ok(runtime, token, 'sendVendorQuestionnaire', {
      vendor_id: other.id,
      template_id: templateId,
      contact_name: 'Lee',
      contact_email: 'lee@leaving.example',
      due_date: '2026-05-20',
    });
    const id = String((sent.vendor_questionnaire as Row).id);
    const path = String(sent.link_path);
    const { client, csrf } = await openLink(path);
    const attached = await postForm(client, `${path}/attach`, [
      ['_csrf', csrf],
      ['attach_question', 'certs'],
      ['attachment', new File([pdf(64)], 'report.pdf')],
    ]);
    expect(attached.status).toBe(200);
    expect(await attachedTo(id)).toHaveLength(1);
    await ok(runtime, token, 'deleteVendor', { id: other.id });
    expect(await attachedTo(id)).toEqual([]);
  });
});
