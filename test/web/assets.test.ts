// Assets served by the app itself (no CDN): stylesheet, script and the tab icon, linked from every page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createTestRuntime, type TestRuntime } from '../helpers.ts';

let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await createTestRuntime();
});

afterAll(async () => runtime.cleanup());

describe('web assets', () => {
  it('links the stylesheet and the icon, both served by the app', async () => {
    const page = await (await runtime.app.request(`${BASE}/login`)).text();
    const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/icon\.[0-9a-f]{8}\.svg)"/.exec(
      page,
    )?.[1];
    const css = /<link rel="stylesheet" href="(\/assets\/app\.[0-9a-f]{8}\.css)"/.exec(page)?.[1];
    expect(icon).toBeDefined();
    expect(css).toBeDefined();
    const iconResponse = await runtime.app.request(`${BASE}${icon}`);
    expect(iconResponse.status).toBe(200);
    expect(iconResponse.headers.get('content-type')).toBe('image/svg+xml');
    expect(iconResponse.headers.get('cache-control')).toContain('immutable');
    expect(await iconResponse.text()).toMatch(/^<svg /);
    const cssResponse = await runtime.app.request(`${BASE}${css}`);
    expect(cssResponse.headers.get('content-type')).toContain('text/css');
  });

  it('answers /favicon.ico with the same icon', async () => {
    const response = await runtime.app.request(`${BASE}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^<svg /);
  });
});
