// A vendor's questionnaire pages: the send form on the vendor's page shows the single-use link once (a refusal keeps
// what was typed and sends nothing); the answers page shows each answer and the score; the drafted assessment is
// shown for a person to change and confirm into addVendorAssessment, a refusal writing nothing.
import { describe, expect, it } from 'vitest';
import { STARTER_TEMPLATE_NAME } from '../../src/tools/questionnaires/starter-template.ts';
import { ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

describe('vendor questionnaire pages', () => {
  it('sends, shows the answers and score, and confirms the drafted assessment', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const add = async (tool: string, key: string, args: Row) =>
      (await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row;
    const ada = await add('addPerson', 'person', { full_name: 'Ada Lovelace', email: 'ada@example.com' });
    const vendor = await add('addVendor', 'vendor', { name: 'Cloudy Storage', tier: 'HIGH' });
    const otherVendor = await add('addVendor', 'vendor', { name: 'Other Vendor' });
    const template = await add('addQuestionnaireTemplate', 'questionnaire_template', {
      name: 'Storage vendors',
      questions: [
        {
          key: 'mfa',
          topic: 'Access control',
          text: 'Do staff use <MFA>?',
          answer_type: 'YES_NO',
          weight: 3,
        },
        {
          key: 'backups',
          topic: 'Continuity',
          text: 'Are backups tested?',
          answer_type: 'YES_NO',
          weight: 1,
        },
      ],
    });
    const base = `/orgs/${organizationId}/vendors/${vendor.id}`;
    const listed = async () =>
      (
        await ok(runtime, token, 'listVendorQuestionnaires', {
          organization_id: organizationId,
          filter: { vendor_id: vendor.id },
        })
      ).vendor_questionnaires as Row[];

    const vendorPage = await client.get(base);
    expect(vendorPage.html).toContain(`action="${base}/questionnaires"`);
    expect(vendorPage.html).toContain(`<option value="${template.id}">Storage vendors</option>`);

    // A due date in the past: refused by the tool, shown with what was typed, nothing sent.
    const fields = {
      _csrf: csrfOf(vendorPage.html),
      template_id: template.id as string,
      contact_name: 'Vera Vendor',
      contact_email: 'vera@cloudy.example',
    };
    const past = await client.post(`${base}/questionnaires`, { ...fields, due_date: '2020-01-01' });
    expect(past.status).toBe(400);
    expect(textOf(past.html)).toContain('Not sent: due_date 2020-01-01 is in the past.');
    expect(past.html).toContain('value="vera@cloudy.example"');
    expect(await listed()).toEqual([]);

    const due = day(10);
    const sent = await client.post(`${base}/questionnaires`, { ...fields, due_date: due });
    expect(sent.status).toBe(200);
    const link = /value="(http[^"]+\/q\/[A-Za-z0-9_-]{43})"/.exec(sent.html)?.[1] ?? '';
    expect(link).not.toBe('');
    expect(textOf(sent.html)).toContain(`“Storage vendors” is ready for Vera Vendor, to answer by ${due}.`);
    const [questionnaire] = await listed();
    expect(questionnaire).toMatchObject({ status: 'PENDING', contact_email: 'vera@cloudy.example' });
    // Shown once: the vendor's page lists the questionnaire, never its link.
    const path = new URL(link).pathname;
    const afterSend = await client.get(base);
    expect(afterSend.html).toContain(`href="${base}/questionnaires/${questionnaire?.id}"`);
    expect(afterSend.html).not.toContain(path);

    // The vendor answers on the public page: MFA yes (3), backups no (0 of 1).
    const vendorClient = new WebClient(runtime);
    const form = await vendorClient.get(path);
    const answered = await vendorClient.post(path, {
      _csrf: csrfOf(form.html),
      answer_mfa: 'YES',
      answer_backups: 'NO',
    });
    expect(answered.status).toBe(200);

    const answersPath = `${base}/questionnaires/${questionnaire?.id}`;
    const answers = await client.get(answersPath);
    expect(answers.status).toBe(200);
    const answersText = textOf(answers.html);
    expect(answersText).toContain('Score 75 of 100');
    expect(answersText).toContain('Do staff use <MFA>? Yes Yes 3');
    expect(answersText).toContain('Are backups tested? No No 1');
    expect(answers.html).toContain('Do staff use &lt;MFA&gt;?');
    expect(answers.html).toContain(`href="${answersPath}/assessment"`);
    // The questionnaire under another vendor's address: not found.
    const elsewhere = await client.get(
      `/orgs/${organizationId}/vendors/${otherVendor.id}/questionnaires/${questionnaire?.id}`,
    );
    expect(elsewhere.status).toBe(404);

    const proposed = (
      await ok(runtime, token, 'draftVendorAssessment', { questionnaire_id: questionnaire?.id })
    ).proposed as Row;
    const draft = await client.get(`${answersPath}/assessment`);
    expect(draft.status).toBe(200);
    expect(draft.html).toContain(`<option value="${proposed.result}" selected="">`);
    expect(draft.html).toContain(`<option value="HIGH" selected="">`);
    expect(draft.html).toContain(`value="${proposed.expires_on}"`);
    expect(textOf(draft.html)).toContain('Are backups tested? Answer: NO');
    const assessments = async () =>
      (
        await ok(runtime, token, 'listVendorAssessments', {
          organization_id: organizationId,
          filter: { vendor_id: vendor.id },
        })
      ).vendor_assessments as Row[];

    const confirm = {
      _csrf: csrfOf(draft.html),
      assessor_id: ada.id as string,
      assessed_on: String(proposed.assessed_on),
      result: 'APPROVED_WITH_CONDITIONS',
      tier: 'HIGH',
      expires_on: String(proposed.expires_on),
      summary: 'Backups to be tested by the next quarter.',
    };
    // No assessor, then an expiry before the assessment: refused with what was typed, nothing added.
    const noAssessor = await client.post(`${answersPath}/assessment`, { ...confirm, assessor_id: '' });
    expect(noAssessor.status).toBe(400);
    expect(textOf(noAssessor.html)).toContain('Choose the assessor.');
    expect(noAssessor.html).toContain('Backups to be tested by the next quarter.</textarea>');
    const backwards = await client.post(`${answersPath}/assessment`, {
      ...confirm,
      expires_on: '2001-01-01',
    });
    expect(backwards.status).toBe(400);
    expect(textOf(backwards.html)).toContain('Not added:');
    expect(backwards.html).toContain('<option value="APPROVED_WITH_CONDITIONS" selected="">');
    expect(await assessments()).toEqual([]);

    const added = await client.post(`${answersPath}/assessment`, confirm);
    expect(added.status).toBe(303);
    const [assessment] = await assessments();
    expect(assessment).toMatchObject({
      vendor_id: vendor.id,
      assessor_id: ada.id,
      result: 'APPROVED_WITH_CONDITIONS',
      tier: 'HIGH',
      expires_on: proposed.expires_on,
      summary: 'Backups to be tested by the next quarter.',
    });
    expect(added.location).toBe(`/orgs/${organizationId}/vendor-assessments/${assessment?.id}`);
    const shown = await client.follow(added);
    expect(textOf(shown.html)).toContain(
      `Assessment added: Approved with conditions, tier High, until ${proposed.expires_on}.`,
    );
  });

  it('adds the starter template from the vendor page once, however often the button is pressed', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const vendor = (
      await ok(runtime, token, 'addVendor', { organization_id: organizationId, name: 'Cloudy Storage' })
    ).vendor as Row;
    const templates = async () =>
      (
        (await ok(runtime, token, 'listQuestionnaireTemplates', { organization_id: organizationId }))
          .questionnaire_templates as Row[]
      ).map((template) => template.name);
    const base = `/orgs/${organizationId}/vendors/${vendor.id}`;
    const action = `${base}/questionnaire-templates/starter`;

    const before = await client.get(base);
    expect(before.html).toContain(`action="${action}"`);
    expect(textOf(before.html)).toContain('Add the starter questionnaire template');
    const csrf = csrfOf(before.html);
    const first = await client.post(action, { _csrf: csrf });
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${base}#questionnaires`);
    const shown = await client.follow(first);
    expect(textOf(shown.html)).toContain(
      `Template “${STARTER_TEMPLATE_NAME}” added: choose it below to send it.`,
    );
    expect(await templates()).toEqual([STARTER_TEMPLATE_NAME]);
    // Now offered in the send form; the button is gone.
    expect(shown.html).toContain(`>${STARTER_TEMPLATE_NAME}</option>`);
    expect(shown.html).not.toContain(`action="${action}"`);

    // A second click (a stale page) and two more together: still one template.
    const again = await client.post(action, { _csrf: csrf });
    expect(again.status).toBe(303);
    expect(textOf((await client.follow(again)).html)).toContain('already: nothing was added.');
    await Promise.all([client.post(action, { _csrf: csrf }), client.post(action, { _csrf: csrf })]);
    expect(await templates()).toEqual([STARTER_TEMPLATE_NAME]);
  });

  it('adds the starter template once when the button is pressed three times at once', async () => {
    const { runtime, client, token, organizationId } = await signedUpRuntime(runtimes);
    const vendor = (
      await ok(runtime, token, 'addVendor', { organization_id: organizationId, name: 'Cloudy Storage' })
    ).vendor as Row;
    const action = `/orgs/${organizationId}/vendors/${vendor.id}/questionnaire-templates/starter`;
    const page = await client.get(`/orgs/${organizationId}/vendors/${vendor.id}`);
    const posts = await Promise.all([1, 2, 3].map(() => client.post(action, { _csrf: csrfOf(page.html) })));
    expect(posts.map((post) => post.status)).toEqual([303, 303, 303]);
    const listed = (
      await ok(runtime, token, 'listQuestionnaireTemplates', { organization_id: organizationId })
    ).questionnaire_templates as Row[];
    expect(listed.map((template) => template.name)).toEqual([STARTER_TEMPLATE_NAME]);
  });
});
