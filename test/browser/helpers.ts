// Browser test helpers: a fresh Node server and Chromium (playwright-core; see chromium.ts), screenshots, sign-up, tokens.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterEach, expect, inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startNodeServer } from '../../src/node.ts';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/screenshots');
const PASSWORD = 'correct horse battery staple';

const cleanups: Array<() => unknown> = [];

/** Registers the clean-up of what `start` opened: call once at the top of a test file. */
export function stopAfterEach(): void {
  afterEach(async () => {
    // Browser first, then the server, then its database folder.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
}

export interface Session {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  url: string;
}

export interface StartOptions {
  timezoneId?: string;
  locale?: string;
  /** The browser window (default 1280 x 860). */
  viewport?: { width: number; height: number };
  /** Seed the demo organization (its account is `server.demo`); default none. */
  demo?: boolean;
}

/** A fresh server on a temp database (port 0, no demo data unless asked) and a fresh browser; both stopped after the test. */
export async function start(options: StartOptions = {}): Promise<Session> {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-browser-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'web.db')}`,
    HOST: '127.0.0.1',
    PORT: '0',
    SEED_DEMO: options.demo ? 'true' : 'false',
  });
  const server = await startNodeServer(config, () => {});
  cleanups.push(() => server.close());
  const browser = await chromium.launch({ executablePath: inject('chromiumPath'), args: CHROMIUM_ARGS });
  cleanups.push(() => browser.close());
  const { demo: _demo, viewport = { width: 1280, height: 860 }, ...contextOptions } = options;
  const context = await browser.newContext({ viewport, ...contextOptions });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { server, browser, context, page, url: server.url };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * `start` with the demo organization at 1280 x 800, axe-core loaded into every page, signed in as the demo account:
 * the session and the URL of the demo organization's home page.
 */
export async function startDemo(): Promise<Session & { home: string }> {
  const session = await start({ demo: true, viewport: { width: 1280, height: 800 } });
  await session.context.addInitScript({ content: AXE_SOURCE });
  const demo = session.server.demo;
  if (!demo) throw new Error('the demo was not seeded');
  await signIn(session.page, session.url, demo.email, demo.password);
  return { ...session, home: session.page.url() };
}

interface AxeViolation {
  id: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's violations on the page (loaded into every page by `startDemo`), each with its first elements. */
export async function axeViolations(page: Page): Promise<string[]> {
  const violations = await page.evaluate(async () => {
    type Axe = { run: (options: unknown) => Promise<{ violations: AxeViolation[] }> };
    const axe = (window as unknown as { axe: Axe }).axe;
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return violations.map(
    (violation) =>
      `${violation.id} (${violation.nodes.length}): ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(' '))
        .join(', ')}`,
  );
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** pdf.js as shipped on npm (its browser build), served to the page from node_modules: no network involved. */
const PDFJS_BUILD = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.min.mjs'));
const PDF_ORIGIN = 'http://pdf.invalid';
/** The viewer page: renders page 1 on a canvas, then puts the page's text in `data-text` on the body. */
const PDF_VIEWER = `<!doctype html><body style="margin:0"><canvas id="page"></canvas><script type="module">
import * as pdfjs from '/pdf.min.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdf.worker.min.mjs';
const pdf = await pdfjs.getDocument('/document.pdf').promise;
const first = await pdf.getPage(1);
const viewport = first.getViewport({ scale: 1.4 });
const canvas = document.getElementById('page');
canvas.width = viewport.width;
canvas.height = viewport.height;
await first.render({ canvasContext: canvas.getContext('2d'), viewport }).promise;
const content = await first.getTextContent();
document.body.dataset.text = content.items.map((item) => item.str ?? '').join(' ');
</script></body>`;

/**
 * Renders the first page of a PDF in Chromium with pdf.js, screenshots it as `name`, and answers the page's text as
 * pdf.js read it (so the caller can assert on it). The PDF and pdf.js are served through routes on a page of its own.
 */
export async function screenshotPdf(page: Page, pdf: Buffer, name: string): Promise<string> {
  const viewer = await page.context().newPage();
  await viewer.route(`${PDF_ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/document.pdf') return route.fulfill({ body: pdf, contentType: 'application/pdf' });
    if (path === '/') return route.fulfill({ body: PDF_VIEWER, contentType: 'text/html' });
    const file = path.slice(1);
    if (file !== 'pdf.min.mjs' && file !== 'pdf.worker.min.mjs') return route.fulfill({ status: 404 });
    return route.fulfill({ body: readFileSync(join(PDFJS_BUILD, file)), contentType: 'text/javascript' });
  });
  await viewer.setViewportSize({ width: 900, height: 1200 });
  await viewer.goto(`${PDF_ORIGIN}/`);
  const text = String(await (await viewer.waitForFunction(() => document.body.dataset.text)).jsonValue());
  await screenshot(viewer, name);
  await viewer.close();
  return text;
}

/** A full-page screenshot at test-results/<name>.png, beside the folder of the others: the phone views reviewers open. */
export async function phoneScreenshot(page: Page, name: string): Promise<void> {
  const folder = dirname(SCREENSHOTS);
  mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
}

export async function signUp(page: Page, url: string, email: string, organization?: string): Promise<void> {
  await page.goto(`${url}/signup`);
  await page.getByLabel('Your name').fill('Ada Lovelace');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  if (organization) await page.getByLabel('Organization name').fill(organization);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForLoadState();
}

export async function signIn(page: Page, url: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState();
}

export async function generateToken(
  page: Page,
  url: string,
  name: string,
  scope: 'read' | 'propose' | 'read_write' = 'read',
): Promise<string> {
  await page.goto(`${url}/settings/tokens`);
  await page.getByRole('link', { name: 'Generate New Token' }).click();
  await page.getByLabel('Name').fill(name);
  if (scope === 'read_write') await page.getByLabel(/^read_write/).check();
  if (scope === 'propose') await page.getByLabel(/^propose/).check();
  await page.getByRole('button', { name: 'Generate token' }).click();
  await expect.poll(() => page.locator('h1').textContent()).toContain('created');
  return page.locator('#token-secret').inputValue();
}

export async function callTool(url: string, token: string, tool: string, args: unknown = {}) {
  const response = await fetch(`${url}/api/mcp/tools/${tool}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Every visible form control on the page has an accessible name from a label (or aria-label/-labelledby). */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [
      ...document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
        'input, select, textarea',
      ),
    ]
      .filter((element) => element.type !== 'hidden' && !element.closest('[hidden]'))
      .filter((element) => {
        const labelled = (element.labels?.length ?? 0) > 0;
        return !labelled && !element.getAttribute('aria-label') && !element.getAttribute('aria-labelledby');
      })
      .map((element) => element.outerHTML),
  );
}
