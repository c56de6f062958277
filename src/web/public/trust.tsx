// An organization's public trust page, for visitors without an account: at /trust/<slug>, and at the root of a
// hostname TRUST_PAGE_HOSTS maps to the slug. It shows only what the organization chose (src/tools/trust-page/site.ts);
// documents offered on request are asked for with a form (same origin, double-submit token, rate limited as the
// other public forms) and read through the expiring link an owner's approval issues.
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { limitBody } from '../../http/body-limit.ts';
import { newId } from '../../ids.ts';
import { attachmentDisposition } from '../../routes/files.ts';
import { emailAddress, shortText } from '../../tools/fields.ts';
import {
  chosenDocumentText,
  findTrustDownload,
  findTrustSite,
  recordAccessRequest,
  type TrustContent,
  type TrustSite,
  trustContentOf,
  trustDocumentFile,
  trustPagePath,
} from '../../tools/trust-page/site.ts';
import { ASSET_PATHS } from '../assets.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { type FormBody, Input, text } from '../forms.tsx';
import { Badge, CardPage, CsrfField, Layout } from '../layout.tsx';
import { refusePublicPost } from '../public-posts.ts';
import { errorPage } from '../render.tsx';
import { formToken } from '../sessions.ts';
import { refusedLinkPage, sendPublicPage } from './layout.tsx';
import { limitPublicLink } from './limits.tsx';

const TRUST_LIMIT_KEY = 'public:trust';
/** A request form is four short fields; anything much bigger is refused before it is read. */
const MAX_REQUEST_BYTES = 16 * 1024;
/** A document id's shape: anything else is not found without a database read. */
const DOCUMENT_ID_PATTERN = /^doc_[0-9a-z]{24}$/;

/** Where the page is served: its slug, and the path its links start with ('' on its own hostname). */
interface Place {
  slug: string;
  base: string;
}

const requestFields = z.object({
  name: shortText().describe('Your name'),
  email: emailAddress,
  company: shortText().describe('Your company'),
});

/** The same answer for an unknown slug, a page that is off, and a record that was not chosen: nothing leaks. */
function trustNotFound(c: Context): Response | Promise<Response> {
  return sendPublicPage(
    c,
    <CardPage title="Not found">
      <p>There is no public page here.</p>
    </CardPage>,
    404,
  );
}

/** An audit's validity as a visitor reads it: valid now, expired, or its state. */
function validityOf(
  audit: TrustContent['audits'][number],
  today: string,
): { label: string; tone: 'ok' | 'warn' | 'bad' } {
  if (audit.state === 'COMPLETED' && audit.validUntil && audit.validUntil < today)
    return { label: 'Expired', tone: 'bad' };
  if (audit.state === 'COMPLETED') return { label: 'Valid', tone: 'ok' };
  if (audit.state === 'IN_PROGRESS' || audit.state === 'NOT_STARTED')
    return { label: 'In progress', tone: 'warn' };
  return { label: audit.state === 'REJECTED' ? 'Not passed' : 'Outdated', tone: 'bad' };
}

function TrustPageView(props: { site: TrustSite; content: TrustContent; place: Place; today: string }) {
  const { site, content, place, today } = props;
  const hasCertifications = content.audits.length > 0 || content.frameworks.length > 0;
  return (
    <Layout title={site.title}>
      <div class="narrow trust-page">
        <h1 dir="auto">{site.title}</h1>
        {site.introduction && (
          <p class="lead" dir="auto">
            {site.introduction}
          </p>
        )}
        {hasCertifications && (
          <section class="card" aria-labelledby="trust-certifications">
            <h2 id="trust-certifications">Certifications and audits</h2>
            <ul>
              {content.audits.map((audit) => {
                const validity = validityOf(audit, today);
                return (
                  <li>
                    <strong dir="auto">{audit.framework}</strong> · <span dir="auto">{audit.name}</span>{' '}
                    <Badge tone={validity.tone}>{validity.label}</Badge>
                    <br />
                    <span class="small muted">
                      {audit.validFrom || audit.validUntil
                        ? `Valid ${audit.validFrom ?? '…'} to ${audit.validUntil ?? '…'}`
                        : 'No validity dates'}
                      {audit.auditor ? ` · Auditor: ${audit.auditor}` : ''}
                    </span>
                  </li>
                );
              })}
              {content.frameworks.map((framework) => (
                <li>
                  <strong dir="auto">{framework.name}</strong>
                  {framework.version ? ` (${framework.version})` : ''}{' '}
                  <span class="small muted">framework we follow</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {content.documents.length > 0 && (
          <section class="card" aria-labelledby="trust-documents">
            <h2 id="trust-documents">Policies and documents</h2>
            <ul>
              {content.documents.map((document) => (
                <li>
                  <span dir="auto">{document.title}</span>{' '}
                  <span class="small muted">version {document.version}</span>{' '}
                  {document.access === 'PUBLIC' ? (
                    <a href={`${place.base}/documents/${document.id}`}>Read</a>
                  ) : (
                    <a href={`${place.base}/request/${document.id}`}>Request access</a>
                  )}
                </li>
              ))}
            </ul>
          </section>
        )}
        {site.showSubProcessors && (
          <section class="card" aria-labelledby="trust-subprocessors">
            <h2 id="trust-subprocessors">Sub-processors</h2>
            {content.subProcessors.length === 0 ? (
              <p>We use no sub-processors.</p>
            ) : (
              <ul>
                {content.subProcessors.map((vendor) => (
                  <li>
                    <strong dir="auto">{vendor.name}</strong>{' '}
                    <span class="small muted">
                      {vendor.category.toLowerCase().replaceAll('_', ' ')}
                      {vendor.countries.length > 0 ? ` · ${vendor.countries.join(', ')}` : ''}
                    </span>
                    {/^https?:\/\//i.test(vendor.websiteUrl ?? '') && (
                      <>
                        {' '}
                        <a href={vendor.websiteUrl ?? ''} rel="noopener noreferrer nofollow">
                          website
                        </a>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
        {site.contactEmail && (
          <section class="card" aria-labelledby="trust-contact">
            <h2 id="trust-contact">Contact</h2>
            <p>
              Security questions: <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>
            </p>
          </section>
        )}
      </div>
    </Layout>
  );
}

function RequestForm(props: {
  c: Context;
  site: TrustSite;
  place: Place;
  documentId: string;
  title: string;
  values: Record<string, string>;
  problems: Record<string, string>;
}) {
  const { values, problems } = props;
  return (
    <form method="post" action={`${props.place.base}/request/${props.documentId}`}>
      <CsrfField token={formToken(props.c)} />
      <Input id="name" label="Your name" value={values.name ?? ''} error={problems.name} required />
      <Input
        id="email"
        label="Work email"
        type="email"
        value={values.email ?? ''}
        error={problems.email}
        required
      />
      <Input id="company" label="Company" value={values.company ?? ''} error={problems.company} required />
      <fieldset aria-invalid={problems.accept_terms ? 'true' : undefined}>
        <legend>Terms</legend>
        <p dir="auto">{props.site.requestTerms}</p>
        <label class="choice" for="accept_terms">
          <input type="checkbox" id="accept_terms" name="accept_terms" value="yes" required />
          <span>I accept these terms</span>
        </label>
        {problems.accept_terms && <span class="hint error-text">{problems.accept_terms}</span>}
      </fieldset>
      <div class="actions">
        <button type="submit">Request access</button>
      </div>
      <p>
        <a href={props.place.base || '/'}>Back to {props.site.title}</a>
      </p>
    </form>
  );
}

/** The trust page's handlers, for a page found by its slug and served under `place`. */
function trustHandlers(deps: WebDeps) {
  const { db } = deps.database;

  async function page(c: Context, place: Place) {
    const site = await findTrustSite(db, place.slug);
    if (!site) return trustNotFound(c);
    const content = await trustContentOf(db, site);
    const today = deps.now().toISOString().slice(0, 10);
    return sendPublicPage(c, <TrustPageView site={site} content={content} place={place} today={today} />);
  }

  async function publicDocument(c: Context, place: Place, documentId: string) {
    const site = await findTrustSite(db, place.slug);
    if (!site || !DOCUMENT_ID_PATTERN.test(documentId)) return trustNotFound(c);
    const document = await chosenDocumentText(db, site, documentId, 'PUBLIC');
    if (!document) return trustNotFound(c);
    return sendPublicPage(
      c,
      <CardPage title={`${document.title}, version ${document.version}`}>
        <pre class="document-content" dir="auto" tabindex={0}>
          {document.content}
        </pre>
        <p>
          <a href={place.base || '/'}>Back to {site.title}</a>
        </p>
      </CardPage>,
    );
  }

  /** The site and the document's title when the page offers it on request; else null. */
  async function requestable(place: Place, documentId: string) {
    const site = await findTrustSite(db, place.slug);
    if (!site || !DOCUMENT_ID_PATTERN.test(documentId)) return null;
    const document = await chosenDocumentText(db, site, documentId, 'ON_REQUEST');
    return document ? { site, title: document.title } : null;
  }

  async function requestForm(c: Context, place: Place, documentId: string) {
    const found = await requestable(place, documentId);
    if (!found) return trustNotFound(c);
    return sendPublicPage(
      c,
      <CardPage title={`Request ${found.title}`}>
        <p>
          {found.site.title} shares this document on request. Someone there reads your request and, if they
          approve it, sends you a link to download it.
        </p>
        <RequestForm
          c={c}
          site={found.site}
          place={place}
          documentId={documentId}
          title={found.title}
          values={{}}
          problems={{}}
        />
      </CardPage>,
    );
  }

  async function submitRequest(c: Context<WebEnv>, place: Place, documentId: string) {
    const body: FormBody = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const limited = await limitPublicLink(c, deps, TRUST_LIMIT_KEY);
    if (limited) return limited;
    const found = await requestable(place, documentId);
    if (!found) return trustNotFound(c);
    const values = { name: text(body, 'name'), email: text(body, 'email'), company: text(body, 'company') };
    const parsed = requestFields.safeParse(values);
    const problems: Record<string, string> = {};
    if (!parsed.success)
      for (const issue of parsed.error.issues) problems[String(issue.path[0])] ??= issue.message;
    if (text(body, 'accept_terms') !== 'yes')
      problems.accept_terms = 'Accept the terms to ask for the document.';
    if (!parsed.success || problems.accept_terms)
      return sendPublicPage(
        c,
        <CardPage
          title={`Request ${found.title}`}
          notice={{ kind: 'error', text: 'Some fields need a correction; nothing was sent yet.' }}
        >
          <RequestForm
            c={c}
            site={found.site}
            place={place}
            documentId={documentId}
            title={found.title}
            values={values}
            problems={problems}
          />
        </CardPage>,
        400,
      );
    await recordAccessRequest(
      db,
      found.site,
      { id: newId('tar'), documentId, documentTitle: found.title, ...parsed.data },
      deps.now(),
      { mail: Boolean(deps.config.mail) },
    );
    // Webhook deliveries start as after any write.
    deps.invoke.afterWrite?.();
    return sendPublicPage(
      c,
      <CardPage
        title="Request sent"
        notice={{ kind: 'ok', text: `Your request for ${found.title} was sent to ${found.site.title}.` }}
      >
        <p>If it is approved, you receive a link to download the document at {parsed.data.email}.</p>
        <p>
          <a href={place.base || '/'}>Back to {found.site.title}</a>
        </p>
      </CardPage>,
    );
  }

  async function download(c: Context, place: Place, secret: string) {
    const limited = await limitPublicLink(c, deps, TRUST_LIMIT_KEY);
    if (limited) return limited;
    const site = await findTrustSite(db, place.slug);
    if (!site) return refusedLinkPage(c, 'unknown');
    const found = await findTrustDownload(db, site, secret, deps.now());
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    const { document } = found;
    const headers = {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'x-robots-tag': 'noindex, nofollow',
    };
    // The version's attached file when it has one (the PDF a report is), else its text as Markdown.
    if (document.fileId) {
      const file = await trustDocumentFile(db, site, document.fileId);
      const blob = file && (await deps.invoke.files.store.get(file.storageKey));
      if (!file || !blob) return refusedLinkPage(c, 'unknown');
      return new Response(blob.body, {
        status: 200,
        headers: {
          ...headers,
          'content-type': file.contentType,
          'content-disposition': attachmentDisposition(file.name),
          'content-length': String(file.size),
          'content-security-policy': "default-src 'none'; sandbox",
        },
      });
    }
    const fileName = `${document.title.replace(/[^A-Za-z0-9 _.-]/g, '').trim() || 'document'} v${document.version}.md`;
    return new Response(document.content, {
      status: 200,
      headers: {
        ...headers,
        'content-type': 'text/markdown; charset=utf-8',
        'content-disposition': `attachment; filename="${fileName}"`,
      },
    });
  }

  return { page, publicDocument, requestForm, submitRequest, download };
}

function requestBodyLimit(): MiddlewareHandler<WebEnv> {
  return limitBody<WebEnv>(MAX_REQUEST_BYTES, (c) =>
    errorPage(c, 413, 'Request too long', 'Shorten your name, email or company and send again.'),
  );
}

/** The page at /trust/<slug> on the service's own host. */
export function trustPageRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const handlers = trustHandlers(deps);
  const place = (c: Context) => {
    const slug = c.req.param('slug') ?? '';
    return { slug, base: trustPagePath(slug) };
  };
  web.get('/trust/:slug', (c) => handlers.page(c, place(c)));
  web.get('/trust/:slug/documents/:id', (c) => handlers.publicDocument(c, place(c), c.req.param('id')));
  web.get('/trust/:slug/request/:id', (c) => handlers.requestForm(c, place(c), c.req.param('id')));
  web.post('/trust/:slug/request/:id', requestBodyLimit(), (c) =>
    handlers.submitRequest(c, place(c), c.req.param('id')),
  );
  web.get('/trust/:slug/download/:secret', (c) => handlers.download(c, place(c), c.req.param('secret')));
  return web;
}

/**
 * On a hostname TRUST_PAGE_HOSTS maps to a slug, the page and its links at the root, the web assets, and nothing
 * else (no sign-in, no API): every other path is not found. Other hosts pass on.
 */
export function trustPageHosts(deps: WebDeps): MiddlewareHandler<WebEnv> {
  const hosts = deps.config.trustPageHosts;
  const handlers = trustHandlers(deps);
  const assets = new Set<string>([...Object.values(ASSET_PATHS), '/favicon.ico']);
  const limitRequest = requestBodyLimit();
  return async (c, next) => {
    const slug = hosts.get(new URL(c.req.url).host.toLowerCase());
    if (slug === undefined) return next();
    const path = c.req.path;
    if (c.req.method === 'GET' && assets.has(path)) return next();
    const place: Place = { slug, base: '' };
    const parts = path.split('/');
    const [empty, section, value, rest] = parts;
    const get = c.req.method === 'GET' || c.req.method === 'HEAD';
    if (get && path === '/') return handlers.page(c, place);
    if (empty !== '' || value === undefined || value === '' || rest !== undefined) return trustNotFound(c);
    if (get && section === 'documents') return handlers.publicDocument(c, place, value);
    if (get && section === 'request') return handlers.requestForm(c, place, value);
    if (get && section === 'download') return handlers.download(c, place, value);
    if (c.req.method === 'POST' && section === 'request') {
      let answer: Response | undefined;
      const limited = await limitRequest(c, async () => {
        answer = await handlers.submitRequest(c, place, value);
      });
      return limited ?? answer ?? trustNotFound(c);
    }
    return trustNotFound(c);
  };
}
