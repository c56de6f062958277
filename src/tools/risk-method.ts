// The organization's risk method: likelihood and impact scales (3 to 10 labelled levels), risk levels by score
// thresholds (with a colour for the heat maps) and the appetite. Scores are likelihood x impact; a score's level is
// the last level whose min_score it reaches. The default is the 5x5 the service always had (low 1-7, medium 8-14,
// high 15-25, appetite medium), so risks scored before the setting existed keep their meaning.
import { type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { caseInsensitiveEnum, shortText } from './fields.ts';

/** Heat-map colours, named: the web has a style for each (its stylesheet allows no colour given inline). */
export const RISK_COLOURS = [
  'GREEN',
  'LIME',
  'YELLOW',
  'AMBER',
  'ORANGE',
  'RED',
  'DARK_RED',
  'BLUE',
  'GREY',
] as const;
export type RiskColour = (typeof RISK_COLOURS)[number];

export const SCALE_LEVELS = { min: 3, max: 10 } as const;
export const RISK_LEVELS = { min: 2, max: 10 } as const;
/** The largest score of any method: 10 x 10. */
export const MAX_SCORE = SCALE_LEVELS.max * SCALE_LEVELS.max;

export interface RiskLevel {
  name: string;
  min_score: number;
  colour: RiskColour;
}

export interface RiskMethod {
  /** The likelihood scale's labels, lowest first: value 1 is the first label. */
  likelihood: string[];
  impact: string[];
  /** Ascending by min_score; the first starts at 1. */
  levels: RiskLevel[];
  /** The name of the highest residual level acceptable without a formal acceptance. */
  appetite: string;
}

export const DEFAULT_RISK_METHOD: RiskMethod = {
  likelihood: ['Very low', 'Low', 'Medium', 'High', 'Very high'],
  impact: ['Very low', 'Low', 'Medium', 'High', 'Very high'],
  levels: [
    { name: 'low', min_score: 1, colour: 'GREEN' },
    { name: 'medium', min_score: 8, colour: 'AMBER' },
    { name: 'high', min_score: 15, colour: 'RED' },
  ],
  appetite: 'medium',
};

const scale = (what: string) =>
  z
    .array(shortText(60))
    .min(SCALE_LEVELS.min)
    .max(SCALE_LEVELS.max)
    .describe(`${what} labels, lowest first (${SCALE_LEVELS.min}-${SCALE_LEVELS.max}); value 1 = first.`);

const levelSchema = z.strictObject({
  name: shortText(40).describe('Name, e.g. "high".'),
  min_score: z
    .number()
    .int()
    .min(1)
    .max(MAX_SCORE)
    .describe('Lowest score (likelihood x impact) of the level.'),
  colour: caseInsensitiveEnum(RISK_COLOURS).describe(`Heat-map colour: ${RISK_COLOURS.join(', ')}.`),
});

/** The method as a setting takes it: checked whole (thresholds ascending from 1, within the scales, appetite named). */
export const riskMethodSchema = z
  .strictObject({
    likelihood: scale('Likelihood'),
    impact: scale('Impact'),
    levels: z
      .array(levelSchema)
      .min(RISK_LEVELS.min)
      .max(RISK_LEVELS.max)
      .describe('Risk levels, lowest first: the first min_score is 1, each next one higher.'),
    appetite: shortText(40).describe(
      'Name of the highest residual level accepted without a formal acceptance.',
    ),
  })
  .superRefine((method, issues) => {
    const max = method.likelihood.length * method.impact.length;
    method.levels.forEach((level, at) => {
      const previous = method.levels[at - 1];
      if (at === 0 && level.min_score !== 1)
        issues.addIssue({
          code: 'custom',
          path: ['levels', 0, 'min_score'],
          message: 'The first level starts at 1',
        });
      if (previous && level.min_score <= previous.min_score)
        issues.addIssue({
          code: 'custom',
          path: ['levels', at, 'min_score'],
          message: `Must be above ${previous.min_score} (the level before it)`,
        });
      if (level.min_score > max)
        issues.addIssue({
          code: 'custom',
          path: ['levels', at, 'min_score'],
          message: `Above the highest score of these scales (${method.likelihood.length} x ${method.impact.length} = ${max})`,
        });
      if (method.levels.findIndex((other) => other.name.toLowerCase() === level.name.toLowerCase()) !== at)
        issues.addIssue({
          code: 'custom',
          path: ['levels', at, 'name'],
          message: 'Two levels with this name',
        });
    });
    if (!method.levels.some((level) => level.name.toLowerCase() === method.appetite.toLowerCase()))
      issues.addIssue({
        code: 'custom',
        path: ['appetite'],
        message: `Not a level of the method: ${method.levels.map((level) => level.name).join(', ')}`,
      });
  })
  .describe(
    'Risk method: likelihood and impact scales, levels by score (likelihood x impact) with heat-map colours, and the appetite.',
  );

/** The method as stored, with the appetite spelled as its level is. */
export function normalizedMethod(method: RiskMethod): RiskMethod {
  const appetite =
    method.levels.find((level) => level.name.toLowerCase() === method.appetite.toLowerCase())?.name ??
    method.appetite;
  return { ...method, appetite };
}

export function maxScoreOf(method: RiskMethod): number {
  return method.likelihood.length * method.impact.length;
}

/** The level of a score: the last one whose min_score it reaches. */
export function levelOf(method: RiskMethod, score: number): RiskLevel {
  let found = method.levels[0] as RiskLevel;
  for (const level of method.levels) if (score >= level.min_score) found = level;
  return found;
}

/** The position of a level (0 = lowest), -1 when the method has no such level. */
export function levelRank(method: RiskMethod, name: string): number {
  return method.levels.findIndex((level) => level.name.toLowerCase() === name.toLowerCase());
}

/** Whether a score's level is above the appetite. */
export function aboveAppetite(method: RiskMethod, score: number): boolean {
  return levelRank(method, levelOf(method, score).name) > levelRank(method, method.appetite);
}

/** The lowest score above the appetite (a "high risk" threshold), or null when no level is above it. */
export function firstScoreAboveAppetite(method: RiskMethod): number | null {
  const next = method.levels[levelRank(method, method.appetite) + 1];
  return next ? next.min_score : null;
}

/** SQL: the level name of the score held in `score`, by the method's thresholds. */
export function levelCase(method: RiskMethod, score: SQLiteColumn | SQL): SQL {
  const branches = [...method.levels]
    .reverse()
    .map((level) => sql`when ${score} >= ${level.min_score} then ${level.name}`);
  return sql`case ${sql.join(branches, sql` `)} else ${method.levels[0]?.name ?? ''} end`;
}

/** One sentence saying the method, for descriptions of documents and pages. */
export function describeMethod(method: RiskMethod): string {
  const levels = method.levels
    .map((level, at) => {
      const next = method.levels[at + 1];
      const top = next ? next.min_score - 1 : maxScoreOf(method);
      return `${level.name} ${level.min_score}-${top}`;
    })
    .join(', ');
  return `Likelihood 1-${method.likelihood.length} x impact 1-${method.impact.length}; levels by score: ${levels}; appetite: ${method.appetite}.`;
}
