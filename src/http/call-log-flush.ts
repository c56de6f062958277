// Workers write the call log and start webhook deliveries after the response is sent (waitUntil); the Node host does
// both on its own timers instead.
import type { Context, MiddlewareHandler } from 'hono';
import type { UsageRecorder } from '../usage.ts';
import type { WebhookRunner } from '../webhooks/runner.ts';

function afterResponse(c: Context, work: Promise<unknown>): void {
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    // No execution context (Node): the promise runs on its own.
    void work;
  }
}

/** After a request whose write landed: one small delivery run (`limit` messages), so events leave within seconds. */
export function deliverWebhooksAfterResponse(
  webhooks: WebhookRunner,
  limit: number,
  logError: (requestId: string, error: unknown) => void,
): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!webhooks.takeRequest()) return;
    afterResponse(
      c,
      webhooks.run(limit).catch((error: unknown) => logError('webhooks', error)),
    );
  };
}

export function flushCallLogAfterResponse(usage: UsageRecorder): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (usage.pending() === 0) return;
    // Errors are logged by the recorder.
    afterResponse(c, usage.flush());
  };
}
