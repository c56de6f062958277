// Sends a page with the web interface's security headers, and the shared error pages (403, 404, 4xx from tools).
import type { Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { Layout, type Section, type Viewer } from './layout.tsx';

// Pages use no inline script or style: the policy can forbid both.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    // Pages show private data (and once, a token secret): never cached.
    'cache-control': 'no-store',
  };
}

export function sendPage(
  c: Context,
  node: JSX.Element,
  status: ContentfulStatusCode = 200,
): Response | Promise<Response> {
  for (const [name, value] of Object.entries(securityHeaders())) c.header(name, value);
  return c.html(node, status);
}

export function errorPage(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  message: string,
  viewer?: Viewer,
  section?: Section,
): Response | Promise<Response> {
  return sendPage(
    c,
    <Layout title={title} viewer={viewer} section={section ?? { kind: 'none' }}>
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Go to the start page</a>
      </p>
    </Layout>,
    status,
  );
}

export function notFoundPage(c: Context, viewer?: Viewer): Response | Promise<Response> {
  return errorPage(
    c,
    404,
    'Not found',
    'There is nothing here, or it belongs to an organization you are not a member of.',
    viewer,
  );
}
