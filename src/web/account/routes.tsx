// Accounts: sign up (the first user must found an organization, later ones may), sign in with throttling, sign out, password.
import { type Context, Hono } from 'hono';
import { createOrganization, createUser, findUserByEmail, normalizeEmail } from '../../accounts.ts';
import {
  hashPassword,
  MIN_PASSWORD_LENGTH,
  passwordNeedsRehash,
  verifyPassword,
} from '../../auth/passwords.ts';
import { AppError } from '../../errors.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { CSRF_FIELD, crossSiteReason, csrfTokenMatches } from '../csrf.ts';
import { type FormBody, Input, text } from '../forms.tsx';
import { CsrfField, Layout, Notice } from '../layout.tsx';
import { countUsers, passwordHashOf, replacePasswordHash, setPasswordHash } from '../queries.ts';
import { errorPage, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';
import {
  createSession,
  deleteEndedSessions,
  endOtherSessions,
  endSession,
  formCookie,
  formToken,
  loadSession,
} from './sessions.ts';
import {
  attemptWaitSeconds,
  isSignInKey,
  markAttemptSucceeded,
  PASSWORD_CHANGE_LIMIT,
  passwordChangeKey,
  releaseAttempt,
  reserveAttempt,
  SIGN_IN_LIMIT,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_SECONDS,
  SIGN_UP_KEY,
  SIGN_UP_LIMIT,
} from './sign-in-throttle.ts';

const LOCAL_ORIGIN = 'http://local.invalid';
/** Control characters (browsers drop tabs and newlines from URLs; a newline breaks the header), backslashes. */
const UNSAFE_IN_NEXT = /[\p{Cc}\\]/u;

/**
 * The target after sign-in: only a path on this site (not `//host`, not a URL, nothing a browser would read as
 * another host), returned as the parsed path, query and fragment; '/' for anything else.
 */
export function safeNext(value: string | undefined): string {
  if (!value?.startsWith('/') || UNSAFE_IN_NEXT.test(value)) return '/';
  let url: URL;
  try {
    url = new URL(value, LOCAL_ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== LOCAL_ORIGIN) return '/';
  const target = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can leave `//host` after parsing (`/.//evil.example`): a browser would read that as a host.
  if (!target.startsWith('/') || target.startsWith('//')) return '/';
  return target;
}

// Verifying against a real hash when the email is unknown keeps both answers equally slow. The hash is kept, not
// its promise: on a Worker a request must not await a promise made by another request, which may end first.
let decoyHash: string | undefined;
async function decoy(): Promise<string> {
  decoyHash ??= await hashPassword('decoy password that never matches');
  return decoyHash;
}

function minutes(seconds: number): string {
  const value = Math.max(1, Math.ceil(seconds / 60));
  return value === 1 ? '1 minute' : `${value} minutes`;
}

/** The checks every pre-session form gets: same origin, then the double-submit token. */
function refusePublicPost(c: Context, deps: WebDeps, body: FormBody): Response | Promise<Response> | null {
  const reason = crossSiteReason(c, deps.config);
  if (reason) return errorPage(c, 403, 'Request refused', reason);
  if (!csrfTokenMatches(body[CSRF_FIELD], formCookie(c))) {
    return errorPage(
      c,
      403,
      'Form expired',
      'This form could not be verified (it may have been open too long, or cookies are blocked). Go back, reload the page and try again.',
    );
  }
  return null;
}

interface SignUpValues {
  name: string;
  email: string;
  organization: string;
}

function SignUpPage(props: {
  csrf: string;
  first: boolean;
  values?: SignUpValues;
  error?: string;
  next?: string;
}) {
  const values = props.values ?? { name: '', email: '', organization: '' };
  return (
    <Layout title="Create your account">
      <div class="narrow">
        <div class="card">
          <h1>Create your account</h1>
          {props.first ? (
            <p class="lead">
              This instance has no users yet. You will be the <strong>owner</strong> of a new organization;
              you can invite others from its Members page once they have signed up.
            </p>
          ) : (
            <p class="lead">
              To join an existing organization, sign up and ask one of its owners or admins to add you by your
              email address. To start your own, name it below: you will be its owner.
            </p>
          )}
          {props.error && <Notice kind="error">{props.error}</Notice>}
          <form method="post" action="/signup">
            <CsrfField token={props.csrf} />
            {props.next && props.next !== '/' && <input type="hidden" name="next" value={props.next} />}
            <Input id="name" label="Your name" value={values.name} autocomplete="name" limit={200} />
            <Input
              id="email"
              label="Email"
              type="email"
              value={values.email}
              required
              autocomplete="email"
              limit={320}
            />
            <Input
              id="password"
              label="Password"
              type="password"
              required
              autocomplete="new-password"
              minlength={MIN_PASSWORD_LENGTH}
              hint={`At least ${MIN_PASSWORD_LENGTH} characters. A passphrase of several words works well.`}
            />
            <Input
              id="password_confirm"
              label="Repeat the password"
              type="password"
              required
              autocomplete="new-password"
            />
            <Input
              id="organization"
              label={props.first ? 'Organization name' : 'New organization (optional)'}
              value={values.organization}
              required={props.first}
              limit={200}
              hint={
                props.first
                  ? 'The company or team whose compliance you manage, e.g. “Acme Health”.'
                  : 'Leave it empty to join an existing organization instead.'
              }
            />
            <div class="actions">
              <button type="submit">Create account</button>
              <a href="/login">I already have an account</a>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

function SignInPage(props: { csrf: string; email?: string; next?: string; error?: string; notice?: string }) {
  return (
    <Layout title="Sign in">
      <div class="narrow">
        <div class="card">
          <h1>Sign in</h1>
          {props.notice && <Notice kind="ok">{props.notice}</Notice>}
          {props.error && <Notice kind="error">{props.error}</Notice>}
          <form method="post" action="/login">
            <CsrfField token={props.csrf} />
            {props.next && props.next !== '/' && <input type="hidden" name="next" value={props.next} />}
            <Input
              id="email"
              label="Email"
              type="email"
              value={props.email}
              required
              autocomplete="username"
              autofocus
            />
            <Input id="password" label="Password" type="password" required autocomplete="current-password" />
            <div class="actions">
              <button type="submit">Sign in</button>
              {/* A person sent here to connect an app (OAuth) comes back to it after signing up too. */}
              <a
                href={
                  props.next && props.next !== '/'
                    ? `/signup?next=${encodeURIComponent(props.next)}`
                    : '/signup'
                }
              >
                Create an account
              </a>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

function PasswordPage(props: { viewer: ReturnType<typeof viewerOf>; error?: string; notice?: string }) {
  return (
    <Layout title="Password" viewer={props.viewer} section={{ kind: 'settings', page: 'password' }}>
      <h1>Change password</h1>
      <div class="card">
        {props.notice && <Notice kind="ok">{props.notice}</Notice>}
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <form method="post" action="/settings/password">
          <CsrfField token={props.viewer.csrfToken} />
          {/* Lets password managers file the new password under the right account. */}
          <input type="hidden" name="username" autocomplete="username" value={props.viewer.user.email} />
          <Input
            id="current_password"
            label="Current password"
            type="password"
            required
            autocomplete="current-password"
          />
          <Input
            id="new_password"
            label="New password"
            type="password"
            required
            autocomplete="new-password"
            minlength={MIN_PASSWORD_LENGTH}
            hint={`At least ${MIN_PASSWORD_LENGTH} characters. Your other sessions are signed out.`}
          />
          <Input
            id="new_password_confirm"
            label="Repeat the new password"
            type="password"
            required
            autocomplete="new-password"
          />
          <div class="actions">
            <button type="submit">Change password</button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

export function accountRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;

  web.get('/', async (c) => {
    const loaded = await loadSession(c, db, deps.now());
    if (!loaded) return c.redirect((await countUsers(db)) === 0 ? '/signup' : '/login', 303);
    return c.redirect('/orgs', 303);
  });

  web.get('/signup', async (c) => {
    if (await loadSession(c, db, deps.now())) return c.redirect('/', 303);
    return sendPage(
      c,
      <SignUpPage
        csrf={formToken(c)}
        first={(await countUsers(db)) === 0}
        next={safeNext(c.req.query('next'))}
      />,
    );
  });

  web.post('/signup', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    // Decided when the form is sent, not when it was shown: of two racing first sign-ups, the later is an ordinary user.
    const first = (await countUsers(db)) === 0;
    const values: SignUpValues = {
      name: text(body, 'name').trim(),
      email: text(body, 'email').trim(),
      organization: text(body, 'organization').trim(),
    };
    const next = safeNext(text(body, 'next'));
    const fail = (message: string, status: 422 | 429 = 422) =>
      sendPage(
        c,
        <SignUpPage csrf={formToken(c)} first={first} values={values} error={message} next={next} />,
        status,
      );
    const password = text(body, 'password');
    if (password !== text(body, 'password_confirm')) return fail('The two passwords differ.');
    if (first && !values.organization) return fail('Name your organization.');
    if (values.organization.length > 200) return fail('An organization name has at most 200 characters.');
    const now = deps.now();
    // Each sign-up costs a password hash: counted in one statement before it, so a burst cannot outrun the limit.
    const attempt = await reserveAttempt(db, SIGN_UP_KEY, SIGN_UP_LIMIT, now);
    if (attempt === undefined) {
      const wait = await attemptWaitSeconds(db, SIGN_UP_KEY, SIGN_UP_LIMIT, now);
      c.header('retry-after', String(wait));
      return fail(
        `Too many new accounts on this instance (${SIGN_UP_LIMIT.max} within ${SIGN_UP_LIMIT.windowSeconds / 60} minutes). Try again in ${minutes(wait)}.`,
        429,
      );
    }
    let userId: string;
    try {
      const user = await createUser(db, now, { email: values.email, password, name: values.name || null });
      userId = user.id;
      if (values.organization)
        await createOrganization(db, now, { name: values.organization, ownerId: user.id });
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_arguments' || error.code === 'conflict')) {
        // createUser refuses (bad email, short password, taken email) before hashing: that costs nothing.
        await releaseAttempt(db, attempt);
        return fail(
          error.code === 'conflict'
            ? 'An account with this email already exists. Sign in instead.'
            : error.message,
        );
      }
      throw error;
    }
    await createSession(c, db, userId, deps.now());
    return c.redirect(next === '/' ? '/orgs' : next, 303);
  });

  web.get('/login', async (c) => {
    if (await loadSession(c, db, deps.now())) return c.redirect(safeNext(c.req.query('next')), 303);
    const notice = c.req.query('signed_out') !== undefined ? 'You are signed out.' : undefined;
    return sendPage(
      c,
      <SignInPage csrf={formToken(c)} next={safeNext(c.req.query('next'))} notice={notice} />,
    );
  });

  web.post('/login', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const email = normalizeEmail(text(body, 'email')).slice(0, 320);
    const password = text(body, 'password');
    const next = safeNext(text(body, 'next'));
    const now = deps.now();
    const page = (status: 422 | 429, error: string) =>
      sendPage(c, <SignInPage csrf={formToken(c)} email={email} next={next} error={error} />, status);
    const locked = async (wait: number) => {
      c.header('retry-after', String(wait));
      return page(
        429,
        `Too many failed sign-ins for this email address (${SIGN_IN_MAX_FAILURES} within ${SIGN_IN_WINDOW_SECONDS / 60} minutes). Try again in ${minutes(wait)}.`,
      );
    };
    if (!email || !password) return page(422, 'Enter your email and password.');
    // No account has an email without `@`; such keys belong to other counters (sign-ups, password changes).
    if (!isSignInKey(email)) return page(422, 'The email or the password is not correct.');

    // Counted as a failure before the password is checked, in one statement: parallel tries cannot outrun the limit.
    const attempt = await reserveAttempt(db, email, SIGN_IN_LIMIT, now);
    if (attempt === undefined) return locked(await attemptWaitSeconds(db, email, SIGN_IN_LIMIT, now));
    const user = await findUserByEmail(db, email);
    const valid = await verifyPassword(password, user?.password_hash ?? (await decoy()));
    if (!user || !valid) {
      const waitNow = await attemptWaitSeconds(db, email, SIGN_IN_LIMIT, now);
      if (waitNow > 0) return locked(waitNow);
      return page(422, 'The email or the password is not correct.');
    }
    await markAttemptSucceeded(db, attempt);
    // A hash of an earlier kind or setting is replaced now that the password is known (src/auth/passwords.ts).
    if (passwordNeedsRehash(user.password_hash))
      await replacePasswordHash(db, user.id, user.password_hash, await hashPassword(password));
    await deleteEndedSessions(db, user.id, now);
    await createSession(c, db, user.id, now);
    return c.redirect(next, 303);
  });

  web.post('/logout', async (c) => {
    await endSession(c, db, c.get('session').idHash);
    return c.redirect('/login?signed_out', 303);
  });

  web.get('/settings', (c) => c.redirect('/settings/tokens', 303));

  web.get('/settings/password', (c) => sendPage(c, <PasswordPage viewer={viewerOf(c)} />));

  web.post('/settings/password', async (c) => {
    const viewer = viewerOf(c);
    const body = await c.req.parseBody();
    const fail = (status: 422 | 429, error: string) =>
      sendPage(c, <PasswordPage viewer={viewer} error={error} />, status);
    const now = deps.now();
    // The signed-in user's own counter (not the sign-in one of their email), reserved before the check.
    const key = passwordChangeKey(viewer.user.id);
    const attempt = await reserveAttempt(db, key, PASSWORD_CHANGE_LIMIT, now);
    if (attempt === undefined) {
      const wait = await attemptWaitSeconds(db, key, PASSWORD_CHANGE_LIMIT, now);
      c.header('retry-after', String(wait));
      return fail(429, `Too many wrong passwords. Try again in ${minutes(wait)}.`);
    }
    const stored = await passwordHashOf(db, viewer.user.id);
    if (!stored || !(await verifyPassword(text(body, 'current_password'), stored))) {
      return fail(422, 'The current password is not correct.');
    }
    await markAttemptSucceeded(db, attempt); // the right current password resets the count
    const next = text(body, 'new_password');
    if (next.length < MIN_PASSWORD_LENGTH)
      return fail(422, `The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    if (next !== text(body, 'new_password_confirm')) return fail(422, 'The two new passwords differ.');
    await setPasswordHash(db, viewer.user.id, await hashPassword(next), now);
    await endOtherSessions(db, viewer.user.id, c.get('session').idHash);
    return sendPage(
      c,
      <PasswordPage
        viewer={viewer}
        notice="Your password was changed. Your other sessions were signed out."
      />,
    );
  });
  return web;
}
