// The rules a change goes through before it is written, for the tools and the imports alike.
import { settleReview } from '../reviews.ts';
import type { RegisterSpec, Row, RuleContext, Warning } from './spec.ts';

/**
 * Validates a change and fills its derived fields: the spec's own rule, then its review cycle; answers the record's
 * warnings. `rules.given` holds the fields the caller set (null for cleared ones).
 */
export function prepareRecord(
  spec: RegisterSpec,
  next: Row,
  current: Row | null,
  rules: RuleContext,
): Warning[] {
  spec.prepare?.(next, current, rules);
  if (spec.review) settleReview(next, current, rules.given, rules.today);
  return spec.warnings?.(next, current, rules) ?? [];
}
