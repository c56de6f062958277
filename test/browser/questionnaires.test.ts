// The public questionnaire page in Chromium on a 390 px phone, without an account: the vendor's contact opens the
// link, answers every question, attaches a SOC 2 report to the certifications question and sends; the answers, the
// file and the score are then read by the tool. A tampered link shows a clear page and no data. Writes
// test-results/questionnaire-phone.png.
import { describe, expect, it } from 'vitest';
import { STARTER_QUESTIONS } from '../../src/tools/questionnaires/starter-template.ts';
import { callTool, generateToken, phoneScreenshot, signIn, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

type Row = Record<string, unknown>;

describe('the questionnaire link page', () => {
  it("lets a vendor's contact answer and attach a file on a phone, and shows nothing for a tampered link", async () => {
    const { page, url, server, context } = await start({ demo: true, viewport: { width: 390, height: 844 } });
    const demo = server.demo;
    if (!demo) throw new Error('the demo was not seeded');
    await signIn(page, url, demo.email, demo.password);
    const token = await generateToken(page, url, 'questionnaire test', 'read_write');
    const organization_id = demo.organization_id;
    const vendor = (
      (await callTool(url, token, 'listVendors', { organization_id, size: 1 })).body.vendors as Row[]
    )[0];
    const template = (await callTool(url, token, 'addStarterQuestionnaireTemplate', { organization_id })).body
      .questionnaire_template as Row;
    const due = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const sent = await callTool(url, token, 'sendVendorQuestionnaire', {
      vendor_id: vendor?.id,
      template_id: template.id,
      contact_name: 'Vera Vendor',
      contact_email: 'vera@vendor.example',
      due_date: due,
    });
    expect(sent.status).toBe(200);
    const link = String(sent.body.link_path);

    // No session cookie: the contact has no account.
    await context.clearCookies();
    await page.goto(`${url}${link}`);
    expect(await page.locator('h1').textContent()).toBe('Security questionnaire');
    expect(await page.locator('.card > p').first().textContent()).toContain(`For ${String(vendor?.name)}.`);
    expect(await page.locator('h2').allTextContents()).toEqual([
      'Access control',
      'Encryption',
      'Incident response',
      'Business continuity',
      'Sub-processors',
      'Certifications',
    ]);
    const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wider).toBe(0);

    for (const question of STARTER_QUESTIONS) {
      if (question.answer_type === 'TEXT')
        await page.getByLabel(question.text).fill(`Answer to ${question.key}.`);
      else {
        const group = page.getByRole('group', { name: question.text });
        // Every YES but one NO (backups_tested, weight 2), and the first option of each choice.
        const choice =
          question.answer_type === 'YES_NO'
            ? question.key === 'backups_tested'
              ? 'No'
              : 'Yes'
            : question.options[0];
        await group.getByLabel(String(choice), { exact: true }).check();
      }
    }
    // A file attached by mistake, then removed through its button before sending: the answers stay on the page.
    await page.getByLabel('For the question').selectOption('certificates_held');
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'holiday-photo.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.7\n'),
    });
    await page.getByRole('button', { name: 'Attach file' }).click();
    await page.waitForURL(/\/attach$/);
    await page.waitForLoadState();
    expect(await page.locator('.attached').allTextContents()).toEqual([
      'Attached: holiday-photo.pdf (9 bytes) Remove',
    ]);
    await page.getByRole('button', { name: 'Remove holiday-photo.pdf' }).click();
    await page.waitForURL(/\/remove$/);
    await page.waitForLoadState();
    expect(await page.locator('.notice.ok').textContent()).toContain('Removed holiday-photo.pdf.');
    expect(await page.locator('.attached').count()).toBe(0);
    // A SOC 2 report for the certifications question, attached before sending: the answers stay on the page.
    const report = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4087, 0x20)]);
    await page.getByLabel('For the question').selectOption('certificates_held');
    await page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'soc2-report.pdf', mimeType: 'application/pdf', buffer: report });
    await page.getByRole('button', { name: 'Attach file' }).click();
    await page.waitForURL(/\/attach$/);
    await page.waitForLoadState();
    expect(await page.locator('.notice.ok').textContent()).toContain('Attached soc2-report.pdf.');
    expect(await page.locator('.attached').allTextContents()).toEqual([
      'Attached: soc2-report.pdf (4.0 KB) Remove',
    ]);
    const held = STARTER_QUESTIONS.find((question) => question.key === 'certificates_held');
    expect(await page.getByLabel(String(held?.text)).inputValue()).toBe('Answer to certificates_held.');
    expect(
      await page.getByRole('group', { name: STARTER_QUESTIONS[0]?.text }).getByLabel('Yes').isChecked(),
    ).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
    await page.locator('.attached').scrollIntoViewIfNeeded();
    await phoneScreenshot(page, 'questionnaire-phone');
    await page.getByRole('button', { name: 'Send answers' }).click();
    await page.waitForLoadState();
    expect(await page.locator('h1').textContent()).toBe('Thank you');
    expect(await page.locator('.notice.ok').textContent()).toContain(
      `Your answers for ${String(vendor?.name)}`,
    );

    const questionnaireId = (sent.body.vendor_questionnaire as Row).id;
    const answered = (await callTool(url, token, 'getQuestionnaireAnswers', { id: questionnaireId })).body
      .vendor_questionnaire as Row;
    const total = STARTER_QUESTIONS.reduce((sum, question) => sum + question.weight, 0);
    expect(answered.status).toBe('ANSWERED');
    expect(answered.score).toBe(Math.round((100 * (total - 2)) / total));
    const contact = (answered.questions as Row[]).find((question) => question.key === 'incident_contact');
    expect(contact?.answer).toBe('Answer to incident_contact.');
    const certificates = (answered.questions as Row[]).find(
      (question) => question.key === 'certificates_held',
    );
    expect(certificates?.files).toMatchObject([
      { file_name: 'soc2-report.pdf', size: 4096, content_type: 'application/pdf' },
    ]);

    const tampered = `${link.slice(0, -3)}${link.endsWith('xyz') ? 'abc' : 'xyz'}`;
    const response = await page.goto(`${url}${tampered}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('This link does not work');
    expect(await page.locator('body').textContent()).not.toContain(String(vendor?.name));
    expect(await page.getByRole('button', { name: 'Send answers' }).count()).toBe(0);
    const used = await page.goto(`${url}${link}`);
    expect(used?.status()).toBe(410);
  });
});
