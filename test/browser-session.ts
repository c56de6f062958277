// A browser's session over any fetch (the Worker's entry in workerd, a server over loopback): the cookies it is given
// kept and sent back, redirects not followed, an Origin on what it posts, sign-in through the login form. Web-standard
// APIs only, so the workerd tests and the Node benches share it; the in-process web tests have their WebClient
// (test/web/web-client.ts), which also forgets expired cookies.

/** The CSRF token of a page's form (the `_csrf` hidden field), or '' when it has none. */
/**
 * The Set-Cookie lines of a response (Headers.getSetCookie: Node and workerd have it, the Workers types do not
 * declare it).
 */
export function setCookiesOf(headers: Headers): string[] {
  return (headers as Headers & { getSetCookie(): string[] }).getSetCookie();
}

export function csrfOf(html: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
}

/** A page as a test reads it: its status, its HTML, where it redirects to. */
export async function pageOf(
  response: Response,
): Promise<{ status: number; html: string; location: string | null }> {
  return { status: response.status, html: await response.text(), location: response.headers.get('location') };
}

export type BrowserSession = ReturnType<typeof browserSession>;

/** A session against `base` (an origin, e.g. http://127.0.0.1:8787) through `fetcher`. */
export function browserSession(fetcher: (request: Request) => Promise<Response>, base: string) {
  const cookies = new Map<string, string>();
  const origin = new URL(base).origin;

  /** `path` requested as the browser would: its cookies, and an Origin unless it only reads. */
  async function send(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') headers.set('origin', origin);
    if (cookies.size > 0)
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetcher(new Request(`${base}${path}`, { ...init, headers, redirect: 'manual' }));
    for (const line of setCookiesOf(response.headers)) {
      const pair = line.split(';')[0] ?? '';
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  }

  /** Signs in through the login form (its CSRF token, then the post): the post's answer, a 303 when it worked. */
  async function signIn(account: { email: string; password: string }): Promise<Response> {
    const csrf = csrfOf(await (await send('/login')).text());
    return send('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...account }).toString(),
    });
  }

  return { send, signIn };
}
