// A per-token fixed-window limit on tool calls (per process or isolate; a coarse guard, not a quota system).

export interface RateLimiter {
  /** Returns 0 when the call may go ahead, else the seconds to wait. */
  take(key: string): number;
}

export function createRateLimiter(perMinute: number, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; used: number }>();
  return {
    take(key) {
      if (perMinute <= 0) return 0;
      const time = now();
      const start = time - (time % 60_000);
      let window = windows.get(key);
      if (!window || window.start !== start) {
        if (windows.size > 10_000) windows.clear();
        window = { start, used: 0 };
        windows.set(key, window);
      }
      window.used += 1;
      return window.used > perMinute ? Math.ceil((start + 60_000 - time) / 1000) : 0;
    },
  };
}
