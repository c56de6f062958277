// Reusable zod field schemas: case-insensitive enums, dates, kind-checked ids, text, URLs, pagination.
import { z } from 'zod';
import { describeIdFormat, type IdPrefix, isIdOf } from '../ids.ts';

/**
 * Accepts any letter case, and spaces or hyphens for underscores, on input (`open` = `OPEN`, `not started` =
 * `NOT_STARTED`); outputs and lists the upper-case values.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .trim()
            .toUpperCase()
            .replace(/[\s-]+/g, '_')
        : value,
    z.enum(values),
  );
}

function isRealDate(value: string): boolean {
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}

export const dateSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date as YYYY-MM-DD')
  .refine(isRealDate, 'Not a calendar date');

export const timestampSchema = z.string().describe('ISO 8601 time, e.g. 2026-03-01T09:30:00.000Z');

export function idOf(prefix: IdPrefix, what: string) {
  return z
    .string()
    .refine(
      (value) => isIdOf(prefix, value),
      `Expected ${/^[AEIOU]/.test(what) ? 'an' : 'a'} ${what} id: ${describeIdFormat(prefix)}`,
    )
    .describe(`${what} id (\`${prefix}_...\`)`);
}

export const shortText = (max = 200) => z.string().trim().min(1, 'Must not be empty').max(max);
export const longText = (max = 10_000) => z.string().trim().max(max);

export const httpUrl = z.url({ protocol: /^https?$/, error: 'Expected an http(s) URL' }).max(2000);

export const countryCode = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
  z.string().regex(/^[A-Z]{2}$/, 'Expected an ISO 3166-1 alpha-2 country code such as DE or US'),
);

export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;

export const sizeSchema = z
  .number()
  .int()
  .min(PAGE_SIZE.min)
  .max(PAGE_SIZE.max)
  .describe(`Page size, ${PAGE_SIZE.min}..${PAGE_SIZE.max} (default ${PAGE_SIZE.default}).`);

export const cursorSchema = z
  .string()
  .min(1)
  .max(1000)
  .describe("Opaque cursor from the previous page's `next_cursor`; omit for the first page.");

export const directionSchema = caseInsensitiveEnum(['ASC', 'DESC']).describe('Sort direction: ASC or DESC.');
