// The chat views in Chromium inside a host built on the MCP Apps SDK's host side (AppBridge over postMessage): each
// view renders the real result of its tool from the Node server, a view calls a read tool through the host, data is
// only ever text, nothing is fetched, and the tool's text result stays the fallback. Screenshots: apps-*.png.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { callTool, screenshot, start, stopAfterEach } from './helpers.ts';

stopAfterEach();

const HOST_ORIGIN = 'http://apps-host.invalid';
const ROOT = dirname(createRequire(import.meta.url).resolve('../../package.json'));

/**
 * The host page's script: the SDK's AppBridge and PostMessageTransport, bundled for the browser, and `showView`, which
 * renders a view as hosts do (a sandboxed frame of the resource's HTML), hands it the tool's arguments and result,
 * and answers its tools/call through the page's `hostCallTool`, for tools the host knows as read-only only.
 */
const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.hostCalls = [];
window.showView = async ({ html, name, args, result, readOnlyTools }) => {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = name;
  // One view at a time, as a conversation's latest answer.
  document.getElementById('views').replaceChildren(frame);
  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext: { theme: 'light', displayMode: 'inline' } });
  bridge.oncalltool = async (params) => {
    window.hostCalls.push(params);
    if (!readOnlyTools.includes(params.name)) throw new Error('The host lets a view call read tools only: ' + params.name);
    return window.hostCallTool(params.name, params.arguments || {});
  };
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  const fallback = document.createElement('pre');
  fallback.className = 'fallback';
  fallback.textContent = result.content.find((item) => item.type === 'text').text;
  document.getElementById('transcript').append(fallback);
};
`;

const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<style>body{font:14px system-ui;margin:16px;background:#f3f4f6} iframe{width:100%;border:1px solid #ccc;border-radius:8px;background:#fff;height:200px}
#transcript{display:none}</style></head><body><div id="views"></div><div id="transcript"></div>
<script src="/host.js"></script></body></html>`;

let hostScript: Promise<string> | undefined;
function hostBundle(): Promise<string> {
  hostScript ??= build({
    stdin: { contents: HOST_ENTRY, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  }).then((result) => result.outputFiles[0]?.text ?? '');
  return hostScript;
}

interface CallResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool result's structured content, typed as the test reads it. */
function dataOf<T>(result: CallResult): T {
  if (!result.structuredContent) throw new Error('no structured content');
  return result.structuredContent as T;
}

interface HeatCell {
  likelihood: number;
  impact: number;
  count: number;
}

/** The host: its MCP client (2026-07-28) to the server (the core, risks and frameworks listed), its page, and every request the page made. */
async function openHost(page: Page, url: string, token: string) {
  const client = new Client(
    { name: 'apps-test-host', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp/v1?toolsets=risks,frameworks`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const { tools } = await client.listTools();
  const readOnlyTools = tools
    .filter((tool) => tool.annotations?.readOnlyHint === true)
    .map((tool) => tool.name);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  const script = await hostBundle();
  await page.route(`${HOST_ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/host.js') return route.fulfill({ body: script, contentType: 'text/javascript' });
    return route.fulfill({ body: HOST_PAGE, contentType: 'text/html' });
  });
  await page.exposeFunction('hostCallTool', (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }),
  );
  await page.goto(`${HOST_ORIGIN}/`);

  /** Calls the tool as the model would, then renders its view from the resource its _meta names. */
  async function show(name: string, args: Record<string, unknown>) {
    const tool = tools.find((item) => item.name === name);
    const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri ?? '';
    expect(uri).toMatch(/^ui:\/\/compliance-mcp\//);
    const { contents } = await client.readResource({ uri });
    const html = String((contents[0] as { text: string }).text);
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    expect(result.isError).toBeUndefined();
    await page.evaluate(
      (view) => (window as unknown as { showView(v: unknown): Promise<void> }).showView(view),
      {
        html,
        name,
        args,
        result,
        readOnlyTools,
      },
    );
    return { result, frame: page.frameLocator(`iframe[title="${name}"]`) };
  }
  return { client, show, requests, readOnlyTools };
}

/** The fallback a host without views shows: the tool's text, the whole structured result. */
async function expectFallback(page: Page, result: CallResult) {
  const texts = await page.locator('#transcript pre').allTextContents();
  const text = result.content[0]?.text ?? '';
  expect(texts).toContain(text);
  expect(JSON.parse(text)).toEqual(result.structuredContent);
}

describe('chat views in an MCP Apps host', () => {
  it('renders each view from its tool result, calls a read tool from the heat map, and keeps the text fallback', async () => {
    const { page, url, server } = await start({ demo: true, viewport: { width: 1100, height: 900 } });
    const demo = server.demo;
    if (!demo) throw new Error('the demo was not seeded');
    const organizationId = demo.organization_id;
    // Data that would be markup if a view ever built HTML from strings.
    const hostile = '<img src=x onerror="document.title=1">Injected & <b>bold</b>';
    const added = await callTool(url, demo.token, 'addRisk', {
      organization_id: organizationId,
      name: hostile,
      inherent_likelihood: 5,
      inherent_impact: 5,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const host = await openHost(page, url, demo.token);

    // The heat map: both grids from the summary; a cell lists its risks through the host (listRisks).
    const summary = await host.show('getComplianceSummary', { organization_id: organizationId });
    const heat = summary.frame;
    await expect.poll(() => heat.locator('h1').textContent()).toBe('Risk heat map');
    const heatMap = dataOf<{ risks: { heat_map: { inherent: HeatCell[]; residual: HeatCell[] } } }>(
      summary.result,
    ).risks.heat_map;
    const cells = heatMap.inherent;
    const top = cells.find((cell) => cell.likelihood === 5 && cell.impact === 5);
    expect(top?.count).toBeGreaterThanOrEqual(1);
    const topCell = heat.locator('button[data-stage="inherent"][data-likelihood="5"][data-impact="5"]');
    expect(await topCell.textContent()).toBe(String(top?.count));
    expect(await heat.locator('button.cell:not([disabled])').count()).toBe(
      cells.length + heatMap.residual.length,
    );
    // The style block applies under the document's policy (its hash): the top cell has the method's RED.
    expect(await topCell.evaluate((cell) => getComputedStyle(cell).backgroundColor)).toBe(
      'rgb(239, 107, 93)',
    );
    await screenshot(page, 'apps-heatmap');
    await topCell.click();
    await expect.poll(() => heat.locator('#details h2').textContent()).toBe(`Inherent 5 x 5 (${top?.count})`);
    // The hostile name is text in the cell's list: no image element, the page title untouched.
    await expect.poll(() => heat.getByText(hostile, { exact: true }).count()).toBe(1);
    expect(await heat.locator('img, b').count()).toBe(0);
    const call = (await page.evaluate(() => (window as unknown as { hostCalls: unknown[] }).hostCalls)).at(
      -1,
    );
    expect(call).toEqual({
      name: 'listRisks',
      arguments: {
        organization_id: organizationId,
        filter: {
          status: ['OPEN', 'IN_TREATMENT', 'MITIGATED', 'ACCEPTED'],
          inherent_likelihood: 5,
          inherent_impact: 5,
        },
        size: 50,
      },
    });
    await screenshot(page, 'apps-heatmap-cell');
    await expectFallback(page, summary.result);

    // The view calls only the read tools it declares: any other name is refused before the host hears of it.
    const calls = await page.evaluate(() => (window as unknown as { hostCalls: unknown[] }).hostCalls.length);
    const refused = await page
      .frameLocator('iframe[title="getComplianceSummary"]')
      .locator('body')
      .evaluate((body) =>
        (
          body.ownerDocument.defaultView as unknown as {
            view: { callTool(n: string, a: unknown): Promise<unknown> };
          }
        ).view
          .callTool('deleteRisk', { id: 'rsk_x' })
          .then(
            () => 'called',
            (error: Error) => error.message,
          ),
      );
    expect(refused).toBe('This view does not call deleteRisk.');
    expect(await page.evaluate(() => (window as unknown as { hostCalls: unknown[] }).hostCalls.length)).toBe(
      calls,
    );

    // The statement of applicability and coverage of the demo's framework.
    const frameworks = await callTool(url, demo.token, 'listFrameworks', { organization_id: organizationId });
    const framework = (frameworks.body.frameworks as { id: string; name: string }[])[0];
    if (!framework) throw new Error('the demo has no framework');
    const soa = await host.show('getStatementOfApplicability', { framework_id: framework.id, size: 10 });
    const rows = dataOf<{ requirements: { reference: string }[] }>(soa.result).requirements.map(
      (row) => row.reference,
    );
    await expect.poll(() => soa.frame.locator('tbody tr td:first-child').allTextContents()).toEqual(rows);
    await screenshot(page, 'apps-soa');
    if (dataOf<{ next_cursor: string | null }>(soa.result).next_cursor) {
      await soa.frame.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => soa.frame.locator('tbody tr').count()).toBeGreaterThan(rows.length);
    }
    await expectFallback(page, soa.result);

    const coverage = await host.show('getFrameworkCoverage', { framework_id: framework.id });
    await expect.poll(() => coverage.frame.locator('h1').textContent()).toContain(framework.name);
    const sections = dataOf<{ sections: { id: string | null }[] }>(coverage.result).sections;
    expect(await coverage.frame.locator('button[data-section]').count()).toBe(
      sections.filter((section) => section.id !== null).length,
    );
    const firstSection = sections.find((section) => section.id !== null);
    if (firstSection) {
      await coverage.frame.locator(`button[data-section="${firstSection.id}"]`).click();
      await expect.poll(() => coverage.frame.locator('#details h2').count()).toBe(1);
    }
    await screenshot(page, 'apps-coverage');
    await expectFallback(page, coverage.result);

    const work = await host.show('myWork', { organization_id: organizationId });
    const items = dataOf<{ items: { title: string }[] }>(work.result).items;
    await expect.poll(() => work.frame.locator('h1').textContent()).toBe('My work');
    expect(await work.frame.locator('tbody tr').count()).toBe(items.length);
    await screenshot(page, 'apps-mywork');
    await expectFallback(page, work.result);

    // Nothing but the host page and its script was ever requested: the views fetched nothing.
    expect(new Set(host.requests)).toEqual(new Set([`${HOST_ORIGIN}/`, `${HOST_ORIGIN}/host.js`]));
    expect(await page.title()).toBe('Host');
    await host.client.close();
  });
});
