// Workers write the call log after the response is sent (waitUntil); the Node host flushes it on an interval instead.
import type { MiddlewareHandler } from 'hono';
import type { UsageRecorder } from '../usage.ts';

export function flushCallLogAfterResponse(usage: UsageRecorder): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (usage.pending() === 0) return;
    const flushing = usage.flush();
    try {
      c.executionCtx.waitUntil(flushing);
    } catch {
      // No execution context (Node): the promise runs on its own; errors are logged by the recorder.
      void flushing;
    }
  };
}
