// createWebRoutes(deps): the server-rendered web interface (accounts, organizations, API tokens, registers).

import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError, retryAfterOf } from '../errors.ts';
import { uploadBodyLimit } from '../files/upload-limits.ts';
import { limitBody } from '../http/body-limit.ts';
import { unreadCount } from '../notify/inbox.ts';
import { accessReviewProgressOf, accessReviewRoutes } from './access-reviews/decide.tsx';
import { linkRoutes } from './account/links.tsx';
import { accountRoutes } from './account/routes.tsx';
import { ASSET_PATHS, FAVICON, SCRIPT, STYLESHEET } from './assets.ts';
import { auditChecklistOf } from './audits/checklist.tsx';
import { auditPageRoutes } from './audits/pages.tsx';
import type { WebDeps, WebEnv } from './context.ts';
import { CSRF_FIELD, crossSiteReason, csrfTokenMatches } from './csrf.ts';
import { evidenceRoutes } from './evidence.tsx';
import { fileKindExportRoutes } from './file-kind-exports.tsx';
import { takeFlash } from './flash.ts';
import { catalogRoutes } from './frameworks/catalogs-page.tsx';
import { frameworkDetailsOf } from './frameworks/details.tsx';
import { frameworkRoutes } from './frameworks/routes.tsx';
import { historyRoutes } from './history/routes.tsx';
import { myWorkRoutes } from './my-work.tsx';
import { notificationRoutes } from './notifications/routes.tsx';
import { consentRoutes, refuseUnusableAuthorizeRequest } from './oauth/consent.tsx';
import { invitationRoutes } from './organizations/invitations.tsx';
import { organizationRoutes } from './organizations/routes.tsx';
import { organizationSettingsRoutes } from './organizations/settings.tsx';
import { trustSettingsRoutes } from './organizations/trust.tsx';
import { proposalRoutes } from './proposals.tsx';
import { acknowledgementRoutes } from './public/acknowledgements.tsx';
import { questionnaireRoutes } from './public/questionnaires.tsx';
import { trustPageHosts, trustPageRoutes } from './public/trust.tsx';
import { loadMemberships } from './queries.ts';
import { recordFormRoutes } from './record-forms/routes.tsx';
import { documentRoutes } from './registers/document-details.tsx';
import { importRoutes } from './registers/import-page.tsx';
import { registerPageRoutes } from './registers/routes.tsx';
import { errorPage } from './render.tsx';
import { clearSessionCookie, loadSession } from './sessions.ts';
import { connectedClientRoutes } from './tokens/connected-clients.tsx';
import { tokenRoutes } from './tokens/routes.tsx';
import { deferCsrfCheck, defersCsrfCheck, formExpiredPage, isWebFileUpload } from './uploads.ts';
import { questionnairePageRoutes } from './vendors/questionnaire-pages.tsx';
import { vendorQuestionnairesOf } from './vendors/questionnaires.tsx';
import { webhookRoutes } from './webhooks/routes.tsx';

export type { WebDeps } from './context.ts';

/** Web forms are small; anything bigger is refused before it is read. */
const MAX_FORM_BYTES = 64 * 1024;

/**
 * Paths that need a signed-in user (`/orgs/*` also matches `/orgs`). The sub-app is mounted at `/`, so its
 * middleware is never registered on `*`, which would run for the API routes too.
 */
const OAUTH_AUTHORIZE_PATH = '/oauth/authorize';
const SIGNED_IN_PATHS = [
  '/orgs/*',
  '/settings/*',
  '/notifications',
  '/notifications/*',
  '/my-work',
  '/logout',
  '/invitations',
  '/invitations/*',
  // An invitation's link: a visitor without a session signs in (or up) first and comes back (next=).
  '/invite/*',
  OAUTH_AUTHORIZE_PATH,
];
const FORM_PATHS = ['/signup', '/login', '/verify/*', '/reset', '/reset/*', ...SIGNED_IN_PATHS];

export function createWebRoutes(deps: WebDeps) {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  // A hostname of a trust page (TRUST_PAGE_HOSTS) serves that page only: decided before any other route.
  if (deps.config.trustPageHosts.size > 0) web.use('*', trustPageHosts(deps));

  web.onError((error, c) => {
    if (error instanceof AppError && error.status < 500) {
      // An upload over its token's rate (src/files/upload-limits.ts) says when to retry, as the API does.
      const retryAfter = retryAfterOf(error);
      if (retryAfter) c.header('retry-after', retryAfter);
      return errorPage(c, error.status as 400, 'Request refused', error.message);
    }
    deps.invoke.logError(c.get('requestId') ?? '-', error);
    return errorPage(
      c,
      500,
      'Something went wrong',
      `The error was logged (request ${c.get('requestId') ?? '-'}). Try again in a moment.`,
    );
  });

  const assetHeaders = {
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
  };
  web.get(ASSET_PATHS.css, (c) =>
    c.body(STYLESHEET, 200, { ...assetHeaders, 'content-type': 'text/css; charset=utf-8' }),
  );
  web.get(ASSET_PATHS.js, (c) =>
    c.body(SCRIPT, 200, { ...assetHeaders, 'content-type': 'text/javascript; charset=utf-8' }),
  );
  web.get(ASSET_PATHS.icon, (c) =>
    c.body(FAVICON, 200, { ...assetHeaders, 'content-type': 'image/svg+xml' }),
  );
  // Browsers ask for /favicon.ico on their own; the same icon answers it.
  web.get('/favicon.ico', (c) =>
    c.body(FAVICON, 200, { 'cache-control': 'public, max-age=86400', 'content-type': 'image/svg+xml' }),
  );

  const limitForm = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: (c) =>
      errorPage(c, 413, 'Form too large', `A form may carry at most ${MAX_FORM_BYTES / 1024} KB.`),
  });
  // A multipart form carrying a file (src/web/uploads.ts): a file for the blob store may be as large as
  // FILE_MAX_BYTES, one uploaded to a register's import page as any request (MAX_BODY_BYTES).
  const fileLimit = uploadBodyLimit(deps.invoke.files.maxBytes);
  // Decided on the announced length without touching the body, which the route streams (src/http/request-body.ts).
  const limitFile = limitBody<WebEnv>(fileLimit, (c) =>
    errorPage(
      c,
      413,
      'File too large',
      `A file may be at most ${Math.floor(deps.invoke.files.maxBytes / 1024)} KB.`,
    ),
  );
  const limitUpload = limitBody<WebEnv>(deps.config.maxBodyBytes, (c) =>
    errorPage(
      c,
      413,
      'File too large',
      `An upload may carry at most ${Math.floor(deps.config.maxBodyBytes / 1024)} KB; import a larger file with compliance-mcp import.`,
    ),
  );
  web.on('POST', FORM_PATHS, (c, next) => {
    if (!defersCsrfCheck(c)) return limitForm(c, next);
    return isWebFileUpload(c.req.path) ? limitFile(c, next) : limitUpload(c, next);
  });

  const requireUser: MiddlewareHandler<WebEnv> = async (c, next) => {
    const loaded = await loadSession(c, db, deps.now());
    if (!loaded) {
      clearSessionCookie(c);
      const url = new URL(c.req.url);
      const back = c.req.method === 'GET' ? `?next=${encodeURIComponent(url.pathname + url.search)}` : '';
      return c.redirect(`/login${back}`, 303);
    }
    c.set('user', loaded.user);
    c.set('session', loaded.session);
    c.set('memberships', await loadMemberships(db, loaded.user.id));
    c.set('unread', await unreadCount(db, loaded.user.id));
    if (c.req.method === 'POST') {
      const refused = await refusedPost(c, loaded.session.csrfToken);
      if (refused) return refused;
    }
    await next();
    flushAfterResponse(c, deps);
  };
  web.use(OAUTH_AUTHORIZE_PATH, refuseUnusableAuthorizeRequest(deps));
  for (const path of SIGNED_IN_PATHS) web.use(path, requireUser);
  for (const path of ['/orgs/*', '/notifications', '/settings/notifications']) web.use(path, takeFlash);

  async function refusedPost(c: Context<WebEnv>, csrfToken: string): Promise<Response | null> {
    const reason = crossSiteReason(c, deps.config);
    if (reason) return errorPage(c, 403, 'Request refused', reason);
    // An upload is not read here: the route reads its token first, then streams the file (src/web/uploads.ts).
    if (defersCsrfCheck(c)) {
      deferCsrfCheck(c);
      return null;
    }
    const body = await c.req.parseBody({ all: true });
    if (!csrfTokenMatches(body[CSRF_FIELD], csrfToken)) return formExpiredPage(c);
    return null;
  }

  // Each group of pages is its own app; register routes match only register slugs, so the order is free.
  for (const pages of [
    accountRoutes(deps),
    linkRoutes(deps),
    acknowledgementRoutes(deps),
    questionnaireRoutes(deps),
    trustPageRoutes(deps),
    trustSettingsRoutes(deps),
    invitationRoutes(deps),
    tokenRoutes(deps),
    notificationRoutes(deps),
    consentRoutes(deps),
    connectedClientRoutes(deps),
    organizationRoutes(deps),
    organizationSettingsRoutes(deps),
    webhookRoutes(deps),
    historyRoutes(deps),
    proposalRoutes(deps),
    frameworkRoutes(deps),
    catalogRoutes(deps),
    recordFormRoutes(deps),
    documentRoutes(deps),
    accessReviewRoutes(deps),
    questionnairePageRoutes(deps),
    auditPageRoutes(deps),
    fileKindExportRoutes(deps),
    evidenceRoutes(deps),
    importRoutes(deps),
    registerPageRoutes(deps, {
      framework: frameworkDetailsOf,
      audit: auditChecklistOf,
      vendor: vendorQuestionnairesOf,
      access_review: accessReviewProgressOf,
    }),
    myWorkRoutes(deps),
  ])
    web.route('/', pages);
  return web;
}

/** Workers write the call log after the response (waitUntil); the Node host flushes on its own interval. */
function flushAfterResponse(c: Context, deps: WebDeps): void {
  if (deps.usageFlush !== 'after-response' || deps.usage.pending() === 0) return;
  const flushing = deps.usage.flush();
  try {
    c.executionCtx.waitUntil(flushing);
  } catch {
    void flushing;
  }
}
