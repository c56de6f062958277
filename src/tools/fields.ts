// Reusable zod field schemas: case-insensitive enums, dates, kind-checked ids, text, URLs, pagination.
import { z } from 'zod';
import { describeIdFormat, type IdPrefix, isIdOf } from '../ids.ts';
import { article, wrongKindMessage } from './id-kinds.ts';

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

/** What is refused: an id of another kind says which kind and which tool (id-kinds.ts), else the format expected. */
function idError(prefixes: readonly IdPrefix[], expected: string) {
  return (issue: { input?: unknown }) => wrongKindMessage(issue.input, prefixes) ?? expected;
}

export function idOf(prefix: IdPrefix, what: string) {
  const word = what.toLowerCase();
  return z
    .string()
    .refine((value) => isIdOf(prefix, value), {
      error: idError([prefix], `Expected ${article(word)} ${word} id: ${describeIdFormat(prefix)}`),
    })
    .describe(`${what} id (\`${prefix}_...\`)`);
}

/** An id of any of several kinds (`msr_...`, `rsk_...`): a link to records of several registers. */
export function idOfAny(prefixes: readonly IdPrefix[], what: string) {
  if (prefixes.length === 1) return idOf(prefixes[0] as IdPrefix, what);
  const listed = prefixes.map((prefix) => `${prefix}_`).join(', ');
  return z
    .string()
    .refine((value) => prefixes.some((prefix) => isIdOf(prefix, value)), {
      error: idError(
        prefixes,
        `Expected the id of ${article(what)} ${what}: one starting ${listed} followed by 24 characters from 0-9 and a-z except i, l, o, u`,
      ),
    })
    .describe(`${capitalizeFirst(what)} id (${prefixes.map((prefix) => `\`${prefix}_...\``).join(', ')})`);
}

const capitalizeFirst = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Control characters (C0, DEL, C1); those that are white space.
const CONTROL = /\p{Cc}/gu;
const CONTROL_BUT_TAB_AND_LINE_FEED = /(?![\t\n])\p{Cc}/gu;
const CONTROL_SPACE = /(?=\p{Cc})[\s\u0085]/gu;

/**
 * The one normalisation of text input, applied before any length check so that what input accepts is exactly what
 * is stored and what output (the same limits) validates: a lone surrogate becomes U+FFFD (what UTF-8 storage makes
 * of it), the text is put in Unicode NFC, control characters go (NUL would cut the stored text short) - single-line
 * text turns tabs and line breaks into spaces, multi-line text keeps tabs and line feeds (CR LF and CR become LF) -
 * and the ends are trimmed of white space.
 */
export function normalizeText(value: string, multiline: boolean): string {
  const text = value.replace(LONE_SURROGATE, '\uFFFD').normalize('NFC');
  const cleaned = multiline
    ? text.replace(/\r\n?/g, '\n').replace(CONTROL_BUT_TAB_AND_LINE_FEED, '')
    : text.replace(CONTROL_SPACE, ' ').replace(CONTROL, '');
  return cleaned.trim();
}

const normalized = (multiline: boolean) => (value: unknown) =>
  typeof value === 'string' ? normalizeText(value, multiline) : value;

/** Single-line text (names, titles): normalised (normalizeText), then 1..max characters. */
export const shortText = (max = 200) =>
  z.preprocess(normalized(false), z.string().min(1, 'Must not be empty').max(max));
/** Multi-line text (descriptions, notes): normalised (normalizeText), then min..max characters. */
export const longText = (max = 10_000, min = 0) =>
  z.preprocess(normalized(true), z.string().min(min, 'Must not be empty').max(max));

// Outside the host: what RFC 3986 allows besides percent-escapes (which are checked apart).
const NOT_URI_CHARACTER = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g;
const uriEncoded = (part: string) =>
  part
    .replace(NOT_URI_CHARACTER, (character) => encodeURIComponent(character))
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25');

/**
 * An http(s) URL as the WHATWG URL parser serialises it (host in lower case or punycode, non-ASCII percent-encoded),
 * with what RFC 3986 does not allow after the host percent-encoded too, so it is a valid JSON Schema `uri`; a URL
 * that differs from that form only by the root path's `/` is kept as given. Not an http(s) URL: left as given, for
 * the schema to refuse.
 */
export function normalizeUrl(value: string): string {
  const text = normalizeText(value, false);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return value;
  const href = url.href;
  const start = url.protocol.length + 2;
  const hostEnd = href.slice(start).search(/[/?#]/);
  const cut = hostEnd < 0 ? href.length : start + hostEnd;
  const fragmentAt = href.indexOf('#', cut);
  const rest =
    fragmentAt < 0
      ? uriEncoded(href.slice(cut))
      : `${uriEncoded(href.slice(cut, fragmentAt))}#${uriEncoded(href.slice(fragmentAt + 1))}`;
  const normal = `${href.slice(0, cut)}${rest}`;
  return `${text}/` === normal ? text : normal;
}

export const httpUrl = z.preprocess(
  (value) => (typeof value === 'string' ? normalizeUrl(value) : value),
  z.url({ protocol: /^https?$/, error: 'Expected an http(s) URL' }).max(2000),
);

const DOMAIN_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Within RFC 5321's limits (local part 64, domain 253, labels 63 not ending in "-"), as JSON Schema `email` checks. */
function withinEmailLimits(value: string): boolean {
  const at = value.lastIndexOf('@');
  const domain = value.slice(at + 1);
  return at <= 64 && domain.length <= 253 && domain.split('.').every((label) => DOMAIN_LABEL.test(label));
}

/** An email address, normalised (normalizeText) and stored in lower case. */
export const emailAddress = z.preprocess(
  (value) => (typeof value === 'string' ? normalizeText(value, false).toLowerCase() : value),
  z
    .email()
    .max(254)
    .refine(withinEmailLimits, 'Expected an email address with a local part of at most 64 characters'),
);

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

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A moment, as ISO 8601 with a time zone (`2026-11-28T09:30:00Z`, `2026-11-28T10:30+01:00`), stored in UTC with
 * milliseconds (`toISOString`), so text order is time order. Checked on length before the (linear) pattern.
 */
export const instantSchema = z.preprocess(
  (value) => {
    if (typeof value !== 'string' || value.length > 40) return value;
    const text = value.trim();
    if (!INSTANT.test(text)) return value;
    const time = Date.parse(text);
    return Number.isNaN(time) ? value : new Date(time).toISOString();
  },
  z
    .string()
    .max(40)
    .regex(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
      'Expected a time as ISO 8601 with a zone, e.g. 2026-11-28T09:30:00Z',
    ),
);
