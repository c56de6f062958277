// Proposed writes on the Worker: a propose token (its scope kept through the KV token cache) proposes, a person
// approves in the web, and the write lands through the same seam with the proposal in its history.
import { createScheduledController } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notifications, proposals, webhookEndpoints, webhookMessages } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { SETTLE_MS } from '../../src/notify/engine.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import type { Env } from '../../src/worker.ts';
import { callTool, runScheduled, signUpOnWorker, testDatabase, workerBrowser } from './helpers.ts';

type Row = Record<string, unknown>;

const PASSWORD = 'correct horse battery staple';

/** A new account, its organization and a propose token made on the token page. */
async function proposer(name: string) {
  const browser = workerBrowser();
  const email = `${name}-${crypto.randomUUID()}@example.com`;
  expect((await signUpOnWorker(browser, email, PASSWORD, `Worker ${name} Org`)).status).toBe(303);
  const org = /^\/orgs\/(org_[a-z0-9]+)$/.exec((await browser.get('/orgs')).location ?? '')?.[1] ?? '';
  expect(org).toMatch(/^org_/);
  const made = await browser.submit('/settings/tokens/new', '/settings/tokens', {
    name: 'assistant',
    scope: 'propose',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  const token = /cmcp_[A-Za-z0-9_-]{43}/.exec(made.html)?.[0] ?? '';
  expect(token).toMatch(/^cmcp_/);
  return { browser, org, token };
}

describe('proposed writes on the Worker', () => {
  it('stores a proposal from a propose token, and applies it once approved in the web', async () => {
    const { browser, org, token } = await proposer('proposals');

    const args = {
      organization_id: org,
      name: 'Worker laptop theft',
      inherent_likelihood: 2,
      inherent_impact: 2,
    };
    // Twice: the second call reads the principal from the KV cache, which must keep the scope propose.
    const first = await callTool(token, 'addRisk', args);
    const second = await callTool(token, 'addRisk', { ...args, name: 'Worker phone theft' });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.body.proposed, second.body.proposed]).toEqual([true, true]);
    expect((await callTool(token, 'listRisks', { organization_id: org })).body.risks).toEqual([]);

    const id = String((first.body.proposal as Row).id);
    const page = `/orgs/${org}/proposals/${id}`;
    const approved = await browser.submit(page, `${page}/approve`, {});
    expect(approved.status).toBe(303);
    const outcome = await callTool(token, 'getProposal', { id });
    expect(outcome.body.proposal).toMatchObject({ status: 'APPLIED' });
    const risks = (await callTool(token, 'listRisks', { organization_id: org })).body.risks as Row[];
    expect(risks.map((risk) => risk.name)).toEqual(['Worker laptop theft']);
    const history = await callTool(token, 'listChanges', {
      organization_id: org,
      filter: { record_id: risks[0]?.id },
    });
    expect((history.body.changes as Row[])[0]).toMatchObject({
      action: 'add',
      surface: 'web',
      proposal_id: id,
    });
    const pending = await callTool(token, 'listProposals', {
      organization_id: org,
      filter: { status: ['PENDING'] },
    });
    expect((pending.body.proposals as Row[]).map((row) => row.id)).toEqual([
      (second.body.proposal as Row).id,
    ]);
  });

  it('expires a proposal in the 10-minute Cron Trigger: the proposer told once, proposal.expired enqueued', async () => {
    const { org, token } = await proposer('expiry');
    const proposed = await callTool(token, 'addRisk', {
      organization_id: org,
      name: 'Worker expired theft',
      inherent_likelihood: 2,
      inherent_impact: 2,
    });
    const id = String((proposed.body.proposal as Row).id);
    const database = testDatabase();
    const endpointId = newId('whk');
    const now = new Date().toISOString();
    await database.db.insert(webhookEndpoints).values({
      id: endpointId,
      organization_id: org,
      url: 'https://hooks.example.com/proposals',
      description: null,
      events: ['proposal.*'],
      secret: newWebhookSecret(),
      enabled: true,
      created_at: now,
      updated_at: now,
    });
    // Its expiry passed (the shortest setting is a day).
    await database.db
      .update(proposals)
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where(eq(proposals.id, id));
    const cron = () =>
      runScheduled(
        env as Env,
        createScheduledController({ cron: '*/10 * * * *', scheduledTime: Date.now() + SETTLE_MS + 1000 }),
      );
    await cron();
    await cron();
    const notes = await database.db.select().from(notifications).where(eq(notifications.record_id, id));
    expect(notes.map((note) => [note.kind, note.channel, note.title])).toEqual([
      ['proposal_expired', 'in_app', 'Your proposed addRisk expired'],
    ]);
    const messages = await database.db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, endpointId));
    expect(messages.map((message) => message.event_type)).toEqual(['proposal.expired']);
    expect(JSON.parse(messages[0]?.payload ?? '{}').data).toMatchObject({
      proposal_id: id,
      status: 'EXPIRED',
    });
    expect((await callTool(token, 'getProposal', { id })).body.proposal).toMatchObject({ status: 'EXPIRED' });
  });
});
