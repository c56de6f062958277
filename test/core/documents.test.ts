// Documents: versions, transitions, approval by a listed approver only, the version in force on a date, isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDemoRecords } from '../../src/demo/seed.ts';
import { contextOutsideSeam } from '../../src/tools/types.ts';
import {
  type Actor,
  addMember,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-01-10T09:00:00.000Z');
let alice: Actor;
let org: string;
let otherOrg: string;
let aliceToken: string;
let carolToken: string;
let bobToken: string;
let aliceApprover: string;
let carolPerson: string;

const at = (iso: string) => {
  clock = new Date(iso);
};

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  alice = await createActor(runtime, 'alice');
  const carol = await createActor(runtime, 'carol');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'Documents Org');
  otherOrg = await createOrg(runtime, bob, 'Other Org');
  await addMember(runtime, org, carol, 'EDITOR');
  aliceToken = await createToken(runtime, alice);
  carolToken = await createToken(runtime, carol);
  bobToken = await createToken(runtime, bob);
  const person = async (full_name: string, email: string) =>
    String(
      ((await ok(runtime, aliceToken, 'addPerson', { organization_id: org, full_name, email })).person as Row)
        .id,
    );
  // Alice's account email in upper case: the approver is matched without regard to case.
  aliceApprover = await person('Alice Approver', alice.email.toUpperCase());
  carolPerson = await person('Carol Editor', carol.email);
});

afterAll(async () => {
  await runtime?.cleanup();
});

async function addDocument(values: Row = {}): Promise<Row> {
  const result = await ok(runtime, aliceToken, 'addDocument', {
    organization_id: org,
    title: 'Access control policy',
    content: '# Access\n\nVersion one.',
    approver_ids: [aliceApprover],
    ...values,
  });
  return result.document as Row;
}

const update = async (id: string, values: Row, token = aliceToken) =>
  (await ok(runtime, token, 'updateDocument', { id, ...values })).document as Row;
const approve = async (id: string, token = aliceToken) => ok(runtime, token, 'approveDocument', { id });
const versions = async (id: string) =>
  (await ok(runtime, aliceToken, 'listDocumentVersions', { document_id: id, include_content: true }))
    .versions as Row[];
const inForce = async (id: string, on: string) =>
  (await ok(runtime, aliceToken, 'getDocumentInForce', { document_id: id, on })).version as Row | null;

describe('a document through its states', () => {
  it('starts as DRAFT version 1 with one version row', async () => {
    at('2026-01-10T09:00:00.000Z');
    const document = await addDocument();
    expect(document).toMatchObject({
      status: 'DRAFT',
      version: 1,
      published_version: null,
      type: 'POLICY',
      approver_ids: [aliceApprover],
    });
    const [only] = await versions(String(document.id));
    expect(only).toMatchObject({ number: 1, status: 'DRAFT', content: '# Access\n\nVersion one.' });
    expect(String(only?.id)).toMatch(/^dcv_/);
  });

  it('goes draft -> review -> approved -> published, then a content change starts version 2 and version 1 stays in force until 2 is published', async () => {
    at('2026-02-01T10:00:00.000Z');
    const document = await addDocument({ title: 'Backup policy' });
    const id = String(document.id);
    expect((await update(id, { status: 'in review' })).status).toBe('IN_REVIEW');
    at('2026-02-02T10:00:00.000Z');
    const approved = await approve(id);
    expect((approved.document as Row).status).toBe('APPROVED');
    expect(approved.version).toMatchObject({
      number: 1,
      status: 'APPROVED',
      approved_by_id: aliceApprover,
      approved_at: '2026-02-02T10:00:00.000Z',
    });
    at('2026-02-03T10:00:00.000Z');
    expect(await update(id, { status: 'PUBLISHED' })).toMatchObject({
      status: 'PUBLISHED',
      published_version: 1,
    });

    // Editing the published document: a new DRAFT version 2; version 1 is still the one in force.
    at('2026-03-01T10:00:00.000Z');
    const edited = await update(id, { content: '# Backups\n\nVersion two.' });
    expect(edited).toMatchObject({ status: 'DRAFT', version: 2, published_version: 1 });
    await update(id, { status: 'IN_REVIEW' });
    await approve(id);
    at('2026-03-05T10:00:00.000Z');
    expect(await update(id, { status: 'PUBLISHED' })).toMatchObject({ version: 2, published_version: 2 });

    const list = await versions(id);
    expect(list.map((row) => [row.number, row.status, row.published_at, row.superseded_at])).toEqual([
      [2, 'PUBLISHED', '2026-03-05T10:00:00.000Z', null],
      [1, 'SUPERSEDED', '2026-02-03T10:00:00.000Z', '2026-03-05T10:00:00.000Z'],
    ]);
    expect(list[1]?.content).toBe('# Access\n\nVersion one.');

    // In force on a date: before, between and after the publications.
    expect(await inForce(id, '2026-02-02')).toBeNull();
    expect((await inForce(id, '2026-02-03'))?.number).toBe(1);
    expect((await inForce(id, '2026-03-04'))?.number).toBe(1);
    expect(await inForce(id, '2026-03-05')).toMatchObject({
      number: 2,
      content: '# Backups\n\nVersion two.',
    });
    expect((await inForce(id, '2027-01-01'))?.number).toBe(2);

    // Retired: nothing in force from that day.
    at('2026-04-01T10:00:00.000Z');
    expect(await update(id, { status: 'RETIRED' })).toMatchObject({
      status: 'RETIRED',
      published_version: null,
    });
    expect((await inForce(id, '2026-03-31'))?.number).toBe(2);
    expect(await inForce(id, '2026-04-01')).toBeNull();
    const retired = await callDirect(runtime, aliceToken, 'updateDocument', { id, content: 'revived?' });
    expect(errorOf(retired).code).toBe('invalid_transition');

    // Every write has its history row, the approvals with who approved which version.
    const changes = (
      await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { record_id: id } })
    ).changes as Row[];
    expect(changes.map((change) => change.tool).reverse()).toEqual([
      'addDocument',
      'updateDocument',
      'approveDocument',
      'updateDocument',
      'updateDocument',
      'updateDocument',
      'approveDocument',
      'updateDocument',
      'updateDocument',
    ]);
    const approvals = changes.filter((change) => change.tool === 'approveDocument');
    expect(approvals.map((change) => change.after)).toEqual([
      { status: 'APPROVED', approved_by_id: aliceApprover, approved_version: 2 },
      { status: 'APPROVED', approved_by_id: aliceApprover, approved_version: 1 },
    ]);
  });

  it('editing an approved, unpublished version supersedes it with a new draft', async () => {
    const id = String((await addDocument({ status: 'IN_REVIEW' })).id);
    await approve(id);
    expect(await update(id, { content: 'Changed after approval.' })).toMatchObject({
      status: 'DRAFT',
      version: 2,
    });
    expect((await versions(id)).map((row) => [row.number, row.status])).toEqual([
      [2, 'DRAFT'],
      [1, 'SUPERSEDED'],
    ]);
  });

  it('edits a draft or a version in review in place', async () => {
    const id = String((await addDocument()).id);
    expect(await update(id, { content: 'Draft text, edited.' })).toMatchObject({
      version: 1,
      status: 'DRAFT',
    });
    expect((await versions(id)).map((row) => [row.number, row.content])).toEqual([
      [1, 'Draft text, edited.'],
    ]);
  });
});

describe('refusals', () => {
  it('refuses moves outside DRAFT -> IN_REVIEW -> APPROVED -> PUBLISHED -> RETIRED (invalid_transition), and changes nothing', async () => {
    const id = String((await addDocument()).id);
    for (const status of ['APPROVED', 'PUBLISHED', 'RETIRED']) {
      const refused = await callDirect(runtime, aliceToken, 'updateDocument', {
        id,
        status,
        title: 'Renamed',
      });
      expect(errorOf(refused)).toMatchObject({
        code: 'invalid_transition',
        details: { current: 'DRAFT', requested: status },
      });
    }
    await update(id, { status: 'IN_REVIEW' });
    // Approval only through approveDocument.
    const skip = await callDirect(runtime, aliceToken, 'updateDocument', { id, status: 'APPROVED' });
    expect(errorOf(skip)).toMatchObject({ code: 'invalid_transition', details: { allowed: ['DRAFT'] } });
    expect(await update(id, { status: 'DRAFT' })).toMatchObject({
      status: 'DRAFT',
      title: 'Access control policy',
    });
    const notInReview = await callDirect(runtime, aliceToken, 'approveDocument', { id });
    expect(errorOf(notInReview).code).toBe('invalid_transition');
    const publishedAtOnce = await callDirect(runtime, aliceToken, 'addDocument', {
      organization_id: org,
      title: 'Straight to published',
      status: 'PUBLISHED',
    });
    expect(errorOf(publishedAtOnce).code).toBe('invalid_transition');
  });

  it('refuses approval by someone who is not a listed approver (forbidden), even a writer of the organization', async () => {
    const id = String((await addDocument({ status: 'IN_REVIEW' })).id);
    const refused = await callDirect(runtime, carolToken, 'approveDocument', { id });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('forbidden');
    expect(((await ok(runtime, aliceToken, 'getDocument', { id })).document as Row).status).toBe('IN_REVIEW');
    // Listed, Carol approves.
    await update(id, { approver_ids: [aliceApprover, carolPerson] });
    const approved = await ok(runtime, carolToken, 'approveDocument', { id, version: 1 });
    expect(approved.version).toMatchObject({ status: 'APPROVED', approved_by_id: carolPerson });
  });

  it('refuses an approval of a version other than the latest (conflict)', async () => {
    const id = String((await addDocument({ status: 'IN_REVIEW' })).id);
    const stale = await callDirect(runtime, aliceToken, 'approveDocument', { id, version: 2 });
    expect(errorOf(stale).code).toBe('conflict');
  });

  it('answers another organization exactly as a missing document, and lists its review due', async () => {
    const id = String((await addDocument({ next_review_on: '2026-01-20' })).id);
    for (const [tool, args] of [
      ['getDocument', { id }],
      ['approveDocument', { id }],
      ['listDocumentVersions', { document_id: id }],
      ['getDocumentInForce', { document_id: id, on: '2026-01-01' }],
    ] as const) {
      const foreign = await callDirect(runtime, bobToken, tool, args);
      expect(foreign.status, tool).toBe(404);
      expect(errorOf(foreign).code).toBe('not_found');
    }
    const due = (
      await ok(runtime, aliceToken, 'listDocuments', { organization_id: org, filter: { review_due: true } })
    ).documents as Row[];
    expect(due.map((row) => row.id)).toEqual([id]);
    const bobs = (await ok(runtime, bobToken, 'listDocuments', { organization_id: otherOrg }))
      .documents as Row[];
    expect(bobs).toEqual([]);
  });

  it('carries a review cycle: listed when due, counted in the summary, markReviewed moves it on, retiring ends it', async () => {
    at('2026-01-10T09:00:00.000Z');
    const overdue = async () =>
      (
        (await ok(runtime, aliceToken, 'getComplianceSummary', { organization_id: org }))
          .reviews_overdue as Row
      ).documents;
    const before = Number(await overdue());
    const added = await addDocument({
      title: 'Backup policy',
      owner_id: aliceApprover,
      // Its owner does not approve it (setting allow_document_self_approval is off): Carol does.
      approver_ids: [carolPerson],
      review_interval_days: 90,
      last_reviewed_on: '2025-09-01',
    });
    const id = String(added.id);
    expect(added).toMatchObject({ next_review_on: '2025-11-30', review_overdue: true });
    const due = (
      await ok(runtime, aliceToken, 'listDocuments', {
        organization_id: org,
        filter: { review_due_before: '2026-01-10' },
      })
    ).documents as Row[];
    expect(due.map((row) => row.id)).toContain(id);
    expect(await overdue()).toBe(before + 1);
    // Its owner (Alice's email) sees the review in myWork.
    const work = (await ok(runtime, aliceToken, 'myWork', { organization_id: org, size: 100 }))
      .items as Row[];
    expect(work.find((item) => item.id === id)).toMatchObject({
      kind: 'document',
      reason: 'REVIEW',
      due_on: '2025-11-30',
      overdue: true,
    });

    const reviewed = await ok(runtime, aliceToken, 'markReviewed', { id, note: 'Still accurate.' });
    expect(reviewed).toMatchObject({
      id,
      kind: 'document',
      last_reviewed_on: '2026-01-10',
      last_review_note: 'Still accurate.',
      next_review_on: '2026-04-10',
    });
    expect((await ok(runtime, aliceToken, 'getDocument', { id })).document).toMatchObject({
      next_review_on: '2026-04-10',
      review_overdue: false,
    });
    expect(await overdue()).toBe(before);

    await update(id, { status: 'IN_REVIEW' });
    await approve(id, carolToken);
    await update(id, { status: 'PUBLISHED' });
    expect(await update(id, { status: 'RETIRED' })).toMatchObject({
      review_interval_days: null,
      last_reviewed_on: '2026-01-10',
      next_review_on: null,
      review_overdue: false,
    });
  });

  it('deletes a document with its versions', async () => {
    const id = String((await addDocument()).id);
    await ok(runtime, aliceToken, 'deleteDocument', { id });
    const rows = await runtime.database.client.execute({
      sql: 'select count(*) as n from document_versions where document_id = ?',
      args: [id],
    });
    expect(Number(rows.rows[0]?.n)).toBe(0);
  });
});

describe('demo data', () => {
  it('seeds two policies: access control published twice (version 2 in force), backups in review', async () => {
    const demoOrg = await createOrg(runtime, alice, 'Demo Org');
    at('2026-06-01T12:00:00.000Z');
    const ctx = contextOutsideSeam(
      runtime.database.db,
      {
        tokenId: 'test',
        userId: alice.userId,
        scope: 'read_write',
        roles: { [demoOrg]: 'OWNER' },
        expiresAt: null,
      },
      () => clock,
      'cli',
    );
    const ids = await addDemoRecords(ctx, demoOrg);
    const access = String(ids.get('access-policy'));
    const backups = String(ids.get('backup-policy'));
    const token = await createToken(runtime, alice, { organizationIds: [demoOrg] });
    const get = async (id: string) => (await ok(runtime, token, 'getDocument', { id })).document as Row;
    expect(await get(access)).toMatchObject({ status: 'PUBLISHED', version: 2, published_version: 2 });
    expect(await get(backups)).toMatchObject({ status: 'IN_REVIEW', version: 1, published_version: null });
    const list = (await ok(runtime, token, 'listDocumentVersions', { document_id: access }))
      .versions as Row[];
    expect(list.map((row) => [row.number, row.status, row.published_at])).toEqual([
      [2, 'PUBLISHED', '2026-04-28T12:00:00.000Z'],
      [1, 'SUPERSEDED', '2025-05-03T12:00:00.000Z'],
    ]);
    const inForceThen = (
      await ok(runtime, token, 'getDocumentInForce', { document_id: access, on: '2026-01-01' })
    ).version as Row;
    expect(inForceThen.number).toBe(1);
  });
});
