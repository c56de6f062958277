// TokenCache over a Workers KV namespace: key = token hash, value = the principal as JSON, expiring after >= 60 s.
import type { KVNamespace } from '@cloudflare/workers-types';
import type { Principal } from './principal.ts';
import { tokenScopeOf } from './principal.ts';
import type { TokenCache } from './token-cache.ts';

/** KV refuses an `expirationTtl` below 60 seconds. */
export const KV_MIN_TTL_SECONDS = 60;

function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.tokenId === 'string' &&
    typeof candidate.userId === 'string' &&
    tokenScopeOf(candidate.scope) !== null &&
    typeof candidate.roles === 'object' &&
    candidate.roles !== null &&
    (candidate.expiresAt === null || typeof candidate.expiresAt === 'string') &&
    (candidate.audience === undefined || typeof candidate.audience === 'string')
  );
}

export function createKvTokenCache(
  kv: KVNamespace,
  log: (message: string) => void = console.error,
): TokenCache {
  return {
    async get(tokenHash) {
      try {
        const value = await kv.get(tokenHash, 'json');
        return isPrincipal(value) ? value : null;
      } catch (error) {
        // A KV outage degrades to a database lookup instead of refusing every request.
        log(`token cache: KV get failed: ${String(error)}`);
        return null;
      }
    },
    async put(tokenHash, principal, ttlSeconds) {
      if (ttlSeconds <= 0) return;
      try {
        await kv.put(tokenHash, JSON.stringify(principal), {
          expirationTtl: Math.max(KV_MIN_TTL_SECONDS, Math.ceil(ttlSeconds)),
        });
      } catch (error) {
        // KV allows one write per key per second: concurrent first requests of one token may lose this race.
        log(`token cache: KV put failed: ${String(error)}`);
      }
    },
    async delete(tokenHash) {
      try {
        await kv.delete(tokenHash);
      } catch (error) {
        // The database already says revoked; the cached copy then lives until its expirationTtl.
        log(`token cache: KV delete failed, the cached entry expires on its own: ${String(error)}`);
      }
    },
  };
}
