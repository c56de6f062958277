// Pieces shared by the forms shown before a session exists (sign up, sign in, confirm, reset) and their answers.
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../auth/passwords.ts';
import { clientAddressKey } from '../../http/client-address.ts';
import type { WebDeps } from '../context.ts';
import { CSRF_FIELD, crossSiteReason, csrfTokenMatches } from '../csrf.ts';
import { type FormBody, Input } from '../forms.tsx';
import { Layout, Notice } from '../layout.tsx';
import { errorPage, sendPage } from '../render.tsx';
import { formCookie } from '../sessions.ts';

// Verifying (or hashing) with a real hash when there is no account keeps both answers equally slow. The hash is
// kept, not its promise: on a Worker a request must not await a promise made by another request, which may end first.
let decoyHash: string | undefined;
export async function decoy(): Promise<string> {
  decoyHash ??= await hashPassword('decoy password that never matches');
  return decoyHash;
}

/** The key the per-network counters use for this request's client (IPv6 by its /64; src/http/client-address.ts). */
export function clientNetworkOf(c: Context, deps: WebDeps): string {
  return clientAddressKey(deps.clientAddress(c.req.raw, c.env));
}

/** The checks every pre-session form gets: same origin, then the double-submit token. */
export function refusePublicPost(
  c: Context,
  deps: WebDeps,
  body: FormBody,
): Response | Promise<Response> | null {
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

/** A page of one card: a heading, what happened, and where to go next. */
export function MessagePage(props: {
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

export function sendMessage(
  c: Context,
  status: ContentfulStatusCode,
  props: Parameters<typeof MessagePage>[0],
): Response | Promise<Response> {
  return sendPage(c, <MessagePage {...props} />, status);
}

/** A new password and its repetition (the password page, a reset link's page). */
export function NewPasswordFields(props: { hint: string }) {
  return (
    <>
      <Input
        id="new_password"
        label="New password"
        type="password"
        required
        autocomplete="new-password"
        minlength={MIN_PASSWORD_LENGTH}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters. ${props.hint}`}
      />
      <Input
        id="new_password_confirm"
        label="Repeat the new password"
        type="password"
        required
        autocomplete="new-password"
      />
    </>
  );
}
