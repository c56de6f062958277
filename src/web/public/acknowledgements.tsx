// The page an acknowledgement link opens, for people without an account: the document version the link grants and an
// "I have read and accept" button. Opening shows; only the form's POST (same origin, double-submit token) acknowledges.
import { Hono } from 'hono';
import { ACK_LINK_PREFIX, acknowledgeByLink, findAckLink } from '../../tools/acknowledgements/links.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { CardPage, CsrfField } from '../layout.tsx';
import { refusePublicPost } from '../public-posts.ts';
import { formToken } from '../sessions.ts';
import { refusedLinkPage, sendPublicPage } from './layout.tsx';
import { limitPublicLink } from './limits.tsx';

const ACK_LIMIT_KEY = 'public:ack';

export function acknowledgementRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const path = `${ACK_LINK_PREFIX}:secret`;

  web.get(path, async (c) => {
    const limited = await limitPublicLink(c, deps, ACK_LIMIT_KEY);
    if (limited) return limited;
    const secret = c.req.param('secret');
    const found = await findAckLink(db, secret, deps.now());
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    const { grant } = found;
    return sendPublicPage(
      c,
      <CardPage title={`${grant.title}, version ${grant.version}`}>
        <p>{grant.organizationName} asks you to read this document and confirm that you accept it.</p>
        {grant.content ? (
          <pre class="document-content" dir="auto" tabindex={0}>
            {grant.content}
          </pre>
        ) : (
          <p>This version has no text here; it is a file your organization shares with you.</p>
        )}
        <form method="post" action={`${ACK_LINK_PREFIX}${secret}`}>
          <CsrfField token={formToken(c)} />
          <div class="actions">
            <button type="submit">I have read and accept</button>
          </div>
        </form>
      </CardPage>,
    );
  });

  web.post(path, async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const limited = await limitPublicLink(c, deps, ACK_LIMIT_KEY);
    if (limited) return limited;
    const now = deps.now();
    const found = await findAckLink(db, c.req.param('secret'), now);
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    if (!(await acknowledgeByLink(db, found.grant, now))) return refusedLinkPage(c, 'used');
    return sendPublicPage(
      c,
      <CardPage
        title="Thank you"
        notice={{
          kind: 'ok',
          text: `You acknowledged ${found.grant.title}, version ${found.grant.version}, on ${now.toISOString().slice(0, 10)}.`,
        }}
      >
        <p>You can close this page.</p>
      </CardPage>,
    );
  });
  return web;
}
