// Proposed writes on the Worker: a propose token (its scope kept through the KV token cache) proposes, a person
// approves in the web, and the write lands through the same seam with the proposal in its history.
import { describe, expect, it } from 'vitest';
import { callTool, signUpOnWorker, workerBrowser } from './helpers.ts';

type Row = Record<string, unknown>;

const PASSWORD = 'correct horse battery staple';

describe('proposed writes on the Worker', () => {
  it('stores a proposal from a propose token, and applies it once approved in the web', async () => {
    const browser = workerBrowser();
    const email = `proposals-${crypto.randomUUID()}@example.com`;
    expect((await signUpOnWorker(browser, email, PASSWORD, 'Worker Proposals Org')).status).toBe(303);
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
});
