// Managing a register in Chromium as a person would: add a risk with the keyboard, edit it and read its history,
// watch the heat map, export a cell's risks, delete it.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, signUp, start, stopAfterEach, unlabelledControls } from './helpers.ts';

stopAfterEach();

const RISK = 'Stolen laptop exposes patient files';

function focusedId(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id ?? '');
}

function focusedName(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.getAttribute('name') ?? '');
}

/** The notice a post/redirect/get leaves on the next page. */
function notice(page: Page): Promise<string | null> {
  return page.locator('.notice.ok').first().textContent();
}

describe('records in Chromium', () => {
  it('adds a risk with the keyboard alone, edits it, follows it on the heat map and deletes it', async () => {
    const { page, url } = await start();
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    const home = new URL(page.url()).pathname;

    // A person and a measure to choose from, added through their own forms.
    await page.goto(`${url}${home}/people`);
    await page.getByRole('link', { name: 'Add person' }).click();
    await page.getByLabel('Full name').fill('Grace Hopper');
    await page.getByLabel('Email').fill('grace@acme.example');
    await page.getByRole('button', { name: 'Add person' }).click();
    expect(await notice(page)).toBe('Person “Grace Hopper” was added.');
    await page.goto(`${url}${home}/measures/new`);
    await page.getByLabel('Name', { exact: true }).fill('Full-disk encryption');
    await page.getByRole('button', { name: 'Add measure' }).click();
    expect(await notice(page)).toBe('Measure “Full-disk encryption” was added.');

    // The risks register: "Add risk" is reached and followed with the keyboard.
    await page.goto(`${url}${home}/risks`);
    await page.getByRole('link', { name: 'Add risk' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/risks\/new$/);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await focusedId(page)).toBe('field-name'); // the first field has the focus
    await page.keyboard.type(RISK);
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('field-description');
    await page.keyboard.type('A laptop without disk encryption is lost on a train.');
    await page.keyboard.press('Tab'); // category keeps its default, "General"
    await page.keyboard.press('Tab'); // status keeps OPEN
    await page.keyboard.press('Tab'); // treatment keeps MITIGATE
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('field-owner_id');
    await page.keyboard.type('Grace'); // a select picks the option typed
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('field-inherent_likelihood');
    await page.keyboard.type('4');
    await page.keyboard.press('Tab');
    await page.keyboard.type('5');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('field-residual_likelihood');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    await page.keyboard.type('5');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('field-note');
    // The review cycle's fields keep their blanks (a date field takes a Tab for each of its parts), up to the measure.
    const passed: string[] = [];
    while ((await focusedName(page)) !== 'measure_ids' && passed.length < 20) {
      await page.keyboard.press('Tab');
      passed.push(await focusedId(page));
    }
    expect([...new Set(passed)]).toEqual([
      'field-review_interval_days',
      'field-last_reviewed_on',
      'field-last_review_note',
      'field-next_review_on',
      '', // the measure's checkbox
    ]);
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add risk');
    await screenshot(page, '20-risk-add-form');
    await page.keyboard.press('Enter');

    await expect.poll(() => page.locator('h1').textContent()).toBe(RISK);
    expect(await notice(page)).toBe(`Risk “${RISK}” was added.`);
    const details = (await page.locator('dl.details').textContent()) ?? '';
    expect(details).toContain('Grace Hopper');
    expect(details).toContain('Full-disk encryption');
    expect(details).toContain('A laptop without disk encryption is lost on a train.');
    await screenshot(page, '21-risk-added');
    const recordPath = new URL(page.url()).pathname;

    // The heat map on the home page counts it in its cells, inherent 4 x 5 and residual 2 x 5.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page
      .getByRole('link', { name: '1 risk, inherent likelihood 4, impact 5: high · score 20' })
      .waitFor();
    await page
      .getByRole('link', { name: '1 risk, residual likelihood 2, impact 5: medium · score 10' })
      .waitFor();
    await screenshot(page, '22-summary-heat-map');

    // Edit: the measure took the residual likelihood down to 1.
    await page.goto(`${url}${recordPath}`);
    await page.getByRole('link', { name: 'Edit risk' }).click();
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await page.getByLabel('Residual likelihood').inputValue()).toBe('2');
    await page.getByLabel('Residual likelihood').fill('1');
    await screenshot(page, '23-risk-edit-form');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => notice(page)).toBe(`Risk “${RISK}” was saved.`);
    expect(await page.locator('dl.details').textContent()).toMatch(/Residual score\s*5/);

    // The record's history shows the edit: who, from where, and the field before and after; below it the add with
    // its link to the measure, one save (one entry), newest first.
    const history = page.locator('table.history tbody tr');
    await expect
      .poll(() => history.locator('.badge').allTextContents())
      .toEqual(['Changed', 'Added', 'Linked']);
    const edit = (await history.first().textContent()) ?? '';
    for (const part of [
      'ada@example.com',
      'via the web interface',
      'updateRisk',
      'Residual likelihood: 2 → 1',
    ]) {
      expect(edit).toContain(part);
    }
    await screenshot(page, '23b-risk-history');

    // The heat map cell moved: residual 2 x 5 is empty, 1 x 5 holds the risk and lists it.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page
      .getByRole('cell', { name: '0 risks, residual likelihood 2, impact 5: medium · score 10' })
      .waitFor();
    await page.getByRole('link', { name: '1 risk, residual likelihood 1, impact 5: low · score 5' }).click();
    await page.waitForURL(/residual_likelihood=1&residual_impact=5/);
    expect(await page.locator('table:not(.heatmap) tbody th[scope="row"]').allTextContents()).toEqual([RISK]);
    await screenshot(page, '24-risks-heat-map-cell');

    // Export what the cell lists: the CSV holds that risk, with the filters of the page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path()) ?? '', 'utf8').replace(/^\uFEFF/, '');
    const lines = csv.trim().split(/\r?\n/);
    // A readable export: the interface's labels as headers.
    expect(lines[0]?.split(',').slice(0, 2)).toEqual(['Id', 'Name']);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(RISK);

    // Only the allowed moves are offered: once CLOSED, a risk can only be reopened, and the form says so.
    await page.goto(`${url}${recordPath}/edit`);
    await page.getByLabel('Status').selectOption('CLOSED');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => notice(page)).toBe(`Risk “${RISK}” was saved.`);
    await page.getByRole('link', { name: 'Edit risk' }).click();
    expect(await page.getByLabel('Status').locator('option').allTextContents()).toEqual(['Closed', 'Open']);
    expect(await page.locator('#field-status-hint').textContent()).toContain(
      'From Closed it can move to Open only.',
    );
    await screenshot(page, '25-risk-closed-offers-reopen');
    await page.getByLabel('Status').selectOption('OPEN');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => notice(page)).toBe(`Risk “${RISK}” was saved.`);

    // Delete, after a confirmation page.
    await page.getByRole('link', { name: 'Delete risk' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe(`Delete risk “${RISK}”?`);
    await screenshot(page, '26-risk-delete-confirmation');
    await page.getByRole('button', { name: 'Delete risk' }).click();
    await expect.poll(() => notice(page)).toBe(`Risk “${RISK}” was deleted.`);
    expect(new URL(page.url()).pathname).toBe(`${home}/risks`);
    expect(await page.locator('.empty').textContent()).toBe('No risks yet.');
    // The register's heat map is folded under its heading; opened, the emptied cell says 0 and is no link.
    expect(await page.locator('details.heatmaps').getAttribute('open')).toBeNull();
    await page.locator('details.heatmaps > summary').click();
    await page
      .getByRole('cell', { name: '0 risks, inherent likelihood 4, impact 5: high · score 20' })
      .waitFor();
    expect(await page.getByRole('link', { name: /inherent likelihood 4, impact 5:/ }).count()).toBe(0);
    await screenshot(page, '27-risks-after-delete');
    expect((await page.goto(`${url}${recordPath}`))?.status()).toBe(404);
  });
});
