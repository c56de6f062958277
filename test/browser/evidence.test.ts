// The evidence pages in a browser, on the demo organization: the register with its "Expiring in 30 days" and
// "Expired" quick filters, a measure's Evidence section with a link and a file uploaded through its form, and the
// evidence page's signed download (the same bytes, as an attachment). Screenshots for the record.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, screenshot, startDemo, stopAfterEach } from './helpers.ts';

stopAfterEach();

/** A 1x1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The texts of the register table's first column (the titles), in page order. */
function titles(page: Page): Promise<string[]> {
  return page.locator('table tbody tr th').allInnerTexts();
}

describe('evidence pages', () => {
  it('the register, its quick filters, a record with a link and an uploaded file, and a signed download', async () => {
    const { page, url, home } = await startDemo();
    const failures: string[] = [];

    // The register: every item, the expired one marked, and the two quick filters.
    await page.goto(`${home}/evidence`);
    expect((await titles(page)).sort()).toEqual([
      'Backup restore test report',
      'Backup restore test report (last year)',
      'Critical supplier review summary',
      'MFA enforcement policy in the identity provider',
      'Vulnerability scan summary',
    ]);
    const lastYear = page.locator('tbody tr', { hasText: 'Backup restore test report (last year)' });
    // Title, kind, collected on, valid until, expired (the last column, superseded by, is the newer item).
    expect((await lastYear.locator('th, td').allInnerTexts()).slice(0, 5)).toEqual([
      'Backup restore test report (last year)',
      'Link',
      day(-380),
      day(-15),
      'yes',
    ]);
    failures.push(...(await axeViolations(page)).map((violation) => `${page.url()} ${violation}`));
    await screenshot(page, '62-evidence-register');

    await page.getByRole('link', { name: 'Expiring in 30 days' }).click();
    await page.waitForLoadState();
    expect(await titles(page)).toEqual(['Backup restore test report']);
    await page.getByRole('link', { name: 'Expired', exact: true }).click();
    await page.waitForLoadState();
    // The supplier reviews' summary expired 28 days ago (the demo's measure that is not ready for it).
    expect((await titles(page)).sort()).toEqual([
      'Backup restore test report (last year)',
      'Critical supplier review summary',
    ]);

    // A measure's page: its two links, then a file added through the upload form.
    await page.goto(`${home}/measures`);
    await page.getByRole('link', { name: 'Encrypted daily backups with restore tests' }).click();
    await page.waitForLoadState();
    const section = page.locator('section[aria-labelledby="evidence"]');
    expect(await section.locator('li').allInnerTexts()).toEqual(
      expect.arrayContaining([
        `Backup restore test report link, valid until ${day(20)}`,
        `Backup restore test report (last year) link, valid until ${day(-15)} (expired) (superseded)`,
      ]),
    );
    await section.locator('summary', { hasText: 'Add evidence' }).click();
    await section.getByLabel('File (choose one or drop it here)').setInputFiles({
      name: 'restore-test-2026.png',
      mimeType: 'image/png',
      buffer: PNG,
    });
    await section.getByLabel('Title (default: the file name)').fill('Restore test screenshot');
    await section.getByLabel('Valid until (optional)').fill(day(365));
    // Only the item not yet superseded can be replaced.
    expect(await section.getByLabel('Replaces (optional)').locator('option').allInnerTexts()).toEqual([
      'Nothing',
      'Backup restore test report',
    ]);
    failures.push(...(await axeViolations(page)).map((violation) => `${page.url()} ${violation}`));
    await page.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      document.getElementById('evidence')?.scrollIntoView();
    });
    await screenshot(page, '64-evidence-upload-form', false);
    await section.getByRole('button', { name: 'Add evidence' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).hash).toBe('#evidence');
    expect(await page.getByText('Evidence added: Restore test screenshot.').count()).toBe(1);
    expect(await section.locator('li').allInnerTexts()).toEqual(
      expect.arrayContaining([
        `Restore test screenshot file restore-test-2026.png, valid until ${day(365)}`,
        `Backup restore test report link, valid until ${day(20)}`,
      ]),
    );
    expect(await section.locator('li').count()).toBe(3);
    failures.push(...(await axeViolations(page)).map((violation) => `${page.url()} ${violation}`));
    await screenshot(page, '63-record-evidence');

    // The item's page links to a signed download: the same bytes, as an attachment, never inline.
    await section.getByRole('link', { name: 'Restore test screenshot' }).click();
    await page.waitForLoadState();
    expect(await page.locator('img').count()).toBe(0);
    const href = await page.getByRole('link', { name: 'Download the file' }).getAttribute('href');
    expect(href).toMatch(/\/files\/fil_[0-9a-z]{24}\.evd_[0-9a-z]{24}\.org_[0-9a-z]{24}\.\d+\.[\w-]{43}$/);
    const response = await page.request.get(new URL(String(href), url).toString());
    expect(response.status()).toBe(200);
    expect(response.headers()['content-disposition']).toBe(
      `attachment; filename="restore-test-2026.png"; filename*=UTF-8''restore-test-2026.png`,
    );
    expect(response.headers()['x-content-type-options']).toBe('nosniff');
    expect(Buffer.from(await response.body()).equals(PNG)).toBe(true);
    expect(failures).toEqual([]);
  });
});
