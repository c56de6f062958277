// Proposed writes in the web: a propose token made on the token page, its proposal listed with the diff, approved
// (the history naming proposer and approver) or rejected with a comment; the transcript of one approved proposal.
import { describe, expect, it } from 'vitest';
import { callDirect, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { Transcript } from '../transcript.ts';
import { signedUpRuntime, textOf, type WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

/** A token of scope propose, made with the "Generate New Token" form. */
async function proposeToken(client: WebClient): Promise<string> {
  const page = await client.submit('/settings/tokens/new', '/settings/tokens', {
    name: 'assistant',
    scope: 'propose',
    organization_mode: 'all',
    expires_in_days: '30',
  });
  const token = /cmcp_[A-Za-z0-9_-]{43}/.exec(page.html)?.[0];
  if (!token) throw new Error('No token shown');
  return token;
}

describe('proposals in the web', () => {
  it('lists a proposed write with its diff, approves it, and writes the transcript', async () => {
    const { runtime, client, organizationId, token } = await signedUpRuntime(runtimes);
    const transcript = new Transcript('A proposed write approved in the web');
    const assistant = await proposeToken(client);
    const tokens = await client.get('/settings/tokens');
    expect(textOf(tokens.html)).toContain('propose (approved in the web)');

    const { risk } = await ok<{ risk: Row }>(runtime, token, 'addRisk', {
      organization_id: organizationId,
      name: 'Laptop theft',
      inherent_likelihood: 2,
      inherent_impact: 3,
    });
    const request = {
      tool: 'updateRisk',
      arguments: { id: risk.id, inherent_likelihood: 4, note: 'More travel' },
    };
    const proposed = await ok<{ proposed: boolean; message: string; proposal: Row }>(
      runtime,
      assistant,
      request.tool,
      request.arguments,
    );
    transcript.call('The assistant calls updateRisk with a token of scope propose', request, proposed);
    expect(proposed.proposed).toBe(true);
    const id = String(proposed.proposal.id);
    expect(proposed.message).toContain(`/orgs/${organizationId}/proposals/${id}`);

    const list = await client.get(`/orgs/${organizationId}/proposals`);
    expect(list.status).toBe(200);
    const listed = textOf(list.html);
    expect(listed).toContain('updateRisk');
    expect(listed).toMatch(/inherent_likelihood\s+2\s+4/);
    expect(listed).toMatch(/note\s+—\s+More travel/);
    transcript.page('The Proposals page shows it to a person', listed);

    const approved = await client.follow(
      await client.submit(
        `/orgs/${organizationId}/proposals/${id}`,
        `/orgs/${organizationId}/proposals/${id}/approve`,
        {},
      ),
    );
    expect(approved.status).toBe(200);
    expect(textOf(approved.html)).toContain('Approved: the change is written');
    transcript.page(
      `The person presses “Approve and apply” (POST /orgs/${organizationId}/proposals/${id}/approve)`,
      textOf(approved.html),
      800,
    );

    const read = await ok<{ risk: Row }>(runtime, assistant, 'getRisk', { id: risk.id });
    expect(read.risk).toMatchObject({ inherent_likelihood: 4, note: 'More travel', inherent_score: 12 });
    const outcome = await ok<{ proposal: Row }>(runtime, assistant, 'getProposal', { id });
    transcript.call(
      'The assistant reads the outcome with getProposal',
      { tool: 'getProposal', arguments: { id } },
      outcome,
    );
    expect(outcome.proposal).toMatchObject({ status: 'APPLIED', record_id: risk.id });
    const history = await ok<{ changes: Row[] }>(runtime, assistant, 'listChanges', {
      organization_id: organizationId,
      filter: { record_id: risk.id },
    });
    transcript.call(
      'The history names the proposal, the proposing token and the approver',
      { tool: 'listChanges', arguments: { organization_id: organizationId, filter: { record_id: risk.id } } },
      history.changes[0],
    );
    expect(history.changes[0]).toMatchObject({
      action: 'update',
      surface: 'web',
      proposal_id: id,
      proposed_by_token_id: outcome.proposal.proposed_by_token_id,
      user_id: outcome.proposal.decided_by_user_id,
    });
    const historyPage = textOf((await client.get(`/orgs/${organizationId}/history`)).html);
    expect(historyPage).toContain(
      `approved proposal ${id}, proposed with token ${String(outcome.proposal.proposed_by_token_id)}`,
    );
    // The history export names the proposal and the proposing token on each line of the applied change.
    const csv = (await client.get(`/orgs/${organizationId}/history/export.csv?record_id=${String(risk.id)}`))
      .html;
    const lines = csv.split('\r\n').filter((line) => line.includes(',update,'));
    expect(lines.length).toBeGreaterThan(0);
    expect(
      lines.every((line) => line.endsWith(`,${id},${String(outcome.proposal.proposed_by_token_id)}`)),
    ).toBe(true);

    const again = await client.submit(
      `/orgs/${organizationId}/proposals?status=ALL`,
      `/orgs/${organizationId}/proposals/${id}/approve`,
      {},
    );
    expect(again.status).toBe(409);
    transcript.write('test-results/proposed-write-transcript.md');
  });

  it('rejects with a comment the proposer reads; another organization’s page is not found', async () => {
    const { runtime, client, organizationId } = await signedUpRuntime(runtimes);
    const assistant = await proposeToken(client);
    const proposed = await ok<{ proposal: Row }>(runtime, assistant, 'addVendor', {
      organization_id: organizationId,
      name: 'Shadow IT tool',
    });
    const id = String(proposed.proposal.id);
    const empty = await client.submit(
      `/orgs/${organizationId}/proposals/${id}`,
      `/orgs/${organizationId}/proposals/${id}/reject`,
      { comment: ' ' },
    );
    expect(empty.status).toBe(400);
    const rejected = await client.follow(
      await client.submit(
        `/orgs/${organizationId}/proposals/${id}`,
        `/orgs/${organizationId}/proposals/${id}/reject`,
        {
          comment: 'Not approved by IT',
        },
      ),
    );
    expect(textOf(rejected.html)).toContain('Rejected: the proposer is told');
    const outcome = await ok<{ proposal: Row }>(runtime, assistant, 'getProposal', { id });
    expect(outcome.proposal).toMatchObject({ status: 'REJECTED', decision_comment: 'Not approved by IT' });
    const vendors = await ok<{ vendors: Row[] }>(runtime, assistant, 'listVendors', {
      organization_id: organizationId,
    });
    expect(vendors.vendors).toEqual([]);
    const inbox = textOf((await client.get('/notifications')).html);
    expect(inbox).toContain('Your proposed addVendor was rejected');
    // A direct write with the propose token never lands.
    const direct = await callDirect(runtime, assistant, 'updateOrganizationSettings', {
      organization_id: organizationId,
      time_zone: 'UTC',
    });
    expect(direct.status).toBe(403);
    const stranger = await client.get(`/orgs/org_00000000000000000000000000/proposals/${id}`);
    expect(stranger.status).toBe(404);
  });
});
