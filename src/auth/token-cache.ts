// The token cache port (hash -> principal with a TTL) and its in-process implementation for the Node host.
import type { Principal } from './principal.ts';

export interface TokenCache {
  get(tokenHash: string): Promise<Principal | null>;
  put(tokenHash: string, principal: Principal, ttlSeconds: number): Promise<void>;
  delete(tokenHash: string): Promise<void>;
}

export function createMemoryTokenCache(now: () => number = Date.now, maxEntries = 10_000): TokenCache {
  const entries = new Map<string, { principal: Principal; expiresAtMs: number }>();
  return {
    async get(tokenHash) {
      const entry = entries.get(tokenHash);
      if (!entry) return null;
      if (entry.expiresAtMs <= now()) {
        entries.delete(tokenHash);
        return null;
      }
      return entry.principal;
    },
    async put(tokenHash, principal, ttlSeconds) {
      if (ttlSeconds <= 0) return;
      // Map keeps insertion order: dropping the first key evicts the oldest entry.
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(tokenHash, { principal, expiresAtMs: now() + ttlSeconds * 1000 });
    },
    async delete(tokenHash) {
      entries.delete(tokenHash);
    },
  };
}

/** A cache that never holds anything: every lookup goes to the database. */
export const noTokenCache: TokenCache = {
  async get() {
    return null;
  },
  async put() {},
  async delete() {},
};
