// The incident and privacy pages in Chromium, on the demo organization: an open personal data breach with its
// notification deadlines (GDPR's 72 hours from detection, in the organization's time zone), on a desktop and on a
// phone, and the records of processing with their Art. 30 exports (XLSX and PDF). Screenshots for the record.
import { describe, expect, it } from 'vitest';
import { axeViolations, screenshot, screenshotPdf, startDemo, stopAfterEach } from './helpers.ts';

stopAfterEach();

describe('incident and privacy pages', () => {
  it('shows an incident with its notification deadlines, and exports the records of processing', async () => {
    const { page, home } = await startDemo();

    await page.goto(`${home}/incidents`);
    await page.getByRole('link', { name: 'Laptop with a patient export stolen' }).click();
    const clocks = page.locator('section[aria-labelledby="clocks"]');
    await expect.poll(() => clocks.locator('h2').textContent()).toBe('Notification deadlines');
    const gdpr = clocks.locator('tbody tr', { hasText: 'GDPR' }).first();
    const cells = await gdpr.locator('td').allInnerTexts();
    expect(cells[0]).toBe('GDPR');
    // Detected 20 hours before the demo was seeded: the authority's 72 hours are running, about 52 left.
    expect(cells[3]).toMatch(/^Running .*\b5[12] h\b/);
    expect(cells[3]).toContain('Record the notice');
    expect(await page.textContent('body')).not.toContain('[object Object]');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '70-incident-clocks');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, '71-incident-clocks-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.goto(`${home}/processing-activities`);
    const links = page.getByRole('link', { name: /Art\. 30/ });
    expect(await links.count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, '72-processing-activities');
    for (const [format, type, magic] of [
      ['pdf', 'application/pdf', '%PDF-'],
      ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'PK'],
    ] as const) {
      const response = await page.request.get(`${home}/processing-activities/art30.${format}`);
      expect(response.status(), format).toBe(200);
      expect(response.headers()['content-type'], format).toContain(type);
      const body = await response.body();
      expect(body.subarray(0, magic.length).toString('latin1'), format).toBe(magic);
      expect(body.length, format).toBeGreaterThan(1000);
      if (format === 'pdf') {
        // The record as an authority would open it: rendered by pdf.js in the browser, with its text selectable.
        const text = await screenshotPdf(page, body, '73-art30-record-pdf');
        expect(text).toContain('Patient records');
        expect(text).toMatch(/Art\. 30/);
      }
    }
  });
});
