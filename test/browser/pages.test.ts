// Every page a person reaches, found by following links from the sign-in page and the demo organization's home page
// (one page of each shape: a record of each register, its edit and delete pages, history, members, tokens...):
// axe-core finds no violation at 1280 x 800, and at 390 x 844 and 360 x 740 no page is wider than the screen.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, screenshot, startDemo, stopAfterEach } from './helpers.ts';

stopAfterEach();

/** A page's shape: its path with ids replaced, so one record stands for its register. */
function shapeOf(href: string): string {
  return new URL(href).pathname.replace(/\b[a-z]{3}_[0-9a-z]{24}\b/g, ':id');
}

/** Links not to follow: downloads, sign-out, the API, the OAuth endpoints, other origins. */
function followable(href: string, origin: string): boolean {
  const url = new URL(href);
  if (url.origin !== origin) return false;
  if (/\.(csv|json|xlsx|pdf|svg|ico)$/.test(url.pathname)) return false;
  return !/^\/(logout|api|oauth|\.well-known|mcp|assets)(\/|$)/.test(url.pathname);
}

/**
 * Pages reached from `from` by links, one of each shape, breadth first (at most `limit`); `visit` runs on each once
 * it is loaded, before its links are read.
 */
async function crawl(
  page: Page,
  from: string[],
  limit: number,
  visit: (href: string) => Promise<void>,
): Promise<string[]> {
  const origin = new URL(from[0] ?? '').origin;
  const seen = new Set<string>();
  const queue = [...from];
  const pages: string[] = [];
  while (queue.length > 0 && pages.length < limit) {
    const href = queue.shift() ?? '';
    const shape = shapeOf(href);
    if (seen.has(shape)) continue;
    seen.add(shape);
    const response = await page.goto(href);
    if (!response?.ok() || !(response.headers()['content-type'] ?? '').startsWith('text/html')) continue;
    pages.push(page.url());
    await visit(page.url());
    const links = await page
      .locator('a[href]:not([download])')
      .evaluateAll((anchors) =>
        anchors.map((anchor) => (anchor as HTMLAnchorElement).href.split('#')[0] ?? ''),
      );
    for (const link of links) if (followable(link, origin) && !seen.has(shapeOf(link))) queue.push(link);
  }
  return pages;
}

const PHONES = [
  { width: 390, height: 844 },
  { width: 360, height: 740 },
];

/** How many CSS pixels the page is wider than the window (0 when it fits). */
async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe('every page', () => {
  it('has no axe-core violation at 1280 x 800 and fits a phone at 390 and 360 px', async () => {
    const { page, url, context, home } = await startDemo();
    const signedOut = [`${url}/login`, `${url}/signup`, `${url}/reset`];
    expect(home).toMatch(/\/orgs\/org_/);
    // Each page loaded once: axe-core at 1280 x 800, then the same page narrowed to phone widths.
    const failures: string[] = [];
    const check = async (href: string) => {
      for (const violation of await axeViolations(page)) failures.push(`${shapeOf(href)} ${violation}`);
      // A value rendered without a renderer of its kind (an object stringified) is a bug, whatever the page.
      if (((await page.textContent('body')) ?? '').includes('[object Object]'))
        failures.push(`${shapeOf(href)}: shows [object Object]`);
      for (const viewport of PHONES) {
        await page.setViewportSize(viewport);
        const wider = await overflow(page);
        if (wider > 0)
          failures.push(`${shapeOf(href)} at ${viewport.width} px: ${wider} px wider than the screen`);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    };
    const pages = await crawl(page, [home, `${url}/settings/tokens`], 200, check);
    // Each register's list, record, edit and delete pages, and the rest, were found.
    expect(pages.length).toBeGreaterThan(45);
    expect(pages.length).toBeLessThan(200); // every shape was reached before the cap
    const shapes = pages.map(shapeOf);
    for (const shape of ['/orgs/:id/risks/:id/edit', '/orgs/:id/measures/:id/delete', '/orgs/:id/history']) {
      expect(shapes).toContain(shape);
    }

    // The first screen at 1280 x 800, then on a phone (not the whole page).
    for (const [name, path] of [
      ['home', home],
      ['risks', `${home}/risks`],
      ['history', `${home}/history`],
    ] as const) {
      await page.goto(path);
      await screenshot(page, `53-desktop-${name}`, false);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(home);
    await screenshot(page, '50-phone-home', false);
    await page.goto(`${home}/risks`);
    await screenshot(page, '51-phone-risks', false);
    await page.goto(`${home}/history`);
    await screenshot(page, '52-phone-history', false);

    // Signed out: the sign-in, sign-up and password reset pages.
    await context.clearCookies();
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const href of signedOut) {
      await page.goto(href);
      await check(href);
    }
    if (failures.length > 0) console.log(failures.join('\n'));
    expect(failures).toEqual([]);
  }, 600_000);
});
