// An access review's decide page: the entries of one campaign the signed-in person may decide (theirs as reviewer;
// an OWNER may also show every open entry), each with keep, revoke, modify or escalate and a comment, recorded through
// updateAccessReviewEntry (which checks again that the caller is the entry's reviewer or an OWNER); the campaign's
// progress above. The campaign's own page links here with its progress (accessReviewProgressOf).

import type { Context } from 'hono';
import { Hono } from 'hono';
import { isIdOf } from '../../ids.ts';
import { REGISTERS } from '../../tools/index.ts';
import { ACCESS_DECISIONS } from '../../tools/states.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import { type FormBody, text } from '../forms.tsx';
import { valueLabel } from '../labels.ts';
import { Badge, CsrfField, Layout, Notice, Pager, type Viewer } from '../layout.tsx';
import type { RecordSectionOf } from '../register-pages.ts';
import { notFoundPage, sendPage } from '../render.tsx';
import { type NameIndex, type WebCalls, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

/** `/orgs/:org/access-reviews/:id`, a campaign. */
const CAMPAIGN_PATH = '/orgs/:org/access-reviews/:id{arv_[0-9a-z]+}';
/** How many open entries a page lists; the pager leads to the next ones. */
const SHOWN = 50;
/** How many earlier pages' cursors the URL carries, so Previous goes back that far (First page always works). */
const BACK_LIMIT = 20;
/** What a decision's comment may hold (the tool's limit). */
const COMMENT_LIMIT = 2000;

const DECISION_HINTS: Record<(typeof ACCESS_DECISIONS)[number], string> = {
  KEEP: 'the access is right',
  REVOKE: 'remove the access',
  MODIFY: 'change the access level',
  ESCALATE: 'someone else must decide',
};

/** A decision the page could not record, shown on its entry with what was typed. */
interface Refused {
  entryId: string;
  decision: string;
  comment: string;
  message: string;
}

interface DecideData {
  campaign: Row;
  entries: Row[];
  /** Open entries the list holds (the caller's, or every one with `all`), beyond the ones shown. */
  open: number;
  all: boolean;
  names: NameIndex;
  page: DecidePaging;
  /** Why the entries could not be listed (a damaged cursor), shown instead of them. */
  error: string | null;
}

/** Where the page is in the list: its cursor, the earlier pages' cursors, and the next page's. */
interface DecidePaging {
  cursor: string | undefined;
  back: string[];
  next: string | null;
}

/** The decide page's query: `all` (an OWNER's every open entry), the page's cursor and the earlier ones. */
function decideQuery(all: boolean, cursor?: string | null, back: string[] = []): string {
  const params = new URLSearchParams();
  if (all) params.set('all', '1');
  if (cursor) {
    params.set('cursor', cursor);
    if (back.length > 0) params.set('back', back.slice(-BACK_LIMIT).join(','));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The page's cursor and earlier cursors as the URL gives them. */
function pagingOf(c: Context<WebEnv>): Omit<DecidePaging, 'next'> {
  const cursor = c.req.query('cursor') || undefined;
  const back = cursor ? (c.req.query('back') ?? '').split(',').filter(Boolean).slice(-BACK_LIMIT) : [];
  return { cursor, back };
}

function progressOf(campaign: Row): { total: number; decided: number } {
  const total = Number(campaign.entries_total ?? 0);
  return { total, decided: total - Number(campaign.entries_undecided ?? 0) };
}

/** "12 of 40 entries decided (30%)". */
function progressText(campaign: Row): string {
  const { total, decided } = progressOf(campaign);
  const share = total === 0 ? 0 : Math.floor((decided * 100) / total);
  return `${decided} of ${total} ${total === 1 ? 'entry' : 'entries'} decided (${share}%)`;
}

function Progress({ campaign }: { campaign: Row }) {
  const { total, decided } = progressOf(campaign);
  return (
    <p>
      <label for="campaign-progress">{progressText(campaign)}</label>{' '}
      <progress id="campaign-progress" max={String(Math.max(total, 1))} value={String(decided)}>
        {progressText(campaign)}
      </progress>
    </p>
  );
}

/** The campaign and the open entries the viewer may decide, read through the tools; null when there is no campaign. */
async function decideDataOf(
  c: Context<WebEnv>,
  calls: WebCalls,
  membership: Membership,
  id: string,
): Promise<DecideData | null> {
  const got = await calls.read(REGISTERS.access_review.get, { id });
  if (!got.ok) return null;
  // An OWNER decides any entry (the tool's rule); everyone else only those they review, found by their email.
  const all = membership.role === 'OWNER' && c.req.query('all') === '1';
  const paging = pagingOf(c);
  const list = (size: number, cursor?: string) =>
    calls.read(REGISTERS.access_review_entry.list, {
      organization_id: membership.organizationId,
      filter: {
        access_review_id: id,
        decided: false,
        ...(all ? {} : { reviewer_id: c.get('user').email }),
      },
      order_by: { field: 'system', direction: 'ASC' },
      size,
      ...(cursor ? { cursor } : {}),
    });
  // A later page's cursor carries the count of its first page; the open entries are counted afresh.
  const [listed, counted, names] = await Promise.all([
    list(SHOWN, paging.cursor),
    paging.cursor ? list(1) : null,
    calls.names(membership.organizationId, ['person']),
  ]);
  const countedBy = counted ?? listed;
  const total = countedBy.ok ? countedBy.result.total_count : undefined;
  const entries = listed.ok ? (listed.result.access_review_entries as Row[]) : [];
  return {
    campaign: got.result.access_review as Row,
    entries,
    open: Number(total ?? entries.length),
    all,
    names,
    page: { ...paging, next: listed.ok ? ((listed.result.next_cursor as string | null) ?? null) : null },
    error: listed.ok ? null : listed.error.message,
  };
}

function EntryForm(props: {
  entry: Row;
  action: string;
  csrfToken: string;
  names: NameIndex;
  showReviewer: boolean;
  refused: Refused | undefined;
}) {
  const { entry, refused } = props;
  const id = String(entry.id);
  const person = typeof entry.person_id === 'string' ? props.names.get(entry.person_id)?.name : undefined;
  const reviewer =
    typeof entry.reviewer_id === 'string' ? (props.names.get(entry.reviewer_id)?.name ?? '') : '';
  const heading = `${String(entry.account ?? person ?? '')} on ${String(entry.system)}`;
  const chosen = refused?.decision ?? '';
  return (
    <form method="post" action={props.action} class="card" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`} dir="auto">
        {heading}
      </h3>
      {refused && <Notice kind="error">{refused.message}</Notice>}
      <dl class="details">
        {person && (
          <>
            <dt>Person</dt>
            <dd dir="auto">{person}</dd>
          </>
        )}
        <dt>Access level</dt>
        <dd dir="auto">{String(entry.access_level ?? '—')}</dd>
        {props.showReviewer && (
          <>
            <dt>Reviewer</dt>
            <dd dir="auto">{reviewer || 'None'}</dd>
          </>
        )}
      </dl>
      <CsrfField token={props.csrfToken} />
      <input type="hidden" name="entry_id" value={id} />
      <input type="hidden" name="expected_updated_at" value={String(entry.updated_at)} />
      <fieldset class="field">
        <legend>Decision</legend>
        {ACCESS_DECISIONS.map((decision) => (
          <label class="choice">
            <input type="radio" name="decision" value={decision} checked={chosen === decision} required />{' '}
            {valueLabel(decision)} <span class="muted small">({DECISION_HINTS[decision]})</span>
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for={`${id}-comment`}>Comment</label>
        <textarea
          id={`${id}-comment`}
          name="decision_comment"
          rows={2}
          data-limit={COMMENT_LIMIT}
          aria-describedby={`${id}-comment-hint`}
        >
          {refused?.comment ?? ''}
        </textarea>
        <span class="hint" id={`${id}-comment-hint`}>
          Why: kept with the decision, who made it and when.
        </span>
      </div>
      <button type="submit">Record the decision</button>
    </form>
  );
}

function DecidePage(props: {
  viewer: Viewer;
  membership: Membership;
  data: DecideData;
  refused?: Refused | undefined;
}) {
  const { membership, data, refused } = props;
  const { campaign } = data;
  const base = `/orgs/${membership.organizationId}/access-reviews`;
  const campaignHref = `${base}/${String(campaign.id)}`;
  const { page } = data;
  const decideHref = `${campaignHref}/decide`;
  const action = `${decideHref}${decideQuery(data.all, page.cursor, page.back)}`;
  const pageNumber = page.cursor ? page.back.length + 2 : 1;
  const firstShown = (pageNumber - 1) * SHOWN + 1;
  const status = String(campaign.status);
  const open = status === 'DRAFT' || status === 'IN_PROGRESS';
  const owner = membership.role === 'OWNER';
  const shownRefused = refused && data.entries.some((entry) => entry.id === refused.entryId);
  return (
    <Layout
      title={`Decide · ${String(campaign.name)}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'access-reviews' }}
    >
      <p class="small">
        <a href={base}>Access reviews</a> › <a href={campaignHref}>{String(campaign.name)}</a> ›
      </p>
      <h1 dir="auto">Decide: {String(campaign.name)}</h1>
      <p>
        <Badge tone={open ? 'warn' : 'ok'}>{valueLabel(status)}</Badge>
        {campaign.due_on ? ` Due ${String(campaign.due_on)}.` : ''}
      </p>
      <Progress campaign={campaign} />
      {refused && !shownRefused && <Notice kind="error">{refused.message}</Notice>}
      {owner && (
        <p class="small">
          {data.all ? (
            <>
              Every open entry of the campaign (as an OWNER you may decide any).{' '}
              <a href={`${campaignHref}/decide`}>Only the entries I review</a>
            </>
          ) : (
            <>
              The entries you review. <a href={`${campaignHref}/decide?all=1`}>Every open entry</a>
            </>
          )}
        </p>
      )}
      {!open ? (
        <p>This campaign is {valueLabel(status).toLowerCase()}: its entries no longer change.</p>
      ) : !mayWrite(membership) ? (
        <p>
          Your role in {membership.name} is {membership.role}: deciding entries needs OWNER, ADMIN or EDITOR.
        </p>
      ) : data.error ? (
        <Notice kind="error">
          {data.error} <a href={`${decideHref}${decideQuery(data.all)}`}>Back to the first page</a>
        </Notice>
      ) : data.entries.length === 0 && page.cursor ? (
        <p class="empty">
          No open entry left on this page.{' '}
          <a href={`${decideHref}${decideQuery(data.all)}`}>Back to the first page</a>
        </p>
      ) : data.entries.length === 0 ? (
        <p class="empty">
          {data.all
            ? 'Every entry of this campaign is decided.'
            : 'You have no entry of this campaign left to decide (entries are yours when you are their reviewer, by your email in the people register).'}
        </p>
      ) : (
        <section aria-labelledby="to-decide">
          <h2 id="to-decide">
            {data.open} {data.open === 1 ? 'entry' : 'entries'} to decide
            {data.open > data.entries.length
              ? ` (${firstShown} to ${firstShown + data.entries.length - 1} shown)`
              : ''}
          </h2>
          {data.entries.map((entry) => (
            <EntryForm
              entry={entry}
              action={action}
              csrfToken={props.viewer.csrfToken}
              names={data.names}
              showReviewer={data.all}
              refused={refused?.entryId === entry.id ? refused : undefined}
            />
          ))}
          <Pager
            first={page.cursor ? `${decideHref}${decideQuery(data.all)}` : null}
            previous={
              page.cursor
                ? `${decideHref}${decideQuery(data.all, page.back.at(-1) ?? null, page.back.slice(0, -1))}`
                : null
            }
            number={pageNumber}
            next={
              page.next
                ? `${decideHref}${decideQuery(data.all, page.next, page.cursor ? [...page.back, page.cursor] : [])}`
                : null
            }
          />
        </section>
      )}
    </Layout>
  );
}

/** On a campaign's page: its progress and the way to the decide page. */
export const accessReviewProgressOf: RecordSectionOf = async (_c, calls, membership, id) => {
  const got = await calls.run(REGISTERS.access_review.get, { id }).catch(() => null);
  if (!got) return undefined;
  const campaign = got.access_review as Row;
  return (
    <section aria-labelledby="decisions">
      <h2 id="decisions">Decisions</h2>
      <Progress campaign={campaign} />
      <p>
        <a class="button" href={`/orgs/${membership.organizationId}/access-reviews/${id}/decide`}>
          Decide entries
        </a>
      </p>
    </section>
  );
};

const ERROR_STATUS = { conflict: 409, forbidden: 403, not_found: 404 } as const;

/** The decide page and its post. */
export function accessReviewRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  async function render(c: Context<WebEnv>, refused?: Refused, status: 200 | 400 | 403 | 409 = 200) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const data = await decideDataOf(c, webCalls(c, deps), membership, c.req.param('id') ?? '');
    if (!data) return notFoundPage(c, viewerOf(c));
    return sendPage(
      c,
      <DecidePage viewer={viewerOf(c)} membership={membership} data={data} refused={refused} />,
      status,
    );
  }

  web.get(`${CAMPAIGN_PATH}/decide`, (c) => render(c));

  web.post(`${CAMPAIGN_PATH}/decide`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'deciding access review entries');
    const campaignId = c.req.param('id') ?? '';
    const body = (await c.req.parseBody()) as FormBody;
    const entryId = text(body, 'entry_id');
    const decision = text(body, 'decision').toUpperCase();
    const comment = text(body, 'decision_comment').trim();
    const calls = webCalls(c, deps);
    // Only an entry of this campaign (and of this organization: the tool's get answers not_found for any other).
    const entry = isIdOf('are', entryId)
      ? await calls
          .run(REGISTERS.access_review_entry.get, { id: entryId })
          .then((result) => result.access_review_entry as Row)
          .catch(() => null)
      : null;
    if (!entry || entry.access_review_id !== campaignId) return notFoundPage(c, viewerOf(c));
    const refused = (message: string): Refused => ({ entryId, decision, comment, message });
    if (!(ACCESS_DECISIONS as readonly string[]).includes(decision))
      return render(c, refused('Choose a decision: keep, revoke, modify or escalate.'), 400);
    const expected = text(body, 'expected_updated_at');
    const outcome = await calls.write(REGISTERS.access_review_entry.update, {
      id: entryId,
      decision,
      ...(comment ? { decision_comment: comment } : {}),
      ...(expected ? { expected_updated_at: expected } : {}),
    });
    if (!outcome.ok) {
      const code = outcome.error.code as keyof typeof ERROR_STATUS;
      if (code === 'not_found') return notFoundPage(c, viewerOf(c));
      const message =
        code === 'conflict'
          ? 'This entry changed since the page was loaded (someone else decided it?): it is shown as it is now.'
          : outcome.error.message;
      return render(c, refused(`Not recorded: ${message}`), ERROR_STATUS[code] ?? 400);
    }
    const decided = outcome.result.access_review_entry as Row;
    setFlash(
      c,
      `Recorded: ${valueLabel(decision)} for ${String(decided.account ?? decided.person_id ?? '')} on ${String(decided.system)}.`,
    );
    // Back to the same page of the list: its cursor is a position in it, so the next entries move up to fill it.
    const { cursor, back } = pagingOf(c);
    const query = decideQuery(c.req.query('all') === '1', cursor, back);
    return c.redirect(`/orgs/${membership.organizationId}/access-reviews/${campaignId}/decide${query}`, 303);
  });
  return web;
}
