// Grants (one person's consent to one client): codes with PKCE, access tokens in api_tokens, rotating refresh tokens.
import { and, desc, eq, isNull, lt, max, sql } from 'drizzle-orm';
import { constantTimeEqual, randomBase64Url, sha256Hex } from '../auth/crypto.ts';
import { TOKEN_SCOPES, type TokenScope, tokenScopeOf } from '../auth/principal.ts';
import { generateTokenSecret, hashToken, organizationsNotJoined, type TokenService } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import { apiTokens, oauthCodes, oauthGrants } from '../db/schema.ts';
import { newId } from '../ids.ts';
import type { OAuthClient } from './clients.ts';
import { OAuthError } from './errors.ts';
import { ACCESS_TOKEN_SECONDS, CODE_SECONDS, requestedScope } from './resource.ts';

const REFRESH_PREFIX = 'cmcpr_';
const CODE_PREFIX = 'cmcpc_';
const DISPLAY_PREFIX_LENGTH = 11;
/** Spent or expired codes are kept this long (a reused code still ends its grant), then deleted. */
const CODE_RETENTION_MS = 86_400_000;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: TokenScope;
  /** The resource the token is for (RFC 8707), echoed: some clients check it. */
  resource: string;
}

export interface ConnectedClient {
  id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  scope: TokenScope;
  organizationIds: string[] | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  state: 'active' | 'expired' | 'revoked';
}

/** PKCE S256: base64url(SHA-256(verifier)) without padding. */
export async function pkceChallengeOf(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** RFC 7636: 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

export interface GrantServiceDeps {
  db: Db;
  tokens: TokenService;
  now: () => Date;
}

export type GrantService = ReturnType<typeof createGrantService>;

export function createGrantService({ db, tokens, now }: GrantServiceDeps) {
  const invalidGrant = (message: string) => new OAuthError('invalid_grant', message);

  /** Ends a grant: no refresh, and every access token it issued is refused from the next request on. */
  async function endGrant(grantId: string, userId?: string): Promise<boolean> {
    const where = userId
      ? and(eq(oauthGrants.id, grantId), eq(oauthGrants.user_id, userId), isNull(oauthGrants.revoked_at))
      : and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revoked_at));
    const ended = await db
      .update(oauthGrants)
      .set({ revoked_at: now().toISOString(), refresh_hash: null })
      .where(where)
      .returning({ id: oauthGrants.id });
    await tokens.revokeGrantTokens(grantId);
    return ended.length > 0;
  }

  /** The grant a refresh token names (`cmcpr_<grant id>.<secret>`), whether or not the secret is current. */
  async function grantOfRefreshToken(token: string) {
    const match = /^cmcpr_(grt_[a-z0-9]{24})\.[A-Za-z0-9_-]{43}$/.exec(token);
    if (!match?.[1]) return undefined;
    return db.query.oauthGrants.findFirst({ where: eq(oauthGrants.id, match[1]) });
  }

  /** An access token row (the same kind as an API token) and the new refresh token for `grant`. */
  async function issue(
    grant: typeof oauthGrants.$inferSelect,
    scope: TokenScope,
  ): Promise<{ response: TokenResponse; accessRow: typeof apiTokens.$inferInsert; refreshHash: string }> {
    const access = generateTokenSecret();
    const refresh = `${REFRESH_PREFIX}${grant.id}.${randomBase64Url(32)}`;
    const refreshHash = await sha256Hex(refresh);
    const issuedAt = now();
    const expiresMs = Math.min(
      issuedAt.getTime() + ACCESS_TOKEN_SECONDS * 1000,
      Date.parse(grant.expires_at),
    );
    return {
      response: {
        access_token: access,
        token_type: 'Bearer',
        expires_in: Math.max(1, Math.floor((expiresMs - issuedAt.getTime()) / 1000)),
        refresh_token: refresh,
        scope,
        resource: grant.resource,
      },
      accessRow: {
        id: newId('tok'),
        user_id: grant.user_id,
        name: grant.client_name,
        token_hash: await hashToken(access),
        prefix: access.slice(0, DISPLAY_PREFIX_LENGTH),
        scope,
        organization_ids: grant.organization_ids,
        created_at: issuedAt.toISOString(),
        expires_at: new Date(expiresMs).toISOString(),
        grant_id: grant.id,
        resource: grant.resource,
        // "All organizations" means those of the moment of consent (docs/security.md), not of each refresh.
        reach_as_of: grant.created_at,
        refresh_hash: refreshHash,
      },
      refreshHash,
    };
  }

  /** True when `refreshHash` is a refresh token this grant issued (and since replaced): it was stolen or replayed. */
  async function issuedByGrant(grantId: string, refreshHash: string): Promise<boolean> {
    const [issued] = await db
      .select({ id: apiTokens.id })
      .from(apiTokens)
      .where(and(eq(apiTokens.grant_id, grantId), eq(apiTokens.refresh_hash, refreshHash)))
      .limit(1);
    return issued !== undefined;
  }

  return {
    endGrant,

    /** After consent: a grant (no tokens yet) and a code for it; returns the code to send to the client. */
    async createCode(input: {
      userId: string;
      client: OAuthClient;
      redirectUri: string;
      codeChallenge: string;
      scope: TokenScope;
      organizationIds: string[] | null;
      resource: string;
      expiresAt: string;
    }): Promise<string> {
      if (
        input.organizationIds &&
        (input.organizationIds.length === 0 ||
          (await organizationsNotJoined(db, input.userId, input.organizationIds)).length > 0)
      )
        throw new OAuthError('invalid_request', 'Choose only organizations you belong to.');
      const code = `${CODE_PREFIX}${randomBase64Url(32)}`;
      const grantId = newId('grt');
      const created = now();
      // Housekeeping in the same round trip: codes expired for a day are past any use, even reuse detection.
      const stale = new Date(created.getTime() - CODE_RETENTION_MS).toISOString();
      await db.batch([
        db.insert(oauthGrants).values({
          id: grantId,
          user_id: input.userId,
          client_id: input.client.clientId,
          client_name: (input.client.name ?? new URL(input.redirectUri).host) || input.client.clientId,
          redirect_uri: input.redirectUri,
          scope: input.scope,
          organization_ids: input.organizationIds ? [...new Set(input.organizationIds)] : null,
          resource: input.resource,
          created_at: created.toISOString(),
          expires_at: input.expiresAt,
        }),
        db.insert(oauthCodes).values({
          code_hash: await sha256Hex(code),
          grant_id: grantId,
          client_id: input.client.clientId,
          redirect_uri: input.redirectUri,
          code_challenge: input.codeChallenge,
          created_at: created.toISOString(),
          expires_at: new Date(created.getTime() + CODE_SECONDS * 1000).toISOString(),
        }),
        db.delete(oauthCodes).where(lt(oauthCodes.expires_at, stale)),
      ]);
      return code;
    },

    /** grant_type=authorization_code. A code is used once: a second use ends the grant it created. */
    async exchangeCode(input: {
      client: OAuthClient;
      code: string;
      redirectUri: string | null;
      codeVerifier: string | null;
      resource: string | null;
    }): Promise<TokenResponse> {
      if (!input.code) throw new OAuthError('invalid_request', 'The code is missing.');
      if (!input.codeVerifier)
        throw new OAuthError('invalid_request', 'The code_verifier is missing (PKCE is required).');
      const codeHash = await sha256Hex(input.code);
      const nowIso = now().toISOString();
      const [claimed] = await db
        .update(oauthCodes)
        .set({ used_at: nowIso })
        .where(and(eq(oauthCodes.code_hash, codeHash), isNull(oauthCodes.used_at)))
        .returning();
      if (!claimed) {
        const [used] = await db.select().from(oauthCodes).where(eq(oauthCodes.code_hash, codeHash));
        if (used) {
          // RFC 6749 §4.1.2: a code presented twice has leaked; what it issued is revoked.
          await endGrant(used.grant_id);
          throw invalidGrant('This authorization code was already used; the tokens it issued are revoked.');
        }
        throw invalidGrant('Unknown authorization code.');
      }
      // From here the code is spent: any mismatch also ends its (token-less) grant.
      const refuse = async (message: string) => {
        await endGrant(claimed.grant_id);
        return invalidGrant(message);
      };
      if (claimed.expires_at <= nowIso)
        throw await refuse('The authorization code has expired; authorize again.');
      if (claimed.client_id !== input.client.clientId)
        throw await refuse('The code was issued to another client.');
      if (input.redirectUri === null || input.redirectUri !== claimed.redirect_uri)
        throw await refuse('The redirect_uri differs from the one of the authorization request.');
      if (
        !PKCE_VALUE.test(input.codeVerifier) ||
        !constantTimeEqual(await pkceChallengeOf(input.codeVerifier), claimed.code_challenge)
      )
        throw await refuse('The code_verifier does not match the code_challenge.');
      const grant = await db.query.oauthGrants.findFirst({ where: eq(oauthGrants.id, claimed.grant_id) });
      if (!grant || grant.revoked_at || grant.expires_at <= nowIso)
        throw invalidGrant('The grant has ended.');
      if (input.resource !== null && input.resource !== grant.resource)
        throw new OAuthError('invalid_target', 'The resource differs from the one that was authorized.');
      const issued = await issue(grant, grant.scope);
      await db.batch([
        db.insert(apiTokens).values(issued.accessRow),
        db
          .update(oauthGrants)
          .set({ refresh_hash: issued.refreshHash })
          .where(and(eq(oauthGrants.id, grant.id), isNull(oauthGrants.revoked_at))),
      ]);
      return issued.response;
    },

    /** grant_type=refresh_token: the refresh token rotates; presenting a replaced one ends the grant. */
    async refresh(input: {
      client: OAuthClient;
      refreshToken: string;
      scope: string | null;
      resource: string | null;
    }): Promise<TokenResponse> {
      if (!input.refreshToken) throw new OAuthError('invalid_request', 'The refresh_token is missing.');
      const grant = await grantOfRefreshToken(input.refreshToken);
      const oldHash = await sha256Hex(input.refreshToken);
      const nowIso = now().toISOString();
      if (!grant || grant.client_id !== input.client.clientId) throw invalidGrant('Unknown refresh token.');
      if (grant.refresh_hash === null || !constantTimeEqual(grant.refresh_hash, oldHash)) {
        if (grant.revoked_at) throw invalidGrant('The grant has ended; authorize again.');
        // A replaced refresh token came back: it leaked, or the client lost track. Either way the grant ends. Only
        // a token this grant issued, or a client that proved itself with its secret, may end it: anyone can name a
        // public client and a grant id, and a token made up around them must not cut the connection.
        const proven = input.client.authMethod !== 'none' || (await issuedByGrant(grant.id, oldHash));
        if (!proven) throw invalidGrant('Unknown refresh token.');
        await endGrant(grant.id);
        throw invalidGrant(
          'This refresh token was already used or revoked; the grant is ended. Authorize again.',
        );
      }
      if (grant.revoked_at || grant.expires_at <= nowIso)
        throw invalidGrant('The grant has ended; authorize again.');
      if (input.resource !== null && input.resource !== grant.resource)
        throw new OAuthError('invalid_target', 'The resource differs from the one that was authorized.');
      let scope: TokenScope = grant.scope;
      if (input.scope !== null) {
        const asked = input.scope.split(' ').filter(Boolean);
        if (
          asked.some((name) => tokenScopeOf(name) === null) ||
          TOKEN_SCOPES.indexOf(requestedScope(input.scope)) > TOKEN_SCOPES.indexOf(grant.scope)
        )
          throw new OAuthError('invalid_scope', `The grant allows only: ${grant.scope}.`);
        scope = requestedScope(input.scope);
      }
      const issued = await issue(grant, scope);
      // Rotation is one conditional update: of two concurrent refreshes with the same token, one wins.
      const rotated = await db
        .update(oauthGrants)
        .set({ refresh_hash: issued.refreshHash })
        .where(
          and(
            eq(oauthGrants.id, grant.id),
            eq(oauthGrants.refresh_hash, oldHash),
            isNull(oauthGrants.revoked_at),
          ),
        )
        .returning({ id: oauthGrants.id });
      if (rotated.length === 0) throw invalidGrant('This refresh token was just used; use the newest one.');
      await db.insert(apiTokens).values(issued.accessRow);
      return issued.response;
    },

    /**
     * RFC 7009: a refresh token ends its grant; an access token is revoked alone. Tokens of other clients and
     * unknown tokens are ignored (the answer is the same 200 either way).
     */
    async revokeToken(client: OAuthClient, token: string): Promise<void> {
      if (!token) throw new OAuthError('invalid_request', 'The token is missing.');
      const grant = await grantOfRefreshToken(token);
      if (grant) {
        const current =
          grant.refresh_hash !== null && constantTimeEqual(grant.refresh_hash, await sha256Hex(token));
        if (current && grant.client_id === client.clientId) await endGrant(grant.id);
        return;
      }
      const [access] = await db
        .select({ id: apiTokens.id, client_id: oauthGrants.client_id })
        .from(apiTokens)
        .innerJoin(oauthGrants, eq(oauthGrants.id, apiTokens.grant_id))
        .where(eq(apiTokens.token_hash, await hashToken(token)));
      if (access && access.client_id === client.clientId) await tokens.revoke(access.id);
    },

    /** The person's connected clients for Settings > API Tokens, newest first, with the last use of any token. */
    async listForUser(userId: string): Promise<ConnectedClient[]> {
      const lastUse = db
        .select({
          grant_id: apiTokens.grant_id,
          last_used_at: max(apiTokens.last_used_at).as('last_used_at'),
        })
        .from(apiTokens)
        .where(and(eq(apiTokens.user_id, userId), sql`${apiTokens.grant_id} is not null`))
        .groupBy(apiTokens.grant_id)
        .as('last_use');
      const rows = await db
        .select({ grant: oauthGrants, last_used_at: lastUse.last_used_at })
        .from(oauthGrants)
        // Only grants that issued tokens: a consent whose code was never exchanged connected nothing.
        .innerJoin(lastUse, eq(lastUse.grant_id, oauthGrants.id))
        .where(eq(oauthGrants.user_id, userId))
        .orderBy(desc(oauthGrants.created_at), desc(oauthGrants.id));
      const nowIso = now().toISOString();
      return rows.map(({ grant, last_used_at }) => ({
        id: grant.id,
        clientId: grant.client_id,
        clientName: grant.client_name,
        redirectUri: grant.redirect_uri,
        scope: grant.scope,
        organizationIds: grant.organization_ids,
        createdAt: grant.created_at,
        expiresAt: grant.expires_at,
        revokedAt: grant.revoked_at,
        lastUsedAt: last_used_at ?? null,
        state: grant.revoked_at ? 'revoked' : grant.expires_at <= nowIso ? 'expired' : 'active',
      }));
    },
  };
}
