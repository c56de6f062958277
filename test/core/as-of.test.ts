// Reads as of a past time (issue 38 item 2): a register, the statement of applicability, coverage and the heat map
// rebuilt from history at three moments equal what they answered then; deleted records, the future, the time before
// the organization, and other organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const HOUR = 3_600_000;
let runtime: TestRuntime;
let token: string;
let otherToken: string;
let org: string;
let clock = new Date(Date.now() + HOUR);
const at = (offsetMinutes: number) => {
  clock = new Date(clock.getTime() + offsetMinutes * 60_000);
};

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
  const alice = await createActor(runtime, 'alice');
  const bob = await createActor(runtime, 'bob');
  org = await createOrg(runtime, alice, 'As Of Org');
  await createOrg(runtime, bob, 'Other Org');
  token = await createToken(runtime, alice);
  otherToken = await createToken(runtime, bob);
});

afterAll(async () => {
  await runtime?.cleanup();
});

/** A call one second after the last: as a real clock, no two writes share a millisecond. */
const call = (tool: string, args: Row) => {
  clock = new Date(clock.getTime() + 1000);
  return ok(runtime, token, tool, args);
};
const idOf = async (tool: string, key: string, args: Row) =>
  ((await call(tool, args))[key] as Row).id as string;

/** Without the note an as_of answer adds. */
function withoutNote(answer: Row): Row {
  const { as_of: _note, ...rest } = answer;
  return rest;
}

/** A statement of applicability without readiness, which is not rebuilt (null with as_of). */
function statementWithoutReadiness(answer: Row): Row {
  const rows = (answer.requirements as Row[]).map(
    ({ readiness: _r, readiness_reasons: _rr, measures, ...row }) => ({
      ...row,
      measures: (measures as Row[]).map(({ readiness: _m, ...measure }) => measure),
    }),
  );
  return { ...withoutNote(answer), requirements: rows };
}

function coverageWithoutReadiness(answer: Row): Row {
  const { readiness: _r, crosswalk: _c, ...rest } = withoutNote(answer);
  return rest;
}

interface Snapshot {
  time: string;
  risks: Row;
  openRisks: Row;
  risk: Row;
  statement: Row;
  coverage: Row;
  heatMap: Row;
}

describe('reads as of a date', () => {
  const snapshots: Snapshot[] = [];
  let risk1 = '';
  let risk2 = '';
  let framework = '';

  async function snapshot(): Promise<Snapshot> {
    at(5);
    const snap: Snapshot = {
      time: clock.toISOString(),
      risks: await call('listRisks', { organization_id: org, size: 100 }),
      openRisks: await call('listRisks', { organization_id: org, filter: { status: 'OPEN' }, size: 100 }),
      risk: await call('getRisk', { id: risk1 }),
      statement: await call('getStatementOfApplicability', { framework_id: framework, size: 100 }),
      coverage: await call('getFrameworkCoverage', { framework_id: framework }),
      heatMap: await call('getRiskHeatMap', { organization_id: org }),
    };
    at(5);
    return snap;
  }

  beforeAll(async () => {
    // Moment 1: two risks, a framework with a section and two requirements, a measure mapped to one.
    at(10);
    risk1 = await idOf('addRisk', 'risk', {
      organization_id: org,
      name: 'Laptop theft',
      inherent_likelihood: 3,
      inherent_impact: 4,
    });
    risk2 = await idOf('addRisk', 'risk', {
      organization_id: org,
      name: 'Phishing',
      inherent_likelihood: 2,
      inherent_impact: 2,
    });
    framework = await idOf('addFramework', 'framework', { organization_id: org, name: 'ISO/IEC 27001' });
    const section = await idOf('addRequirement', 'requirement', {
      organization_id: org,
      framework_id: framework,
      reference: 'A.5',
      title: 'Organizational controls',
      is_section: true,
    });
    const control1 = await idOf('addRequirement', 'requirement', {
      organization_id: org,
      framework_id: framework,
      reference: 'A.5.1',
      title: 'Policies',
      parent_id: section,
    });
    const control2 = await idOf('addRequirement', 'requirement', {
      organization_id: org,
      framework_id: framework,
      reference: 'A.5.2',
      title: 'Roles',
      parent_id: section,
    });
    const measure = await idOf('addMeasure', 'measure', { organization_id: org, name: 'Policy set' });
    await call('linkRequirementMeasure', { requirement_id: control1, measure_id: measure });
    snapshots.push(await snapshot());

    // Moment 2: a risk treated and one deleted, a third added; the measure implemented, a control excluded.
    await call('updateRisk', {
      id: risk1,
      status: 'IN_TREATMENT',
      residual_likelihood: 2,
      residual_impact: 3,
    });
    await call('linkRiskMeasure', { risk_id: risk1, measure_id: measure });
    at(1);
    await call('deleteRisk', { id: risk2 });
    at(1);
    await call('addRisk', {
      organization_id: org,
      name: 'Ransomware',
      inherent_likelihood: 4,
      inherent_impact: 5,
    });
    await call('updateMeasure', { id: measure, state: 'IMPLEMENTED' });
    await call('updateRequirement', {
      id: control2,
      applicability: 'EXCLUDED',
      justification: 'No separate roles in a team of five.',
    });
    snapshots.push(await snapshot());

    // Moment 3: renamed, closed, a new control mapped, the measure back in progress.
    await call('updateRisk', { id: risk1, name: 'Laptop theft or loss', status: 'MITIGATED' });
    const control3 = await idOf('addRequirement', 'requirement', {
      organization_id: org,
      framework_id: framework,
      reference: 'A.5.3',
      title: 'Segregation of duties',
      parent_id: section,
    });
    await call('linkRequirementMeasure', { requirement_id: control3, measure_id: measure });
    await call('updateMeasure', { id: measure, state: 'IN_PROGRESS' });
    snapshots.push(await snapshot());

    // After: more changes, so that no snapshot is simply today's state.
    await call('updateRisk', { id: risk1, status: 'CLOSED' });
    await call('unlinkRequirementMeasure', { requirement_id: control1, measure_id: measure });
    await call('deleteRequirement', { id: control3 });
    await call('addRisk', {
      organization_id: org,
      name: 'Flood',
      inherent_likelihood: 1,
      inherent_impact: 5,
    });
    at(10);
  });

  it('rebuilds a register page, a record, the statement, coverage and the heat map at each of three moments', async () => {
    expect(snapshots).toHaveLength(3);
    for (const snap of snapshots) {
      const as_of = snap.time;
      const risks = await call('listRisks', { organization_id: org, size: 100, as_of });
      expect(withoutNote(risks)).toEqual(withoutNote(snap.risks));
      const open = await call('listRisks', {
        organization_id: org,
        filter: { status: 'OPEN' },
        size: 100,
        as_of,
      });
      expect(withoutNote(open).risks).toEqual(snap.openRisks.risks);
      expect(withoutNote(await call('getRisk', { id: risk1, as_of }))).toEqual(snap.risk);
      const statement = await call('getStatementOfApplicability', {
        framework_id: framework,
        size: 100,
        as_of,
      });
      expect(statementWithoutReadiness(statement)).toEqual(statementWithoutReadiness(snap.statement));
      const coverage = await call('getFrameworkCoverage', { framework_id: framework, as_of });
      expect(coverageWithoutReadiness(coverage)).toEqual(coverageWithoutReadiness(snap.coverage));
      expect(withoutNote(await call('getRiskHeatMap', { organization_id: org, as_of }))).toEqual(
        snap.heatMap,
      );
      expect((risks.as_of as Row).time).toBe(as_of);
    }
    // The moments differ from each other and from today: the comparisons above could fail.
    const names = snapshots.map((snap) => (snap.risk.risk as Row).name);
    expect(names).toEqual(['Laptop theft', 'Laptop theft', 'Laptop theft or loss']);
    expect(snapshots.map((snap) => (snap.risks.risks as Row[]).length)).toEqual([2, 2, 2]);
    expect(snapshots.map((snap) => (snap.coverage.coverage as Row).by_status)).toEqual([
      { NOT_COVERED: 1, PLANNED: 1, PARTIALLY_IMPLEMENTED: 0, IMPLEMENTED: 0 },
      { NOT_COVERED: 0, PLANNED: 0, PARTIALLY_IMPLEMENTED: 0, IMPLEMENTED: 1 },
      { NOT_COVERED: 0, PLANNED: 0, PARTIALLY_IMPLEMENTED: 2, IMPLEMENTED: 0 },
    ]);
    expect(((await call('getRisk', { id: risk1 })).risk as Row).status).toBe('CLOSED');
  });

  it('reads a record deleted since as it stood, and says what history does not hold', async () => {
    const then = await call('getRisk', { id: risk2, as_of: snapshots[0]?.time });
    expect((then.risk as Row).name).toBe('Phishing');
    expect((then.as_of as Row).not_reconstructed).toEqual(
      expect.arrayContaining(['accepted_until', 'accepted_score']),
    );
    const gone = await callDirect(runtime, token, 'getRisk', { id: risk2, as_of: snapshots[1]?.time });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).message).toContain('did not exist at');
  });

  it('refuses a time in the future and answers nothing before the organization existed', async () => {
    const future = await callDirect(runtime, token, 'listRisks', {
      organization_id: org,
      as_of: new Date(clock.getTime() + 86_400_000).toISOString(),
    });
    expect(future.status).toBe(400);
    expect(errorOf(future).message).toContain('is in the future');
    const before = await call('listRisks', { organization_id: org, as_of: '2020-01-01' });
    expect(before.risks).toEqual([]);
    expect(before.total_count).toBe(0);
    expect(((before.as_of as Row).notes as string[]).join(' ')).toContain('The organization was created at');
    const heat = await call('getRiskHeatMap', { organization_id: org, as_of: '2020-01-01' });
    expect([heat.inherent, heat.open_risks]).toEqual([[], 0]);
  });

  it('keeps another organization out of a record read as of a date', async () => {
    for (const id of [risk1, risk2]) {
      const other = await callDirect(runtime, otherToken, 'getRisk', { id, as_of: snapshots[0]?.time });
      expect(other.status).toBe(404);
      expect(errorOf(other).message).not.toContain('did not exist');
    }
  });

  it('pages a register read as of a date in created_at order only', async () => {
    const as_of = snapshots[2]?.time;
    const first = await call('listRisks', { organization_id: org, size: 1, as_of });
    const second = await call('listRisks', {
      organization_id: org,
      size: 1,
      as_of,
      cursor: first.next_cursor,
    });
    expect([...(first.risks as Row[]), ...(second.risks as Row[])]).toEqual(snapshots[2]?.risks.risks);
    expect(second.next_cursor).toBeNull();
    const sorted = await callDirect(runtime, token, 'listRisks', {
      organization_id: org,
      as_of,
      order_by: { field: 'name', direction: 'ASC' },
    });
    expect(sorted.status).toBe(400);
    expect(errorOf(sorted).message).toContain('sorted by created_at only');
  });
});
