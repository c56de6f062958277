// The invitee's side of invitations: the Invitations page (those addressed to the account's email) and the page an
// invitation email's link opens; accepting makes the membership, declining deletes the invitation.
import { type Context, Hono } from 'hono';
import { AppError } from '../../errors.ts';
import {
  acceptInvitation,
  declineInvitation,
  INVITATION_GONE,
  type InvitationView,
  invitationBySecret,
  invitationsFor,
} from '../../invitations.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import { text } from '../forms.tsx';
import { CsrfField, Layout, Notice, Time, type Viewer } from '../layout.tsx';
import { errorPage, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';

/** Accept (with the choice about earlier tokens) and decline, for one invitation. */
function AnswerForms(props: { viewer: Viewer; invitation: InvitationView; secret?: string | undefined }) {
  const { invitation, viewer } = props;
  const id = invitation.id;
  const canAccept = viewer.user.emailVerified === true || props.secret !== undefined;
  return (
    <div class="card">
      <p>
        <strong>{invitation.invitedBy}</strong> invited {invitation.email} to{' '}
        <strong>{invitation.organizationName}</strong> as {invitation.role}. Open until{' '}
        <Time iso={invitation.expiresAt} />.
      </p>
      {!canAccept && (
        <Notice kind="warn">
          Confirm your address {viewer.user.email} first (
          <a href="/settings/password">Settings &gt; Password</a>
          ), or open the link of the invitation email.
        </Notice>
      )}
      {/* One form, two answers: Decline posts the same fields to its own action. */}
      <form method="post" action={`/invitations/${id}/accept`}>
        <CsrfField token={viewer.csrfToken} />
        {props.secret && <input type="hidden" name="secret" value={props.secret} />}
        {canAccept && (
          <>
            <div class="choice">
              <input type="checkbox" id={`earlier-${id}`} name="earlier_tokens" value="yes" />
              <label for={`earlier-${id}`}>
                Also let my existing API tokens and connected apps for “all organizations” reach{' '}
                {invitation.organizationName}
              </label>
            </div>
            <p class="small muted">
              Unticked, only tokens and connections you make from now on reach it: what this organization
              holds (its tasks and records) never reaches an assistant you set up before you joined without
              your say.
            </p>
          </>
        )}
        <div class="actions">
          {canAccept && <button type="submit">Accept and join</button>}
          <button type="submit" class="quiet" formaction={`/invitations/${id}/decline`}>
            Decline
          </button>
        </div>
      </form>
    </div>
  );
}

function InvitationsPage(props: {
  viewer: Viewer;
  invitations: InvitationView[];
  error?: string | undefined;
  notice?: string | undefined;
}) {
  return (
    <Layout title="Invitations" viewer={props.viewer}>
      <h1>Invitations</h1>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {props.invitations.length === 0 ? (
        <p class="muted">No invitation is waiting for {props.viewer.user.email}.</p>
      ) : (
        props.invitations.map((invitation) => <AnswerForms viewer={props.viewer} invitation={invitation} />)
      )}
    </Layout>
  );
}

function InvitationLinkPage(props: { viewer: Viewer; invitation: InvitationView; secret: string }) {
  return (
    <Layout title={`Invitation to ${props.invitation.organizationName}`} viewer={props.viewer}>
      <h1>Invitation to {props.invitation.organizationName}</h1>
      <AnswerForms viewer={props.viewer} invitation={props.invitation} secret={props.secret} />
    </Layout>
  );
}

export function invitationRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;

  const listPage = async (c: Context<WebEnv>, status: 200 | 403 | 404 | 409, extra = {}) =>
    sendPage(
      c,
      <InvitationsPage
        viewer={viewerOf(c)}
        invitations={await invitationsFor(db, c.get('user').email, deps.now())}
        {...extra}
      />,
      status,
    );

  web.get('/invitations', (c) => listPage(c, 200));

  // Signed in only (an invitee without a session is sent to sign in or sign up, and comes back here).
  web.get('/invite/:secret', async (c) => {
    const viewer = viewerOf(c);
    const invitation = await invitationBySecret(db, c.req.param('secret'));
    if (!invitation) return errorPage(c, 404, 'Invitation not open', INVITATION_GONE, viewer);
    if (invitation.expiresAt <= deps.now().toISOString())
      return errorPage(
        c,
        410,
        'Invitation expired',
        `This invitation to ${invitation.organizationName} expired on ${invitation.expiresAt.slice(0, 10)}. Ask ${invitation.invitedBy} to invite you again.`,
        viewer,
      );
    if (invitation.email !== viewer.user.email)
      return errorPage(
        c,
        403,
        'Invitation for another address',
        `This invitation is for ${invitation.email}, and you are signed in as ${viewer.user.email}. Sign out, then sign in (or sign up) with ${invitation.email}.`,
        viewer,
      );
    return sendPage(
      c,
      <InvitationLinkPage viewer={viewer} invitation={invitation} secret={c.req.param('secret')} />,
    );
  });

  /** True when `secret` is the link of invitation `id` (the person got the email: it confirms the address). */
  async function isLinkOf(id: string, secret: string): Promise<boolean> {
    if (!secret) return false;
    return (await invitationBySecret(db, secret))?.id === id;
  }

  web.post('/invitations/:id/accept', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const user = c.get('user');
    const id = c.req.param('id');
    try {
      const joined = await acceptInvitation(db, deps.now(), {
        invitationId: id,
        user: { id: user.id, email: user.email, emailVerified: user.emailVerified === true },
        byLink: await isLinkOf(id, text(body, 'secret')),
        earlierTokens: text(body, 'earlier_tokens') === 'yes',
      });
      // Cached principals of the person's tokens are dropped: those that reach the new organization do at once.
      await deps.tokens.invalidateUser(user.id);
      setFlash(c, `You joined ${joined.organizationName}.`);
      return c.redirect(`/orgs/${joined.organizationId}`, 303);
    } catch (error) {
      if (error instanceof AppError && ['not_found', 'conflict', 'forbidden'].includes(error.code))
        return listPage(c, error.status as 403 | 404 | 409, { error: error.message });
      throw error;
    }
  });

  web.post('/invitations/:id/decline', async (c) => {
    const declined = await declineInvitation(db, c.req.param('id'), c.get('user').email);
    if (!declined) return listPage(c, 404, { error: INVITATION_GONE });
    return listPage(c, 200, { notice: 'The invitation was declined.' });
  });
  return web;
}
