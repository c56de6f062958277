// Acknowledgements through the public signed link: the history says which person acted (surface link, no account),
// the last one completes the request's evidence linked to the document's requirements, and organizations stay apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Actor,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { csrfOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
const clock = new Date('2026-05-04T09:00:00.000Z');
let alice: Actor;
let bob: Actor;
let aliceToken: string;
let bobToken: string;
let org: string;
let otherOrg: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Link Org');
  otherOrg = await createOrg(runtime, bob, 'Other Org');
  aliceToken = await createToken(runtime, alice);
  bobToken = await createToken(runtime, bob);
});

afterAll(async () => {
  await runtime?.cleanup();
});

const idOf = (result: Row, key: string) => String((result[key] as Row).id);

/** A published document covering one requirement, approved by its owner, and a person without an account. */
async function publishedDocument(owner: Actor, token: string, organization: string, title: string) {
  const person = async (full_name: string, email: string) =>
    idOf(
      await ok(runtime, token, 'addPerson', {
        organization_id: organization,
        full_name,
        email,
        kind: 'EMPLOYEE',
      }),
      'person',
    );
  const approver = await person(`${title} owner`, owner.email);
  const staff = await person(`${title} reader`, `reader-${organization}@example.com`);
  const framework = idOf(
    await ok(runtime, token, 'addFramework', { organization_id: organization, name: 'ISO/IEC 27001' }),
    'framework',
  );
  const requirement = idOf(
    await ok(runtime, token, 'addRequirement', {
      organization_id: organization,
      framework_id: framework,
      reference: 'A.5.1',
      title: 'Policies for information security',
    }),
    'requirement',
  );
  const document = idOf(
    await ok(runtime, token, 'addDocument', {
      organization_id: organization,
      title,
      content: 'Read me.',
      approver_ids: [approver],
      requirement_ids: [requirement],
    }),
    'document',
  );
  await ok(runtime, token, 'updateDocument', { id: document, status: 'IN_REVIEW' });
  await ok(runtime, token, 'approveDocument', { id: document });
  await ok(runtime, token, 'updateDocument', { id: document, status: 'PUBLISHED' });
  return { staff, requirement, document };
}

/** The page's form posted by a browser of its own; its client and form token stay for a second try. */
async function acknowledgeThrough(path: string) {
  const web = new WebClient(runtime);
  const page = await web.get(path);
  expect(page.status).toBe(200);
  const csrf = csrfOf(page.html);
  const done = await web.post(path, { _csrf: csrf });
  expect(done.status).toBe(200);
  return { web, csrf, path };
}

let used: Awaited<ReturnType<typeof acknowledgeThrough>>;

describe('acknowledgement by public link', () => {
  it('records who acted by link in the history and, for the last one asked, the evidence of the requirements', async () => {
    const mine = await publishedDocument(alice, aliceToken, org, 'Acceptable use policy');
    const theirs = await publishedDocument(bob, bobToken, otherOrg, 'Their policy');
    const asked = await ok(runtime, aliceToken, 'requestAcknowledgements', {
      document_id: mine.document,
      audience: 'PEOPLE',
      person_ids: [mine.staff],
    });
    const request = idOf(asked, 'request');
    const link = (asked.links as Row[])[0] as Row;
    // The other organization has a pending request of its own: it must stay pending and evidence-free.
    await ok(runtime, bobToken, 'requestAcknowledgements', {
      document_id: theirs.document,
      audience: 'PEOPLE',
      person_ids: [theirs.staff],
    });

    used = await acknowledgeThrough(String(link.link_path));

    const history = await ok(runtime, aliceToken, 'listChanges', {
      organization_id: org,
      filter: { surface: 'LINK' },
    });
    const rows = history.changes as Row[];
    const byKind = (kind: string) => rows.find((row) => row.kind === kind) as Row;
    expect(rows.map((row) => [row.kind, row.action, row.tool]).sort()).toEqual([
      ['document', 'update', 'acknowledgeDocument'],
      ['evidence', 'add', 'acknowledgeDocument'],
    ]);
    expect(byKind('document')).toMatchObject({
      record_id: mine.document,
      surface: 'link',
      user_id: null,
      user_email: null,
      token_id: null,
      person_id: mine.staff,
      person_name: 'Acceptable use policy reader',
      after: { acknowledged_version: 1, acknowledged_by_id: mine.staff, method: 'LINK' },
      created_at: clock.toISOString(),
    });
    expect(byKind('evidence')).toMatchObject({ person_id: mine.staff, user_id: null });

    // The evidence covers the document's requirement, as the account path's does.
    const evidence = (
      await ok(runtime, aliceToken, 'listEvidence', {
        organization_id: org,
        filter: { record_id: mine.requirement },
      })
    ).evidence as Row[];
    expect(evidence.map((item) => [item.id, item.title, item.collected_on, item.valid_until])).toEqual([
      [
        byKind('evidence').record_id,
        'Acknowledgements complete: Acceptable use policy v1',
        '2026-05-04',
        '2027-05-04',
      ],
    ]);
    expect(String(evidence[0]?.description)).toContain(`acknowledgement request ${request} (1)`);

    // Rows written by accounts keep their user: the request's history row names Alice.
    const requested = (
      (
        await ok(runtime, aliceToken, 'listChanges', {
          organization_id: org,
          filter: { record_id: mine.document },
        })
      ).changes as Row[]
    ).find((row) => row.tool === 'requestAcknowledgements');
    expect(requested).toMatchObject({ user_email: alice.email, person_id: null, surface: 'direct' });
  });

  it('keeps the other organization apart: none of its history, evidence or acknowledgements changed', async () => {
    const theirs = await ok(runtime, bobToken, 'listChanges', {
      organization_id: otherOrg,
      filter: { surface: 'LINK' },
    });
    expect(theirs.changes).toEqual([]);
    const evidence = await ok(runtime, bobToken, 'listEvidence', { organization_id: otherOrg });
    expect(evidence.evidence).toEqual([]);
    const pending = await ok(runtime, bobToken, 'listAcknowledgements', {
      organization_id: otherOrg,
      filter: { status: 'PENDING' },
    });
    expect((pending.acknowledgements as Row[]).map((row) => row.person_name)).toEqual([
      'Their policy reader',
    ]);
    // And it cannot read the link person's history of the first organization.
    const refused = errorOf(
      await callDirect(runtime, bobToken, 'listChanges', {
        organization_id: org,
        filter: { surface: 'LINK' },
      }),
    );
    expect(refused.code).toBe('not_found');
  });

  it('writes no history for a link used twice or a tampered one', async () => {
    const count = async () =>
      (await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { surface: 'LINK' } }))
        .total_count;
    expect(await count()).toBe(2);
    const again = await used.web.post(used.path, { _csrf: used.csrf });
    expect(again.status).toBe(410);
    const tampered = `${used.path.slice(0, -1)}${used.path.endsWith('A') ? 'B' : 'A'}`;
    const wrong = await used.web.post(tampered, { _csrf: used.csrf });
    expect(wrong.status).toBe(404);
    expect(await count()).toBe(2);
  });
});
