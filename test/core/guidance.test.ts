// Errors that say what to do: an unknown argument names the nearest known one (or why it is refused), an id of another
// kind names that kind and its tool, an account where a person is expected (and the reverse) says which and where to
// find each, a state a tool of its own sets names that tool; and listMembers gives the accounts to assign tasks to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance, nearestName } from '../../src/surfaces/unknown-arguments.ts';
import { article, wrongKindMessage } from '../../src/tools/id-kinds.ts';
import { TOOLS } from '../../src/tools/index.ts';
import {
  addMember,
  callDirect,
  createActor,
  createTestRuntime,
  createWorld,
  ok,
  type TestRuntime,
  type World,
} from '../helpers.ts';

let runtime: TestRuntime;
let world: World;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  world = await createWorld(runtime);
});

afterAll(async () => runtime?.cleanup());

/** Calls a tool that must fail; its error code, message and details. */
async function refused(tool: string, args: Record<string, unknown>, token = world.aliceToken) {
  const result = await callDirect(runtime, token, tool, args);
  expect(result.status, JSON.stringify(result.body)).toBeGreaterThanOrEqual(400);
  return (result.body as { error: { code: string; message: string; details?: unknown } }).error;
}

async function addPerson(fullName: string, email: string): Promise<string> {
  const added = await ok<{ person: { id: string } }>(runtime, world.aliceToken, 'addPerson', {
    organization_id: world.orgA,
    full_name: fullName,
    email,
  });
  return added.person.id;
}

describe('unknown arguments', () => {
  it('names the nearest known argument: owner -> owner_id', async () => {
    const error = await refused('addRisk', {
      organization_id: world.orgA,
      name: 'Laptop theft',
      inherent_likelihood: 2,
      inherent_impact: 3,
      owner: 'per_8zq3m0v5k1t7w2x9c4n6p0ha',
    });
    expect(error.code).toBe('invalid_arguments');
    expect(error.details).toEqual([
      { path: 'owner', message: 'Unknown argument `owner`; did you mean `owner_id`?' },
    ]);
    expect(error.message).toBe(
      'Invalid arguments for addRisk: owner: Unknown argument `owner`; did you mean `owner_id`?',
    );
  });

  it('names the nearest filter inside filter, and a misspelling by edit distance', async () => {
    const error = await refused('listRisks', {
      organization_id: world.orgA,
      filter: { stauts: ['OPEN'], owner: 'per_8zq3m0v5k1t7w2x9c4n6p0ha' },
    });
    expect(error.details).toEqual([
      { path: 'filter.stauts', message: 'Unknown argument `filter.stauts`; did you mean `filter.status`?' },
      { path: 'filter.owner', message: 'Unknown argument `filter.owner`; did you mean `filter.owner_id`?' },
    ]);
  });

  it('lists the known arguments when none is near', async () => {
    const error = await refused('getRisk', { id: 'rsk_8zq3m0v5k1t7w2x9c4n6p0ha', zebra: 1 });
    expect(error.details).toEqual([
      { path: 'zebra', message: 'Unknown argument `zebra`; getRisk takes id, as_of.' },
    ]);
  });

  it('says why a field of the record is no argument: derived, a link list, set on add only', async () => {
    const risk = await ok<{ risk: { id: string } }>(runtime, world.aliceToken, 'addRisk', {
      organization_id: world.orgA,
      name: 'Phishing',
      inherent_likelihood: 3,
      inherent_impact: 4,
    });
    const error = await refused('updateRisk', {
      id: risk.risk.id,
      inherent_score: 20,
      measure_ids: [],
      organization_id: world.orgB,
    });
    expect(error.details).toEqual([
      {
        path: 'inherent_score',
        message:
          '`inherent_score` is not an argument of updateRisk: computed by the service (inherent_likelihood x inherent_impact (derived)).',
      },
      {
        path: 'measure_ids',
        message:
          '`measure_ids` is not an argument of updateRisk: changed with linkRiskMeasure and unlinkRiskMeasure.',
      },
      {
        path: 'organization_id',
        message: '`organization_id` is not an argument of updateRisk: a risk stays in its organization.',
      },
    ]);
  });

  it('finds names by their parts first, then by edit distance within a third of their length', () => {
    const known = ['organization_id', 'owner_id', 'business_owner_id', 'status', 'name'];
    expect(nearestName('owner', known)).toBe('owner_id');
    expect(nearestName('ownerId', known)).toBe('owner_id');
    expect(nearestName('business_owner', known)).toBe('business_owner_id');
    expect(nearestName('statsu', known)).toBe('status');
    expect(nearestName('nmae', known)).toBe('name');
    expect(nearestName('colour', known)).toBeUndefined();
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
  });

  it('has a hint for each add and update tool only about names that are not its arguments', () => {
    for (const tool of TOOLS.values()) {
      const names = Object.keys(tool.input.shape);
      for (const hinted of Object.keys(tool.argumentHints ?? {}))
        expect(names, `${tool.name}.${hinted}`).not.toContain(hinted);
    }
  });
});

describe('ids of another kind', () => {
  it('names the kind given and the tool that reads it: a measure id to getRisk', async () => {
    const measure = await ok<{ measure: { id: string } }>(runtime, world.aliceToken, 'addMeasure', {
      organization_id: world.orgA,
      name: 'Enforce MFA',
    });
    const error = await refused('getRisk', { id: measure.measure.id });
    expect(error.code).toBe('invalid_arguments');
    expect(error.details).toEqual([
      {
        path: 'id',
        message: `"${measure.measure.id}" is a measure id, not a risk id (\`rsk_...\`): read it with getMeasure; risks are listed by listRisks.`,
      },
    ]);
  });

  it('says an account is not a person, and where people are listed', async () => {
    const error = await refused('addRisk', {
      organization_id: world.orgA,
      name: 'Laptop theft',
      inherent_likelihood: 2,
      inherent_impact: 3,
      owner_id: world.alice.userId,
    });
    expect(error.details).toEqual([
      {
        path: 'owner_id',
        message: `"${world.alice.userId}" is an account id (the account of a member, who signs in, listed by listMembers), not a person id (\`per_...\`): this argument takes an entry of the people register, who may own records, listed by listPeople.`,
      },
    ]);
  });

  it('says a person is not an account, and where accounts are listed', async () => {
    const person = await addPerson('Ada Lovelace', 'ada-guidance@example.com');
    const error = await refused('addTask', {
      organization_id: world.orgA,
      title: 'Roll out MFA',
      assignee_user_id: person,
    });
    expect(error.details).toEqual([
      {
        path: 'assignee_user_id',
        message: `"${person}" is a person id (an entry of the people register, who may own records, listed by listPeople), not an account id (\`usr_...\`): this argument takes the account of a member, who signs in, listed by listMembers.`,
      },
    ]);
  });

  it('keeps the format message for a malformed id of the right kind, with the right article', async () => {
    const error = await refused('addTask', {
      organization_id: world.orgA,
      title: 'Roll out MFA',
      assignee_user_id: 'usr_short',
    });
    expect((error.details as { message: string }[])[0]?.message).toMatch(
      /^Expected a user id: "usr_" followed by/,
    );
  });

  it('writes "a" or "an" by sound', () => {
    expect(
      ['user', 'audit', 'update', 'unit', 'evidence item', 'risk', 'organization', 'unknown'].map(article),
    ).toEqual(['a', 'an', 'an', 'a', 'an', 'a', 'an', 'an']);
    expect(wrongKindMessage('not an id', ['rsk'])).toBeUndefined();
    expect(wrongKindMessage('rsk_8zq3m0v5k1t7w2x9c4n6p0ha', ['rsk'])).toBeUndefined();
  });
});

describe('states a tool of their own sets', () => {
  it('names approveDocument when updateDocument is asked for APPROVED', async () => {
    const added = await ok<{ document: { id: string } }>(runtime, world.aliceToken, 'addDocument', {
      organization_id: world.orgA,
      title: 'Access control policy',
      status: 'IN_REVIEW',
    });
    const error = await refused('updateDocument', { id: added.document.id, status: 'approved' });
    expect(error.code).toBe('invalid_transition');
    expect(error.message).toBe(
      'Cannot change document status from IN_REVIEW to APPROVED with an update: APPROVED is set by approveDocument. Allowed from IN_REVIEW: DRAFT.',
    );
    expect(error.details).toMatchObject({
      tool: 'approveDocument',
      current: 'IN_REVIEW',
      requested: 'APPROVED',
    });
  });

  it('names only tools of the map', () => {
    for (const tool of TOOLS.values()) {
      for (const hint of Object.values(tool.argumentHints ?? {})) {
        for (const named of hint.match(/\b(?:link|unlink|get|list|add|update)[A-Z]\w+/g) ?? [])
          expect(TOOLS.has(named), `${tool.name}: ${named}`).toBe(true);
      }
    }
    expect(TOOLS.has('approveDocument')).toBe(true);
  });
});

describe('listMembers', () => {
  it("lists an organization's accounts with role and the person of the same email, paged by email", async () => {
    const carol = await createActor(runtime, 'carol');
    await addMember(runtime, world.orgA, carol, 'EDITOR');
    const person = await addPerson('Carol', carol.email);
    const first = await ok<{
      members: {
        user_id: string;
        email: string;
        role: string;
        person_id: string | null;
        name: string | null;
      }[];
      next_cursor: string | null;
      total_count: number;
    }>(runtime, world.aliceToken, 'listMembers', { organization_id: world.orgA, size: 2 });
    expect(first.total_count).toBe(3);
    const second = await ok<typeof first>(runtime, world.aliceToken, 'listMembers', {
      organization_id: world.orgA,
      size: 2,
      cursor: first.next_cursor,
    });
    expect(second.next_cursor).toBeNull();
    const members = [...first.members, ...second.members];
    const emails = [world.alice.email, world.vic.email, carol.email].sort();
    expect(members.map((member) => member.email)).toEqual(emails);
    expect(members.find((member) => member.email === carol.email)).toEqual({
      user_id: carol.userId,
      name: 'carol',
      email: carol.email,
      role: 'EDITOR',
      person_id: person,
    });
    expect(members.find((member) => member.email === world.vic.email)?.person_id).toBeNull();
    // The account it gives is what a task's assignee takes.
    const task = await ok<{ task: { assignee_user_id: string } }>(runtime, world.aliceToken, 'addTask', {
      organization_id: world.orgA,
      title: 'Review access',
      assignee_user_id: carol.userId,
    });
    expect(task.task.assignee_user_id).toBe(carol.userId);
  });

  it('answers not_found for an organization the token does not reach', async () => {
    const error = await refused('listMembers', { organization_id: world.orgB });
    expect(error.code).toBe('not_found');
  });
});
