// Approvals that mean something: a document's approval rule (ANY, ALL, QUORUM), rejection with a comment back to
// draft, no approval by the document's owner unless the settings allow it, and decisions kept to the web by a setting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
let org: string;
let aliceToken: string;
let carolToken: string;
let daveToken: string;
let alicePerson: string;
let carolPerson: string;
let davePerson: string;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const alice = await createActor(runtime, 'alice');
  const carol = await createActor(runtime, 'carol');
  const dave = await createActor(runtime, 'dave');
  org = await createOrg(runtime, alice, 'Approvals Org');
  await addMember(runtime, org, carol, 'EDITOR');
  await addMember(runtime, org, dave, 'EDITOR');
  aliceToken = await createToken(runtime, alice);
  carolToken = await createToken(runtime, carol);
  daveToken = await createToken(runtime, dave);
  const person = async (actor: Actor, full_name: string) =>
    String(
      (
        (await ok(runtime, aliceToken, 'addPerson', { organization_id: org, full_name, email: actor.email }))
          .person as Row
      ).id,
    );
  alicePerson = await person(alice, 'Alice Owner');
  carolPerson = await person(carol, 'Carol Approver');
  davePerson = await person(dave, 'Dave Approver');
});

afterAll(async () => {
  await runtime?.cleanup();
});

async function addDocument(values: Row): Promise<string> {
  const added = await ok(runtime, aliceToken, 'addDocument', {
    organization_id: org,
    title: 'Acceptable use policy',
    content: '# Acceptable use\n\nBe reasonable.',
    status: 'IN_REVIEW',
    ...values,
  });
  return String((added.document as Row).id);
}

const settings = (values: Row) =>
  ok(runtime, aliceToken, 'updateOrganizationSettings', { organization_id: org, ...values });

describe('two approvals at the same moment', () => {
  it('with QUORUM 2 of 3, two approvers at once: one counts 1 of 2, the other approves, each counted once', async () => {
    // Several rounds, so the two calls interleave in more than one order.
    for (let round = 0; round < 5; round++) {
      const id = await addDocument({
        approver_ids: [alicePerson, carolPerson, davePerson],
        approval_rule: 'QUORUM',
        approvals_required: 2,
      });
      const answers = await Promise.all([
        callDirect(runtime, carolToken, 'approveDocument', { id }),
        callDirect(runtime, daveToken, 'approveDocument', { id }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const results = answers.map((answer) => answer.body as Row);
      expect(
        results
          .map((result) => result.approvals)
          .sort((a, b) => ((a as Row).given as number) - ((b as Row).given as number)),
      ).toEqual([
        { given: 1, required: 2 },
        { given: 2, required: 2 },
      ]);
      const last = results.find((result) => (result.approvals as Row).given === 2) as Row;
      expect(last.document).toMatchObject({ status: 'APPROVED' });
      const got = (await ok(runtime, aliceToken, 'getDocument', { id })).document as Row;
      expect(got.status).toBe('APPROVED');
      const history = (
        await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { record_id: id } })
      ).changes as Row[];
      const approvals = history.filter((change) => change.tool === 'approveDocument');
      expect(approvals).toHaveLength(2);
      // The approver who completed the quorum is the one the version names.
      const approver = (last.version as Row).approved_by_id;
      expect([carolPerson, davePerson]).toContain(approver);
      expect(
        approvals
          .map((change) => (change.after as Row).approved_by_id ?? (change.after as Row).approval_by_id)
          .sort(),
      ).toEqual([carolPerson, davePerson].sort());
    }
  });

  it('the same approver twice at once: counted once, the other refused, the quorum still open', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await addDocument({
        approver_ids: [alicePerson, carolPerson, davePerson],
        approval_rule: 'QUORUM',
        approvals_required: 2,
      });
      const answers = await Promise.all([
        callDirect(runtime, carolToken, 'approveDocument', { id }),
        callDirect(runtime, carolToken, 'approveDocument', { id }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const accepted = answers.find((answer) => answer.status === 200)?.body as Row;
      expect(accepted.approvals).toEqual({ given: 1, required: 2 });
      const refused = answers.find((answer) => answer.status === 409);
      expect(errorOf(refused as Awaited<ReturnType<typeof callDirect>>).message).toBe(
        'You already approved version 1; it has 1 of the 2 approvals it needs.',
      );
      expect(((await ok(runtime, aliceToken, 'getDocument', { id })).document as Row).status).toBe(
        'IN_REVIEW',
      );
      // Dave's approval then completes it: 2 of 2, not 3.
      const dave = await ok(runtime, daveToken, 'approveDocument', { id });
      expect(dave.approvals).toEqual({ given: 2, required: 2 });
      expect(dave.document).toMatchObject({ status: 'APPROVED' });
    }
  });
});

describe('the approval rule', () => {
  it('needs 2 of 3 approvers with QUORUM 2: the first approval leaves it IN_REVIEW, the second approves it', async () => {
    const id = await addDocument({
      approver_ids: [alicePerson, carolPerson, davePerson],
      approval_rule: 'quorum',
      approvals_required: 2,
    });
    const first = await ok(runtime, carolToken, 'approveDocument', { id });
    expect(first.approvals).toEqual({ given: 1, required: 2 });
    expect(first.document).toMatchObject({
      status: 'IN_REVIEW',
      approval_rule: 'QUORUM',
      approvals_required: 2,
    });
    expect(first.version).toMatchObject({ status: 'IN_REVIEW', approved_by_id: null });

    const again = await callDirect(runtime, carolToken, 'approveDocument', { id });
    expect(again.status).toBe(409);
    expect(errorOf(again).message).toBe(
      'You already approved version 1; it has 1 of the 2 approvals it needs.',
    );

    const second = await ok(runtime, daveToken, 'approveDocument', { id });
    expect(second.approvals).toEqual({ given: 2, required: 2 });
    expect(second.document).toMatchObject({ status: 'APPROVED' });
    expect(second.version).toMatchObject({ status: 'APPROVED', approved_by_id: davePerson });

    const history = (
      await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { record_id: id } })
    ).changes as Row[];
    const approvals = history.filter((change) => change.tool === 'approveDocument');
    expect(approvals.map((change) => change.after)).toEqual([
      { status: 'APPROVED', approved_by_id: davePerson, approved_version: 1 },
      { approvals: 1, approvals_required: 2, approval_by_id: carolPerson, version: 1 },
    ]);
  });

  it('needs every approver with ALL', async () => {
    const id = await addDocument({ approver_ids: [carolPerson, davePerson], approval_rule: 'ALL' });
    expect((await ok(runtime, daveToken, 'approveDocument', { id })).document).toMatchObject({
      status: 'IN_REVIEW',
    });
    const last = await ok(runtime, carolToken, 'approveDocument', { id });
    expect(last.approvals).toEqual({ given: 2, required: 2 });
    expect(last.document).toMatchObject({ status: 'APPROVED' });
  });

  it('refuses QUORUM without a number and a number with another rule, naming the field', async () => {
    const without = await callDirect(runtime, aliceToken, 'addDocument', {
      organization_id: org,
      title: 'No number',
      approval_rule: 'QUORUM',
    });
    expect(without.status).toBe(400);
    expect(errorOf(without).message).toContain('The approval rule QUORUM needs the number of approvals.');
    const stray = await callDirect(runtime, aliceToken, 'addDocument', {
      organization_id: org,
      title: 'Stray number',
      approval_rule: 'ALL',
      approvals_required: 2,
    });
    expect(stray.status).toBe(400);
    expect(errorOf(stray).message).toContain(
      'approvals_required applies to the approval rule QUORUM, not ALL.',
    );
    const listed = (
      await ok(runtime, aliceToken, 'listDocuments', { organization_id: org, filter: { query: 'number' } })
    ).documents as Row[];
    expect(listed).toEqual([]);
  });
});

describe('rejecting', () => {
  it('sends the version back to DRAFT with the comment in the history, and clears the approvals given', async () => {
    const id = await addDocument({
      approver_ids: [carolPerson, davePerson],
      approval_rule: 'QUORUM',
      approvals_required: 2,
    });
    await ok(runtime, carolToken, 'approveDocument', { id });
    const rejected = await ok(runtime, daveToken, 'rejectDocument', {
      id,
      version: 1,
      comment: '  Section 2 lacks the review period.  ',
    });
    expect(rejected.document).toMatchObject({ status: 'DRAFT', version: 1 });
    expect(rejected.version).toMatchObject({ number: 1, status: 'DRAFT', approved_by_id: null });
    const [change] = (
      await ok(runtime, aliceToken, 'listChanges', { organization_id: org, filter: { record_id: id } })
    ).changes as Row[];
    expect(change).toMatchObject({
      tool: 'rejectDocument',
      surface: 'direct',
      before: { status: 'IN_REVIEW' },
      after: {
        status: 'DRAFT',
        rejected_by_id: davePerson,
        rejected_version: 1,
        comment: 'Section 2 lacks the review period.',
      },
    });

    // Resubmitted, the version needs its two approvals again: Carol's earlier one no longer counts.
    await ok(runtime, aliceToken, 'updateDocument', { id, status: 'IN_REVIEW' });
    const again = await ok(runtime, carolToken, 'approveDocument', { id });
    expect(again.approvals).toEqual({ given: 1, required: 2 });
    expect(again.document).toMatchObject({ status: 'IN_REVIEW' });
  });

  it('refuses a rejection without a comment, by a non-approver, or of a draft', async () => {
    const id = await addDocument({ approver_ids: [carolPerson] });
    const empty = await callDirect(runtime, carolToken, 'rejectDocument', { id, comment: '   ' });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).code).toBe('invalid_arguments');
    const outsider = await callDirect(runtime, daveToken, 'rejectDocument', { id, comment: 'No.' });
    expect(outsider.status).toBe(403);
    expect(errorOf(outsider).message).toContain('Only an approver of this document can reject it');
    await ok(runtime, carolToken, 'rejectDocument', { id, comment: 'Rework it.' });
    const draft = await callDirect(runtime, carolToken, 'rejectDocument', { id, comment: 'Again.' });
    expect(draft.status).toBe(409);
    expect(errorOf(draft)).toMatchObject({ code: 'invalid_transition' });
    expect(errorOf(draft).message).toContain('Only a document IN_REVIEW can be rejected; this one is DRAFT.');
  });
});

describe('self-approval', () => {
  it("refuses the owner's own approval, then allows it once allow_document_self_approval is on", async () => {
    const id = await addDocument({ owner_id: alicePerson, approver_ids: [alicePerson, carolPerson] });
    const refused = await callDirect(runtime, aliceToken, 'approveDocument', { id });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'forbidden' });
    expect(errorOf(refused).message).toContain('setting allow_document_self_approval');
    expect(((await ok(runtime, aliceToken, 'getDocument', { id })).document as Row).status).toBe('IN_REVIEW');

    const changed = await settings({ allow_document_self_approval: true });
    expect(changed.settings).toMatchObject({ allow_document_self_approval: true, web_only_decisions: false });
    try {
      const approved = await ok(runtime, aliceToken, 'approveDocument', { id });
      expect(approved.version).toMatchObject({ status: 'APPROVED', approved_by_id: alicePerson });
    } finally {
      await settings({ allow_document_self_approval: false });
    }
  });
});

describe('web-only decisions', () => {
  it('refuses a token approving, accepting a risk or deleting, naming the setting and the web page', async () => {
    const id = await addDocument({ approver_ids: [carolPerson] });
    const risk = String(
      (
        (
          await ok(runtime, aliceToken, 'addRisk', {
            organization_id: org,
            name: 'Laptop theft',
            inherent_likelihood: 1,
            inherent_impact: 2,
          })
        ).risk as Row
      ).id,
    );
    // The last test of the file: the setting stays on (a token cannot lift it, as asserted below).
    await settings({ web_only_decisions: true });
    const approval = await callDirect(runtime, carolToken, 'approveDocument', { id });
    expect(approval.status).toBe(403);
    expect(errorOf(approval)).toMatchObject({ code: 'forbidden' });
    expect(errorOf(approval).message).toContain(
      "The organization's setting web_only_decisions requires a person signed in to the web interface for approving a document",
    );
    expect(errorOf(approval).message).toContain(`/orgs/${org}/documents/${id}`);

    const acceptance = await callDirect(runtime, aliceToken, 'addRiskAcceptance', {
      organization_id: org,
      risk_id: risk,
      approver_id: carolPerson,
      rationale: 'Low impact.',
      accepted_on: '2026-01-01',
      expires_on: '2027-01-01',
    });
    expect(acceptance.status).toBe(403);
    expect(errorOf(acceptance).message).toContain('for accepting a risk');
    expect(errorOf(acceptance).message).toContain(`/orgs/${org}/risk-acceptances/new`);

    const deletion = await callDirect(runtime, aliceToken, 'deleteDocument', { id });
    expect(deletion.status).toBe(403);
    expect(errorOf(deletion).message).toContain('for deleting a document');

    // Nor can a token lift the setting that keeps these decisions to the web.
    const lifted = await callDirect(runtime, aliceToken, 'updateOrganizationSettings', {
      organization_id: org,
      web_only_decisions: false,
    });
    expect(lifted.status).toBe(403);
    expect(errorOf(lifted).message).toContain('web_only_decisions');
    expect((await ok(runtime, aliceToken, 'getDocument', { id })).document).toMatchObject({
      status: 'IN_REVIEW',
    });
    expect((await ok(runtime, aliceToken, 'getRisk', { id: risk })).risk).toMatchObject({ status: 'OPEN' });
  });
});
