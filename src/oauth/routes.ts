// OAuth endpoints that are not pages: metadata (RFC 9728, RFC 8414), registration, token and revocation.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { Config } from '../config.ts';
import { OAuthError, oauthErrorResponse } from './errors.ts';
import type { OAuthServices } from './index.ts';
import {
  authorizationServerMetadata,
  baseUrlOf,
  canonicalResource,
  MCP_PATH,
  OAUTH_PATHS,
  protectedResourceMetadata,
} from './resource.ts';

const MAX_OAUTH_BODY_BYTES = 16 * 1024;

function noStoreJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'access-control-allow-origin': '*',
    },
  });
}

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  const form = new URLSearchParams(await request.text());
  // RFC 6749 §3.2: a parameter sent twice is an invalid request.
  for (const name of new Set(form.keys()))
    if (form.getAll(name).length > 1)
      throw new OAuthError('invalid_request', `The parameter ${name} is repeated.`);
  return form;
}

export function createOAuthRoutes(deps: {
  config: Config;
  oauth: OAuthServices;
  logError: (error: unknown) => void;
}) {
  const routes = new Hono();
  const { clients, grants } = deps.oauth;

  // Browser-based MCP clients read the metadata and call these endpoints from their own origin, without cookies.
  routes.use('/.well-known/*', cors({ origin: '*', allowMethods: ['GET'] }));
  routes.use('/oauth/token', cors({ origin: '*', allowMethods: ['POST'] }));
  routes.use('/oauth/register', cors({ origin: '*', allowMethods: ['POST'] }));
  routes.use('/oauth/revoke', cors({ origin: '*', allowMethods: ['POST'] }));
  routes.use(
    '/oauth/*',
    bodyLimit({
      maxSize: MAX_OAUTH_BODY_BYTES,
      onError: () => oauthErrorResponse(new OAuthError('invalid_request', 'The request body is too large.')),
    }),
  );

  const failed = (error: unknown, basic = false) => {
    if (error instanceof OAuthError) return oauthErrorResponse(error, basic);
    deps.logError(error);
    return oauthErrorResponse(new OAuthError('server_error', 'Internal error; it was logged.', 500));
  };

  routes.get(OAUTH_PATHS.protectedResource, (c) => {
    const base = baseUrlOf(deps.config, c.req.url);
    return c.json(protectedResourceMetadata(base, base));
  });
  routes.get(`${OAUTH_PATHS.protectedResource}${MCP_PATH}`, (c) => {
    const base = baseUrlOf(deps.config, c.req.url);
    return c.json(protectedResourceMetadata(base, `${base}${MCP_PATH}`));
  });
  routes.get(OAUTH_PATHS.authorizationServer, (c) =>
    c.json(authorizationServerMetadata(baseUrlOf(deps.config, c.req.url))),
  );

  routes.post(OAUTH_PATHS.register, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return oauthErrorResponse(new OAuthError('invalid_client_metadata', 'The body must be a JSON object.'));
    }
    try {
      return noStoreJson(await clients.register(body), 201);
    } catch (error) {
      return failed(error);
    }
  });

  routes.post(OAUTH_PATHS.token, async (c) => {
    const basic = /^basic /i.test(c.req.header('authorization') ?? '');
    try {
      const form = await readForm(c.req.raw);
      const client = await clients.authenticate(form, c.req.header('authorization'));
      const base = baseUrlOf(deps.config, c.req.url);
      const resourceParam = form.get('resource');
      const resource = resourceParam === null ? null : canonicalResource(base, resourceParam);
      if (resourceParam !== null && resource === null)
        throw new OAuthError('invalid_target', `This server issues tokens only for ${base}${MCP_PATH}.`);
      const grantType = form.get('grant_type');
      if (grantType === 'authorization_code') {
        return noStoreJson(
          await grants.exchangeCode({
            client,
            code: form.get('code') ?? '',
            redirectUri: form.get('redirect_uri'),
            codeVerifier: form.get('code_verifier'),
            resource,
          }),
        );
      }
      if (grantType === 'refresh_token') {
        return noStoreJson(
          await grants.refresh({
            client,
            refreshToken: form.get('refresh_token') ?? '',
            scope: form.get('scope'),
            resource,
          }),
        );
      }
      throw new OAuthError(
        grantType ? 'unsupported_grant_type' : 'invalid_request',
        grantType ? 'Only authorization_code and refresh_token are supported.' : 'The grant_type is missing.',
      );
    } catch (error) {
      return failed(error, basic);
    }
  });

  routes.post(OAUTH_PATHS.revoke, async (c) => {
    const basic = /^basic /i.test(c.req.header('authorization') ?? '');
    try {
      const form = await readForm(c.req.raw);
      const client = await clients.authenticate(form, c.req.header('authorization'));
      await grants.revokeToken(client, form.get('token') ?? '');
      return noStoreJson({});
    } catch (error) {
      return failed(error, basic);
    }
  });

  return routes;
}
