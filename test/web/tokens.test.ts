// Settings > API Tokens in the web interface: generate (secret once), list, token use page, revoke.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.ts';
import { apiTokens } from '../../src/db/schema.ts';
import { callDirect, createTestRuntime, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, firstOrganizationId, manualClock, textOf, WebClient } from './web-client.ts';

const runtimes = runtimesCleanedAfterEach();

async function signedIn(clock = manualClock()) {
  const runtime = await createTestRuntime({ now: clock.now });
  runtimes.push(runtime);
  const client = new WebClient(runtime);
  await client.signUp('ada@example.com', 'Acme Health');
  const organizationId = await firstOrganizationId(client);
  return { runtime, client, clock, organizationId };
}

const TOKEN_PATTERN = /cmcp_[A-Za-z0-9_-]{43}/;

async function generate(client: WebClient, fields: Record<string, string | string[]> = {}) {
  const page = await client.submit('/settings/tokens/new', '/settings/tokens', {
    name: 'Claude Code – laptop',
    scope: 'read',
    organization_mode: 'all',
    expires_in_days: '90',
    ...fields,
  });
  const secret = TOKEN_PATTERN.exec(page.html)?.[0];
  return { page, secret };
}

describe('generating a token', () => {
  it('offers read scope, all organizations and 90 days by default, every input labelled', async () => {
    const { client } = await signedIn();
    const form = (await client.get('/settings/tokens/new')).html;
    expect(form).toMatch(/<input type="radio" id="scope-read" name="scope" value="read" checked=""/);
    expect(form).toMatch(/<input type="radio" id="org-all" name="organization_mode" value="all" checked=""/);
    expect(form).toMatch(/<option value="90" selected="">90 days \(recommended\)<\/option>/);
    expect([...form.matchAll(/<option value="(\d+)"/g)].map((match) => match[1])).toEqual([
      '7',
      '30',
      '90',
      '365',
    ]);
    const ids = [...form.matchAll(/<(?:input|select) [^>]*id="([^"]+)"/g)].map((match) => match[1]);
    const labelled = new Set([...form.matchAll(/<label for="([^"]+)"/g)].map((match) => match[1]));
    expect(ids.length).toBeGreaterThan(5);
    for (const id of ids) expect(labelled, `label for #${id}`).toContain(id);
  });

  it('shows the secret once with a copy button and client configuration, and stores only its hash', async () => {
    const { runtime, client } = await signedIn();
    const { page, secret } = await generate(client);
    expect(page.status).toBe(201);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(secret).toBeDefined();
    const text = textOf(page.html);
    expect(text).toContain('it is shown only this once');
    expect(page.html).toContain('data-copy="token-secret"');
    expect(text).toContain(
      `claude mcp add --transport http compliance ${client.base}/api/mcp/v1 --header "Authorization: Bearer ${secret}"`,
    );
    expect(text).toContain(`"url": "${client.base}/api/mcp/v1"`);
    expect(text).toContain(`"Authorization": "Bearer ${secret}"`);

    const [row] = await runtime.database.db.select().from(apiTokens);
    expect(row?.token_hash).toBe(await hashToken(secret ?? ''));
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row).toMatchObject({ name: 'Claude Code – laptop', scope: 'read', organization_ids: null });
    const days = (Date.parse(row?.expires_at ?? '') - Date.parse(row?.created_at ?? '')) / 86_400_000;
    expect(days).toBe(90);

    const list = await client.get('/settings/tokens');
    expect(list.html).not.toContain(secret);
    expect(textOf(list.html)).toContain(`${row?.prefix}…`);
  });

  it('restricts a token to the organizations ticked, with the scope and expiry chosen', async () => {
    const { runtime, client, organizationId } = await signedIn();
    await client.submit('/orgs/new', '/orgs', { name: 'Second Org' });
    const { page, secret } = await generate(client, {
      name: 'CI reporting',
      scope: 'read_write',
      organization_mode: 'some',
      organizations: [organizationId],
      expires_in_days: '7',
    });
    expect(page.status).toBe(201);
    const [row] = await runtime.database.db.select().from(apiTokens);
    expect(row).toMatchObject({ scope: 'read_write', organization_ids: [organizationId] });
    const listed = await callDirect(runtime, secret ?? '', 'listOrganizations');
    expect((listed.body.organizations as { id: string }[]).map((org) => org.id)).toEqual([organizationId]);
    const list = textOf((await client.get('/settings/tokens')).html);
    expect(list).toContain('CI reporting');
    expect(list).toContain('Acme Health');
    expect(list).toContain('rotate soon');
  });

  it('asks for a name, and for an organization when "only these" is chosen', async () => {
    const { client, runtime } = await signedIn();
    const noName = await generate(client, { name: '  ' });
    expect(noName.page.status).toBe(422);
    expect(textOf(noName.page.html)).toContain('Give the token a name');
    const noOrganization = await generate(client, { organization_mode: 'some' });
    expect(noOrganization.page.status).toBe(422);
    expect(textOf(noOrganization.page.html)).toContain('Choose at least one organization');
    expect(noOrganization.page.html).toContain('value="Claude Code – laptop"');
    const foreign = await generate(client, {
      organization_mode: 'some',
      organizations: ['org_0000000000000000000000zz'],
    });
    expect(foreign.page.status).toBe(422);
    expect(await runtime.database.db.select().from(apiTokens)).toEqual([]);
  });
});

describe('the token list', () => {
  it('flags tokens that expire within 14 days for rotation, and shows expired ones as such', async () => {
    const { client, clock } = await signedIn();
    await generate(client, { name: 'weekly', expires_in_days: '7' });
    await generate(client, { name: 'quarterly', expires_in_days: '90' });
    let text = textOf((await client.get('/settings/tokens')).html);
    expect(text).toContain('One token expires within 14 days');
    expect(text).toMatch(/weekly .* active · rotate soon/);
    expect(text).toMatch(/quarterly .* active(?! · rotate)/);

    clock.advance(8 * 86_400);
    await client.signIn('ada@example.com'); // the session idled out meanwhile
    text = textOf((await client.get('/settings/tokens')).html);
    expect(text).toMatch(/weekly .* expired/);
    expect(text).not.toContain('expires within 14 days');
    clock.advance(70 * 86_400);
    await client.signIn('ada@example.com');
    text = textOf((await client.get('/settings/tokens')).html);
    expect(text).toMatch(/quarterly .* rotate soon/);
  });
});

describe('token use and revocation', () => {
  it('shows the calls made with the token on its page: time, surface, tool, organization, outcome, duration', async () => {
    const { runtime, client, organizationId } = await signedIn();
    const { secret } = await generate(client, { scope: 'read' });
    const token = secret ?? '';
    expect((await callDirect(runtime, token, 'listOrganizations')).status).toBe(200);
    expect((await callDirect(runtime, token, 'listRisks', { organization_id: organizationId })).status).toBe(
      200,
    );
    const refused = await callDirect(runtime, token, 'addVendor', {
      organization_id: organizationId,
      name: 'AWS',
    });
    expect(refused.status).toBe(403);
    const [row] = await runtime.database.db.select().from(apiTokens);

    const page = await client.get(`/settings/tokens/${row?.id}`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('The 3 most recent of 3 calls');
    // Refused for its scope before any organization was looked at.
    expect(text).toMatch(/UTC HTTP \(direct\) addVendor — insufficient_scope \d+ ms/);
    expect(text).toMatch(/UTC HTTP \(direct\) listRisks Acme Health ok \d+ ms/);
    expect(text).toMatch(/UTC HTTP \(direct\) listOrganizations — ok \d+ ms/);
    expect(page.html).toContain('3 calls in the last 30 days');
    expect(text).toMatch(/Last used \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it('asks for confirmation, then revokes so the very next API call is refused with 401', async () => {
    const { runtime, client } = await signedIn();
    const { secret } = await generate(client);
    const token = secret ?? '';
    expect((await callDirect(runtime, token, 'listOrganizations')).status).toBe(200); // now cached
    const [row] = await runtime.database.db.select().from(apiTokens);

    const confirm = await client.get(`/settings/tokens/${row?.id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(textOf(confirm.html)).toContain('Revoke “Claude Code – laptop”?');
    expect((await callDirect(runtime, token, 'listOrganizations')).status).toBe(200); // not yet

    const revoked = await client.post(`/settings/tokens/${row?.id}/revoke`, { _csrf: csrfOf(confirm.html) });
    expect(revoked.location).toBe('/settings/tokens?done=revoked');
    const after = await callDirect(runtime, token, 'listOrganizations');
    expect(after.status).toBe(401);
    expect((after.body.error as { message: string }).message).toContain('revoked');
    const list = textOf((await client.follow(revoked)).html);
    expect(list).toContain('The token was revoked');
    expect(list).toMatch(/Claude Code – laptop .* revoked/);
  });

  it('shows a token page and lets a token be revoked only by its owner', async () => {
    const { runtime, client } = await signedIn();
    const { secret } = await generate(client);
    const [row] = await runtime.database.db.select().from(apiTokens);
    const mallory = new WebClient(runtime);
    await mallory.signUp('mallory@example.com');
    expect((await mallory.get(`/settings/tokens/${row?.id}`)).status).toBe(404);
    expect((await mallory.get(`/settings/tokens/${row?.id}/revoke`)).status).toBe(404);
    const csrf = csrfOf((await mallory.get('/settings/tokens')).html);
    expect((await mallory.post(`/settings/tokens/${row?.id}/revoke`, { _csrf: csrf })).status).toBe(404);
    expect((await callDirect(runtime, secret ?? '', 'listOrganizations')).status).toBe(200);
    const [still] = await runtime.database.db
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.id, row?.id ?? ''));
    expect(still?.revoked_at).toBeNull();
  });
});
