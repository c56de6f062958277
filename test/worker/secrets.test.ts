// Secrets at rest on the Worker: webhook signing secrets sealed under the SECRETS_KEY Worker secret, endpoints refused
// with the reason when it is not set, and rows from before encryption sealed by the hourly upkeep.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, ne } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { describe, expect, inject, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { webhookEndpoints, webhookMessages } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { NO_SECRETS_KEY_MESSAGE } from '../../src/secrets/keyring.ts';
import { openEndpointSecret } from '../../src/webhooks/secrets.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import worker, { type Env, runtimeFor } from '../../src/worker.ts';
import { UPKEEP_CRON } from '../../src/worker-crons.ts';
import { type BrowserSession, browserSession, csrfOf } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { cliTokenService, deliveredMessage, runScheduled, testDatabase } from './helpers.ts';

const PASSWORD = 'correct horse battery staple';
type Database = ReturnType<typeof testDatabase>;

/** The Worker's fetch with these bindings, each request with its execution context waited for (after-response runs). */
function workerWith(bindings: Env) {
  const fetch = worker.fetch as unknown as (r: Request, e: Env, c: ExecutionContext) => Promise<Response>;
  return async (request: Request) => {
    const ctx = createExecutionContext();
    const response = await fetch(request, bindings, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

/** An owner of a new organization, signed in on the Worker with `bindings` through the login form. */
async function signedInOwner(database: Database, bindings: Env, name: string) {
  const email = `owner-${crypto.randomUUID()}@example.com`;
  const user = await createUser(database.db, new Date(), { emailVerified: true, email, password: PASSWORD });
  const organization = await createOrganization(database.db, new Date(), { name, ownerId: user.id });
  const session = browserSession(workerWith(bindings), BASE);
  expect((await session.signIn({ email, password: PASSWORD })).status).toBe(303);
  return { userId: user.id, organizationId: organization.id, session };
}

/** Posts the add-endpoint form of the organization's webhooks page. */
async function addEndpoint(session: BrowserSession, organizationId: string, url: string) {
  const path = `/orgs/${organizationId}/webhooks`;
  const csrf = csrfOf(await (await session.send(path)).text());
  return session.send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, url, events: 'vendor.*' }).toString(),
  });
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x2F;/g, '/')
    .replace(/&#43;/g, '+')
    .replace(/&#x3D;/g, '=')
    .replace(/&amp;/g, '&');
}

describe('secrets at rest on the Worker', () => {
  it('seals an endpoint secret under SECRETS_KEY; a delivery signs with the secret shown once', async () => {
    const database = testDatabase();
    const bindings: Env = { ...(env as Env), WEBHOOKS_ALLOW_LOCAL: 'true' };
    const { userId, organizationId, session } = await signedInOwner(
      database,
      bindings,
      'Sealed on the Worker',
    );
    const added = await addEndpoint(session, organizationId, `${inject('webhookSinkUrl')}/hook`);
    expect(added.status).toBe(201);
    const shown = decodeEntities(/<code class="secret">([^<]+)<\/code>/.exec(await added.text())?.[1] ?? '');
    expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const [row] = await database.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organization_id, organizationId));
    expect(row?.secret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(row?.secret).not.toContain('whsec_');
    expect(row?.secret).not.toContain(shown.slice('whsec_'.length, 20));
    expect(await openEndpointSecret(runtimeFor(bindings).secrets, row?.id ?? '', row?.secret ?? '')).toBe(
      shown,
    );

    // A vendor added through the API: the run after the response opens the secret and signs with it.
    await database.db
      .update(webhookMessages)
      .set({ status: 'failed' })
      .where(and(eq(webhookMessages.status, 'pending'), ne(webhookMessages.endpoint_id, row?.id ?? '')));
    const { token } = await cliTokenService(database).create({
      userId,
      name: 'sealed secret',
      scope: 'read_write',
      organizationIds: null,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const response = await workerWith(bindings)(
      new Request(`${BASE}/api/mcp/tools/addVendor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ organization_id: organizationId, name: 'Signed with a sealed secret' }),
      }),
    );
    expect(response.status).toBe(200);
    const message = await deliveredMessage(database, row?.id ?? '', bindings);
    expect(message).toMatchObject({ status: 'delivered', last_status_code: 204 });
    const received = (await (await globalThis.fetch(`${inject('webhookSinkUrl')}/received`)).json()) as {
      headers: Record<string, string>;
      body: string;
    }[];
    const delivery = received.find((item) => item.headers['webhook-id'] === message?.id);
    const payload = new Webhook(shown).verify(delivery?.body ?? '', delivery?.headers ?? {}) as {
      type: string;
    };
    expect(payload.type).toBe('vendor.created');
    database.client.close();
  });

  it('refuses to add an endpoint without SECRETS_KEY and says which setting is missing', async () => {
    const database = testDatabase();
    const bindings: Env = { ...(env as Env), SECRETS_KEY: undefined };
    const { organizationId, session } = await signedInOwner(database, bindings, 'No key on the Worker');
    const page = await (await session.send(`/orgs/${organizationId}/webhooks`)).text();
    const message = NO_SECRETS_KEY_MESSAGE.replace(/"/g, '&quot;');
    expect(page).toContain(message);
    const refused = await addEndpoint(session, organizationId, 'https://hooks.example.com/in');
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain(message);
    const rows = await database.db
      .select({ id: webhookEndpoints.id })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.organization_id, organizationId));
    expect(rows).toEqual([]);
    runtimeFor(env as Env);
    database.client.close();
  });

  it('has the hourly upkeep seal a secret stored before encryption', async () => {
    const database = testDatabase();
    const now = new Date();
    const owner = await createUser(database.db, now, {
      emailVerified: true,
      email: `legacy-${crypto.randomUUID()}@example.com`,
      password: 'not used here',
      passwordHash: 'x',
    });
    const organization = await createOrganization(database.db, now, {
      name: 'Legacy secret',
      ownerId: owner.id,
    });
    const id = newId('whk');
    const secret = newWebhookSecret();
    await database.db.insert(webhookEndpoints).values({
      id,
      organization_id: organization.id,
      url: 'https://hooks.example.com/legacy',
      events: ['*'],
      secret,
      enabled: true,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    await runScheduled(env as Env, createScheduledController({ cron: UPKEEP_CRON }));
    const [row] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(row?.secret).toMatch(/^enc:v1:[0-9a-f]{8}:/);
    expect(await openEndpointSecret(runtimeFor(env as Env).secrets, id, row?.secret ?? '')).toBe(secret);
    database.client.close();
  });
});
