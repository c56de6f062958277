// Server-side filters of every register: each declared filter is exercised with matching and non-matching records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import {
  APPLICABILITIES,
  ASSET_TYPES,
  AUDIT_STATES,
  AUDIT_TYPES,
  CLASSIFICATIONS,
  DOCUMENT_TYPES,
  FINDING_GRADES,
  INCIDENT_CATEGORIES,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  MEASURE_STATES,
  OBLIGATION_STATUSES,
  OBLIGATION_TYPES,
  PERSON_KINDS,
  PRIORITIES,
  PROCESSING_ROLES,
  REGIMES,
  REQUEST_STATUSES,
  REQUEST_TYPES,
  RISK_STATUSES,
  RISK_TREATMENTS,
  TASK_STATUSES,
  VENDOR_CATEGORIES,
  WORKFLOW_STATUSES,
} from '../../src/tools/states.ts';
import { freshUniqueValues } from '../contract/samples.ts';
import { specOf } from '../fixtures.ts';
import {
  type Actor,
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
let alice: Actor;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  alice = await createActor(runtime, 'alice');
});

afterAll(async () => {
  await runtime?.cleanup();
});

const today = () => new Date().toISOString().slice(0, 10);
const PAST = '2020-01-15';
const FUTURE = '2099-12-31';
/** Tomorrow (YYYY-MM-DD): the nearest expiry an acceptance may have. */
const nextDay = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/** A fresh organization with its own token, so every test sees only the records it made. */
async function newScope() {
  const org = await createOrg(runtime, alice, 'Filter Org');
  const token = await createToken(runtime, alice, { organizationIds: [org] });
  let frameworkId: string | null = null;
  let incidentId: string | null = null;

  async function add(kind: string, fields: Row = {}): Promise<Row> {
    const spec = specOf(kind);
    const args: Row = { ...spec.example, organization_id: org, ...fields };
    if (args.framework_id === 'fwk_...') {
      frameworkId ??= String((await add('framework', { name: 'Default framework' })).id);
      args.framework_id = frameworkId;
    }
    if (args.incident_id === 'inc_...') {
      incidentId ??= String((await add('incident', { title: 'Default incident' })).id);
      args.incident_id = incidentId;
    }
    if (args.risk_id === 'rsk_...') args.risk_id = (await add('risk', { treatment: 'ACCEPT' })).id;
    if (args.approver_id === 'per_...') args.approver_id = (await add('person', {})).id;
    if (args.measure_id === 'msr_...') args.measure_id = (await add('measure', {})).id;
    if (args.tester_id === 'per_...') args.tester_id = (await add('person', {})).id;
    if (args.vendor_id === 'ven_...') args.vendor_id = (await add('vendor', {})).id;
    if (args.assessor_id === 'per_...') args.assessor_id = (await add('person', {})).id;
    if (args.access_review_id === 'arv_...') args.access_review_id = (await add('access_review', {})).id;
    if (args.reviewer_id === 'per_...') args.reviewer_id = (await add('person', {})).id;
    for (const [field, value] of Object.entries(freshUniqueValues(spec)))
      if (!(field in fields)) args[field] = value;
    const body = await ok(runtime, token, `add${spec.noun}`, args);
    return body[spec.key] as Row;
  }

  async function list(kind: string, filter: Row): Promise<Row[]> {
    const spec = specOf(kind);
    const body = await ok(runtime, token, `list${spec.nounPlural}`, {
      organization_id: org,
      filter,
      size: 100,
    });
    expect(body.total_count).toBe((body[spec.listKey] as Row[]).length);
    return body[spec.listKey] as Row[];
  }

  /** The ids a filter returns, sorted. */
  async function ids(kind: string, filter: Row): Promise<string[]> {
    return (await list(kind, filter)).map((row) => String(row.id)).sort();
  }

  function listCall(kind: string, filter: unknown) {
    const spec = specOf(kind);
    return callDirect(runtime, token, `list${spec.nounPlural}`, { organization_id: org, filter });
  }

  /** A risk made ACCEPTED the only way there is: an acceptance of it (here until `expires`). */
  async function accepted(fields: Row = {}, expires = FUTURE): Promise<Row> {
    const owner = await add('person', {});
    const risk = await add('risk', { treatment: 'ACCEPT', owner_id: owner.id, ...fields });
    const approver = await add('person', {});
    await add('risk_acceptance', { risk_id: risk.id, approver_id: approver.id, expires_on: expires });
    const body = await ok(runtime, token, 'getRisk', { id: risk.id });
    return body.risk as Row;
  }

  return { org, token, add, list, ids, listCall, accepted };
}

const idsOf = (...rows: Row[]) => rows.map((row) => String(row.id)).sort();

// ---- coverage bookkeeping: every declared `<kind>.<filter>` must be exercised by some test below ---------

const exercised = new Set<string>();

/** Declares a test and records which filters it exercises (at collection time, so `-t` runs still see it). */
function filterTest(filters: string[], title: string, fn: () => Promise<void>) {
  for (const filter of filters) exercised.add(filter);
  it(title, fn);
}

function declaredFilters(): string[] {
  return REGISTER_SPECS.flatMap((spec) => [
    ...(spec.search?.length ? [`${spec.kind}.query`] : []),
    ...Object.keys(spec.filters ?? {}).map((name) => `${spec.kind}.${name}`),
  ]).sort();
}

// ---- query ------------------------------------------------------------------------------------------

describe('filter.query', () => {
  const cases = REGISTER_SPECS.flatMap((spec) =>
    (spec.search ?? []).map((column) => ({ spec, field: column.name })),
  );

  for (const { spec, field } of cases) {
    filterTest(
      [`${spec.kind}.query`],
      `${spec.kind} query finds a case-insensitive substring of ${field}, with % and _ taken literally`,
      async () => {
        expect(spec.fields[field], `${field} is a field of ${spec.kind}`).toBeDefined();
        const scope = await newScope();
        if (field === 'email') {
          const hit = await scope.add(spec.kind, { email: 'k9_z@example.com' });
          await scope.add(spec.kind, { email: 'k9xz@example.com' }); // would match if _ were a wildcard
          await scope.add(spec.kind, { email: 'other@example.com' });
          expect(await scope.ids(spec.kind, { query: 'K9_Z' })).toEqual(idsOf(hit));
          return;
        }
        const hit = await scope.add(spec.kind, { [field]: 'Needle 50%_Off plan' });
        await scope.add(spec.kind, { [field]: 'Needle 50abOff plan' }); // would match if % and _ were wildcards
        await scope.add(spec.kind, { [field]: 'Something else entirely' });
        expect(await scope.ids(spec.kind, { query: '50%_OFF' })).toEqual(idsOf(hit));
        expect(await scope.ids(spec.kind, { query: 'needle 50' })).toHaveLength(2);
        expect(await scope.ids(spec.kind, { query: 'no such text' })).toEqual([]);
      },
    );
  }

  filterTest(['risk.query'], 'risk query takes a backslash literally', async () => {
    const scope = await newScope();
    const hit = await scope.add('risk', { name: 'Share C:\\Temp\\x exposed' });
    await scope.add('risk', { name: 'Share C:Temp x exposed' });
    expect(await scope.ids('risk', { query: 'c:\\temp\\' })).toEqual(idsOf(hit));
  });

  filterTest(['vendor.query'], 'vendor query never returns records of another organization', async () => {
    const mine = await newScope();
    const theirs = await newScope();
    const hit = await mine.add('vendor', { name: 'Acme Cloud' });
    await theirs.add('vendor', { name: 'Acme Cloud' });
    expect(await mine.ids('vendor', { query: 'acme' })).toEqual(idsOf(hit));
  });
});

// ---- enum filters -------------------------------------------------------------------------------------

const ENUM_FILTERS: Record<string, readonly string[]> = {
  'vendor.category': VENDOR_CATEGORIES,
  'risk.status': RISK_STATUSES,
  'risk.treatment': RISK_TREATMENTS,
  'measure.state': MEASURE_STATES,
  'obligation.status': OBLIGATION_STATUSES,
  'obligation.type': OBLIGATION_TYPES,
  'person.kind': PERSON_KINDS,
  'asset.asset_type': ASSET_TYPES,
  'data_classification.classification': CLASSIFICATIONS,
  'nonconformity.status': WORKFLOW_STATUSES,
  'continual_improvement.status': WORKFLOW_STATUSES,
  'continual_improvement.priority': PRIORITIES,
  'audit.state': AUDIT_STATES,
  'audit.audit_type': AUDIT_TYPES,
  'nonconformity.grade': FINDING_GRADES,
  'requirement.applicability': APPLICABILITIES,
  'document.type': DOCUMENT_TYPES,
  'task.status': TASK_STATUSES,
  'incident.status': INCIDENT_STATUSES,
  'incident.severity': INCIDENT_SEVERITIES,
  'incident.category': INCIDENT_CATEGORIES,
  'incident_notification.regime': REGIMES,
  'processing_activity.role': PROCESSING_ROLES,
  'data_subject_request.status': REQUEST_STATUSES,
  'data_subject_request.request_type': REQUEST_TYPES,
};

/** What closing a nonconformity asks: root cause, corrective action, an effective check by a person. */
async function closing(scope: { add(kind: string, fields?: Row): Promise<Row> }): Promise<Row> {
  return {
    root_cause: 'No owner',
    corrective_action: 'Fixed',
    effectiveness_checked_on: PAST,
    effectiveness_checked_by_id: (await scope.add('person', {})).id,
    effectiveness_result: 'EFFECTIVE',
  };
}

/** Fields some values need on creation (a CLOSED nonconformity needs a corrective action). */
async function extraFor(
  scope: { add(kind: string, fields?: Row): Promise<Row> },
  kind: string,
  field: string,
  value: string,
): Promise<Row> {
  if (kind === 'nonconformity' && field === 'status' && value === 'CLOSED') return closing(scope);
  if (kind === 'requirement' && field === 'applicability' && value === 'EXCLUDED')
    return { justification: 'Out of scope' };
  // A notification's stage is one of its regime's.
  if (kind === 'incident_notification' && field === 'regime')
    return { stage: { GDPR: 'AUTHORITY', NIS2: 'EARLY_WARNING', DORA: 'INITIAL_NOTIFICATION' }[value] };
  // A SOC 2 Type II examination observes a period of operation.
  if (kind === 'audit' && field === 'audit_type' && value === 'SOC2_TYPE_II')
    return { observation_start_on: '2026-01-01', observation_end_on: '2026-06-30' };
  if (kind === 'processing_activity' && field === 'role' && value === 'PROCESSOR')
    return { controllers: 'Acme Retail Ltd' };
  if (
    kind === 'data_subject_request' &&
    field === 'status' &&
    (value === 'COMPLETED' || value === 'REJECTED')
  )
    return { response_sent_on: '2026-03-01' };
  return {};
}

describe('enum filters', () => {
  for (const [key, values] of Object.entries(ENUM_FILTERS)) {
    const [kind, field] = key.split('.') as [string, string];
    filterTest(
      [key],
      `${kind} ${field} filters by one value, a lower-case value or a list of values`,
      async () => {
        const scope = await newScope();
        const byValue = new Map<string, Row>();
        for (const value of values) {
          const row =
            kind === 'risk' && field === 'status' && value === 'ACCEPTED'
              ? await scope.accepted()
              : await scope.add(kind, { [field]: value, ...(await extraFor(scope, kind, field, value)) });
          expect(row[field]).toBe(value);
          byValue.set(value, row);
        }
        for (const value of values) {
          const rows = await scope.list(kind, { [field]: value });
          expect(rows.map((row) => row.id)).toEqual([byValue.get(value)?.id]);
          expect(rows[0]?.[field]).toBe(value);
          expect(await scope.ids(kind, { [field]: value.toLowerCase() })).toEqual(idsOf(byValue.get(value)!));
        }
        const first = values[0]!;
        const last = values.at(-1)!;
        const picked = values.length > 2 ? [first, last] : [last];
        expect(await scope.ids(kind, { [field]: picked.map((value) => value.toLowerCase()) })).toEqual(
          idsOf(...picked.map((value) => byValue.get(value)!)),
        );
        const refused = await scope.listCall(kind, { [field]: 'NO_SUCH_VALUE' });
        expect(refused.status).toBe(400);
        expect(errorOf(refused).code).toBe('invalid_arguments');
        expect(errorOf(refused).message).toContain(`filter.${field}`);
      },
    );
  }
});

// ---- owner_id filters ---------------------------------------------------------------------------------

describe('owner_id filters', () => {
  for (const spec of REGISTER_SPECS.filter((candidate) => candidate.filters?.owner_id)) {
    filterTest(
      [`${spec.kind}.owner_id`],
      `${spec.kind} owner_id returns only the records that person owns`,
      async () => {
        const scope = await newScope();
        const ada = await scope.add('person', { full_name: 'Ada' });
        const bob = await scope.add('person', { full_name: 'Bob' });
        const adas = await scope.add(spec.kind, { owner_id: ada.id });
        const bobs = await scope.add(spec.kind, { owner_id: bob.id });
        await scope.add(spec.kind, {});
        expect(adas.owner_id).toBe(ada.id);
        expect(await scope.ids(spec.kind, { owner_id: ada.id })).toEqual(idsOf(adas));
        expect(await scope.ids(spec.kind, { ownerId: bob.id })).toEqual(idsOf(bobs));
        const wrongKind = await scope.listCall(spec.kind, { owner_id: scope.org });
        expect(wrongKind.status).toBe(400);
        expect(errorOf(wrongKind).code).toBe('invalid_arguments');
        expect(errorOf(wrongKind).message).toContain('filter.owner_id');
      },
    );
  }
});

// ---- risks --------------------------------------------------------------------------------------------

describe('risk score filters', () => {
  filterTest(
    ['risk.min_residual_score', 'risk.max_residual_score'],
    'min_residual_score and max_residual_score bound the residual score inclusively, not the inherent one',
    async () => {
      const scope = await newScope();
      const add = (likelihood: number, impact: number, inherent = [5, 5]) =>
        scope.add('risk', {
          inherent_likelihood: inherent[0],
          inherent_impact: inherent[1],
          residual_likelihood: likelihood,
          residual_impact: impact,
        });
      const r4 = await add(2, 2); // inherent 25, residual 4
      const r12 = await add(3, 4);
      const r15 = await add(3, 5);
      const r20 = await add(4, 5);
      const r25 = await add(5, 5);
      expect([r4, r12, r15, r20, r25].map((risk) => risk.residual_score)).toEqual([4, 12, 15, 20, 25]);
      expect(await scope.ids('risk', { min_residual_score: 15 })).toEqual(idsOf(r15, r20, r25));
      expect(await scope.ids('risk', { max_residual_score: 12 })).toEqual(idsOf(r4, r12));
      expect(await scope.ids('risk', { min_residual_score: 12, max_residual_score: 15 })).toEqual(
        idsOf(r12, r15),
      );
      expect(await scope.ids('risk', { min_residual_score: 21, max_residual_score: 24 })).toEqual([]);
      expect(await scope.ids('risk', { minResidualScore: 25 })).toEqual(idsOf(r25));
      for (const bad of [0, 101, 2.5, '15']) {
        const refused = await scope.listCall('risk', { min_residual_score: bad });
        expect(refused.status, `min_residual_score ${bad}`).toBe(400);
        expect(errorOf(refused).message).toContain('filter.min_residual_score');
      }
    },
  );

  filterTest(
    ['risk.inherent_likelihood', 'risk.inherent_impact', 'risk.residual_likelihood', 'risk.residual_impact'],
    'the exact likelihood and impact filters select one heat-map cell, inherent or residual',
    async () => {
      const scope = await newScope();
      const add = (inherent: [number, number], residual: [number, number]) =>
        scope.add('risk', {
          inherent_likelihood: inherent[0],
          inherent_impact: inherent[1],
          residual_likelihood: residual[0],
          residual_impact: residual[1],
        });
      const a = await add([4, 5], [2, 5]);
      const b = await add([4, 4], [2, 2]);
      const c = await add([1, 5], [1, 5]);
      expect(await scope.ids('risk', { inherent_likelihood: 4, inherent_impact: 5 })).toEqual(idsOf(a));
      expect(await scope.ids('risk', { inherent_likelihood: 4 })).toEqual(idsOf(a, b));
      expect(await scope.ids('risk', { inherent_impact: 5 })).toEqual(idsOf(a, c));
      expect(await scope.ids('risk', { residual_likelihood: 2, residual_impact: 5 })).toEqual(idsOf(a));
      expect(await scope.ids('risk', { residual_impact: 5 })).toEqual(idsOf(a, c));
      expect(await scope.ids('risk', { residual_likelihood: 5 })).toEqual([]);
      for (const bad of [0, 11, 2.5, '3']) {
        const refused = await scope.listCall('risk', { inherent_likelihood: bad });
        expect(refused.status, `inherent_likelihood ${bad}`).toBe(400);
        expect(errorOf(refused).message).toContain('filter.inherent_likelihood');
      }
    },
  );

  it('combines filters: all given filters must match', async () => {
    const scope = await newScope();
    const residual = { residual_likelihood: null, residual_impact: null };
    const high = { inherent_likelihood: 5, inherent_impact: 4, ...residual };
    const low = { inherent_likelihood: 1, inherent_impact: 2, ...residual };
    const openHigh = await scope.add('risk', { ...high, status: 'OPEN', treatment: 'MITIGATE' });
    await scope.accepted(high);
    await scope.add('risk', { ...low, status: 'OPEN', treatment: 'MITIGATE' });
    await scope.add('risk', { ...high, status: 'OPEN', treatment: 'TRANSFER' });
    expect(
      await scope.ids('risk', {
        status: 'open',
        treatment: 'mitigate',
        min_residual_score: 15,
        query: 'phishing',
      }),
    ).toEqual(idsOf(openHigh));
  });
});

// ---- risk method, acceptances, references ------------------------------------------------------------

describe('risk levels and acceptances', () => {
  filterTest(
    ['risk.residual_level', 'risk.inherent_level', 'risk.above_appetite'],
    'levels follow the default method (low 1-7, medium 8-14, high 15-25); above_appetite is above medium',
    async () => {
      const scope = await newScope();
      const add = (inherent: [number, number], residual: [number, number]) =>
        scope.add('risk', {
          inherent_likelihood: inherent[0],
          inherent_impact: inherent[1],
          residual_likelihood: residual[0],
          residual_impact: residual[1],
        });
      const low = await add([2, 3], [1, 3]); // 6 -> 3
      const medium = await add([4, 4], [2, 4]); // 16 -> 8
      const high = await add([5, 5], [3, 5]); // 25 -> 15
      expect([low, medium, high].map((risk) => [risk.inherent_level, risk.residual_level])).toEqual([
        ['low', 'low'],
        ['high', 'medium'],
        ['high', 'high'],
      ]);
      expect(await scope.ids('risk', { residual_level: 'MEDIUM' })).toEqual(idsOf(medium));
      expect(await scope.ids('risk', { residual_level: ['low', 'high'] })).toEqual(idsOf(low, high));
      expect(await scope.ids('risk', { inherent_level: 'high' })).toEqual(idsOf(medium, high));
      expect(await scope.ids('risk', { above_appetite: true })).toEqual(idsOf(high));
      expect(await scope.ids('risk', { above_appetite: false })).toEqual(idsOf(low, medium));
      const refused = await scope.listCall('risk', { above_appetite: 'yes' });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).message).toContain('filter.above_appetite');
    },
  );

  filterTest(
    ['risk.acceptance_status', 'risk.acceptance_due'],
    'acceptance_status tells NONE, CURRENT and EXPIRED apart; acceptance_due finds ACCEPTED risks run out',
    async () => {
      const scope = await newScope();
      const none = await scope.add('risk', {});
      const current = await scope.accepted({}, FUTURE);
      const runningOut = await scope.accepted({}, today() === FUTURE ? FUTURE : nextDay());
      expect([none, current, runningOut].map((risk) => risk.acceptance_status)).toEqual([
        'NONE',
        'CURRENT',
        'CURRENT',
      ]);
      expect(current).toMatchObject({ status: 'ACCEPTED', treatment: 'ACCEPT', accepted_until: FUTURE });
      expect(await scope.ids('risk', { acceptance_status: 'none' })).toEqual(idsOf(none));
      expect(await scope.ids('risk', { acceptance_status: 'CURRENT' })).toEqual(idsOf(current, runningOut));
      expect(await scope.ids('risk', { acceptance_status: 'EXPIRED' })).toEqual([]);
      expect(await scope.ids('risk', { acceptance_due: true })).toEqual([]);
      expect(await scope.ids('risk', { acceptance_due: false })).toEqual(idsOf(none, current, runningOut));
    },
  );

  filterTest(
    [
      'risk_acceptance.risk_id',
      'risk_acceptance.approver_id',
      'risk_acceptance.expires_before',
      'risk_acceptance.revoked',
    ],
    'risk acceptances filter by risk, approver, expiry and revocation',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const bob = await scope.add('person', { full_name: 'Bob' });
      const first = await scope.add('risk', { treatment: 'ACCEPT' });
      const second = await scope.add('risk', { treatment: 'ACCEPT' });
      const early = await scope.add('risk_acceptance', {
        risk_id: first.id,
        approver_id: ada.id,
        expires_on: '2098-01-01',
      });
      const late = await scope.add('risk_acceptance', {
        risk_id: second.id,
        approver_id: bob.id,
        expires_on: FUTURE,
      });
      await ok(runtime, scope.token, 'updateRiskAcceptance', {
        id: late.id,
        revoked_on: today(),
        revocation_reason: 'Insurance cancelled',
      });
      expect(await scope.ids('risk_acceptance', { risk_id: first.id })).toEqual(idsOf(early));
      expect(await scope.ids('risk_acceptance', { approver_id: bob.id })).toEqual(idsOf(late));
      expect(await scope.ids('risk_acceptance', { expires_before: '2099-01-01' })).toEqual(idsOf(early));
      expect(await scope.ids('risk_acceptance', { revoked: true })).toEqual(idsOf(late));
      expect(await scope.ids('risk_acceptance', { revoked: false })).toEqual(idsOf(early));
      // Revoking re-opened the second risk, which is no longer ACCEPTED.
      expect(((await ok(runtime, scope.token, 'getRisk', { id: second.id })).risk as Row).status).toBe(
        'OPEN',
      );
    },
  );

  filterTest(
    [
      'control_test.measure_id',
      'control_test.tester_id',
      'control_test.result',
      'control_test.method',
      'control_test.tested_before',
    ],
    'control tests filter by measure, tester, result, method and day',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const bob = await scope.add('person', { full_name: 'Bob' });
      const edr = await scope.add('measure', { name: 'EDR' });
      const mfa = await scope.add('measure', { name: 'MFA' });
      const early = await scope.add('control_test', {
        measure_id: edr.id,
        tester_id: ada.id,
        tested_on: '2026-01-10',
        period_from: null,
        period_to: '2026-01-01',
        method: 'inquiry',
        result: 'exception',
      });
      const late = await scope.add('control_test', {
        measure_id: mfa.id,
        tester_id: bob.id,
        tested_on: '2026-02-10',
        period_from: null,
        period_to: '2026-02-01',
        method: 're_performance',
        result: 'effective',
      });
      expect(await scope.ids('control_test', { measure_id: edr.id })).toEqual(idsOf(early));
      expect(await scope.ids('control_test', { tester_id: bob.id })).toEqual(idsOf(late));
      expect(await scope.ids('control_test', { result: ['EXCEPTION', 'NOT_EFFECTIVE'] })).toEqual(
        idsOf(early),
      );
      expect(await scope.ids('control_test', { method: 'RE_PERFORMANCE' })).toEqual(idsOf(late));
      expect(await scope.ids('control_test', { tested_before: '2026-02-01' })).toEqual(idsOf(early));
    },
  );

  filterTest(
    [
      'vendor.tier',
      'vendor.status',
      'vendor.data_access',
      'vendor.sub_processor',
      'vendor.renewal_before',
      'vendor.assessment_due_before',
      'vendor_assessment.vendor_id',
      'vendor_assessment.assessor_id',
      'vendor_assessment.result',
      'vendor_assessment.expires_before',
    ],
    'vendors filter by their risk fields and by a due assessment; assessments by vendor, assessor, result, expiry',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const bob = await scope.add('person', { full_name: 'Bob' });
      const never = await scope.add('vendor', {
        name: 'Never assessed',
        tier: 'LOW',
        status: 'ONBOARDING',
        data_access: 'INTERNAL',
        sub_processor: false,
      });
      const lapsed = await scope.add('vendor', {
        name: 'Lapsed',
        tier: 'critical',
        data_access: 'PERSONAL',
        sub_processor: true,
        renewal_on: '2027-01-10',
      });
      const held = await scope.add('vendor', {
        name: 'Held',
        tier: 'HIGH',
        data_access: 'NONE',
        sub_processor: false,
      });
      // Many old assessments of a vendor: only one holding on the day counts.
      const old = await scope.add('vendor_assessment', {
        vendor_id: lapsed.id,
        assessor_id: ada.id,
        assessed_on: PAST,
        result: 'NOT_APPROVED',
        expires_on: '2021-01-15',
      });
      const later = await scope.add('vendor_assessment', {
        vendor_id: lapsed.id,
        assessor_id: ada.id,
        assessed_on: '2021-01-15',
        expires_on: '2022-01-15',
      });
      const current = await scope.add('vendor_assessment', {
        vendor_id: held.id,
        assessor_id: bob.id,
        assessed_on: PAST,
        expires_on: FUTURE,
      });
      expect(never.status).toBe('ONBOARDING');
      expect(held).toMatchObject({ status: 'ACTIVE', sub_processor: false });
      expect(await scope.ids('vendor', { tier: ['CRITICAL', 'LOW'] })).toEqual(idsOf(never, lapsed));
      expect(await scope.ids('vendor', { status: 'ACTIVE' })).toEqual(idsOf(lapsed, held));
      expect(await scope.ids('vendor', { data_access: 'PERSONAL' })).toEqual(idsOf(lapsed));
      expect(await scope.ids('vendor', { sub_processor: true })).toEqual(idsOf(lapsed));
      expect(await scope.ids('vendor', { sub_processor: false })).toEqual(idsOf(never, held));
      expect(await scope.ids('vendor', { renewal_before: '2027-02-01' })).toEqual(idsOf(lapsed));
      expect(await scope.ids('vendor', { assessment_due_before: today() })).toEqual(idsOf(never, lapsed));
      expect(await scope.ids('vendor', { assessment_due_before: '2021-06-01' })).toEqual(idsOf(never));
      expect(await scope.ids('vendor', { assessment_due_before: FUTURE })).toEqual(idsOf(never, lapsed));
      expect(await scope.ids('vendor_assessment', { vendor_id: lapsed.id })).toEqual(idsOf(old, later));
      expect(await scope.ids('vendor_assessment', { assessor_id: bob.id })).toEqual(idsOf(current));
      expect(await scope.ids('vendor_assessment', { result: 'NOT_APPROVED' })).toEqual(idsOf(old));
      expect(await scope.ids('vendor_assessment', { expires_before: '2022-01-01' })).toEqual(idsOf(old));
      // The vendor keeps its latest expiry (assessed_until): a new assessment moves it, deleting assessments brings
      // the latest of the others back, and the vendor is due again.
      const vendorOf = async (id: unknown) =>
        (await ok(runtime, scope.token, 'getVendor', { id })).vendor as Record<string, unknown>;
      expect((await vendorOf(lapsed.id)).assessed_until).toBe('2022-01-15');
      expect((await vendorOf(never.id)).assessed_until).toBeNull();
      expect((await vendorOf(held.id)).assessed_until).toBe(FUTURE);
      const renewed = await scope.add('vendor_assessment', {
        vendor_id: lapsed.id,
        assessor_id: ada.id,
        assessed_on: today(),
        expires_on: FUTURE,
      });
      expect((await vendorOf(lapsed.id)).assessed_until).toBe(FUTURE);
      expect(await scope.ids('vendor', { assessment_due_before: today() })).toEqual(idsOf(never));
      await ok(runtime, scope.token, 'deleteVendorAssessment', { id: renewed.id });
      await ok(runtime, scope.token, 'deleteVendorAssessment', { id: later.id });
      expect((await vendorOf(lapsed.id)).assessed_until).toBe('2021-01-15');
      expect(await scope.ids('vendor', { assessment_due_before: today() })).toEqual(idsOf(never, lapsed));
    },
  );

  filterTest(
    ['measure.readiness', 'measure.test_due_before', 'requirement.readiness'],
    'readiness finds implemented measures and requirements that are not ready, and tests coming due',
    async () => {
      const scope = await newScope();
      const tester = await scope.add('person', {});
      const plain = await scope.add('measure', {
        state: 'implemented',
        evidence_required: false,
        test_interval_days: null,
      });
      const untested = await scope.add('measure', { state: 'implemented', evidence_required: false });
      const planned = await scope.add('measure', { state: 'not_started', test_interval_days: null });
      const none = await scope.add('measure', { state: 'not_applicable' });
      expect(await scope.ids('measure', { readiness: 'READY' })).toEqual(idsOf(plain));
      expect(await scope.ids('measure', { readiness: 'not_ready' })).toEqual(idsOf(untested, planned));
      expect(await scope.ids('measure', { state: 'IMPLEMENTED', readiness: 'NOT_READY' })).toEqual(
        idsOf(untested),
      );
      expect(await scope.ids('measure', { readiness: 'NOT_APPLICABLE' })).toEqual(idsOf(none));
      expect(await scope.ids('measure', { test_due_before: nextDay() })).toEqual(idsOf(untested));
      await scope.add('control_test', {
        measure_id: untested.id,
        tester_id: tester.id,
        tested_on: today(),
        period_from: null,
        period_to: null,
      });
      expect(await scope.ids('measure', { test_due_before: nextDay() })).toEqual([]);
      expect(await scope.ids('measure', { readiness: 'READY' })).toEqual(idsOf(plain, untested));
      const ready = await scope.add('requirement', { reference: 'R.1' });
      const gap = await scope.add('requirement', { reference: 'R.2' });
      const excluded = await scope.add('requirement', {
        reference: 'R.3',
        applicability: 'EXCLUDED',
        justification: 'Not offered.',
      });
      await ok(runtime, scope.token, 'linkRequirementMeasure', {
        requirement_id: ready.id,
        measure_id: plain.id,
      });
      await ok(runtime, scope.token, 'linkRequirementMeasure', {
        requirement_id: gap.id,
        measure_id: planned.id,
      });
      expect(await scope.ids('requirement', { readiness: 'READY' })).toEqual(idsOf(ready));
      expect(await scope.ids('requirement', { readiness: 'NOT_READY', is_section: false })).toEqual(
        idsOf(gap),
      );
      expect(await scope.ids('requirement', { readiness: 'NOT_APPLICABLE' })).toEqual(idsOf(excluded));
    },
  );

  filterTest(
    ['nonconformity.closure_incomplete'],
    'closure_incomplete is false for one closed with everything closing asks, and for open ones',
    async () => {
      const scope = await newScope();
      const closed = await scope.add('nonconformity', { status: 'CLOSED', ...(await closing(scope)) });
      const open = await scope.add('nonconformity', {});
      expect([closed.closure_incomplete, open.closure_incomplete]).toEqual([false, false]);
      expect(await scope.ids('nonconformity', { closure_incomplete: true })).toEqual([]);
      expect(await scope.ids('nonconformity', { closure_incomplete: false })).toEqual(idsOf(closed, open));
    },
  );

  filterTest(
    ['audit.reference', 'obligation.reference'],
    'reference finds the audit or obligation with that reference exactly',
    async () => {
      const scope = await newScope();
      const audit = await scope.add('audit', { reference: 'AUD-1' });
      await scope.add('audit', { reference: 'AUD-10' });
      const obligation = await scope.add('obligation', { reference: 'OBL-7' });
      await scope.add('obligation', { reference: null });
      expect(await scope.ids('audit', { reference: 'AUD-1' })).toEqual(idsOf(audit));
      expect(await scope.ids('obligation', { reference: 'OBL-7' })).toEqual(idsOf(obligation));
      expect(await scope.ids('obligation', { reference: 'OBL-8' })).toEqual([]);
    },
  );

  filterTest(
    ['document.requirement_id', 'document.generated'],
    'documents filter by a requirement they cover, and generated ones apart from written ones',
    async () => {
      const scope = await newScope();
      const requirement = await scope.add('requirement', {});
      const other = await scope.add('requirement', {});
      const covering = await scope.add('document', { requirement_ids: [requirement.id] });
      const elsewhere = await scope.add('document', { requirement_ids: [other.id] });
      expect(await scope.ids('document', { requirement_id: requirement.id })).toEqual(idsOf(covering));
      expect(await scope.ids('document', { generated: false })).toEqual(idsOf(covering, elsewhere));
      expect(await scope.ids('document', { generated: true })).toEqual([]);
    },
  );
});

// ---- overdue ------------------------------------------------------------------------------------------

describe('overdue', () => {
  filterTest(
    ['obligation.overdue'],
    'an obligation is overdue when its due date has passed and it is not COMPLIANT',
    async () => {
      const scope = await newScope();
      const pastNon = await scope.add('obligation', { due_date: PAST, status: 'NON_COMPLIANT' });
      const pastPartial = await scope.add('obligation', { due_date: PAST, status: 'PARTIALLY_COMPLIANT' });
      const pastCompliant = await scope.add('obligation', { due_date: PAST, status: 'COMPLIANT' });
      const dueToday = await scope.add('obligation', { due_date: today(), status: 'NON_COMPLIANT' });
      const future = await scope.add('obligation', { due_date: FUTURE, status: 'NON_COMPLIANT' });
      const noDate = await scope.add('obligation', { due_date: null, status: 'NON_COMPLIANT' });

      expect(
        [pastNon, pastPartial, pastCompliant, dueToday, future, noDate].map((row) => row.overdue),
      ).toEqual([true, true, false, false, false, false]);
      expect(await scope.ids('obligation', { overdue: true })).toEqual(idsOf(pastNon, pastPartial));
      expect(await scope.ids('obligation', { overdue: false })).toEqual(
        idsOf(pastCompliant, dueToday, future, noDate),
      );
      const listed = await scope.list('obligation', {});
      expect(Object.fromEntries(listed.map((row) => [row.id, row.overdue]))).toEqual({
        [String(pastNon.id)]: true,
        [String(pastPartial.id)]: true,
        [String(pastCompliant.id)]: false,
        [String(dueToday.id)]: false,
        [String(future.id)]: false,
        [String(noDate.id)]: false,
      });

      // Becoming COMPLIANT ends being overdue, in the field and in the filter.
      const fixed = await ok(runtime, scope.token, 'updateObligation', {
        id: pastNon.id,
        status: 'compliant',
      });
      expect((fixed.obligation as Row).overdue).toBe(false);
      const got = await ok(runtime, scope.token, 'getObligation', { id: pastPartial.id });
      expect((got.obligation as Row).overdue).toBe(true);
      expect(await scope.ids('obligation', { overdue: true })).toEqual(idsOf(pastPartial));
      expect(await scope.ids('obligation', { overdue: true, status: 'NON_COMPLIANT' })).toEqual([]);
    },
  );

  filterTest(
    ['nonconformity.overdue'],
    'a nonconformity is overdue when its due date has passed and it is not CLOSED',
    async () => {
      const scope = await newScope();
      const pastOpen = await scope.add('nonconformity', { due_date: PAST, status: 'OPEN' });
      const pastInProgress = await scope.add('nonconformity', { due_date: PAST, status: 'IN_PROGRESS' });
      const pastClosed = await scope.add('nonconformity', {
        due_date: PAST,
        status: 'CLOSED',
        ...(await closing(scope)),
      });
      const future = await scope.add('nonconformity', { due_date: FUTURE });
      const noDate = await scope.add('nonconformity', { due_date: null });

      expect([pastOpen, pastInProgress, pastClosed, future, noDate].map((row) => row.overdue)).toEqual([
        true,
        true,
        false,
        false,
        false,
      ]);
      expect(await scope.ids('nonconformity', { overdue: true })).toEqual(idsOf(pastOpen, pastInProgress));
      expect(await scope.ids('nonconformity', { overdue: false })).toEqual(idsOf(pastClosed, future, noDate));
      const refused = await scope.listCall('nonconformity', { overdue: 'yes' });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).message).toContain('filter.overdue');
    },
  );
});

// ---- documents ----------------------------------------------------------------------------------------

describe('document filters', () => {
  filterTest(
    ['document.status', 'document.review_due'],
    'document status filters by state; review_due finds the reviews within 30 days or past, not retired',
    async () => {
      const scope = await newScope();
      const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
      const past = await scope.add('document', { next_review_on: PAST });
      const dueSoon = await scope.add('document', { next_review_on: soon, status: 'IN_REVIEW' });
      const later = await scope.add('document', { next_review_on: FUTURE });
      const noDate = await scope.add('document', { next_review_on: null });
      expect(await scope.ids('document', { status: 'in review' })).toEqual(idsOf(dueSoon));
      expect(await scope.ids('document', { status: ['DRAFT', 'IN_REVIEW'] })).toEqual(
        idsOf(past, dueSoon, later, noDate),
      );
      expect(await scope.ids('document', { review_due: true })).toEqual(idsOf(past, dueSoon));
      expect(await scope.ids('document', { review_due: false })).toEqual(idsOf(later, noDate));
    },
  );
});

// ---- evidence -----------------------------------------------------------------------------------------

describe('evidence filters', () => {
  const link = (n: number) => `https://evidence.example.com/${n}`;

  filterTest(
    ['evidence.expired', 'evidence.expiring_before'],
    'evidence is expired when valid_until is before today, and expiring before a date when valid until then',
    async () => {
      const scope = await newScope();
      const past = await scope.add('evidence', { url: link(1), valid_until: PAST });
      const current = await scope.add('evidence', { url: link(2), valid_until: today() });
      const soon = await scope.add('evidence', { url: link(3), valid_until: '2090-06-30' });
      const never = await scope.add('evidence', { url: link(4), valid_until: null });
      expect([past, current, soon, never].map((row) => row.expired)).toEqual([true, false, false, false]);
      expect(await scope.ids('evidence', { expired: true })).toEqual(idsOf(past));
      expect(await scope.ids('evidence', { expired: false })).toEqual(idsOf(current, soon, never));
      expect(await scope.ids('evidence', { expiring_before: '2090-06-30' })).toEqual(
        idsOf(past, current, soon),
      );
      expect(await scope.ids('evidence', { expiring_before: '2090-06-29', expired: false })).toEqual(
        idsOf(current),
      );
      const refused = await scope.listCall('evidence', { expiring_before: '2026-02-30' });
      expect(errorOf(refused).code).toBe('invalid_arguments');
    },
  );

  filterTest(['evidence.kind'], 'evidence kind filters links from files, in any case', async () => {
    const scope = await newScope();
    const first = await scope.add('evidence', { url: link(1) });
    const second = await scope.add('evidence', { url: link(2) });
    expect([first.kind, second.kind]).toEqual(['LINK', 'LINK']);
    expect(await scope.ids('evidence', { kind: 'LINK' })).toEqual(idsOf(first, second));
    expect(await scope.ids('evidence', { kind: ['link'] })).toEqual(idsOf(first, second));
    expect(await scope.ids('evidence', { kind: 'FILE' })).toEqual([]);
  });

  filterTest(['evidence.record_id'], 'evidence record_id returns the evidence for that record', async () => {
    const scope = await newScope();
    const mfa = await scope.add('measure', { name: 'MFA' });
    const backup = await scope.add('measure', { name: 'Backups' });
    const both = await scope.add('evidence', { url: link(1), record_ids: [mfa.id, backup.id] });
    const onlyMfa = await scope.add('evidence', { url: link(2), record_ids: [mfa.id] });
    await scope.add('evidence', { url: link(3) });
    expect(both.record_ids).toEqual([mfa.id, backup.id].sort());
    expect(await scope.ids('evidence', { record_id: mfa.id })).toEqual(idsOf(both, onlyMfa));
    expect(await scope.ids('evidence', { record_id: backup.id })).toEqual(idsOf(both));
    const [measure] = (await scope.list('measure', { query: 'MFA' })) as Row[];
    expect(measure?.evidence_ids).toEqual(idsOf(both, onlyMfa));
  });

  filterTest(
    ['evidence.supersedes_id'],
    'evidence supersedes_id returns the items replacing that one; the older one shows superseded_by',
    async () => {
      const scope = await newScope();
      const old = await scope.add('evidence', { url: link(1), title: '2025 report' });
      const replacing = await scope.add('evidence', { url: link(2), supersedes_id: old.id });
      await scope.add('evidence', { url: link(3) });
      expect(await scope.ids('evidence', { supersedes_id: old.id })).toEqual(idsOf(replacing));
      const [listedOld] = (await scope.list('evidence', { query: '2025 report' })) as Row[];
      expect(listedOld?.superseded_by).toBe(replacing.id);
      expect(replacing.superseded_by).toBeNull();
    },
  );
});

// ---- review cycles ------------------------------------------------------------------------------------

describe('review_due_before filters', () => {
  for (const spec of REGISTER_SPECS.filter((candidate) => candidate.filters?.review_due_before)) {
    filterTest(
      [`${spec.kind}.review_due_before`],
      `${spec.kind} review_due_before returns those whose next review is before that date, none without one`,
      async () => {
        const scope = await newScope();
        const review = (next_review_on: string | null) =>
          scope.add(spec.kind, { review_interval_days: null, last_reviewed_on: null, next_review_on });
        const past = await review(PAST);
        const dueToday = await review(today());
        const later = await review('2090-06-30');
        await review(null);
        expect([past, dueToday, later].map((row) => row.review_overdue)).toEqual([true, false, false]);
        expect(await scope.ids(spec.kind, { review_due_before: today() })).toEqual(idsOf(past));
        expect(await scope.ids(spec.kind, { review_due_before: '2090-06-30' })).toEqual(
          idsOf(past, dueToday),
        );
        expect(await scope.ids(spec.kind, { review_due_before: FUTURE })).toEqual(
          idsOf(past, dueToday, later),
        );
        expect(await scope.ids(spec.kind, { review_due_before: PAST })).toEqual([]);
        const refused = await scope.listCall(spec.kind, { review_due_before: '2026-02-30' });
        expect(refused.status).toBe(400);
        expect(errorOf(refused).message).toContain('filter.review_due_before');
      },
    );
  }
});

// ---- tasks --------------------------------------------------------------------------------------------

describe('task filters', () => {
  filterTest(
    ['task.due_before', 'task.overdue'],
    'a task is overdue when its due date has passed and it is neither DONE nor CANCELLED; due_before ignores status',
    async () => {
      const scope = await newScope();
      const pastTodo = await scope.add('task', { due_on: PAST, status: 'TODO' });
      const pastStarted = await scope.add('task', { due_on: PAST, status: 'IN_PROGRESS' });
      const pastDone = await scope.add('task', { due_on: PAST, status: 'DONE' });
      const pastCancelled = await scope.add('task', { due_on: PAST, status: 'CANCELLED' });
      const dueToday = await scope.add('task', { due_on: today() });
      const future = await scope.add('task', { due_on: FUTURE });
      const noDate = await scope.add('task', { due_on: null });
      expect(
        [pastTodo, pastStarted, pastDone, pastCancelled, dueToday, future, noDate].map((row) => row.overdue),
      ).toEqual([true, true, false, false, false, false, false]);
      expect(await scope.ids('task', { overdue: true })).toEqual(idsOf(pastTodo, pastStarted));
      expect(await scope.ids('task', { overdue: false })).toEqual(
        idsOf(pastDone, pastCancelled, dueToday, future, noDate),
      );
      expect(await scope.ids('task', { due_before: today() })).toEqual(
        idsOf(pastTodo, pastStarted, pastDone, pastCancelled),
      );
      expect(await scope.ids('task', { due_before: FUTURE })).toEqual(
        idsOf(pastTodo, pastStarted, pastDone, pastCancelled, dueToday),
      );
      expect(await scope.ids('task', { due_before: today(), status: 'DONE' })).toEqual(idsOf(pastDone));
      const refused = await scope.listCall('task', { overdue: 'yes' });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).message).toContain('filter.overdue');
    },
  );

  filterTest(
    ['task.assignee_user_id'],
    'task assignee_user_id returns the tasks assigned to that account',
    async () => {
      const scope = await newScope();
      const mine = await scope.add('task', { assignee_user_id: alice.userId });
      await scope.add('task', {});
      expect(mine.assignee_user_id).toBe(alice.userId);
      expect(await scope.ids('task', { assignee_user_id: alice.userId })).toEqual(idsOf(mine));
      expect(await scope.ids('task', { assignee_user_id: 'usr_8zq3m0v5k1t7w2x9c4n6p0ha' })).toEqual([]);
      const wrongKind = await scope.listCall('task', { assignee_user_id: scope.org });
      expect(wrongKind.status).toBe(400);
      expect(errorOf(wrongKind).message).toContain('filter.assignee_user_id');
    },
  );

  filterTest(['task.record_id'], 'task record_id returns the tasks linked to that record', async () => {
    const scope = await newScope();
    const risk = await scope.add('risk', { name: 'Phishing' });
    const vendor = await scope.add('vendor', { name: 'AWS' });
    const both = await scope.add('task', { record_ids: [risk.id, vendor.id] });
    const onlyRisk = await scope.add('task', { record_ids: [risk.id] });
    await scope.add('task', {});
    expect(both.record_ids).toEqual([risk.id, vendor.id].sort());
    expect(await scope.ids('task', { record_id: risk.id })).toEqual(idsOf(both, onlyRisk));
    expect(await scope.ids('task', { record_id: vendor.id })).toEqual(idsOf(both));
  });
});

// ---- references ---------------------------------------------------------------------------------------

describe('reference filters', () => {
  filterTest(
    ['nonconformity.audit_id'],
    'nonconformity audit_id returns the findings of that audit',
    async () => {
      const scope = await newScope();
      const first = await scope.add('audit', { name: 'First' });
      const second = await scope.add('audit', { name: 'Second' });
      const ofFirst = await scope.add('nonconformity', { audit_id: first.id });
      const ofSecond = await scope.add('nonconformity', { audit_id: second.id });
      await scope.add('nonconformity', {});
      expect(ofFirst.audit_id).toBe(first.id);
      expect(await scope.ids('nonconformity', { audit_id: first.id })).toEqual(idsOf(ofFirst));
      expect(await scope.ids('nonconformity', { audit_id: second.id })).toEqual(idsOf(ofSecond));
    },
  );

  filterTest(['audit.framework_id'], 'audit framework_id returns the audits of that framework', async () => {
    const scope = await newScope();
    const iso = await scope.add('framework', { name: 'ISO 27001' });
    const soc = await scope.add('framework', { name: 'SOC 2' });
    const iso1 = await scope.add('audit', { framework_id: iso.id, name: 'ISO 1' });
    const iso2 = await scope.add('audit', { framework_id: iso.id, name: 'ISO 2' });
    const soc1 = await scope.add('audit', { framework_id: soc.id, name: 'SOC 1' });
    expect(await scope.ids('audit', { framework_id: iso.id })).toEqual(idsOf(iso1, iso2));
    expect(await scope.ids('audit', { frameworkId: soc.id })).toEqual(idsOf(soc1));
    expect(await scope.ids('audit', { framework_id: iso.id, state: 'IN_PROGRESS' })).toEqual([]);
  });

  filterTest(
    ['audit.lead_auditor_id'],
    'audit lead_auditor_id returns the audits that person leads',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const led = await scope.add('audit', { lead_auditor_id: ada.id, audit_type: 'internal' });
      await scope.add('audit', { auditor: 'External firm' });
      expect(led.audit_type).toBe('INTERNAL');
      expect(await scope.ids('audit', { lead_auditor_id: ada.id })).toEqual(idsOf(led));
      expect(await scope.ids('audit', { lead_auditor_id: ada.id, audit_type: ['SURVEILLANCE'] })).toEqual([]);
    },
  );
});

// ---- links and other owners -------------------------------------------------------------------------------

describe('link and owner filters', () => {
  filterTest(
    ['nonconformity.requirement_id', 'nonconformity.risk_id'],
    'nonconformity requirement_id and risk_id return the findings against that requirement or linked to that risk',
    async () => {
      const scope = await newScope();
      const access = await scope.add('requirement', { reference: 'A.5.18' });
      const devices = await scope.add('requirement', { reference: 'A.8.1' });
      const theft = await scope.add('risk', { name: 'Laptop theft' });
      const both = await scope.add('nonconformity', {
        requirement_ids: [access.id, devices.id],
        risk_ids: [theft.id],
      });
      const one = await scope.add('nonconformity', { requirement_ids: [devices.id] });
      await scope.add('nonconformity', {});
      expect(await scope.ids('nonconformity', { requirement_id: access.id })).toEqual(idsOf(both));
      expect(await scope.ids('nonconformity', { requirement_id: devices.id })).toEqual(idsOf(both, one));
      expect(await scope.ids('nonconformity', { risk_id: theft.id })).toEqual(idsOf(both));
      expect(await scope.ids('nonconformity', { risk_id: theft.id, requirement_id: devices.id })).toEqual(
        idsOf(both),
      );
    },
  );

  filterTest(
    ['asset.vendor_id', 'data_classification.vendor_id'],
    'asset and data classification vendor_id return those linked to that vendor',
    async () => {
      const scope = await newScope();
      const aws = await scope.add('vendor', { name: 'AWS' });
      const gcp = await scope.add('vendor', { name: 'GCP' });
      const onAws = await scope.add('asset', { name: 'Database', vendor_ids: [aws.id] });
      const onBoth = await scope.add('asset', { name: 'Backups', vendor_ids: [aws.id, gcp.id] });
      await scope.add('asset', { name: 'Laptops' });
      expect(await scope.ids('asset', { vendor_id: aws.id })).toEqual(idsOf(onAws, onBoth));
      expect(await scope.ids('asset', { vendor_id: gcp.id })).toEqual(idsOf(onBoth));
      const pii = await scope.add('data_classification', { name: 'PII', vendor_ids: [gcp.id] });
      await scope.add('data_classification', { name: 'Chat', vendor_ids: [aws.id] });
      expect(await scope.ids('data_classification', { vendor_id: gcp.id })).toEqual(idsOf(pii));
    },
  );

  filterTest(['risk.measure_id'], 'risk measure_id returns the risks that measure mitigates', async () => {
    const scope = await newScope();
    const mfa = await scope.add('measure', { name: 'MFA' });
    const phishing = await scope.add('risk', { name: 'Phishing' });
    await scope.add('risk', { name: 'Flood' });
    await ok(runtime, scope.token, 'linkRiskMeasure', { risk_id: phishing.id, measure_id: mfa.id });
    expect(await scope.ids('risk', { measure_id: mfa.id })).toEqual(idsOf(phishing));
  });

  filterTest(
    ['vendor.business_owner_id', 'vendor.security_owner_id'],
    'vendor business_owner_id and security_owner_id return the vendors that person is that owner of',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const bob = await scope.add('person', { full_name: 'Bob' });
      const both = await scope.add('vendor', {
        name: 'Both',
        business_owner_id: ada.id,
        security_owner_id: bob.id,
      });
      const adas = await scope.add('vendor', { name: 'Ada only', security_owner_id: ada.id });
      expect(await scope.ids('vendor', { business_owner_id: ada.id })).toEqual(idsOf(both));
      expect(await scope.ids('vendor', { security_owner_id: ada.id })).toEqual(idsOf(adas));
      expect(await scope.ids('vendor', { security_owner_id: bob.id })).toEqual(idsOf(both));
    },
  );
});

// ---- requirements -------------------------------------------------------------------------------------

describe('requirement filters', () => {
  filterTest(
    ['requirement.framework_id', 'requirement.parent_id', 'requirement.top_level', 'requirement.is_section'],
    'requirement framework_id, parent_id, top_level and is_section select a framework, a subtree level, sections',
    async () => {
      const scope = await newScope();
      const iso = await scope.add('framework', { name: 'ISO 27001' });
      const soc = await scope.add('framework', { name: 'SOC 2' });
      const section = await scope.add('requirement', {
        framework_id: iso.id,
        reference: 'A.5',
        is_section: true,
      });
      const child = await scope.add('requirement', {
        framework_id: iso.id,
        reference: 'A.5.1',
        parent_id: section.id,
      });
      const other = await scope.add('requirement', { framework_id: soc.id, reference: 'CC1.1' });
      expect(await scope.ids('requirement', { framework_id: iso.id })).toEqual(idsOf(section, child));
      expect(await scope.ids('requirement', { framework_id: soc.id })).toEqual(idsOf(other));
      expect(await scope.ids('requirement', { parent_id: section.id })).toEqual(idsOf(child));
      expect(await scope.ids('requirement', { top_level: true })).toEqual(idsOf(section, other));
      expect(await scope.ids('requirement', { top_level: false })).toEqual(idsOf(child));
      expect(await scope.ids('requirement', { is_section: true })).toEqual(idsOf(section));
      expect(await scope.ids('requirement', { is_section: false, framework_id: iso.id })).toEqual(
        idsOf(child),
      );
    },
  );

  filterTest(
    ['requirement.reference'],
    'requirement reference selects exactly that reference, in any letter case, in every framework',
    async () => {
      const scope = await newScope();
      const iso = await scope.add('framework', { name: 'ISO 27001' });
      const soc = await scope.add('framework', { name: 'SOC 2' });
      const a51 = await scope.add('requirement', { framework_id: iso.id, reference: 'A.5.1' });
      await scope.add('requirement', { framework_id: iso.id, reference: 'A.5.10' });
      const cc = await scope.add('requirement', { framework_id: iso.id, reference: 'CC1.1' });
      const socCc = await scope.add('requirement', { framework_id: soc.id, reference: 'CC1.1' });
      expect(await scope.ids('requirement', { reference: 'A.5.1' })).toEqual(idsOf(a51));
      expect(await scope.ids('requirement', { reference: 'cc1.1' })).toEqual(idsOf(cc, socCc));
      expect(await scope.ids('requirement', { reference: 'cc1.1', framework_id: soc.id })).toEqual(
        idsOf(socCc),
      );
      expect(await scope.ids('requirement', { reference: 'A.5' })).toEqual([]);
    },
  );

  filterTest(
    ['requirement.implementation_status', 'requirement.measure_id'],
    'requirement implementation_status and measure_id find the gaps and what a measure covers',
    async () => {
      const scope = await newScope();
      const fw = await scope.add('framework', { name: 'Gaps' });
      const gap = await scope.add('requirement', { framework_id: fw.id, reference: 'G.1' });
      const done = await scope.add('requirement', { framework_id: fw.id, reference: 'G.2' });
      const planned = await scope.add('requirement', { framework_id: fw.id, reference: 'G.3' });
      const implemented = await scope.add('measure', { name: 'Done', state: 'IMPLEMENTED' });
      const later = await scope.add('measure', { name: 'Later', state: 'NOT_STARTED' });
      for (const [requirement, measure] of [
        [done, implemented],
        [planned, later],
      ] as const) {
        await ok(runtime, scope.token, 'linkRequirementMeasure', {
          requirement_id: requirement.id,
          measure_id: measure.id,
        });
      }
      expect(await scope.ids('requirement', { implementation_status: 'not covered' })).toEqual(idsOf(gap));
      expect(await scope.ids('requirement', { implementation_status: ['PLANNED', 'IMPLEMENTED'] })).toEqual(
        idsOf(done, planned),
      );
      expect(await scope.ids('requirement', { measure_id: implemented.id })).toEqual(idsOf(done));
      expect(
        await scope.ids('requirement', { measure_id: later.id, implementation_status: 'IMPLEMENTED' }),
      ).toEqual([]);
    },
  );
});

// ---- unknown keys and coverage ------------------------------------------------------------------------

describe('filter argument', () => {
  for (const spec of REGISTER_SPECS) {
    it(`${spec.kind}: an unknown filter key is invalid_arguments naming it`, async () => {
      const scope = await newScope();
      const refused = await scope.listCall(spec.kind, { bogus_key: 'x' });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).code).toBe('invalid_arguments');
      expect(errorOf(refused).message).toContain('bogus_key');
      expect(JSON.stringify(errorOf(refused).details)).toContain('filter');
    });
  }

  filterTest(
    ['incident.personal_data', 'incident.open_deadlines'],
    'incident personal_data finds the breaches, and open_deadlines those still owing a notification',
    async () => {
      const scope = await newScope();
      const breach = await scope.add('incident', { title: 'Breach', personal_data: true });
      const outage = await scope.add('incident', { title: 'Outage', personal_data: false });
      expect(await scope.ids('incident', { personal_data: true })).toEqual(idsOf(breach));
      expect(await scope.ids('incident', { personal_data: false })).toEqual(idsOf(outage));
      // The breach's GDPR clock runs (the organization follows GDPR by default) until its notice is recorded.
      expect(await scope.ids('incident', { open_deadlines: true })).toEqual(idsOf(breach));
      await scope.add('incident_notification', {
        incident_id: breach.id,
        regime: 'GDPR',
        stage: 'AUTHORITY',
        sent_at: '2026-11-29T09:00:00Z',
      });
      expect(await scope.ids('incident', { open_deadlines: true })).toEqual([]);
      expect(await scope.ids('incident', { open_deadlines: false })).toEqual(idsOf(breach, outage));
    },
  );

  const incidentLinks: [string, string, string][] = [
    ['asset_id', 'asset_ids', 'asset'],
    ['vendor_id', 'vendor_ids', 'vendor'],
    ['data_classification_id', 'data_classification_ids', 'data_classification'],
    ['risk_id', 'risk_ids', 'risk'],
    ['processing_activity_id', 'processing_activity_ids', 'processing_activity'],
    ['obligation_id', 'obligation_ids', 'obligation'],
  ];
  filterTest(
    incidentLinks.map(([filter]) => `incident.${filter}`),
    'incident link filters return the incidents linked to that record',
    async () => {
      const scope = await newScope();
      for (const [filter, list, kind] of incidentLinks) {
        const first = await scope.add(kind);
        const second = await scope.add(kind);
        const one = await scope.add('incident', { title: `One ${kind}`, [list]: [first.id] });
        const both = await scope.add('incident', { title: `Both ${kind}s`, [list]: [first.id, second.id] });
        expect(await scope.ids('incident', { [filter]: first.id }), filter).toEqual(idsOf(one, both));
        expect(await scope.ids('incident', { [filter]: second.id }), filter).toEqual(idsOf(both));
      }
    },
  );

  filterTest(
    ['incident_action.incident_id', 'incident_notification.incident_id'],
    "incident_id returns an incident's timeline and notifications only",
    async () => {
      const scope = await newScope();
      const [a, b] = [await scope.add('incident'), await scope.add('incident')];
      const stepA = await scope.add('incident_action', { incident_id: a.id, action: 'Isolated the host' });
      await scope.add('incident_action', { incident_id: b.id, action: 'Called the vendor' });
      const noticeB = await scope.add('incident_notification', { incident_id: b.id });
      expect(await scope.ids('incident_action', { incident_id: a.id })).toEqual(idsOf(stepA));
      expect(await scope.ids('incident_notification', { incident_id: b.id })).toEqual(idsOf(noticeB));
      expect(await scope.ids('incident_notification', { incident_id: a.id })).toEqual([]);
    },
  );

  filterTest(
    ['processing_activity.transfers', 'processing_activity.vendor_id'],
    'processing_activity transfers finds those sending data outside the EEA, vendor_id those a processor serves',
    async () => {
      const scope = await newScope();
      const payroll = await scope.add('vendor', { name: 'Payroll Co' });
      const abroad = await scope.add('processing_activity', {
        name: 'Support',
        transfer_countries: ['US'],
        transfer_safeguard: 'STANDARD_CONTRACTUAL_CLAUSES',
      });
      const home = await scope.add('processing_activity', { name: 'Payroll', vendor_ids: [payroll.id] });
      expect(await scope.ids('processing_activity', { transfers: true })).toEqual(idsOf(abroad));
      expect(await scope.ids('processing_activity', { transfers: false })).toEqual(idsOf(home));
      expect(await scope.ids('processing_activity', { vendor_id: payroll.id })).toEqual(idsOf(home));
    },
  );

  filterTest(
    ['dpia.status', 'dpia.processing_activity_id'],
    'dpia status finds drafts and decided ones, processing_activity_id those assessing that processing',
    async () => {
      const scope = await newScope();
      const cctv = await scope.add('processing_activity', { name: 'CCTV' });
      const approver = await scope.add('person');
      const draft = await scope.add('dpia', { title: 'Draft', processing_activity_ids: [cctv.id] });
      const approved = await scope.add('dpia', {
        title: 'Approved',
        status: 'APPROVED',
        approver_id: approver.id,
        decision: 'Go ahead with masking',
      });
      expect(approved.approved_on).toBe(today());
      expect(await scope.ids('dpia', { status: 'draft' })).toEqual(idsOf(draft));
      expect(await scope.ids('dpia', { status: ['APPROVED', 'REJECTED'] })).toEqual(idsOf(approved));
      expect(await scope.ids('dpia', { processing_activity_id: cctv.id })).toEqual(idsOf(draft));
    },
  );

  filterTest(
    ['data_subject_request.overdue', 'data_subject_request.processing_activity_id'],
    'data_subject_request overdue finds the unanswered ones past their month, processing_activity_id their processing',
    async () => {
      const scope = await newScope();
      const crm = await scope.add('processing_activity', { name: 'CRM' });
      const late = await scope.add('data_subject_request', {
        received_on: PAST,
        processing_activity_ids: [crm.id],
      });
      await scope.add('data_subject_request', {
        received_on: PAST,
        status: 'COMPLETED',
        response_sent_on: PAST,
      });
      const fresh = await scope.add('data_subject_request', { received_on: today() });
      expect(late.overdue).toBe(true);
      expect(await scope.ids('data_subject_request', { overdue: true })).toEqual(idsOf(late));
      expect(await scope.ids('data_subject_request', { overdue: false })).toHaveLength(2);
      expect(await scope.ids('data_subject_request', { overdue: false })).toContain(String(fresh.id));
      expect(await scope.ids('data_subject_request', { processing_activity_id: crm.id })).toEqual(
        idsOf(late),
      );
    },
  );

  filterTest(
    [
      'access_review.status',
      'access_review.reviewer_id',
      'access_review.due_before',
      'access_review_entry.access_review_id',
      'access_review_entry.reviewer_id',
      'access_review_entry.decided',
      'access_review_entry.decision',
    ],
    'access reviews by status, reviewer and due day; entries by campaign, reviewer and what was decided',
    async () => {
      const scope = await newScope();
      const ada = await scope.add('person', { full_name: 'Ada' });
      const bob = await scope.add('person', { full_name: 'Bob' });
      const q3 = await scope.add('access_review', {
        name: 'Q3',
        due_on: '2026-10-01',
        reviewer_ids: [ada.id],
      });
      const q4 = await scope.add('access_review', {
        name: 'Q4',
        due_on: '2027-01-15',
        status: 'IN_PROGRESS',
        reviewer_ids: [bob.id],
      });
      const kept = await scope.add('access_review_entry', {
        access_review_id: q4.id,
        account: 'ada@corp.example',
        reviewer_id: bob.id,
      });
      const open = await scope.add('access_review_entry', {
        access_review_id: q4.id,
        account: 'old@corp.example',
        reviewer_id: bob.id,
      });
      const other = await scope.add('access_review_entry', {
        access_review_id: q3.id,
        account: 'x@corp.example',
        reviewer_id: ada.id,
      });
      const decided = await ok(runtime, scope.token, 'updateAccessReviewEntry', {
        id: kept.id,
        decision: 'keep',
        decision_comment: 'Still on the team',
      });
      expect((decided.access_review_entry as { decision: string }).decision).toBe('KEEP');
      expect(await scope.ids('access_review', { status: 'in_progress' })).toEqual(idsOf(q4));
      expect(await scope.ids('access_review', { reviewer_id: ada.id })).toEqual(idsOf(q3));
      expect(await scope.ids('access_review', { due_before: '2026-12-31' })).toEqual(idsOf(q3));
      expect(await scope.ids('access_review_entry', { access_review_id: q3.id })).toEqual(idsOf(other));
      expect(await scope.ids('access_review_entry', { reviewer_id: bob.id, decided: false })).toEqual(
        idsOf(open),
      );
      expect(await scope.ids('access_review_entry', { decided: true })).toEqual(idsOf(kept));
      expect(await scope.ids('access_review_entry', { decision: ['KEEP', 'MODIFY'] })).toEqual(idsOf(kept));
    },
  );

  filterTest(
    ['management_review.status', 'management_review.held_after'],
    'management reviews by status and the day they were held',
    async () => {
      const scope = await newScope();
      const old = await scope.add('management_review', {
        title: '2025',
        held_on: '2025-12-10',
        status: 'HELD',
      });
      const next = await scope.add('management_review', { title: '2026', held_on: '2026-12-10' });
      expect(await scope.ids('management_review', { status: 'held' })).toEqual(idsOf(old));
      expect(await scope.ids('management_review', { status: ['PLANNED'] })).toEqual(idsOf(next));
      expect(await scope.ids('management_review', { held_after: '2026-01-01' })).toEqual(idsOf(next));
    },
  );

  it('every declared filter of every register is exercised by a test in this file', () => {
    expect([...exercised].sort()).toEqual(declaredFilters());
  });
});
