// The address a request comes from, for limits kept per client: the Node socket's peer, or Cloudflare's header.
import { expandIpv6 } from '../oauth/addresses.ts';

/** Reads a request's client address from what the host gives; null when it does not know. */
export type ClientAddressOf = (request: Request, env: unknown) => string | null;

/** The Node host (@hono/node-server puts the IncomingMessage on the env): the TCP peer, which a client cannot forge. */
export const socketClientAddress: ClientAddressOf = (_request, env) => {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? null;
};

/**
 * The Node host behind a reverse proxy: the address the proxy wrote in `header` (of X-Forwarded-For the last entry,
 * the one the proxy itself appended); the socket's peer when the header is absent.
 */
export function proxiedClientAddress(header: string): ClientAddressOf {
  return (request, env) => {
    const value = request.headers.get(header);
    const last = value?.slice(value.lastIndexOf(',') + 1).trim();
    return last || socketClientAddress(request, env);
  };
}

/** The Worker: Cloudflare's edge sets CF-Connecting-IP to the visitor's address (it replaces one sent by a client). */
export const cloudflareClientAddress: ClientAddressOf = (request) => request.headers.get('cf-connecting-ip');

/**
 * The key limits count under: an IPv4 address as is (also when written IPv4-mapped, `::ffff:a.b.c.d`), an IPv6 address
 * by its /64 (one subscriber's usual allocation, so rotating addresses inside it counts as one client), `unknown` when
 * the host does not say.
 */
export function clientAddressKey(address: string | null): string {
  if (!address) return 'unknown';
  // Longer than any written address: not one (a header can say anything outside Cloudflare).
  if (address.length > 64) return 'invalid';
  const bare = address
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (!bare.includes(':')) return bare;
  const groups = expandIpv6(bare);
  return groups
    ? `${groups
        .slice(0, 4)
        .map((group) => group.toString(16))
        .join(':')}::/64`
    : bare;
}
