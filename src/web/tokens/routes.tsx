// Settings > API Tokens: list, "Generate New Token" (secret shown once, with client config), token use, revoke.

import { type Context, Hono } from 'hono';
import { SCOPE_LABELS, type TokenScope, tokenScopeOf } from '../../auth/principal.ts';
import type { TokenSummary } from '../../auth/tokens.ts';
import { AppError } from '../../errors.ts';
import type { ConnectedClient } from '../../oauth/grants.ts';
import { baseUrlOf } from '../../oauth/resource.ts';
import { ACTIVITY_DAYS, activitySince, CallsPerDay, RecentCalls } from '../activity.tsx';
import { ConfirmPage } from '../confirm-page.tsx';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { type FormBody, Input, Select, text, texts } from '../forms.tsx';
import { OrganizationsFieldset, ScopeFieldset } from '../grant-fields.tsx';
import { Badge, CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { callActivity } from '../queries.ts';
import { notFoundPage, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';
import { ConnectedClients } from './connected-clients.tsx';

export const EXPIRY_CHOICES = [7, 30, 90, 365] as const;
export const DEFAULT_EXPIRY_DAYS = 90;
/** Tokens that expire within this many days are flagged for rotation. */
export const ROTATION_WARNING_DAYS = 14;

const DAY_MS = 86_400_000;
const SECTION = { kind: 'settings', page: 'tokens' } as const;

interface TokenFormValues {
  name: string;
  scope: TokenScope;
  organizations: 'all' | 'some';
  organizationIds: string[];
  expiresInDays: number;
}

const DEFAULT_FORM: TokenFormValues = {
  name: '',
  scope: 'read',
  organizations: 'all',
  organizationIds: [],
  expiresInDays: DEFAULT_EXPIRY_DAYS,
};

function daysLeft(token: TokenSummary, now: Date): number | null {
  if (!token.expires_at) return null;
  return Math.ceil((Date.parse(token.expires_at) - now.getTime()) / DAY_MS);
}

function needsRotation(token: TokenSummary, now: Date): boolean {
  const left = daysLeft(token, now);
  return token.state === 'active' && left !== null && left <= ROTATION_WARNING_DAYS;
}

function StateBadge({ token, now }: { token: TokenSummary; now: Date }) {
  if (token.state === 'revoked') return <Badge tone="bad">revoked</Badge>;
  if (token.state === 'expired') return <Badge>expired</Badge>;
  if (needsRotation(token, now)) return <Badge tone="warn">active · rotate soon</Badge>;
  return <Badge tone="ok">active</Badge>;
}

function organizationNames(token: TokenSummary, memberships: Membership[]): string {
  if (!token.organization_ids) return 'All yours when it was made (and any you opened to it)';
  const names = new Map(memberships.map((membership) => [membership.organizationId, membership.name]));
  return token.organization_ids.map((id) => names.get(id) ?? 'a former organization').join(', ');
}

const DONE_MESSAGES: Record<string, string> = {
  revoked: 'The token was revoked. Clients using it are refused from now on.',
  'client-revoked': 'The connected client was revoked. Its tokens are refused from now on.',
};

function TokenListPage({
  viewer,
  tokens,
  clients,
  now,
  done,
}: {
  viewer: Viewer;
  tokens: TokenSummary[];
  clients: ConnectedClient[];
  now: Date;
  done?: string;
}) {
  const rotate = tokens.filter((token) => needsRotation(token, now));
  return (
    <Layout title="API Tokens" viewer={viewer} section={SECTION}>
      <h1>API Tokens</h1>
      <p class="lead">
        AI assistants and scripts use an API token to call the tools of this service on your behalf, with your
        role in each organization. Use one token per integration and environment, name it after where it is
        used, give it the least scope it needs, and rotate it at least every 90 days.
      </p>
      {done && DONE_MESSAGES[done] && <Notice kind="ok">{DONE_MESSAGES[done]}</Notice>}
      {rotate.length > 0 && (
        <Notice kind="warn">
          {rotate.length === 1 ? 'One token expires' : `${rotate.length} tokens expire`} within{' '}
          {ROTATION_WARNING_DAYS} days: generate a replacement, update the client, then revoke the old one.
        </Notice>
      )}
      <p>
        <a class="button" href="/settings/tokens/new">
          Generate New Token
        </a>
      </p>
      <DataTable
        items={tokens}
        empty="You have no API tokens yet."
        columns={[
          { header: 'Name', cell: (token) => <a href={`/settings/tokens/${token.id}`}>{token.name}</a> },
          { header: 'Prefix', cell: (token) => <code>{token.prefix}…</code> },
          { header: 'Scope', cell: (token) => SCOPE_LABELS[token.scope] },
          { header: 'Organizations', cell: (token) => organizationNames(token, viewer.memberships) },
          { header: 'Created', cell: (token) => <Time iso={token.created_at} /> },
          {
            header: 'Expires',
            cell: (token) => {
              const left = daysLeft(token, now);
              return (
                <>
                  {token.expires_at ? <Time iso={token.expires_at} /> : 'never'}
                  {token.state === 'active' && left !== null && needsRotation(token, now) && (
                    <span class="hint">in {left <= 1 ? 'less than a day' : `${left} days`}</span>
                  )}
                </>
              );
            },
          },
          {
            header: 'Last used',
            cell: (token) =>
              token.last_used_at ? <Time iso={token.last_used_at} /> : <span class="muted">never</span>,
          },
          { header: 'State', cell: (token) => <StateBadge token={token} now={now} /> },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (token) =>
              token.state === 'active' && (
                <a href={`/settings/tokens/${token.id}/revoke`} aria-label={`Revoke ${token.name}`}>
                  Revoke
                </a>
              ),
          },
        ]}
      />
      <ConnectedClients clients={clients} viewer={viewer} />
    </Layout>
  );
}

function TokenFormPage({
  viewer,
  values,
  error,
}: {
  viewer: Viewer;
  values: TokenFormValues;
  error?: string;
}) {
  const selected = new Set(values.organizationIds);
  return (
    <Layout title="Generate New Token" viewer={viewer} section={SECTION}>
      <h1>Generate New Token</h1>
      <div class="card">
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action="/settings/tokens">
          <CsrfField token={viewer.csrfToken} />
          <Input
            id="token-name"
            name="name"
            label="Name"
            value={values.name}
            required
            limit={100}
            autofocus
            hint="Where it will be used, e.g. “Claude Code – work laptop” or “CI reporting (staging)”."
          />
          <ScopeFieldset idPrefix="scope" name="scope" legend="Scope" value={values.scope} recommendRead />
          <OrganizationsFieldset
            idPrefix="org"
            legend="Organizations"
            memberships={viewer.memberships}
            mode={values.organizations}
            selected={selected}
          />
          <Select
            id="token-expiry"
            name="expires_in_days"
            label="Expires in"
            value={String(values.expiresInDays)}
            options={EXPIRY_CHOICES.map((days) => ({
              value: String(days),
              label: days === DEFAULT_EXPIRY_DAYS ? `${days} days (recommended)` : `${days} days`,
            }))}
            hint={`You will see a reminder ${ROTATION_WARNING_DAYS} days before it expires.`}
          />
          <div class="actions">
            <button type="submit">Generate token</button>
            <a href="/settings/tokens">Cancel</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}

function Snippet({
  id,
  title,
  label,
  children,
}: {
  id: string;
  title: string;
  label: string;
  children: string;
}) {
  return (
    <div class="snippet">
      <div class="snippet-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <button
          type="button"
          class="button small quiet"
          data-copy={id}
          data-copy-label={label}
          aria-describedby={`${id}-title`}
        >
          Copy
        </button>
      </div>
      <pre id={id}>{children}</pre>
    </div>
  );
}

export function mcpClientSnippets(baseUrl: string, secret: string) {
  const endpoint = `${baseUrl}/api/mcp/v1`;
  return {
    claudeCode: `claude mcp add --transport http compliance ${endpoint} --header "Authorization: Bearer ${secret}"`,
    json: JSON.stringify(
      {
        mcpServers: {
          compliance: { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${secret}` } },
        },
      },
      null,
      2,
    ),
    curl: `curl -s -X POST ${baseUrl}/api/mcp/tools/listOrganizations \\\n  -H "Authorization: Bearer ${secret}"`,
  };
}

function TokenCreatedPage(props: {
  viewer: Viewer;
  name: string;
  secret: string;
  expiresAt: string | null;
  baseUrl: string;
}) {
  const snippets = mcpClientSnippets(props.baseUrl, props.secret);
  return (
    <Layout title="Token created" viewer={props.viewer} section={SECTION}>
      <h1>Token “{props.name}” created</h1>
      <Notice kind="warn">
        <strong>Copy the token now: it is shown only this once.</strong> Only its hash is stored, so it cannot
        be shown again. If you lose it, revoke it and generate a new one.
      </Notice>
      <div class="card">
        <div class="field">
          <label for="token-secret">Your new API token</label>
          <div class="secret">
            <input
              id="token-secret"
              type="text"
              readonly
              value={props.secret}
              aria-describedby="token-secret-hint"
            />
            <button type="button" data-copy="token-secret" data-copy-label="Token">
              Copy
            </button>
          </div>
          <span class="hint" id="token-secret-hint">
            Send it as <code>Authorization: Bearer &lt;token&gt;</code>.{' '}
            {props.expiresAt ? (
              <>
                It expires <Time iso={props.expiresAt} />.
              </>
            ) : (
              'It does not expire.'
            )}
          </span>
        </div>
      </div>
      <h2>Connect a client</h2>
      <p>
        MCP endpoint (Streamable HTTP): <code>{props.baseUrl}/api/mcp/v1</code>
      </p>
      <Snippet id="snippet-claude-code" title="Claude Code" label="Claude Code command">
        {snippets.claudeCode}
      </Snippet>
      <Snippet
        id="snippet-json"
        title="JSON configuration (Claude Desktop, Cursor, VS Code and others)"
        label="Configuration"
      >
        {snippets.json}
      </Snippet>
      <Snippet id="snippet-curl" title="Check it with curl" label="curl command">
        {snippets.curl}
      </Snippet>
      <p>
        <a class="button quiet" href="/settings/tokens">
          Done: back to API Tokens
        </a>
      </p>
    </Layout>
  );
}

function TokenPage(props: {
  viewer: Viewer;
  token: TokenSummary;
  now: Date;
  activity: Awaited<ReturnType<typeof callActivity>>;
}) {
  const { token } = props;
  return (
    <Layout title={`Token ${token.name}`} viewer={props.viewer} section={SECTION}>
      <p class="small">
        <a href="/settings/tokens">API Tokens</a> ›
      </p>
      <h1>{token.name}</h1>
      <div class="card">
        <dl class="details">
          <dt>State</dt>
          <dd>
            <StateBadge token={token} now={props.now} />
          </dd>
          <dt>Prefix</dt>
          <dd>
            <code>{token.prefix}…</code>
          </dd>
          <dt>Scope</dt>
          <dd>{token.scope}</dd>
          <dt>Organizations</dt>
          <dd>{organizationNames(token, props.viewer.memberships)}</dd>
          <dt>Created</dt>
          <dd>
            <Time iso={token.created_at} />
          </dd>
          <dt>Expires</dt>
          <dd>{token.expires_at ? <Time iso={token.expires_at} /> : 'never'}</dd>
          <dt>Last used</dt>
          <dd>{token.last_used_at ? <Time iso={token.last_used_at} /> : 'never'}</dd>
          {token.revoked_at && (
            <>
              <dt>Revoked</dt>
              <dd>
                <Time iso={token.revoked_at} />
              </dd>
            </>
          )}
        </dl>
        {token.state === 'active' && (
          <div class="actions">
            <a class="button danger" href={`/settings/tokens/${token.id}/revoke`}>
              Revoke this token
            </a>
          </div>
        )}
      </div>
      <h2>Calls per day</h2>
      <CallsPerDay perDay={props.activity.perDay} now={props.now} label={`Calls with ${token.name}`} />
      <h2>Recent calls</h2>
      <RecentCalls calls={props.activity.recent} total={props.activity.total} show={{ organization: true }} />
      <p class="small muted">
        Calls appear here within a few seconds. Times are UTC; the chart covers {ACTIVITY_DAYS} days.
      </p>
    </Layout>
  );
}

function RevokePage({ viewer, token }: { viewer: Viewer; token: TokenSummary }) {
  return (
    <ConfirmPage
      viewer={viewer}
      title="Revoke token"
      section={SECTION}
      heading={`Revoke “${token.name}”?`}
      action={`/settings/tokens/${token.id}/revoke`}
      button="Revoke token"
      cancelHref={`/settings/tokens/${token.id}`}
    >
      <p>
        Clients using <code>{token.prefix}…</code> get <strong>401 Unauthorized</strong> from the next call
        on. This cannot be undone.
      </p>
    </ConfirmPage>
  );
}

function readTokenForm(body: FormBody): TokenFormValues {
  const days = Number(text(body, 'expires_in_days'));
  return {
    name: text(body, 'name').trim(),
    scope: tokenScopeOf(text(body, 'scope')) ?? 'read',
    organizations: text(body, 'organization_mode') === 'some' ? 'some' : 'all',
    organizationIds: texts(body, 'organizations'),
    expiresInDays: (EXPIRY_CHOICES as readonly number[]).includes(days) ? days : DEFAULT_EXPIRY_DAYS,
  };
}

export function tokenRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  async function ownToken(c: Context<WebEnv>, id: string): Promise<TokenSummary | undefined> {
    return (await deps.tokens.list(c.get('user').id)).find((token) => token.id === id);
  }

  web.get('/settings/tokens', async (c) => {
    await deps.usage.flush(); // so "last used" includes the calls of the last second
    const tokens = await deps.tokens.list(c.get('user').id);
    const clients = await deps.oauth.grants.listForUser(c.get('user').id);
    return sendPage(
      c,
      <TokenListPage
        viewer={viewerOf(c)}
        tokens={tokens}
        clients={clients}
        now={deps.now()}
        done={c.req.query('done')}
      />,
    );
  });

  web.get('/settings/tokens/new', (c) =>
    sendPage(c, <TokenFormPage viewer={viewerOf(c)} values={DEFAULT_FORM} />),
  );

  web.post('/settings/tokens', async (c) => {
    const viewer = viewerOf(c);
    const values = readTokenForm(await c.req.parseBody({ all: true }));
    const fail = (message: string) =>
      sendPage(c, <TokenFormPage viewer={viewer} values={values} error={message} />, 422);
    if (!values.name) return fail('Give the token a name, e.g. where it will be used.');
    if (values.organizations === 'some' && values.organizationIds.length === 0) {
      return fail('Choose at least one organization, or allow all of them.');
    }
    let created: Awaited<ReturnType<typeof deps.tokens.create>>;
    try {
      created = await deps.tokens.create({
        userId: viewer.user.id,
        name: values.name,
        scope: values.scope,
        organizationIds: values.organizations === 'some' ? values.organizationIds : null,
        expiresAt: new Date(deps.now().getTime() + values.expiresInDays * DAY_MS).toISOString(),
      });
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_arguments' || error.code === 'not_found')) {
        return fail(error.code === 'not_found' ? 'Choose only organizations you belong to.' : error.message);
      }
      throw error;
    }
    const baseUrl = baseUrlOf(deps.config, c.req.url);
    return sendPage(
      c,
      <TokenCreatedPage
        viewer={viewer}
        name={values.name}
        secret={created.token}
        expiresAt={created.expires_at}
        baseUrl={baseUrl}
      />,
      201,
    );
  });

  web.get('/settings/tokens/:id', async (c) => {
    // Calls (and last use) are buffered for a second before they are written; show the ones just made.
    await deps.usage.flush();
    const token = await ownToken(c, c.req.param('id'));
    if (!token) return notFoundPage(c, viewerOf(c));
    const now = deps.now();
    const activity = await callActivity(deps.database.db, { tokenId: token.id }, activitySince(now));
    return sendPage(c, <TokenPage viewer={viewerOf(c)} token={token} now={now} activity={activity} />);
  });

  web.get('/settings/tokens/:id/revoke', async (c) => {
    const token = await ownToken(c, c.req.param('id'));
    if (!token) return notFoundPage(c, viewerOf(c));
    if (token.state !== 'active') return c.redirect(`/settings/tokens/${token.id}`, 303);
    return sendPage(c, <RevokePage viewer={viewerOf(c)} token={token} />);
  });

  web.post('/settings/tokens/:id/revoke', async (c) => {
    const token = await ownToken(c, c.req.param('id'));
    if (!token) return notFoundPage(c, viewerOf(c));
    // Revocation deletes the token's cache entry, so this process refuses it from the next request on.
    await deps.tokens.revoke(token.id, c.get('user').id);
    return c.redirect('/settings/tokens?done=revoked', 303);
  });
  return web;
}
