// A framework in Chromium: its page (coverage per section, requirement tree), an exclusion decided in place, and the
// statement of applicability printed to A4 (print styles, one section a page) as the PDF an auditor gets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { csvCatalog } from '../catalogs.ts';
import {
  callTool,
  generateToken,
  screenshot,
  signUp,
  start,
  stopAfterEach,
  unlabelledControls,
} from './helpers.ts';

stopAfterEach();

const RESULTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results');

describe('frameworks in Chromium', () => {
  it('shows coverage and the tree, excludes a requirement in place, and prints the statement of applicability', async () => {
    const { page, url } = await start({ timezoneId: 'Asia/Kolkata', locale: 'en-GB' });
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    const home = new URL(page.url()).pathname;
    const organizationId = home.split('/')[2] ?? '';
    const token = await generateToken(page, url, 'frameworks', 'read_write');
    const ok = async (tool: string, args: Record<string, unknown>) => {
      const result = await callTool(url, token, tool, args);
      expect(result.status, JSON.stringify(result.body)).toBe(200);
      return result.body;
    };
    const framework = (await ok('addFramework', { organization_id: organizationId, name: 'Test framework' }))
      .framework as { id: string };
    await ok('importFrameworkCatalog', {
      framework_id: framework.id,
      format: 'csv',
      content: csvCatalog(3, 4),
    });
    const listed = (await ok('listRequirements', {
      organization_id: organizationId,
      filter: { framework_id: framework.id, is_section: false },
      order_by: { field: 'reference', direction: 'ASC' },
      size: 100,
    })) as { requirements: { id: string; reference: string }[] };
    const byReference = new Map(listed.requirements.map((row) => [row.reference, row.id]));
    const done = (
      await ok('addMeasure', { organization_id: organizationId, name: 'Done control', state: 'IMPLEMENTED' })
    ).measure as { id: string };
    const started = (
      await ok('addMeasure', {
        organization_id: organizationId,
        name: 'Started control',
        state: 'IN_PROGRESS',
      })
    ).measure as { id: string };
    for (const [reference, measure] of [
      ['S1.1', done],
      ['S1.2', done],
      ['S2.1', started],
    ] as const) {
      await ok('linkRequirementMeasure', {
        requirement_id: byReference.get(reference),
        measure_id: measure.id,
      });
    }

    await page.goto(`${url}${home}/frameworks/${framework.id}`);
    await expect.poll(() => page.locator('table.coverage tbody tr').count()).toBe(4);
    expect(await page.locator('table.coverage tr.total').textContent()).toContain('15');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, '40-framework-page');
    // Times read in the person's own time zone (here UTC+5:30), the UTC text kept as the title.
    const created = page.locator('time').first();
    const iso = (await created.getAttribute('datetime')) ?? '';
    const local = new Date(Date.parse(iso) + 330 * 60_000).toISOString().slice(11, 16);
    expect(await created.textContent()).toContain(local);
    expect(await created.getAttribute('title')).toMatch(/UTC$/);

    // Exclude S3.4 with a justification, from its row.
    const row = page.locator(`tr[id="${byReference.get('S3.4')}"]`);
    await row.getByLabel('Applicability of S3.4').selectOption('EXCLUDED');
    await row.getByLabel('Justification of S3.4').fill('Not relevant to a fully remote company.');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.waitForLoadState();
    expect(await page.locator('.notice').first().textContent()).toContain(
      'Requirement S3.4: applicability saved.',
    );
    // Its status, then its readiness: both say it is out of scope.
    expect(await page.locator(`tr[id="${byReference.get('S3.4')}"] .badge`).allTextContents()).toEqual([
      'Not applicable',
      'Not applicable',
    ]);
    await screenshot(page, '41-framework-requirement-excluded');

    await page.goto(`${url}${home}/frameworks/${framework.id}/soa`);
    expect(await page.locator('h1').textContent()).toBe('Statement of applicability: Test framework');
    expect(await page.locator('section.soa-section').count()).toBe(3);
    await screenshot(page, '42-soa-document');
    await page.emulateMedia({ media: 'print' });
    const printed = await page.evaluate(() => ({
      topbar: getComputedStyle(document.querySelector('.topbar') as Element).display,
      sidenav: getComputedStyle(document.querySelector('.sidenav') as Element).display,
      breaks: [...document.querySelectorAll('section.soa-section')].map(
        (section) => getComputedStyle(section).breakBefore,
      ),
    }));
    expect(printed).toEqual({ topbar: 'none', sidenav: 'none', breaks: ['auto', 'page', 'page'] });
    await screenshot(page, '43-soa-print-view');
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'statement-of-applicability.pdf'), pdf);
    // One page per section at least: A4 pages in the PDF's page tree.
    const pages = pdf.toString('latin1').match(/\/Type\s*\/Page\b/g)?.length ?? 0;
    expect(pages).toBeGreaterThanOrEqual(3);
  });
});
