// This service as an OAuth protected resource and authorization server: its identifiers and metadata documents.
import type { Config } from '../config.ts';
import { isLoopbackHost } from '../http/origin.ts';

export const MCP_PATH = '/api/mcp/v1';
/** The MCP endpoint's short alias, the path many clients and connector guides assume. */
export const MCP_ALIAS_PATH = '/mcp';
/** Both paths of the MCP endpoint. */
export const MCP_PATHS = [MCP_PATH, MCP_ALIAS_PATH] as const;
export const OAUTH_SCOPES = ['read', 'propose', 'read_write'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  protectedResource: '/.well-known/oauth-protected-resource',
  authorizationServer: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

/**
 * The OAuth endpoints at the root too (`/authorize`, `/token`, `/register`, `/revoke`): some clients ignore the
 * metadata and try those, or fall back to them after a failed discovery.
 */
export const OAUTH_ROOT_ALIASES = {
  authorize: '/authorize',
  token: '/token',
  register: '/register',
  revoke: '/revoke',
} as const;

/** Access tokens live one hour; the refresh token lives as long as the grant the person chose. */
export const ACCESS_TOKEN_SECONDS = 3600;
/** Authorization codes are single use and expire after this long. */
export const CODE_SECONDS = 300;

/**
 * The public base URL (the OAuth issuer, the resource tokens are bound to): PUBLIC_URL when set. Without it a host
 * serves loopback only (the Node host refuses to start on another HOST, the Worker outside LOOPBACK_ONLY), so the
 * request's origin is taken only when it names a loopback host; another Host header gets 127.0.0.1 on the request's
 * port, never the name it sent.
 */
export function baseUrlOf(config: Pick<Config, 'publicUrl'>, requestUrl: string): string {
  if (config.publicUrl) return config.publicUrl;
  const url = new URL(requestUrl);
  if (isLoopbackHost(url.hostname)) return url.origin;
  return `${url.protocol}//127.0.0.1${url.port ? `:${url.port}` : ''}`;
}

/** The resource identifier of the MCP endpoint (RFC 8707), what tokens are issued for by default. */
export function mcpResourceOf(base: string): string {
  return `${base}${MCP_PATH}`;
}

/** The protected resource metadata of the MCP endpoint at `path` (its alias has its own, naming it). */
export function resourceMetadataUrlOf(base: string, path: string = MCP_PATH): string {
  return `${base}${OAUTH_PATHS.protectedResource}${path === MCP_ALIAS_PATH ? MCP_ALIAS_PATH : MCP_PATH}`;
}

/**
 * The resource a token may be bound to, in canonical form, or null when `value` names another resource. This
 * service is one resource reachable as its origin (the root metadata document) or as its MCP endpoint.
 */
export function canonicalResource(base: string, value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.hash || url.username || url.password) return null;
  const origin = new URL(base).origin;
  if (url.origin !== origin) return null;
  if (url.pathname === '/' || url.pathname === '') return url.search ? null : base;
  // A connector URL may carry the connection's choice of tools (`?toolsets=all`): still the same resource.
  const path = url.pathname.replace(/(?<!\/)\/+$/, ''); // tried only where a run starts: linear
  if (path === MCP_PATH) return mcpResourceOf(base);
  if (path === MCP_ALIAS_PATH) return `${base}${MCP_ALIAS_PATH}`;
  return null;
}

/** True when a token bound to `audience` may be used at this service (reached at `base`), by either MCP path. */
export function acceptsAudience(base: string, audience: string): boolean {
  return audience === base || MCP_PATHS.some((path) => audience === `${base}${path}`);
}

/** RFC 9728 protected resource metadata; `resource` is the URL the document describes. */
export function protectedResourceMetadata(base: string, resource: string) {
  return {
    resource,
    authorization_servers: [base],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Compliance MCP',
    resource_documentation: `${base}/`,
  };
}

/** RFC 8414 authorization server metadata (with the MCP additions: PKCE S256, client ID metadata documents). */
export function authorizationServerMetadata(base: string) {
  const clientAuthMethods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer: base,
    authorization_endpoint: `${base}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${base}${OAUTH_PATHS.token}`,
    registration_endpoint: `${base}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${base}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/`,
  };
}

/** The scope a request asks for: the widest it names (read_write, then propose), else read (unknown ones ignored). */
export function requestedScope(scope: string | undefined): OAuthScope {
  const names = (scope ?? '').split(' ').filter(Boolean);
  if (names.includes('read_write')) return 'read_write';
  return names.includes('propose') ? 'propose' : 'read';
}
