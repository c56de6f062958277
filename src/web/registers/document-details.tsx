// A document's page beyond its fields: the current version's Markdown (escaped text, never rendered HTML), the
// approval flow (submit, approve for an approver only, publish, retire), the versions and a diff between two of them.
import { diffLines } from 'diff';
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { DocumentVersion } from '../../tools/document-versions.ts';
import { ACKNOWLEDGEMENTS, DOCUMENT_VERSIONS, REGISTERS } from '../../tools/index.ts';
import { myWorkTool } from '../../tools/my-work.ts';
import { DOCUMENT_TRANSITIONS } from '../../tools/states.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { storeFormFile } from '../evidence.tsx';
import { setFlash } from '../flash.ts';
import { sizeLabel, valueLabel } from '../labels.ts';
import { CsrfField, Time } from '../layout.tsx';
import { notFoundPage } from '../render.tsx';
import { type NameIndex, type WebCalls, webCalls } from '../tool-calls.ts';
import { readUploadForm } from '../uploads.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

/** What each status move is called on its button. */
const MOVE_LABELS: Record<string, string> = {
  IN_REVIEW: 'Submit for review',
  DRAFT: 'Back to draft',
  PUBLISHED: 'Publish',
  RETIRED: 'Retire',
};

/** `/orgs/:org/documents/:id`, for the document's own actions. */
const DOCUMENT_PATH = '/orgs/:org/documents/:id{doc_[0-9a-z]+}';

/** The record page's fields a document shows in its version section instead (its text and its file). */
export const DOCUMENT_OWN_FIELDS = ['content', 'file_id', 'file_name', 'size', 'content_type', 'sha256'];

/** One line of a diff: `+` added, `-` removed, ` ` the same. */
export interface DiffLine {
  sign: '+' | '-' | ' ';
  text: string;
}

/** The lines of `before` and `after` as a line diff. */
export function diffOf(before: string, after: string): DiffLine[] {
  return diffLines(before, after).flatMap((part) => {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    return part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({ sign, text }));
  });
}

export interface DocumentDetailsData {
  record: Row;
  versions: DocumentVersion[];
  names: NameIndex;
  /** The signed-in person is one of the document's approvers (by email). */
  isApprover: boolean;
  /** The versions the signed-in person was asked to acknowledge and has not (from myWork), oldest first. */
  toAcknowledge: number[];
  /** The two version numbers to compare, when asked (`?from=1&to=2`). */
  compare: { from: number; to: number } | null;
  /** getDocument's signed link to the latest version's file, or null. */
  downloadUrl: string | null;
}

/** The versions, approvers and diff a document page shows, read through the tools. */
export async function documentDetailsOf(
  c: Context<WebEnv>,
  calls: WebCalls,
  membership: Membership,
  record: Row,
  downloadUrl: unknown,
): Promise<DocumentDetailsData> {
  const approverIds = (record.approver_ids as string[] | undefined) ?? [];
  const [listed, approvers, names, work] = await Promise.all([
    calls.run(DOCUMENT_VERSIONS.listVersions, { document_id: record.id, include_content: true }),
    Promise.all(
      approverIds.map((id) =>
        calls.run(REGISTERS.person.get, { id }).then(
          (result) => result.person as Row,
          () => null,
        ),
      ),
    ),
    calls.names(membership.organizationId, ['person']),
    // What myWork says the viewer has to acknowledge here: one item per version asked ("Acknowledge: <title> vN").
    calls.run(myWorkTool, { organization_id: membership.organizationId, size: 100 }),
  ]);
  const toAcknowledge = (work.items as Row[])
    .filter((item) => item.reason === 'ACKNOWLEDGE' && item.id === record.id)
    .map((item) => {
      const title = String(item.title);
      return Number(title.slice(title.lastIndexOf(' v') + 2));
    })
    .filter(Number.isInteger)
    .sort((a, b) => a - b);
  const email = c.get('user').email.toLowerCase();
  const number = (name: string) => Number.parseInt(c.req.query(name) ?? '', 10);
  const from = number('from');
  const to = number('to');
  return {
    record,
    versions: listed.versions as DocumentVersion[],
    names,
    isApprover: approvers.some((person) => String(person?.email ?? '').toLowerCase() === email),
    toAcknowledge,
    compare: Number.isInteger(from) && Number.isInteger(to) ? { from, to } : null,
    downloadUrl: typeof downloadUrl === 'string' ? downloadUrl : null,
  };
}

function personName(names: NameIndex, id: unknown): string {
  if (typeof id !== 'string') return '';
  return names.get(id)?.name ?? id;
}

function ActionButton(props: { action: string; csrfToken: string; label: string; fields?: Row }) {
  return (
    <form method="post" action={props.action} class="inline-form">
      <CsrfField token={props.csrfToken} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      <button type="submit">{props.label}</button>
    </form>
  );
}

/** The latest version's file: a signed download link; on a draft, for writers, a form to attach, replace or remove it. */
function VersionFile(props: {
  data: DocumentDetailsData;
  base: string;
  csrfToken: string;
  editable: boolean;
}) {
  const { record, downloadUrl } = props.data;
  const action = `${props.base}/file`;
  const hasFile = typeof record.file_id === 'string';
  return (
    <>
      {hasFile ? (
        <p>
          File:{' '}
          {downloadUrl ? (
            <a href={downloadUrl} rel="noopener" download dir="auto">
              {String(record.file_name)}
            </a>
          ) : (
            <span dir="auto">{String(record.file_name)}</span>
          )}{' '}
          <span class="muted small">({sizeLabel(record.size)}; the link is valid for a few minutes)</span>
        </p>
      ) : (
        <p class="small">No file attached.</p>
      )}
      {props.editable && (
        <div class="actions">
          <form method="post" action={action} enctype="multipart/form-data" class="inline-form">
            <CsrfField token={props.csrfToken} />
            <input type="hidden" name="expected_updated_at" value={String(record.updated_at)} />
            <label for="document-file">{hasFile ? 'Replace the file' : 'Attach a file'}</label>
            <input id="document-file" type="file" name="file" required />
            <button type="submit">{hasFile ? 'Replace' : 'Attach'}</button>
          </form>
          {hasFile && (
            <ActionButton
              action={action}
              csrfToken={props.csrfToken}
              label="Remove the file"
              fields={{ remove: 'true', expected_updated_at: record.updated_at }}
            />
          )}
        </div>
      )}
    </>
  );
}

function Diff(props: { versions: DocumentVersion[]; from: number; to: number }) {
  const before = props.versions.find((version) => version.number === props.from);
  const after = props.versions.find((version) => version.number === props.to);
  if (!before || !after) return <p>There is no version {before ? props.to : props.from}.</p>;
  const lines = diffOf(before.content ?? '', after.content ?? '');
  const added = lines.filter((line) => line.sign === '+').length;
  const removed = lines.filter((line) => line.sign === '-').length;
  return (
    <>
      <p>
        Version {props.from} → version {props.to}: {added} lines added, {removed} removed.
      </p>
      <pre class="diff">
        {lines.map((line) => (
          <span class={line.sign === '+' ? 'diff-add' : line.sign === '-' ? 'diff-del' : undefined}>
            {`${line.sign} ${line.text}\n`}
          </span>
        ))}
      </pre>
    </>
  );
}

function VersionSelect(props: {
  id: string;
  name: string;
  label: string;
  versions: DocumentVersion[];
  selected: number;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        {props.versions.map((version) => (
          <option value={String(version.number)} selected={version.number === props.selected}>
            {version.number}
          </option>
        ))}
      </select>
    </>
  );
}

export function DocumentDetails(props: {
  membership: Membership;
  data: DocumentDetailsData;
  csrfToken: string;
}) {
  const { membership, data } = props;
  const { record, versions } = data;
  const base = `/orgs/${membership.organizationId}/documents/${String(record.id)}`;
  const status = String(record.status);
  const latest = versions[0];
  const locked = status === 'APPROVED' || status === 'PUBLISHED';
  const moves = DOCUMENT_TRANSITIONS[status] ?? [];
  const writer = mayWrite(membership);
  const newest = latest?.number ?? 1;
  const compare = data.compare ?? { from: Math.max(1, newest - 1), to: newest };
  return (
    <>
      <section aria-labelledby="document-version">
        <h2 id="document-version">
          Version {String(record.version)} · {valueLabel(status)}
        </h2>
        {locked && (
          <p class="small">
            This version is {valueLabel(status).toLowerCase()} and cannot change: editing the document starts
            version {Number(record.version) + 1} as a draft
            {status === 'PUBLISHED' ? ', and this one stays in force until that one is published' : ''}.
          </p>
        )}
        {record.content ? (
          <pre class="document-content" dir="auto" tabindex={0}>
            {String(record.content)}
          </pre>
        ) : (
          <p>No content yet.</p>
        )}
        <VersionFile
          data={data}
          base={base}
          csrfToken={props.csrfToken}
          editable={writer && (status === 'DRAFT' || status === 'IN_REVIEW')}
        />
        {writer && (moves.length > 0 || (status === 'IN_REVIEW' && data.isApprover)) && (
          <div class="actions">
            {status === 'IN_REVIEW' && data.isApprover && (
              <ActionButton
                action={`${base}/approve`}
                csrfToken={props.csrfToken}
                label={`Approve version ${String(record.version)}`}
                fields={{ version: record.version }}
              />
            )}
            {moves.map((to) => (
              <ActionButton
                action={`${base}/status`}
                csrfToken={props.csrfToken}
                label={MOVE_LABELS[to] ?? valueLabel(to)}
                fields={{ status: to, expected_updated_at: record.updated_at }}
              />
            ))}
          </div>
        )}
        {data.toAcknowledge.length > 0 && (
          <div class="actions">
            <p>You were asked to read and acknowledge this document.</p>
            {data.toAcknowledge.map((version) => (
              <ActionButton
                action={`${base}/acknowledge`}
                csrfToken={props.csrfToken}
                label={`I have read and accept version ${version}`}
                fields={{ version }}
              />
            ))}
          </div>
        )}
        {writer && status === 'IN_REVIEW' && data.isApprover && (
          <form method="post" action={`${base}/reject`} class="card">
            <CsrfField token={props.csrfToken} />
            <input type="hidden" name="version" value={String(record.version)} />
            <div class="field">
              <label for="reject-comment">Reason for rejecting</label>
              <textarea
                id="reject-comment"
                name="comment"
                rows={3}
                maxlength={2000}
                required
                aria-describedby="reject-comment-hint"
              />
              <p class="hint" id="reject-comment-hint">
                The version goes back to draft and its approvals are cleared; your comment is kept in the
                history.
              </p>
            </div>
            <button type="submit" class="quiet">
              Reject version {String(record.version)}
            </button>
          </form>
        )}
        {status === 'IN_REVIEW' && !data.isApprover && (
          <p class="small">
            Only an approver of this document, signed in with their own account, can approve it.
          </p>
        )}
      </section>
      <section aria-labelledby="document-versions">
        <h2 id="document-versions">Versions</h2>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Versions of this document, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Approved by</th>
                <th scope="col">Approved</th>
                <th scope="col">Published</th>
                <th scope="col">Superseded or retired</th>
                <th scope="col">File</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((version) => (
                <tr>
                  <th scope="row">{version.number}</th>
                  <td>{valueLabel(version.status)}</td>
                  <td>{personName(data.names, version.approved_by_id)}</td>
                  <td>
                    <Time iso={version.approved_at} />
                  </td>
                  <td>
                    <Time iso={version.published_at} />
                  </td>
                  <td>
                    <Time iso={version.superseded_at ?? version.retired_at} />
                  </td>
                  <td dir="auto">{version.file_name ?? ''}</td>
                  <td>
                    {version.number > 1 && (
                      <a href={`${base}?from=${version.number - 1}&to=${version.number}#compare`}>
                        Since version {version.number - 1}
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {versions.length > 1 && (
          <>
            <h3 id="compare">Compare versions</h3>
            <form method="get" action={`${base}#compare`} class="compare-form">
              <VersionSelect
                id="compare-from"
                name="from"
                label="From version"
                versions={versions}
                selected={compare.from}
              />
              <VersionSelect
                id="compare-to"
                name="to"
                label="to version"
                versions={versions}
                selected={compare.to}
              />
              <button type="submit" class="quiet">
                Compare
              </button>
            </form>
            {data.compare && <Diff versions={versions} from={compare.from} to={compare.to} />}
          </>
        )}
      </section>
    </>
  );
}

/** The document page's actions: a status move (updateDocument), an approval or a rejection with a comment. */
export function documentRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /** The flash after a decision: the version's new state, or where its approvals stand while more are needed. */
  function decided(result: Row): string {
    const document = result.document as Row;
    const approvals = result.approvals as { given: number; required: number } | undefined;
    if (approvals && approvals.given < approvals.required)
      return `Your approval of version ${String(document.version)} is recorded: ${approvals.given} of ${approvals.required} approvals.`;
    return `Version ${String(document.version)} is now ${valueLabel(String(document.status)).toLowerCase()}.`;
  }

  async function act(c: Context<WebEnv>, decision: 'status' | 'approve' | 'reject') {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership);
    const id = c.req.param('id') ?? '';
    const body = await c.req.parseBody();
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const calls = webCalls(c, deps);
    const version = text('version') ? { version: Number(text('version')) } : {};
    const outcome =
      decision === 'approve'
        ? await calls.write(DOCUMENT_VERSIONS.approve, { id, ...version })
        : decision === 'reject'
          ? await calls.write(DOCUMENT_VERSIONS.reject, { id, comment: text('comment'), ...version })
          : await calls.write(REGISTERS.document.update, {
              id,
              status: text('status'),
              ...(text('expected_updated_at') ? { expected_updated_at: text('expected_updated_at') } : {}),
            });
    if (!outcome.ok && outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    setFlash(c, outcome.ok ? decided(outcome.result as Row) : `Not saved: ${outcome.error.message}`);
    return c.redirect(`/orgs/${membership.organizationId}/documents/${id}`, 303);
  }

  // The draft's file: stored for the session's organization (never one a form names), then set or cleared through
  // updateDocument, which refuses what a draft may not do.
  web.post(`${DOCUMENT_PATH}/file`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership);
    const id = c.req.param('id') ?? '';
    const form = await readUploadForm(c);
    if (form instanceof Response) return form;
    const { fields: body, file } = form;
    const expected = typeof body.expected_updated_at === 'string' ? body.expected_updated_at : '';
    const args: Row = { id, ...(expected ? { expected_updated_at: expected } : {}) };
    if (body.remove === 'true') args.clear = ['file_id'];
    else if (file) args.file_id = (await storeFormFile(c, deps, membership.organizationId, file)).id;
    const outcome =
      args.file_id || args.clear ? await webCalls(c, deps).write(REGISTERS.document.update, args) : null;
    if (outcome && !outcome.ok && outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    const document = outcome?.ok ? (outcome.result.document as Row) : null;
    setFlash(
      c,
      document
        ? document.file_id
          ? `File attached to version ${String(document.version)}: ${String(document.file_name)}.`
          : `File removed from version ${String(document.version)}.`
        : `Not saved: ${outcome && !outcome.ok ? outcome.error.message : 'choose a file.'}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/documents/${id}`, 303);
  });
  // An acknowledgement asked of the signed-in person (any role: a viewer reads and accepts policies too).
  web.post(`${DOCUMENT_PATH}/acknowledge`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const id = c.req.param('id') ?? '';
    const body = await c.req.parseBody();
    const version = Number(typeof body.version === 'string' ? body.version : '');
    const outcome = await webCalls(c, deps).write(ACKNOWLEDGEMENTS.acknowledge, {
      document_id: id,
      ...(Number.isInteger(version) && version > 0 ? { version } : {}),
    });
    setFlash(
      c,
      outcome.ok
        ? `Acknowledged version ${String((outcome.result.acknowledgements as Row[])[0]?.version ?? version)}.`
        : `Not acknowledged: ${outcome.error.message}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/documents/${id}`, 303);
  });
  web.post(`${DOCUMENT_PATH}/status`, (c) => act(c, 'status'));
  web.post(`${DOCUMENT_PATH}/approve`, (c) => act(c, 'approve'));
  web.post(`${DOCUMENT_PATH}/reject`, (c) => act(c, 'reject'));
  return web;
}
