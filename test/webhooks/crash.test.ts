// kill -9 of the Node host while writes go on, with a webhook endpoint on a loopback receiver that verifies every
// delivery with `standardwebhooks` and drops or delays some: after the restart, every change arrives, and a change
// that arrives twice carries the same webhook-id.
import { describe, expect, it } from 'vitest';
import { runCrashTest } from '../../scripts/fuzz-crash-engine.ts';

describe('webhooks across a kill -9 of the Node host', () => {
  it('loses no event and repeats one only under the same webhook-id', async () => {
    const report = await runCrashTest({ rounds: 1, writesPerRound: 60, concurrency: 6, webhooks: true });
    expect(report.lostWrites).toBe(0);
    const hooks = report.webhooks;
    expect(hooks?.events).toBeGreaterThanOrEqual(60);
    expect({
      lost: hooks?.lost,
      delivered: hooks?.delivered,
      repeatedOtherId: hooks?.repeatedOtherId,
      badSignatures: hooks?.badSignatures,
      pendingAtEnd: hooks?.pendingAtEnd,
    }).toEqual({ lost: 0, delivered: hooks?.events, repeatedOtherId: 0, badSignatures: 0, pendingAtEnd: 0 });
  }, 420_000);
});
