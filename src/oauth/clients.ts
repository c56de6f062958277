// OAuth clients: dynamic registration (RFC 7591), metadata documents by URL (cached), client authentication.
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { constantTimeEqual, randomBase64Url, sha256Hex } from '../auth/crypto.ts';
import type { Db } from '../db/client.ts';
import { oauthClients } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { createKeyedLimiter, type KeyedLimits } from '../rate-limit.ts';
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
  /** Metadata documents: the document as fetched, and when it must be fetched again. */
  document?: { body: string; refreshAfter: string };
}

/**
 * Dynamic registrations (the endpoint needs no sign-in), counted in the database so every process and isolate shares
 * the count: per client address, and in all with room for 50 addresses at their limit.
 */
export const REGISTRATION_LIMITS: KeyedLimits = { perKey: 20, total: 1000, windowMs: 60 * 60_000 };
/**
 * Metadata document fetches caused by requests (sign-in or not), per process or isolate: per client address, and in
 * all with room for 25 addresses at their limit.
 */
export const METADATA_FETCH_LIMITS: KeyedLimits = { perKey: 20, total: 500, windowMs: 10 * 60_000 };
/** Metadata documents kept in memory (the least recently used goes first), each until its refresh time. */
export const METADATA_CACHE_ENTRIES = 256;

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
    ...(row.kind === 'metadata_document' && row.refresh_after
      ? { document: { body: row.metadata, refreshAfter: row.refresh_after } }
      : {}),
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

/** What a request that may reach the client registry says about itself: its client address key (limits). */
export interface RequestOrigin {
  addressKey: string;
}

function tooMany(what: string, waitSeconds: number): OAuthError {
  return new OAuthError(
    'temporarily_unavailable',
    `Too many ${what} from your address; try again in ${waitSeconds} seconds.`,
    429,
    waitSeconds,
  );
}

/** A bounded map of metadata document clients, least recently used first, each until its refresh time. */
function createMetadataCache(capacity: number) {
  const entries = new Map<string, OAuthClient & { document: NonNullable<OAuthClient['document']> }>();
  return {
    get(clientId: string, nowIso: string) {
      const entry = entries.get(clientId);
      if (!entry) return undefined;
      entries.delete(clientId);
      if (entry.document.refreshAfter <= nowIso) return undefined;
      entries.set(clientId, entry);
      return entry;
    },
    set(client: OAuthClient & { document: NonNullable<OAuthClient['document']> }) {
      entries.delete(client.clientId);
      entries.set(client.clientId, client);
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break;
        entries.delete(oldest);
      }
    },
  };
}

export function createClientRegistry({ db, now, fetcher, allowLocalClientMetadata }: ClientRegistryDeps) {
  const cache = createMetadataCache(METADATA_CACHE_ENTRIES);
  const fetchLimiter = createKeyedLimiter(METADATA_FETCH_LIMITS, () => now().getTime());

  /**
   * A client known by its metadata document: from memory, else from the database (clients a person consented to),
   * else fetched, within the fetch limits. Nothing is written for a client nobody consented to.
   */
  async function fromMetadataDocument(clientId: string, origin: RequestOrigin): Promise<OAuthClient | null> {
    const nowIso = now().toISOString();
    const cached = cache.get(clientId, nowIso);
    if (cached) return cached;
    const problem = clientIdUrlProblem(clientId, allowLocalClientMetadata);
    if (problem) throw new OAuthError('invalid_client', problem);
    const row = await db.query.oauthClients.findFirst({ where: eq(oauthClients.client_id, clientId) });
    const stored = row && row.kind === 'metadata_document' ? rowToClient(row) : null;
    if (stored?.document && stored.document.refreshAfter > nowIso) {
      cache.set({ ...stored, document: stored.document });
      return stored;
    }
    const wait = fetchLimiter.take(origin.addressKey);
    if (wait > 0) {
      // A client a person consented to keeps working on its last copy rather than failing.
      if (stored) return stored;
      throw tooMany('client metadata documents fetched', wait);
    }
    const client = await fetchDocument(clientId);
    cache.set(client);
    if (stored) await storeDocument(client);
    return client;
  }

  async function fetchDocument(clientId: string) {
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
    return {
      clientId,
      kind: 'metadata_document' as const,
      name: document.client_name,
      clientUri: document.client_uri,
      redirectUris: document.redirect_uris,
      authMethod: 'none' as const,
      secretHash: null,
      document: {
        body: fetched.body,
        refreshAfter: new Date(now().getTime() + ttl * 1000).toISOString(),
      },
    };
  }

  /** Writes a metadata document client to the database (insert, or refresh the stored copy). */
  async function storeDocument(client: OAuthClient): Promise<void> {
    if (client.kind !== 'metadata_document' || !client.document) return;
    const row = {
      client_id: client.clientId,
      kind: 'metadata_document' as const,
      client_name: client.name,
      client_uri: client.clientUri,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: 'none' as const,
      client_secret_hash: null,
      metadata: client.document.body,
      created_at: now().toISOString(),
      refresh_after: client.document.refreshAfter,
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
  }

  return {
    /**
     * The client named by `clientId`, fetching (or re-fetching) its metadata document when it is a URL. Throws
     * invalid_client for an unusable document, temporarily_unavailable (429) past the fetch limits.
     */
    async resolve(clientId: string, origin: RequestOrigin): Promise<OAuthClient | null> {
      if (!clientId || clientId.length > 2000) return null;
      if (isUrlClientId(clientId)) return fromMetadataDocument(clientId, origin);
      const row = await db.query.oauthClients.findFirst({ where: eq(oauthClients.client_id, clientId) });
      return row && row.kind === 'registered' ? rowToClient(row) : null;
    },

    /**
     * After a signed-in person's consent: a client known by its metadata document is kept in the database, so the
     * token endpoint (any process or isolate) finds it without fetching. Registered clients are stored already.
     */
    remember: storeDocument,

    /**
     * RFC 7591 registration: returns the client information response (with a secret for confidential clients).
     * Refused with temporarily_unavailable (429) past REGISTRATION_LIMITS, for the address or in all.
     */
    async register(body: unknown, origin: RequestOrigin): Promise<Record<string, unknown>> {
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
      // RFC 7591: without a stated method the client authenticates with a secret (client_secret_basic).
      const authMethod = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
      const secret = authMethod === 'none' ? null : `cmcps_${randomBase64Url(32)}`;
      const clientId = newId('cli');
      const issuedAt = now();
      const registeredBy = await sha256Hex(origin.addressKey);
      const windowMs = REGISTRATION_LIMITS.windowMs;
      const since = new Date(issuedAt.getTime() - windowMs).toISOString();
      const registered = sql`${oauthClients.kind} = 'registered' and ${oauthClients.created_at} > ${since}`;
      // One statement counts and inserts, so parallel registrations cannot pass the limits together.
      const inserted = await db.run(sql`insert into ${oauthClients} (${sql.join(
        [
          'client_id',
          'kind',
          'client_name',
          'client_uri',
          'redirect_uris',
          'token_endpoint_auth_method',
          'client_secret_hash',
          'metadata',
          'created_at',
          'registered_by',
        ].map((column) => sql.identifier(column)),
        sql`, `,
      )})
        select ${clientId}, 'registered', ${metadata.client_name ?? null}, ${metadata.client_uri ?? null},
          ${JSON.stringify(metadata.redirect_uris)}, ${authMethod}, ${secret ? await sha256Hex(secret) : null},
          ${JSON.stringify(metadata)}, ${issuedAt.toISOString()}, ${registeredBy}
        where (select count(*) from ${oauthClients} where ${registered}
            and ${oauthClients.registered_by} = ${registeredBy}) < ${REGISTRATION_LIMITS.perKey}
          and (select count(*) from ${oauthClients} where ${registered}) < ${REGISTRATION_LIMITS.total}`);
      if (inserted.rowsAffected === 0) {
        const [usage] = await db
          .select({
            mine: sql<number>`count(case when ${oauthClients.registered_by} = ${registeredBy} then 1 end)`,
            myOldest: sql<
              string | null
            >`min(case when ${oauthClients.registered_by} = ${registeredBy} then ${oauthClients.created_at} end)`,
            all: sql<number>`count(*)`,
            oldest: sql<string | null>`min(${oauthClients.created_at})`,
          })
          .from(oauthClients)
          .where(registered);
        // The wait until the exhausted limit (or both) has room again.
        const freeAt = Math.max(
          usage && usage.mine >= REGISTRATION_LIMITS.perKey && usage.myOldest
            ? Date.parse(usage.myOldest) + windowMs
            : 0,
          usage && usage.all >= REGISTRATION_LIMITS.total && usage.oldest
            ? Date.parse(usage.oldest) + windowMs
            : 0,
        );
        throw tooMany('client registrations', Math.max(1, Math.ceil((freeAt - issuedAt.getTime()) / 1000)));
      }
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
    async authenticate(
      form: URLSearchParams,
      authorization: string | undefined,
      origin: RequestOrigin,
    ): Promise<OAuthClient> {
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
      const client = await this.resolve(clientId, origin);
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
