// Settings > API Tokens, "Connected clients": OAuth grants with scope, organizations, last use; revoking ends a grant.
import { Hono } from 'hono';
import type { ConnectedClient } from '../../oauth/grants.ts';
import { redirectHostOf } from '../../oauth/redirect-uris.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { Badge, CsrfField, Layout, Time, type Viewer } from '../layout.tsx';
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
      <div class="table-wrap">
        {clients.length === 0 ? (
          <p class="empty">No connected clients.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Client</th>
                <th scope="col">Returns to</th>
                <th scope="col">Scope</th>
                <th scope="col">Organizations</th>
                <th scope="col">Connected</th>
                <th scope="col">Access ends</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {clients.map((client) => (
                <tr>
                  <td>{client.clientName}</td>
                  <td>
                    <code>{redirectHostOf(client.redirectUri)}</code>
                  </td>
                  <td>{client.scope === 'read' ? 'read' : 'read & write'}</td>
                  <td>{organizationNames(client, viewer.memberships)}</td>
                  <td>
                    <Time iso={client.createdAt} />
                  </td>
                  <td>
                    <Time iso={client.revokedAt ?? client.expiresAt} />
                  </td>
                  <td>
                    {client.lastUsedAt ? <Time iso={client.lastUsedAt} /> : <span class="muted">never</span>}
                  </td>
                  <td>
                    <StateBadge client={client} />
                  </td>
                  <td>
                    {client.state === 'active' && (
                      <a
                        href={`/settings/connected-clients/${client.id}/revoke`}
                        aria-label={`Revoke ${client.clientName}`}
                      >
                        Revoke
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

function RevokePage({ viewer, client }: { viewer: Viewer; client: ConnectedClient }) {
  return (
    <Layout title="Revoke connected client" viewer={viewer} section={SECTION}>
      <h1>Revoke “{client.clientName}”?</h1>
      <div class="card">
        <p>
          Its access and refresh tokens stop working at once: it gets <strong>401 Unauthorized</strong> and
          must ask you again to connect.
        </p>
        <form method="post" action={`/settings/connected-clients/${client.id}/revoke`}>
          <CsrfField token={viewer.csrfToken} />
          <div class="actions">
            <button type="submit" class="danger">
              Revoke access
            </button>
            <a href="/settings/tokens">Cancel</a>
          </div>
        </form>
      </div>
    </Layout>
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
