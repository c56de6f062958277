// Access reviews through the tools: who may decide an entry, a reviewer's open entries, completion refused while
// entries are undecided, and the evidence a completed campaign becomes for the requirements it covers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
let ownerToken: string;
let aliceToken: string;
let bobToken: string;
let org: string;
let alice: Row;
let bob: Row;
let requirement: Row;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const dana = await createActor(runtime, 'dana');
  org = await createOrg(runtime, dana, 'Access Review Org');
  ownerToken = await createToken(runtime, dana);
  const aliceActor = await createActor(runtime, 'alice');
  const bobActor = await createActor(runtime, 'bob');
  await addMember(runtime, org, aliceActor, 'EDITOR');
  await addMember(runtime, org, bobActor, 'EDITOR');
  aliceToken = await createToken(runtime, aliceActor);
  bobToken = await createToken(runtime, bobActor);
  const person = async (full_name: string, email: string) =>
    (await ok(runtime, ownerToken, 'addPerson', { organization_id: org, full_name, email })).person as Row;
  alice = await person('Alice', aliceActor.email);
  bob = await person('Bob', bobActor.email);
  const framework = (
    await ok(runtime, ownerToken, 'addFramework', {
      organization_id: org,
      name: 'ISO/IEC 27001',
      version: '2022',
    })
  ).framework as Row;
  requirement = (
    await ok(runtime, ownerToken, 'addRequirement', {
      organization_id: org,
      framework_id: framework.id,
      reference: 'A.5.18',
      title: 'Access rights',
    })
  ).requirement as Row;
});

afterAll(async () => runtime.cleanup());

const call = (token: string, tool: string, args: Row) => callDirect(runtime, token, tool, args);

async function campaignWithEntries(count: number): Promise<{ campaign: Row; entries: Row[] }> {
  const campaign = (
    await ok(runtime, ownerToken, 'addAccessReview', {
      organization_id: org,
      name: `Review ${count}`,
      status: 'IN_PROGRESS',
      due_on: '2026-12-15',
      reviewer_ids: [alice.id, bob.id],
      requirements: [{ framework: 'ISO/IEC 27001:2022', reference: 'A.5.18' }],
    })
  ).access_review as Row;
  const entries: Row[] = [];
  for (let i = 0; i < count; i++) {
    const entry = await ok(runtime, ownerToken, 'addAccessReviewEntry', {
      organization_id: org,
      access_review_id: campaign.id,
      account: `user${i}@corp.example`,
      system: 'AWS production',
      access_level: 'admin',
      reviewer_id: i % 2 === 0 ? alice.id : bob.id,
    });
    entries.push(entry.access_review_entry as Row);
  }
  return { campaign, entries };
}

describe('access reviews', () => {
  it('takes requirements by framework and reference', async () => {
    const { campaign } = await campaignWithEntries(0);
    expect(campaign.requirement_ids).toEqual([requirement.id]);
    expect(campaign.entries_total).toBe(0);
  });

  it("lets an entry's reviewer and an owner decide it, and refuses anyone else", async () => {
    const { entries } = await campaignWithEntries(2);
    const [aliceEntry, bobEntry] = entries as [Row, Row];
    const refused = await call(bobToken, 'updateAccessReviewEntry', {
      id: aliceEntry.id,
      decision: 'KEEP',
      decision_comment: 'Not mine',
    });
    expect(errorOf(refused).code).toBe('forbidden');
    const decided = (
      await ok(runtime, aliceToken, 'updateAccessReviewEntry', {
        id: aliceEntry.id,
        decision: 'revoke',
        decision_comment: 'Left the team',
      })
    ).access_review_entry as Row;
    expect(decided.decision).toBe('REVOKE');
    expect(decided.decided_by_id).toBe(alice.id);
    expect(typeof decided.decided_at).toBe('string');
    const byOwner = (
      await ok(runtime, ownerToken, 'updateAccessReviewEntry', { id: bobEntry.id, decision: 'ESCALATE' })
    ).access_review_entry as Row;
    expect(byOwner.decision).toBe('ESCALATE');
    expect(byOwner.decided_by_id).toBeNull();
  });

  it("lists a reviewer's open entries", async () => {
    const { campaign, entries } = await campaignWithEntries(4);
    await ok(runtime, aliceToken, 'updateAccessReviewEntry', {
      id: (entries[0] as Row).id,
      decision: 'KEEP',
    });
    const open = await ok(runtime, aliceToken, 'listAccessReviewEntries', {
      organization_id: org,
      filter: { access_review_id: campaign.id, reviewer_id: alice.id, decided: false },
    });
    expect((open.access_review_entries as Row[]).map((entry) => entry.id)).toEqual([(entries[2] as Row).id]);
  });

  it('refuses completion while entries are undecided, naming how many, then writes the evidence', async () => {
    const { campaign, entries } = await campaignWithEntries(3);
    await ok(runtime, aliceToken, 'updateAccessReviewEntry', {
      id: (entries[0] as Row).id,
      decision: 'KEEP',
    });
    const early = await call(ownerToken, 'updateAccessReview', { id: campaign.id, status: 'COMPLETED' });
    expect(errorOf(early).code).toBe('invalid_arguments');
    expect(errorOf(early).message).toContain('2 entries are not decided yet.');
    const progress = (await ok(runtime, ownerToken, 'getAccessReview', { id: campaign.id }))
      .access_review as Row;
    expect([progress.entries_total, progress.entries_undecided]).toEqual([3, 2]);
    await ok(runtime, bobToken, 'updateAccessReviewEntry', {
      id: (entries[1] as Row).id,
      decision: 'MODIFY',
    });
    await ok(runtime, aliceToken, 'updateAccessReviewEntry', {
      id: (entries[2] as Row).id,
      decision: 'KEEP',
    });
    const done = (
      await ok(runtime, ownerToken, 'updateAccessReview', { id: campaign.id, status: 'COMPLETED' })
    ).access_review as Row;
    expect(done.status).toBe('COMPLETED');
    expect(done.entries_undecided).toBe(0);
    expect(done.entries_total).toBe(3);
    expect(typeof done.evidence_id).toBe('string');
    const evidence = await ok(runtime, ownerToken, 'listEvidence', {
      organization_id: org,
      filter: { record_id: requirement.id },
    });
    expect((evidence.evidence as Row[]).map((item) => item.id)).toEqual([done.evidence_id]);
    const item = (await ok(runtime, ownerToken, 'getEvidence', { id: done.evidence_id })).evidence as Row;
    expect(item.title).toBe('Access review completed: Review 3');
    expect(item.record_ids).toEqual([requirement.id]);
    const history = await ok(runtime, ownerToken, 'listChanges', {
      organization_id: org,
      filter: { record_id: done.evidence_id },
    });
    expect((history.changes as Row[]).map((change) => change.action)).toEqual(['add']);
    const late = await call(aliceToken, 'updateAccessReviewEntry', {
      id: (entries[0] as Row).id,
      decision: 'REVOKE',
    });
    expect(errorOf(late).message).toContain('COMPLETED');
  });

  it("loads entries from an identity provider's export through importRecords, with a column mapping", async () => {
    const { campaign } = await campaignWithEntries(0);
    const csv = [
      'Login,Email,Application,Role,Manager,Campaign',
      `ann@corp.example,${String(alice.email)},Okta,Super admin,${String(bob.email)},${String(campaign.id)}`,
      `ben@corp.example,,GitHub,Owner,${String(alice.email)},${String(campaign.id)}`,
    ].join('\n');
    const report = await ok(runtime, ownerToken, 'importRecords', {
      organization_id: org,
      kind: 'access_review_entries',
      csv,
      columns: {
        Login: 'account',
        Email: 'person_id',
        Application: 'system',
        Role: 'access_level',
        Manager: 'reviewer_id',
        Campaign: 'access_review_id',
      },
    });
    expect((report.counts as Row).created).toBe(2);
    const listed = await ok(runtime, ownerToken, 'listAccessReviewEntries', {
      organization_id: org,
      filter: { access_review_id: campaign.id },
      order_by: { field: 'system', direction: 'ASC' },
    });
    expect(
      (listed.access_review_entries as Row[]).map((entry) => [
        entry.account,
        entry.person_id,
        entry.system,
        entry.access_level,
        entry.reviewer_id,
      ]),
    ).toEqual([
      ['ben@corp.example', null, 'GitHub', 'Owner', alice.id],
      ['ann@corp.example', alice.id, 'Okta', 'Super admin', bob.id],
    ]);
  });

  it('refuses an import that carries decisions, writing nothing', async () => {
    const { campaign } = await campaignWithEntries(0);
    const refused = await call(ownerToken, 'importRecords', {
      organization_id: org,
      kind: 'access_review_entries',
      csv: `account,system,access_review_id,decision\nx@corp.example,Okta,${String(campaign.id)},KEEP\n`,
    });
    expect(errorOf(refused).code).toBe('invalid_arguments');
    const listed = await ok(runtime, ownerToken, 'listAccessReviewEntries', {
      organization_id: org,
      filter: { access_review_id: campaign.id },
    });
    expect(listed.access_review_entries).toEqual([]);
  });

  it("shows a reviewer's campaign with its progress in myWork until its entries are decided", async () => {
    const { campaign, entries } = await campaignWithEntries(2);
    await ok(runtime, bobToken, 'updateAccessReviewEntry', { id: (entries[1] as Row).id, decision: 'KEEP' });
    const work = await ok(runtime, aliceToken, 'myWork', { within_days: 365 });
    const item = (work.items as Row[]).find((row) => row.id === campaign.id);
    expect(item).toMatchObject({
      kind: 'access_review',
      reason: 'ASSIGNED',
      title: 'Access review: Review 2 (1/2 decided)',
      due_on: '2026-12-15',
    });
    await ok(runtime, aliceToken, 'updateAccessReviewEntry', {
      id: (entries[0] as Row).id,
      decision: 'KEEP',
    });
    const after = await ok(runtime, aliceToken, 'myWork', { within_days: 365 });
    expect((after.items as Row[]).some((row) => row.id === campaign.id)).toBe(false);
  });
});
