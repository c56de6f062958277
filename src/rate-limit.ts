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

export interface KeyedLimits {
  /** Uses allowed per key (a client address) in a window. */
  perKey: number;
  /** Uses allowed in all in a window, well above perKey so one key alone cannot use them up. */
  total: number;
  windowMs: number;
}

/**
 * A fixed-window limit per key and in total (per process or isolate). Only allowed uses are counted, so the keys kept
 * never outnumber `total`, and they are dropped when the window turns.
 */
export function createKeyedLimiter(limits: KeyedLimits, now: () => number = Date.now): RateLimiter {
  let windowStart = Number.NEGATIVE_INFINITY;
  let used = 0;
  const usedByKey = new Map<string, number>();
  return {
    take(key) {
      const time = now();
      const start = time - (time % limits.windowMs);
      if (start !== windowStart) {
        windowStart = start;
        used = 0;
        usedByKey.clear();
      }
      const wait = Math.max(1, Math.ceil((start + limits.windowMs - time) / 1000));
      const mine = usedByKey.get(key) ?? 0;
      if (mine >= limits.perKey || used >= limits.total) return wait;
      usedByKey.set(key, mine + 1);
      used += 1;
      return 0;
    },
  };
}
