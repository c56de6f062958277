// Policy acknowledgements: requests per person, who has not acknowledged, reminders, the public link page and its
// refusals (tampered, reused, expired, cross-site), isolation between organizations.
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
let clock = new Date('2026-03-01T09:00:00.000Z');
let alice: Actor;
let org: string;
let aliceToken: string;
let bobToken: string;
let documentId: string;
const personIds: string[] = [];
let alicePerson: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Ack Org');
  await createOrg(runtime, bob, 'Other Org');
  aliceToken = await createToken(runtime, alice);
  bobToken = await createToken(runtime, bob);
  const person = async (full_name: string, email: string, kind = 'EMPLOYEE') =>
    String(
      (
        (await ok(runtime, aliceToken, 'addPerson', { organization_id: org, full_name, email, kind }))
          .person as Row
      ).id,
    );
  alicePerson = await person('Alice Owner', alice.email);
  personIds.push(await person('Ben Staff', 'ben@example.com'));
  personIds.push(await person('Cleo Contractor', 'cleo@example.com', 'CONTRACTOR'));
  const added = await ok(runtime, aliceToken, 'addDocument', {
    organization_id: org,
    title: 'Acceptable use policy',
    content: 'Use company devices with care.',
    approver_ids: [alicePerson],
  });
  documentId = String((added.document as Row).id);
  await ok(runtime, aliceToken, 'updateDocument', { id: documentId, status: 'IN_REVIEW' });
  await ok(runtime, aliceToken, 'approveDocument', { id: documentId });
  await ok(runtime, aliceToken, 'updateDocument', { id: documentId, status: 'PUBLISHED' });
});

afterAll(async () => {
  await runtime?.cleanup();
});

const refused = async (token: string, tool: string, args: Row) =>
  errorOf(await callDirect(runtime, token, tool, args));

const pending = async () =>
  (
    await ok(runtime, aliceToken, 'listAcknowledgements', {
      organization_id: org,
      filter: { document_id: documentId, version: 1, status: 'PENDING' },
    })
  ).acknowledgements as Row[];

describe('acknowledgement requests', () => {
  it('asks everyone of the register for the published version, one link each, and lists who has not acknowledged', async () => {
    const asked = await ok(runtime, aliceToken, 'requestAcknowledgements', {
      document_id: documentId,
      audience: 'ALL',
      due_date: '2026-03-15',
    });
    expect(asked.requested).toBe(3);
    expect(asked.skipped).toBe(0);
    expect((asked.request as Row).version).toBe(1);
    const links = asked.links as Row[];
    expect(new Set(links.map((link) => link.link_path)).size).toBe(3);
    expect(links.map((link) => link.email).sort()).toEqual([
      alice.email,
      'ben@example.com',
      'cleo@example.com',
    ]);
    expect((await pending()).map((row) => row.person_name).sort()).toEqual([
      'Alice Owner',
      'Ben Staff',
      'Cleo Contractor',
    ]);
    // Asking again skips everyone already pending.
    const again = await ok(runtime, aliceToken, 'requestAcknowledgements', {
      document_id: documentId,
      audience: 'ALL',
    });
    expect([again.requested, again.skipped]).toEqual([0, 3]);
  });

  it('acknowledges through the public link: the page shows the version, the POST records LINK, the link then works no more', async () => {
    const reminded = await ok(runtime, aliceToken, 'sendAcknowledgementReminders', {
      request_id: String(
        (
          (await ok(runtime, aliceToken, 'listAcknowledgements', { organization_id: org }))
            .acknowledgements as Row[]
        )[0]?.request_id,
      ),
    });
    expect(reminded.reminded).toBe(3);
    const ben = (reminded.links as Row[]).find((link) => link.person_id === personIds[0]);
    const path = String(ben?.link_path);
    const web = new WebClient(runtime);
    const page = await web.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Acceptable use policy, version 1');
    expect(page.html).toContain('Use company devices with care.');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    // A cross-site POST with the right token is refused and records nothing.
    const crossSite = await web.post(path, { _csrf: csrfOf(page.html) }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await pending()).length).toBe(3);
    clock = new Date('2026-03-02T10:00:00.000Z');
    const done = await web.post(path, { _csrf: csrfOf(page.html) });
    expect(done.status).toBe(200);
    expect(done.html).toContain('You acknowledged Acceptable use policy, version 1, on 2026-03-02.');
    const benRow = (
      (
        await ok(runtime, aliceToken, 'listAcknowledgements', {
          organization_id: org,
          filter: { person_id: personIds[0], status: 'ACKNOWLEDGED' },
        })
      ).acknowledgements as Row[]
    )[0];
    expect(benRow).toMatchObject({ method: 'LINK', acknowledged_at: '2026-03-02T10:00:00.000Z', version: 1 });
    const reused = await web.get(path);
    expect(reused.status).toBe(410);
    expect(reused.html).toContain('This link was already used');
    expect(reused.html).not.toContain('Acceptable use policy');
    expect((await pending()).map((row) => row.person_name).sort()).toEqual([
      'Alice Owner',
      'Cleo Contractor',
    ]);
  });

  it('shows no data for a tampered or expired link, and an old link stops working after a reminder', async () => {
    const web = new WebClient(runtime);
    const first = await ok(runtime, aliceToken, 'listAcknowledgements', { organization_id: org });
    const requestId = String((first.acknowledgements as Row[])[0]?.request_id);
    const old = await ok(runtime, aliceToken, 'sendAcknowledgementReminders', {
      request_id: requestId,
      link_days: 1,
    });
    const cleo = String((old.links as Row[]).find((link) => link.person_id === personIds[1])?.link_path);
    const tampered = `${cleo.slice(0, -1)}${cleo.endsWith('A') ? 'B' : 'A'}`;
    const bad = await web.get(tampered);
    expect(bad.status).toBe(404);
    expect(bad.html).toContain('This link does not work');
    expect(bad.html).not.toContain('Acceptable use policy');
    const fresh = await ok(runtime, aliceToken, 'sendAcknowledgementReminders', {
      request_id: requestId,
      link_days: 1,
    });
    expect(fresh.reminded).toBe(2);
    expect((await web.get(cleo)).status).toBe(404);
    const freshCleo = String(
      (fresh.links as Row[]).find((link) => link.person_id === personIds[1])?.link_path,
    );
    clock = new Date('2026-03-04T10:00:00.000Z');
    const expired = await web.get(freshCleo);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('This link has expired');
    expect(expired.html).not.toContain('Use company devices');
  });

  it('lets an account acknowledge as its person (TOKEN), and refuses one that is no person of the register', async () => {
    // Until then it is in Alice's work, due on the request's day.
    const toAcknowledge = async () =>
      ((await ok(runtime, aliceToken, 'myWork', { organization_id: org })).items as Row[]).filter(
        (item) => item.reason === 'ACKNOWLEDGE',
      );
    expect((await toAcknowledge()).map((item) => [item.kind, item.id, item.due_on])).toEqual([
      ['document', documentId, '2026-03-15'],
    ]);
    expect((await toAcknowledge())[0]?.title).toMatch(/^Acknowledge: .+ v1$/);
    const done = await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: documentId });
    expect(await toAcknowledge()).toEqual([]);
    expect((done.acknowledgements as Row[]).map((row) => [row.person_id, row.method])).toEqual([
      [alicePerson, 'TOKEN'],
    ]);
    const twice = await refused(aliceToken, 'acknowledgeDocument', { document_id: documentId });
    expect(twice.code).toBe('not_found');
    expect((await pending()).map((row) => row.person_name)).toEqual(['Cleo Contractor']);
    // The document's history holds the requests and this acknowledgement; the refused second one left no row.
    const history = await ok(runtime, aliceToken, 'listChanges', {
      organization_id: org,
      filter: { record_id: documentId },
    });
    const rows = (history.changes as Row[]).filter((row) => String(row.tool).includes('cknowledg'));
    // Ben's acknowledgement by link (earlier) is there too, the person as actor: no account acted.
    expect(
      rows
        .filter((row) => row.tool === 'acknowledgeDocument')
        .map((row) => [row.surface, row.user_email, row.person_id, row.after]),
    ).toEqual([
      [
        'direct',
        alice.email,
        null,
        { acknowledged_version: 1, acknowledged_by_id: alicePerson, method: 'TOKEN' },
      ],
      [
        'link',
        null,
        personIds[0],
        { acknowledged_version: 1, acknowledged_by_id: personIds[0], method: 'LINK' },
      ],
    ]);
    const requests = rows.filter((row) => row.tool === 'requestAcknowledgements');
    // The test's clock stands still, so the two requests share a time: their order is not asserted. The first asked
    // three people, the second found everyone asked already.
    const asked = requests.map((row) => row.after as Row);
    expect(asked.map((after) => after.requested).sort()).toEqual([0, 3]);
    expect(asked.find((after) => after.requested === 3)).toMatchObject({ version: 1, audience: 'ALL' });
  });

  it('keeps organizations apart: another organization sees neither the document nor its acknowledgements', async () => {
    expect((await refused(bobToken, 'listAcknowledgements', { organization_id: org })).code).toBe(
      'not_found',
    );
    expect(
      (
        await refused(bobToken, 'requestAcknowledgements', {
          document_id: documentId,
          audience: 'ALL',
        })
      ).code,
    ).toBe('not_found');
    const request = String(
      (
        (await ok(runtime, aliceToken, 'listAcknowledgements', { organization_id: org }))
          .acknowledgements as Row[]
      )[0]?.request_id,
    );
    expect((await refused(bobToken, 'sendAcknowledgementReminders', { request_id: request })).code).toBe(
      'not_found',
    );
  });

  it('asks by kind or by a list, and refuses a person of another organization', async () => {
    const byKind = await ok(runtime, aliceToken, 'requestAcknowledgements', {
      document_id: documentId,
      audience: 'KIND',
      kinds: ['contractor'],
    });
    // Cleo is still pending on version 1: skipped.
    expect([byKind.requested, byKind.skipped]).toEqual([0, 1]);
    const stranger = await refused(aliceToken, 'requestAcknowledgements', {
      document_id: documentId,
      audience: 'PEOPLE',
      person_ids: ['per_0000000000000000000000zz'],
    });
    expect(stranger).toMatchObject({ code: 'invalid_arguments' });
  });
});
