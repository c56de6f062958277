// Accounts in Chromium against the real Node server without mail (the embedded default): a later sign-up confirmed
// by the link the operator's CLI prints, an invitation sent, accepted and left, the last owner kept, a reset link.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli-run.ts';
import { axeViolations, screenshot, signUp, start, stopAfterEach, unlabelledControls } from './helpers.ts';

stopAfterEach();

const BOB_PASSWORD = 'bob has a long passphrase';

/** What the operator's CLI prints for this server's database (`user verify --link`, `user reset-link`). */
async function operatorLink(databaseUrl: string, url: string, ...argv: string[]): Promise<string> {
  const result = await runCli({ DATABASE_URL: databaseUrl, PUBLIC_URL: url }, ...argv);
  expect(result.code, result.err.join('\n')).toBe(0);
  return String((JSON.parse(result.out[0] ?? '{}') as { link?: string }).link);
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's own problems a person would meet: unlabelled controls and axe-core violations. */
async function pageProblems(page: Page): Promise<string[]> {
  return [...(await unlabelledControls(page)), ...(await axeViolations(page))];
}

describe('accounts in Chromium', () => {
  it('walks sign-up with a confirmation link, an invitation accepted and left, and a password reset', async () => {
    const { page, url, browser, server, context } = await start();
    // axe-core in every page (the pages' policy refuses an inline script added later).
    await context.addInitScript({ content: AXE_SOURCE });
    const databaseUrl = server.runtime.config.databaseUrl;
    await signUp(page, url, 'ada@example.com', 'Acme Health');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Acme Health');

    // Bob signs up in his own browser: his account is made once the address is confirmed.
    const bobContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await bobContext.addInitScript({ content: AXE_SOURCE });
    const bob = await bobContext.newPage();
    bob.setDefaultTimeout(10_000);
    await bob.goto(`${url}/signup`);
    await bob.getByLabel('Your name').fill('Bob');
    await bob.getByLabel('Email').fill('bob@example.com');
    await bob.getByLabel('Password', { exact: true }).fill(BOB_PASSWORD);
    await bob.getByLabel('Repeat the password').fill(BOB_PASSWORD);
    await bob.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Check your email');
    expect(await bob.locator('main').textContent()).toContain('compliance-mcp user verify bob@example.com');
    await screenshot(bob, '60-check-your-email');
    const confirm = await operatorLink(databaseUrl, url, 'user', 'verify', 'bob@example.com', '--link');
    await bob.goto(confirm);
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Confirm your address');
    expect(await pageProblems(bob)).toEqual([]);
    await bob.getByRole('button', { name: 'Confirm and sign in' }).click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Welcome, Bob');

    // Ada invites Bob from the members page.
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('Email', { exact: true }).fill('bob@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('EDITOR');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain('Invitation sent to bob@example.com as EDITOR.');
    expect(
      await page.locator('table', { hasText: 'Open until' }).locator('tbody tr').textContent(),
    ).toContain('bob@example.com');
    expect(await pageProblems(page)).toEqual([]);
    await screenshot(page, '61-members-invited');

    // Bob answers on his Invitations page.
    await bob.reload();
    expect(await bob.locator('main').textContent()).toContain('An invitation is waiting for you');
    await bob.getByRole('link', { name: 'Invitations', exact: true }).first().click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Invitations');
    expect(await bob.locator('main').textContent()).toContain(
      'invited bob@example.com to Acme Health as EDITOR',
    );
    expect(await pageProblems(bob)).toEqual([]);
    await screenshot(bob, '62-invitations');
    await bob.getByRole('button', { name: 'Accept and join' }).click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Acme Health');
    expect(await bob.locator('main').textContent()).toContain('You joined Acme Health.');

    // Bob leaves; Ada, the last owner, cannot.
    await bob.getByRole('link', { name: 'Members' }).click();
    await bob.getByRole('link', { name: 'Leave this organization' }).click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Leave Acme Health?');
    expect(await pageProblems(bob)).toEqual([]);
    await bob.getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => bob.locator('main').textContent()).toContain('You left Acme Health.');
    await page.reload();
    await page.getByRole('link', { name: 'Leave this organization' }).click();
    await page.getByRole('button', { name: 'Leave' }).click();
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain('An organization keeps at least one OWNER. Make someone else OWNER first.');

    // Bob forgot his password: the sign-in page's link, then the operator's reset link.
    await bob.getByRole('button', { name: 'Sign out' }).click();
    await bob.getByRole('link', { name: 'Forgot your password?' }).click();
    await bob.getByLabel('Email').fill('bob@example.com');
    await bob.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Check your email');
    expect(await bob.locator('main').textContent()).toContain(
      'compliance-mcp user reset-link bob@example.com',
    );
    const reset = await operatorLink(databaseUrl, url, 'user', 'reset-link', 'bob@example.com');
    await bob.goto(reset);
    await expect.poll(() => bob.locator('h1').textContent()).toBe('Choose a new password');
    expect(await pageProblems(bob)).toEqual([]);
    await bob.getByLabel('New password', { exact: true }).fill('a brand new passphrase');
    await bob.getByLabel('Repeat the new password').fill('a brand new passphrase');
    await bob.getByRole('button', { name: 'Set the password' }).click();
    await expect
      .poll(() => bob.locator('main').textContent())
      .toContain('Your password was changed and your sessions were signed out.');
    await screenshot(bob, '63-reset-done');
    // The same link a second time is refused in words.
    await bob.goto(reset);
    await expect.poll(() => bob.locator('h1').textContent()).toBe('This link was already used');
    await bob.goto(`${url}/login`);
    await bob.getByLabel('Email').fill('bob@example.com');
    await bob.getByLabel('Password').fill('a brand new passphrase');
    await bob.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => new URL(bob.url()).pathname).toBe('/orgs');
    await bobContext.close();
  }, 120_000);
});
