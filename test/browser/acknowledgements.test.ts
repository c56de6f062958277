// The public acknowledgement page in Chromium, without an account: the demo's pending person opens their link, reads
// the policy and accepts it (recorded as LINK); a tampered link shows a clear page and no data. Screenshot at 390 px.
import { describe, expect, it } from 'vitest';
import {
  callTool,
  generateToken,
  phoneScreenshot,
  screenshot,
  signIn,
  start,
  stopAfterEach,
} from './helpers.ts';

stopAfterEach();

type Row = Record<string, unknown>;

describe('the acknowledgement link page', () => {
  it('lets a person without an account accept the policy, and shows nothing for a tampered link', async () => {
    const { page, url, server, context } = await start({ demo: true, viewport: { width: 390, height: 844 } });
    const demo = server.demo;
    if (!demo) throw new Error('the demo was not seeded');
    await signIn(page, url, demo.email, demo.password);
    const token = await generateToken(page, url, 'ack test', 'read_write');
    const organization_id = demo.organization_id;
    const listed = await callTool(url, token, 'listAcknowledgements', {
      organization_id,
      filter: { status: 'PENDING' },
    });
    const before = listed.body.acknowledgements as Row[];
    expect(before).toHaveLength(2);
    const reminded = await callTool(url, token, 'sendAcknowledgementReminders', {
      request_id: before[0]?.request_id,
    });
    const link = (reminded.body.links as Row[])[0] as Row;

    // A fresh browser context: no session cookie, as for a person of the register without an account.
    await context.clearCookies();
    await page.goto(`${url}${String(link.link_path)}`);
    expect(await page.locator('h1').textContent()).toBe('Access control policy, version 2');
    expect(await page.locator('pre.document-content').textContent()).toContain('# Access control policy');
    const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wider).toBe(0);
    await screenshot(page, 'ack-form-390');
    await phoneScreenshot(page, 'acknowledgement-phone');
    await page.getByRole('button', { name: 'I have read and accept' }).click();
    await page.waitForLoadState();
    expect(await page.locator('h1').textContent()).toBe('Thank you');
    expect(await page.locator('.notice.ok').textContent()).toContain(
      'You acknowledged Access control policy, version 2',
    );

    const after = await callTool(url, token, 'listAcknowledgements', {
      organization_id,
      filter: { person_id: link.person_id },
    });
    expect((after.body.acknowledgements as Row[]).map((row) => [row.status, row.method])).toEqual([
      ['ACKNOWLEDGED', 'LINK'],
    ]);

    const other = String(((reminded.body.links as Row[])[1] as Row).link_path);
    const tampered = `${other.slice(0, -3)}${other.endsWith('xyz') ? 'abc' : 'xyz'}`;
    const response = await page.goto(`${url}${tampered}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('This link does not work');
    expect(await page.locator('body').textContent()).not.toContain('Access control policy');
    expect(await page.getByRole('button', { name: 'I have read and accept' }).count()).toBe(0);
  });
});
