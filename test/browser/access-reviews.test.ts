// The access review decide page in a browser: the demo's campaign opened from its page, every open entry shown to the
// OWNER, no axe-core violation, no wider than a 390 px phone (screenshot), and an entry revoked with a comment.
import { describe, expect, it } from 'vitest';
import { axeViolations, screenshot, startDemo, stopAfterEach } from './helpers.ts';

stopAfterEach();

describe('access review decide page', () => {
  it('decides an entry with a comment and fits a phone', async () => {
    const { page, home } = await startDemo();
    await page.goto(`${home}/access-reviews`);
    await page.getByRole('link', { name: 'Production access review, this quarter' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toContain('Production access review');
    expect(await page.locator('#decisions ~ p').first().textContent()).toContain(
      '2 of 4 entries decided (50%)',
    );
    await page.getByRole('link', { name: 'Decide entries' }).click();
    // The demo account reviews no entry itself; as an OWNER it may show every open one.
    expect(await page.locator('main').textContent()).toContain('The entries you review.');
    await page.getByRole('link', { name: 'Every open entry' }).click();
    await expect.poll(() => page.locator('#to-decide').textContent()).toContain('2 entries to decide');
    expect(await axeViolations(page)).toEqual([]);

    await page.setViewportSize({ width: 390, height: 844 });
    const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wider).toBeLessThanOrEqual(0);
    await screenshot(page, '70-access-review-decide-390');

    const heading = page.getByRole('heading', { name: 'backup-service on AWS console' });
    const entry = page.locator('form', { has: heading });
    await entry.getByRole('radio', { name: /Modify/ }).check();
    await entry.getByLabel('Comment').fill('Write access to the backup bucket only, no delete.');
    await entry.getByRole('button', { name: 'Record the decision' }).click();
    await expect
      .poll(() => page.locator('.notice').first().textContent())
      .toContain('Recorded: Modify for backup-service on AWS console.');
    expect(await page.locator('main').textContent()).toContain('3 of 4 entries decided (75%)');
    expect(await page.locator('#to-decide').textContent()).toContain('1 entry to decide');
    expect(await heading.count()).toBe(0);
  });
});
