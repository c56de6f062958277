// The address filter for URLs users give (webhook endpoints, OAuth client metadata): only global unicast, each
// special-purpose range refused by name, addresses carrying an IPv4 address judged by it; at creation and at delivery.
import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../src/oauth/addresses.ts';
import { webhookUrlProblem } from '../../src/webhooks/endpoints.ts';
import { createNodeWebhookSender } from '../../src/webhooks/send-node.ts';

/** Each range, one address or more in it, and the reason given. */
const REFUSED: [string, string][] = [
  // IPv6
  ['fec0::1', 'a site-local address'],
  ['feff:ffff::1', 'a site-local address'],
  ['2002:a00:1::1', 'a 6to4 address'], // 6to4 of 10.0.0.1
  ['2002:7f00:1::', 'a 6to4 address'], // 6to4 of 127.0.0.1
  ['2002:808:808::1', 'a 6to4 address'], // even of a public address: the relay is not ours to choose
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo address'],
  ['2001::1', 'a Teredo address'],
  ['2001:2::1', 'a special-purpose address'], // benchmarking 2001:2::/48
  ['2001:20::1', 'a special-purpose address'], // ORCHIDv2 2001:20::/28
  ['2001:1ff:ffff::1', 'a special-purpose address'],
  ['2001:db8::1', 'a documentation address'],
  ['3fff::1', 'a documentation address'],
  ['3fff:fff::1', 'a documentation address'],
  ['::a00:1', 'an IPv4-compatible address'],
  ['::10.0.0.1', 'an IPv4-compatible address'],
  ['::8.8.8.8', 'an IPv4-compatible address'],
  ['::ffff:10.0.0.1', 'a private address'],
  ['::ffff:a00:1', 'a private address'],
  ['::ffff:169.254.169.254', 'a link-local address'],
  ['::ffff:0:a00:1', 'a reserved address'], // IPv4-translated (RFC 2765)
  ['64:ff9b::10.0.0.1', 'a private address'],
  ['64:ff9b::7f00:1', 'a loopback address'],
  ['64:ff9b:1::a00:1', 'a local-use NAT64 address'],
  ['100::1', 'a reserved address'], // discard-only 100::/64
  ['5f00::1', 'a reserved address'], // SRv6 SIDs
  ['4000::1', 'a reserved address'], // outside 2000::/3
  ['fc00::1', 'a unique local (private) address'],
  ['fe80::1%eth0', 'a link-local address'],
  ['ff02::1', 'a multicast address'],
  ['::1', 'a loopback address'],
  ['::', 'the unspecified address'],
  // IPv4
  ['192.0.0.8', 'a reserved address'],
  ['192.88.99.1', 'a reserved address'],
  ['192.0.2.10', 'a documentation address'],
  ['198.51.100.7', 'a documentation address'],
  ['203.0.113.9', 'a documentation address'],
  ['198.18.0.1', 'a benchmarking address'],
  ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
  ['240.0.0.1', 'a multicast or reserved address'],
  ['255.255.255.255', 'a multicast or reserved address'],
  ['0.1.2.3', 'a "this network" address'],
];

const ALLOWED = [
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:200::1', // the first block after 2001::/23 (WIDE)
  '2001:4860:4860::8888',
  '3ffe::1', // global unicast, not documentation
  '::ffff:8.8.8.8',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '192.0.78.24', // public, beside 192.0.0.0/24 and 192.0.2.0/24
  '192.0.3.1',
  '198.51.101.1',
  '8.8.8.8',
];

describe('the address filter', () => {
  it('refuses every special-purpose range, naming it', () => {
    for (const [address, reason] of REFUSED)
      expect([address, refusedAddress(address)]).toEqual([address, reason]);
  });

  it('lets global unicast through, and IPv4-carrying addresses of public IPv4 addresses', () => {
    for (const address of ALLOWED) expect([address, refusedAddress(address)]).toEqual([address, null]);
  });

  it('refuses webhook URLs on those ranges, as literals in brackets', () => {
    expect(webhookUrlProblem('https://[fec0::1]/hook', false)).toBe(
      'The URL points at a site-local address, which is refused.',
    );
    expect(webhookUrlProblem('https://[2002:a00:1::1]/hook', false)).toBe(
      'The URL points at a 6to4 address, which is refused.',
    );
    expect(webhookUrlProblem('https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', false)).toBe(
      'The URL points at a Teredo address, which is refused.',
    );
    expect(webhookUrlProblem('https://[64:ff9b::a00:1]/hook', false)).toBe(
      'The URL points at a private address, which is refused.',
    );
    expect(webhookUrlProblem('https://[2606:4700:4700::1111]/hook', false)).toBeNull();
  });

  it('refuses at delivery a name DNS answers with a 6to4 or site-local address (Node sender)', async () => {
    for (const [answer, reason] of [
      ['2002:7f00:1::1', 'a 6to4 address'],
      ['fec0::5', 'a site-local address'],
    ] as const) {
      const resolver = ((_name: string, _options: unknown, callback: (...args: unknown[]) => void) =>
        callback(null, [{ address: answer, family: 6 }])) as unknown as Parameters<
        typeof createNodeWebhookSender
      >[0];
      const send = createNodeWebhookSender(resolver);
      await expect(
        send(
          { url: 'https://hooks.example.com/in', headers: {}, body: '{}' },
          { timeoutMs: 5000, maxResponseBytes: 65_536, allowLocal: false },
        ),
      ).rejects.toThrow(`The host name resolves to ${reason}, which is refused.`);
    }
  });
});
