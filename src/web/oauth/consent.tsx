// The OAuth consent page (GET/POST /oauth/authorize): who asks, what they may do, where, for how long; Allow or Deny.
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { type TokenScope, tokenScopeOf } from '../../auth/principal.ts';
import type { OAuthClient } from '../../oauth/clients.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { PKCE_VALUE } from '../../oauth/grants.ts';
import { formActionSourceOf, redirectHostOf } from '../../oauth/redirect-uris.ts';
import {
  baseUrlOf,
  canonicalResource,
  mcpResourceOf,
  OAUTH_PATHS,
  requestedScope,
} from '../../oauth/resource.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { text, texts } from '../forms.tsx';
import { OrganizationsFieldset, ScopeFieldset } from '../grant-fields.tsx';
import { CsrfField, Layout, Notice, type Viewer } from '../layout.tsx';
import { errorPage, securityHeaders, sendPage } from '../render.tsx';
import { viewerOf } from '../viewer.ts';

/** How long a connected client keeps access (its refresh token) unless revoked in Settings > API Tokens. */
export const GRANT_EXPIRY_CHOICES = [1, 7, 30, 90] as const;
export const DEFAULT_GRANT_EXPIRY_DAYS = 30;
const DAY_MS = 86_400_000;

interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scope: TokenScope;
  resource: string;
}

type Parsed =
  | { kind: 'ok'; request: AuthorizeRequest }
  /** Shown here: the client or redirect URI cannot be trusted, so nothing is sent back to it (429: too many). */
  | { kind: 'page'; message: string; retryAfterSeconds?: number }
  /** Sent back to the client's registered redirect URI (RFC 6749 §4.1.2.1). */
  | { kind: 'redirect'; location: string };

/** The redirect URI with the response parameters (and `iss`, RFC 9207) added to its query. */
function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

async function parseAuthorizeRequest(
  read: (name: string) => string | undefined,
  deps: WebDeps,
  c: Context<WebEnv>,
): Promise<Parsed> {
  const base = baseUrlOf(deps.config, c.req.url);
  const clientId = read('client_id') ?? '';
  if (!clientId) return { kind: 'page', message: 'The request names no client (client_id is missing).' };
  let client: OAuthClient | null;
  try {
    client = await deps.oauth.clients.resolve(clientId, deps.oauth.originOf(c.req.raw, c.env));
  } catch (error) {
    if (error instanceof OAuthError)
      return {
        kind: 'page',
        message: error.description,
        ...(error.status === 429 ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      };
    throw error;
  }
  if (!client)
    return { kind: 'page', message: 'This client is not registered here. Connect it again from the app.' };
  const asked = read('redirect_uri');
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  // Exact string match against a registered URI: anything else would be an open redirect.
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return {
      kind: 'page',
      message: 'The redirect_uri is not one this client registered, so the request was stopped.',
    };
  const state = read('state');
  const back = (error: string, description: string): Parsed => ({
    kind: 'redirect',
    location: redirectTo(redirectUri, { error, error_description: description, state, iss: base }),
  });
  if (read('response_type') !== 'code')
    return back('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = read('code_challenge') ?? '';
  if (!PKCE_VALUE.test(challenge)) return back('invalid_request', 'A PKCE code_challenge is required.');
  if (read('code_challenge_method') !== 'S256')
    return back('invalid_request', 'Only code_challenge_method=S256 is supported.');
  const resourceParam = read('resource');
  const resource = resourceParam === undefined ? mcpResourceOf(base) : canonicalResource(base, resourceParam);
  if (!resource) return back('invalid_target', `This server issues tokens only for ${mcpResourceOf(base)}.`);
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      state,
      codeChallenge: challenge,
      scope: requestedScope(read('scope')),
      resource,
    },
  };
}

function ConsentPage({
  viewer,
  request,
  error,
}: {
  viewer: Viewer;
  request: AuthorizeRequest;
  error?: string;
}) {
  const { client } = request;
  const name = client.name ?? redirectHostOf(request.redirectUri);
  const byUrl = client.kind === 'metadata_document';
  return (
    <Layout title={`Connect ${name}`} viewer={viewer}>
      <h1>Connect {name}?</h1>
      <div class="card">
        {error && <Notice kind="error">{error}</Notice>}
        <p>
          <strong>{name}</strong> asks to use the compliance registers on your behalf ({viewer.user.email}),
          with your role in each organization.
        </p>
        <dl class="details">
          <dt>Returns to</dt>
          <dd>
            <code>{redirectHostOf(request.redirectUri)}</code>
          </dd>
          <dt>Client</dt>
          <dd>
            {byUrl ? (
              <>
                published at <code>{new URL(client.clientId).host}</code>
              </>
            ) : (
              <span>registered by the app itself: its name is not verified</span>
            )}
          </dd>
        </dl>
        <form method="post" action={OAUTH_PATHS.authorize}>
          <CsrfField token={viewer.csrfToken} />
          <input type="hidden" name="client_id" value={client.clientId} />
          <input type="hidden" name="redirect_uri" value={request.redirectUri} />
          <input type="hidden" name="response_type" value="code" />
          <input type="hidden" name="code_challenge" value={request.codeChallenge} />
          <input type="hidden" name="code_challenge_method" value="S256" />
          <input type="hidden" name="resource" value={request.resource} />
          <input type="hidden" name="scope" value={request.scope} />
          {request.state !== undefined && <input type="hidden" name="state" value={request.state} />}
          <ScopeFieldset idPrefix="grant" name="granted_scope" legend="It may" value={request.scope} />
          <OrganizationsFieldset
            idPrefix="grant-org"
            legend="In"
            memberships={viewer.memberships}
            mode="all"
            selected={new Set()}
          />
          <div class="field">
            <label for="grant-expiry">Access ends after</label>
            <select id="grant-expiry" name="expires_in_days" aria-describedby="grant-expiry-hint">
              {GRANT_EXPIRY_CHOICES.map((days) => (
                <option value={String(days)} selected={days === DEFAULT_GRANT_EXPIRY_DAYS}>
                  {days === 1 ? '1 day' : `${days} days`}
                </option>
              ))}
            </select>
            <span class="hint" id="grant-expiry-hint">
              The app gets one-hour access tokens and renews them until then. Revoke it any time in Settings
              &gt; API Tokens.
            </span>
          </div>
          <div class="actions">
            <button type="submit" name="decision" value="allow">
              Allow
            </button>
            <button type="submit" name="decision" value="deny" class="quiet">
              Deny
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}

/** The page's policy, with the client's redirect target allowed as a form destination (the POST ends there). */
async function sendConsentPage(c: Context<WebEnv>, request: AuthorizeRequest, error?: string) {
  const response = await sendPage(
    c,
    <ConsentPage viewer={viewerOf(c)} request={request} error={error} />,
    error ? 422 : 200,
  );
  const csp = securityHeaders()['content-security-policy'] ?? '';
  response.headers.set(
    'content-security-policy',
    csp.replace("form-action 'self'", `form-action 'self' ${formActionSourceOf(request.redirectUri)}`),
  );
  return response;
}

/**
 * GET /oauth/authorize, before sign-in: a request that cannot work (an unusable client_id, such as a loopback
 * metadata URL outside development, or a redirect_uri it does not register) is refused, or sent back to the
 * client, before the person is asked to sign in for nothing.
 */
export function refuseUnusableAuthorizeRequest(deps: WebDeps): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (c.req.method !== 'GET') return next();
    const parsed = await parseAuthorizeRequest((name) => c.req.query(name), deps, c);
    // No session is loaded yet: the page is shown as to a signed-out visitor.
    if (parsed.kind === 'page') return refusedPage(c, parsed);
    if (parsed.kind === 'redirect') return c.redirect(parsed.location, 303);
    return next();
  };
}

/** The page of a request that cannot be used: 400, or 429 with Retry-After past a limit. */
async function refusedPage(
  c: Context<WebEnv>,
  parsed: Extract<Parsed, { kind: 'page' }>,
  viewer?: Viewer,
): Promise<Response> {
  const limited = parsed.retryAfterSeconds !== undefined;
  const response = await errorPage(
    c,
    limited ? 429 : 400,
    limited ? 'Too many connection requests' : 'This connection request cannot be used',
    parsed.message,
    viewer,
  );
  if (limited) response.headers.set('retry-after', String(parsed.retryAfterSeconds));
  return response;
}

export function consentRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const refused = (c: Context<WebEnv>, parsed: Extract<Parsed, { kind: 'page' }>) =>
    refusedPage(c, parsed, viewerOf(c));

  web.get(OAUTH_PATHS.authorize, async (c) => {
    const parsed = await parseAuthorizeRequest((name) => c.req.query(name), deps, c);
    if (parsed.kind === 'page') return refused(c, parsed);
    if (parsed.kind === 'redirect') return c.redirect(parsed.location, 303);
    return sendConsentPage(c, parsed.request);
  });

  web.post(OAUTH_PATHS.authorize, async (c) => {
    const base = baseUrlOf(deps.config, c.req.url);
    const body = await c.req.parseBody({ all: true });
    const parsed = await parseAuthorizeRequest(
      (name) => (typeof body[name] === 'string' ? (body[name] as string) : undefined),
      deps,
      c,
    );
    if (parsed.kind === 'page') return refused(c, parsed);
    if (parsed.kind === 'redirect') return c.redirect(parsed.location, 303);
    const { request } = parsed;
    const back = (params: Record<string, string>) =>
      c.redirect(redirectTo(request.redirectUri, { ...params, state: request.state, iss: base }), 303);
    if (text(body, 'decision') !== 'allow')
      return back({ error: 'access_denied', error_description: 'The person denied the request.' });
    const scope: TokenScope = tokenScopeOf(text(body, 'granted_scope')) ?? 'read';
    const some = text(body, 'organization_mode') === 'some';
    const organizationIds = some ? texts(body, 'organizations') : null;
    if (some && organizationIds?.length === 0)
      return sendConsentPage(c, request, 'Choose at least one organization, or allow all of them.');
    const days = Number(text(body, 'expires_in_days'));
    const expiresInDays = (GRANT_EXPIRY_CHOICES as readonly number[]).includes(days)
      ? days
      : DEFAULT_GRANT_EXPIRY_DAYS;
    let code: string;
    try {
      // A client known by its metadata document is stored from now on: a person consented to it.
      await deps.oauth.clients.remember(request.client);
      code = await deps.oauth.grants.createCode({
        userId: c.get('user').id,
        client: request.client,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope,
        organizationIds,
        resource: request.resource,
        expiresAt: new Date(deps.now().getTime() + expiresInDays * DAY_MS).toISOString(),
      });
    } catch (error) {
      if (error instanceof OAuthError) return sendConsentPage(c, request, error.description);
      throw error;
    }
    return back({ code });
  });
  return web;
}
