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
  MCP_PATHS,
  OAUTH_PATHS,
  OAUTH_ROOT_ALIASES,
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
  const { clients, grants, originOf } = deps.oauth;

  // Browser-based MCP clients read the metadata and call these endpoints from their own origin, without cookies.
  routes.use('/.well-known/*', cors({ origin: '*', allowMethods: ['GET'] }));
  const limited = bodyLimit({
    maxSize: MAX_OAUTH_BODY_BYTES,
    onError: () => oauthErrorResponse(new OAuthError('invalid_request', 'The request body is too large.')),
  });
  routes.use('/oauth/*', limited);
  for (const name of ['token', 'register', 'revoke'] as const) {
    for (const path of [OAUTH_PATHS[name], OAUTH_ROOT_ALIASES[name]]) {
      routes.use(path, cors({ origin: '*', allowMethods: ['POST'] }));
    }
    routes.use(OAUTH_ROOT_ALIASES[name], limited);
  }

  const failed = (error: unknown, basic = false) => {
    if (error instanceof OAuthError) return oauthErrorResponse(error, basic);
    deps.logError(error);
    return oauthErrorResponse(new OAuthError('server_error', 'Internal error; it was logged.', 500));
  };

  routes.get(OAUTH_PATHS.protectedResource, (c) => {
    const base = baseUrlOf(deps.config, c.req.url);
    return c.json(protectedResourceMetadata(base, base));
  });
  // Each MCP path has its own document, naming it: clients check that it describes the URL they connect to.
  for (const path of MCP_PATHS) {
    routes.get(`${OAUTH_PATHS.protectedResource}${path}`, (c) => {
      const base = baseUrlOf(deps.config, c.req.url);
      return c.json(protectedResourceMetadata(base, `${base}${path}`));
    });
  }
  // The authorization server's metadata wherever clients look for it: RFC 8414 and OpenID discovery, at the root,
  // and path-suffixed or path-appended for clients that take the MCP URL for the issuer (they would otherwise fall
  // back to <issuer>/authorize).
  const serverMetadataPaths = [OAUTH_PATHS.authorizationServer, OAUTH_PATHS.openidConfiguration].flatMap(
    (document) => [document, ...MCP_PATHS.flatMap((path) => [`${document}${path}`, `${path}${document}`])],
  );
  for (const path of serverMetadataPaths) {
    routes.get(path, (c) => c.json(authorizationServerMetadata(baseUrlOf(deps.config, c.req.url))));
  }
  // GET /authorize: the consent page, for clients that ignore the metadata.
  routes.get(OAUTH_ROOT_ALIASES.authorize, (c) =>
    c.redirect(`${OAUTH_PATHS.authorize}${new URL(c.req.url).search}`, 302),
  );

  routes.on('POST', [OAUTH_PATHS.register, OAUTH_ROOT_ALIASES.register], async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return oauthErrorResponse(new OAuthError('invalid_client_metadata', 'The body must be a JSON object.'));
    }
    try {
      return noStoreJson(await clients.register(body, originOf(c.req.raw, c.env)), 201);
    } catch (error) {
      return failed(error);
    }
  });

  routes.on('POST', [OAUTH_PATHS.token, OAUTH_ROOT_ALIASES.token], async (c) => {
    const basic = /^basic /i.test(c.req.header('authorization') ?? '');
    try {
      const form = await readForm(c.req.raw);
      const client = await clients.authenticate(
        form,
        c.req.header('authorization'),
        originOf(c.req.raw, c.env),
      );
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

  routes.on('POST', [OAUTH_PATHS.revoke, OAUTH_ROOT_ALIASES.revoke], async (c) => {
    const basic = /^basic /i.test(c.req.header('authorization') ?? '');
    try {
      const form = await readForm(c.req.raw);
      const client = await clients.authenticate(
        form,
        c.req.header('authorization'),
        originOf(c.req.raw, c.env),
      );
      await grants.revokeToken(client, form.get('token') ?? '');
      return noStoreJson({});
    } catch (error) {
      return failed(error, basic);
    }
  });

  return routes;
}
