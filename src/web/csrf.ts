// CSRF defences for the web forms: a same-origin check on every POST and a secret token compared in constant time.
import type { Context } from 'hono';
import { constantTimeEqual } from '../auth/crypto.ts';
import type { Config } from '../config.ts';

/** The hidden form field that carries the token. */
export const CSRF_FIELD = '_csrf';

/**
 * A POST whose Origin (or, without one, Sec-Fetch-Site) says it came from another site is refused.
 * Same origin = the Origin names the host the browser sent the request to, or the configured PUBLIC_URL.
 */
export function crossSiteReason(c: Context, config: Config): string | null {
  const origin = c.req.header('origin');
  if (origin === undefined) {
    const site = c.req.header('sec-fetch-site');
    if (site === undefined || site === 'same-origin' || site === 'none') return null;
    return `This form was sent from another site (Sec-Fetch-Site: ${site}).`;
  }
  if (config.publicUrl && origin === new URL(config.publicUrl).origin) return null;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return 'This form was sent from a page without a valid origin.';
  }
  const host = c.req.header('x-forwarded-host') ?? c.req.header('host') ?? new URL(c.req.url).host;
  if (origin !== 'null' && originHost.toLowerCase() === host.toLowerCase()) return null;
  return `This form was sent from another site (${origin}).`;
}

export function csrfTokenMatches(sent: unknown, expected: string | undefined): boolean {
  if (typeof sent !== 'string' || !expected || sent.length === 0) return false;
  return constantTimeEqual(sent, expected);
}
