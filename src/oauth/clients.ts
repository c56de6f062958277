// OAuth clients: dynamic registration (RFC 7591), metadata documents by URL (cached in the database), client auth.
import { and, count, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import { constantTimeEqual, randomBase64Url, sha256Hex } from '../auth/crypto.ts';
import type { Db } from '../db/client.ts';
import { oauthClients } from '../db/schema.ts';
import { newId } from '../ids.ts';
import {
  CLIENT_METADATA_LIMITS,
  CLIENT_METADATA_TTL,
  ClientMetadataError,
  type ClientMetadataFetcher,
  clientIdUrlProblem,
  isUrlClientId,
  parseClientMetadataDocument,
} from './client-metadata.ts';
import { OAuthError } from './errors.ts';
import { redirectUriProblem } from './redirect-uris.ts';

export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export interface OAuthClient {
  clientId: string;
  kind: 'registered' | 'metadata_document';
  name: string | null;
  clientUri: string | null;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
  secretHash: string | null;
}

/** Registrations allowed per instance in any window of REGISTRATION_WINDOW_MS (the endpoint needs no sign-in). */
export const REGISTRATION_LIMIT = 100;
const REGISTRATION_WINDOW_MS = 15 * 60_000;

const RegistrationSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.url().max(2000).optional(),
  logo_uri: z.url().max(2000).optional(),
  scope: z.string().max(200).optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']).optional(),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
  response_types: z.array(z.literal('code')).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});

function rowToClient(row: typeof oauthClients.$inferSelect): OAuthClient {
  return {
    clientId: row.client_id,
    kind: row.kind,
    name: row.client_name,
    clientUri: row.client_uri,
    redirectUris: row.redirect_uris,
    authMethod: row.token_endpoint_auth_method,
    secretHash: row.client_secret_hash,
  };
}

export interface ClientRegistryDeps {
  db: Db;
  now: () => Date;
  fetcher: ClientMetadataFetcher;
  /** Development only: client_id URLs over http and on loopback or private addresses are fetched. */
  allowLocalClientMetadata: boolean;
}

export type ClientRegistry = ReturnType<typeof createClientRegistry>;

export function createClientRegistry({ db, now, fetcher, allowLocalClientMetadata }: ClientRegistryDeps) {
  async function fromMetadataDocument(clientId: string): Promise<OAuthClient | null> {
    const cached = await db.query.oauthClients.findFirst({ where: eq(oauthClients.client_id, clientId) });
    const nowIso = now().toISOString();
    if (
      cached &&
      cached.kind === 'metadata_document' &&
      cached.refresh_after &&
      cached.refresh_after > nowIso
    )
      return rowToClient(cached);
    const problem = clientIdUrlProblem(clientId, allowLocalClientMetadata);
    if (problem) throw new OAuthError('invalid_client', problem);
    let fetched: Awaited<ReturnType<ClientMetadataFetcher>>;
    try {
      fetched = await fetcher(new URL(clientId), {
        ...CLIENT_METADATA_LIMITS,
        allowLocal: allowLocalClientMetadata,
      });
    } catch (error) {
      const message =
        error instanceof ClientMetadataError
          ? error.message
          : 'The client metadata document could not be fetched.';
      throw new OAuthError('invalid_client', message);
    }
    if (fetched.status !== 200)
      throw new OAuthError('invalid_client', `The client metadata document answered HTTP ${fetched.status}.`);
    let document: ReturnType<typeof parseClientMetadataDocument>;
    try {
      document = parseClientMetadataDocument(clientId, fetched.body);
    } catch (error) {
      throw new OAuthError(
        'invalid_client',
        error instanceof Error ? error.message : 'Invalid client metadata document.',
      );
    }
    const ttl = Math.min(
      CLIENT_METADATA_TTL.maxSeconds,
      Math.max(CLIENT_METADATA_TTL.minSeconds, fetched.maxAgeSeconds ?? CLIENT_METADATA_TTL.defaultSeconds),
    );
    const row = {
      client_id: clientId,
      kind: 'metadata_document' as const,
      client_name: document.client_name,
      client_uri: document.client_uri,
      redirect_uris: document.redirect_uris,
      token_endpoint_auth_method: 'none' as const,
      client_secret_hash: null,
      metadata: fetched.body,
      created_at: nowIso,
      refresh_after: new Date(now().getTime() + ttl * 1000).toISOString(),
    };
    await db
      .insert(oauthClients)
      .values(row)
      .onConflictDoUpdate({
        target: oauthClients.client_id,
        set: {
          client_name: row.client_name,
          client_uri: row.client_uri,
          redirect_uris: row.redirect_uris,
          metadata: row.metadata,
          refresh_after: row.refresh_after,
        },
        // A registered client's id never looks like a URL, but never let a document replace one.
        where: eq(oauthClients.kind, 'metadata_document'),
      });
    return rowToClient(row);
  }

  return {
    /** The client named by `clientId`, fetching (or re-fetching) its metadata document when it is a URL. */
    async resolve(clientId: string): Promise<OAuthClient | null> {
      if (!clientId || clientId.length > 2000) return null;
      if (isUrlClientId(clientId)) return fromMetadataDocument(clientId);
      const row = await db.query.oauthClients.findFirst({ where: eq(oauthClients.client_id, clientId) });
      return row && row.kind === 'registered' ? rowToClient(row) : null;
    },

    /** RFC 7591 registration: returns the client information response (with a secret for confidential clients). */
    async register(body: unknown): Promise<Record<string, unknown>> {
      const parsed = RegistrationSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path.join('.') || 'body';
        const code = field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
        throw new OAuthError(code, `${field}: ${issue?.message ?? 'invalid'}`);
      }
      const metadata = parsed.data;
      for (const uri of metadata.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', problem);
      }
      const since = new Date(now().getTime() - REGISTRATION_WINDOW_MS).toISOString();
      const [recent] = await db
        .select({ value: count() })
        .from(oauthClients)
        .where(and(eq(oauthClients.kind, 'registered'), gt(oauthClients.created_at, since)));
      if ((recent?.value ?? 0) >= REGISTRATION_LIMIT)
        throw new OAuthError(
          'temporarily_unavailable',
          'Too many client registrations; try again in a few minutes.',
        );
      // RFC 7591: without a stated method the client authenticates with a secret (client_secret_basic).
      const authMethod = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
      const secret = authMethod === 'none' ? null : `cmcps_${randomBase64Url(32)}`;
      const clientId = newId('cli');
      const issuedAt = now();
      await db.insert(oauthClients).values({
        client_id: clientId,
        kind: 'registered',
        client_name: metadata.client_name ?? null,
        client_uri: metadata.client_uri ?? null,
        redirect_uris: metadata.redirect_uris,
        token_endpoint_auth_method: authMethod,
        client_secret_hash: secret ? await sha256Hex(secret) : null,
        metadata: JSON.stringify(metadata),
        created_at: issuedAt.toISOString(),
        refresh_after: null,
      });
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
        redirect_uris: metadata.redirect_uris,
        token_endpoint_auth_method: authMethod,
        grant_types: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        ...(metadata.client_name ? { client_name: metadata.client_name } : {}),
        ...(metadata.client_uri ? { client_uri: metadata.client_uri } : {}),
        ...(metadata.scope ? { scope: metadata.scope } : {}),
      };
    },

    /**
     * Authenticates the client of a token or revocation request (client_secret_basic, client_secret_post, or a
     * public client naming itself). Throws invalid_client.
     */
    async authenticate(form: URLSearchParams, authorization: string | undefined): Promise<OAuthClient> {
      let clientId = form.get('client_id') ?? '';
      let secret = form.get('client_secret');
      let method: ClientAuthMethod = secret ? 'client_secret_post' : 'none';
      if (authorization?.toLowerCase().startsWith('basic ')) {
        let decoded: string;
        try {
          decoded = atob(authorization.slice(6).trim());
        } catch {
          throw new OAuthError('invalid_client', 'Malformed Basic authorization.', 401);
        }
        const colon = decoded.indexOf(':');
        if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic authorization.', 401);
        const basicId = safeDecode(decoded.slice(0, colon));
        if (clientId && clientId !== basicId)
          throw new OAuthError('invalid_client', 'Two different client ids were sent.', 401);
        clientId = basicId;
        secret = safeDecode(decoded.slice(colon + 1));
        method = 'client_secret_basic';
      }
      if (!clientId) throw new OAuthError('invalid_client', 'The client_id is missing.', 401);
      const client = await this.resolve(clientId);
      if (!client) throw new OAuthError('invalid_client', 'Unknown client.', 401);
      if (client.authMethod === 'none') {
        if (method !== 'none')
          throw new OAuthError('invalid_client', 'This public client has no secret.', 401);
        return client;
      }
      if (!secret || !client.secretHash || !constantTimeEqual(await sha256Hex(secret), client.secretHash))
        throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
      return client;
    },
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
