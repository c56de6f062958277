// The page frame (head, top bar with the organization switcher, side navigation) and small shared UI pieces.

import { raw } from 'hono/html';
import type { Child, PropsWithChildren } from 'hono/jsx';
import { ASSET_PATHS } from './assets.ts';
import type { Membership, SignedInUser } from './context.ts';
import { CSRF_FIELD } from './csrf.ts';
import { REGISTER_PAGES } from './register-pages.ts';

export interface Viewer {
  user: SignedInUser;
  csrfToken: string;
  memberships: Membership[];
  /** Unread in-app notifications, shown in the top bar. */
  unread?: number | undefined;
  /** The one-time message left by the previous form post, if any. */
  flash?: string | undefined;
}

export type Section =
  | { kind: 'organization'; organizationId: string; page: string }
  | { kind: 'settings'; page: 'tokens' | 'password' | 'notifications' }
  | { kind: 'none' };

interface LayoutProps {
  title: string;
  viewer?: Viewer | undefined;
  section?: Section;
}

export function Layout({
  title,
  viewer,
  section = { kind: 'none' },
  children,
}: PropsWithChildren<LayoutProps>) {
  const current = section.kind === 'organization' ? section.organizationId : undefined;
  return (
    <>
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${title} · Compliance MCP`}</title>
          <link rel="stylesheet" href={ASSET_PATHS.css} />
          <link rel="icon" type="image/svg+xml" href={ASSET_PATHS.icon} />
          <script src={ASSET_PATHS.js} defer />
        </head>
        <body>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <header class="topbar">
            <a class="brand" href="/">
              Compliance <span>MCP</span>
            </a>
            {viewer && viewer.memberships.length > 0 && (
              <form class="switcher" method="get" action="/orgs/switch">
                <label for="org-switcher">Organization</label>
                <select id="org-switcher" name="organization_id">
                  {!current && <option value="">Choose…</option>}
                  {viewer.memberships.map((membership) => (
                    <option
                      value={membership.organizationId}
                      selected={membership.organizationId === current}
                    >
                      {membership.name}
                    </option>
                  ))}
                </select>
                <button type="submit" class="button small quiet">
                  Go
                </button>
              </form>
            )}
            {viewer && (
              <nav class="topnav" aria-label="Account">
                <a href="/my-work">My work</a>
                <a href="/invitations">Invitations</a>
                <a href="/orgs/new">New organization</a>
                {/* The name read out starts with the text shown ("Notifications 3"), as axe's label-content-name-mismatch asks. */}
                <a href="/notifications" class="bell">
                  Notifications
                  {viewer.unread ? (
                    <>
                      {' '}
                      <span class="count">
                        {viewer.unread > 99 ? '99+' : viewer.unread}
                        <span class="visually-hidden"> unread</span>
                      </span>
                    </>
                  ) : null}
                </a>
                <a href="/settings/tokens">Settings</a>
                <span class="who">{viewer.user.email}</span>
                <form method="post" action="/logout" class="inline">
                  <CsrfField token={viewer.csrfToken} />
                  <button type="submit" class="button small quiet">
                    Sign out
                  </button>
                </form>
              </nav>
            )}
          </header>
          {viewer && section.kind !== 'none' ? (
            <div class="shell">
              <SideNav section={section} viewer={viewer} />
              <main id="main" tabindex={-1}>
                {viewer.flash && <Notice kind="ok">{viewer.flash}</Notice>}
                {children}
              </main>
            </div>
          ) : (
            <main id="main" tabindex={-1} class="page">
              {viewer?.flash && <Notice kind="ok">{viewer.flash}</Notice>}
              {children}
            </main>
          )}
          <p id="copy-status" class="visually-hidden" role="status" aria-live="polite" />
        </body>
      </html>
    </>
  );
}

function NavLink({ href, active, children }: PropsWithChildren<{ href: string; active: boolean }>) {
  return (
    <li>
      <a href={href} aria-current={active ? 'page' : undefined}>
        {children}
      </a>
    </li>
  );
}

function SideNav({ section, viewer }: { section: Section; viewer: Viewer }) {
  if (section.kind === 'settings') {
    return (
      <Menu label="Settings">
        <h2>Settings</h2>
        <ul>
          <NavLink href="/settings/tokens" active={section.page === 'tokens'}>
            API Tokens
          </NavLink>
          <NavLink href="/settings/password" active={section.page === 'password'}>
            Password
          </NavLink>
          <NavLink href="/settings/notifications" active={section.page === 'notifications'}>
            Notifications
          </NavLink>
        </ul>
      </Menu>
    );
  }
  if (section.kind !== 'organization') return null;
  const base = `/orgs/${section.organizationId}`;
  const membership = viewer.memberships.find((item) => item.organizationId === section.organizationId);
  return (
    <Menu label="Organization pages">
      <h2 dir="auto">{membership?.name ?? 'Organization'}</h2>
      <search>
        <form method="get" action={`${base}/search`} class="menu-search">
          <label for="menu-search" class="visually-hidden">
            Search all registers
          </label>
          <input id="menu-search" type="search" name="q" placeholder="Search registers" />
        </form>
      </search>
      <ul>
        <NavLink href={base} active={section.page === 'overview'}>
          Overview
        </NavLink>
      </ul>
      <h2>Registers</h2>
      <ul>
        {REGISTER_PAGES.map((page) => (
          <NavLink href={`${base}/${page.slug}`} active={section.page === page.slug}>
            {page.title}
          </NavLink>
        ))}
      </ul>
      <h2>Administration</h2>
      <ul>
        <NavLink href={`${base}/history`} active={section.page === 'history'}>
          History
        </NavLink>
        <NavLink href={`${base}/proposals`} active={section.page === 'proposals'}>
          Proposals
        </NavLink>
        <NavLink href={`${base}/settings`} active={section.page === 'settings'}>
          Settings
        </NavLink>
        <NavLink href={`${base}/members`} active={section.page === 'members'}>
          Members
        </NavLink>
        <NavLink href={`${base}/trust`} active={section.page === 'trust'}>
          Trust page
        </NavLink>
        {membership && (membership.role === 'OWNER' || membership.role === 'ADMIN') && (
          <NavLink href={`${base}/activity`} active={section.page === 'activity'}>
            Activity
          </NavLink>
        )}
        {membership && (membership.role === 'OWNER' || membership.role === 'ADMIN') && (
          <NavLink href={`${base}/webhooks`} active={section.page === 'webhooks'}>
            Webhooks
          </NavLink>
        )}
      </ul>
    </Menu>
  );
}

/**
 * The side menu. On narrow screens (phones) the script folds it behind a Menu button, so a page's own content is on
 * the first screen; without the script it stays open.
 */
function Menu({ label, children }: PropsWithChildren<{ label: string }>) {
  return (
    <nav class="sidenav" aria-label={label}>
      <button type="button" class="menu-toggle" aria-expanded="true" aria-controls="menu-lists">
        Menu
      </button>
      <div class="menu-lists" id="menu-lists">
        {children}
      </div>
    </nav>
  );
}

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

export function Notice({ kind, children }: PropsWithChildren<{ kind: 'ok' | 'error' | 'warn' }>) {
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function Badge({ tone, children }: PropsWithChildren<{ tone?: 'ok' | 'warn' | 'bad' | undefined }>) {
  return <span class={tone ? `badge ${tone}` : 'badge'}>{children}</span>;
}

/**
 * Links between the pages of a list: back to the first page and to the previous one (when on a later one), the
 * page's number, and on to the next.
 */
export function Pager({
  first,
  previous,
  next,
  number,
}: {
  first: string | null;
  previous?: string | null;
  next: string | null;
  number?: number;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      {first && <a href={first}>First page</a>}
      {previous && previous !== first && (
        <a href={previous} rel="prev">
          Previous page
        </a>
      )}
      {number !== undefined && (first || next) && <span class="muted">Page {number}</span>}
      {next && (
        <a class="button quiet" href={next} rel="next">
          Next page
        </a>
      )}
    </nav>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function Time({ iso }: { iso: string | null | undefined }): Child {
  if (!iso) return <span class="muted">—</span>;
  return <time datetime={iso}>{formatTime(iso)}</time>;
}

/** A page of one card: a heading, an optional notice (what happened), the content (where to go next). */
export function CardPage(props: {
  title: string;
  notice?: { kind: 'ok' | 'error' | 'warn'; text: string } | undefined;
  children?: Child;
}) {
  return (
    <Layout title={props.title}>
      <div class="narrow">
        <div class="card">
          <h1>{props.title}</h1>
          {props.notice && <Notice kind={props.notice.kind}>{props.notice.text}</Notice>}
          {props.children}
        </div>
      </div>
    </Layout>
  );
}
