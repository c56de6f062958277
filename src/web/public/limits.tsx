// The rate limit of public link pages: posts per client network, whatever the link (guessing secrets costs attempts).
import type { Context } from 'hono';
import type { WebDeps } from '../context.ts';
import { CardPage } from '../layout.tsx';
import { clientNetworkOf } from '../public-posts.ts';
import { type AttemptLimit, attemptWaitSeconds, reserveAttempt } from '../throttle.ts';
import { type PublicLinkRefusal, sendPublicPage } from './layout.tsx';

export const PUBLIC_LINK_LIMIT: AttemptLimit = { max: 120, windowSeconds: 15 * 60 };

/** Counts one use of a public link from this client: null if allowed, else the 429 page to send. */
export async function limitPublicLink(c: Context, deps: WebDeps, key: string): Promise<Response | null> {
  const now = deps.now();
  const client = clientNetworkOf(c, deps);
  if ((await reserveAttempt(deps.database.db, key, PUBLIC_LINK_LIMIT, now, client)) !== undefined)
    return null;
  const wait = await attemptWaitSeconds(deps.database.db, key, PUBLIC_LINK_LIMIT, now, client);
  c.header('retry-after', String(wait));
  return sendPublicPage(
    c,
    <CardPage
      title="Too many attempts"
      notice={{
        kind: 'error',
        text: `Too many attempts from your network. Try again in ${Math.ceil(wait / 60)} minutes.`,
      }}
    />,
    429,
  );
}

export type { PublicLinkRefusal };
