// The client's address, for the throttles kept per client: a header the proxy in front sets, else the connection's.
import type { Context } from 'hono';

/** Stands for every request whose address is missing or unreadable: they share one counter. */
export const UNKNOWN_CLIENT = 'unknown';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV6_CHARACTERS = /^[0-9a-f:.]{2,45}$/;

/** The connection's peer on the Node host (@hono/node-server puts the IncomingMessage in the env). */
function socketAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined;
  const address = env?.incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : undefined;
}

/**
 * The address the counters use: IPv4 as is, IPv6 as its /64 (one subscriber's network: its hosts are free to pick
 * any address in it), an IPv4-mapped IPv6 as its IPv4; anything else (absent, malformed) is UNKNOWN_CLIENT.
 */
export function normalizeClientAddress(raw: string | undefined): string {
  const value =
    raw
      ?.trim()
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/%.*$/, '') ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(value)?.[1];
  const candidate = mapped ?? value;
  const ipv4 = IPV4.exec(candidate);
  if (ipv4) return ipv4.slice(1).every((part) => Number(part) <= 255) ? candidate : UNKNOWN_CLIENT;
  if (!IPV6_CHARACTERS.test(candidate) || !candidate.includes(':')) return UNKNOWN_CLIENT;
  const groups = ipv6Groups(candidate);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : UNKNOWN_CLIENT;
}

/** The eight groups of an IPv6 address (`::` expanded, no leading zeros), or undefined if it is not one. */
function ipv6Groups(address: string): string[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const split = (part: string | undefined) => (part ? part.split(':') : []);
  const head = split(halves[0]);
  const tail = split(halves[1]);
  // A trailing dotted quad (::1.2.3.4) is two groups.
  const last = tail.length > 0 ? tail : head;
  const quad = last.length > 0 ? IPV4.exec(last[last.length - 1] ?? '') : null;
  if (quad) {
    last.pop();
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}

/**
 * The client's address: from `header` when the operator named one (CLIENT_ADDRESS_HEADER; for X-Forwarded-For its
 * last entry, the one the nearest proxy added), otherwise from the connection (Node host).
 */
export function clientAddressOf(c: Context, header: string | undefined): string {
  if (header) {
    const value = c.req.header(header);
    const entries = value?.split(',') ?? [];
    return normalizeClientAddress(entries[entries.length - 1]);
  }
  return normalizeClientAddress(socketAddressOf(c));
}
