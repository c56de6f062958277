// Proposed writes in a browser: a propose token proposes an update and two deletes; a person sees the diff on the
// Proposals page, approves the update (the record changes, its history names the proposal and the approver), rejects
// a delete with a comment (an empty one is refused), and an approval whose record changed since is refused with the
// reason. The page on a 390 px phone is screenshot.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { callTool, generateToken, screenshot, signUp, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

type Row = Record<string, unknown>;

/** The card of one proposal on the page. */
function card(page: Page, id: string) {
  return page.locator(`section[aria-label="Proposal ${id}"]`);
}

describe('proposals in a browser', () => {
  it('shows the diff, approves one, rejects one with a comment and refuses a stale one', async () => {
    const { page, url } = await start();
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    const home = new URL(page.url()).pathname;
    const organizationId = home.split('/')[2] ?? '';
    const writer = await generateToken(page, url, 'seeding', 'read_write');
    const assistant = await generateToken(page, url, 'assistant', 'propose');
    const call = async (token: string, tool: string, args: Row) => {
      const answer = await callTool(url, token, tool, args);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body;
    };
    const risk = async (name: string) =>
      (
        await call(writer, 'addRisk', {
          organization_id: organizationId,
          name,
          inherent_likelihood: 2,
          inherent_impact: 3,
        })
      ).risk as Row;
    const laptops = await risk('Laptop theft');
    const printer = await risk('Old printer');
    const badges = await risk('Lost badges');

    const propose = async (tool: string, args: Row) => {
      const answer = await call(assistant, tool, args);
      expect(answer.proposed).toBe(true);
      return String((answer.proposal as Row).id);
    };
    const update = await propose('updateRisk', {
      id: laptops.id,
      inherent_likelihood: 4,
      note: 'More travel',
    });
    const removal = await propose('deleteRisk', { id: printer.id });
    const stale = await propose('deleteRisk', { id: badges.id });
    // The record of the last one changes after it was proposed.
    await call(writer, 'updateRisk', { id: badges.id, note: 'Badges now expire monthly' });

    await page.goto(`${url}${home}/proposals`);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Proposals');
    expect(await page.locator('main').textContent()).toContain('3 pending proposals.');
    const diff = card(page, update).locator('table.diff');
    expect(
      await diff.locator('tr', { hasText: 'inherent_likelihood' }).locator('td').allTextContents(),
    ).toEqual(['2', '4']);
    expect(await diff.locator('tr', { hasText: 'note' }).locator('td').allTextContents()).toEqual([
      '—',
      'More travel',
    ]);
    expect(
      await card(page, removal)
        .locator('table.diff tr', { hasText: 'name' })
        .first()
        .locator('td')
        .allTextContents(),
    ).toEqual(['Old printer', '(deleted)']);

    // Approve the update: the record changes, and its history names the proposal and the approver.
    await card(page, update).getByRole('button', { name: 'Approve and apply' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('Approved: the change is written');
    expect(await card(page, update).locator('.badge').textContent()).toBe('APPLIED');
    const changed = (await call(writer, 'getRisk', { id: laptops.id })).risk as Row;
    expect(changed).toMatchObject({ inherent_likelihood: 4, inherent_score: 12, note: 'More travel' });
    const proposal = (await call(assistant, 'getProposal', { id: update })).proposal as Row;
    await page.goto(`${url}${home}/risks/${String(laptops.id)}`);
    const history = await page.locator('#history ~ .table-wrap').first().textContent();
    expect(history).toContain('ada@example.com');
    expect(history).toContain(
      `approved proposal ${update}, proposed with token ${String(proposal.proposed_by_token_id)}`,
    );

    // Reject the delete: without a comment the browser keeps the form; a blank one the server refuses, clearly.
    await page.goto(`${url}${home}/proposals`);
    const comment = card(page, removal).getByLabel('Comment (why it is rejected)');
    await card(page, removal).getByRole('button', { name: 'Reject' }).click();
    expect(await comment.evaluate((field) => (field as HTMLTextAreaElement).validity.valueMissing)).toBe(
      true,
    );
    expect(new URL(page.url()).pathname).toBe(`${home}/proposals`);
    await comment.fill('   ');
    await card(page, removal).getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain('Say why the proposal is rejected (1 to 2000 characters).');
    expect(((await call(assistant, 'getProposal', { id: removal })).proposal as Row).status).toBe('PENDING');
    await page.goto(`${url}${home}/proposals`);
    await comment.fill('The printer still serves the front desk.');
    await card(page, removal).getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('Rejected: the proposer is told, with your comment.');
    expect(await card(page, removal).textContent()).toContain(': The printer still serves the front desk.');
    expect(((await call(writer, 'getRisk', { id: printer.id })).risk as Row).name).toBe('Old printer');

    // The delete of a record changed since is refused, with the reason; the record stays.
    await page.goto(`${url}${home}/proposals`);
    await card(page, stale).getByRole('button', { name: 'Approve and apply' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain(`Not applied: The risk ${String(badges.id)} changed since it was proposed`);
    expect(await card(page, stale).locator('.badge').textContent()).toBe('CONFLICT');
    expect(((await call(writer, 'getRisk', { id: badges.id })).risk as Row).note).toBe(
      'Badges now expire monthly',
    );
    expect((await call(assistant, 'getProposal', { id: stale })).proposal).toMatchObject({
      status: 'CONFLICT',
      decision_comment: expect.stringContaining('changed since it was proposed'),
    });

    // On a phone: every proposal with its diff, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${url}${home}/proposals?status=ALL`);
    expect(await page.locator('main').textContent()).toContain('3 proposals.');
    await screenshot(page, 'proposals-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
