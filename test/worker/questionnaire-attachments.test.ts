// A file attached through a questionnaire link on the Worker: the public form's multipart body read in large chunks,
// the file streamed into R2 through the link's storeFile call and linked to the answer; a tampered link stores nothing;
// the contact's removal takes the file out of R2.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { browserSession, csrfOf } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { blobCount, callTool, ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

describe('questionnaire attachments on the Worker', () => {
  it('stores the file attached through the link in R2 and shows it with the answers', async () => {
    const database = testDatabase();
    const { organizationId, token } = await ownedOrganization(database, 'questionnaires');
    const vendor = (await callTool(token, 'addVendor', { organization_id: organizationId, name: 'Cloudy' }))
      .body.vendor as Row;
    const template = (
      await callTool(token, 'addQuestionnaireTemplate', {
        organization_id: organizationId,
        name: 'Short',
        questions: [{ key: 'certs', topic: 'Certifications', text: 'Which reports?', answer_type: 'TEXT' }],
      })
    ).body.questionnaire_template as Row;
    const sent = await callTool(token, 'sendVendorQuestionnaire', {
      vendor_id: vendor.id,
      template_id: template.id,
      contact_name: 'Vera',
      contact_email: 'vera@cloudy.example',
      due_date: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
    });
    expect(sent.status).toBe(200);
    const path = String(sent.body.link_path);
    const questionnaireId = String((sent.body.vendor_questionnaire as Row).id);

    const { send } = browserSession((request) => {
      request.headers.set('cf-connecting-ip', `10.9.${Math.floor(Math.random() * 250)}.7`);
      return exports.default.fetch(request);
    }, BASE);
    const csrf = csrfOf(await (await send(path)).text());
    const bytes = new Uint8Array(512 * 1024).map((_, index) => (index * 13) % 256);
    const form = () => {
      const body = new FormData();
      body.append('_csrf', csrf);
      body.append('answer_certs', 'SOC 2 Type II');
      body.append('attach_question', 'certs');
      body.append('attachment', new File([bytes], 'soc2.bin'));
      return body;
    };
    const before = await blobCount();
    const tampered = `${path.slice(0, -2)}${path.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await send(`${tampered}/attach`, { method: 'POST', body: form() })).status).toBe(404);
    expect(await blobCount()).toBe(before);

    const posted = await send(`${path}/attach`, { method: 'POST', body: form() });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('Attached: soc2.bin (512.0 KB)');
    expect(await blobCount()).toBe(before + 1);
    const answers = (await callTool(token, 'getQuestionnaireAnswers', { id: questionnaireId })).body
      .vendor_questionnaire as { questions: { files: Row[] }[] };
    expect(answers.questions[0]?.files).toMatchObject([{ file_name: 'soc2.bin', size: bytes.byteLength }]);

    // Removed by the contact before sending: the link row, the stored file and its bytes in R2 go.
    const fileId = /name="remove_file" value="(vqf_[0-9a-z]+)"/.exec(await (await send(path)).text())?.[1];
    expect(fileId).toBeDefined();
    const removal = new FormData();
    removal.append('_csrf', csrf);
    removal.append('remove_file', String(fileId));
    const removed = await send(`${path}/remove`, { method: 'POST', body: removal });
    expect(removed.status).toBe(200);
    expect(await removed.text()).toContain('Removed soc2.bin. Your answers are not sent yet.');
    expect(await blobCount()).toBe(before);
    const after = (await callTool(token, 'getQuestionnaireAnswers', { id: questionnaireId })).body
      .vendor_questionnaire as { questions: { files: Row[] }[] };
    expect(after.questions[0]?.files).toEqual([]);
  });
});
