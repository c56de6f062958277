// Proposed writes: when a write is held back as a proposal, storing its change set, and reading proposals back.
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { apiTokens, oauthGrants, organizations, proposals } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ApprovalAction } from '../tools/settings.ts';
import { readSettings } from '../tools/settings.ts';
import { CHANGED_A_ROW, type ProposalDraft, type Tool, type ToolContext } from '../tools/types.ts';

/** A proposal's status as read: PENDING past its expiry reads EXPIRED (the scan then stores it); APPLYING, PENDING. */
export const PROPOSAL_STATUSES = ['PENDING', 'APPLIED', 'REJECTED', 'EXPIRED', 'CONFLICT'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export type ProposalRow = typeof proposals.$inferSelect;

/** The web page where a person approves or rejects a proposal (a path; absolute with the public URL). */
export function proposalPath(organizationId: string, proposalId: string): string {
  return `/orgs/${organizationId}/proposals/${proposalId}`;
}

/** SQL: the status as read at `now` (a PENDING proposal past expires_at is EXPIRED). */
export function statusAt(now: string): SQL<string> {
  return sql<string>`case when ${proposals.status} in ('PENDING', 'APPLYING') and ${proposals.expires_at} <= ${now} then 'EXPIRED' when ${proposals.status} = 'APPLYING' then 'PENDING' else ${proposals.status} end`;
}

/** The status of a row as read at `now`. */
export function statusOf(row: Pick<ProposalRow, 'status' | 'expires_at'>, now: string): ProposalStatus {
  if ((row.status === 'PENDING' || row.status === 'APPLYING') && row.expires_at <= now) return 'EXPIRED';
  return row.status === 'APPLYING' ? 'PENDING' : row.status;
}

/** Whether the organization's approval_required setting holds back this write from a token. */
export function requiresApproval(required: readonly ApprovalAction[], draft: ProposalDraft): boolean {
  return required.some(
    (action) =>
      action === 'ALL_WRITES' ||
      (action === 'DELETES' && draft.action === 'delete') ||
      (action === 'RISK_ACCEPTANCES' &&
        (draft.kind === 'risk_acceptance' || (draft.kind === 'risk' && draft.after?.status === 'ACCEPTED'))),
  );
}

type Held = { draft: ProposalDraft; reason: 'scope' | 'setting' | 'request' };

/**
 * The change set a write becomes instead of running, and why; null when it runs. A `propose` token's writes always
 * become one; a read_write token's (API and MCP, not the web) when an organization it reaches has approval_required
 * set and the setting covers this write. A write being applied from a proposal runs.
 */
export async function heldBack(
  ctx: ToolContext,
  tool: Tool,
  input: unknown,
  asked = false,
): Promise<Held | null> {
  if (asked) {
    if (!tool.propose)
      throw new AppError(
        'invalid_arguments',
        `${tool.name} cannot be proposed: only register adds, updates and deletes can.`,
        [{ path: 'name', message: 'Not a proposable write' }],
      );
    return { draft: await tool.propose(ctx, input), reason: 'request' };
  }
  if (tool.scope !== 'write' || !tool.propose || ctx.proposalId) return null;
  if (ctx.principal.scope === 'propose') return { draft: await tool.propose(ctx, input), reason: 'scope' };
  if (ctx.surface === 'web' || ctx.surface === 'cli') return null;
  const reached = Object.keys(ctx.principal.roles);
  if (reached.length === 0) return null;
  // One cheap read in the common case: none of the token's organizations holds writes back.
  const [holding] = await ctx.db
    .select({ id: organizations.id })
    .from(organizations)
    .where(
      and(
        inArray(organizations.id, reached),
        sql`json_array_length(coalesce(json_extract(${organizations.settings}, '$.approval_required'), '[]')) > 0`,
      ),
    )
    .limit(1);
  if (!holding) return null;
  const draft = await tool.propose(ctx, input);
  const settings = await readSettings(ctx.db, draft.organizationId);
  return requiresApproval(settings.approval_required, draft) ? { draft, reason: 'setting' } : null;
}

/**
 * Stores the change set as a PENDING proposal (with the call's log row in the same batch) and answers what the
 * assistant tells the user: proposed, not written, and where a person decides.
 */
export async function storeProposal(
  ctx: ToolContext,
  tool: Tool,
  input: unknown,
  held: Held,
): Promise<Record<string, unknown>> {
  const { draft, reason } = held;
  const settings = await readSettings(ctx.db, draft.organizationId);
  const [client] = await ctx.db
    .select({ name: oauthGrants.client_name })
    .from(apiTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, apiTokens.grant_id))
    .where(eq(apiTokens.id, ctx.principal.tokenId))
    .limit(1);
  const now = ctx.now();
  const row: ProposalRow = {
    id: newId('prp'),
    organization_id: draft.organizationId,
    tool: tool.name,
    arguments: input as Record<string, unknown>,
    kind: draft.kind,
    action: draft.action,
    record_id: draft.recordId,
    base_updated_at: draft.baseUpdatedAt,
    before: draft.before,
    after: draft.after,
    reason,
    proposed_by_user_id: ctx.principal.userId,
    proposed_by_token_id: ctx.principal.tokenId,
    proposed_by_client: client?.name ?? null,
    proposed_via: ctx.surface,
    proposed_call_id: ctx.callId,
    status: 'PENDING',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + settings.proposal_expiry_days * 86_400_000).toISOString(),
    decided_at: null,
    decided_by_user_id: null,
    decision_comment: null,
    applied_call_id: null,
  };
  await ctx.db.batch([ctx.db.insert(proposals).values(row), ...ctx.writeExtras(CHANGED_A_ROW)]);
  return proposalAnswer(row, ctx.publicUrl);
}

/** What a proposed write answers: proposed, not written, and where a person decides. */
function proposalAnswer(row: ProposalRow, publicUrl: string | undefined): Record<string, unknown> {
  const path = proposalPath(row.organization_id, row.id);
  const why = {
    scope: 'This token may only propose changes.',
    setting: "The organization's setting approval_required holds this change for a person's approval.",
    request: 'Proposed as asked.',
  }[row.reason];
  return {
    proposed: true,
    message: `${why} Nothing was written yet: proposal ${row.id} waits for a person to approve or reject it at ${publicUrl ?? ''}${path} until ${row.expires_at}. Tell the user; read the outcome later with getProposal.`,
    proposal: presentProposal(row, row.created_at, publicUrl),
  };
}

/**
 * The answer of the call that stored a proposal, read again (an idempotent retry after the host stopped between the
 * commit and storing the answer); undefined when that call proposed nothing.
 */
export async function proposalAnswerOf(
  ctx: ToolContext,
  callId: string,
): Promise<Record<string, unknown> | undefined> {
  const [row] = await ctx.db.select().from(proposals).where(eq(proposals.proposed_call_id, callId)).limit(1);
  return row ? proposalAnswer(row, ctx.publicUrl) : undefined;
}

/** A proposal as the tools answer it. */
export function presentProposal(row: ProposalRow, now: string, publicUrl: string | undefined) {
  return {
    id: row.id,
    organization_id: row.organization_id,
    status: statusOf(row, now),
    tool: row.tool,
    arguments: row.arguments,
    kind: row.kind,
    action: row.action,
    record_id: row.record_id,
    base_updated_at: row.base_updated_at,
    before: row.before,
    after: row.after,
    reason: row.reason,
    proposed_by_user_id: row.proposed_by_user_id,
    proposed_by_token_id: row.proposed_by_token_id,
    proposed_by_client: row.proposed_by_client,
    created_at: row.created_at,
    expires_at: row.expires_at,
    decided_at: row.decided_at,
    decided_by_user_id: row.decided_by_user_id,
    decision_comment: row.decision_comment,
    decide_url: `${publicUrl ?? ''}${proposalPath(row.organization_id, row.id)}`,
  };
}
