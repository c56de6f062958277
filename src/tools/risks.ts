// Risks: likelihood x impact scoring (inherent and residual), status, treatment, and linked measures.

import { eq, gte, lte } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { riskMeasures, risks } from '../db/schema.ts';
import { descriptionField, linkedFilter, nameField, ownerField, ownerFilter } from './common-fields.ts';
import { evidenceIdsRelation } from './evidence.ts';
import { caseInsensitiveEnum, longText, shortText } from './fields.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  required,
  withDefault,
} from './registers/spec.ts';
import { REVIEW_CYCLES, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import { RISK_STATUSES, RISK_TRANSITIONS, RISK_TREATMENTS } from './states.ts';

const level = (what: string) =>
  z.number().int().min(1).max(5).describe(`${what}, 1 (lowest) to 5 (highest).`);
const status = caseInsensitiveEnum(RISK_STATUSES).describe(
  'Risk status; a CLOSED risk can only be reopened (OPEN).',
);
const treatment = caseInsensitiveEnum(RISK_TREATMENTS).describe('Treatment decision.');
/** Exact likelihood/impact filters: a likelihood and an impact of one stage select one cell of the heat map. */
function heatMapCellFilters() {
  const exact = (column: SQLiteColumn, stage: string) =>
    filter(z.number().int().min(1).max(5).describe(`Exact value ${stage}.`), (value) => eq(column, value));
  return {
    inherent_likelihood: exact(risks.inherent_likelihood, 'before measures'),
    inherent_impact: exact(risks.inherent_impact, 'before measures'),
    residual_likelihood: exact(risks.residual_likelihood, 'after measures'),
    residual_impact: exact(risks.residual_impact, 'after measures'),
  };
}

const score = (what: string) => z.number().int().min(1).max(25).describe(what);

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
    'A risk is scored likelihood x impact (1-5 each, so 1-25), before (inherent) and after (residual) its measures.',
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
    residual_likelihood: optional(level('Likelihood after measures (defaults to inherent_likelihood)')),
    residual_impact: optional(level('Impact after measures (defaults to inherent_impact)')),
    residual_score: derived(
      score('residual_likelihood x residual_impact (derived); filter with min_residual_score.'),
    ),
    note: optional(longText().describe('Free-text note, e.g. the rationale for accepting the risk.')),
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
    min_residual_score: filter(score('At least this (15 and up: high risks).'), (value) =>
      gte(risks.residual_score, value),
    ),
    max_residual_score: filter(score('At most this.'), (value) => lte(risks.residual_score, value)),
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
  prepare(next: Row) {
    next.residual_likelihood ??= next.inherent_likelihood;
    next.residual_impact ??= next.inherent_impact;
    next.inherent_score = Number(next.inherent_likelihood) * Number(next.inherent_impact);
    next.residual_score = Number(next.residual_likelihood) * Number(next.residual_impact);
  },
  hints: {
    list: 'High risks: filter.min_residual_score 15, order_by residual_score DESC. A heat-map cell: filter.inherent_likelihood + inherent_impact (or the residual pair).',
    add: 'Scores are likelihood x impact; residual values default to the inherent ones.',
    update:
      'Status, treatment, owner, or lower the residual likelihood and impact once measures work; scores are recomputed.',
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
