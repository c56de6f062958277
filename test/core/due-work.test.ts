// Work that comes due on a pinned clock: vendors' contract renewals and assessments for their owners in myWork, and the
// acknowledgement cycles (a published version asks again under reacknowledge_on; a year-old acknowledgement is due).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addMember,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Row = Record<string, unknown>;

const NOW = new Date('2026-06-10T08:00:00.000Z');
let clock = NOW;

let runtime: TestRuntime;
let org: string;
let otherOrg: string;
let token: string;
let aliceToken: string;
let otherToken: string;
let alicePerson: string;
let bobPerson: string;

beforeEach(async () => {
  clock = NOW;
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const owner = await createActor(runtime, 'owner');
  const alice = await createActor(runtime, 'alice');
  const stranger = await createActor(runtime, 'stranger');
  org = await createOrg(runtime, owner, 'Due work');
  otherOrg = await createOrg(runtime, stranger, 'Other');
  await addMember(runtime, org, alice, 'EDITOR');
  // Tokens that outlive the clock's jumps of a year.
  token = await createToken(runtime, owner, { expiresAt: null });
  aliceToken = await createToken(runtime, alice, { expiresAt: null });
  otherToken = await createToken(runtime, stranger);
  const person = async (full_name: string, email: string) =>
    String(
      ((await ok(runtime, token, 'addPerson', { organization_id: org, full_name, email })).person as Row).id,
    );
  alicePerson = await person('Alice', alice.email);
  bobPerson = await person('Bob', 'bob@corp.example');
});

afterEach(async () => {
  await runtime.cleanup();
});

const add = async (tool: string, key: string, args: Row, as = token) =>
  (await ok<Record<string, Row>>(runtime, as, tool, args))[key] as Row;

/** Alice's myWork items of a kind, as `reason title due_on overdue`, sorted. */
async function workOf(kind: string, input: Row = {}): Promise<string[]> {
  const work = await ok(runtime, aliceToken, 'myWork', { size: 100, ...input });
  return (work.items as Row[])
    .filter((item) => item.kind === kind)
    .map((item) => `${item.reason} ${item.title} ${item.due_on} ${item.overdue}`)
    .sort();
}

describe('vendors in myWork', () => {
  it("lists the renewals and assessments due of the vendors the caller owns, never those leaving or someone else's", async () => {
    const base = { organization_id: org, category: 'OTHER' };
    const renewing = await add('addVendor', 'vendor', {
      ...base,
      name: 'Renews soon',
      business_owner_id: alicePerson,
      renewal_on: '2026-06-20',
    });
    await add('addVendorAssessment', 'vendor_assessment', {
      organization_id: org,
      vendor_id: renewing.id,
      assessor_id: bobPerson,
      assessed_on: '2025-06-01',
      result: 'APPROVED',
      tier: 'MEDIUM',
      expires_on: '2027-06-01',
    });
    const lapsed = await add('addVendor', 'vendor', {
      ...base,
      name: 'Assessment lapsed',
      security_owner_id: alicePerson,
      renewal_on: '2027-01-01',
    });
    await add('addVendorAssessment', 'vendor_assessment', {
      organization_id: org,
      vendor_id: lapsed.id,
      assessor_id: bobPerson,
      assessed_on: '2025-01-15',
      result: 'APPROVED',
      tier: 'LOW',
      expires_on: '2026-06-01',
    });
    // Never assessed: due since it was added (today), for its owner.
    await add('addVendor', 'vendor', { ...base, name: 'Never assessed', business_owner_id: alicePerson });
    // Leaving, someone else's, or another organization's: not Alice's work.
    await add('addVendor', 'vendor', {
      ...base,
      name: 'Offboarding',
      business_owner_id: alicePerson,
      status: 'OFFBOARDING',
      renewal_on: '2026-06-15',
    });
    await add('addVendor', 'vendor', {
      ...base,
      name: "Bob's",
      business_owner_id: bobPerson,
      renewal_on: '2026-06-15',
    });
    await add(
      'addVendor',
      'vendor',
      { organization_id: otherOrg, name: 'Theirs', category: 'OTHER' },
      otherToken,
    );

    expect(await workOf('vendor')).toEqual([
      'ASSESSMENT Vendor assessment due: Assessment lapsed 2026-06-01 true',
      'ASSESSMENT Vendor assessment due: Never assessed 2026-06-10 false',
      'RENEWAL Contract renewal: Renews soon 2026-06-20 false',
    ]);
    // A narrower window leaves out the renewal in 10 days.
    expect(await workOf('vendor', { within_days: 5 })).toEqual([
      'ASSESSMENT Vendor assessment due: Assessment lapsed 2026-06-01 true',
      'ASSESSMENT Vendor assessment due: Never assessed 2026-06-10 false',
    ]);
    // A new assessment and a renewal moved a year on end them.
    await add('addVendorAssessment', 'vendor_assessment', {
      organization_id: org,
      vendor_id: lapsed.id,
      assessor_id: bobPerson,
      result: 'APPROVED',
      tier: 'LOW',
      expires_on: '2027-06-10',
    });
    await add('updateVendor', 'vendor', { id: renewing.id, renewal_on: '2027-06-20' });
    expect(await workOf('vendor')).toEqual([
      'ASSESSMENT Vendor assessment due: Never assessed 2026-06-10 false',
    ]);
    const foreign = await callDirect(runtime, aliceToken, 'myWork', { organization_id: otherOrg });
    expect(foreign.status).toBe(404);
  });
});

/** A document approved by Alice and published (version 1), with Alice and Bob asked to acknowledge it. */
async function publishedDocument(title: string): Promise<string> {
  const document = await add('addDocument', 'document', {
    organization_id: org,
    title,
    content: 'Version 1.',
    approver_ids: [alicePerson],
  });
  const id = String(document.id);
  await publish(id);
  await ok(runtime, token, 'requestAcknowledgements', {
    document_id: id,
    audience: 'PEOPLE',
    person_ids: [alicePerson, bobPerson],
  });
  return id;
}

/** Reviews, approves (Alice) and publishes the document's latest version. */
async function publish(id: string, extra: Row = {}): Promise<void> {
  await ok(runtime, token, 'updateDocument', { id, status: 'IN_REVIEW' });
  await ok(runtime, aliceToken, 'approveDocument', { id });
  await ok(runtime, token, 'updateDocument', { id, status: 'PUBLISHED', ...extra });
}

/** The document's acknowledgements as `version person status`, sorted. */
async function acknowledgementsOf(documentId: string, filter: Row = {}): Promise<string[]> {
  const listed = await ok(runtime, token, 'listAcknowledgements', {
    organization_id: org,
    filter: { document_id: documentId, ...filter },
    size: 100,
  });
  return (listed.acknowledgements as Row[])
    .map((row) => `v${row.version} ${row.person_name} ${row.status}`)
    .sort();
}

describe('acknowledgement cycles', () => {
  it('asks again on publication only as the organization chose: NEVER by default, EVERY_VERSION, MAJOR_ONLY', async () => {
    const id = await publishedDocument('Acceptable use policy');
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });
    // By default (NEVER) version 2 asks nobody.
    await ok(runtime, token, 'updateDocument', { id, content: 'Version 2.' });
    await publish(id);
    expect(await acknowledgementsOf(id)).toEqual(['v1 Alice ACKNOWLEDGED', 'v1 Bob PENDING']);

    // EVERY_VERSION: only who acknowledged an earlier version (Alice) is asked again, pending, in the publication's
    // write, with a request and a history row.
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      reacknowledge_on: 'EVERY_VERSION',
    });
    await ok(runtime, token, 'updateDocument', { id, content: 'Version 3.' });
    await publish(id);
    expect(await acknowledgementsOf(id)).toEqual([
      'v1 Alice ACKNOWLEDGED',
      'v1 Bob PENDING',
      'v3 Alice PENDING',
    ]);
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: id },
      size: 100,
    });
    const asked = (history.changes as Row[]).find(
      (change) => (change.after as Row | null)?.reacknowledge === true,
    );
    expect(asked?.after).toMatchObject({ version: 3, audience: 'PEOPLE' });
    const work = await ok(runtime, aliceToken, 'myWork', { organization_id: org });
    expect((work.items as Row[]).map((item) => item.title)).toContain(
      'Acknowledge: Acceptable use policy v3',
    );
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });

    // MAJOR_ONLY: a minor version asks nobody; one published with major_change asks again, and the next version starts
    // minor.
    await ok(runtime, token, 'updateOrganizationSettings', {
      organization_id: org,
      reacknowledge_on: 'MAJOR_ONLY',
    });
    await ok(runtime, token, 'updateDocument', { id, content: 'Version 4.' });
    await publish(id);
    expect((await acknowledgementsOf(id)).filter((row) => row.startsWith('v4'))).toEqual([]);
    await ok(runtime, token, 'updateDocument', { id, content: 'Version 5.', major_change: true });
    await publish(id);
    expect((await acknowledgementsOf(id)).filter((row) => row.startsWith('v5'))).toEqual([
      'v5 Alice PENDING',
    ]);
    await ok(runtime, token, 'updateDocument', { id, content: 'Version 6.' });
    const document = await ok(runtime, token, 'getDocument', { id });
    expect(document.document).toMatchObject({ version: 6, major_change: false });
  });

  it('makes an acknowledgement over a year old EXPIRED, due again in myWork, until asked and acknowledged again', async () => {
    const id = await publishedDocument('Code of conduct');
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });
    expect(await acknowledgementsOf(id, { status: 'EXPIRED' })).toEqual([]);
    // 11 months on: due within the 30-day window on 2027-06-10, not yet expired.
    clock = new Date('2027-05-20T08:00:00.000Z');
    expect(await workOf('document')).toEqual([
      'ACKNOWLEDGE Acknowledge again: Code of conduct v1 2027-06-10 false',
    ]);
    expect(await acknowledgementsOf(id)).toEqual(['v1 Alice ACKNOWLEDGED', 'v1 Bob PENDING']);
    // A year and a day on: expired, overdue.
    clock = new Date('2027-06-11T08:00:00.000Z');
    expect(await acknowledgementsOf(id)).toEqual(['v1 Alice EXPIRED', 'v1 Bob PENDING']);
    expect(await acknowledgementsOf(id, { status: 'EXPIRED' })).toEqual(['v1 Alice EXPIRED']);
    expect(await acknowledgementsOf(id, { status: 'ACKNOWLEDGED' })).toEqual([]);
    expect(await workOf('document')).toEqual([
      'ACKNOWLEDGE Acknowledge again: Code of conduct v1 2027-06-10 true',
    ]);
    // Asked again (the request skips Bob, still pending) and acknowledged: the old one is no longer due.
    const asked = await ok(runtime, token, 'requestAcknowledgements', { document_id: id, audience: 'ALL' });
    expect(asked.requested).toBe(1);
    expect(await workOf('document')).toEqual(['ACKNOWLEDGE Acknowledge: Code of conduct v1 null false']);
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });
    expect(await workOf('document')).toEqual([]);
    expect(await acknowledgementsOf(id)).toEqual([
      'v1 Alice ACKNOWLEDGED',
      'v1 Alice ACKNOWLEDGED',
      'v1 Bob PENDING',
    ]);
  });

  it('records a request every person of which acknowledged as evidence for the document’s requirements, once', async () => {
    const framework = await add('addFramework', 'framework', {
      organization_id: org,
      name: 'ISO/IEC 27001',
      version: '2022',
    });
    const requirement = await add('addRequirement', 'requirement', {
      organization_id: org,
      framework_id: framework.id,
      reference: 'A.5.1',
      title: 'Policies for information security',
    });
    const document = await add('addDocument', 'document', {
      organization_id: org,
      title: 'Information security policy',
      content: 'Version 1.',
      approver_ids: [alicePerson],
      requirement_ids: [requirement.id],
    });
    const id = String(document.id);
    await publish(id);
    // Two requests: one of Alice and Bob (Bob never acknowledges), one of Alice alone.
    const both = await ok(runtime, token, 'requestAcknowledgements', {
      document_id: id,
      audience: 'PEOPLE',
      person_ids: [alicePerson, bobPerson],
    });
    const evidenceOf = async () =>
      (
        (
          await ok(runtime, token, 'listEvidence', {
            organization_id: org,
            filter: { record_id: requirement.id },
          })
        ).evidence as Row[]
      ).map((item) => [item.title, item.collected_on, item.valid_until]);
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });
    expect(await evidenceOf()).toEqual([]);
    // Alice acknowledged v1 today: a new request of her alone skips her; one a year later asks her again.
    clock = new Date('2027-06-11T08:00:00.000Z');
    const alone = await ok(runtime, token, 'requestAcknowledgements', {
      document_id: id,
      audience: 'PEOPLE',
      person_ids: [alicePerson],
    });
    expect(alone.requested).toBe(1);
    await ok(runtime, aliceToken, 'acknowledgeDocument', { document_id: id });
    expect(await evidenceOf()).toEqual([
      ['Acknowledgements complete: Information security policy v1', '2027-06-11', '2028-06-10'],
    ]);
    const evidence = (
      (
        await ok(runtime, token, 'listEvidence', {
          organization_id: org,
          filter: { record_id: requirement.id },
        })
      ).evidence as Row[]
    )[0] as Row;
    expect(String(evidence.description)).toContain(
      `acknowledgement request ${String((alone.request as Row).id)} (1) acknowledged version 1 of document ${id}`,
    );
    const history = await ok(runtime, token, 'listChanges', {
      organization_id: org,
      filter: { record_id: evidence.id },
    });
    expect((history.changes as Row[]).map((change) => [change.action, change.tool])).toEqual([
      ['add', 'acknowledgeDocument'],
    ]);
    // The request of Alice and Bob is still waiting for Bob: no evidence for it.
    expect((both.request as Row).id).not.toBe((alone.request as Row).id);
    expect(await evidenceOf()).toHaveLength(1);
  });
});

describe('management reviews in myWork', () => {
  it('lists a PLANNED review the caller chairs when its day is near or passed, not once held', async () => {
    const review = (title: string, held_on: string, extra: Row = {}) =>
      add('addManagementReview', 'management_review', {
        organization_id: org,
        title,
        held_on,
        chair_id: alicePerson,
        ...extra,
      });
    const soon = await review('ISMS review Q2', '2026-06-25');
    await review('ISMS review Q1', '2026-06-01');
    await review('ISMS review Q4', '2026-12-01');
    await review('Chaired by Bob', '2026-06-20', { chair_id: bobPerson });
    expect(await workOf('management_review')).toEqual([
      'CHAIR Chair management review: ISMS review Q1 2026-06-01 true',
      'CHAIR Chair management review: ISMS review Q2 2026-06-25 false',
    ]);
    expect(await workOf('management_review', { within_days: 7 })).toEqual([
      'CHAIR Chair management review: ISMS review Q1 2026-06-01 true',
    ]);
    await add('updateManagementReview', 'management_review', { id: soon.id, status: 'HELD' });
    expect(await workOf('management_review')).toEqual([
      'CHAIR Chair management review: ISMS review Q1 2026-06-01 true',
    ]);
  });

  it('imports reviews from CSV through importRecords, chairs by email, all rows or none', async () => {
    const csv = [
      'Title,Date,Chair,Status,Decisions',
      `ISMS review 2025,2025-12-10,${'bob@corp.example'},HELD,Appoint a CISO`,
      'ISMS review H1 2026,2026-06-30,Alice,PLANNED,',
    ].join('\n');
    const columns = {
      Title: 'title',
      Date: 'held_on',
      Chair: 'chair_id',
      Status: 'status',
      Decisions: 'decisions',
    };
    const report = await ok(runtime, token, 'importRecords', {
      organization_id: org,
      kind: 'management_reviews',
      csv,
      columns,
    });
    expect((report.counts as Row).created).toBe(2);
    const listed = await ok(runtime, token, 'listManagementReviews', {
      organization_id: org,
      order_by: { field: 'held_on', direction: 'ASC' },
    });
    expect(
      (listed.management_reviews as Row[]).map((row) => [
        row.title,
        row.held_on,
        row.chair_id,
        row.status,
        row.decisions,
      ]),
    ).toEqual([
      ['ISMS review 2025', '2025-12-10', bobPerson, 'HELD', 'Appoint a CISO'],
      ['ISMS review H1 2026', '2026-06-30', alicePerson, 'PLANNED', null],
    ]);
    expect(await workOf('management_review')).toEqual([
      'CHAIR Chair management review: ISMS review H1 2026 2026-06-30 false',
    ]);
    // A row with a date that is no date refuses the file: nothing more is written.
    const refused = await callDirect(runtime, token, 'importRecords', {
      organization_id: org,
      kind: 'management_reviews',
      csv: ['Title,Date', 'Good one,2026-09-01', 'Bad one,someday'].join('\n'),
      columns: { Title: 'title', Date: 'held_on' },
    });
    expect(refused.status).toBe(400);
    const after = await ok(runtime, token, 'listManagementReviews', { organization_id: org });
    expect(after.total_count).toBe(2);
  });
});
