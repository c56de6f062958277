// One-time messages after a form post (post/redirect/get): a short-lived cookie, read and cleared by the next page.
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { WebEnv } from './context.ts';
import { isSecureRequest } from './sessions.ts';

const FLASH_COOKIE = 'cmcp_flash';
const MAX_FLASH_LENGTH = 500;

/** Remembers a message for the page the redirect leads to. The text is shown escaped, as any text of a page. */
export function setFlash(c: Context, message: string): void {
  setCookie(c, FLASH_COOKIE, encodeURIComponent(message.slice(0, MAX_FLASH_LENGTH)), {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isSecureRequest(c),
    maxAge: 60,
  });
}

/** On a page load (GET), takes the message left by the previous post and clears it so a reload does not repeat it. */
export const takeFlash: MiddlewareHandler<WebEnv> = async (c, next) => {
  if (c.req.method === 'GET') {
    const raw = getCookie(c, FLASH_COOKIE);
    if (raw !== undefined) {
      deleteCookie(c, FLASH_COOKIE, { path: '/' });
      try {
        const message = decodeURIComponent(raw).slice(0, MAX_FLASH_LENGTH);
        if (message) c.set('flash', message);
      } catch {
        // A mangled cookie is dropped silently: it only ever held a notice.
      }
    }
  }
  await next();
};
