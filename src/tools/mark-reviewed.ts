// markReviewed: one call records a review of a risk, vendor, measure, requirement or document (any register with review cycles).
import { z } from 'zod';
import { isIdOf } from '../ids.ts';
import { dateSchema, longText } from './fields.ts';
import type { Registers, RegisterTools } from './registers/builder.ts';
import type { Row } from './registers/spec.ts';
import { updateRecord } from './registers/write-tools.ts';
import { defineTool, type Tool, UPDATE_ANNOTATIONS } from './types.ts';

/** The registers with review cycles, in the map's order. */
export function reviewedRegisters(registers: Registers): RegisterTools[] {
  return Object.values(registers).filter((register) => register.spec.review);
}

export function markReviewedTool(registers: Registers): Tool {
  const reviewed = reviewedRegisters(registers);
  const prefixes = reviewed.map((register) => `${register.spec.prefix}_`);
  return defineTool({
    name: 'markReviewed',
    title: 'Mark a record reviewed',
    description: `Record a review of a ${reviewed.map((register) => register.spec.label).join(', ')} (${prefixes.join(', ')}): sets last_reviewed_on and the next review date.`,
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    // Beside the tasks and my work, which say what is due for review.
    toolset: 'tasks',
    input: z.strictObject({
      id: z
        .string()
        .refine(
          (value) => reviewed.some((register) => isIdOf(register.spec.prefix, value)),
          `Expected the id of a ${reviewed.map((register) => register.spec.label).join(', ')}`,
        )
        .describe(`Record id (${prefixes.join(', ')}).`),
      note: longText(2000).optional().describe('What the review found.'),
      reviewed_on: dateSchema.optional().describe('Review date; default today.'),
    }),
    output: z.object({
      id: z.string().describe('The record.'),
      kind: z.string().describe('Its register, e.g. risk.'),
      last_reviewed_on: z.string().describe('Review date.'),
      last_review_note: z.string().nullable().describe('Review note.'),
      next_review_on: z.string().nullable().describe('Next review date; null without an interval.'),
      updated_at: z.string().describe('New updated_at.'),
    }),
    async run(ctx, input) {
      const register = reviewed.find((item) => isIdOf(item.spec.prefix, input.id));
      if (!register) throw new Error('markReviewed: id checked by the schema');
      const { records, spec } = register;
      const today = records.today(ctx);
      const result = await updateRecord(ctx, records, 'markReviewed', {
        id: input.id,
        last_reviewed_on: input.reviewed_on ?? today,
        last_review_note: input.note ?? null,
        // Without an interval the one-off review date is done; with one it follows from the new review.
        next_review_on: null,
      });
      const record = result[spec.key] as Row;
      return {
        id: input.id,
        kind: spec.kind,
        last_reviewed_on: String(record.last_reviewed_on),
        last_review_note: (record.last_review_note as string | null) ?? null,
        next_review_on: (record.next_review_on as string | null) ?? null,
        updated_at: String(record.updated_at),
      };
    },
  });
}
