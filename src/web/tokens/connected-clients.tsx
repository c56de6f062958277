// Settings > API Tokens, "Connected clients": OAuth grants with scope, organizations, last use; revoking ends a grant.

import { Hono } from 'hono';
import { SCOPE_LABELS } from '../../auth/principal.ts';
import type { ConnectedClient } from '../../oauth/grants.ts';
import { redirectHostOf } from '../../oauth/redirect-uris.ts';
import { ConfirmPage } from '../confirm-page.tsx';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { Badge, Time, type Viewer } from '../layout.tsx';
import { notFoundPage, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';

const SECTION = { kind: 'settings', page: 'tokens' } as const;

function organizationNames(client: ConnectedClient, memberships: Membership[]): string {
  if (!client.organizationIds) return 'All yours when it was connected (and any you opened to it)';
  const names = new Map(memberships.map((membership) => [membership.organizationId, membership.name]));
  return client.organizationIds.map((id) => names.get(id) ?? 'a former organization').join(', ');
}

function StateBadge({ client }: { client: ConnectedClient }) {
  if (client.state === 'revoked') return <Badge tone="bad">revoked</Badge>;
  if (client.state === 'expired') return <Badge>expired</Badge>;
  return <Badge tone="ok">connected</Badge>;
}

/** The section of the API Tokens page listing the apps connected by OAuth (none: a short explanation). */
export function ConnectedClients({ clients, viewer }: { clients: ConnectedClient[]; viewer: Viewer }) {
  return (
    <section aria-labelledby="connected-clients">
      <h2 id="connected-clients">Connected clients</h2>
      <p class="lead">
        Apps you connected by signing in (OAuth), such as Claude or ChatGPT connectors. They get one-hour
        tokens with the scope and organizations you chose, renewed until the access ends or you revoke it.
      </p>
      <DataTable
        items={clients}
        empty="No connected clients."
        columns={[
          { header: 'Client', cell: (client) => client.clientName },
          { header: 'Returns to', cell: (client) => <code>{redirectHostOf(client.redirectUri)}</code> },
          { header: 'Scope', cell: (client) => SCOPE_LABELS[client.scope] },
          { header: 'Organizations', cell: (client) => organizationNames(client, viewer.memberships) },
          { header: 'Connected', cell: (client) => <Time iso={client.createdAt} /> },
          { header: 'Access ends', cell: (client) => <Time iso={client.revokedAt ?? client.expiresAt} /> },
          {
            header: 'Last used',
            cell: (client) =>
              client.lastUsedAt ? <Time iso={client.lastUsedAt} /> : <span class="muted">never</span>,
          },
          { header: 'State', cell: (client) => <StateBadge client={client} /> },
          {
            header: 'Actions',
            hiddenHeader: true,
            cell: (client) =>
              client.state === 'active' && (
                <a
                  href={`/settings/connected-clients/${client.id}/revoke`}
                  aria-label={`Revoke ${client.clientName}`}
                >
                  Revoke
                </a>
              ),
          },
        ]}
      />
    </section>
  );
}

function RevokePage({ viewer, client }: { viewer: Viewer; client: ConnectedClient }) {
  return (
    <ConfirmPage
      viewer={viewer}
      title="Revoke connected client"
      section={SECTION}
      heading={`Revoke “${client.clientName}”?`}
      action={`/settings/connected-clients/${client.id}/revoke`}
      button="Revoke access"
      cancelHref="/settings/tokens"
    >
      <p>
        Its access and refresh tokens stop working at once: it gets <strong>401 Unauthorized</strong> and must
        ask you again to connect.
      </p>
    </ConfirmPage>
  );
}

export function connectedClientRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const own = async (userId: string, id: string) =>
    (await deps.oauth.grants.listForUser(userId)).find((client) => client.id === id);

  web.get('/settings/connected-clients/:id/revoke', async (c) => {
    const client = await own(c.get('user').id, c.req.param('id'));
    if (!client) return notFoundPage(c, viewerOf(c));
    if (client.state !== 'active') return c.redirect('/settings/tokens', 303);
    return sendPage(c, <RevokePage viewer={viewerOf(c)} client={client} />);
  });

  web.post('/settings/connected-clients/:id/revoke', async (c) => {
    const client = await own(c.get('user').id, c.req.param('id'));
    if (!client) return notFoundPage(c, viewerOf(c));
    await deps.oauth.grants.endGrant(client.id, c.get('user').id);
    return c.redirect('/settings/tokens?done=client-revoked', 303);
  });
  return web;
}
