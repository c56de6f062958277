// The Worker's webhook sender (platform fetch, no DNS answers to check) refuses site-local, 6to4 and Teredo literals
// before any request, as the Node host does.
import { describe, expect, it } from 'vitest';
import { fetchWebhookSender } from '../../src/webhooks/send.ts';

describe('webhook addresses on the Worker', () => {
  it('refuses site-local, 6to4, Teredo and NAT64-of-private literals without sending', async () => {
    const limits = { timeoutMs: 2000, maxResponseBytes: 65_536, allowLocal: false };
    for (const [host, reason] of [
      ['[fec0::1]', 'a site-local address'],
      ['[2002:a00:1::1]', 'a 6to4 address'],
      ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'a Teredo address'],
      ['[64:ff9b::a9fe:a9fe]', 'a link-local address'],
    ] as const)
      await expect(
        fetchWebhookSender({ url: `https://${host}/hook`, headers: {}, body: '{}' }, limits),
      ).rejects.toThrow(`The URL points at ${reason}, which is refused.`);
  });
});
