// The documents' pages in a browser: the register, a published policy with its versions and a diff, its edit page
// and the home page pass axe-core at 1280 x 800 and fit a phone at 390 and 360 px; screenshots for the record.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { screenshot, signIn, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('document pages', () => {
  it('pass axe-core and fit a phone, the diff included', async () => {
    const { page, url, server, context } = await start({
      demo: true,
      viewport: { width: 1280, height: 800 },
    });
    await context.addInitScript({ content: AXE_SOURCE });
    const demo = server.demo;
    if (!demo) throw new Error('the demo was not seeded');
    await signIn(page, url, demo.email, demo.password);
    const home = page.url();
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
      const violations = await page.evaluate(async () => {
        type Axe = { run: (options: unknown) => Promise<{ violations: { id: string }[] }> };
        return (await (window as unknown as { axe: Axe }).axe.run({ resultTypes: ['violations'] }))
          .violations;
      });
      for (const violation of violations) failures.push(`${path} ${violation.id}`);
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
