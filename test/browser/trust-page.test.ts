// The demo organization's public trust page in Chromium on a 390 px phone: a visitor without an account reads it and
// asks for the statement of applicability; the owner approves the request on the trust page settings and gets the
// link once; the link downloads that document, and a tampered one shows a clear page and no data.
// Writes test-results/screenshots/trust-page-phone.png.
import { describe, expect, it } from 'vitest';
import { callTool, generateToken, screenshot, signIn, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

type Row = Record<string, unknown>;

describe('the trust page', () => {
  it('is read and asked from on a phone, approved by the owner in the web, and downloads through its link', async () => {
    const { page, url, server, context } = await start({ demo: true, viewport: { width: 390, height: 844 } });
    const demo = server.demo;
    if (!demo) throw new Error('the demo was not seeded');
    await signIn(page, url, demo.email, demo.password);
    const token = await generateToken(page, url, 'trust page test', 'read');
    const trust = (await callTool(url, token, 'getTrustPage', { organization_id: demo.organization_id })).body
      .trust_page as Row;
    const path = String(trust.path);

    // The visitor has no account.
    await context.clearCookies();
    await page.goto(`${url}${path}`);
    expect(await page.locator('h1').textContent()).toBe('Acme Health trust center');
    expect(await page.locator('h2').allTextContents()).toEqual([
      'Certifications and audits',
      'Policies and documents',
      'Sub-processors',
      'Contact',
    ]);
    expect(await page.locator('#trust-subprocessors + ul li strong').allTextContents()).toEqual([
      'Amazon Web Services',
      'Zendesk',
    ]);
    const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wider).toBe(0);
    await screenshot(page, 'trust-page-phone');

    await page.getByRole('link', { name: 'Read' }).click();
    expect(await page.locator('h1').textContent()).toBe('Access control policy, version 2');
    await page.goBack();
    await page.getByRole('link', { name: 'Request access' }).click();
    await page.getByLabel('Your name').fill('Vic Visitor');
    await page.getByLabel('Work email').fill('vic@buyer.example');
    await page.getByLabel('Company').fill('Buyer Ltd');
    await page.getByLabel('I accept these terms').check();
    await page.getByRole('button', { name: 'Request access' }).click();
    await page.waitForLoadState();
    expect(await page.locator('h1').textContent()).toBe('Request sent');

    await signIn(page, url, demo.email, demo.password);
    await page.goto(`${url}/orgs/${demo.organization_id}/trust`);
    const row = page.locator('tr', { hasText: 'vic@buyer.example' });
    expect(await row.locator('td').nth(2).textContent()).toContain('Statement of applicability');
    await row.getByRole('button', { name: 'Approve' }).click();
    await page.waitForLoadState();
    const link = String(await page.locator('.notice code.secret').textContent());
    expect(link).toMatch(new RegExp(`^${path}/download/[A-Za-z0-9_-]{43}$`));
    expect(
      await page.locator('tr', { hasText: 'vic@buyer.example' }).locator('td').nth(3).textContent(),
    ).toBe('APPROVED');

    await context.clearCookies();
    const download = await page.request.get(`${url}${link}`);
    expect(download.status()).toBe(200);
    // The published statement carries its PDF: the link sends that file, not the version's text.
    expect(download.headers()['content-type']).toBe('application/pdf');
    expect(download.headers()['content-disposition']).toMatch(
      /^attachment; filename="statement-of-applicability-iso-iec-27001-2022-[a-z0-9-]*-v1\.pdf"/,
    );
    expect((await download.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const tampered = `${link.slice(0, -3)}${link.endsWith('xyz') ? 'abc' : 'xyz'}`;
    const refused = await page.goto(`${url}${tampered}`);
    expect(refused?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('This link does not work');
    expect(await page.locator('body').textContent()).not.toContain('Statement of applicability');
  });
});
