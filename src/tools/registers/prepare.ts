// The rules a change goes through before it is written, for the tools and the imports alike.
import { settleReview } from '../reviews.ts';
import type { RegisterSpec, Row } from './spec.ts';

/**
 * Validates a change and fills its derived fields: the spec's own rule, then its review cycle. `given` holds the
 * fields the caller set (null for cleared ones), `today` the caller's date.
 */
export function prepareRecord(
  spec: RegisterSpec,
  next: Row,
  current: Row | null,
  given: Row,
  today: string,
): void {
  spec.prepare?.(next, current);
  if (spec.review) settleReview(next, current, given, today);
}
