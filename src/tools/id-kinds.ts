// What an id's prefix says, for error messages: the kind of record it names and the tools that read and list that
// kind. Filled when the tool map is built (registers, organizations, members), read when an argument is refused.
import { ID_PREFIXES, type IdPrefix } from '../ids.ts';

export interface IdKind {
  /** "measure", "person", "account". */
  label: string;
  /** "measures", "people", "accounts". */
  plural: string;
  /** The tool that reads one by id (getMeasure); none where the kind has no get tool (accounts). */
  read?: string;
  /** The tool that lists them (listMeasures, listMembers). */
  list: string;
  /** What it is, where the kind is easily taken for another (a person is not an account). */
  note?: string;
}

const KINDS = new Map<string, IdKind>();

/** Says what ids of a prefix are; the last one registered for a prefix wins (one tool map per process). */
export function registerIdKind(prefix: IdPrefix, kind: IdKind): void {
  KINDS.set(prefix, kind);
}

/** The registered kind of ids with this prefix, if any. */
export function idKindOfPrefix(prefix: string): IdKind | undefined {
  return KINDS.get(prefix);
}

// An id's shape (ids.ts): a known three-letter prefix and its random part. Only the prefix is read here.
const ID_SHAPE = /^([a-z]{3})_[0-9a-z]{8,40}$/;
const KNOWN_PREFIXES = new Set<string>(Object.values(ID_PREFIXES));

/** The prefix of a value shaped as an id of some known kind (`msr_...`), else undefined. */
export function prefixOfId(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 44) return undefined;
  const prefix = ID_SHAPE.exec(value)?.[1];
  return prefix && KNOWN_PREFIXES.has(prefix) ? prefix : undefined;
}

/** "a" or "an" before a word, by its sound where a letter says otherwise: "an audit", "a user", "an update". */
export function article(word: string): 'a' | 'an' {
  if (/^u[bcdfghjklmnpqrstvwxz][aeiou]/i.test(word)) return 'a';
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/**
 * Why an id of another kind was refused, naming what it is and the tools for each kind (`"msr_..." is a measure
 * id, not a risk id: read it with getMeasure; risks are listed by listRisks.`), or undefined when the value is no id
 * of a registered kind.
 */
export function wrongKindMessage(value: unknown, expected: readonly string[]): string | undefined {
  const prefix = prefixOfId(value);
  if (!prefix || expected.includes(prefix)) return undefined;
  const given = KINDS.get(prefix);
  if (!given) return undefined;
  const wanted = expected.flatMap((item) => KINDS.get(item) ?? []);
  const one = wanted.length === 1 ? wanted[0] : undefined;
  const givenText = `"${String(value)}" is ${article(given.label)} ${given.label} id`;
  const aboutGiven = given.note ? ` (${given.note}, listed by ${given.list})` : '';
  const notWanted = one
    ? `not ${article(one.label)} ${one.label} id (\`${expected[0]}_...\`)`
    : `not the id of a kind this argument takes (${expected.map((item) => `\`${item}_...\``).join(', ')})`;
  const readIt = !given.note && given.read ? `read it with ${given.read}` : '';
  const findWanted = !one
    ? ''
    : one.note
      ? `this argument takes ${one.note}, listed by ${one.list}`
      : `${one.plural} are listed by ${one.list}`;
  const advice = [readIt, findWanted].filter(Boolean).join('; ');
  return `${givenText}${aboutGiven}, ${notWanted}${advice ? `: ${advice}` : ''}.`;
}
