// State machines: every pair of states of risks, nonconformities, continual improvements and audits, allowed or refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_STATES,
  AUDIT_TRANSITIONS,
  RISK_STATUSES,
  RISK_TRANSITIONS,
  type Transitions,
  WORKFLOW_STATUSES,
  WORKFLOW_TRANSITIONS,
} from '../../src/tools/states.ts';
import {
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
let token: string;
let org: string;
let frameworkId: string;
/** The person who checks corrective actions (a nonconformity closes with an effectiveness check). */
let checker: string;
/** References are unique in an organization: each record made here gets its own. */
let made = 0;
const unique = (prefix: string) => `${prefix}-${++made}`;
/** What closing a nonconformity asks besides the corrective action. */
const closingCheck = (): Row => ({
  root_cause: 'No owner assigned to the review.',
  effectiveness_checked_on: '2026-01-15',
  effectiveness_checked_by_id: checker,
  effectiveness_result: 'EFFECTIVE',
});

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Transitions Org');
  token = await createToken(runtime, alice, { organizationIds: [org] });
  frameworkId = String(
    ((await ok(runtime, token, 'addFramework', { organization_id: org, name: 'ISO 27001' })).framework as Row)
      .id,
  );
  checker = String(
    (
      (
        await ok(runtime, token, 'addPerson', {
          organization_id: org,
          full_name: 'Checker',
          email: 'checker@example.com',
        })
      ).person as Row
    ).id,
  );
});

afterAll(async () => {
  await runtime?.cleanup();
});

/** The design's rules (DESIGN.md section 3, States), written independently of states.ts. */
const DESIGN = {
  risk: (from: string, to: string) => from !== 'CLOSED' || to === 'OPEN',
  workflow: (from: string, to: string) =>
    (from === 'OPEN' && to === 'IN_PROGRESS') ||
    (from === 'IN_PROGRESS' && to === 'CLOSED') ||
    (from === 'CLOSED' && to === 'OPEN'),
  audit: (from: string, to: string) =>
    (from === 'NOT_STARTED' && to === 'IN_PROGRESS') ||
    (from === 'IN_PROGRESS' && (to === 'COMPLETED' || to === 'REJECTED')) ||
    (from !== 'OUTDATED' && to === 'OUTDATED'),
};

interface Machine {
  kind: string;
  noun: string;
  key: string;
  field: string;
  states: readonly string[];
  transitions: Transitions;
  designAllowed: (from: string, to: string) => boolean;
  /** Arguments that create a record in the given state. */
  create: (state: string) => Row;
  /** Makes a record in the given state through more than its add (a risk ACCEPTED by an acceptance). */
  setup?: (state: string) => Promise<Row>;
  /** Other fields changed in the same update to `to`, which must not be saved when the transition is refused. */
  side: (to: string) => Row;
}

/**
 * A risk in `state` that has a current acceptance (addRiskAcceptance sets ACCEPTED), so that a move to ACCEPTED is
 * only a question of the transition table; its treatment agrees with the state.
 */
async function acceptedRisk(state: string): Promise<Row> {
  const added = (
    await ok(runtime, token, 'addRisk', {
      organization_id: org,
      name: unique(`Risk ${state}`),
      inherent_likelihood: 3,
      inherent_impact: 3,
      treatment: 'ACCEPT',
    })
  ).risk as Row;
  await ok(runtime, token, 'addRiskAcceptance', {
    organization_id: org,
    risk_id: added.id,
    approver_id: checker,
    rationale: 'Within the appetite.',
    expires_on: '2099-12-31',
  });
  if (state === 'ACCEPTED') return added;
  await ok(runtime, token, 'updateRisk', { id: added.id, status: state, ...riskTreatment(state) });
  return added;
}

/** The treatment that agrees with a risk status (ACCEPT while nothing is treated). */
const riskTreatment = (state: string): Row => ({
  treatment: state === 'IN_TREATMENT' || state === 'MITIGATED' ? 'MITIGATE' : 'ACCEPT',
});

const MACHINES: Machine[] = [
  {
    kind: 'risk',
    noun: 'Risk',
    key: 'risk',
    field: 'status',
    states: RISK_STATUSES,
    transitions: RISK_TRANSITIONS,
    designAllowed: DESIGN.risk,
    create: (state) => ({
      organization_id: org,
      name: `Risk ${state}`,
      inherent_likelihood: 3,
      inherent_impact: 3,
      status: state,
    }),
    setup: acceptedRisk,
    side: (to) => ({ name: 'Renamed in the same call', ...riskTreatment(to) }),
  },
  {
    kind: 'nonconformity',
    noun: 'Nonconformity',
    key: 'nonconformity',
    field: 'status',
    states: WORKFLOW_STATUSES,
    transitions: WORKFLOW_TRANSITIONS,
    designAllowed: DESIGN.workflow,
    create: (state) => ({
      organization_id: org,
      reference_id: unique(`NC-${state}`),
      status: state,
      corrective_action: 'Quarterly access reviews scheduled',
      ...closingCheck(),
    }),
    side: () => ({ description: 'Changed in the same call' }),
  },
  {
    kind: 'continual_improvement',
    noun: 'ContinualImprovement',
    key: 'continual_improvement',
    field: 'status',
    states: WORKFLOW_STATUSES,
    transitions: WORKFLOW_TRANSITIONS,
    designAllowed: DESIGN.workflow,
    create: (state) => ({ organization_id: org, reference_id: unique(`CI-${state}`), status: state }),
    side: () => ({ description: 'Changed in the same call' }),
  },
  {
    kind: 'audit',
    noun: 'Audit',
    key: 'audit',
    field: 'state',
    states: AUDIT_STATES,
    transitions: AUDIT_TRANSITIONS,
    designAllowed: DESIGN.audit,
    create: (state) => ({ organization_id: org, framework_id: frameworkId, name: `Audit ${state}`, state }),
    side: () => ({ name: 'Renamed in the same call' }),
  },
];

/** What states.ts allows (a state that is not a key may go anywhere, as checkTransition reads it). */
function constantAllows(transitions: Transitions, from: string, to: string): boolean {
  const allowed = transitions[from];
  return !allowed || allowed.includes(to);
}

const nonconformityMachine = () => MACHINES.find((machine) => machine.kind === 'nonconformity')!;

async function create(machine: Machine, state: string): Promise<Row> {
  if (machine.setup) {
    const made = await get(machine, (await machine.setup(state)).id);
    expect(made[machine.field]).toBe(state);
    return made;
  }
  const body = await ok(runtime, token, `add${machine.noun}`, machine.create(state));
  const row = body[machine.key] as Row;
  expect(row[machine.field]).toBe(state);
  return row;
}

async function get(machine: Machine, id: unknown): Promise<Row> {
  return (await ok(runtime, token, `get${machine.noun}`, { id }))[machine.key] as Row;
}

describe('the transition tables in states.ts match the design', () => {
  for (const machine of MACHINES) {
    it(`${machine.kind} ${machine.field}: states.ts allows exactly the pairs DESIGN.md allows`, () => {
      for (const from of machine.states) {
        for (const to of machine.states) {
          if (from === to) continue;
          expect(constantAllows(machine.transitions, from, to), `${from} -> ${to}`).toBe(
            machine.designAllowed(from, to),
          );
        }
      }
    });
  }
});

describe('every pair of states', () => {
  for (const machine of MACHINES) {
    const pairs = machine.states.flatMap((from) =>
      machine.states
        .filter((to) => to !== from)
        .map((to) => ({ from, to, allowed: machine.designAllowed(from, to) })),
    );

    describe(`${machine.kind} ${machine.field}`, () => {
      for (const { from, to } of pairs.filter((pair) => pair.allowed)) {
        it(`${from} -> ${to} is allowed (asked in lower case)`, async () => {
          const record = await create(machine, from);
          const body = await ok(runtime, token, `update${machine.noun}`, {
            id: record.id,
            [machine.field]: to.toLowerCase(),
            ...machine.side(to),
          });
          const saved = body[machine.key] as Row;
          expect(saved[machine.field]).toBe(to);
          expect(await get(machine, record.id)).toMatchObject({ [machine.field]: to, ...machine.side(to) });
        });
      }

      for (const { from, to } of pairs.filter((pair) => !pair.allowed)) {
        it(`${from} -> ${to} is refused with 409 invalid_transition and leaves the record unchanged`, async () => {
          const record = await create(machine, from);
          const result = await callDirect(runtime, token, `update${machine.noun}`, {
            id: record.id,
            [machine.field]: to.toLowerCase(),
            ...machine.side(to),
          });
          expect(result.status).toBe(409);
          const error = errorOf(result);
          expect(error.code).toBe('invalid_transition');
          const allowedFrom = machine.states.filter(
            (state) => state !== from && machine.designAllowed(from, state),
          );
          expect(error.message).toContain(from);
          expect(error.message).toContain(to);
          for (const state of allowedFrom) expect(error.message).toContain(state);
          if (allowedFrom.length === 0) expect(error.message).toMatch(/none/i);
          expect(error.details).toEqual({
            field: machine.field,
            current: from,
            requested: to,
            allowed: allowedFrom,
          });
          expect(await get(machine, record.id)).toEqual(record);
        });
      }

      it('setting the current state again is a harmless no-op for every state', async () => {
        for (const state of machine.states) {
          const record = await create(machine, state);
          const body = await ok(runtime, token, `update${machine.noun}`, {
            id: record.id,
            [machine.field]: state,
          });
          expect((body[machine.key] as Row)[machine.field]).toBe(state);
        }
      });
    });
  }
});

describe('walks through the state machines', () => {
  it('a nonconformity goes OPEN -> in_progress -> closed (with a corrective action) -> open again', async () => {
    const created = await ok(runtime, token, 'addNonconformity', {
      organization_id: org,
      reference_id: 'NC-WALK',
    });
    const id = (created.nonconformity as Row).id;
    expect((created.nonconformity as Row).status).toBe('OPEN');
    const steps: [Row, string][] = [
      [{ status: 'in_progress' }, 'IN_PROGRESS'],
      [{ status: 'Closed', corrective_action: 'MFA enforced', ...closingCheck() }, 'CLOSED'],
      [{ status: 'open' }, 'OPEN'],
    ];
    for (const [change, expected] of steps) {
      const body = await ok(runtime, token, 'updateNonconformity', { id, ...change });
      expect((body.nonconformity as Row).status).toBe(expected);
    }
  });

  it('an audit goes NOT_STARTED -> in_progress -> completed -> outdated, and nothing leaves OUTDATED', async () => {
    const machine = MACHINES.find((candidate) => candidate.kind === 'audit')!;
    const created = await ok(runtime, token, 'addAudit', { organization_id: org, framework_id: frameworkId });
    const id = (created.audit as Row).id;
    expect((created.audit as Row).state).toBe('NOT_STARTED');
    for (const [asked, expected] of [
      ['in_progress', 'IN_PROGRESS'],
      ['completed', 'COMPLETED'],
      ['OUTDATED', 'OUTDATED'],
    ]) {
      const body = await ok(runtime, token, 'updateAudit', { id, state: asked });
      expect((body.audit as Row).state).toBe(expected);
    }
    for (const state of AUDIT_STATES.filter((candidate) => candidate !== 'OUTDATED')) {
      const result = await callDirect(runtime, token, 'updateAudit', { id, state });
      expect(result.status).toBe(409);
      expect(errorOf(result).message).toBe(
        `Cannot change audit state from OUTDATED to ${state}. Allowed from OUTDATED: none (final state).`,
      );
    }
    expect((await get(machine, id)).state).toBe('OUTDATED');
  });

  it('a CLOSED risk can be reopened and then moves freely again', async () => {
    const machine = MACHINES.find((candidate) => candidate.kind === 'risk')!;
    const risk = await create(machine, 'CLOSED');
    const refused = await callDirect(runtime, token, 'updateRisk', { id: risk.id, status: 'mitigated' });
    expect(refused.status).toBe(409);
    expect(errorOf(refused).message).toBe(
      'Cannot change risk status from CLOSED to MITIGATED. Allowed from CLOSED: OPEN.',
    );
    for (const status of ['open', 'accepted', 'in_treatment', 'closed']) {
      const body = await ok(runtime, token, 'updateRisk', {
        id: risk.id,
        status,
        ...riskTreatment(status.toUpperCase()),
      });
      expect((body.risk as Row).status).toBe(status.toUpperCase());
    }
  });
});

describe('closing a nonconformity needs a corrective action', () => {
  async function inProgress(extra: Row = {}): Promise<Row> {
    const body = await ok(runtime, token, 'addNonconformity', {
      organization_id: org,
      reference_id: unique('NC-CA'),
      status: 'IN_PROGRESS',
      ...closingCheck(),
      ...extra,
    });
    return body.nonconformity as Row;
  }

  it('is refused without one, and the nonconformity stays IN_PROGRESS', async () => {
    const record = await inProgress();
    for (const corrective of [undefined, null, '', '   ']) {
      const result = await callDirect(runtime, token, 'updateNonconformity', {
        id: record.id,
        status: 'CLOSED',
        ...(corrective === undefined ? {} : { corrective_action: corrective }),
      });
      expect(result.status, `corrective_action ${JSON.stringify(corrective)}`).toBe(409);
      expect(errorOf(result).code).toBe('invalid_transition');
      expect(errorOf(result).message).toContain('corrective_action');
      expect(errorOf(result).details).toMatchObject({ requested: 'CLOSED', missing: ['corrective_action'] });
    }
    expect(await get(nonconformityMachine(), record.id)).toEqual(record);
  });

  it('is allowed when the corrective action is given in the same call', async () => {
    const record = await inProgress();
    const body = await ok(runtime, token, 'updateNonconformity', {
      id: record.id,
      status: 'closed',
      corrective_action: 'Access reviews automated',
    });
    expect(body.nonconformity).toMatchObject({
      status: 'CLOSED',
      corrective_action: 'Access reviews automated',
    });
  });

  it('is allowed when the corrective action was set before', async () => {
    const record = await inProgress({ corrective_action: 'Access reviews automated' });
    const body = await ok(runtime, token, 'updateNonconformity', { id: record.id, status: 'CLOSED' });
    expect(body.nonconformity).toMatchObject({
      status: 'CLOSED',
      corrective_action: 'Access reviews automated',
    });
  });

  it('cannot be removed from a CLOSED nonconformity', async () => {
    const record = await inProgress({ corrective_action: 'Access reviews automated' });
    const closed = (await ok(runtime, token, 'updateNonconformity', { id: record.id, status: 'CLOSED' }))
      .nonconformity as Row;
    const result = await callDirect(runtime, token, 'updateNonconformity', {
      id: record.id,
      clear: ['corrective_action'],
    });
    expect(result.status).toBe(409);
    expect(errorOf(result).code).toBe('invalid_transition');
    expect(await get(nonconformityMachine(), record.id)).toEqual(closed);
  });

  it('is needed to add a nonconformity directly as CLOSED, and nothing is created without it', async () => {
    const reference = `NC-ADD-CLOSED-${Date.now()}`;
    const result = await callDirect(runtime, token, 'addNonconformity', {
      organization_id: org,
      reference_id: reference,
      status: 'CLOSED',
    });
    expect(result.status).toBe(409);
    expect(errorOf(result).code).toBe('invalid_transition');
    const listed = await ok(runtime, token, 'listNonconformities', {
      organization_id: org,
      filter: { query: reference },
    });
    expect(listed.total_count).toBe(0);
  });

  it('is not needed for a continual improvement, which has no corrective action', async () => {
    const created = await ok(runtime, token, 'addContinualImprovement', {
      organization_id: org,
      reference_id: 'CI-NO-ACTION',
      status: 'IN_PROGRESS',
    });
    const body = await ok(runtime, token, 'updateContinualImprovement', {
      id: (created.continual_improvement as Row).id,
      status: 'closed',
    });
    expect((body.continual_improvement as Row).status).toBe('CLOSED');
  });
});

describe('state input', () => {
  it('an unknown state is invalid_arguments, not invalid_transition', async () => {
    const machine = MACHINES.find((candidate) => candidate.kind === 'risk')!;
    const record = await create(machine, 'OPEN');
    const result = await callDirect(runtime, token, 'updateRisk', { id: record.id, status: 'DONE' });
    expect(result.status).toBe(400);
    expect(errorOf(result).code).toBe('invalid_arguments');
    expect(errorOf(result).message).toContain('status');
    expect(await get(machine, record.id)).toEqual(record);
  });
});
