// The checks every form shown without a session gets (the account pages' sign-up and sign-in, the public pages
// reached by a signed link): same origin, the double-submit token, and the client network the counters key on.
import type { Context } from 'hono';
import { clientAddressKey } from '../http/client-address.ts';
import type { WebDeps } from './context.ts';
import { CSRF_FIELD, crossSiteReason, csrfTokenMatches } from './csrf.ts';
import type { FormBody } from './forms.tsx';
import { errorPage } from './render.tsx';
import { formCookie } from './sessions.ts';

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
