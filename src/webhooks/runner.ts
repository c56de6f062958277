// When deliveries run. Node (`host`, once started): a timer, and a run started at once after a write; one run at a time, repeated
// while a full batch was due. Worker (`after-response`): a write asks for a small run, which the app starts with
// waitUntil once the response is sent; the Cron Trigger runs a larger one every minute (docs/worker.md).
import type { Db } from '../db/client.ts';
import type { SecretKeyring } from '../secrets/keyring.ts';
import { type DeliveryRun, type DeliveryTiming, deliverDueWebhooks } from './deliver.ts';
import type { WebhookSender } from './send.ts';

/** Messages one run sends on the Node host (runs repeat while as many were due). */
export const HOST_RUN_LIMIT = 50;

export interface WebhookRunner {
  /** A write landed: its events may be in the outbox. */
  afterWrite(): void;
  /** Worker: whether a write asked for a run since the last call (the app then starts one with waitUntil). */
  takeRequest(): boolean;
  /** One run of at most `limit` messages (the Worker's cron and after-write runs; tests). */
  run(limit: number): Promise<DeliveryRun>;
  /** Node: a run now unless one is under way (then one more after it); resolves when they are done. */
  kick(): Promise<void>;
  /** Node: runs now, then every `periodMs` and after each write, until `stop`. */
  start(periodMs: number): void;
  /** Stops the timer and resolves when no run is under way. */
  stop(): Promise<void>;
}

export function createWebhookRunner(options: {
  db: Db;
  send: WebhookSender;
  now: () => Date;
  allowLocal: boolean;
  secrets: SecretKeyring;
  mode: 'host' | 'after-response';
  timing?: DeliveryTiming;
  log?: (message: string) => void;
}): WebhookRunner {
  let requested = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const run = (limit: number) =>
    deliverDueWebhooks(options.db, {
      send: options.send,
      now: options.now,
      limit,
      allowLocal: options.allowLocal,
      secrets: options.secrets,
      ...(options.timing ? { timing: options.timing } : {}),
    });
  const loop = async () => {
    do {
      again = false;
      try {
        const done = await run(HOST_RUN_LIMIT);
        if (done.sent === HOST_RUN_LIMIT) again = true;
      } catch (error) {
        options.log?.(`Webhook delivery failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    } while (again);
  };
  const kick = () => {
    if (running) {
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    afterWrite() {
      if (options.mode === 'after-response') requested = true;
      else if (timer) void kick();
    },
    takeRequest() {
      const was = requested;
      requested = false;
      return was;
    },
    run,
    kick,
    start(periodMs) {
      if (timer) return;
      void kick();
      timer = setInterval(() => void kick(), periodMs);
      (timer as { unref?: () => void }).unref?.();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
