// Proposed writes: a propose token (or the approval_required setting, or proposeWrite) stores a change set; a
// person's approval applies it through the seam with the same checks and history, or it conflicts, is rejected,
// expires.
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { notifications, proposals, webhookMessages } from '../../src/db/schema.ts';
import { NO_FILES } from '../../src/files/runtime.ts';
import { runNotifications } from '../../src/notify/engine.ts';
import { approveProposal, loadProposal, rejectProposal } from '../../src/proposals/decide.ts';
import { createRateLimiter } from '../../src/rate-limit.ts';
import type { InvokeDeps } from '../../src/surfaces/invoke.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import {
  type Actor,
  addMember,
  BASE,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock: Date;
let alice: Actor;
let org: string;
let otherOrg: string;
let proposer: string;
let writer: string;
let reader: string;
let bobToken: string;

async function tokenOf(actor: Actor, scope: 'read' | 'propose' | 'read_write') {
  return (
    await runtime.tokens.create({
      userId: actor.userId,
      name: `${scope} token`,
      scope,
      organizationIds: null,
      expiresAt: null,
    })
  ).token;
}

beforeEach(async () => {
  clock = new Date('2026-11-02T09:00:00.000Z');
  runtime = await createTestRuntime({ now: () => clock, env: { RATE_LIMIT_PER_MINUTE: '0' } });
  alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Acme');
  otherOrg = await createOrg(runtime, bob, 'Other');
  proposer = await tokenOf(alice, 'propose');
  writer = await tokenOf(alice, 'read_write');
  reader = await tokenOf(alice, 'read');
  bobToken = await tokenOf(bob, 'read_write');
});

afterEach(async () => {
  await runtime.cleanup();
});

/** The invocation deps of the web, on the test's clock. */
function deps(): InvokeDeps {
  return {
    db: runtime.database.db,
    usage: runtime.usage,
    now: () => clock,
    rateLimiter: createRateLimiter(0),
    files: NO_FILES,
    logError: () => {},
  };
}

/** A person signed in to the web, with their roles. */
function person(actor: Actor, roles: Principal['roles']): Principal {
  return {
    tokenId: `web:${actor.userId}`,
    userId: actor.userId,
    scope: 'read_write',
    roles,
    expiresAt: null,
  };
}

const addRisk = { name: 'Phishing', inherent_likelihood: 4, inherent_impact: 3 };

async function propose(tool: string, args: Row, token = proposer) {
  const answer = await ok<{ proposed: boolean; message: string; proposal: Row }>(runtime, token, tool, args);
  expect(answer.proposed).toBe(true);
  return answer.proposal;
}

async function approve(id: string, actor = alice) {
  const row = await loadProposal(runtime.database.db, org, id);
  return approveProposal(deps(), person(actor, { [org]: 'OWNER' }), row, 'req_test');
}

/** A webhook endpoint of the organization that takes every proposal.* event. */
function proposalHook() {
  return createEndpoint(
    runtime.database.db,
    clock,
    org,
    { url: 'http://127.0.0.1:9/hook', description: null, events: ['proposal.*'] },
    { kinds: REGISTER_SPECS.map((spec) => spec.kind), allowLocal: true, secrets: runtime.secrets },
  );
}

async function risksOf(token = writer) {
  return (await ok<{ risks: Row[] }>(runtime, token, 'listRisks', { organization_id: org })).risks;
}

describe('proposed writes', () => {
  it('stores a proposed add without writing, with the full new record and the page to decide', async () => {
    const proposal = await propose('addRisk', { organization_id: org, ...addRisk });
    expect(proposal).toMatchObject({
      status: 'PENDING',
      tool: 'addRisk',
      kind: 'risk',
      action: 'add',
      record_id: null,
      before: null,
      reason: 'scope',
      expires_at: '2026-11-09T09:00:00.000Z',
      decide_url: `/orgs/${org}/proposals/${proposal.id}`,
    });
    expect(proposal.after).toMatchObject({ name: 'Phishing', inherent_score: 12, status: 'OPEN' });
    expect(await risksOf()).toEqual([]);
  });

  it('applies an approved add through the tool, the history naming the proposer token and the approver', async () => {
    const proposal = await propose('addRisk', { organization_id: org, ...addRisk });
    const decision = await approve(String(proposal.id));
    expect(decision.status).toBe('APPLIED');
    const [risk] = await risksOf();
    expect(risk).toMatchObject({ name: 'Phishing', inherent_score: 12 });
    const { changes } = await ok<{ changes: Row[] }>(runtime, writer, 'listChanges', {
      organization_id: org,
      filter: { record_id: risk?.id },
    });
    const tokenId = (await ok<{ proposal: Row }>(runtime, proposer, 'getProposal', { id: proposal.id }))
      .proposal.proposed_by_token_id;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      action: 'add',
      surface: 'web',
      user_id: alice.userId,
      token_id: null,
      proposal_id: proposal.id,
      proposed_by_token_id: tokenId,
    });
    const read = await ok<{ proposal: Row }>(runtime, proposer, 'getProposal', { id: proposal.id });
    expect(read.proposal).toMatchObject({
      status: 'APPLIED',
      record_id: risk?.id,
      decided_by_user_id: alice.userId,
    });
  });

  it('proposes an update as the exact diff, and refuses to apply it once the record changed (CONFLICT)', async () => {
    const { risk } = await ok<{ risk: Row }>(runtime, writer, 'addRisk', {
      organization_id: org,
      ...addRisk,
    });
    const proposal = await propose('updateRisk', { id: risk.id, inherent_impact: 5 });
    expect(proposal.before).toEqual({ inherent_impact: 3, inherent_score: 12, inherent_level: 'medium' });
    expect(proposal.after).toEqual({ inherent_impact: 5, inherent_score: 20, inherent_level: 'high' });
    expect(proposal.base_updated_at).toBe(risk.updated_at);
    clock = new Date('2026-11-02T10:00:00.000Z');
    await ok(runtime, writer, 'updateRisk', { id: risk.id, name: 'Spear phishing' });
    const decision = await approve(String(proposal.id));
    expect(decision).toMatchObject({ status: 'CONFLICT' });
    expect(decision.status === 'CONFLICT' && decision.reason).toContain('changed since it was proposed');
    const [now] = await risksOf();
    expect(now).toMatchObject({ name: 'Spear phishing', inherent_impact: 3 });
    const read = await ok<{ proposal: Row }>(runtime, proposer, 'getProposal', { id: proposal.id });
    expect(read.proposal.status).toBe('CONFLICT');
  });

  it('applies an approved update and an approved delete', async () => {
    const { risk } = await ok<{ risk: Row }>(runtime, writer, 'addRisk', {
      organization_id: org,
      ...addRisk,
    });
    const update = await propose('updateRisk', { id: risk.id, name: 'Vishing' });
    expect((await approve(String(update.id))).status).toBe('APPLIED');
    expect((await risksOf())[0]).toMatchObject({ name: 'Vishing' });
    const removal = await propose('deleteRisk', { id: risk.id });
    expect(removal).toMatchObject({
      action: 'delete',
      before: expect.objectContaining({ name: 'Vishing' }),
      after: null,
    });
    expect(await risksOf()).toHaveLength(1);
    expect((await approve(String(removal.id))).status).toBe('APPLIED');
    expect(await risksOf()).toEqual([]);
  });

  it('refuses a delete whose record changes between the conflict check and the write', async () => {
    const { risk } = await ok<{ risk: Row }>(runtime, writer, 'addRisk', {
      organization_id: org,
      ...addRisk,
    });
    const removal = await propose('deleteRisk', { id: risk.id });
    const db = runtime.database.db;
    // Another write lands right before the delete's batch, after every check that reads the record.
    let meanwhile: (() => Promise<unknown>) | undefined = () =>
      ok(runtime, writer, 'updateRisk', { id: risk.id, note: 'Still needed' });
    const racing = new Proxy(db, {
      get(target, property) {
        if (property === 'batch')
          return async (items: Parameters<typeof db.batch>[0]) => {
            const write = meanwhile;
            meanwhile = undefined;
            await write?.();
            return target.batch(items);
          };
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const row = await loadProposal(db, org, String(removal.id));
    const decision = await approveProposal(
      { ...deps(), db: racing },
      person(alice, { [org]: 'OWNER' }),
      row,
      'req_race',
    );
    expect(meanwhile).toBeUndefined();
    expect(decision).toMatchObject({
      status: 'CONFLICT',
      reason: expect.stringContaining(`The risk ${String(risk.id)} changed since it was proposed`),
    });
    expect((await risksOf()).map((item) => item.note)).toEqual(['Still needed']);
  });

  it('rejects with a comment: nothing written, the proposer notified and the webhook told', async () => {
    const hook = await proposalHook();
    const proposal = await propose('addRisk', { organization_id: org, ...addRisk });
    const row = await loadProposal(runtime.database.db, org, String(proposal.id));
    const alicePerson = person(alice, { [org]: 'OWNER' });
    await expect(rejectProposal(deps(), alicePerson, row, '  ')).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
    const decision = await rejectProposal(deps(), alicePerson, row, 'Duplicate of an existing risk');
    expect(decision).toEqual({ status: 'REJECTED', reason: 'Duplicate of an existing risk' });
    expect(await risksOf()).toEqual([]);
    const read = await ok<{ proposal: Row }>(runtime, proposer, 'getProposal', { id: proposal.id });
    expect(read.proposal).toMatchObject({
      status: 'REJECTED',
      decision_comment: 'Duplicate of an existing risk',
    });
    const notes = await runtime.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.record_id, String(proposal.id)));
    expect(notes.map((note) => [note.user_id, note.kind, note.title])).toEqual([
      [alice.userId, 'proposal_decided', 'Your proposed addRisk was rejected'],
    ]);
    const messages = await runtime.database.db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, hook.endpoint.id));
    expect(messages.map((message) => message.event_type)).toEqual(['proposal.rejected']);
    expect(JSON.parse(messages[0]?.payload ?? '{}').data).toMatchObject({
      proposal_id: proposal.id,
      status: 'REJECTED',
    });
    await expect(approve(String(proposal.id))).rejects.toMatchObject({ code: 'conflict' });
  });

  it('expires after the organization’s expiry days: listed EXPIRED, approval refused', async () => {
    await ok(runtime, writer, 'updateOrganizationSettings', {
      organization_id: org,
      proposal_expiry_days: 2,
    });
    const proposal = await propose('addRisk', { organization_id: org, ...addRisk });
    expect(proposal.expires_at).toBe('2026-11-04T09:00:00.000Z');
    clock = new Date('2026-11-04T09:00:01.000Z');
    const listed = await ok<{ proposals: Row[] }>(runtime, proposer, 'listProposals', {
      organization_id: org,
      filter: { status: ['EXPIRED'] },
    });
    expect(listed.proposals.map((item) => item.id)).toEqual([proposal.id]);
    await expect(approve(String(proposal.id))).rejects.toMatchObject({ code: 'conflict' });
    expect(await risksOf()).toEqual([]);
  });

  it('tells the proposer once when a proposal expires: a notification and proposal.expired, by the scheduled run', async () => {
    const hook = await proposalHook();
    const early = await propose('addRisk', { organization_id: org, ...addRisk });
    clock = new Date('2026-11-05T09:00:00.000Z');
    const later = await propose('addRisk', { organization_id: org, ...addRisk, name: 'Vishing' });
    clock = new Date('2026-11-09T09:00:00.000Z');
    const run = () => runNotifications({ db: runtime.database.db, now: clock, mailer: null });
    const first = await run();
    const second = await run();
    expect([first.notifications_created, second.notifications_created]).toEqual([1, 0]);
    const notes = await runtime.database.db
      .select()
      .from(notifications)
      .where(eq(notifications.kind, 'proposal_expired'));
    expect(notes.map((note) => [note.user_id, note.record_id, note.title])).toEqual([
      [alice.userId, early.id, 'Your proposed addRisk expired'],
    ]);
    const messages = await runtime.database.db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, hook.endpoint.id));
    expect(messages.map((message) => message.event_type)).toEqual(['proposal.expired']);
    expect(JSON.parse(messages[0]?.payload ?? '{}').data).toMatchObject({
      proposal_id: early.id,
      status: 'EXPIRED',
      tool: 'addRisk',
      expires_at: '2026-11-09T09:00:00.000Z',
    });
    const read = async (id: unknown) =>
      (await ok<{ proposal: Row }>(runtime, proposer, 'getProposal', { id })).proposal.status;
    expect([await read(early.id), await read(later.id)]).toEqual(['EXPIRED', 'PENDING']);
    const [stored] = await runtime.database.db
      .select({ status: proposals.status })
      .from(proposals)
      .where(eq(proposals.id, String(early.id)));
    expect(stored?.status).toBe('EXPIRED');
    await expect(approve(String(early.id))).rejects.toMatchObject({ code: 'conflict' });
  });

  it('keeps an idempotency key: the same key and arguments answer the same proposal, other arguments are refused', async () => {
    const { risk } = await ok<{ risk: Row }>(runtime, writer, 'addRisk', {
      organization_id: org,
      ...addRisk,
    });
    const keyed = async (token: string, tool: string, args: Row, key: string) => {
      const response = await runtime.app.request(`${BASE}/api/mcp/tools/${tool}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify(args),
      });
      return { status: response.status, body: (await response.json()) as Row };
    };
    const idOf = (answer: { body: Row }) => (answer.body.proposal as Row | undefined)?.id;
    const update = { id: risk.id, note: 'Seen in the wild' };
    const first = await keyed(proposer, 'updateRisk', update, 'retry-1');
    const again = await keyed(proposer, 'updateRisk', { note: 'Seen in the wild', id: risk.id }, 'retry-1');
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(idOf(again)).toBe(idOf(first));
    const other = await keyed(proposer, 'updateRisk', { ...update, note: 'Another note' }, 'retry-1');
    expect(other.status).toBe(409);
    expect((other.body.error as Row).message).toContain(
      'This Idempotency-Key was used with other arguments (updateRisk)',
    );
    // Still the same proposal once it was applied and the record changed.
    expect((await approve(String(idOf(first)))).status).toBe('APPLIED');
    const late = await keyed(proposer, 'updateRisk', update, 'retry-1');
    expect([late.status, idOf(late)]).toEqual([200, idOf(first)]);
    // A delete and proposeWrite keep their keys too; proposeWrite's key is not the direct write's.
    const removal = [
      await keyed(proposer, 'deleteRisk', { id: risk.id }, 'retry-2'),
      await keyed(proposer, 'deleteRisk', { id: risk.id }, 'retry-2'),
    ];
    expect(idOf(removal[1] ?? { body: {} })).toBe(idOf(removal[0] ?? { body: {} }));
    const asked = { name: 'deleteRisk', arguments: { id: risk.id } };
    const viaPropose = [
      await keyed(writer, 'proposeWrite', asked, 'retry-3'),
      await keyed(writer, 'proposeWrite', asked, 'retry-3'),
    ];
    expect(viaPropose.map((answer) => answer.status)).toEqual([200, 200]);
    expect(idOf(viaPropose[1] ?? { body: {} })).toBe(idOf(viaPropose[0] ?? { body: {} }));
    const direct = await keyed(writer, 'deleteRisk', { id: risk.id }, 'retry-3');
    expect(direct.status).toBe(409);
    expect(await risksOf()).toHaveLength(1);
    const stored = await runtime.database.db.select({ id: proposals.id }).from(proposals);
    expect(stored).toHaveLength(3);
  });

  it('keeps organizations apart: another organization’s member neither reads nor decides a proposal', async () => {
    const proposal = await propose('addRisk', { organization_id: org, ...addRisk });
    const foreign = await callDirect(runtime, bobToken, 'getProposal', { id: proposal.id });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('not_found');
    const listed = await ok<{ proposals: Row[] }>(runtime, bobToken, 'listProposals', {
      organization_id: otherOrg,
    });
    expect(listed.proposals).toEqual([]);
    await expect(loadProposal(runtime.database.db, otherOrg, String(proposal.id))).rejects.toMatchObject({
      code: 'not_found',
    });
    const row = await loadProposal(runtime.database.db, org, String(proposal.id));
    const bob = { userId: 'usr_bob', email: 'bob@example.com' };
    await expect(
      approveProposal(deps(), person(bob, { [otherOrg]: 'OWNER' }), row, 'req'),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    // Proposing into another organization is the same not_found as a write would be.
    const into = await callDirect(runtime, proposer, 'addRisk', { organization_id: otherOrg, ...addRisk });
    expect(errorOf(into).code).toBe('not_found');
  });

  it('refuses a read-only token, and a VIEWER, the right to propose', async () => {
    const refused = await callDirect(runtime, reader, 'addRisk', { organization_id: org, ...addRisk });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('insufficient_scope');
    const viaTool = await callDirect(runtime, reader, 'proposeWrite', {
      name: 'addRisk',
      arguments: { organization_id: org, ...addRisk },
    });
    expect(errorOf(viaTool).code).toBe('insufficient_scope');
    const vic = await createActor(runtime, 'vic');
    await addMember(runtime, org, vic, 'VIEWER');
    const viewerProposer = await tokenOf(vic, 'propose');
    const viewer = await callDirect(runtime, viewerProposer, 'addRisk', { organization_id: org, ...addRisk });
    expect(errorOf(viewer).code).toBe('insufficient_scope');
    const stored = await runtime.database.db.select().from(proposals);
    expect(stored).toEqual([]);
  });

  it('never lets a propose token write directly: writes become proposals, other writes are refused', async () => {
    await propose('addRisk', { organization_id: org, ...addRisk });
    expect(await risksOf()).toEqual([]);
    const settings = await callDirect(runtime, proposer, 'updateOrganizationSettings', {
      organization_id: org,
      approval_required: [],
    });
    expect(settings.status).toBe(403);
    expect(errorOf(settings).code).toBe('insufficient_scope');
    const mcp = await callDirect(runtime, proposer, 'callWriteTool', {
      name: 'addRisk',
      arguments: { organization_id: org, ...addRisk },
    });
    expect((mcp.body as { proposed: boolean }).proposed).toBe(true);
    expect(await risksOf()).toEqual([]);
  });

  it('holds a read_write token’s deletes when the organization requires approval, and a token cannot lift it', async () => {
    const { risk } = await ok<{ risk: Row }>(runtime, writer, 'addRisk', {
      organization_id: org,
      ...addRisk,
    });
    await ok(runtime, writer, 'updateOrganizationSettings', {
      organization_id: org,
      approval_required: ['deletes'],
    });
    const held = await ok<{ proposed: boolean; proposal: Row }>(runtime, writer, 'deleteRisk', {
      id: risk.id,
    });
    expect(held.proposed).toBe(true);
    expect(held.proposal).toMatchObject({ reason: 'setting', action: 'delete' });
    expect(await risksOf()).toHaveLength(1);
    // Updates are not held by DELETES.
    const updated = await ok<{ risk: Row }>(runtime, writer, 'updateRisk', { id: risk.id, name: 'Smishing' });
    expect(updated.risk.name).toBe('Smishing');
    const lift = await callDirect(runtime, writer, 'updateOrganizationSettings', {
      organization_id: org,
      approval_required: [],
    });
    expect(errorOf(lift).code).toBe('forbidden');
  });

  it('proposes on request with proposeWrite, and refuses a tool that cannot be proposed', async () => {
    const answer = await ok<{ proposed: boolean; proposal: Row }>(runtime, writer, 'proposeWrite', {
      name: 'addRisk',
      arguments: { organization_id: org, ...addRisk },
    });
    expect(answer.proposal).toMatchObject({ reason: 'request', tool: 'addRisk' });
    expect(await risksOf()).toEqual([]);
    const refused = await callDirect(runtime, writer, 'proposeWrite', {
      name: 'updateOrganizationSettings',
      arguments: { organization_id: org },
    });
    expect(errorOf(refused)).toMatchObject({ code: 'invalid_arguments', details: [{ path: 'name' }] });
  });
});
