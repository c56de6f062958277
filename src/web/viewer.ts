// The signed-in person as the pages see them: user, CSRF token for forms, organizations for the switcher.
import type { Context } from 'hono';
import type { WebEnv } from './context.ts';
import type { Viewer } from './layout.tsx';

export function viewerOf(c: Context<WebEnv>): Viewer {
  return {
    user: c.get('user'),
    csrfToken: c.get('session').csrfToken,
    memberships: c.get('memberships'),
    unread: c.get('unread'),
    flash: c.get('flash'),
  };
}
