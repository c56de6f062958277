// DNS-rebinding protection for the MCP endpoint: a present Origin (and, on loopback, the Host) must be allowed.
import type { MiddlewareHandler } from 'hono';
import { AppError, errorResponse } from '../errors.ts';

export interface OriginPolicy {
  /** The server listens on a loopback address: Host and Origin must name a loopback host (any port). */
  loopbackOnly: boolean;
  /** Origins always allowed, e.g. https://compliance.example.com (from PUBLIC_URL and ALLOWED_ORIGINS). */
  allowedOrigins: ReadonlySet<string>;
}

const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(hostHeader: string): string | null {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Returns null when the request may go on, or the reason it is refused. */
export function refusedOrigin(request: Request, policy: OriginPolicy): string | null {
  // Node adapters build the URL from the Host header; in-process requests may carry only the URL.
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (policy.loopbackOnly) {
    const hostname = hostnameOf(host);
    if (!hostname || !isLoopbackHost(hostname)) return `Host ${host} is not allowed for this local server.`;
  }
  const origin = request.headers.get('origin');
  if (!origin) return null;
  if (policy.allowedOrigins.has(origin)) return null;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'The Origin header is not a valid origin.';
  }
  if (policy.loopbackOnly ? isLoopbackHost(parsed.hostname) : parsed.origin === new URL(request.url).origin)
    return null;
  return `Origin ${origin} is not allowed. Add it to ALLOWED_ORIGINS to call this server from that web page.`;
}

/** 403 forbidden for a request refusedOrigin refuses. */
export function dnsRebindingProtection(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const refusal = refusedOrigin(c.req.raw, policy);
    if (refusal) return errorResponse(new AppError('forbidden', refusal));
    await next();
  };
}
