// The documents' web pages: the current version as escaped text, the approval flow (Approve only for an approver),
// the versions and a diff between two of them, and the home page's count of documents due for review.
import { describe, expect, it } from 'vitest';
import { callDirect, errorOf, ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, signedUpRuntime, textOf } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

async function setup() {
  const world = await signedUpRuntime(runtimes);
  const person = async (full_name: string, email: string) =>
    String(
      (
        (
          await ok(world.runtime, world.token, 'addPerson', {
            organization_id: world.organizationId,
            full_name,
            email,
          })
        ).person as Row
      ).id,
    );
  // Ada signed up as ada@example.com: her person is an approver; Grace is someone else.
  const ada = await person('Ada Lovelace', 'ada@example.com');
  const grace = await person('Grace Hopper', 'grace@example.com');
  const addDocument = async (values: Row) =>
    String(
      (
        (
          await ok(world.runtime, world.token, 'addDocument', {
            organization_id: world.organizationId,
            title: 'Access control policy',
            ...values,
          })
        ).document as Row
      ).id,
    );
  return { ...world, ada, grace, addDocument };
}

describe('document pages', () => {
  it('shows the content as escaped text, approves, publishes, and compares two versions', async () => {
    const { runtime, client, organizationId, token, ada, addDocument } = await setup();
    const id = await addDocument({
      status: 'IN_REVIEW',
      approver_ids: [ada],
      content: '# Access\n\n<script>alert(1)</script>\nOld rule.',
    });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>alert(1)</script>');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(textOf(page.html)).toContain('Approve version 1');
    expect(textOf(page.html)).toContain('Back to draft');

    const approved = await client.follow(await client.submit(path, `${path}/approve`, { version: '1' }));
    expect(textOf(approved.html)).toContain('Version 1 is now approved.');
    expect(textOf(approved.html)).not.toContain('Approve version');
    expect(textOf(approved.html)).toContain('cannot change');
    const published = await client.follow(
      await client.submit(path, `${path}/status`, { status: 'PUBLISHED' }),
    );
    expect(textOf(published.html)).toContain('Version 1 is now published.');
    expect(textOf(published.html)).toContain('Retire');

    await ok(runtime, token, 'updateDocument', { id, content: '# Access\n\n<b>New</b> rule.' });
    const compared = await client.get(`${path}?from=1&to=2`);
    const text = textOf(compared.html);
    expect(text).toContain('Version 1 → version 2: 1 lines added, 2 removed.');
    expect(compared.html).toContain('- &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(compared.html).toContain('+ &lt;b&gt;New&lt;/b&gt; rule.');
    expect(compared.html).not.toContain('<b>New</b>');
    // The versions table: version 2 a draft, version 1 published and approved by Ada.
    const rows = [
      ...compared.html.matchAll(/<tr><th scope="row">(\d+)<\/th><td>([^<]+)<\/td><td>([^<]*)<\/td>/g),
    ].map((match) => [match[1], match[2], match[3]]);
    expect(rows).toEqual([
      ['2', 'Draft', ''],
      ['1', 'Published', 'Ada Lovelace'],
    ]);
  });

  it('offers no Approve button to someone who is not an approver, and refuses their approval', async () => {
    const { client, organizationId, grace, addDocument } = await setup();
    const id = await addDocument({ status: 'IN_REVIEW', approver_ids: [grace], content: 'Text.' });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const page = await client.get(path);
    expect(textOf(page.html)).not.toContain('Approve version');
    expect(textOf(page.html)).toContain('Only an approver of this document');
    const refused = await client.follow(await client.submit(path, `${path}/approve`, { version: '1' }));
    expect(textOf(refused.html)).toContain('Not saved: Only an approver of this document can approve it');
    expect(textOf(refused.html)).toContain('Version 1 · In review');
  });

  it('lets a signed-in person acknowledge a version they were asked to read, once, recorded as WEB', async () => {
    const { runtime, client, organizationId, token, ada, grace, addDocument } = await setup();
    const id = await addDocument({ content: 'Lock your screen.' });
    await ok(runtime, token, 'requestAcknowledgements', {
      document_id: id,
      version: 1,
      audience: 'PEOPLE',
      person_ids: [ada, grace],
      due_date: '2030-01-31',
    });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const page = await client.get(path);
    expect(textOf(page.html)).toContain('You were asked to read and acknowledge this document.');
    expect(textOf(page.html)).toContain('I have read and accept version 1');
    const done = await client.follow(await client.submit(path, `${path}/acknowledge`, { version: '1' }));
    expect(textOf(done.html)).toContain('Acknowledged version 1.');
    expect(textOf(done.html)).not.toContain('I have read and accept version 1');
    const listed = (
      await ok(runtime, token, 'listAcknowledgements', {
        organization_id: organizationId,
        filter: { document_id: id },
      })
    ).acknowledgements as Row[];
    expect(listed.map((row) => [row.person_id, row.status, row.method]).sort()).toEqual(
      [
        [ada, 'ACKNOWLEDGED', 'WEB'],
        [grace, 'PENDING', null],
      ].sort(),
    );
    // A second post finds nothing pending and says so.
    const again = await client.follow(await client.submit(path, `${path}/acknowledge`, { version: '1' }));
    expect(textOf(again.html)).toContain('Not acknowledged: Nothing is pending for you on version 1');
  });

  it('counts the documents due for review on the home page and lists them', async () => {
    const { client, organizationId, addDocument } = await setup();
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const later = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    await addDocument({ title: 'Due soon', next_review_on: soon });
    await addDocument({ title: 'Due later', next_review_on: later });
    const home = await client.get(`/orgs/${organizationId}`);
    expect(textOf(home.html)).toMatch(/Documents due for review\s*1\s*next review within 30 days/);
    const due = await client.get(`/orgs/${organizationId}/documents?review_due=true`);
    expect(textOf(due.html)).toContain('Due soon');
    expect(textOf(due.html)).not.toContain('Due later');
    // Documents are not imported from files: no import link, no import page.
    expect(textOf(due.html)).not.toContain('Import from a file');
    expect((await client.get(`/orgs/${organizationId}/documents/import`)).status).toBe(404);
  });
});

describe('approval decisions in the web', () => {
  it('rejects a version with a comment: back to draft, the comment in the history', async () => {
    const { runtime, client, organizationId, token, ada, addDocument } = await setup();
    const id = await addDocument({ status: 'IN_REVIEW', approver_ids: [ada], content: 'Rule.' });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const page = await client.get(path);
    expect(textOf(page.html)).toContain('Reject version 1');
    expect(page.html).toContain(`action="${path}/reject"`);
    const rejected = await client.follow(
      await client.submit(path, `${path}/reject`, { version: '1', comment: 'Name <the> owner.' }),
    );
    expect(textOf(rejected.html)).toContain('Version 1 is now draft.');
    expect(textOf(rejected.html)).not.toContain('Reject version');
    const [change] = (
      await ok(runtime, token, 'listChanges', { organization_id: organizationId, filter: { record_id: id } })
    ).changes as Row[];
    expect(change).toMatchObject({
      tool: 'rejectDocument',
      surface: 'web',
      after: { status: 'DRAFT', rejected_by_id: ada, comment: 'Name <the> owner.' },
    });
  });

  it('keeps decisions to the web once the settings say so: the token is refused, the page approves', async () => {
    const { runtime, client, organizationId, token, ada, addDocument } = await setup();
    const settingsPath = `/orgs/${organizationId}/settings`;
    const settingsPage = await client.get(settingsPath);
    expect(textOf(settingsPage.html)).toContain('Decisions only by a person in the web');
    expect(textOf(settingsPage.html)).toContain('Owners may approve their own documents');
    const saved = await client.follow(
      await client.submit(settingsPath, settingsPath, {
        time_zone: 'UTC',
        incident_regimes: 'GDPR',
        web_only_decisions: 'true',
      }),
    );
    expect(textOf(saved.html)).toContain('Settings saved.');
    expect(saved.html).toMatch(/id="web_only_decisions"[^>]*checked/);
    expect(
      (await ok(runtime, token, 'getOrganizationSettings', { organization_id: organizationId })).settings,
    ).toMatchObject({ web_only_decisions: true, allow_document_self_approval: false });

    const id = await addDocument({ status: 'IN_REVIEW', approver_ids: [ada] });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const refused = await callDirect(runtime, token, 'approveDocument', { id });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toContain('web_only_decisions');
    expect(errorOf(refused).message).toContain(path);

    const approved = await client.follow(await client.submit(path, `${path}/approve`, { version: '1' }));
    expect(textOf(approved.html)).toContain('Version 1 is now approved.');
    const [change] = (
      await ok(runtime, token, 'listChanges', { organization_id: organizationId, filter: { record_id: id } })
    ).changes as Row[];
    expect(change).toMatchObject({ tool: 'approveDocument', surface: 'web', token_id: null });
  });
});

describe('a document version file on the page', () => {
  /** Submits the draft's file form as a browser sends a file input: multipart, same origin. */
  async function sendFile(
    client: Awaited<ReturnType<typeof setup>>['client'],
    path: string,
    file: { name: string; text: string },
  ) {
    const page = await client.get(path);
    const form = new FormData();
    form.set('_csrf', csrfOf(page.html));
    form.set('file', new File([file.text], file.name, { type: 'text/plain' }));
    return client.request(`${path}/file`, {
      method: 'POST',
      body: form,
      headers: { origin: new URL(client.base).origin },
    });
  }

  it('attaches, downloads, replaces and removes the draft’s file; an approved version shows it read-only', async () => {
    const { runtime, client, organizationId, token, ada, addDocument } = await setup();
    const id = await addDocument({ approver_ids: [ada], content: 'See the plan.' });
    const path = `/orgs/${organizationId}/documents/${id}`;
    const page = await client.get(path);
    expect(textOf(page.html)).toContain('No file attached.');
    expect(page.html).toContain('enctype="multipart/form-data"');
    expect(page.html).toContain('type="file"');

    const plan = 'Continuity plan, first issue.\n';
    const posted = await sendFile(client, path, { name: 'plan.txt', text: plan });
    expect(posted.status).toBe(303);
    const attached = await client.follow(posted);
    expect(textOf(attached.html)).toContain('File attached to version 1: plan.txt.');
    expect(textOf(attached.html)).toContain(`File: plan.txt (${plan.length} bytes;`);
    const href = /href="([^"]*\/files\/[^"]+)"/.exec(attached.html)?.[1] ?? '';
    const download = await runtime.app.request(
      new URL(href.replaceAll('&amp;', '&'), client.base).toString(),
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(await download.text()).toBe(plan);

    const replaced = await client.follow(
      await sendFile(client, path, { name: 'plan-2.txt', text: 'Second.\n' }),
    );
    expect(textOf(replaced.html)).toContain('File attached to version 1: plan-2.txt.');
    const removed = await client.follow(await client.submit(path, `${path}/file`, { remove: 'true' }));
    expect(textOf(removed.html)).toContain('File removed from version 1.');
    expect(textOf(removed.html)).toContain('No file attached.');

    await sendFile(client, path, { name: 'final.txt', text: 'Final.\n' });
    await ok(runtime, token, 'updateDocument', { id, status: 'IN_REVIEW' });
    await ok(runtime, token, 'approveDocument', { id });
    const approved = await client.get(path);
    expect(textOf(approved.html)).toContain('File: final.txt (7 bytes;');
    expect(approved.html).not.toContain('type="file"');
    expect(textOf(approved.html)).not.toContain('Remove the file');
    // The versions table names the file of each version.
    expect(approved.html).toMatch(/<td dir="auto">final\.txt<\/td>/);
  });
});
