// Webhooks (organization settings, owners and admins): endpoints with their events and secrets, and each endpoint's
// delivery log with a Redeliver button.

import { type Context, Hono } from 'hono';
import { AppError } from '../../errors.ts';
import { isIdOf } from '../../ids.ts';
import { NO_SECRETS_KEY_MESSAGE } from '../../secrets/keyring.ts';
import { REGISTER_SPECS } from '../../tools/index.ts';
import {
  createEndpoint,
  DELIVERY_LOG_PAGE,
  deleteEndpoint,
  type EndpointInput,
  getEndpoint,
  listEndpoints,
  listMessages,
  redeliver,
  rotateSecret,
  updateEndpoint,
  type WebhookEndpoint,
  type WebhookMessage,
} from '../../webhooks/endpoints.ts';
import { membershipOf } from '../access.ts';
import { MANAGER_ROLES, type Membership, type WebDeps, type WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { type FormBody, Input, text, texts } from '../forms.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';

const KINDS = REGISTER_SPECS.map((spec) => spec.kind);

/** The choices of the form: everything, every register's events, and the scheduled events. */
const CHOICES: readonly { value: string; label: string }[] = [
  { value: '*', label: 'Every event' },
  ...REGISTER_SPECS.map((spec) => ({
    value: `${spec.kind}.*`,
    label: `${spec.labelPlural.charAt(0).toUpperCase()}${spec.labelPlural.slice(1)}: created, updated, deleted, linked, unlinked`,
  })),
  { value: 'review.due', label: 'A review is due' },
  { value: 'task.due', label: 'A task is due' },
  { value: 'evidence.expiring', label: 'Evidence is expiring' },
  { value: 'incident.deadline', label: "An incident's notification deadline is within 24 hours or missed" },
  { value: 'data_subject_request.due', label: 'A data-subject request is due' },
  { value: 'access_review.due', label: 'An access-review campaign is due' },
  { value: 'vendor.renewal_due', label: "A vendor's contract renewal is within 30 days" },
  { value: 'vendor.assessment_due', label: "A vendor's assessment runs out within 30 days" },
];
const CHOICE_VALUES = new Set(CHOICES.map((choice) => choice.value));

const NOTICES: Record<string, string> = {
  saved: 'The endpoint was saved.',
  deleted: 'The endpoint was deleted.',
  redelivered: 'The delivery was queued again; it is sent within a minute.',
};

function section(organizationId: string) {
  return { kind: 'organization' as const, organizationId, page: 'webhooks' };
}

function EventsFieldset({ idPrefix, chosen }: { idPrefix: string; chosen: readonly string[] }) {
  const others = chosen.filter((event) => !CHOICE_VALUES.has(event));
  return (
    <fieldset>
      <legend>Events to send</legend>
      {CHOICES.map((choice, index) => (
        <div class="choice">
          <input
            type="checkbox"
            id={`${idPrefix}-event-${index}`}
            name="events"
            value={choice.value}
            checked={chosen.includes(choice.value)}
          />
          <label for={`${idPrefix}-event-${index}`}>{choice.label}</label>
        </div>
      ))}
      <Input
        id={`${idPrefix}-other-events`}
        name="other_events"
        label="Single events (optional)"
        value={others.join(', ')}
        hint="Comma-separated event types, e.g. risk.created, vendor.deleted (README, Webhooks)."
        limit={2000}
      />
    </fieldset>
  );
}

function SecretNotice({ secret }: { secret: string }) {
  return (
    <Notice kind="warn">
      <p>
        Signing secret, shown only now: copy it into the receiver, which verifies the{' '}
        <code>webhook-signature</code> header with it (Standard Webhooks).
      </p>
      <p>
        <code class="secret">{secret}</code>
      </p>
    </Notice>
  );
}

function EndpointsPage(props: {
  viewer: Viewer;
  membership: Membership;
  endpoints: WebhookEndpoint[];
  notice?: string | undefined;
  error?: string | undefined;
  form?: EndpointInput | undefined;
  secret?: string | undefined;
  /** Why no endpoint can be added now (the server has no SECRETS_KEY), shown until the operator sets it. */
  unavailable?: string | undefined;
}) {
  const { membership, viewer } = props;
  const base = `/orgs/${membership.organizationId}/webhooks`;
  return (
    <Layout
      title={`Webhooks · ${membership.name}`}
      viewer={viewer}
      section={section(membership.organizationId)}
    >
      <h1>Webhooks</h1>
      <p class="lead">
        Endpoints receive a signed HTTPS request for each event they chose: a record created, updated, deleted
        or linked, a review or task due, evidence expiring, an incident's notification deadline near or
        missed, a data-subject request due. Failed deliveries are retried for a day.
      </p>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.unavailable && props.unavailable !== props.error && (
        <Notice kind="warn">{props.unavailable}</Notice>
      )}
      {props.secret && <SecretNotice secret={props.secret} />}
      <DataTable
        items={props.endpoints}
        empty="No endpoint yet."
        emptyClass="muted"
        columns={[
          {
            header: 'Endpoint',
            class: 'wrap',
            cell: (endpoint) => (
              <>
                <a href={`${base}/${endpoint.id}`}>{endpoint.url}</a>
                {endpoint.description && (
                  <>
                    <br />
                    <span class="small muted">{endpoint.description}</span>
                  </>
                )}
              </>
            ),
          },
          { header: 'Events', class: 'wrap', cell: (endpoint) => endpoint.events.join(', ') },
          { header: 'State', cell: (endpoint) => <EndpointState endpoint={endpoint} /> },
          {
            header: 'Added by',
            class: 'wrap',
            cell: (endpoint) => endpoint.created_by_email ?? <span class="muted">unknown</span>,
          },
          { header: 'Added', cell: (endpoint) => <Time iso={endpoint.created_at} /> },
        ]}
      />
      <section aria-labelledby="add-endpoint">
        <h2 id="add-endpoint">Add an endpoint</h2>
        <div class="card">
          <form method="post" action={base}>
            <CsrfField token={viewer.csrfToken} />
            <Input
              id="endpoint-url"
              name="url"
              label="URL"
              value={props.form?.url}
              required
              limit={2000}
              hint="https:// only; private, loopback and link-local addresses are refused."
            />
            <Input
              id="endpoint-description"
              name="description"
              label="Description (optional)"
              value={props.form?.description ?? undefined}
              limit={500}
            />
            <EventsFieldset idPrefix="new" chosen={props.form?.events ?? ['*']} />
            <div class="actions">
              <button type="submit">Add endpoint</button>
            </div>
          </form>
        </div>
      </section>
    </Layout>
  );
}

/** On or paused, and why when the service paused it (its creator left: docs/security.md). */
function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.enabled) return <Badge tone="ok">On</Badge>;
  return (
    <>
      <Badge tone="warn">Paused</Badge>
      {endpoint.paused_reason === 'creator_left' && (
        <span class="small muted"> its creator left the organization; check the URL, then turn it on</span>
      )}
    </>
  );
}

function DeliveryStatus({ message }: { message: WebhookMessage }) {
  if (message.status === 'delivered') return <Badge tone="ok">Delivered</Badge>;
  if (message.status === 'failed') return <Badge tone="bad">Failed</Badge>;
  return (
    <Badge tone={message.attempts > 0 ? 'warn' : undefined}>
      {message.attempts > 0 ? 'Retrying' : 'Waiting'}
    </Badge>
  );
}

function EndpointPage(props: {
  viewer: Viewer;
  membership: Membership;
  endpoint: WebhookEndpoint;
  messages: WebhookMessage[];
  olderHref: string | null;
  notice?: string | undefined;
  error?: string | undefined;
  form?: (EndpointInput & { enabled: boolean }) | undefined;
  secret?: string | undefined;
}) {
  const { membership, viewer, endpoint } = props;
  const base = `/orgs/${membership.organizationId}/webhooks/${endpoint.id}`;
  const form = props.form ?? endpoint;
  return (
    <Layout
      title={`Webhook endpoint · ${membership.name}`}
      viewer={viewer}
      section={section(membership.organizationId)}
    >
      <p>
        <a href={`/orgs/${membership.organizationId}/webhooks`}>All endpoints</a>
      </p>
      <h1 class="wrap">{endpoint.url}</h1>
      <p>
        <EndpointState endpoint={endpoint} /> · added by {endpoint.created_by_email ?? 'an unknown member'}{' '}
        <Time iso={endpoint.created_at} />
      </p>
      {endpoint.paused_reason === 'creator_left' && (
        <Notice kind="warn">
          The member who added this endpoint left the organization, so it was paused: events are not sent to a
          place chosen by someone who is gone. Check the URL; ticking “Send events” below turns it back on and
          makes you the member who answers for it.
        </Notice>
      )}
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.secret && <SecretNotice secret={props.secret} />}
      <section aria-labelledby="deliveries">
        <h2 id="deliveries">Deliveries</h2>
        {props.messages.length === 0 ? (
          <p class="muted">Nothing sent yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Response</th>
                  <th scope="col">Last attempt</th>
                  <th scope="col">Next</th>
                </tr>
              </thead>
              <tbody>
                {props.messages.map((message) => (
                  <tr>
                    <td>
                      {message.event_type}
                      <br />
                      <span class="small muted">
                        <Time iso={message.created_at} /> · {message.id}
                      </span>
                    </td>
                    <td>
                      <DeliveryStatus message={message} />
                    </td>
                    <td>{message.attempts}</td>
                    <td class="wrap">
                      {message.last_status_code !== null ? `HTTP ${message.last_status_code}` : ''}
                      {message.last_error && <span class="small muted"> {message.last_error}</span>}
                    </td>
                    <td>
                      <Time iso={message.last_attempt_at} />
                    </td>
                    <td>
                      {message.status === 'pending' ? (
                        <Time iso={message.next_attempt_at} />
                      ) : (
                        <form method="post" action={`${base}/deliveries/${message.id}/redeliver`}>
                          <CsrfField token={viewer.csrfToken} />
                          <button
                            type="submit"
                            class="button small quiet"
                            aria-label={`Redeliver ${message.id}`}
                          >
                            Redeliver
                          </button>
                        </form>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {props.olderHref && (
          <p>
            <a href={props.olderHref}>Older deliveries</a>
          </p>
        )}
      </section>
      <section aria-labelledby="edit-endpoint">
        <h2 id="edit-endpoint">Settings</h2>
        <div class="card">
          <form method="post" action={base}>
            <CsrfField token={viewer.csrfToken} />
            <Input id="edit-url" name="url" label="URL" value={form.url} required limit={2000} />
            <Input
              id="edit-description"
              name="description"
              label="Description (optional)"
              value={form.description ?? undefined}
              limit={500}
            />
            <EventsFieldset idPrefix="edit" chosen={form.events} />
            <div class="choice">
              <input type="checkbox" id="edit-enabled" name="enabled" value="yes" checked={form.enabled} />
              <label for="edit-enabled">Send events (unticked: paused; events meanwhile are not kept)</label>
            </div>
            <div class="actions">
              <button type="submit">Save</button>
            </div>
          </form>
        </div>
      </section>
      <section aria-labelledby="secret">
        <h2 id="secret">Signing secret</h2>
        <div class="card">
          <p>
            A new secret is shown once. The current one keeps signing beside it for 24 hours
            {endpoint.previous_secret_until && (
              <>
                {' '}
                (the previous rotation's overlap ends <Time iso={endpoint.previous_secret_until} />)
              </>
            )}
            , so the receiver can switch without missing a delivery.
          </p>
          <form method="post" action={`${base}/rotate`}>
            <CsrfField token={viewer.csrfToken} />
            <button type="submit" class="quiet">
              Rotate secret
            </button>
          </form>
        </div>
      </section>
      <section aria-labelledby="delete-endpoint">
        <h2 id="delete-endpoint">Delete</h2>
        <form method="post" action={`${base}/delete`}>
          <CsrfField token={viewer.csrfToken} />
          <button type="submit" class="danger">
            Delete endpoint and its deliveries
          </button>
        </form>
      </section>
    </Layout>
  );
}

function formInput(body: FormBody): EndpointInput {
  const others = text(body, 'other_events')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return {
    url: text(body, 'url'),
    description: text(body, 'description') || null,
    events: [...texts(body, 'events'), ...others],
  };
}

export function webhookRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const options = { kinds: KINDS, allowLocal: deps.config.webhooksAllowLocal, secrets: deps.secrets };

  /** The membership if the viewer manages the organization in the URL; otherwise the page to send. */
  function managed(c: Context<WebEnv>): Membership | Response | Promise<Response> {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!MANAGER_ROLES.has(membership.role))
      return errorPage(
        c,
        403,
        'Owners and admins only',
        'Only owners and admins of this organization manage its webhooks.',
        viewerOf(c),
        section(membership.organizationId),
      );
    return membership;
  }

  async function listPage(
    c: Context<WebEnv>,
    membership: Membership,
    status: 200 | 201 | 404 | 409 | 422,
    extra: { notice?: string; error?: string; form?: EndpointInput; secret?: string } = {},
  ) {
    const endpoints = await listEndpoints(db, membership.organizationId);
    return sendPage(
      c,
      <EndpointsPage
        viewer={viewerOf(c)}
        membership={membership}
        endpoints={endpoints}
        unavailable={deps.secrets.available ? undefined : NO_SECRETS_KEY_MESSAGE}
        {...extra}
      />,
      status,
    );
  }

  async function endpointPage(
    c: Context<WebEnv>,
    membership: Membership,
    endpoint: WebhookEndpoint,
    status: 200 | 201 | 409 | 422,
    extra: {
      notice?: string;
      error?: string;
      form?: EndpointInput & { enabled: boolean };
      secret?: string;
    } = {},
  ) {
    const beforeId = c.req.query('before') ?? '';
    const beforeAt = c.req.query('at') ?? '';
    const messages = await listMessages(
      db,
      membership.organizationId,
      endpoint.id,
      isIdOf('msg', beforeId) && beforeAt ? { id: beforeId, created_at: beforeAt } : undefined,
    );
    const last = messages.length === DELIVERY_LOG_PAGE ? messages.at(-1) : undefined;
    const olderHref = last
      ? `/orgs/${membership.organizationId}/webhooks/${endpoint.id}?before=${last.id}&at=${encodeURIComponent(last.created_at)}`
      : null;
    return sendPage(
      c,
      <EndpointPage
        viewer={viewerOf(c)}
        membership={membership}
        endpoint={endpoint}
        messages={messages}
        olderHref={olderHref}
        {...extra}
      />,
      status,
    );
  }

  /** The endpoint named in the URL, of this organization; otherwise the 404 page. */
  async function endpointOf(c: Context<WebEnv>, membership: Membership) {
    try {
      return await getEndpoint(db, membership.organizationId, c.req.param('endpoint') ?? '');
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return notFoundPage(c, viewerOf(c));
      throw error;
    }
  }

  web.get('/orgs/:org/webhooks', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    return listPage(c, membership, 200, { notice: NOTICES[c.req.query('done') ?? ''] });
  });

  web.post('/orgs/:org/webhooks', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const form = formInput(await c.req.parseBody({ all: true }));
    try {
      const { secret } = await createEndpoint(db, deps.now(), membership.organizationId, form, {
        ...options,
        createdBy: c.get('user').id,
      });
      return listPage(c, membership, 201, { notice: 'The endpoint was added.', secret });
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_arguments' || error.code === 'conflict'))
        return listPage(c, membership, error.code === 'conflict' ? 409 : 422, { error: error.message, form });
      throw error;
    }
  });

  web.get('/orgs/:org/webhooks/:endpoint', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const endpoint = await endpointOf(c, membership);
    if (endpoint instanceof Response) return endpoint;
    return endpointPage(c, membership, endpoint, 200, { notice: NOTICES[c.req.query('done') ?? ''] });
  });

  web.post('/orgs/:org/webhooks/:endpoint', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const endpoint = await endpointOf(c, membership);
    if (endpoint instanceof Response) return endpoint;
    const body = await c.req.parseBody({ all: true });
    const form = { ...formInput(body), enabled: text(body, 'enabled') === 'yes' };
    try {
      await updateEndpoint(db, deps.now(), membership.organizationId, endpoint.id, form, {
        ...options,
        by: c.get('user').id,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_arguments')
        return endpointPage(c, membership, endpoint, 422, { error: error.message, form });
      throw error;
    }
    return c.redirect(`/orgs/${membership.organizationId}/webhooks/${endpoint.id}?done=saved`, 303);
  });

  web.post('/orgs/:org/webhooks/:endpoint/rotate', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const endpoint = await endpointOf(c, membership);
    if (endpoint instanceof Response) return endpoint;
    let secret: string;
    try {
      secret = await rotateSecret(db, deps.now(), membership.organizationId, endpoint.id, deps.secrets);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        return endpointPage(c, membership, endpoint, 409, { error: error.message });
      throw error;
    }
    const rotated = await getEndpoint(db, membership.organizationId, endpoint.id);
    return endpointPage(c, membership, rotated, 200, { notice: 'A new secret was made.', secret });
  });

  web.post('/orgs/:org/webhooks/:endpoint/delete', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const endpoint = await endpointOf(c, membership);
    if (endpoint instanceof Response) return endpoint;
    await deleteEndpoint(db, membership.organizationId, endpoint.id);
    return c.redirect(`/orgs/${membership.organizationId}/webhooks?done=deleted`, 303);
  });

  web.post('/orgs/:org/webhooks/:endpoint/deliveries/:message/redeliver', async (c) => {
    const membership = await managed(c);
    if (membership instanceof Response) return membership;
    const endpoint = await endpointOf(c, membership);
    if (endpoint instanceof Response) return endpoint;
    try {
      await redeliver(db, deps.now(), membership.organizationId, c.req.param('message'));
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return notFoundPage(c, viewerOf(c));
      throw error;
    }
    deps.invoke.afterWrite?.();
    return c.redirect(`/orgs/${membership.organizationId}/webhooks/${endpoint.id}?done=redelivered`, 303);
  });
  return web;
}
