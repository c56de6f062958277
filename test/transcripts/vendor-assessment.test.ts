// Transcript: a vendor assessment with a questionnaire. A weighted template, sent to the vendor's contact, answered
// through the public link, scored from the weights, an assessment drafted from the answers and confirmed by a person.
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
} from '../helpers.ts';
import { Transcript, transcribedCalls } from '../transcript.ts';
import { csrfOf, textOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('vendor assessment transcript', () => {
  it('sends a weighted questionnaire, scores the answers and confirms the drafted assessment', async () => {
    let clock = new Date('2026-05-04T09:00:00.000Z');
    const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
    runtimes.push(runtime);
    const alice = await createActor(runtime, 'alice');
    const org = await createOrg(runtime, alice, 'Acme Health');
    const transcript = new Transcript(
      'Vendor assessment with a questionnaire',
      'Acme Health assesses Cloudy Storage, a high-tier vendor: a questionnaire template with weighted questions is sent to the vendor’s contact, answered through its link, scored, and an assessment is drafted from the answers; Alice reads the draft and saves it.',
    );
    const call = transcribedCalls(transcript, runtime, await createToken(runtime, alice));
    await call.ok('Add the assessor to the people register', 'addPerson', {
      organization_id: org,
      full_name: 'Alice Owner',
      email: alice.email,
    });
    const vendor = (
      await call.ok('Add the vendor', 'addVendor', {
        organization_id: org,
        name: 'Cloudy Storage',
        tier: 'HIGH',
      })
    ).vendor as Row;
    const template = (
      await call.ok(
        'Write the questionnaire template',
        'addQuestionnaireTemplate',
        {
          organization_id: org,
          name: 'Storage vendors',
          questions: [
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
              answer_type: 'YES_NO',
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
            {
              key: 'backups',
              topic: 'Continuity',
              text: 'Are backups tested?',
              answer_type: 'YES_NO',
              weight: 4,
            },
            { key: 'contact', topic: 'Continuity', text: 'Whom do we call?', answer_type: 'TEXT' },
          ],
        },
        'Each scored question has a weight (1 when left out) and the answers that are acceptable; a TEXT question is not scored.',
      )
    ).questionnaire_template as Row;
    transcript.table(
      ['key', 'text', 'answer_type', 'acceptable', 'weight'],
      (template.questions as Row[]).map((question) => ({
        ...question,
        acceptable: (question.acceptable as string[] | null)?.join(', '),
      })),
    );
    expect((template.questions as Row[]).map((question) => [question.key, question.weight])).toEqual([
      ['mfa', 3],
      ['breach', 1],
      ['notice', 2],
      ['backups', 4],
      ['contact', 0],
    ]);

    const sent = await call.ok<{ vendor_questionnaire: Row; link_path: string }>(
      'Send it to the vendor’s contact',
      'sendVendorQuestionnaire',
      {
        vendor_id: vendor.id,
        template_id: template.id,
        contact_name: 'Vera Vendor',
        contact_email: 'vera@cloudy.example',
        due_date: '2026-05-20',
      },
    );
    expect(sent.vendor_questionnaire).toMatchObject({ status: 'PENDING', score: null });

    const web = new WebClient(runtime);
    const page = await web.get(sent.link_path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('How soon would you tell us?');
    transcript.page('Vera opens the link (no account)', textOf(page.html), 600);
    clock = new Date('2026-05-06T14:30:00.000Z');
    const answered = await web.post(sent.link_path, {
      _csrf: csrfOf(page.html),
      answer_mfa: 'YES',
      answer_breach: 'YES',
      answer_notice: 'A day',
      answer_backups: 'NO',
      answer_contact: 'security@cloudy.example',
    });
    expect(answered.status).toBe(200);
    transcript.page('Vera answers and sends', textOf(answered.html), 400);

    const answers = (
      await call.ok<{ vendor_questionnaire: Row }>(
        'Read the answers and the score',
        'getQuestionnaireAnswers',
        { id: sent.vendor_questionnaire.id },
        'Score: the weights of acceptable answers over all scored weights: mfa 3 + notice 2 of 3 + 1 + 2 + 4 = 10, so 50.',
      )
    ).vendor_questionnaire;
    expect(answers).toMatchObject({ status: 'ANSWERED', score: 50 });
    expect((answers.questions as Row[]).map((q) => [q.key, q.answer, q.acceptable_answer])).toEqual([
      ['mfa', 'YES', true],
      ['breach', 'YES', false],
      ['notice', 'A day', true],
      ['backups', 'NO', false],
      ['contact', 'security@cloudy.example', null],
    ]);

    const draft = await call.ok<{ score: number; proposed: Row; findings: Row[] }>(
      'Draft the assessment from the answers',
      'draftVendorAssessment',
      { questionnaire_id: sent.vendor_questionnaire.id },
      'A draft only: nothing is saved until a person confirms it.',
    );
    expect(draft.score).toBe(50);
    expect(draft.proposed).toMatchObject({
      result: 'APPROVED_WITH_CONDITIONS',
      tier: 'HIGH',
      assessed_on: '2026-05-06',
    });
    expect(draft.findings.map((finding) => finding.key)).toEqual(['breach', 'backups']);
    const none = await call.ok<{ total_count: number }>('No assessment saved yet', 'listVendorAssessments', {
      organization_id: org,
    });
    expect(none.total_count).toBe(0);
    const saved = (
      await call.ok<{ vendor_assessment: Row }>(
        'Alice confirms the draft: it is saved as proposed',
        'addVendorAssessment',
        draft.proposed,
      )
    ).vendor_assessment;
    expect(saved).toMatchObject({
      vendor_id: vendor.id,
      result: 'APPROVED_WITH_CONDITIONS',
      expires_on: '2027-05-06',
    });
    transcript.write('test-results/transcripts/vendor-assessment.md');
  });
});
