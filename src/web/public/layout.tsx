// The shared room of the pages for people without an account (acknowledgement and questionnaire links): a plain
// layout, headers that keep the link's secret out of referrers and caches, and the one page for a link that does not work.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CardPage } from '../layout.tsx';
import { sendPage } from '../render.tsx';

/** Why a link shows nothing: not one we made (or changed), already used, or expired. */
export type PublicLinkRefusal = 'unknown' | 'used' | 'expired';

const REFUSALS: Record<PublicLinkRefusal, { status: 404 | 410; title: string; text: string }> = {
  unknown: {
    status: 404,
    title: 'This link does not work',
    text: 'The link is not one we sent, or it was cut short or changed. Copy the whole link from the email, or ask the person who sent it for a new one.',
  },
  used: {
    status: 410,
    title: 'This link was already used',
    text: 'A link works once. If it was you, you are done; otherwise ask the person who sent it for a new one.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'Ask the person who sent it for a new one.',
  },
};

/**
 * Sends a public page: the usual security headers (a referrer only to this origin, so the secret in the path never
 * leaves; no-referrer would make the form's POST send `Origin: null`, refused as cross-site), not indexed.
 */
export function sendPublicPage(
  c: Context,
  page: Parameters<typeof sendPage>[1],
  status: ContentfulStatusCode = 200,
): Response | Promise<Response> {
  const response = sendPage(c, page, status);
  c.header('x-robots-tag', 'noindex, nofollow');
  return response;
}

/** The page for a link that cannot be used: says why, shows no data of the link. */
export function refusedLinkPage(c: Context, refusal: PublicLinkRefusal): Response | Promise<Response> {
  const { status, title, text } = REFUSALS[refusal];
  return sendPublicPage(c, <CardPage title={title}>{<p>{text}</p>}</CardPage>, status);
}
