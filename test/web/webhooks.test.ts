// The Webhooks pages: an owner adds an endpoint (secret shown once), sees the delivery log, redelivers, rotates,
// deletes; an editor and another organization's owner are refused; refused URLs are explained.
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../scripts/webhook-receiver.ts';
import { addMember, createActor, createTestRuntime, ok, type TestRuntime } from '../helpers.ts';
import { PASSWORD, signUpWithToken, textOf, WebClient } from './web-client.ts';

const runtimes: TestRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.cleanup()));
});

async function setUp(env: Record<string, string> = { WEBHOOKS_ALLOW_LOCAL: 'true' }) {
  const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0', ...env } });
  runtimes.push(runtime);
  return { runtime, ...(await signUpWithToken(runtime)) };
}

describe('webhook pages', () => {
  it('adds an endpoint, shows its secret once, logs deliveries and redelivers one', async () => {
    const { runtime, client, organizationId, token } = await setUp();
    const receiver = await startReceiver();
    try {
      const base = `/orgs/${organizationId}/webhooks`;
      const added = await client.submit(base, base, {
        url: receiver.url,
        description: 'Ticketing',
        events: ['risk.*', 'review.due'],
        other_events: 'vendor.created',
      });
      expect(added.status).toBe(201);
      const secret = /whsec_[A-Za-z0-9+/=]+/.exec(added.html)?.[0] ?? '';
      expect(secret).toMatch(/^whsec_/);
      receiver.secrets.push(secret);
      const list = await client.get(base);
      expect(list.html).not.toContain(secret);
      expect(textOf(list.html)).toContain('risk.*, review.due, vendor.created');
      const endpointPath =
        /href="(\/orgs\/org_[a-z0-9]+\/webhooks\/whk_[a-z0-9]+)"/.exec(list.html)?.[1] ?? '';
      expect(endpointPath).toMatch(/whk_/);

      await ok(runtime, token, 'addRisk', {
        organization_id: organizationId,
        name: 'Logged',
        inherent_likelihood: 1,
        inherent_impact: 1,
      });
      expect((await runtime.webhooks.run(10)).delivered).toBe(1);
      const log = await client.get(endpointPath);
      expect(textOf(log.html)).toContain('risk.created');
      expect(textOf(log.html)).toContain('Delivered');
      expect(textOf(log.html)).toContain('HTTP 200');
      const messageId = /\/deliveries\/(msg_[a-z0-9]+)\/redeliver/.exec(log.html)?.[1] ?? '';
      const again = await client.submit(
        endpointPath,
        `${endpointPath}/deliveries/${messageId}/redeliver`,
        {},
      );
      expect(again.status).toBe(303);
      expect((await runtime.webhooks.run(10)).delivered).toBe(1);
      expect(receiver.received.map((item) => item.id)).toEqual([messageId, messageId]);

      const rotated = await client.submit(endpointPath, `${endpointPath}/rotate`, {});
      const second = /whsec_[A-Za-z0-9+/=]+/.exec(rotated.html)?.[0] ?? '';
      expect(second).not.toBe(secret);
      expect(textOf(rotated.html)).toContain("previous rotation's overlap ends");

      const deleted = await client.submit(endpointPath, `${endpointPath}/delete`, {});
      expect(deleted.location).toBe(`${base}?done=deleted`);
      expect((await client.get(endpointPath)).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it('explains a refused URL and keeps the form; editors and other organizations are refused', async () => {
    const { runtime, client, organizationId } = await setUp({});
    const base = `/orgs/${organizationId}/webhooks`;
    const refused = await client.submit(base, base, { url: 'https://192.168.1.20/hook', events: ['*'] });
    expect(refused.status).toBe(422);
    expect(textOf(refused.html)).toContain('The URL points at a private address, which is refused.');
    expect(refused.html).toContain('value="https://192.168.1.20/hook"');
    const insecure = await client.submit(base, base, { url: 'http://hooks.example.com/x', events: ['*'] });
    expect(textOf(insecure.html)).toContain('The URL must use https.');

    const editor = await createActor(runtime, 'editor');
    await addMember(runtime, organizationId, editor, 'EDITOR');
    const editorClient = new WebClient(runtime);
    await editorClient.signIn(editor.email, 'correct horse battery');
    expect((await editorClient.get(base)).status).toBe(403);
    const stranger = new WebClient(runtime);
    await stranger.signUp('eve@example.com', 'Elsewhere', PASSWORD);
    expect((await stranger.get(base)).status).toBe(404);
  });
});
