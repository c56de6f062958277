// Transcript: an access review campaign. Entries loaded from an identity provider's CSV through importRecords (the
// import engine), decided by their reviewers, completion refused while one is open, then completed with its evidence.
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

describe('access review transcript', () => {
  it('loads entries from a CSV, decides them, completes the campaign and files its evidence', async () => {
    const runtime = await createTestRuntime({
      env: { RATE_LIMIT_PER_MINUTE: '0' },
      now: () => new Date('2026-10-05T09:00:00.000Z'),
    });
    runtimes.push(runtime);
    const dana = await createActor(runtime, 'dana');
    const alice = await createActor(runtime, 'alice');
    const bob = await createActor(runtime, 'bob');
    const org = await createOrg(runtime, dana, 'Acme Health');
    await addMember(runtime, org, alice, 'EDITOR');
    await addMember(runtime, org, bob, 'EDITOR');
    const transcript = new Transcript(
      'Access review campaign',
      'Dana (OWNER) runs the Q4 review of production access. The entries come from the identity provider’s export, a CSV loaded through the import engine; Alice and Bob (EDITORs) each decide the entries they review; the campaign completes once every entry is decided and becomes evidence for ISO/IEC 27001 A.5.18.',
    );
    const asDana = transcribedCalls(transcript, runtime, await createToken(runtime, dana));
    const asAlice = transcribedCalls(transcript, runtime, await createToken(runtime, alice));
    const asBob = transcribedCalls(transcript, runtime, await createToken(runtime, bob));
    const person = async (full_name: string, email: string) =>
      (
        (await asDana.ok('Add a person', 'addPerson', { organization_id: org, full_name, email }))
          .person as Row
      ).id as string;
    const alicePerson = await person('Alice Reviewer', alice.email);
    const bobPerson = await person('Bob Reviewer', bob.email);
    const framework = (
      await asDana.ok('Add the framework', 'addFramework', {
        organization_id: org,
        name: 'ISO/IEC 27001',
        version: '2022',
      })
    ).framework as Row;
    const requirement = (
      await asDana.ok('Add the requirement the review evidences', 'addRequirement', {
        organization_id: org,
        framework_id: framework.id,
        reference: 'A.5.18',
        title: 'Access rights',
      })
    ).requirement as Row;
    const campaign = (
      await asDana.ok('Open the campaign', 'addAccessReview', {
        organization_id: org,
        name: 'Q4 production access',
        status: 'IN_PROGRESS',
        due_on: '2026-10-31',
        reviewer_ids: [alicePerson, bobPerson],
        requirements: [{ framework: 'ISO/IEC 27001:2022', reference: 'A.5.18' }],
      })
    ).access_review as Row;

    const csv = [
      'Login,Application,Role,Manager,Campaign',
      `ann@corp.example,AWS production,Administrator,${alice.email},Q4 production access`,
      `ben@corp.example,GitHub,Owner,${alice.email},Q4 production access`,
      `cy@corp.example,Stripe,Developer,${bob.email},Q4 production access`,
    ].join('\n');
    const columns = {
      Login: 'account',
      Application: 'system',
      Role: 'access_level',
      Manager: 'reviewer_id',
      Campaign: 'access_review_id',
    };
    const dry = await asDana.ok<{ counts: Row; errors: Row[] }>(
      'Check the identity provider’s export (dry run)',
      'importRecords',
      { organization_id: org, kind: 'access_review_entries', csv, columns, dry_run: true },
      'The campaign is named by its name and each reviewer by email; nothing is written.',
    );
    expect(dry.counts).toMatchObject({ rows: 3, created: 3, refused: 0 });
    const imported = await asDana.ok<{ counts: Row; written: boolean }>('Import it', 'importRecords', {
      organization_id: org,
      kind: 'access_review_entries',
      csv,
      columns,
    });
    expect(imported.written).toBe(true);
    expect(imported.counts).toMatchObject({ rows: 3, created: 3 });

    const entriesOf = async (title: string, token: typeof asAlice, reviewer: string) =>
      (
        await token.ok<{ access_review_entries: Row[] }>(title, 'listAccessReviewEntries', {
          organization_id: org,
          filter: { access_review_id: campaign.id, reviewer_id: reviewer, decided: false },
          order_by: { field: 'system', direction: 'ASC' },
        })
      ).access_review_entries;
    const alices = await entriesOf('Alice lists the entries she reviews', asAlice, alicePerson);
    expect(alices.map((entry) => [entry.account, entry.system, entry.access_level])).toEqual([
      ['ann@corp.example', 'AWS production', 'Administrator'],
      ['ben@corp.example', 'GitHub', 'Owner'],
    ]);
    const [aws, github] = alices as [Row, Row];
    const kept = await asAlice.ok<{ access_review_entry: Row }>(
      'Alice keeps AWS',
      'updateAccessReviewEntry',
      {
        id: aws.id,
        decision: 'KEEP',
        decision_comment: 'On-call administrator.',
      },
    );
    expect(kept.access_review_entry).toMatchObject({ decision: 'KEEP', decided_by_id: alicePerson });
    const revoked = await asAlice.ok<{ access_review_entry: Row }>(
      'Alice revokes GitHub owner',
      'updateAccessReviewEntry',
      { id: github.id, decision: 'REVOKE', decision_comment: 'Left the platform team.' },
    );
    expect(revoked.access_review_entry).toMatchObject({ decision: 'REVOKE', decided_by_id: alicePerson });
    const notHers = await asAlice.refused(
      'Alice tries to decide Bob’s entry',
      'updateAccessReviewEntry',
      {
        id: ((await entriesOf('Bob lists the entries he reviews', asBob, bobPerson))[0] as Row).id,
        decision: 'KEEP',
      },
      'Only the entry’s reviewer or an OWNER decides it.',
    );
    expect(notHers.status).toBe(403);

    const early = await asDana.refused('Dana tries to complete with one entry open', 'updateAccessReview', {
      id: campaign.id,
      status: 'COMPLETED',
    });
    expect(early.status).toBe(400);
    expect(early.error.message).toContain('1 entry is not decided yet');
    const [stripe] = await entriesOf('Bob’s open entries', asBob, bobPerson);
    await asBob.ok('Bob modifies Stripe', 'updateAccessReviewEntry', {
      id: (stripe as Row).id,
      decision: 'MODIFY',
      decision_comment: 'Read-only is enough.',
    });
    const done = (
      await asDana.ok<{ access_review: Row }>(
        'Dana completes the campaign',
        'updateAccessReview',
        { id: campaign.id, status: 'COMPLETED' },
        'Completion writes an evidence item linked to the requirements the campaign covers.',
      )
    ).access_review;
    expect(done).toMatchObject({ status: 'COMPLETED', entries_total: 3, entries_undecided: 0 });
    const evidence = (
      await asDana.ok<{ evidence: Row }>('The evidence it filed', 'getEvidence', { id: done.evidence_id })
    ).evidence;
    expect(evidence.title).toBe('Access review completed: Q4 production access');
    expect(evidence.record_ids).toEqual([requirement.id]);
    transcript.write('test-results/transcripts/access-review.md');
  });
});
