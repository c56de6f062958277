// The pages the mailed (or operator-printed) links open: confirm a sign-up or an address, ask for and use a password
// reset. Opening a link shows a page; only its form's POST uses the link (mail scanners that follow links use nothing).
import { type Context, Hono } from 'hono';
import {
  type AccountLink,
  completeSignUp,
  findLink,
  issueLink,
  LINK_HOURS,
  type LinkPurpose,
  type LinkRefusal,
  linkPath,
  useLink,
} from '../../account-links.ts';
import { checkEmail, findUserByEmail, markEmailVerified, normalizeEmail } from '../../accounts.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../auth/passwords.ts';
import { AppError } from '../../errors.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { resetEmail } from '../emails.ts';
import { Input, text } from '../forms.tsx';
import { CsrfField, Layout, Notice } from '../layout.tsx';
import { clientNetworkOf, refusePublicPost } from '../public-posts.ts';
import { setPasswordHash } from '../queries.ts';
import { sendPage } from '../render.tsx';
import { createSession, endAllSessions, formToken } from '../sessions.ts';
import {
  attemptWaitSeconds,
  MAIL_LIMIT,
  mailKey,
  RESET_CLIENT_KEY,
  RESET_CLIENT_LIMIT,
  reserveAttempts,
} from '../throttle.ts';
import { NewPasswordFields, sendMessage } from './public-forms.tsx';
import { limitMessage, safeNext } from './routes.tsx';

const REFUSALS: Record<LinkRefusal, { status: 404 | 410; title: string; text: string }> = {
  unknown: {
    status: 404,
    title: 'This link does not work',
    text: 'The link is not one we sent, or it was cut short. Copy the whole link from the email, or ask for a new one.',
  },
  used: {
    status: 410,
    title: 'This link was already used',
    text: 'A link works once. If it was you, you are done: sign in. Otherwise ask for a new one.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'Ask for a new one: sign up again, or use “Forgot your password?” on the sign-in page.',
  },
};

function refusalPage(c: Context, refusal: LinkRefusal) {
  const { status, title, text: words } = REFUSALS[refusal];
  return sendMessage(c, status, {
    title,
    children: (
      <p>
        {words} <a href="/login">Sign in</a> · <a href="/reset">Reset a password</a> ·{' '}
        <a href="/signup">Sign up</a>
      </p>
    ),
  });
}

function ConfirmPage(props: { csrf: string; link: AccountLink; secret: string; error?: string }) {
  const signUp = props.link.purpose === 'signup';
  return (
    <Layout title="Confirm your address">
      <div class="narrow">
        <div class="card">
          <h1>Confirm your address</h1>
          {props.error && <Notice kind="error">{props.error}</Notice>}
          <p>
            {signUp
              ? `Confirm that ${props.link.email} is yours: your account is made and you are signed in.`
              : `Confirm that ${props.link.email} is the address of your account.`}
          </p>
          <form method="post" action={linkPath(props.link.purpose, props.secret)}>
            <CsrfField token={props.csrf} />
            <div class="actions">
              <button type="submit">{signUp ? 'Confirm and sign in' : 'Confirm my address'}</button>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

function ResetRequestPage(props: { csrf: string; email?: string; error?: string }) {
  return (
    <Layout title="Reset your password">
      <div class="narrow">
        <div class="card">
          <h1>Reset your password</h1>
          {props.error && <Notice kind="error">{props.error}</Notice>}
          <form method="post" action="/reset">
            <CsrfField token={props.csrf} />
            <Input
              id="email"
              label="Email"
              type="email"
              value={props.email}
              required
              autocomplete="username"
              autofocus
              hint="We send a link to choose a new password to this address, if it has an account."
            />
            <div class="actions">
              <button type="submit">Send the link</button>
              <a href="/login">Back to sign-in</a>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

function NewPasswordPage(props: { csrf: string; email: string; secret: string; error?: string }) {
  return (
    <Layout title="Choose a new password">
      <div class="narrow">
        <div class="card">
          <h1>Choose a new password</h1>
          {props.error && <Notice kind="error">{props.error}</Notice>}
          <form method="post" action={linkPath('reset', props.secret)}>
            <CsrfField token={props.csrf} />
            <input type="hidden" name="username" autocomplete="username" value={props.email} />
            <NewPasswordFields hint="Every session of the account is signed out." />
            <div class="actions">
              <button type="submit">Set the password</button>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

export function linkRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const confirmations: readonly LinkPurpose[] = ['signup', 'verify'];

  web.get('/verify/:secret', async (c) => {
    const secret = c.req.param('secret');
    const found = await findLink(db, secret, confirmations, deps.now());
    if ('refusal' in found) return refusalPage(c, found.refusal);
    return sendPage(c, <ConfirmPage csrf={formToken(c)} link={found.link} secret={secret} />);
  });

  web.post('/verify/:secret', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const secret = c.req.param('secret');
    const now = deps.now();
    const found = await findLink(db, secret, confirmations, now);
    if ('refusal' in found) return refusalPage(c, found.refusal);
    const { link } = found;
    if (link.purpose === 'signup') {
      try {
        const made = await completeSignUp(db, now, link, deps.config.signUp);
        await createSession(c, db, made.userId, now);
        return c.redirect(safeNext(made.next ?? '/orgs'), 303);
      } catch (error) {
        if (error instanceof AppError && (error.code === 'conflict' || error.code === 'forbidden'))
          return sendMessage(c, error.code === 'conflict' ? 409 : 403, {
            title: error.code === 'conflict' ? 'You already have an account' : 'Sign-up refused',
            notice: { kind: 'error', text: error.message },
            children: (
              <p>
                <a href="/login">Sign in</a> · <a href="/reset">Reset the password</a>
              </p>
            ),
          });
        throw error;
      }
    }
    const user = link.user_id ? await findUserByEmail(db, link.email) : undefined;
    if (!user || user.id !== link.user_id)
      return sendMessage(c, 409, {
        title: 'This link is for an old address',
        notice: { kind: 'error', text: `The account no longer uses ${link.email}; ask for a new link.` },
      });
    if (!(await useLink(db, link, now))) return refusalPage(c, 'used');
    await markEmailVerified(db, user.id, now);
    return sendMessage(c, 200, {
      title: 'Address confirmed',
      notice: { kind: 'ok', text: `${link.email} is confirmed.` },
      children: (
        <p>
          <a href="/">Continue</a>
        </p>
      ),
    });
  });

  web.get('/reset', (c) => sendPage(c, <ResetRequestPage csrf={formToken(c)} />));

  web.post('/reset', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const typed = text(body, 'email').trim();
    const email = normalizeEmail(typed).slice(0, 320);
    const now = deps.now();
    const fail = (status: 422 | 429, error: string) =>
      sendPage(c, <ResetRequestPage csrf={formToken(c)} email={typed} error={error} />, status);
    const client = clientNetworkOf(c, deps);
    // Every request counts, whether or not the address has an account: from this network, and for the address.
    const limited = await reserveAttempts(db, now, [
      { key: RESET_CLIENT_KEY, limit: RESET_CLIENT_LIMIT, client },
      { key: mailKey(email), limit: MAIL_LIMIT },
    ]);
    if (limited) {
      const wait = await attemptWaitSeconds(db, limited.key, limited.limit, now, limited.client);
      c.header('retry-after', String(wait));
      return fail(429, limitMessage(limited.key, limited.limit, email, wait));
    }
    try {
      checkEmail(typed);
    } catch (error) {
      if (error instanceof AppError) return fail(422, error.message);
      throw error;
    }
    // The same statements either way (a link without an account leads nowhere); only an account's address gets mail.
    const user = await findUserByEmail(db, email);
    const { secret } = await issueLink(db, now, { purpose: 'reset', email, userId: user?.id ?? null });
    if (user)
      deps.accountMail.send(
        c,
        resetEmail(email, deps.accountMail.url(c, linkPath('reset', secret)), LINK_HOURS.reset),
      );
    return sendMessage(c, 200, {
      title: 'Check your email',
      children: deps.accountMail.configured ? (
        <p>
          If <strong>{email}</strong> has an account, we sent it a link to choose a new password (valid an
          hour; only the newest link works). <a href="/login">Back to sign-in</a>
        </p>
      ) : (
        <p>
          This instance sends no email: ask its operator for a reset link (
          <code>compliance-mcp user reset-link {email}</code>). <a href="/login">Back to sign-in</a>
        </p>
      ),
    });
  });

  /** A reset link that can be used now; one for an address without an account is as unknown. */
  async function resetLinkOf(secret: string) {
    const found = await findLink(db, secret, ['reset'], deps.now());
    if ('link' in found && !found.link.user_id) return { refusal: 'unknown' as const };
    return found;
  }

  web.get('/reset/:secret', async (c) => {
    const secret = c.req.param('secret');
    const found = await resetLinkOf(secret);
    if ('refusal' in found) return refusalPage(c, found.refusal);
    return sendPage(c, <NewPasswordPage csrf={formToken(c)} email={found.link.email} secret={secret} />);
  });

  web.post('/reset/:secret', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const secret = c.req.param('secret');
    const found = await resetLinkOf(secret);
    if ('refusal' in found) return refusalPage(c, found.refusal);
    const { link } = found;
    const fail = (error: string) =>
      sendPage(
        c,
        <NewPasswordPage csrf={formToken(c)} email={link.email} secret={secret} error={error} />,
        422,
      );
    const password = text(body, 'new_password');
    if (password.length < MIN_PASSWORD_LENGTH)
      return fail(`The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    if (password !== text(body, 'new_password_confirm')) return fail('The two new passwords differ.');
    const passwordHash = await hashPassword(password);
    const now = deps.now();
    // The link is spent first (one statement): of two submits, one sets the password, the other is told it was used.
    if (!(await useLink(db, link, now))) return refusalPage(c, 'used');
    const user = await findUserByEmail(db, link.email);
    if (!user || user.id !== link.user_id) return refusalPage(c, 'unknown');
    await setPasswordHash(db, user.id, passwordHash, now);
    // The link reached the address: it is confirmed. Whoever held a session (or the old password) is signed out.
    await markEmailVerified(db, user.id, now);
    await endAllSessions(db, user.id);
    return c.redirect('/login?reset', 303);
  });
  return web;
}
