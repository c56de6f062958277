// listProposals and getProposal: what became of the writes an assistant proposed (src/proposals/).

import { and, count, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { proposals } from '../db/schema.ts';
import { AppError, notFound } from '../errors.ts';
import { PROPOSAL_STATUSES, presentProposal, statusAt } from '../proposals/store.ts';
import { requireOrganization } from './access.ts';
import { argumentsOf, toolArgumentsSchema } from './discovery.ts';
import { caseInsensitiveEnum, cursorSchema, idOf, PAGE_SIZE, sizeSchema } from './fields.ts';
import { registerIdKind } from './id-kinds.ts';
import { decodeCursor, encodeCursor } from './pagination.ts';
import { defineTool, READ_ANNOTATIONS, type Tool } from './types.ts';

const LIST_PROPOSALS = 'listProposals';
const GET_PROPOSAL = 'getProposal';
const TOOLSET = 'proposals';

const values = z.record(z.string(), z.unknown()).nullable();

const proposalSchema = z
  .object({
    id: z.string().describe('Proposal id (`prp_...`).'),
    organization_id: z.string().describe('Organization (`org_...`).'),
    status: z
      .enum(PROPOSAL_STATUSES)
      .describe(
        'PENDING (waits for a person), APPLIED (approved and written), REJECTED (see decision_comment), EXPIRED (not decided in time), CONFLICT (the record changed since: propose again).',
      ),
    tool: z.string().describe('The write tool proposed, e.g. updateRisk.'),
    arguments: z.record(z.string(), z.unknown()).describe('Its arguments as validated.'),
    kind: z.string().describe('Register kind, e.g. risk.'),
    action: z.enum(['add', 'update', 'delete']).describe('add, update or delete.'),
    record_id: z.string().nullable().describe('The record changed, deleted or (once applied) added.'),
    base_updated_at: z
      .string()
      .nullable()
      .describe("The record's updated_at the change was proposed against."),
    before: values.describe('Changed fields now (update) or the record (delete); null for an add.'),
    after: values.describe(
      'Changed fields proposed (update) or the full new record (add); null for a delete.',
    ),
    reason: z
      .enum(['scope', 'setting', 'request'])
      .describe('scope: a propose token; setting: approval_required; request: proposeWrite.'),
    proposed_by_user_id: z.string().describe('Account of the token holder.'),
    proposed_by_token_id: z.string().describe('Token that proposed (`tok_...`).'),
    proposed_by_client: z.string().nullable().describe('OAuth client name, if any.'),
    created_at: z.string().describe('When proposed.'),
    expires_at: z.string().describe('Expires unless decided by then.'),
    decided_at: z.string().nullable().describe('When decided.'),
    decided_by_user_id: z.string().nullable().describe('Who approved or rejected it.'),
    decision_comment: z.string().nullable().describe('Rejection comment, or why it conflicted.'),
    decide_url: z.string().describe('Web page where a person decides.'),
  })
  .describe('A proposed write.');

registerIdKind('prp', {
  label: 'proposal',
  plural: 'proposals',
  read: GET_PROPOSAL,
  list: LIST_PROPOSALS,
});

export const listProposalsTool: Tool = defineTool({
  name: LIST_PROPOSALS,
  title: 'List proposed writes',
  description:
    "List the changes proposed (propose token, approval_required setting, proposeWrite) and which were approved and applied, rejected, expired or conflicted: PENDING, APPLIED, REJECTED, EXPIRED, CONFLICT. Newest first; filter.mine: this token's only.",
  scope: 'read',
  toolset: TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({
    organization_id: idOf('org', 'Organization').describe('`org_...` id.'),
    filter: z
      .strictObject({
        status: z
          .array(caseInsensitiveEnum(PROPOSAL_STATUSES))
          .min(1)
          .max(PROPOSAL_STATUSES.length)
          .optional()
          .describe(`Any of: ${PROPOSAL_STATUSES.join(', ')}; default all.`),
        mine: z.boolean().optional().describe('true: only those this token proposed.'),
      })
      .optional()
      .describe('All given must match.'),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  }),
  output: z.object({
    proposals: z.array(proposalSchema).describe('This page, newest first.'),
    next_cursor: z.string().nullable().describe('Cursor of the next page; null on the last.'),
    total_count: z.number().int().describe('Matches on all pages.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const now = ctx.now().toISOString();
    const size = input.size ?? PAGE_SIZE.default;
    const cursor = input.cursor ? decodeCursor(input.cursor, LIST_PROPOSALS, 'created_at', 'DESC') : null;
    const conditions: (SQL | undefined)[] = [
      eq(proposals.organization_id, input.organization_id),
      input.filter?.status
        ? or(...input.filter.status.map((status) => eq(statusAt(now), status)))
        : undefined,
      input.filter?.mine ? eq(proposals.proposed_by_token_id, ctx.principal.tokenId) : undefined,
    ];
    const where = and(...conditions);
    const before = cursor
      ? or(
          lt(proposals.created_at, String(cursor.v)),
          and(eq(proposals.created_at, String(cursor.v)), lt(proposals.id, cursor.i)),
        )
      : undefined;
    const [rows, totals] = await ctx.db.batch([
      ctx.db
        .select()
        .from(proposals)
        .where(and(where, before))
        .orderBy(desc(proposals.created_at), desc(proposals.id))
        .limit(size + 1),
      ctx.db.select({ total: count() }).from(proposals).where(where),
    ]);
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return {
      proposals: page.map((row) => presentProposal(row, now, ctx.publicUrl)),
      next_cursor:
        rows.length > size && last
          ? encodeCursor({ l: LIST_PROPOSALS, f: 'created_at', d: 'DESC', v: last.created_at, i: last.id })
          : null,
      total_count: totals[0]?.total ?? 0,
    };
  },
});

export const getProposalTool: Tool = defineTool({
  name: GET_PROPOSAL,
  title: 'Get a proposed write',
  description:
    'One proposed write by id (`prp_...`): its status (PENDING, APPLIED, REJECTED, EXPIRED, CONFLICT), the change set, who proposed and who decided, the comment, and the page where a person decides.',
  scope: 'read',
  toolset: TOOLSET,
  annotations: READ_ANNOTATIONS,
  input: z.strictObject({ id: idOf('prp', 'Proposal').describe('`prp_...` id.') }),
  output: z.object({ proposal: proposalSchema }),
  async run(ctx, input) {
    const [row] = await ctx.db.select().from(proposals).where(eq(proposals.id, input.id)).limit(1);
    if (!row) throw notFound('Proposal');
    requireOrganization(ctx, row.organization_id, 'read', 'Proposal');
    return { proposal: presentProposal(row, ctx.now().toISOString(), ctx.publicUrl) };
  },
});

const proposeInput = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .describe('The write tool to propose: an add, update or delete of a register record, e.g. updateRisk.'),
  arguments: toolArgumentsSchema.describe(
    "That tool's arguments, as it takes them: an object (or its JSON text).",
  ),
});

/**
 * proposeWrite: a write stored as a proposal a person approves, asked for by the caller (a read_write token that
 * wants a person's decision). The seam checks and proposes the named tool in its place.
 */
export function proposeWriteTool(toolsOf: () => ReadonlyMap<string, Tool>): Tool {
  return defineTool({
    name: 'proposeWrite',
    title: 'Propose a write for approval',
    description:
      'Propose an add, update or delete (e.g. updateRisk with its arguments) for a person to approve or reject in the web, instead of writing it now. Answers the proposal id and the page; read the outcome with getProposal.',
    scope: 'write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    toolset: TOOLSET,
    input: proposeInput,
    output: z.looseObject({}),
    dispatch(input) {
      const { name, arguments: given } = input as z.output<typeof proposeInput>;
      const tool = toolsOf().get(name);
      if (!tool?.propose)
        throw new AppError(
          'invalid_arguments',
          `${name} cannot be proposed: name an add, update or delete tool of a register (e.g. updateRisk).`,
          [{ path: 'name', message: 'Not a proposable write tool' }],
        );
      return { tool, arguments: argumentsOf(given), propose: true };
    },
    // invokeTool proposes the tool `dispatch` names instead; nothing calls this one.
    async run() {
      throw new AppError('internal', 'proposeWrite runs through the invocation seam only.');
    },
  });
}
