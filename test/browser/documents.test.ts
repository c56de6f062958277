// The documents' pages in a browser: the register, a published policy with its versions and a diff, its edit page
// and the home page pass axe-core at 1280 x 800 and fit a phone at 390 and 360 px; screenshots for the record.
import { describe, expect, it } from 'vitest';
import { axeViolations, screenshot, startDemo, stopAfterEach } from './helpers.ts';

stopAfterEach();

describe('document pages', () => {
  it('pass axe-core and fit a phone, the diff included', async () => {
    const { page, url, home } = await startDemo();
    await page.goto(`${home}/documents`);
    const policy = await page.getByRole('link', { name: 'Access control policy' }).getAttribute('href');
    const backups = await page.getByRole('link', { name: 'Backup and restore policy' }).getAttribute('href');
    const paths = [
      home,
      `${home}/documents`,
      `${url}${policy}`,
      `${url}${policy}?from=1&to=2`,
      `${url}${policy}/edit`,
      `${url}${backups}`,
    ];
    const failures: string[] = [];
    for (const path of paths) {
      await page.goto(path);
      for (const violation of await axeViolations(page)) failures.push(`${path} ${violation}`);
      for (const viewport of [
        { width: 390, height: 844 },
        { width: 360, height: 740 },
      ]) {
        await page.setViewportSize(viewport);
        const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (wider > 0) failures.push(`${path} at ${viewport.width} px: ${wider} px wider`);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(failures).toEqual([]);
    await page.goto(`${url}${policy}?from=1&to=2#compare`);
    expect(await page.locator('pre.diff').textContent()).toContain('+ - Leavers lose all access');
    await screenshot(page, '60-document-diff');
    await page.goto(`${url}${backups}`);
    await screenshot(page, '61-document-in-review');
  });
});
