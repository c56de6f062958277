// Approving and rejecting a document version in a browser: an approver (signed in with their own account) approves one
// policy with the button, and rejects another with a comment, which sends it back to draft and is kept in the history.
import { describe, expect, it } from 'vitest';
import { callTool, generateToken, screenshot, signUp, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

type Row = Record<string, unknown>;

describe('document approvals', () => {
  it('approves one version and rejects another with a comment', async () => {
    const { page, url } = await start();
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    const home = new URL(page.url()).pathname;
    const organizationId = home.split('/')[2] ?? '';
    const token = await generateToken(page, url, 'seeding', 'read_write');
    const call = async (tool: string, args: Row) => {
      const answer = await callTool(url, token, tool, args);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    const ada = (
      await call('addPerson', {
        organization_id: organizationId,
        full_name: 'Ada Lovelace',
        email: 'ada@example.com',
      })
    ).person as Row;
    const policy = async (title: string) =>
      (
        await call('addDocument', {
          organization_id: organizationId,
          title,
          content: `# ${title}\n\nRules.`,
          status: 'IN_REVIEW',
          approver_ids: [ada.id],
        })
      ).document as Row;
    const approved = await policy('Acceptable use policy');
    const rejected = await policy('Remote work policy');

    await page.goto(`${url}${home}/documents/${approved.id}`);
    await page.getByRole('button', { name: 'Approve version 1' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('Version 1 is now approved.');
    expect(await page.getByRole('button', { name: 'Approve version 1' }).count()).toBe(0);

    await page.goto(`${url}${home}/documents/${rejected.id}`);
    await page.getByLabel('Reason for rejecting').fill('Name the owner of each rule.');
    await screenshot(page, '71-document-reject');
    await page.getByRole('button', { name: 'Reject version 1' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('Version 1 is now draft.');
    expect(await page.locator('#history ~ .table-wrap').first().textContent()).toContain(
      'Name the owner of each rule.',
    );

    const states = await Promise.all(
      [approved, rejected].map(
        async (document) => ((await call('getDocument', { id: document.id })).document as Row).status,
      ),
    );
    expect(states).toEqual(['APPROVED', 'DRAFT']);
    const changes = (
      await call('listChanges', { organization_id: organizationId, filter: { record_id: rejected.id } })
    ).changes as Row[];
    const rejection = changes.find((change) => change.tool === 'rejectDocument');
    expect(rejection).toMatchObject({ surface: 'web', after: { comment: 'Name the owner of each rule.' } });
  });
});
