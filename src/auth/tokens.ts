// API tokens: generation, SHA-256 hashing, strict bearer parsing, verification through the cache, revocation.
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { clientOf, type Db } from '../db/client.ts';
import { rowMapper } from '../db/rows.ts';
import { apiTokens, memberships } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { constantTimeEqual, randomBase64Url, sha256Hex } from './crypto.ts';
import type { Principal, Role, TokenScope } from './principal.ts';
import type { TokenCache } from './token-cache.ts';

export const TOKEN_PREFIX = 'cmcp_';
const DISPLAY_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;

// Exactly "Bearer <token>": one space, scheme in any case, token charset only (no stray space or newline).
const BEARER_PATTERN = /^Bearer ([A-Za-z0-9_-]{16,256})$/i;

export function parseBearer(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = BEARER_PATTERN.exec(header);
  return match?.[1] ?? null;
}

export function generateTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomBase64Url(32)}`;
}

export function hashToken(secret: string): Promise<string> {
  return sha256Hex(secret);
}

export type AuthFailure = 'unknown' | 'expired' | 'revoked';
export type AuthResult =
  | { ok: true; principal: Principal; tokenHash: string }
  /** `oauth`: an access token issued to a connected client (OAuth), not an API token. */
  | { ok: false; reason: AuthFailure; oauth?: true };

export interface TokenSummary {
  id: string;
  name: string;
  prefix: string;
  scope: TokenScope;
  organization_ids: string[] | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  state: 'active' | 'expired' | 'revoked';
}

export interface CreatedToken {
  id: string;
  token: string;
  prefix: string;
  expires_at: string | null;
}

/** Which of `organizationIds` the user is not a member of (a token may only be restricted to their own). */
export async function organizationsNotJoined(
  db: Db,
  userId: string,
  organizationIds: string[],
): Promise<string[]> {
  const found = await db
    .select({ id: memberships.organization_id })
    .from(memberships)
    .where(and(eq(memberships.user_id, userId), inArray(memberships.organization_id, organizationIds)));
  const member = new Set(found.map((row) => row.id));
  return organizationIds.filter((id) => !member.has(id));
}

export interface TokenServiceDeps {
  db: Db;
  cache: TokenCache;
  cacheTtlSeconds: number;
  now: () => Date;
  /**
   * SHA-256 hex of a secret, as hashToken makes it; every call hashes its token before the cache lookup. The Node
   * host passes a synchronous one (node:crypto), far cheaper there than WebCrypto's job per digest.
   */
  hash?: (secret: string) => string | Promise<string>;
}

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService({ db, cache, cacheTtlSeconds, now, hash = hashToken }: TokenServiceDeps) {
  // The token, its holder's memberships and time zone in one statement (one round trip, one snapshot), its SQL built
  // once and its row mapped by a mapper made once: this runs on every cache miss (twice, see authenticate), so it takes
  // the fewest steps SQLite and the binding can: only the columns a principal is made of, ONE row (the memberships
  // folded into a JSON array, not a join giving a row per membership) and a LIMIT 1 (the hash is unique), which the
  // embedded client reads with one native call; and it goes to the client itself, not through drizzle's prepared
  // query, whose layers cost about as much again as the row's own decoding.
  const principalSelection = {
    id: apiTokens.id,
    user_id: apiTokens.user_id,
    token_hash: apiTokens.token_hash,
    scope: apiTokens.scope,
    organization_ids: apiTokens.organization_ids,
    expires_at: apiTokens.expires_at,
    revoked_at: apiTokens.revoked_at,
    grant_id: apiTokens.grant_id,
    resource: apiTokens.resource,
    // Written out: in a select from one table drizzle leaves column names unqualified, and inside these subqueries
    // `user_id` would then name the membership's own column. A token for all organizations reaches the memberships
    // that began when it was issued (reach_as_of) and those their member opened to earlier tokens; a restricted one,
    // its list (filtered below).
    memberships: sql<string>`(select json_group_array(json_array(m.organization_id, m.role)) from memberships m where m.user_id = api_tokens.user_id and (api_tokens.organization_ids is not null or m.earlier_tokens = 1 or m.created_at <= api_tokens.reach_as_of))`,
    user_time_zone: sql<string | null>`(select u.time_zone from users u where u.id = api_tokens.user_id)`,
  };
  const principalRow = rowMapper(principalSelection) as (values: ArrayLike<unknown>) => Pick<
    typeof apiTokens.$inferSelect,
    | 'id'
    | 'user_id'
    | 'token_hash'
    | 'scope'
    | 'organization_ids'
    | 'expires_at'
    | 'revoked_at'
    | 'grant_id'
    | 'resource'
  > & {
    memberships: string;
    user_time_zone: string | null;
  };
  // Its two parameters: the hash, then the limit (drizzle writes `limit ?`).
  const principalSql = db
    .select(principalSelection)
    .from(apiTokens)
    .where(eq(apiTokens.token_hash, sql.placeholder('hash')))
    .limit(1)
    .toSQL().sql;
  const client = clientOf(db);

  async function loadPrincipal(tokenHash: string): Promise<AuthResult> {
    const values = (await client.execute({ sql: principalSql, args: [tokenHash, 1] })).rows[0];
    const row = values ? principalRow(values) : undefined;
    if (!row || !constantTimeEqual(row.token_hash, tokenHash)) return { ok: false, reason: 'unknown' };
    const oauth = row.grant_id ? { oauth: true as const } : {};
    if (row.revoked_at) return { ok: false, reason: 'revoked', ...oauth };
    if (row.expires_at && row.expires_at <= now().toISOString())
      return { ok: false, reason: 'expired', ...oauth };
    const allowed = row.organization_ids ? new Set(row.organization_ids) : null;
    const roles: Record<string, Role> = {};
    for (const [organizationId, role] of JSON.parse(row.memberships) as [string, Role][]) {
      if (!allowed || allowed.has(organizationId)) roles[organizationId] = role;
    }
    const principal: Principal = {
      tokenId: row.id,
      userId: row.user_id,
      scope: row.scope,
      roles,
      expiresAt: row.expires_at,
      ...(row.user_time_zone ? { timeZone: row.user_time_zone } : {}),
      ...(row.resource ? { audience: row.resource } : {}),
    };
    return { ok: true, principal, tokenHash };
  }

  function secondsUntil(iso: string | null): number {
    if (!iso) return Number.POSITIVE_INFINITY;
    return Math.floor((Date.parse(iso) - now().getTime()) / 1000);
  }

  return {
    /** Verifies a bearer secret. Expiry is checked on every call, cache hit or not. */
    async authenticate(secret: string): Promise<AuthResult> {
      const tokenHash = await hash(secret);
      const cached = await cache.get(tokenHash);
      if (cached) {
        if (cached.expiresAt && cached.expiresAt <= now().toISOString())
          return {
            ok: false,
            reason: 'expired',
            ...(cached.audience === undefined ? {} : { oauth: true as const }),
          };
        return { ok: true, principal: cached, tokenHash };
      }
      const result = await loadPrincipal(tokenHash);
      if (!result.ok) return result;
      const ttl = Math.min(cacheTtlSeconds, secondsUntil(result.principal.expiresAt));
      if (ttl <= 0) return result;
      await cache.put(tokenHash, result.principal, ttl);
      // A revocation or membership change that ran between the read and the put deleted the entry before the
      // put wrote it back. Reading again after the put closes that window: a change from now on deletes our entry.
      const again = await loadPrincipal(tokenHash);
      if (!again.ok || JSON.stringify(again.principal) !== JSON.stringify(result.principal)) {
        await cache.delete(tokenHash);
      }
      return again;
    },

    async create(input: {
      userId: string;
      name: string;
      scope: TokenScope;
      organizationIds: string[] | null;
      expiresAt: string | null;
    }): Promise<CreatedToken> {
      const name = input.name.trim();
      if (!name)
        throw new AppError('invalid_arguments', 'A token needs a name (e.g. "Claude Desktop - laptop").');
      if (name.length > 100)
        throw new AppError('invalid_arguments', 'A token name is at most 100 characters.');
      if (input.expiresAt && input.expiresAt <= now().toISOString()) {
        throw new AppError('invalid_arguments', 'The expiry must be in the future.');
      }
      if (input.organizationIds) {
        if (input.organizationIds.length === 0) {
          throw new AppError(
            'invalid_arguments',
            'Restrict the token to at least one organization, or to none.',
          );
        }
        const missing = await organizationsNotJoined(db, input.userId, input.organizationIds);
        if (missing.length > 0)
          throw new AppError('not_found', `Organization not found: ${missing.join(', ')}`);
      }
      const secret = generateTokenSecret();
      const id = newId('tok');
      const prefix = secret.slice(0, DISPLAY_PREFIX_LENGTH);
      const createdAt = now().toISOString();
      await db.insert(apiTokens).values({
        id,
        user_id: input.userId,
        name,
        token_hash: await hashToken(secret),
        prefix,
        scope: input.scope,
        organization_ids: input.organizationIds ? [...new Set(input.organizationIds)] : null,
        created_at: createdAt,
        expires_at: input.expiresAt,
        reach_as_of: createdAt,
      });
      return { id, token: secret, prefix, expires_at: input.expiresAt };
    },

    /** Revokes a token (of `userId`, when given) and drops it from the cache at once. */
    async revoke(tokenId: string, userId?: string): Promise<boolean> {
      const where = userId
        ? and(eq(apiTokens.id, tokenId), eq(apiTokens.user_id, userId), isNull(apiTokens.revoked_at))
        : and(eq(apiTokens.id, tokenId), isNull(apiTokens.revoked_at));
      const rows = await db
        .update(apiTokens)
        .set({ revoked_at: now().toISOString() })
        .where(where)
        .returning({ token_hash: apiTokens.token_hash });
      for (const row of rows) await cache.delete(row.token_hash);
      return rows.length > 0;
    },

    /** Revokes every access token of an OAuth grant (a connected client) and drops them from the cache. */
    async revokeGrantTokens(grantId: string): Promise<void> {
      const rows = await db
        .update(apiTokens)
        .set({ revoked_at: now().toISOString() })
        .where(and(eq(apiTokens.grant_id, grantId), isNull(apiTokens.revoked_at)))
        .returning({ token_hash: apiTokens.token_hash });
      await Promise.all(rows.map((row) => cache.delete(row.token_hash)));
    },

    /** Drops every token of a user from the cache, e.g. after their memberships changed. */
    async invalidateUser(userId: string): Promise<void> {
      const rows = await db
        .select({ token_hash: apiTokens.token_hash })
        .from(apiTokens)
        .where(and(eq(apiTokens.user_id, userId), isNull(apiTokens.revoked_at)));
      await Promise.all(rows.map((row) => cache.delete(row.token_hash)));
    },

    async list(userId: string): Promise<TokenSummary[]> {
      const rows = await db
        .select()
        .from(apiTokens)
        // OAuth access tokens are listed per connected client (their grant), not one by one.
        .where(and(eq(apiTokens.user_id, userId), isNull(apiTokens.grant_id)))
        .orderBy(desc(apiTokens.created_at), desc(apiTokens.id));
      const nowIso = now().toISOString();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        prefix: row.prefix,
        scope: row.scope,
        organization_ids: row.organization_ids,
        created_at: row.created_at,
        expires_at: row.expires_at,
        revoked_at: row.revoked_at,
        last_used_at: row.last_used_at,
        state: row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= nowIso ? 'expired' : 'active',
      }));
    },
  };
}
