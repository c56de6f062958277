// The organization's risk method, risk acceptances as records, the integrity rules and their warnings, and the
// statement of applicability and risk register published as document versions with a PDF (issue 35, items 3-6).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { pdfText } from '../pdf-text.ts';

const RESULTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results');

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-06-15T09:00:00.000Z');
let token: string;
let made = 0;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
});

afterAll(async () => {
  await runtime?.cleanup();
});

/** A fresh organization of its own OWNER, with two people. */
async function world() {
  made += 1;
  const owner = await createActor(runtime, `owner-${made}`);
  const org = await createOrg(runtime, owner, `Method Org ${made}`);
  token = await createToken(runtime, owner, { organizationIds: [org] });
  const person = async (name: string, email = `${name.toLowerCase()}-${made}@example.com`) =>
    (
      (await ok(runtime, token, 'addPerson', { organization_id: org, full_name: name, email })) as {
        person: Row;
      }
    ).person;
  // `self` is the caller as a person (same email): an approver who can approve with this token.
  return { org, ada: await person('Ada'), bob: await person('Bob'), self: await person('Self', owner.email) };
}

const call = (tool: string, args: Row) => callDirect(runtime, token, tool, args);
const body = async (tool: string, args: Row) => ok(runtime, token, tool, args);

const FOUR_BY_FOUR = {
  likelihood: ['Rare', 'Possible', 'Likely', 'Certain'],
  impact: ['Minor', 'Moderate', 'Major', 'Severe'],
  levels: [
    { name: 'low', min_score: 1, colour: 'GREEN' },
    { name: 'medium', min_score: 4, colour: 'YELLOW' },
    { name: 'high', min_score: 9, colour: 'ORANGE' },
    { name: 'critical', min_score: 13, colour: 'dark_red' },
  ],
  appetite: 'Medium',
};

describe('the risk method (a setting)', () => {
  it('is the 5x5 by default, and a new one re-derives every risk level, with a history row', async () => {
    const { org } = await world();
    const risk = (await body('addRisk', {
      organization_id: org,
      name: 'Ransomware',
      inherent_likelihood: 3,
      inherent_impact: 4,
      residual_likelihood: 2,
      residual_impact: 3,
    })) as { risk: Row };
    // Default: 12 medium, 6 low, within the appetite (medium).
    expect(risk.risk).toMatchObject({
      inherent_score: 12,
      inherent_level: 'medium',
      residual_score: 6,
      residual_level: 'low',
      above_appetite: false,
    });
    const settings = (await body('updateOrganizationSettings', {
      organization_id: org,
      risk_method: FOUR_BY_FOUR,
    })) as { settings: { risk_method: Row } };
    expect(settings.settings.risk_method).toMatchObject({
      appetite: 'medium',
      high_score: 9,
      levels: [
        { name: 'low', min_score: 1, colour: 'GREEN' },
        { name: 'medium', min_score: 4, colour: 'YELLOW' },
        { name: 'high', min_score: 9, colour: 'ORANGE' },
        { name: 'critical', min_score: 13, colour: 'DARK_RED' },
      ],
    });
    // 12 is high on the 4x4 (9-12), 6 medium: the scores stay, the levels follow.
    const after = ((await body('getRisk', { id: risk.risk.id })) as { risk: Row }).risk;
    expect(after).toMatchObject({
      inherent_score: 12,
      inherent_level: 'high',
      residual_score: 6,
      residual_level: 'medium',
      above_appetite: false,
    });
    expect(await idsOf('listRisks', org, { inherent_level: 'high' })).toEqual([risk.risk.id]);
    const summary = (await body('getComplianceSummary', { organization_id: org })) as { risks: Row };
    expect(summary.risks).toMatchObject({
      residual_score_threshold: 9,
      by_residual_level: { low: 0, medium: 1, high: 0, critical: 0 },
    });
    const changes = (await body('listChanges', {
      organization_id: org,
      filter: { record_id: org },
    })) as { changes: Row[] };
    expect(changes.changes.map((change) => change.tool)).toContain('updateOrganizationSettings');
    // On the 4x4, a likelihood of 5 is beyond the scale: refused, naming the field and the scale.
    const beyond = await call('updateRisk', { id: risk.risk.id, inherent_likelihood: 5 });
    expect(beyond.status).toBe(400);
    expect(errorOf(beyond).message).toContain(
      "inherent_likelihood 5 is beyond the organization's scale (1-4)",
    );
  });

  it('refuses a method whose thresholds do not ascend from 1 or whose appetite is not a level', async () => {
    const { org } = await world();
    const refused = await call('updateOrganizationSettings', {
      organization_id: org,
      risk_method: {
        ...FOUR_BY_FOUR,
        levels: [
          { name: 'low', min_score: 2, colour: 'GREEN' },
          { name: 'high', min_score: 2, colour: 'RED' },
        ],
        appetite: 'moderate',
      },
    });
    expect(refused.status).toBe(400);
    const paths = (errorOf(refused).details as { path: string }[]).map((detail) => detail.path);
    expect(paths).toEqual(
      expect.arrayContaining(['risk_method.levels.0.min_score', 'risk_method.levels.1.min_score']),
    );
    expect(paths).toContain('risk_method.appetite');
    const settings = (await body('getOrganizationSettings', { organization_id: org })) as {
      settings: { risk_method: Row };
    };
    expect(settings.settings.risk_method).toMatchObject({ appetite: 'medium', high_score: 15 });
  });

  it('refuses scales shorter than the values risks hold, and changes nothing', async () => {
    const { org } = await world();
    await body('addRisk', {
      organization_id: org,
      name: 'Flood',
      inherent_likelihood: 5,
      inherent_impact: 2,
    });
    const refused = await call('updateOrganizationSettings', {
      organization_id: org,
      risk_method: FOUR_BY_FOUR,
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toContain('1 risk has a likelihood above 4 or an impact above 4');
    const settings = (await body('getOrganizationSettings', { organization_id: org })) as {
      settings: { risk_method: { likelihood: string[] } };
    };
    expect(settings.settings.risk_method.likelihood).toHaveLength(5);
  });
});

async function idsOf(tool: string, org: string, filter: Row): Promise<unknown[]> {
  const answer = (await body(tool, { organization_id: org, filter })) as Row;
  const key = Object.keys(answer).find((name) => Array.isArray(answer[name])) as string;
  return (answer[key] as Row[]).map((row) => row.id);
}

describe('risk acceptances', () => {
  const highRisk = (org: string, extra: Row = {}) =>
    body('addRisk', {
      organization_id: org,
      name: `High ${++made}`,
      inherent_likelihood: 5,
      inherent_impact: 5,
      treatment: 'ACCEPT',
      ...extra,
    }).then((answer) => (answer as { risk: Row }).risk);
  const accept = (risk: Row, approver: Row, expires = '2026-12-31') =>
    call('addRiskAcceptance', {
      organization_id: risk.organization_id,
      risk_id: risk.id,
      approver_id: approver.id,
      rationale: 'Insurance covers the loss.',
      expires_on: expires,
    });

  it('refuses a risk above the appetite without an owner, or approved by its owner', async () => {
    const { org, ada, bob } = await world();
    const unowned = await highRisk(org);
    const noOwner = await accept(unowned, ada);
    expect(noOwner.status).toBe(400);
    expect(errorOf(noOwner).message).toBe(
      "The risk's residual level high is above the appetite (medium) and it has no owner. Set its owner_id (updateRisk) first: a risk above the appetite needs one.",
    );
    const owned = await highRisk(org, { owner_id: ada.id });
    const byOwner = await accept(owned, ada);
    expect(byOwner.status).toBe(400);
    expect(errorOf(byOwner).details).toEqual([
      {
        path: 'approver_id',
        message: 'Choose an approver other than the owner (setting independent_risk_acceptance).',
      },
    ]);
    expect(((await body('getRisk', { id: owned.id })) as { risk: Row }).risk.status).toBe('OPEN');
    // Someone else approves: the risk is ACCEPTED until the expiry, at the level accepted.
    const accepted = await accept(owned, bob);
    expect(accepted.status).toBe(200);
    expect((accepted.body as { risk_acceptance: Row }).risk_acceptance).toMatchObject({
      accepted_level: 'high',
      accepted_score: 25,
      accepted_on: '2026-06-15',
      status: 'CURRENT',
    });
    expect(((await body('getRisk', { id: owned.id })) as { risk: Row }).risk).toMatchObject({
      status: 'ACCEPTED',
      treatment: 'ACCEPT',
      accepted_until: '2026-12-31',
      accepted_score: 25,
      acceptance_status: 'CURRENT',
    });
  });

  it('takes only the approvers the settings name', async () => {
    const { org, ada, bob } = await world();
    await body('updateOrganizationSettings', {
      organization_id: org,
      risk_acceptance_approver_ids: [bob.id],
    });
    const risk = await highRisk(org, { owner_id: ada.id, inherent_likelihood: 1 });
    const refused = await accept(risk, ada);
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toContain('This person may not approve risk acceptances.');
    expect((await accept(risk, bob)).status).toBe(200);
  });

  it('an expired acceptance makes the risk due; ACCEPTED without a current one is refused', async () => {
    const { org, ada, bob } = await world();
    const risk = await highRisk(org, { owner_id: ada.id });
    expect((await accept(risk, bob, '2026-07-01')).status).toBe(200);
    clock = new Date('2026-07-02T09:00:00.000Z');
    try {
      expect(((await body('getRisk', { id: risk.id })) as { risk: Row }).risk).toMatchObject({
        status: 'ACCEPTED',
        acceptance_status: 'EXPIRED',
      });
      expect(await idsOf('listRisks', org, { acceptance_due: true })).toEqual([risk.id]);
      const summary = (await body('getComplianceSummary', { organization_id: org })) as { risks: Row };
      expect(summary.risks.acceptances_due).toBe(1);
      const other = await highRisk(org, { owner_id: ada.id });
      const refused = await call('updateRisk', { id: other.id, status: 'ACCEPTED' });
      expect(refused.status).toBe(400);
      expect(errorOf(refused).message).toBe(
        'It has no current acceptance. Record one with addRiskAcceptance (which sets ACCEPTED), or choose another status.',
      );
    } finally {
      clock = new Date('2026-06-15T09:00:00.000Z');
    }
  });
});

describe('integrity rules', () => {
  it('refuses a residual above the inherent one and a status that contradicts the treatment, naming the field', async () => {
    const { org } = await world();
    const above = await call('addRisk', {
      organization_id: org,
      name: 'Odd',
      inherent_likelihood: 2,
      inherent_impact: 2,
      residual_likelihood: 5,
      residual_impact: 5,
    });
    expect(above.status).toBe(400);
    expect(errorOf(above).details).toEqual([
      {
        path: 'residual_likelihood',
        message:
          'Give residual_likelihood at most 2, or raise inherent_likelihood if the risk was underrated.',
      },
    ]);
    const contradicts = await call('addRisk', {
      organization_id: org,
      name: 'Contradiction',
      inherent_likelihood: 2,
      inherent_impact: 2,
      status: 'IN_TREATMENT',
      treatment: 'ACCEPT',
    });
    expect(contradicts.status).toBe(400);
    expect(errorOf(contradicts).message).toContain('Status IN_TREATMENT contradicts treatment ACCEPT');
    const imported = await call('importRecords', {
      organization_id: org,
      kind: 'risk',
      csv: 'Name,Inherent likelihood,Inherent impact,Residual likelihood,Residual impact\nOdd,2,2,5,5\n',
      dry_run: true,
    });
    expect(imported.status).toBe(200);
    expect((imported.body as { errors: Row[] }).errors).toEqual([
      expect.objectContaining({ row: 2, field: 'residual_likelihood' }),
    ]);
    expect(await idsOf('listRisks', org, {})).toEqual([]);
  });

  it('answers warnings for a risk above the appetite without an owner and a requirement without justification', async () => {
    const { org } = await world();
    const risk = (await body('addRisk', {
      organization_id: org,
      name: 'Unowned',
      inherent_likelihood: 5,
      inherent_impact: 4,
    })) as { warnings: Row[] };
    expect(risk.warnings).toEqual([
      {
        field: 'owner_id',
        message:
          'The residual level high is above the appetite (medium): such a risk needs an owner. Set owner_id.',
      },
    ]);
    const framework = (await body('addFramework', { organization_id: org, name: 'ISO' })) as {
      framework: Row;
    };
    const requirement = (await body('addRequirement', {
      organization_id: org,
      framework_id: framework.framework.id,
      reference: 'A.1',
      title: 'Policies',
    })) as { warnings: Row[] };
    expect(requirement.warnings.map((warning) => warning.field)).toEqual(['justification']);
  });

  it('closes a nonconformity only with root cause, corrective action and an effective check', async () => {
    const { org, ada } = await world();
    const added = (await body('addNonconformity', {
      organization_id: org,
      reference_id: 'NC-1',
      status: 'IN_PROGRESS',
      corrective_action: 'x',
    })) as { nonconformity: Row };
    const id = added.nonconformity.id;
    const refused = await call('updateNonconformity', { id, status: 'CLOSED' });
    expect(refused.status).toBe(409);
    expect(errorOf(refused).details).toMatchObject({
      field: 'root_cause',
      missing: [
        'root_cause',
        'effectiveness_checked_on',
        'effectiveness_checked_by_id',
        'effectiveness_result',
      ],
    });
    const check = {
      root_cause: 'No review owner',
      effectiveness_checked_on: '2026-06-10',
      effectiveness_checked_by_id: ada.id,
    };
    const notEffective = await call('updateNonconformity', {
      id,
      status: 'CLOSED',
      ...check,
      effectiveness_result: 'NOT_EFFECTIVE',
    });
    expect(notEffective.status).toBe(409);
    expect(errorOf(notEffective).message).toContain('The corrective action was not effective');
    const closed = (await body('updateNonconformity', {
      id,
      status: 'CLOSED',
      ...check,
      effectiveness_result: 'EFFECTIVE',
    })) as { nonconformity: Row };
    expect(closed.nonconformity).toMatchObject({ status: 'CLOSED', closure_incomplete: false });
  });

  it('keeps references unique: a second nonconformity, audit or obligation with one is a conflict', async () => {
    const { org } = await world();
    const framework = (await body('addFramework', { organization_id: org, name: 'ISO' })) as {
      framework: Row;
    };
    for (const [tool, args] of [
      ['addNonconformity', { reference_id: 'NC-7' }],
      ['addAudit', { framework_id: framework.framework.id, reference: 'AUD-7' }],
      ['addObligation', { requirement: 'Keep records', reference: 'OBL-7' }],
    ] as const) {
      expect((await call(tool, { organization_id: org, ...args })).status, tool).toBe(200);
      const again = await call(tool, { organization_id: org, ...args });
      expect(again.status, tool).toBe(409);
      expect(errorOf(again).code).toBe('conflict');
    }
  });

  it('refuses mapping a measure to a section heading', async () => {
    const { org } = await world();
    const framework = (await body('addFramework', { organization_id: org, name: 'ISO' })) as {
      framework: Row;
    };
    const section = (await body('addRequirement', {
      organization_id: org,
      framework_id: framework.framework.id,
      reference: 'A.5',
      title: 'Organizational controls',
      is_section: true,
    })) as { requirement: Row };
    const measure = (await body('addMeasure', { organization_id: org, name: 'MFA' })) as { measure: Row };
    const refused = await call('linkRequirementMeasure', {
      requirement_id: section.requirement.id,
      measure_id: measure.measure.id,
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toBe(
      'A.5 is a section: it is not assessed, so measures are mapped to its requirements (it has none yet).',
    );
    expect(
      ((await body('getMeasure', { id: measure.measure.id })) as { measure: Row }).measure.requirement_ids,
    ).toEqual([]);
  });
});

describe('published statement of applicability and risk register', () => {
  it('refuses while a row lacks its justification, then writes version 1 and 2 with a PDF that reads back', async () => {
    const { org, self: ada } = await world();
    const framework = (await body('addFramework', { organization_id: org, name: 'ISO 27001' })) as {
      framework: Row;
    };
    const frameworkId = framework.framework.id;
    const requirement = (reference: string, justification?: string) =>
      body('addRequirement', {
        organization_id: org,
        framework_id: frameworkId,
        reference,
        title: `Control ${reference}`,
        ...(justification ? { justification } : {}),
      }).then((answer) => (answer as { requirement: Row }).requirement);
    const first = await requirement('A.5.1', 'Required by ISO 27001 clause 6.1.3');
    const second = await requirement('A.5.2');
    const policy = (await body('addDocument', {
      organization_id: org,
      title: 'Information security policy',
      requirement_ids: [first.id],
    })) as { document: Row };
    expect(await idsOf('listDocuments', org, { requirement_id: first.id })).toEqual([policy.document.id]);

    const refused = await call('publishStatementOfApplicability', {
      framework_id: frameworkId,
      approver_ids: [ada.id],
    });
    expect(refused.status).toBe(400);
    expect(errorOf(refused).message).toContain('1 requirement has no justification');
    expect(errorOf(refused).message).toContain('A.5.2');
    await body('updateRequirement', { id: second.id, justification: 'Risk assessment R-12' });

    const published = (await body('publishStatementOfApplicability', {
      framework_id: frameworkId,
      approver_ids: [ada.id],
    })) as { document: Row; version: Row; download_url: string };
    expect(published.document).toMatchObject({ type: 'STATEMENT_OF_APPLICABILITY', status: 'IN_REVIEW' });
    expect(published.version).toMatchObject({ number: 1, status: 'IN_REVIEW' });
    const response = await runtime.app.fetch(new Request(new URL(published.download_url, BASE)));
    expect(response.status).toBe(200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Kept for the record: the statement as the server renders it (test-results/published-soa.pdf).
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'published-soa.pdf'), bytes);
    const read = await pdfText(bytes);
    // Cells wrap within their columns: the text is read with its line breaks as spaces.
    const text = read.pages.join('\n').replace(/\s+/g, ' ');
    expect(text).toContain('A.5.1');
    expect(text).toContain('Required by ISO 27001 clause 6.1.3');
    expect(text).toContain('Information security policy');
    expect(text).toContain('Risk assessment R-12');
    expect(text).toMatch(/Page 1 of \d+/);

    // A generated document's content is not edited by hand.
    const edited = await call('updateDocument', { id: published.document.id, content: 'Hand-written' });
    expect(edited.status).toBe(400);
    expect(errorOf(edited).message).toContain('is not edited by hand');

    const approved = (await body('approveDocument', { id: published.document.id })) as { version: Row };
    expect(approved.version).toMatchObject({ number: 1, status: 'APPROVED' });
    const again = (await body('publishStatementOfApplicability', { framework_id: frameworkId })) as {
      document: Row;
      version: Row;
    };
    expect(again.document.id).toBe(published.document.id);
    expect(again.version).toMatchObject({ number: 2, status: 'IN_REVIEW' });
    expect(await idsOf('listDocuments', org, { generated: true })).toEqual([published.document.id]);
  });

  it('publishes the risk register with its levels and the accepted risks', async () => {
    const { org, ada, bob } = await world();
    const risk = (await body('addRisk', {
      organization_id: org,
      name: 'Supplier outage',
      inherent_likelihood: 2,
      inherent_impact: 3,
      treatment: 'ACCEPT',
      owner_id: ada.id,
    })) as { risk: Row };
    await body('addRiskAcceptance', {
      organization_id: org,
      risk_id: risk.risk.id,
      approver_id: bob.id,
      rationale: 'Second supplier contracted.',
      expires_on: '2026-12-31',
    });
    const published = (await body('publishRiskRegister', {
      organization_id: org,
      owner_id: ada.id,
      approver_ids: [bob.id],
    })) as { document: Row; version: Row; download_url: string };
    expect(published.document).toMatchObject({ type: 'RISK_REGISTER', owner_id: ada.id });
    const response = await runtime.app.fetch(new Request(new URL(published.download_url, BASE)));
    const text = (await pdfText(new Uint8Array(await response.arrayBuffer()))).pages.join('\n');
    expect(text).toContain('Supplier outage');
    expect(text).toContain('2 x 3 = 6 (low)');
    expect(text).toContain('2026-12-31');
  });
});
