// Work that comes due on a pinned clock, in myWork: vendors' contract renewals and assessments for their owners.
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

let runtime: TestRuntime;
let org: string;
let otherOrg: string;
let token: string;
let aliceToken: string;
let otherToken: string;
let alicePerson: string;
let bobPerson: string;

beforeEach(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => NOW });
  const owner = await createActor(runtime, 'owner');
  const alice = await createActor(runtime, 'alice');
  const stranger = await createActor(runtime, 'stranger');
  org = await createOrg(runtime, owner, 'Due work');
  otherOrg = await createOrg(runtime, stranger, 'Other');
  await addMember(runtime, org, alice, 'EDITOR');
  token = await createToken(runtime, owner);
  aliceToken = await createToken(runtime, alice);
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
