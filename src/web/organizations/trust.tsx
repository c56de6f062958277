// The trust page's settings in the web: on or off, its address and texts, what it shows (each framework, audit and
// document: hidden, public, or a document on request), and the visitors' access requests to approve or reject, all
// through the trust page tools. Every member reads it; owners and admins change it and decide.
import { type Context, Hono } from 'hono';
import type { InvokeResult } from '../../surfaces/invoke.ts';
import {
  decideTrustAccessRequestTool,
  getTrustPageTool,
  listTrustAccessRequestsTool,
  setTrustPageItemTool,
  updateTrustPageTool,
} from '../../tools/trust-page/tools.ts';
import { membershipOf } from '../access.ts';
import { MANAGER_ROLES, type Membership, type WebDeps, type WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import { Input, text } from '../forms.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { notFoundPage, sendPage } from '../render.tsx';
import { type Pickers, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

const ITEM_KINDS = [
  { kind: 'framework', title: 'Frameworks', choices: ['HIDDEN', 'PUBLIC'] },
  { kind: 'audit', title: 'Audits and certifications', choices: ['HIDDEN', 'PUBLIC'] },
  { kind: 'document', title: 'Policies and documents', choices: ['HIDDEN', 'PUBLIC', 'ON_REQUEST'] },
] as const;

const CHOICE_LABELS: Record<string, string> = {
  HIDDEN: 'Hidden',
  PUBLIC: 'Public',
  ON_REQUEST: 'On request',
};

function TrustSettingsPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: Row;
  pickers: Pickers;
  requests: Row[];
  error?: string | undefined;
  link?: { path: string; name: string } | undefined;
}) {
  const { membership, page, pickers } = props;
  const editable = MANAGER_ROLES.has(membership.role);
  const base = `/orgs/${membership.organizationId}/trust`;
  const shown = new Map(
    ((page.items as Row[] | undefined) ?? []).map((item) => [String(item.record_id), String(item.access)]),
  );
  const path = typeof page.path === 'string' ? page.path : null;
  return (
    <Layout
      title={`Trust page · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'trust' }}
    >
      <h1>Trust page</h1>
      <p class="lead">
        A public page for customers: the certifications, audits and policies you choose, your sub-processors
        and a contact. Nothing shows until you choose it and turn the page on.
      </p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.link && (
        <Notice kind="ok">
          Approved. Send this link to {props.link.name} (shown once):{' '}
          <code class="secret">{props.link.path}</code>
        </Notice>
      )}
      {!editable && (
        <Notice kind="ok">Your role is {membership.role}: owners and admins change the trust page.</Notice>
      )}
      <p>
        Status: {page.enabled ? <Badge tone="ok">Published</Badge> : <Badge>Off</Badge>}
        {path && page.enabled ? (
          <>
            {' '}
            at <a href={path}>{path}</a>
          </>
        ) : null}
      </p>
      <form method="post" action={base} class="card">
        <CsrfField token={props.viewer.csrfToken} />
        <fieldset disabled={!editable}>
          <legend class="visually-hidden">Trust page settings</legend>
          <div class="choice">
            <input type="checkbox" id="enabled" name="enabled" value="true" checked={page.enabled === true} />
            <label for="enabled">Publish the trust page</label>
          </div>
          <Input
            id="slug"
            label="Address"
            value={String(page.slug ?? '')}
            hint="The page is served at /trust/<address>: 3 to 40 lower-case letters, digits and hyphens."
            required
          />
          <Input id="title" label="Title" value={String(page.title ?? '')} required />
          <div class="field">
            <label for="introduction">Introduction</label>
            <textarea id="introduction" name="introduction" rows={3}>
              {String(page.introduction ?? '')}
            </textarea>
          </div>
          <Input
            id="contact_email"
            label="Security contact"
            type="email"
            value={String(page.contact_email ?? '')}
          />
          <div class="choice">
            <input
              type="checkbox"
              id="show_sub_processors"
              name="show_sub_processors"
              value="true"
              checked={page.show_sub_processors === true}
            />
            <label for="show_sub_processors">List the vendors marked as sub-processors</label>
          </div>
          <div class="field">
            <label for="request_terms">Terms a visitor accepts to ask for a document</label>
            <textarea id="request_terms" name="request_terms" rows={3} required>
              {String(page.request_terms ?? '')}
            </textarea>
          </div>
          <Input
            id="link_days"
            label="Days a download link works"
            type="number"
            min={1}
            max={30}
            value={String(page.link_days ?? 7)}
            required
          />
          {editable && (
            <div class="actions">
              <button type="submit">Save the trust page</button>
            </div>
          )}
        </fieldset>
      </form>
      <section aria-labelledby="trust-items">
        <h2 id="trust-items">What the page shows</h2>
        <form method="post" action={`${base}/items`} class="card">
          <CsrfField token={props.viewer.csrfToken} />
          <fieldset disabled={!editable}>
            <legend class="visually-hidden">Records on the trust page</legend>
            {ITEM_KINDS.map((group) => {
              const picker = pickers[group.kind];
              return (
                <fieldset>
                  <legend>{group.title}</legend>
                  {(picker?.choices ?? []).length === 0 && <p class="muted">None in the register.</p>}
                  {(picker?.choices ?? []).map((choice) => (
                    <div class="field">
                      <label for={`item-${choice.id}`}>{choice.name}</label>
                      <select id={`item-${choice.id}`} name={`item_${choice.id}`}>
                        {group.choices.map((value) => (
                          <option value={value} selected={(shown.get(choice.id) ?? 'HIDDEN') === value}>
                            {CHOICE_LABELS[value]}
                          </option>
                        ))}
                      </select>
                    </div>
                  ))}
                </fieldset>
              );
            })}
            {editable && (
              <div class="actions">
                <button type="submit">Save what the page shows</button>
              </div>
            )}
          </fieldset>
        </form>
      </section>
      <section aria-labelledby="trust-requests">
        <h2 id="trust-requests">Access requests</h2>
        {props.requests.length === 0 ? (
          <p class="muted">No requests yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Asked</th>
                  <th scope="col">Who</th>
                  <th scope="col">Document</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {props.requests.map((request) => (
                  <tr>
                    <td>
                      <Time iso={String(request.created_at)} />
                    </td>
                    <td>
                      {String(request.name)} ({String(request.email)}), {String(request.company)}
                    </td>
                    <td>{String(request.document_title)}</td>
                    <td>
                      {request.status === 'PENDING' && editable ? (
                        <form method="post" action={`${base}/requests/${String(request.id)}`} class="inline">
                          <CsrfField token={props.viewer.csrfToken} />
                          <button type="submit" name="decision" value="APPROVE" class="button small">
                            Approve
                          </button>{' '}
                          <button type="submit" name="decision" value="REJECT" class="button small quiet">
                            Reject
                          </button>
                        </form>
                      ) : (
                        String(request.status)
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}

export function trustSettingsRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /** The page as the member reads it, with the records to choose from and the latest requests. */
  async function show(
    c: Context<WebEnv>,
    membership: Membership,
    notice: { error?: string; link?: { path: string; name: string }; status?: number } = {},
  ) {
    const calls = webCalls(c, deps);
    const organization_id = membership.organizationId;
    const [page, requests, pickers] = await Promise.all([
      calls.read(getTrustPageTool, { organization_id }),
      calls.read(listTrustAccessRequestsTool, { organization_id, size: 100 }),
      calls.pickers(organization_id, ['framework', 'audit', 'document']),
    ]);
    if (!page.ok || !requests.ok) return notFoundPage(c, viewerOf(c));
    // Waiting ones first, then the latest decided.
    const listed = (requests.result.trust_access_requests as Row[])
      .slice()
      .sort(
        (a, b) =>
          Number(b.status === 'PENDING') - Number(a.status === 'PENDING') ||
          String(b.created_at).localeCompare(String(a.created_at)),
      );
    return sendPage(
      c,
      <TrustSettingsPage
        viewer={viewerOf(c)}
        membership={membership}
        page={page.result.trust_page as Row}
        pickers={pickers}
        requests={listed}
        error={notice.error}
        link={notice.link}
      />,
      (notice.status ?? 200) as 200,
    );
  }

  const refusal = (outcome: InvokeResult) =>
    outcome.ok ? null : { error: outcome.error.message, status: outcome.error.status };

  web.get('/orgs/:org/trust', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    return show(c, membership);
  });

  web.post('/orgs/:org/trust', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const days = text(body, 'link_days').trim();
    const outcome = await webCalls(c, deps).write(updateTrustPageTool, {
      organization_id: membership.organizationId,
      enabled: text(body, 'enabled') === 'true',
      slug: text(body, 'slug').trim(),
      title: text(body, 'title'),
      introduction: text(body, 'introduction').trim(),
      contact_email: text(body, 'contact_email').trim(),
      show_sub_processors: text(body, 'show_sub_processors') === 'true',
      request_terms: text(body, 'request_terms'),
      link_days: /^\d{1,3}$/.test(days) ? Number(days) : days,
    });
    const refused = refusal(outcome);
    if (refused) return show(c, membership, refused);
    setFlash(c, 'Trust page saved.');
    return c.redirect(`/orgs/${membership.organizationId}/trust`, 303);
  });

  web.post('/orgs/:org/trust/items', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const calls = webCalls(c, deps);
    const current = await calls.read(getTrustPageTool, { organization_id: membership.organizationId });
    if (!current.ok) return notFoundPage(c, viewerOf(c));
    const shown = new Map(
      ((current.result.trust_page as Row).items as Row[]).map((item) => [
        String(item.record_id),
        String(item.access),
      ]),
    );
    // Only the records whose choice changed are written, each through the tool (which checks it and its kind).
    for (const [name, value] of Object.entries(body)) {
      if (!name.startsWith('item_') || typeof value !== 'string') continue;
      const recordId = name.slice('item_'.length);
      if ((shown.get(recordId) ?? 'HIDDEN') === value) continue;
      const outcome = await calls.write(setTrustPageItemTool, {
        organization_id: membership.organizationId,
        record_id: recordId,
        visibility: value,
      });
      const refused = refusal(outcome);
      if (refused) return show(c, membership, refused);
    }
    setFlash(c, 'The trust page shows what you chose.');
    return c.redirect(`/orgs/${membership.organizationId}/trust#trust-items`, 303);
  });

  web.post('/orgs/:org/trust/requests/:id', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody();
    const outcome = await webCalls(c, deps).write(decideTrustAccessRequestTool, {
      id: c.req.param('id'),
      decision: text(body, 'decision'),
    });
    const refused = refusal(outcome);
    if (refused) return show(c, membership, refused);
    const request = outcome.ok ? (outcome.result.trust_access_request as Row) : {};
    if (request.organization_id !== membership.organizationId) return notFoundPage(c, viewerOf(c));
    const linkPath = outcome.ok ? outcome.result.link_path : null;
    // The link is shown on this answer only (never kept in a cookie): the page is not redirected.
    if (typeof linkPath === 'string')
      return show(c, membership, { link: { path: linkPath, name: String(request.email) } });
    setFlash(
      c,
      outcome.ok && outcome.result.mail_queued === true
        ? `The request of ${String(request.email)} was approved: a mail with the download link is on its way to them.`
        : `The request of ${String(request.email)} was rejected.`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/trust#trust-requests`, 303);
  });

  return web;
}
