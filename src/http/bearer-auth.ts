// Bearer-token authentication of the API routes: the token's principal on the context, or a 401 with its challenge.
import type { MiddlewareHandler } from 'hono';
import { parseBearer, type TokenService } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import { AppError, toErrorBody } from '../errors.ts';
import { acceptsAudience, baseUrlOf, resourceMetadataUrlOf } from '../oauth/resource.ts';
import type { AppEnv } from './env.ts';

const WWW_AUTHENTICATE_REALM = 'Bearer realm="compliance-mcp"';

const AUTH_MESSAGES = {
  missing: 'Missing bearer token. Send "Authorization: Bearer <API token>" (Settings > API Tokens).',
  malformed:
    'Malformed Authorization header. Send exactly "Bearer <API token>", with no extra spaces or newlines.',
  unknown: 'Unknown API token. Generate a new one in Settings > API Tokens.',
  expired: 'This API token has expired. Generate a new one in Settings > API Tokens.',
  revoked: 'This API token has been revoked. Generate a new one in Settings > API Tokens.',
  audience: 'This token was issued for another resource (RFC 8707 audience); get a token for this server.',
} as const;

/** The Bearer challenge: realm, where OAuth clients find how to get a token (RFC 9728), and the error if any. */
export function bearerChallenge(
  base: string,
  error?: { code: string; message: string; scope?: string },
): string {
  const parts = [WWW_AUTHENTICATE_REALM, `resource_metadata="${resourceMetadataUrlOf(base)}"`];
  if (error) {
    parts.push(`error="${error.code}"`, `error_description="${error.message.replace(/["\\]/g, "'")}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  return parts.join(', ');
}

function unauthorized(base: string, message: string, invalidToken: boolean): Response {
  const challenge = bearerChallenge(base, invalidToken ? { code: 'invalid_token', message } : undefined);
  return new Response(JSON.stringify(toErrorBody(new AppError('unauthorized', message))), {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
  });
}

/** `Authorization: Bearer <token>` exactly; the token known, live, and issued for this server (its audience). */
export function bearerAuth(deps: { config: Config; tokens: TokenService }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const base = baseUrlOf(deps.config, c.req.url);
    if (header === undefined || header === '') return unauthorized(base, AUTH_MESSAGES.missing, false);
    const secret = parseBearer(header);
    if (!secret) return unauthorized(base, AUTH_MESSAGES.malformed, true);
    const result = await deps.tokens.authenticate(secret);
    if (!result.ok) return unauthorized(base, AUTH_MESSAGES[result.reason], true);
    const audience = result.principal.audience;
    if (audience !== undefined && !acceptsAudience(base, audience))
      return unauthorized(base, AUTH_MESSAGES.audience, true);
    c.set('principal', result.principal);
    await next();
  };
}
