// The trust page on the Worker host in workerd: published through the tools, read at /trust/<slug> and at the root of
// a hostname TRUST_PAGE_HOSTS maps to it (where nothing else is served), a request sent on the public form (its
// token and cookie, rate limited per client network), approved through the tool, and the download link: the document,
// and 404 once tampered.
import { env } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { memberships, notifications, users } from '../../src/db/schema.ts';
import { type Env, runtimeFor } from '../../src/worker.ts';
import { browserSession, csrfOf, pageOf } from '../browser-session.ts';
import { callTool as call, fetchWith, ownedOrganization, testDatabase } from './helpers.ts';

type Row = Record<string, unknown>;

const database = testDatabase();
afterAll(() => database.client.close());
afterEach(() => {
  // The other files use the runtime of the real bindings.
  runtimeFor(env);
});

const TRUST_HOST = 'trust-worker.example';

/** A visitor's browser on `base`, through the Worker entry with TRUST_PAGE_HOSTS mapping TRUST_HOST to `slug`. */
function visitor(base: string, slug: string) {
  const address = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  const session = browserSession((request) => {
    request.headers.set('cf-connecting-ip', address);
    return fetchWith(request, { ...env, TRUST_PAGE_HOSTS: `${TRUST_HOST}=${slug}` } as Env);
  }, base);
  return {
    /** The response itself (its headers), for a download. */
    send: (path: string) => session.send(path),
    get: (path: string) => session.send(path).then(pageOf),
    post: (path: string, fields: Record<string, string>) =>
      session
        .send(path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        })
        .then(pageOf),
  };
}

/** The owner's address, for the person who approves the document. */
async function ownerEmail(organizationId: string): Promise<string> {
  const [row] = await database.db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(eq(memberships.organization_id, organizationId));
  return String(row?.email);
}

async function ok(token: string, tool: string, args: Row): Promise<Row> {
  const answer = await call(token, tool, args);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

describe('the trust page on the Worker', () => {
  it('serves the chosen records on its path and its own hostname, and a request approved into a download', async () => {
    const { organizationId, token } = await ownedOrganization(database, 'trust');
    const slug = `wk-${crypto.randomUUID().slice(0, 8)}`;
    const person = await ok(token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'Trust Owner',
      email: await ownerEmail(organizationId),
    });
    const approver = String((person.person as Row).id);
    const framework = await ok(token, 'addFramework', { organization_id: organizationId, name: 'WorkerISO' });
    await ok(token, 'addFramework', { organization_id: organizationId, name: 'WorkerHiddenFramework' });
    const added = await ok(token, 'addDocument', {
      organization_id: organizationId,
      title: 'WorkerPentest',
      content: 'WorkerSecretText',
      status: 'IN_REVIEW',
      approver_ids: [approver],
    });
    const documentId = String((added.document as Row).id);
    await ok(token, 'approveDocument', { id: documentId });
    await ok(token, 'updateDocument', { id: documentId, status: 'PUBLISHED' });
    await ok(token, 'setTrustPageItem', {
      organization_id: organizationId,
      record_id: String((framework.framework as Row).id),
      visibility: 'PUBLIC',
    });
    await ok(token, 'setTrustPageItem', {
      organization_id: organizationId,
      record_id: documentId,
      visibility: 'ON_REQUEST',
    });
    const onPath = visitor('http://127.0.0.1:8787', slug);
    expect((await onPath.get(`/trust/${slug}`)).status).toBe(404);
    await ok(token, 'updateTrustPage', { organization_id: organizationId, slug, enabled: true });

    const page = await onPath.get(`/trust/${slug}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('WorkerISO');
    expect(page.html).toContain(`/trust/${slug}/request/${documentId}`);
    expect(page.html).not.toContain('WorkerHiddenFramework');
    expect(page.html).not.toContain('WorkerSecretText');

    const onHost = visitor(`http://${TRUST_HOST}`, slug);
    const root = await onHost.get('/');
    expect(root.status).toBe(200);
    expect(root.html).toContain('WorkerISO');
    expect(root.html).toContain(`href="/request/${documentId}"`);
    expect((await onHost.get('/login')).status).toBe(404);
    const form = await onHost.get(`/request/${documentId}`);
    expect(form.status).toBe(200);
    const sent = await onHost.post(`/request/${documentId}`, {
      _csrf: csrfOf(form.html),
      name: 'Wanda Worker',
      email: 'wanda@buyer.example',
      company: 'Buyer',
      accept_terms: 'yes',
    });
    expect(sent.status).toBe(200);

    const listed = await ok(token, 'listTrustAccessRequests', {
      organization_id: organizationId,
      filter: { status: 'PENDING' },
    });
    const requests = listed.trust_access_requests as Row[];
    expect(requests.map((row) => [row.email, row.document_title])).toEqual([
      ['wanda@buyer.example', 'WorkerPentest'],
    ]);
    const decided = await ok(token, 'decideTrustAccessRequest', {
      id: requests[0]?.id,
      decision: 'APPROVE',
    });
    const link = String(decided.link_path);
    const download = await onPath.get(link);
    expect(download.status).toBe(200);
    expect(download.html).toBe('WorkerSecretText');
    // The same link on the page's own hostname, where the page lives at the root.
    expect((await onHost.get(link.slice(`/trust/${slug}`.length))).html).toBe('WorkerSecretText');
    const tampered = `${link.slice(0, -1)}${link.endsWith('A') ? 'B' : 'A'}`;
    expect((await onPath.get(tampered)).status).toBe(404);
  });

  it('tells the owner of a request and downloads an attached file (from R2) as an attachment', async () => {
    const { organizationId, token } = await ownedOrganization(database, 'trust-file');
    const slug = `wf-${crypto.randomUUID().slice(0, 8)}`;
    const person = await ok(token, 'addPerson', {
      organization_id: organizationId,
      full_name: 'File Owner',
      email: await ownerEmail(organizationId),
    });
    const pdf = '%PDF-1.7\n%worker report\n';
    const added = await ok(token, 'addDocument', {
      organization_id: organizationId,
      title: 'WorkerReport',
      content: 'WorkerReportText',
      content_base64: btoa(pdf),
      file_name: 'worker report.pdf',
      status: 'IN_REVIEW',
      approver_ids: [String((person.person as Row).id)],
    });
    const documentId = String((added.document as Row).id);
    await ok(token, 'approveDocument', { id: documentId });
    await ok(token, 'updateDocument', { id: documentId, status: 'PUBLISHED' });
    await ok(token, 'setTrustPageItem', {
      organization_id: organizationId,
      record_id: documentId,
      visibility: 'ON_REQUEST',
    });
    await ok(token, 'updateTrustPage', { organization_id: organizationId, slug, enabled: true });
    const onPath = visitor('http://127.0.0.1:8787', slug);
    const form = await onPath.get(`/trust/${slug}/request/${documentId}`);
    const sent = await onPath.post(`/trust/${slug}/request/${documentId}`, {
      _csrf: csrfOf(form.html),
      name: 'Fay File',
      email: 'fay@buyer.example',
      company: 'Buyer',
      accept_terms: 'yes',
    });
    expect(sent.status).toBe(200);
    const listed = await ok(token, 'listTrustAccessRequests', { organization_id: organizationId });
    const id = String((listed.trust_access_requests as Row[])[0]?.id);
    const notes = await database.db
      .select({ user: notifications.user_id, kind: notifications.kind, title: notifications.title })
      .from(notifications)
      .where(eq(notifications.record_id, id));
    const [owner] = await database.db
      .select({ id: memberships.user_id })
      .from(memberships)
      .where(eq(memberships.organization_id, organizationId));
    expect(notes).toEqual([
      { user: owner?.id, kind: 'trust_request', title: 'Trust page request for WorkerReport' },
    ]);

    const decided = await ok(token, 'decideTrustAccessRequest', { id, decision: 'APPROVE' });
    const link = String(decided.link_path);
    const download = await onPath.send(link);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toContain('attachment; filename="worker report.pdf"');
    expect(new TextDecoder().decode(await download.arrayBuffer())).toBe(pdf);
    const tampered = `${link.slice(0, -1)}${link.endsWith('A') ? 'B' : 'A'}`;
    const refused = await onPath.get(tampered);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('worker report');
  });
});
