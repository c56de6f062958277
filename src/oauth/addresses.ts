// Address checks for fetching URLs given by users (client metadata documents, webhook endpoints): no loopback,
// private, link-local or reserved targets.

/** Why `address` (an IPv4 or IPv6 literal) must not be fetched from, or null when it is a public address. */
export function refusedAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare.includes(':')) return refusedIpv6(bare);
  const v4 = parseIpv4(bare);
  return v4 ? refusedIpv4(v4) : 'not an IP address';
}

function parseIpv4(value: string): number[] | null {
  const parts = value.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return octets.every((octet) => Number.isInteger(octet) && octet >= 0 && octet <= 255) ? octets : null;
}

/** IPv4 special-purpose blocks (RFC 6890 and the IANA registry) that are not reachable, or not meant to be. */
function refusedIpv4([a = 0, b = 0, c = 0]: number[]): string | null {
  if (a === 0) return 'a "this network" address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
  if (a === 127) return 'a loopback address';
  if (a === 169 && b === 254) return 'a link-local address';
  if (a === 100 && b >= 64 && b <= 127) return 'a shared (carrier-grade NAT) address';
  // 192.0.0.0/24 (IETF protocol assignments) and 192.88.99.0/24 (the retired 6to4 relay anycast).
  if ((a === 192 && b === 0 && c === 0) || (a === 192 && b === 88 && c === 99)) return 'a reserved address';
  if (
    (a === 192 && b === 0 && c === 2) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return 'a documentation address';
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address';
  if (a >= 224) return 'a multicast or reserved address';
  return null;
}

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail as two), or null when it is not one. */
export function expandIpv6(value: string): number[] | null {
  let text = value.split('%')[0] ?? '';
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail?.[1]) {
    const v4 = parseIpv4(v4Tail[1]);
    if (!v4) return null;
    text = `${text.slice(0, -v4Tail[1].length)}${((v4[0] ?? 0) * 256 + (v4[1] ?? 0)).toString(16)}:${((v4[2] ?? 0) * 256 + (v4[3] ?? 0)).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const numbers = groups.map((group) =>
    /^[0-9a-f]{1,4}$/.test(group) ? Number.parseInt(group, 16) : Number.NaN,
  );
  return numbers.length === 8 && numbers.every((n) => !Number.isNaN(n)) ? numbers : null;
}

/**
 * Only global unicast (2000::/3) is fetched from, less its special blocks; addresses that carry an IPv4 address
 * (IPv4-mapped, NAT64's well-known prefix) are judged by that address. 6to4 and Teredo are refused outright: their
 * relays reach whatever IPv4 address is inside, private ones included.
 */
function refusedIpv6(value: string): string | null {
  const groups = expandIpv6(value);
  if (!groups) return 'not an IP address';
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroHead = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (groups.every((group) => group === 0)) return 'the unspecified address';
  if (zeroHead && g5 === 0 && g6 === 0 && g7 === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): judge the IPv4 address inside.
  const mapped = zeroHead && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (mapped || nat64) return refusedIpv4([g6 >> 8, g6 & 255, g7 >> 8, g7 & 255]);
  if (zeroHead && g5 === 0) return 'an IPv4-compatible address';
  if ((g0 & 0xfe00) === 0xfc00) return 'a unique local (private) address';
  if ((g0 & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g0 & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g0 & 0xff00) === 0xff00) return 'a multicast address';
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'a local-use NAT64 address';
  if ((g0 & 0xe000) !== 0x2000) return 'a reserved address';
  if (g0 === 0x2002) return 'a 6to4 address';
  if (g0 === 0x2001 && g1 === 0) return 'a Teredo address';
  // 2001:db8::/32 and 3fff::/20 (RFC 9637).
  if ((g0 === 0x2001 && g1 === 0xdb8) || (g0 === 0x3fff && g1 < 0x1000)) return 'a documentation address';
  // 2001::/23: IETF protocol assignments (benchmarking, ORCHID, ...), none of them a web server.
  if (g0 === 0x2001 && g1 < 0x200) return 'a special-purpose address';
  return null;
}

export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return bare.includes(':') || parseIpv4(bare) !== null;
}

/** Host names that always mean this machine or the local network, whatever DNS says. */
export function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name.endsWith('.local') ||
    name.endsWith('.internal') ||
    !name.includes('.')
  );
}

/**
 * What is wrong with a URL's host before any DNS lookup: a literal loopback, private, link-local or reserved address
 * (e.g. "a private address"), or a name that always means this machine or the local network; null when neither.
 */
export function refusedHostname(hostname: string): string | null {
  if (isIpLiteral(hostname)) return refusedAddress(hostname);
  return isLocalHostname(hostname) ? 'a local host name' : null;
}
