// Importing a spreadsheet in Chromium as a person would: the register's "Import from a file", a file chosen, each
// column's match beside the first rows, an unknown column given its field, the check, the import, and the history.
import { describe, expect, it } from 'vitest';
import { screenshot, signUp, start, stopAfterEach, unlabelledControls } from './helpers.ts';

stopAfterEach();

const CSV = [
  'Full name;E-mail address;Kind',
  'Grace Hopper;grace@acme.example;Employee',
  '"Zoë Ämter";zoe@acme.example;contractor',
].join('\r\n');

describe('imports in Chromium', () => {
  it('uploads a CSV, maps an unknown column, checks it, imports it and shows where the records came from', async () => {
    const { page, url } = await start();
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    const home = new URL(page.url()).pathname;

    await page.goto(`${url}${home}/people`);
    await page.getByRole('link', { name: 'Import from a file' }).click();
    await page.waitForURL(/\/people\/import$/);
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByLabel('CSV or XLSX file').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`\uFEFF${CSV}`, 'utf8'),
    });
    await page.getByRole('button', { name: 'Upload and check' }).click();

    // "E-mail address" is no field: the file is refused until the column is given one; nothing can be imported.
    await page
      .getByText('The column "E-mail address" is not a field of people: choose its field above (or Ignore)')
      .waitFor();
    expect(await page.getByLabel('Full name', { exact: true }).inputValue()).toBe('full_name');
    expect(await page.getByRole('button', { name: /^Import/ }).isDisabled()).toBe(true);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, '60-import-preview');

    await page.getByLabel('E-mail address').selectOption('email');
    await page.getByRole('button', { name: 'Check again' }).click();
    await page.getByText('2 rows: 2 to create, 0 to update, 0 unchanged').first().waitFor();
    await screenshot(page, '61-import-checked');
    await page.getByRole('button', { name: 'Import 2 rows' }).click();

    await page.waitForURL(/\/people$/);
    expect(await page.locator('.notice.ok').first().textContent()).toContain(
      'Imported people.csv: 2 created',
    );
    expect(
      (await page.locator('table:not(.heatmap) tbody th[scope="row"]').allTextContents()).sort(),
    ).toEqual(['Grace Hopper', 'Zoë Ämter']);

    // The history names the file import as where they came from, with who imported them.
    await page.goto(`${url}${home}/history`);
    await page.getByLabel('Surface').selectOption({ label: 'file import' });
    await page.getByRole('button', { name: 'Apply' }).click();
    const rows = page.locator('table.history tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    const first = (await rows.first().textContent()) ?? '';
    expect(first).toContain('ada@example.com');
    expect(first).toContain('via the file import');
    await screenshot(page, '62-import-history');
  });
});
