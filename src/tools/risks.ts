// Risks: likelihood x impact scoring (inherent and residual) on the organization's risk method, with levels and the
// appetite derived from it; status and treatment that agree; acceptance through risk acceptances; linked measures.

import { eq, gte, inArray, isNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { riskMeasures, risks } from '../db/schema.ts';
import { descriptionField, linkedFilter, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, dateSchema, longText, shortText } from './fields.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  ruleRefusal,
  touches,
  type Warning,
  withDefault,
} from './registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import {
  aboveAppetite,
  DEFAULT_RISK_METHOD,
  levelOf,
  MAX_SCORE,
  type RiskMethod,
  SCALE_LEVELS,
} from './risk-method.ts';
import { RISK_STATUSES, RISK_TRANSITIONS, RISK_TREATMENTS } from './states.ts';

const level = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(SCALE_LEVELS.max)
    .describe(`${what}, 1 (lowest) to the top of the organization's scale (5 by default).`);
const status = caseInsensitiveEnum(RISK_STATUSES).describe(
  'Risk status; a CLOSED risk can only be reopened (OPEN).',
);
const treatment = caseInsensitiveEnum(RISK_TREATMENTS).describe('Treatment decision.');
/** Exact likelihood/impact filters: a likelihood and an impact of one stage select one cell of the heat map. */
function heatMapCellFilters() {
  const exact = (column: SQLiteColumn, stage: string) =>
    filter(z.number().int().min(1).max(SCALE_LEVELS.max).describe(`Exact value ${stage}.`), (value) =>
      eq(column, value),
    );
  return {
    inherent_likelihood: exact(risks.inherent_likelihood, 'before measures'),
    inherent_impact: exact(risks.inherent_impact, 'before measures'),
    residual_likelihood: exact(risks.residual_likelihood, 'after measures'),
    residual_impact: exact(risks.residual_impact, 'after measures'),
  };
}

const score = (what: string) => z.number().int().min(1).max(MAX_SCORE).describe(what);

/** Whether a risk has a current acceptance: NONE (never, or revoked), CURRENT, or EXPIRED. */
export const ACCEPTANCE_STATUSES = ['NONE', 'CURRENT', 'EXPIRED'] as const;

export function acceptanceStatusOf(row: Row, today: string): (typeof ACCEPTANCE_STATUSES)[number] {
  if (typeof row.accepted_until !== 'string') return 'NONE';
  return row.accepted_until >= today ? 'CURRENT' : 'EXPIRED';
}

/** SQL: an ACCEPTED risk without a current acceptance (none, or run out before `today`): it has come due. */
export function acceptanceDueCondition(today: string): SQL {
  return sql`${risks.status} = 'ACCEPTED' and (${risks.accepted_until} is null or ${risks.accepted_until} < ${today})`;
}

/** The organization's method, which the rules read (the tools read the settings first: usesSettings). */
function methodOf(rules: RuleContext): RiskMethod {
  return rules.settings?.risk_method ?? DEFAULT_RISK_METHOD;
}

interface Problem {
  /** The field named in the refusal or warning. */
  field: string;
  /** The fields whose change asks the rule. */
  reads: readonly string[];
  message: string;
  fix: string;
}

const SCORES = ['inherent_likelihood', 'inherent_impact', 'residual_likelihood', 'residual_impact'] as const;

/**
 * The rules a risk must keep, each with the fields it reads: a change that gives one of them is refused while the
 * rule fails; a risk written before the rule existed keeps its values and gets the problem as a warning.
 */
function riskProblems(next: Row, current: Row | null, rules: RuleContext): Problem[] {
  const method = methodOf(rules);
  const problems: Problem[] = [];
  const scales = { likelihood: method.likelihood.length, impact: method.impact.length };
  for (const field of SCORES) {
    const top = field.endsWith('likelihood') ? scales.likelihood : scales.impact;
    if (Number(next[field]) > top)
      problems.push({
        field,
        reads: [field],
        message: `${field} ${String(next[field])} is beyond the organization's scale (1-${top}).`,
        fix: `Give a value from 1 to ${top} (the scales: getOrganizationSettings).`,
      });
  }
  for (const axis of ['likelihood', 'impact'] as const) {
    const inherent = Number(next[`inherent_${axis}`]);
    const residual = Number(next[`residual_${axis}`]);
    if (residual > inherent)
      problems.push({
        field: `residual_${axis}`,
        reads: [`inherent_${axis}`, `residual_${axis}`],
        message: `The residual ${axis} (${residual}) is above the inherent one (${inherent}): measures lower a risk, they do not raise it.`,
        fix: `Give residual_${axis} at most ${inherent}, or raise inherent_${axis} if the risk was underrated.`,
      });
  }
  const status = String(next.status);
  const treatment = String(next.treatment);
  if (status === 'ACCEPTED' && treatment !== 'ACCEPT')
    problems.push({
      field: 'treatment',
      reads: ['status', 'treatment'],
      message: `Status ACCEPTED contradicts treatment ${treatment}.`,
      fix: 'An accepted risk has treatment ACCEPT: set treatment ACCEPT, or choose another status.',
    });
  if (treatment === 'ACCEPT' && (status === 'IN_TREATMENT' || status === 'MITIGATED'))
    problems.push({
      field: 'status',
      reads: ['status', 'treatment'],
      message: `Status ${status} contradicts treatment ACCEPT (nothing is being treated).`,
      fix: 'Set treatment MITIGATE, TRANSFER or AVOID, or status OPEN until the acceptance is recorded.',
    });
  if (status === 'ACCEPTED') {
    const reads = ['status', 'treatment', ...SCORES];
    if (current === null)
      problems.push({
        field: 'status',
        reads,
        message: 'A risk is ACCEPTED through a recorded acceptance, which a new risk cannot have yet.',
        fix: 'Add it OPEN, then record the acceptance with addRiskAcceptance (approver, rationale, expiry): that sets ACCEPTED.',
      });
    else if (acceptanceStatusOf(next, rules.today) !== 'CURRENT')
      problems.push({
        field: 'status',
        reads,
        message:
          acceptanceStatusOf(next, rules.today) === 'EXPIRED'
            ? `Its acceptance ran out on ${String(next.accepted_until)}.`
            : 'It has no current acceptance.',
        fix: 'Record one with addRiskAcceptance (which sets ACCEPTED), or choose another status.',
      });
    else if (Number(next.residual_score) > Number(next.accepted_score))
      problems.push({
        field: 'residual_likelihood',
        reads,
        message: `Its acceptance covers a residual score up to ${String(next.accepted_score)}, not ${String(next.residual_score)}.`,
        fix: 'Record a new acceptance at this level with addRiskAcceptance, or set status OPEN in the same call.',
      });
  }
  return problems;
}

/** Refuses a change that asks a failing rule (touches its fields); on add, every rule. */
function checkRisk(next: Row, current: Row | null, rules: RuleContext): void {
  for (const problem of riskProblems(next, current, rules))
    if (touches(current, rules, problem.reads))
      throw ruleRefusal(problem.field, problem.message, problem.fix);
}

function riskWarnings(next: Row, current: Row | null, rules: RuleContext): Warning[] {
  const method = methodOf(rules);
  const warnings: Warning[] = riskProblems(next, current, rules).map((problem) => ({
    field: problem.field,
    message: `${problem.message} ${problem.fix}`,
  }));
  if (next.status !== 'CLOSED' && !next.owner_id && aboveAppetite(method, Number(next.residual_score)))
    warnings.push({
      field: 'owner_id',
      message: `The residual level ${String(next.residual_level)} is above the appetite (${method.appetite}): such a risk needs an owner. Set owner_id.`,
    });
  return warnings;
}

/** Levels and the appetite of the scores, by the organization's method. */
function deriveLevels(next: Row, rules: RuleContext): void {
  const method = methodOf(rules);
  next.inherent_level = levelOf(method, Number(next.inherent_score)).name;
  next.residual_level = levelOf(method, Number(next.residual_score)).name;
  next.above_appetite = aboveAppetite(method, Number(next.residual_score));
}

const levelName = (what: string) =>
  z
    .string()
    .describe(`${what} by the organization's risk method (default: low 1-7, medium 8-14, high 15-25).`);

/** A level filter: one level name or several, in any case. */
function levelFilter(column: SQLiteColumn, stage: string) {
  const name = shortText(40);
  return filter(
    z.union([name, z.array(name).min(1).max(10)]).describe(`Any of these ${stage} levels, e.g. "high".`),
    (value) => {
      const names = (Array.isArray(value) ? value : [value]).map((item) => String(item).toLowerCase());
      return inArray(sql`lower(${column})`, names);
    },
  );
}

export const riskSpec: RegisterSpec = {
  kind: 'risk',
  prefix: 'rsk',
  label: 'risk',
  labelPlural: 'risks',
  noun: 'Risk',
  nounPlural: 'Risks',
  key: 'risk',
  listKey: 'risks',
  table: risks,
  about:
    "A risk is scored likelihood x impact (the organization's risk method), before (inherent) and after (residual) its measures.",
  fields: {
    name: nameField('Loss of customer data through a compromised laptop'),
    description: descriptionField('risk scenario'),
    category: withDefault(
      shortText(100).describe('Free text, e.g. "Security", "Privacy" (default "General").'),
      'General',
    ),
    status: withDefault(status, 'OPEN'),
    treatment: withDefault(treatment, 'MITIGATE'),
    owner_id: ownerField(),
    inherent_likelihood: required(level('Likelihood before measures')),
    inherent_impact: required(level('Impact before measures')),
    inherent_score: derived(score('inherent_likelihood x inherent_impact (derived).')),
    inherent_level: derived(levelName('Level of inherent_score')),
    residual_likelihood: optional(level('Likelihood after measures (defaults to inherent_likelihood)')),
    residual_impact: optional(level('Impact after measures (defaults to inherent_impact)')),
    residual_score: derived(
      score('residual_likelihood x residual_impact (derived); filter with min_residual_score.'),
    ),
    residual_level: derived(levelName('Level of residual_score')),
    above_appetite: derived(z.boolean().describe('The residual level is above the appetite (derived).')),
    note: optional(longText().describe('Free-text note.')),
    accepted_until: {
      ...derived(
        dateSchema.nullable().describe('Expiry of its current acceptance (addRiskAcceptance); null if none.'),
        { label: 'Accepted until' },
      ),
      maintained: true,
    },
    accepted_score: {
      ...derived(score('Residual score its current acceptance covers; null if none.').nullable()),
      maintained: true,
    },
    acceptance_status: derived(
      caseInsensitiveEnum(ACCEPTANCE_STATUSES).describe(
        'NONE, CURRENT or EXPIRED (derived): an ACCEPTED risk needs a CURRENT one.',
      ),
    ),
    ...reviewFields(),
  },
  relations: [
    {
      field: 'measure_ids',
      table: riskMeasures,
      ownerColumn: riskMeasures.risk_id,
      targetColumn: riskMeasures.measure_id,
      organizationColumn: riskMeasures.organization_id,
      target: 'measure',
      writable: false,
      description:
        'Ids of the measures that mitigate this risk (change with linkRiskMeasure / unlinkRiskMeasure).',
      label: 'Measures',
      hint: 'The measures that mitigate this risk.',
      links: {
        link: {
          name: 'linkRiskMeasure',
          title: 'Link a measure to a risk',
          description:
            'Record that a measure mitigates a risk (same organization; linking twice is harmless); getRisk lists it in measure_ids. Then lower the residual likelihood/impact with updateRisk.',
        },
        unlink: {
          name: 'unlinkRiskMeasure',
          title: 'Unlink a measure from a risk',
          description:
            'Remove the link between a risk and a measure; neither record is deleted. Unlinking a pair that is not linked is harmless.',
        },
      },
    },
    evidenceIdsRelation(),
  ],
  search: [risks.name, risks.description],
  filters: {
    status: enumFilter(status, risks.status, 'Any of these statuses.'),
    treatment: enumFilter(treatment, risks.treatment, 'Any of these treatments.'),
    min_residual_score: filter(score('At least this.'), (value) => gte(risks.residual_score, value)),
    max_residual_score: filter(score('At most this.'), (value) => lte(risks.residual_score, value)),
    residual_level: levelFilter(risks.residual_level, 'residual'),
    inherent_level: levelFilter(risks.inherent_level, 'inherent'),
    above_appetite: filter(z.boolean().describe('true: only those above the appetite.'), (value) =>
      eq(risks.above_appetite, value),
    ),
    acceptance_due: filter(
      z.boolean().describe('true: ACCEPTED without a current acceptance (expired or none): due.'),
      (value, today) => (value ? acceptanceDueCondition(today) : sql`not (${acceptanceDueCondition(today)})`),
    ),
    acceptance_status: filter(
      caseInsensitiveEnum(ACCEPTANCE_STATUSES).describe('Only those whose acceptance is in this state.'),
      (value, today) =>
        value === 'NONE'
          ? isNull(risks.accepted_until)
          : value === 'CURRENT'
            ? gte(risks.accepted_until, today)
            : lt(risks.accepted_until, today),
    ),
    owner_id: ownerFilter(risks.owner_id),
    measure_id: linkedFilter(
      { ownerId: risks.id, owner: riskMeasures.risk_id, target: riskMeasures.measure_id },
      { prefix: 'msr', what: 'Measure' },
      'Only those this measure mitigates (`msr_...`).',
    ),
    ...heatMapCellFilters(),
    ...reviewFilters(REVIEW_CYCLES.risk),
  },
  orderFields: {
    name: { column: risks.name },
    inherent_score: { column: risks.inherent_score },
    residual_score: { column: risks.residual_score },
    ...reviewOrderField(risks.next_review_on),
  },
  review: REVIEW_CYCLES.risk,
  transitions: { status: RISK_TRANSITIONS },
  usesSettings: true,
  prepare(next, current, rules) {
    next.residual_likelihood ??= next.inherent_likelihood;
    next.residual_impact ??= next.inherent_impact;
    next.inherent_score = Number(next.inherent_likelihood) * Number(next.inherent_impact);
    next.residual_score = Number(next.residual_likelihood) * Number(next.residual_impact);
    deriveLevels(next, rules);
    checkRisk(next, current, rules);
  },
  warnings: riskWarnings,
  present: (row, today) => ({ ...row, acceptance_status: acceptanceStatusOf(row, today) }),
  hints: {
    list: 'Above appetite: filter.above_appetite. Heat-map cell: filter.inherent_likelihood + inherent_impact. Acceptance running out: filter.acceptance_due.',
    add: "Scores are likelihood x impact on the organization's scales; residual values default to the inherent ones and may not exceed them. To accept a risk, record addRiskAcceptance.",
    update:
      'Status, treatment, owner, or lower the residual likelihood and impact once measures work; scores and levels are recomputed.',
  },
  example: {
    organization_id: 'org_...',
    name: 'Phishing leads to account takeover',
    category: 'Security',
    inherent_likelihood: 4,
    inherent_impact: 4,
    residual_likelihood: 2,
    residual_impact: 4,
    treatment: 'MITIGATE',
  },
};
