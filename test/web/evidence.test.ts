// Evidence in the web interface: a file uploaded on a measure's page is stored for the session's organization,
// listed there, never shown inline (its page links to a signed download); the register's quick filters and the home
// page's count of evidence expiring within 30 days.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRuntime } from '../helpers.ts';
import { ok } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf, type WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];
let runtime: TestRuntime;
let client: WebClient;
let organizationId: string;
let token: string;
let measureId: string;

beforeAll(async () => {
  ({ runtime, client, organizationId, token } = await signedUpRuntime(runtimes));
  const added = await ok(runtime, token, 'addMeasure', { organization_id: organizationId, name: 'MFA' });
  measureId = String((added.measure as { id: string }).id);
});

afterAll(async () => {
  for (const item of runtimes) await item.cleanup();
});

/** Submits the measure page's evidence form as a browser sends a file input: multipart, same origin. */
async function attach(
  fields: Record<string, string>,
  file?: { name: string; text: string },
  org = organizationId,
) {
  const page = await client.get(`/orgs/${organizationId}/measures/${measureId}`);
  const form = new FormData();
  form.set('_csrf', csrfOf(page.html));
  form.set('record_id', measureId);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set('file', new File([file.text], file.name, { type: 'text/html' }));
  return client.request(`/orgs/${org}/evidence/attach`, {
    method: 'POST',
    body: form,
    headers: { origin: new URL(client.base).origin },
  });
}

describe('evidence pages', () => {
  it('uploads a file on a record page and lists it there; its page links to a signed attachment, nothing inline', async () => {
    const page = await client.get(`/orgs/${organizationId}/measures/${measureId}`);
    expect(page.html).toContain('type="file"');
    expect(page.html).toContain('enctype="multipart/form-data"');
    const html = '<script>alert("x")</script><h1>Evidence</h1>';
    const posted = await attach(
      { title: 'Login page capture', valid_until: '2000-01-01' },
      { name: 'capture.html', text: html },
    );
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/orgs/${organizationId}/measures/${measureId}#evidence`);
    const after = await client.get(`/orgs/${organizationId}/measures/${measureId}`);
    expect(textOf(after.html)).toContain('Evidence added: Login page capture.');
    expect(textOf(after.html)).toContain(
      'Login page capture file capture.html, valid until 2000-01-01 (expired)',
    );
    expect(after.html).not.toContain('<script>alert');
    const listed = await ok(runtime, token, 'listEvidence', {
      organization_id: organizationId,
      filter: { record_id: measureId },
    });
    const [item] = listed.evidence as Record<string, unknown>[];
    expect(item).toMatchObject({ kind: 'FILE', file_name: 'capture.html', record_ids: [measureId] });
    expect(String(item?.content_type)).toMatch(/^text\/plain/);
    const evidencePage = await client.get(`/orgs/${organizationId}/evidence/${String(item?.id)}`);
    expect(evidencePage.status).toBe(200);
    expect(evidencePage.html).not.toContain('<script>alert');
    const href = /href="([^"]*\/files\/[^"]+)"/.exec(evidencePage.html)?.[1] ?? '';
    const download = await runtime.app.request(
      new URL(href.replaceAll('&amp;', '&'), client.base).toString(),
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(await download.text()).toBe(html);
  });

  it('adds a link, and refuses an organization the session is not a member of as a missing page', async () => {
    const posted = await attach({
      url: 'https://wiki.example.com/mfa',
      title: 'MFA wiki page',
      valid_until: '2099-01-01',
    });
    expect(posted.status).toBe(303);
    const foreign = await attach({ url: 'https://example.com/x' }, undefined, 'org_0000000000000000000000ab');
    expect(foreign.status).toBe(404);
  });

  it('names the newer item in the register’s Superseded by column, not its id', async () => {
    const older = await ok(runtime, token, 'addEvidence', {
      organization_id: organizationId,
      title: 'Access review Q1',
      url: 'https://example.com/access-q1',
    });
    const olderId = String((older.evidence as { id: string }).id);
    const newer = await ok(runtime, token, 'addEvidence', {
      organization_id: organizationId,
      title: 'Access review Q2',
      url: 'https://example.com/access-q2',
      supersedes_id: olderId,
    });
    const newerId = String((newer.evidence as { id: string }).id);
    const page = await client.get(
      `/orgs/${organizationId}/evidence?query=${encodeURIComponent('Access review')}`,
    );
    expect(page.html).toContain(`href="/orgs/${organizationId}/evidence/${newerId}"`);
    expect(textOf(page.html)).toMatch(/Access review Q1\s+Link\s+\S+\s+—\s+no\s+Access review Q2/);
    expect(textOf(page.html)).not.toContain(newerId);
  });

  it('the register offers Expiring in 30 days and Expired, and the home page counts evidence expiring soon', async () => {
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await ok(runtime, token, 'addEvidence', {
      organization_id: organizationId,
      title: 'Pen test report',
      url: 'https://example.com/pentest',
      valid_until: soon,
    });
    const register = await client.get(`/orgs/${organizationId}/evidence`);
    expect(textOf(register.html)).toContain('Expiring in 30 days');
    const expired = await client.get(`/orgs/${organizationId}/evidence?expired=true`);
    expect(textOf(expired.html)).toContain('Login page capture');
    expect(textOf(expired.html)).toContain('1 of 1 evidence item. Title');
    const home = await client.get(`/orgs/${organizationId}`);
    expect(textOf(home.html)).toContain('Evidence expiring in 30 days 1');
  });
});
