// A person's decision on a proposal in the web: approve (applied through the invocation seam, as the same tool with
// the same validation and history) or reject with a comment; the proposer is told by notification and webhook.
import { and, eq, gt, inArray, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Principal, roleIn, WRITER_ROLES } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { notifications, proposals } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { type InvokeDeps, invokeTool } from '../surfaces/invoke.ts';
import { REGISTER_SPECS, TOOLS } from '../tools/index.ts';
import { enqueueEvent, type ProposalEventType } from '../webhooks/events.ts';
import { type ProposalRow, statusOf } from './store.ts';

export type Decision =
  | { status: 'APPLIED'; recordId: string | null }
  | { status: 'REJECTED' | 'CONFLICT'; reason: string };

/** The proposal of the organization, or the same not_found as any unknown id. */
export async function loadProposal(db: Db, organizationId: string, id: string): Promise<ProposalRow> {
  const [row] = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.id, id), eq(proposals.organization_id, organizationId)))
    .limit(1);
  if (!row) throw notFound('Proposal');
  return row;
}

function requireDecider(principal: Principal, row: ProposalRow, now: string): void {
  const role = roleIn(principal, row.organization_id);
  if (!role) throw notFound('Proposal');
  if (!WRITER_ROLES.has(role))
    throw new AppError(
      'forbidden',
      `Your role here is ${role}; deciding proposals needs OWNER, ADMIN or EDITOR.`,
    );
  const status = statusOf(row, now);
  if (status !== 'PENDING')
    throw new AppError('conflict', `This proposal is ${status}; only a PENDING one can be decided.`);
}

/**
 * Approves: claims the proposal (PENDING -> APPLYING, so two approvals cannot both apply it), checks the record is
 * still the version proposed against, then calls the proposed tool through the seam as the approver from the web;
 * the write's batch also marks the proposal APPLIED. A refused write leaves the proposal CONFLICT with the reason.
 */
export async function approveProposal(
  deps: InvokeDeps,
  principal: Principal,
  row: ProposalRow,
  requestId: string,
): Promise<Decision> {
  const now = deps.now().toISOString();
  requireDecider(principal, row, now);
  const tool = TOOLS.get(row.tool);
  if (!tool) throw new AppError('conflict', `The tool ${row.tool} no longer exists; reject this proposal.`);
  const claimed = await deps.db
    .update(proposals)
    .set({ status: 'APPLYING' })
    .where(and(eq(proposals.id, row.id), eq(proposals.status, 'PENDING'), gt(proposals.expires_at, now)))
    .returning({ id: proposals.id });
  if (claimed.length === 0) throw new AppError('conflict', 'This proposal was decided meanwhile.');
  const changed = await changedSince(deps.db, row);
  if (changed) return settle(deps, row, principal, { status: 'CONFLICT', reason: changed });
  const callId = newId('cal');
  const decided = {
    decided_at: now,
    decided_by_user_id: principal.userId,
    applied_call_id: callId,
  };
  const args =
    row.action === 'update' && row.base_updated_at
      ? { ...row.arguments, expected_updated_at: row.base_updated_at }
      : row.arguments;
  const outcome = await invokeTool(
    deps,
    tool,
    args,
    principal,
    'web',
    requestId,
    callId,
    undefined,
    undefined,
    {
      proposalId: row.id,
      baseUpdatedAt: row.base_updated_at,
      inBatch: (landed: SQL): BatchItem<'sqlite'>[] => [
        deps.db
          .update(proposals)
          .set({ status: 'APPLIED', ...decided })
          .where(and(eq(proposals.id, row.id), eq(proposals.status, 'APPLYING'), landed)),
      ],
    },
  );
  if (!outcome.ok) {
    if (outcome.error.code === 'rate_limited' || outcome.error.code === 'internal') {
      await deps.db
        .update(proposals)
        .set({ status: 'PENDING' })
        .where(and(eq(proposals.id, row.id), eq(proposals.status, 'APPLYING')));
      throw outcome.error;
    }
    return settle(deps, row, principal, { status: 'CONFLICT', reason: outcome.error.message });
  }
  const added = row.action === 'add' ? recordIdOf(outcome.result) : row.record_id;
  return settle(deps, row, principal, { status: 'APPLIED', recordId: added }, callId);
}

/** Rejects a PENDING proposal with the reviewer's comment. */
export async function rejectProposal(
  deps: Pick<InvokeDeps, 'db' | 'now'>,
  principal: Principal,
  row: ProposalRow,
  comment: string,
): Promise<Decision> {
  const now = deps.now().toISOString();
  requireDecider(principal, row, now);
  const reason = comment.trim();
  if (reason.length === 0 || reason.length > 2000)
    throw new AppError('invalid_arguments', 'Say why the proposal is rejected (1 to 2000 characters).', [
      { path: 'comment', message: 'Required, at most 2000 characters' },
    ]);
  const claimed = await deps.db
    .update(proposals)
    .set({ status: 'APPLYING' })
    .where(and(eq(proposals.id, row.id), eq(proposals.status, 'PENDING'), gt(proposals.expires_at, now)))
    .returning({ id: proposals.id });
  if (claimed.length === 0) throw new AppError('conflict', 'This proposal was decided meanwhile.');
  return settle(deps, row, principal, { status: 'REJECTED', reason });
}

/** Why the proposal can no longer apply (its record changed or went since), or null. */
async function changedSince(db: Db, row: ProposalRow): Promise<string | null> {
  if (row.action === 'add' || !row.record_id) return null;
  const spec = REGISTER_SPECS.find((candidate) => candidate.kind === row.kind);
  if (!spec) return `The register of ${row.kind} no longer exists.`;
  const [current] = await db
    .select({ updated_at: spec.table.updated_at })
    .from(spec.table)
    .where(and(eq(spec.table.id, row.record_id), eq(spec.table.organization_id, row.organization_id)))
    .limit(1);
  if (!current) return `The ${spec.label} ${row.record_id} was deleted since it was proposed.`;
  if (current.updated_at !== row.base_updated_at)
    return `The ${spec.label} ${row.record_id} changed since it was proposed (version of ${row.base_updated_at}, now ${current.updated_at}): propose again from its current state.`;
  return null;
}

function recordIdOf(result: Record<string, unknown>): string | null {
  for (const value of Object.values(result)) {
    if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string')
      return (value as { id: string }).id;
  }
  return null;
}

const EVENT_OF: Record<Decision['status'], ProposalEventType> = {
  APPLIED: 'proposal.applied',
  REJECTED: 'proposal.rejected',
  CONFLICT: 'proposal.conflict',
};

/**
 * Records the decision on the claimed proposal, and in the same batch the proposer's notification and the
 * organization's webhook event.
 */
async function settle(
  deps: Pick<InvokeDeps, 'db' | 'now' | 'afterWrite'>,
  row: ProposalRow,
  principal: Principal,
  decision: Decision,
  callId?: string,
): Promise<Decision> {
  const at = deps.now().toISOString();
  const comment = decision.status === 'APPLIED' ? null : decision.reason;
  const recordId = decision.status === 'APPLIED' ? decision.recordId : row.record_id;
  const words = { APPLIED: 'approved and applied', REJECTED: 'rejected', CONFLICT: 'not applied' }[
    decision.status
  ];
  const body =
    decision.status === 'APPLIED'
      ? `${row.tool} on ${recordId ?? row.kind} was approved and written.`
      : decision.status === 'REJECTED'
        ? `Comment: ${decision.reason}`
        : `Reason: ${decision.reason}`;
  await deps.db.batch([
    deps.db
      .update(proposals)
      .set({
        status: decision.status,
        decided_at: at,
        decided_by_user_id: principal.userId,
        decision_comment: comment,
        record_id: recordId,
        ...(callId ? { applied_call_id: callId } : {}),
      })
      .where(and(eq(proposals.id, row.id), inArray(proposals.status, ['APPLYING', 'APPLIED']))),
    deps.db
      .insert(notifications)
      .values({
        id: newId('ntf'),
        event_key: `proposal:${row.id}`,
        user_id: row.proposed_by_user_id,
        channel: 'in_app',
        organization_id: row.organization_id,
        kind: 'proposal_decided',
        record_kind: 'proposal',
        record_id: row.id,
        title: `Your proposed ${row.tool} was ${words}`,
        body,
        status: 'delivered',
        created_at: at,
      })
      .onConflictDoNothing(),
    enqueueEvent(deps.db, {
      organizationId: row.organization_id,
      type: EVENT_OF[decision.status],
      data: {
        proposal_id: row.id,
        status: decision.status,
        tool: row.tool,
        kind: row.kind,
        action: row.action,
        record_id: recordId,
        proposed_by_token_id: row.proposed_by_token_id,
        decided_by_user_id: principal.userId,
        comment,
      },
      at,
    }),
  ]);
  deps.afterWrite?.();
  return decision;
}
