// Accounts: sign up (the first user founds an organization and is in at once; later ones confirm their address by a
// link first), sign in with throttling per address and client, sign out, password and the address's confirmation.
import { type Context, Hono } from 'hono';
import { issueLink, LINK_HOURS, linkPath, type PendingSignUp } from '../../account-links.ts';
import {
  checkEmail,
  countUsers,
  createOrganization,
  createUser,
  findUserByEmail,
  normalizeEmail,
} from '../../accounts.ts';
import {
  hashPassword,
  MIN_PASSWORD_LENGTH,
  passwordNeedsRehash,
  verifyPassword,
} from '../../auth/passwords.ts';
import { AppError } from '../../errors.ts';
import { hasOpenInvitation, invitationBySecret, invitationSecretOf } from '../../invitations.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { alreadyRegisteredEmail, signUpEmail, verifyEmail } from '../emails.ts';
import { Input, text } from '../forms.tsx';
import { Badge, CsrfField, Layout, Notice } from '../layout.tsx';
import { clientNetworkOf, refusePublicPost } from '../public-posts.ts';
import { passwordHashOf, replacePasswordHash, setPasswordHash } from '../queries.ts';
import { sendPage } from '../render.tsx';
import {
  createSession,
  deleteEndedSessions,
  endOtherSessions,
  endSession,
  formToken,
  loadSession,
} from '../sessions.ts';
import {
  type AttemptLimit,
  attemptWaitSeconds,
  MAIL_LIMIT,
  mailKey,
  markAttemptSucceeded,
  minutes,
  PASSWORD_CHANGE_LIMIT,
  passwordChangeKey,
  reserveAttempt,
  reserveAttempts,
  reserveSignIn,
  SIGN_IN_ACCOUNT_LIMIT,
  SIGN_UP_CLIENT_KEY,
  SIGN_UP_CLIENT_LIMIT,
  SIGN_UP_KEY,
  SIGN_UP_LIMIT,
  signInWait,
  VERIFY_LIMIT,
  verifyKey,
} from '../throttle.ts';
import { viewerOf } from '../viewer.ts';
import { decoy, NewPasswordFields, sendMessage } from './public-forms.tsx';

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

interface SignUpValues {
  name: string;
  email: string;
  organization: string;
}

/** What the sign-up page says about who may sign up (SIGNUP) and, for an invitation link, whom it is for. */
function SignUpLead(props: { first: boolean; policy: WebDeps['config']['signUp']; invitedEmail?: string }) {
  if (props.first)
    return (
      <p class="lead">
        This instance has no users yet. You will be the <strong>owner</strong> of a new organization; you can
        invite others from its Members page.
      </p>
    );
  if (props.invitedEmail)
    return (
      <p class="lead">
        You were invited with <strong>{props.invitedEmail}</strong>: sign up with that address and you are in
        at once (the invitation's link confirms it), then accept the invitation.
      </p>
    );
  return (
    <p class="lead">
      {props.policy === 'invite-only'
        ? 'This instance accepts invited addresses only: sign up with the address your invitation was sent to. '
        : 'To join an existing organization, ask one of its owners or admins to invite your email address. '}
      You confirm your address by a link before the account is made. To start your own organization, name it
      below: you will be its owner.
    </p>
  );
}

function SignUpPage(props: {
  csrf: string;
  first: boolean;
  policy: WebDeps['config']['signUp'];
  invitedEmail?: string | undefined;
  values?: SignUpValues;
  error?: string;
  next?: string;
}) {
  const values = props.values ?? { name: '', email: props.invitedEmail ?? '', organization: '' };
  if (props.policy === 'closed')
    return (
      <Layout title="Sign-up is closed">
        <div class="narrow">
          <div class="card">
            <h1>Sign-up is closed</h1>
            {props.error && <Notice kind="error">{props.error}</Notice>}
            <p>
              This instance makes accounts through its operator only (<code>compliance-mcp user create</code>
              ). Ask them for one, then <a href="/login">sign in</a>.
            </p>
          </div>
        </div>
      </Layout>
    );
  return (
    <Layout title="Create your account">
      <div class="narrow">
        <div class="card">
          <h1>Create your account</h1>
          <SignUpLead first={props.first} policy={props.policy} invitedEmail={props.invitedEmail} />
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
              <a href="/reset">Forgot your password?</a>
            </div>
          </form>
        </div>
      </div>
    </Layout>
  );
}

/** The account's address and whether it is confirmed, with the way to confirm it (a link by mail, or the operator). */
function EmailCard(props: { viewer: ReturnType<typeof viewerOf>; mailConfigured: boolean }) {
  const { user, csrfToken } = props.viewer;
  return (
    <section aria-labelledby="email-address">
      <h2 id="email-address">Email address</h2>
      <div class="card">
        <p>
          <strong>{user.email}</strong>{' '}
          {user.emailVerified ? <Badge tone="ok">confirmed</Badge> : <Badge tone="warn">not confirmed</Badge>}
        </p>
        {!user.emailVerified &&
          (props.mailConfigured ? (
            <form method="post" action="/settings/email/confirm">
              <CsrfField token={csrfToken} />
              <p class="small muted">
                Until it is confirmed you cannot accept invitations, approve documents as the person of this
                address, nor get notification emails.
              </p>
              <button type="submit" class="quiet">
                Send me a confirmation link
              </button>
            </form>
          ) : (
            <p class="small muted">
              Until it is confirmed you cannot accept invitations (except by the link of an invitation email),
              approve documents as the person of this address, nor get notification emails. This instance
              sends no email: ask its operator to run <code>compliance-mcp user verify {user.email}</code>.
            </p>
          ))}
      </div>
    </section>
  );
}

function PasswordPage(props: {
  viewer: ReturnType<typeof viewerOf>;
  mailConfigured: boolean;
  error?: string;
  notice?: string;
}) {
  return (
    <Layout title="Password" viewer={props.viewer} section={{ kind: 'settings', page: 'password' }}>
      <h1>Account</h1>
      {props.notice && <Notice kind="ok">{props.notice}</Notice>}
      <EmailCard viewer={props.viewer} mailConfigured={props.mailConfigured} />
      <h2>Change password</h2>
      <div class="card">
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
          <NewPasswordFields hint="Your other sessions are signed out." />
          <div class="actions">
            <button type="submit">Change password</button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** The same answer to every sign-up that passed the form's checks, whether or not the address has an account. */
function checkYourEmail(c: Context, deps: WebDeps, email: string) {
  return sendMessage(c, 200, {
    title: 'Check your email',
    children: deps.accountMail.configured ? (
      <>
        <p>
          We sent a message to <strong>{email}</strong>. If the address can have a new account, it holds a
          link that confirms the address and makes the account (valid {LINK_HOURS.signup} hours). If the
          address already has an account, the message says so: <a href="/login">sign in</a> instead, or{' '}
          <a href="/reset">reset the password</a>.
        </p>
        <p class="small muted">
          Nothing arrived? Look in the spam folder, or sign up again in a few minutes.
        </p>
      </>
    ) : (
      <>
        <p>
          This instance sends no email, so its operator confirms new accounts: ask them to run{' '}
          <code>compliance-mcp user verify {email}</code>. Your account is made then, with the password you
          chose; then <a href="/login">sign in</a>.
        </p>
        <p class="small muted">If the address already has an account, sign in instead.</p>
      </>
    ),
  });
}

/** The wording of a sign-up or reset request refused by one of its limits (none depends on an account existing). */
export function limitMessage(key: string, limit: AttemptLimit, email: string, wait: number): string {
  const within =
    limit.windowSeconds >= 3600
      ? `${limit.windowSeconds / 3600} hour`
      : `${limit.windowSeconds / 60} minutes`;
  const retry = `Try again in ${minutes(wait)}.`;
  if (key === SIGN_UP_KEY)
    return `Too many new accounts on this instance (${limit.max} within ${within}). ${retry}`;
  if (key.startsWith('mail:'))
    return `Too many requests for ${email} (${limit.max} within ${within}): each may send it a message. ${retry}`;
  return `Too many requests from your network (${limit.max} within ${within}). ${retry}`;
}

export function accountRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const policy = deps.config.signUp;

  web.get('/', async (c) => {
    const loaded = await loadSession(c, db, deps.now());
    if (!loaded)
      return c.redirect((await countUsers(db)) === 0 && policy !== 'closed' ? '/signup' : '/login', 303);
    return c.redirect('/orgs', 303);
  });

  /** The address an invitation link (in `next`) was sent to, if it is still open. */
  async function invitedEmailOf(next: string): Promise<string | undefined> {
    const secret = invitationSecretOf(next);
    const invitation = secret ? await invitationBySecret(db, secret) : undefined;
    return invitation && invitation.expiresAt > deps.now().toISOString() ? invitation.email : undefined;
  }

  web.get('/signup', async (c) => {
    if (await loadSession(c, db, deps.now())) return c.redirect('/', 303);
    const next = safeNext(c.req.query('next'));
    return sendPage(
      c,
      <SignUpPage
        csrf={formToken(c)}
        first={(await countUsers(db)) === 0}
        policy={policy}
        invitedEmail={await invitedEmailOf(next)}
        next={next}
      />,
    );
  });

  web.post('/signup', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    // Decided when the form is sent, not when it was shown: of two racing first sign-ups, the later is an ordinary one.
    const first = (await countUsers(db)) === 0;
    const values: SignUpValues = {
      name: text(body, 'name').trim(),
      email: text(body, 'email').trim(),
      organization: text(body, 'organization').trim(),
    };
    const next = safeNext(text(body, 'next'));
    const invitedEmail = await invitedEmailOf(next);
    const fail = (message: string, status: 403 | 422 | 429 = 422) =>
      sendPage(
        c,
        <SignUpPage
          csrf={formToken(c)}
          first={first}
          policy={policy}
          invitedEmail={invitedEmail}
          values={values}
          error={message}
          next={next}
        />,
        status,
      );
    if (policy === 'closed') return fail('Sign-up is closed on this instance.', 403);
    const now = deps.now();
    const email = normalizeEmail(values.email).slice(0, 320);
    const client = clientNetworkOf(c, deps);
    // Every attempt counts, whatever its outcome, before anything is checked: from this network, on the instance
    // (each costs a password hash), and for the address typed (each may send it a message).
    const limited = await reserveAttempts(db, now, [
      { key: SIGN_UP_CLIENT_KEY, limit: SIGN_UP_CLIENT_LIMIT, client },
      { key: SIGN_UP_KEY, limit: SIGN_UP_LIMIT },
      { key: mailKey(email), limit: MAIL_LIMIT },
    ]);
    if (limited) {
      const wait = await attemptWaitSeconds(db, limited.key, limited.limit, now, limited.client);
      c.header('retry-after', String(wait));
      return fail(limitMessage(limited.key, limited.limit, email, wait), 429);
    }
    const password = text(body, 'password');
    if (password !== text(body, 'password_confirm')) return fail('The two passwords differ.');
    if (first && !values.organization) return fail('Name your organization.');
    if (values.organization.length > 200) return fail('An organization name has at most 200 characters.');
    if (values.name.length > 200) return fail('A name has at most 200 characters.');
    try {
      checkEmail(values.email);
    } catch (error) {
      if (error instanceof AppError) return fail(error.message);
      throw error;
    }
    if (password.length < MIN_PASSWORD_LENGTH)
      return fail(`The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);

    // The first account of an empty instance, and an invitee whose link (mailed to that address) brought them here,
    // have shown who they are: their account is made at once, address confirmed, and they are signed in.
    if (first || invitedEmail === email) {
      const existing = await findUserByEmail(db, email);
      if (existing)
        return sendMessage(c, 200, {
          title: 'You already have an account',
          children: (
            <p>
              {email} already has an account: <a href={`/login?next=${encodeURIComponent(next)}`}>sign in</a>{' '}
              to answer the invitation, or <a href="/reset">reset the password</a>.
            </p>
          ),
        });
      try {
        const user = await createUser(db, now, {
          email,
          password,
          name: values.name || null,
          emailVerified: true,
          onlyIfFirst: first,
        });
        if (values.organization)
          await createOrganization(db, now, { name: values.organization, ownerId: user.id });
        await createSession(c, db, user.id, deps.now());
        return c.redirect(next === '/' ? '/orgs' : next, 303);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        // Another first sign-up won the race: this one goes the ordinary way below.
      }
    }

    // Everyone else: the same work and the same answer whether or not the address has an account. The form is kept
    // with a link; the account is made when the link is opened. What the message says depends on the address.
    const signUp: PendingSignUp = {
      name: values.name || null,
      password_hash: await hashPassword(password),
      organization: values.organization || null,
      next: next === '/' ? null : next,
    };
    const { secret } = await issueLink(db, now, { purpose: 'signup', email, userId: null, signUp });
    const [existing, invited] = await Promise.all([
      findUserByEmail(db, email),
      policy === 'invite-only' ? hasOpenInvitation(db, email, now) : Promise.resolve(true),
    ]);
    if (existing)
      deps.accountMail.send(
        c,
        alreadyRegisteredEmail(email, deps.accountMail.url(c, '/login'), deps.accountMail.url(c, '/reset')),
      );
    else if (invited)
      deps.accountMail.send(
        c,
        signUpEmail(email, deps.accountMail.url(c, linkPath('signup', secret)), LINK_HOURS.signup),
      );
    return checkYourEmail(c, deps, email);
  });

  web.get('/login', async (c) => {
    if (await loadSession(c, db, deps.now())) return c.redirect(safeNext(c.req.query('next')), 303);
    const notice =
      c.req.query('signed_out') !== undefined
        ? 'You are signed out.'
        : c.req.query('reset') !== undefined
          ? 'Your password was changed and your sessions were signed out. Sign in with the new password.'
          : undefined;
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
    const client = clientNetworkOf(c, deps);
    const page = (status: 422 | 429, error: string) =>
      sendPage(c, <SignInPage csrf={formToken(c)} email={email} next={next} error={error} />, status);
    const locked = async () => {
      const wait = (await signInWait(db, email, client, now)) ?? { seconds: 1, reason: 'client' as const };
      c.header('retry-after', String(wait.seconds));
      return page(
        429,
        wait.reason === 'client'
          ? `Too many failed sign-ins for this email address from your network. Try again in ${minutes(wait.seconds)}.`
          : `Too many failed sign-ins for this email address from many networks (${SIGN_IN_ACCOUNT_LIMIT.max} within an hour). Try again in ${minutes(wait.seconds)}, sign in from a network you used before, or reset your password.`,
      );
    };
    if (!email || !password) return page(422, 'Enter your email and password.');
    // No account has an address without `@`: refused unchecked (nothing hashed, nothing counted).
    if (!email.includes('@')) return page(422, 'The email or the password is not correct.');

    // Counted as a failure before the password is checked, in one statement: parallel tries cannot outrun the limit.
    // Per address and client network: a stranger's failures elsewhere do not lock this person out.
    const attempt = await reserveSignIn(db, email, client, now);
    if (attempt === undefined) return locked();
    const user = await findUserByEmail(db, email);
    const valid = await verifyPassword(password, user?.password_hash ?? (await decoy()));
    if (!user || !valid) {
      if (await signInWait(db, email, client, now)) return locked();
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

  const passwordPage = (
    c: Context<WebEnv>,
    status: 200 | 422 | 429,
    extra: { error?: string; notice?: string },
  ) =>
    sendPage(
      c,
      <PasswordPage viewer={viewerOf(c)} mailConfigured={deps.accountMail.configured} {...extra} />,
      status,
    );

  web.get('/settings/password', (c) => passwordPage(c, 200, {}));

  web.post('/settings/email/confirm', async (c) => {
    const user = c.get('user');
    if (user.emailVerified) return passwordPage(c, 200, { notice: 'Your address is already confirmed.' });
    if (!deps.accountMail.configured)
      return passwordPage(c, 422, { error: 'This instance sends no email: ask its operator to confirm it.' });
    const now = deps.now();
    const key = verifyKey(user.id);
    if ((await reserveAttempt(db, key, VERIFY_LIMIT, now)) === undefined) {
      const wait = await attemptWaitSeconds(db, key, VERIFY_LIMIT, now);
      c.header('retry-after', String(wait));
      return passwordPage(c, 429, { error: `Too many links asked for. Try again in ${minutes(wait)}.` });
    }
    const { secret } = await issueLink(db, now, { purpose: 'verify', email: user.email, userId: user.id });
    deps.accountMail.send(
      c,
      verifyEmail(user.email, deps.accountMail.url(c, linkPath('verify', secret)), LINK_HOURS.verify),
    );
    return passwordPage(c, 200, {
      notice: `We sent a link to ${user.email}; open it within ${LINK_HOURS.verify} hours.`,
    });
  });

  web.post('/settings/password', async (c) => {
    const viewer = viewerOf(c);
    const body = await c.req.parseBody();
    const fail = (status: 422 | 429, error: string) => passwordPage(c, status, { error });
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
    return passwordPage(c, 200, {
      notice: 'Your password was changed. Your other sessions were signed out.',
    });
  });
  return web;
}
