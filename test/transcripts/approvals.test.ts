// Transcript: document approvals. A 2-of-3 quorum reached by two approvers, a rejection with its comment sending the
// version back to draft, and the owner's own approval refused.
import { describe, expect, it } from 'vitest';
import {
  addMember,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
} from '../helpers.ts';
import { Transcript, transcribedCalls } from '../transcript.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('approvals transcript', () => {
  it('approves by 2 of 3, rejects with a comment, and refuses self-approval', async () => {
    const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    runtimes.push(runtime);
    const [alice, carol, dave] = await Promise.all(
      ['alice', 'carol', 'dave'].map((name) => createActor(runtime, name)),
    );
    if (!alice || !carol || !dave) throw new Error('Actors not created');
    const org = await createOrg(runtime, alice, 'Acme Health');
    await addMember(runtime, org, carol, 'EDITOR');
    await addMember(runtime, org, dave, 'EDITOR');
    const transcript = new Transcript(
      'Approvals',
      'Alice (OWNER) owns two policies. Carol and Dave (EDITORs) approve. The first policy needs 2 of its 3 approvers (rule QUORUM); the second is rejected with a comment; Alice may not approve her own policy.',
    );
    const asAlice = transcribedCalls(transcript, runtime, await createToken(runtime, alice));
    const asCarol = transcribedCalls(transcript, runtime, await createToken(runtime, carol));
    const asDave = transcribedCalls(transcript, runtime, await createToken(runtime, dave));
    const person = async (email: string, full_name: string) =>
      (
        (await asAlice.ok('Add a person', 'addPerson', { organization_id: org, full_name, email }))
          .person as Row
      ).id as string;
    const alicePerson = await person(alice.email, 'Alice Owner');
    const carolPerson = await person(carol.email, 'Carol Approver');
    const davePerson = await person(dave.email, 'Dave Approver');

    transcript.say('### N of M: two of three approvers');
    const quorum = (
      await asAlice.ok('Alice submits the access control policy: 2 of 3 approvals', 'addDocument', {
        organization_id: org,
        title: 'Access control policy',
        content: '# Access control\n\nLeast privilege, reviewed quarterly.',
        owner_id: alicePerson,
        approver_ids: [alicePerson, carolPerson, davePerson],
        approval_rule: 'QUORUM',
        approvals_required: 2,
        status: 'IN_REVIEW',
      })
    ).document as Row;
    const first = await asCarol.ok<{ approvals: Row; document: Row }>(
      'Carol approves: 1 of 2',
      'approveDocument',
      { id: quorum.id },
      'One approval counted; the version stays in review.',
    );
    expect(first.approvals).toEqual({ given: 1, required: 2 });
    expect(first.document).toMatchObject({ status: 'IN_REVIEW' });
    const twice = await asCarol.refused('Carol approves again: refused', 'approveDocument', {
      id: quorum.id,
    });
    expect(twice.status).toBe(409);
    const second = await asDave.ok<{ approvals: Row; document: Row; version: Row }>(
      'Dave approves: 2 of 2, the version is approved',
      'approveDocument',
      { id: quorum.id },
    );
    expect(second.approvals).toEqual({ given: 2, required: 2 });
    expect(second.document).toMatchObject({ status: 'APPROVED' });
    expect(second.version).toMatchObject({ number: 1, status: 'APPROVED', approved_by_id: davePerson });

    transcript.say('### Rejection with a comment');
    const rejectedDocument = (
      await asAlice.ok('Alice submits the backup policy to Carol and Dave (ANY)', 'addDocument', {
        organization_id: org,
        title: 'Backup policy',
        content: '# Backups\n\nNightly.',
        approver_ids: [carolPerson, davePerson],
        status: 'IN_REVIEW',
      })
    ).document as Row;
    const rejected = await asDave.ok<{ document: Row; version: Row }>(
      'Dave rejects it with a comment',
      'rejectDocument',
      { id: rejectedDocument.id, version: 1, comment: 'Section 2 lacks the retention period.' },
      'The version goes back to DRAFT; the comment is kept in the history.',
    );
    expect(rejected.document).toMatchObject({ status: 'DRAFT', version: 1 });
    const history = await asAlice.ok<{ changes: Row[] }>('The policy’s history', 'listChanges', {
      organization_id: org,
      filter: { record_id: rejectedDocument.id },
    });
    expect(history.changes[0]).toMatchObject({
      tool: 'rejectDocument',
      after: {
        status: 'DRAFT',
        rejected_by_id: davePerson,
        rejected_version: 1,
        comment: 'Section 2 lacks the retention period.',
      },
    });
    const noComment = await asCarol.refused('A rejection without a comment is refused', 'rejectDocument', {
      id: quorum.id,
      comment: ' ',
    });
    expect(noComment.status).toBe(400);

    transcript.say('### No self-approval');
    const own = (
      await asAlice.ok('Alice submits a policy she owns and approves', 'addDocument', {
        organization_id: org,
        title: 'Clean desk policy',
        owner_id: alicePerson,
        approver_ids: [alicePerson, carolPerson],
        status: 'IN_REVIEW',
      })
    ).document as Row;
    const self = await asAlice.refused(
      'Alice tries to approve her own policy',
      'approveDocument',
      { id: own.id },
      'The owner of a document may not approve it unless the setting allow_document_self_approval is on.',
    );
    expect(self.status).toBe(403);
    expect(self.error).toMatchObject({ code: 'forbidden' });
    expect(self.error.message).toContain('allow_document_self_approval');
    const still = await asAlice.ok<{ document: Row }>('The policy is still in review', 'getDocument', {
      id: own.id,
    });
    expect(still.document).toMatchObject({ status: 'IN_REVIEW' });
    transcript.write('test-results/transcripts/approvals.md');
  });
});
