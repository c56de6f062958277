// Proposed writes in the web: the organization's proposals with their diffs, and approve or reject with a comment.
import { inArray } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { apiTokens, users } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { approveProposal, loadProposal, rejectProposal } from '../proposals/decide.ts';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../proposals/store.ts';
import { getProposalTool, listProposalsTool } from '../tools/proposals.ts';
import { mayWrite, membershipOf } from './access.ts';
import { type Membership, type WebDeps, type WebEnv, webWriterPrincipal } from './context.ts';
import { setFlash } from './flash.ts';
import { text } from './forms.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from './layout.tsx';
import { errorPage, notFoundPage, sendPage } from './render.tsx';
import { webCalls } from './tool-calls.ts';
import { viewerOf } from './viewer.ts';

type Values = Record<string, unknown> | null;

interface ProposalView {
  id: string;
  status: ProposalStatus;
  tool: string;
  kind: string;
  action: 'add' | 'update' | 'delete';
  record_id: string | null;
  before: Values;
  after: Values;
  reason: 'scope' | 'setting' | 'request';
  proposed_by_user_id: string;
  proposed_by_token_id: string;
  proposed_by_client: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by_user_id: string | null;
  decision_comment: string | null;
}

/** Names of the tokens and people a page shows, by id. */
type Names = Map<string, string>;

const STATUS_TONE: Record<ProposalStatus, 'ok' | 'warn' | 'bad' | undefined> = {
  PENDING: 'warn',
  APPLIED: 'ok',
  REJECTED: 'bad',
  EXPIRED: undefined,
  CONFLICT: 'bad',
};

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The change set as a table: each field, its value now and the value proposed. */
function Diff({ proposal }: { proposal: ProposalView }) {
  const fields = [...new Set([...Object.keys(proposal.before ?? {}), ...Object.keys(proposal.after ?? {})])];
  return (
    <div class="table-wrap">
      <table class="diff" aria-label={`Changes of ${proposal.id}`}>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Now</th>
            <th scope="col">Proposed</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((field) => (
            <tr>
              <th scope="row">{field}</th>
              <td>{proposal.action === 'add' ? '—' : shown(proposal.before?.[field])}</td>
              <td>{proposal.action === 'delete' ? '(deleted)' : shown(proposal.after?.[field])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ProposalCard(props: {
  proposal: ProposalView;
  names: Names;
  membership: Membership;
  viewer: Viewer;
}) {
  const { proposal, names, membership } = props;
  const base = `/orgs/${membership.organizationId}/proposals/${proposal.id}`;
  const token = names.get(proposal.proposed_by_token_id) ?? proposal.proposed_by_token_id;
  return (
    <section class="card" aria-label={`Proposal ${proposal.id}`}>
      <h2>
        <a href={base}>{proposal.tool}</a>{' '}
        <Badge tone={STATUS_TONE[proposal.status]}>{proposal.status}</Badge>
      </h2>
      <p>
        {proposal.action} of {proposal.kind}
        {proposal.record_id ? ` ${proposal.record_id}` : ''}, proposed by{' '}
        {names.get(proposal.proposed_by_user_id) ?? proposal.proposed_by_user_id} with token “{token}”
        {proposal.proposed_by_client ? ` (client ${proposal.proposed_by_client})` : ''}{' '}
        <Time iso={proposal.created_at} />
        {proposal.reason === 'setting' ? ' — held by the approval_required setting' : ''}.
        {proposal.status === 'PENDING' ? (
          <>
            {' '}
            Expires <Time iso={proposal.expires_at} />.
          </>
        ) : null}
      </p>
      <Diff proposal={proposal} />
      {proposal.decided_at && (
        <p>
          Decided by {names.get(proposal.decided_by_user_id ?? '') ?? proposal.decided_by_user_id}{' '}
          <Time iso={proposal.decided_at} />
          {proposal.decision_comment ? `: ${proposal.decision_comment}` : '.'}
        </p>
      )}
      {proposal.status === 'PENDING' && mayWrite(membership) && (
        <div class="row">
          <form method="post" action={`${base}/approve`}>
            <CsrfField token={props.viewer.csrfToken} />
            <button type="submit">Approve and apply</button>
          </form>
          <form method="post" action={`${base}/reject`}>
            <CsrfField token={props.viewer.csrfToken} />
            <label for={`comment-${proposal.id}`}>Comment (why it is rejected)</label>
            <textarea id={`comment-${proposal.id}`} name="comment" required maxlength={2000} />
            <button type="submit" class="secondary">
              Reject
            </button>
          </form>
        </div>
      )}
    </section>
  );
}

function ProposalsPage(props: {
  viewer: Viewer;
  membership: Membership;
  status: ProposalStatus | 'ALL';
  proposals: ProposalView[];
  total: number;
  names: Names;
}) {
  const base = `/orgs/${props.membership.organizationId}/proposals`;
  return (
    <Layout
      title={`Proposals · ${props.membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: props.membership.organizationId, page: 'proposals' }}
    >
      <h1>Proposals</h1>
      <p class="lead">
        Changes proposed by API tokens and assistants that wait for a person: approve applies them as a direct
        write would (same checks, same history, naming who proposed and who approved); reject keeps your
        comment.
      </p>
      <nav aria-label="Proposals by status">
        {(['PENDING', ...PROPOSAL_STATUSES.filter((s) => s !== 'PENDING'), 'ALL'] as const).map((status) => (
          <>
            <a href={`${base}?status=${status}`} aria-current={status === props.status ? 'page' : undefined}>
              {status}
            </a>{' '}
          </>
        ))}
      </nav>
      <p>
        {[String(props.total), props.status === 'ALL' ? '' : props.status.toLowerCase(), 'proposal']
          .filter(Boolean)
          .join(' ')}
        {props.total === 1 ? '' : 's'}.
      </p>
      {props.proposals.map((proposal) => (
        <ProposalCard
          proposal={proposal}
          names={props.names}
          membership={props.membership}
          viewer={props.viewer}
        />
      ))}
    </Layout>
  );
}

function ProposalPage(props: {
  viewer: Viewer;
  membership: Membership;
  proposal: ProposalView;
  names: Names;
}) {
  return (
    <Layout
      title={`Proposal ${props.proposal.id} · ${props.membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: props.membership.organizationId, page: 'proposals' }}
    >
      <h1>Proposal</h1>
      {props.viewer.flash && <Notice kind="ok">{props.viewer.flash}</Notice>}
      <p>
        <a href={`/orgs/${props.membership.organizationId}/proposals`}>All proposals</a>
      </p>
      <ProposalCard {...props} />
    </Layout>
  );
}

/** Names of the people and tokens the proposals mention. */
async function namesOf(deps: WebDeps, proposals: ProposalView[]): Promise<Names> {
  const names: Names = new Map();
  const tokenIds = [...new Set(proposals.map((proposal) => proposal.proposed_by_token_id))];
  const userIds = [
    ...new Set(
      proposals.flatMap((proposal) => [proposal.proposed_by_user_id, proposal.decided_by_user_id ?? '']),
    ),
  ].filter(Boolean);
  const db = deps.database.db;
  if (tokenIds.length > 0)
    for (const row of await db
      .select({ id: apiTokens.id, name: apiTokens.name })
      .from(apiTokens)
      .where(inArray(apiTokens.id, tokenIds)))
      names.set(row.id, row.name);
  if (userIds.length > 0)
    for (const row of await db
      .select({ id: users.id, name: users.name, email: users.email })
      .from(users)
      .where(inArray(users.id, userIds)))
      names.set(row.id, row.name ? `${row.name} (${row.email})` : row.email);
  return names;
}

const PAGE_SIZE = 50;

export function proposalRoutes(deps: WebDeps) {
  const web = new Hono<WebEnv>();

  web.get('/orgs/:org/proposals', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const asked = c.req.query('status') ?? 'PENDING';
    const status =
      asked === 'ALL' ? 'ALL' : (PROPOSAL_STATUSES.find((value) => value === asked) ?? 'PENDING');
    const outcome = await webCalls(c, deps).read(listProposalsTool, {
      organization_id: membership.organizationId,
      size: PAGE_SIZE,
      ...(status === 'ALL' ? {} : { filter: { status: [status] } }),
    });
    if (!outcome.ok) return errorPage(c, 500, 'Proposals', outcome.error.message, viewerOf(c));
    const proposals = outcome.result.proposals as ProposalView[];
    return sendPage(
      c,
      <ProposalsPage
        viewer={viewerOf(c)}
        membership={membership}
        status={status}
        proposals={proposals}
        total={Number(outcome.result.total_count)}
        names={await namesOf(deps, proposals)}
      />,
    );
  });

  web.get('/orgs/:org/proposals/:id', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const outcome = await webCalls(c, deps).read(getProposalTool, { id: c.req.param('id') });
    if (!outcome.ok) return notFoundPage(c, viewerOf(c));
    const proposal = outcome.result.proposal as ProposalView & { organization_id: string };
    if (proposal.organization_id !== membership.organizationId) return notFoundPage(c, viewerOf(c));
    return sendPage(
      c,
      <ProposalPage
        viewer={viewerOf(c)}
        membership={membership}
        proposal={proposal}
        names={await namesOf(deps, [proposal])}
      />,
    );
  });

  /** Approve or reject: the decision, then back to the proposal with what happened. */
  async function decide(c: Context<WebEnv>, decision: 'approve' | 'reject') {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const principal = webWriterPrincipal(c.get('user'), c.get('memberships'));
    const page = `/orgs/${membership.organizationId}/proposals/${c.req.param('id')}`;
    try {
      const row = await loadProposal(deps.database.db, membership.organizationId, c.req.param('id') ?? '');
      const outcome =
        decision === 'approve'
          ? await approveProposal(deps.invoke, principal, row, c.get('requestId'))
          : await rejectProposal(
              deps.invoke,
              principal,
              row,
              text(await c.req.parseBody({ all: true }), 'comment'),
            );
      setFlash(
        c,
        outcome.status === 'APPLIED'
          ? 'Approved: the change is written, and the history names who proposed it and you as approver.'
          : outcome.status === 'REJECTED'
            ? 'Rejected: the proposer is told, with your comment.'
            : `Not applied: ${outcome.reason}`,
      );
      return c.redirect(page, 303);
    } catch (caught) {
      if (!(caught instanceof AppError)) throw caught;
      if (caught.code === 'not_found') return notFoundPage(c, viewerOf(c));
      const status = caught.code === 'forbidden' ? 403 : caught.code === 'invalid_arguments' ? 400 : 409;
      return errorPage(c, status, 'Proposal not decided', caught.message, viewerOf(c));
    }
  }

  web.post('/orgs/:org/proposals/:id/approve', (c) => decide(c, 'approve'));
  web.post('/orgs/:org/proposals/:id/reject', (c) => decide(c, 'reject'));
  return web;
}
