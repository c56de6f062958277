// Evidence on record pages: the record's evidence items, a file upload (file input, which also takes a dropped
// file) or a link, optionally replacing an older item. Uploads are stored for the organization of the signed-in
// session, never one a form names; nothing uploaded is shown inline: an evidence page links to a signed download.
// The form is read with readUploadForm (src/web/uploads.ts): token first, the file last, streamed to the store.
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { StoredFile } from '../files/receive.ts';
import { EVIDENCE_TARGETS } from '../tools/evidence.ts';
import { REGISTERS } from '../tools/index.ts';
import { kindOfId } from '../tools/registers/spec.ts';
import { mayWrite, membershipOf } from './access.ts';
import type { Membership, WebDeps, WebEnv } from './context.ts';
import { setFlash } from './flash.ts';
import { CsrfField, type Viewer } from './layout.tsx';
import { registerPageByKind } from './register-pages.ts';
import { errorPage, notFoundPage } from './render.tsx';
import { type WebCalls, webCalls } from './tool-calls.ts';
import { readUploadForm, type UploadForm } from './uploads.ts';
import { viewerOf } from './viewer.ts';

type Row = Record<string, unknown>;

/** The evidence items of a record, newest first (at most one page), for its record page. */
export async function evidenceOfRecord(calls: WebCalls, organizationId: string, recordId: string) {
  const result = await calls.run(REGISTERS.evidence.list, {
    organization_id: organizationId,
    filter: { record_id: recordId },
    size: 50,
  });
  return (result.evidence as Row[] | undefined) ?? [];
}

export function EvidenceSection(props: {
  viewer: Viewer;
  membership: Membership;
  recordId: string;
  items: Row[];
}) {
  const { membership, items } = props;
  const base = `/orgs/${membership.organizationId}/evidence`;
  return (
    <section aria-labelledby="evidence">
      <h2 id="evidence">Evidence</h2>
      {items.length === 0 ? (
        <p class="empty">No evidence yet.</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li>
              <a href={`${base}/${String(item.id)}`} dir="auto">
                {String(item.title)}
              </a>{' '}
              <span class="muted small">
                {item.kind === 'FILE' ? `file ${String(item.file_name)}` : 'link'}
                {item.valid_until ? `, valid until ${String(item.valid_until)}` : ''}
                {item.expired ? ' (expired)' : ''}
                {item.superseded_by ? ' (superseded)' : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {mayWrite(membership) && (
        <details class="card">
          <summary>Add evidence</summary>
          <form method="post" action={`${base}/attach`} enctype="multipart/form-data">
            {/* The token first and the file last: the route streams the file (readUploadForm). */}
            <CsrfField token={props.viewer.csrfToken} />
            <input type="hidden" name="record_id" value={props.recordId} />
            <p>
              <label for="evidence-title">Title (default: the file name)</label>
              <input id="evidence-title" type="text" name="title" maxlength={200} />
            </p>
            <p>
              <label for="evidence-valid">Valid until (optional)</label>
              <input id="evidence-valid" type="date" name="valid_until" />
            </p>
            {items.length > 0 && (
              <p>
                <label for="evidence-supersedes">Replaces (optional)</label>
                <select id="evidence-supersedes" name="supersedes_id">
                  <option value="">Nothing</option>
                  {items
                    .filter((item) => !item.superseded_by)
                    .map((item) => (
                      <option value={String(item.id)}>{String(item.title)}</option>
                    ))}
                </select>
              </p>
            )}
            <p>
              <label for="evidence-url">A link (http or https)</label>
              <input id="evidence-url" type="url" name="url" placeholder="https://" />
            </p>
            <p>
              <label for="evidence-file">Or a file (choose one or drop it here)</label>
              <input id="evidence-file" type="file" name="file" />
            </p>
            <button type="submit">Add evidence</button>
          </form>
        </details>
      )}
    </section>
  );
}

/** An evidence item's page: a signed download link for a file (never the file inline), the link for a link. */
export function EvidenceDownload({ result }: { result: Row }) {
  const url = typeof result.download_url === 'string' ? result.download_url : null;
  if (!url) return null;
  return (
    <p class="card">
      <a href={url} rel="noopener" download>
        Download the file
      </a>{' '}
      <span class="muted small">(a link valid for a few minutes)</span>
    </p>
  );
}

/**
 * A file an upload form posted (readUploadForm: streamed, behind the form's CSRF check), stored for the organization
 * of the session's membership (never one a form names), through the seam as every upload is.
 */
export async function storeFormFile(
  c: Context<WebEnv>,
  deps: WebDeps,
  organizationId: string,
  file: NonNullable<UploadForm['file']>,
): Promise<StoredFile> {
  const outcome = await webCalls(c, deps).store(organizationId, file);
  if (!outcome.ok) throw outcome.error;
  return outcome.result.file as StoredFile;
}

/** A form value as text ('' when absent). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function evidenceRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  web.post('/orgs/:org/evidence/attach', async (c: Context<WebEnv>) => {
    // The organization is the session's membership of the URL's organization: never a form field.
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const section = {
      kind: 'organization' as const,
      organizationId: membership.organizationId,
      page: 'evidence',
    };
    if (!mayWrite(membership))
      return errorPage(
        c,
        403,
        'Not allowed',
        'Adding evidence needs OWNER, ADMIN or EDITOR.',
        viewerOf(c),
        section,
      );
    const form = await readUploadForm(c);
    if (form instanceof Response) return form;
    const { fields: body, file } = form;
    const recordId = textOf(body.record_id);
    const kind = kindOfId(EVIDENCE_TARGETS, recordId);
    const page = kind ? registerPageByKind(kind) : undefined;
    const back = page ? `/orgs/${membership.organizationId}/${page.slug}/${recordId}` : null;
    if (!back) return notFoundPage(c, viewerOf(c));
    const url = textOf(body.url);
    const args: Row = {
      organization_id: membership.organizationId,
      record_ids: [recordId],
      title: textOf(body.title) || (file?.name ? file.name : url),
      ...(textOf(body.valid_until) ? { valid_until: textOf(body.valid_until) } : {}),
      ...(textOf(body.supersedes_id) ? { supersedes_id: textOf(body.supersedes_id) } : {}),
    };
    if (file) {
      args.file_id = (await storeFormFile(c, deps, membership.organizationId, file)).id;
    } else if (url) args.url = url;
    const outcome = await webCalls(c, deps).write(REGISTERS.evidence.add, args);
    setFlash(
      c,
      outcome.ok ? `Evidence added: ${String(args.title)}.` : `Evidence not added: ${outcome.error.message}`,
    );
    return c.redirect(`${back}#evidence`, 303);
  });

  return web;
}
