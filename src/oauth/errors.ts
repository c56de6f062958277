// OAuth protocol errors (RFC 6749 §5.2, RFC 7591 §3.2.2): `{ error, error_description }`, not the API's envelope.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'temporarily_unavailable'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === 'temporarily_unavailable' ? 429 : 400,
    /** Seconds until a 429 may be retried (Retry-After). */
    readonly retryAfterSeconds = 60,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export function oauthErrorResponse(error: OAuthError, basicChallenge = false): Response {
  const headers = new Headers({
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
  });
  if (error.status === 401 && basicChallenge) headers.set('www-authenticate', 'Basic realm="compliance-mcp"');
  if (error.status === 429) headers.set('retry-after', String(error.retryAfterSeconds));
  return new Response(JSON.stringify({ error: error.code, error_description: error.description }), {
    status: error.status,
    headers,
  });
}
