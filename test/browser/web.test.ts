// The web interface in a real browser (Debian's Chromium via playwright-core) against the real Node server.
import { describe, expect, it } from 'vitest';
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

describe('the web interface in Chromium', () => {
  it('takes a new user from sign-up to a token that works, is monitored, and stops working when revoked', async () => {
    const { page, url } = await start();

    await page.goto(`${url}/`);
    expect(new URL(page.url()).pathname).toBe('/signup');
    await screenshot(page, '01-sign-up');
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    expect(new URL(page.url()).pathname).toMatch(/^\/orgs\/org_[a-z0-9]+$/);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Acme Health');

    // A second organization, created from the top bar; the switcher then offers both.
    await page.getByRole('link', { name: 'New organization' }).click();
    await page.getByLabel('Name').fill('Acme Labs');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Acme Labs');
    expect(
      await page.getByRole('combobox', { name: 'Organization' }).locator('option').allTextContents(),
    ).toEqual(['Acme Health', 'Acme Labs']);
    await page.getByRole('combobox', { name: 'Organization' }).selectOption({ label: 'Acme Health' });
    await page.getByRole('button', { name: 'Go' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Acme Health');

    const token = await generateToken(page, url, 'Claude Code – laptop');
    expect(token).toMatch(/^cmcp_[A-Za-z0-9_-]{43}$/);
    expect(await page.locator('#snippet-claude-code').textContent()).toBe(
      `claude mcp add --transport http compliance ${url}/api/mcp/v1 --header "Authorization: Bearer ${token}"`,
    );
    await page.getByRole('button', { name: 'Copy', exact: true }).first().click();
    await expect
      .poll(() => page.locator('#copy-status').textContent())
      .toBe('Token copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await screenshot(page, '04-token-created');

    const listed = await callTool(url, token, 'listOrganizations');
    expect(listed.status).toBe(200);
    expect((listed.body.organizations as { name: string }[]).map((org) => org.name)).toEqual([
      'Acme Health',
      'Acme Labs',
    ]);

    await page.getByRole('link', { name: 'Done: back to API Tokens' }).click();
    expect(await page.content()).not.toContain(token); // shown once only
    await page.getByRole('link', { name: 'Claude Code – laptop', exact: true }).click();
    const calls = page.locator('table', { hasText: 'Outcome' }).locator('tbody tr');
    await expect.poll(() => calls.count()).toBe(1);
    const cells = await calls.first().locator('td').allTextContents();
    expect(cells.slice(1)).toEqual([
      'HTTP (direct)',
      'listOrganizations',
      '—',
      'ok',
      expect.stringMatching(/^\d+ ms$/),
    ]);
    await screenshot(page, '05-token-page');

    await page.getByRole('link', { name: 'Revoke this token' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Revoke “Claude Code – laptop”?');
    await page.getByRole('button', { name: 'Revoke token' }).click();
    await expect
      .poll(() => page.getByRole('status').first().textContent())
      .toContain('The token was revoked');
    await screenshot(page, '06-token-list-revoked');

    const refused = await callTool(url, token, 'listOrganizations');
    expect(refused.status).toBe(401);
    expect((refused.body.error as { code: string }).code).toBe('unauthorized');
  });

  it('generates a token with the keyboard alone, every input labelled and the focus visible', async () => {
    const { page, url } = await start();
    await signUp(page, url, 'keys@example.com', 'Keyboard Inc');
    await page.goto(`${url}/settings/tokens/new`);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, '11-token-form');

    const focused = () =>
      page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName ?? '');
    expect(await focused()).toBe('token-name'); // autofocus
    await page.keyboard.type('CI reporting');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('scope-read');
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    );
    expect(outline).toBe('solid');
    await page.keyboard.press('ArrowDown'); // radios move with the arrows
    expect(await focused()).toBe('scope-propose');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('scope-read-write');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('org-all');
    await page.keyboard.press('Tab');
    expect(await focused()).toMatch(/^org-org_/); // the organization's checkbox
    await page.keyboard.press('Space'); // ticking it chooses "Only these"
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('token-expiry');
    await page.keyboard.press('ArrowUp'); // 90 -> 30 days
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Generate token');
    await page.keyboard.press('Enter');

    await expect.poll(() => page.locator('h1').textContent()).toBe('Token “CI reporting” created');
    await page.goto(`${url}/settings/tokens`);
    const row = (
      await page.locator('tbody tr', { hasText: 'CI reporting' }).locator('td').allTextContents()
    ).join(' | ');
    expect(row).toContain('read & write');
    expect(row).toContain('Keyboard Inc');
    expect(row).not.toContain('All (yours');

    // The first Tab of a page reaches the skip link.
    await page.goto(`${url}/settings/tokens`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
  });

  it('labels every input of the main pages and renders them for screenshots', async () => {
    const { page, url } = await start();
    await page.goto(`${url}/signup`);
    expect(await unlabelledControls(page)).toEqual([]);
    await signUp(page, url, 'shots@example.com', 'Acme Health');
    const organizationPath = new URL(page.url()).pathname;
    const token = await generateToken(page, url, 'Seeding script', 'read_write');

    // Some records through the API, so the pages show what they look like in use.
    const organizationId = organizationPath.split('/')[2];
    const person = await callTool(url, token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'Grace Hopper',
      email: 'grace@acme.example',
      position: 'CTO',
    });
    const ownerId = (person.body.person as { id: string }).id;
    for (const [name, likelihood, impact, status] of [
      ['Ransomware encrypts file servers', 4, 5, 'OPEN'],
      ['Phishing leads to account takeover', 4, 4, 'IN_TREATMENT'],
      ['Supplier outage stops deliveries', 2, 4, 'ACCEPTED'],
      ['Office flood', 1, 3, 'OPEN'],
    ] as const) {
      // A risk is ACCEPTED through a risk acceptance: added OPEN, then accepted (within the appetite, by its owner).
      const accepted = status === 'ACCEPTED';
      const added = await callTool(url, token, 'addRisk', {
        organization_id: organizationId,
        name,
        category: 'Security',
        inherent_likelihood: likelihood,
        inherent_impact: impact,
        status: accepted ? 'OPEN' : status,
        ...(accepted ? { treatment: 'ACCEPT' } : {}),
        owner_id: ownerId,
      });
      if (accepted)
        await callTool(url, token, 'addRiskAcceptance', {
          organization_id: organizationId,
          risk_id: (added.body.risk as { id: string }).id,
          approver_id: ownerId,
          rationale: 'A second supplier is contracted.',
          expires_on: '2099-12-31',
        });
    }
    await callTool(url, token, 'addMeasure', {
      organization_id: organizationId,
      name: 'Enforce MFA',
      state: 'IMPLEMENTED',
    });
    await callTool(url, token, 'addMeasure', { organization_id: organizationId, name: 'Offline backups' });
    await callTool(url, token, 'addObligation', {
      organization_id: organizationId,
      requirement: 'Keep a record of processing activities',
      source: 'GDPR Art. 30',
      due_date: '2024-06-30',
    });

    const pages: [string, string][] = [
      ['02-summary', organizationPath],
      ['03-risks', `${organizationPath}/risks?min_residual_score=10`],
      ['07-members', `${organizationPath}/members`],
      ['08-activity', `${organizationPath}/activity`],
      ['09-token-list', '/settings/tokens'],
      ['10-obligations', `${organizationPath}/obligations?overdue=true`],
    ];
    for (const [name, path] of pages) {
      const response = await page.goto(`${url}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await unlabelledControls(page), path).toEqual([]);
      expect(await page.locator('h1').count(), path).toBe(1);
      await screenshot(page, name);
    }
    await page.goto(`${url}${organizationPath}/risks?min_residual_score=10`);
    const names = await page.locator('table:not(.heatmap) tbody th[scope="row"]').allTextContents();
    expect(names).toEqual(['Ransomware encrypts file servers', 'Phishing leads to account takeover']);
    await page.getByRole('link', { name: 'Ransomware encrypts file servers' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Ransomware encrypts file servers');
    expect(await page.locator('dl.details').textContent()).toContain('Grace Hopper');
    await screenshot(page, '12-risk-record');

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, '00-sign-in');
  });
});
