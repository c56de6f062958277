// Client ID Metadata Documents: an HTTPS client_id names a JSON document describing the client, fetched with bounds.
import { z } from 'zod';
import { refusedHostname } from './addresses.ts';
import { redirectUriProblem } from './redirect-uris.ts';

export interface FetchedDocument {
  status: number;
  body: string;
  /** From Cache-Control max-age, when the response said. */
  maxAgeSeconds: number | null;
}

export interface FetchLimits {
  maxBytes: number;
  timeoutMs: number;
  /** Development only: http:// URLs and loopback or private addresses are allowed. */
  allowLocal: boolean;
}

/** Fetches a client metadata document; throws ClientMetadataError when it cannot or must not. Injectable for tests. */
export type ClientMetadataFetcher = (url: URL, limits: FetchLimits) => Promise<FetchedDocument>;

export class ClientMetadataError extends Error {}

export const CLIENT_METADATA_LIMITS = { maxBytes: 16 * 1024, timeoutMs: 5000 } as const;
/** A fetched document is reused this long unless its Cache-Control says otherwise (bounded below and above). */
export const CLIENT_METADATA_TTL = { defaultSeconds: 3600, minSeconds: 300, maxSeconds: 86_400 } as const;

/** True when a client_id is a URL (a metadata document), not an identifier this server issued. */
export function isUrlClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** Why this client_id URL may not be fetched, or null. Literal addresses are checked here; names by the fetcher. */
export function clientIdUrlProblem(clientId: string, allowLocal: boolean): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'The client_id is not a valid URL.';
  }
  if (url.protocol !== 'https:' && !(allowLocal && url.protocol === 'http:'))
    return 'A client_id URL must use https.';
  if (url.pathname === '/' || url.pathname === '') return 'A client_id URL must have a path.';
  if (url.hash || url.username || url.password) return 'A client_id URL has no fragment and no credentials.';
  if (url.href !== clientId) return 'A client_id URL must be in normal form (as the URL parser writes it).';
  const refused = allowLocal ? null : refusedHostname(url.hostname);
  if (refused) return `The client_id URL points at ${refused}.`;
  return null;
}

/** Cache-Control max-age in seconds, or null (no-store and no-cache count as 0). */
export function maxAgeOf(cacheControl: string | null): number | null {
  if (!cacheControl) return null;
  if (/\b(no-store|no-cache)\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(cacheControl);
  return match?.[1] ? Number(match[1]) : null;
}

/** Reads at most `maxBytes` of a body, refusing a larger one without reading the rest. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ClientMetadataError(`The client metadata document is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/**
 * The fetcher over the platform's `fetch` (the Worker's): no redirects, a deadline, a size cap. Without DNS it can
 * only refuse literal addresses and local names; the Node host uses client-metadata-node.ts, which checks the
 * address it actually connects to.
 */
export const webClientMetadataFetcher: ClientMetadataFetcher = async (url, limits) => {
  const problem = clientIdUrlProblem(url.href, limits.allowLocal);
  if (problem) throw new ClientMetadataError(problem);
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(limits.timeoutMs),
    });
  } catch (error) {
    throw new ClientMetadataError(
      error instanceof Error && error.name === 'TimeoutError'
        ? `The client metadata document did not arrive within ${limits.timeoutMs} ms.`
        : 'The client metadata document could not be fetched.',
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { status: response.status, body: '', maxAgeSeconds: null };
  }
  return {
    status: response.status,
    body: await readCapped(response.body, limits.maxBytes),
    maxAgeSeconds: maxAgeOf(response.headers.get('cache-control')),
  };
};

const DocumentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().max(200).optional(),
  client_uri: z.url().optional(),
  logo_uri: z.url().optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  client_secret: z.unknown().optional(),
});

export interface ClientMetadataDocument {
  client_id: string;
  client_name: string | null;
  client_uri: string | null;
  redirect_uris: string[];
}

/** Validates a fetched document for `clientId`: it must name itself and be a public client with redirect URIs. */
export function parseClientMetadataDocument(clientId: string, body: string): ClientMetadataDocument {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ClientMetadataError('The client metadata document is not JSON.');
  }
  const parsed = DocumentSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ClientMetadataError(
      `The client metadata document is invalid: ${first ? `${first.path.join('.') || 'document'}: ${first.message}` : 'unknown problem'}.`,
    );
  }
  const document = parsed.data;
  if (document.client_id !== clientId)
    throw new ClientMetadataError('The client metadata document names another client_id.');
  if (document.client_secret !== undefined)
    throw new ClientMetadataError('A client metadata document must not carry a client_secret.');
  if ((document.token_endpoint_auth_method ?? 'none') !== 'none')
    throw new ClientMetadataError(
      'Only public clients (token_endpoint_auth_method "none") are supported by URL.',
    );
  if (document.grant_types?.some((grant) => grant !== 'authorization_code' && grant !== 'refresh_token'))
    throw new ClientMetadataError('Only the authorization_code and refresh_token grant types are supported.');
  if (document.response_types?.some((type) => type !== 'code'))
    throw new ClientMetadataError('Only the "code" response type is supported.');
  for (const uri of document.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`redirect_uris: ${problem}`);
  }
  return {
    client_id: clientId,
    client_name: document.client_name ?? null,
    client_uri: document.client_uri ?? null,
    redirect_uris: document.redirect_uris,
  };
}
