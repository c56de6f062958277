// An argument name a tool does not know, explained: why it is refused (Tool.argumentHints) or the known name it is
// nearest to (`owner` -> `owner_id`), found among the names the tool takes at that place of its arguments.
import type { z } from 'zod';
import type { ErrorDetail } from '../errors.ts';
import type { Tool } from '../tools/types.ts';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  out?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
};

const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

/** The object schemas that `schema` may be, through wrappers (optional, default, preprocess) and unions. */
function objectsIn(schema: z.ZodType | undefined, depth = 0): Def[] {
  if (!schema || depth > 8) return [];
  const def = defOf(schema);
  if (def.type === 'object') return [def];
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => objectsIn(option, depth + 1));
  if (def.type === 'pipe') return objectsIn(def.out, depth + 1);
  return objectsIn(def.innerType, depth + 1);
}

/** The names the arguments take at `path` (an object's keys; array indexes pass through to the items). */
export function namesAt(input: z.ZodType, path: readonly PropertyKey[]): string[] {
  let schemas: z.ZodType[] = [input];
  for (const key of path) {
    schemas = schemas.flatMap((schema) => {
      if (typeof key === 'number') {
        const unwrapped = unwrapToArray(schema);
        return unwrapped ? [unwrapped] : [];
      }
      return objectsIn(schema).flatMap((object) => {
        const child = object.shape?.[String(key)];
        return child ? [child] : [];
      });
    });
  }
  return [
    ...new Set(schemas.flatMap((schema) => objectsIn(schema).flatMap((def) => Object.keys(def.shape ?? {})))),
  ];
}

function unwrapToArray(schema: z.ZodType, depth = 0): z.ZodType | undefined {
  if (depth > 8) return undefined;
  const def = defOf(schema);
  if (def.type === 'array') return def.element;
  if (def.type === 'union') {
    for (const option of def.options ?? []) {
      const found = unwrapToArray(option, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const next = def.type === 'pipe' ? def.out : def.innerType;
  return next ? unwrapToArray(next, depth + 1) : undefined;
}

/**
 * Edit distance counting an insertion, a deletion, a substitution or a swap of two neighbours as one (`nmae` is one
 * from `name`), stopping early once it exceeds `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

const squashed = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * The known name a caller most likely meant, or undefined: the same name spelt otherwise (`ownerid`), then a name
 * holding it as a whole part (`owner` -> `owner_id`, before `business_owner_id`), then the nearest by edit distance
 * within a third of its length (`stauts` -> `status`).
 */
export function nearestName(unknown: string, known: readonly string[]): string | undefined {
  const target = squashed(unknown);
  if (target === '') return undefined;
  const same = known.find((name) => squashed(name) === target);
  if (same) return same;
  const parts = (name: string) => name.toLowerCase().split(/_+/);
  const wanted = parts(unknown).filter(Boolean);
  const holding = known
    .filter((name) => {
      const have = parts(name);
      return have.some((_, at) => wanted.every((word, index) => have[at + index] === word));
    })
    .sort((a, b) => a.length - b.length || a.localeCompare(b));
  if (holding[0]) return holding[0];
  const limit = Math.max(1, Math.floor(target.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(target, squashed(name), limit);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** At most this many known names are listed when none is near the unknown one. */
const LISTED_NAMES = 30;

/** One detail per unknown key of an `unrecognized_keys` issue at `path`, each saying what to send instead. */
export function unknownArgumentDetails(
  tool: Tool,
  path: readonly PropertyKey[],
  keys: readonly string[],
): ErrorDetail[] {
  const known = namesAt(tool.input, path);
  const prefix = path.map(String).join('.');
  return keys.map((key) => {
    const full = prefix ? `${prefix}.${key}` : key;
    const hint =
      path.length === 0 && tool.argumentHints && Object.hasOwn(tool.argumentHints, key)
        ? tool.argumentHints[key]
        : undefined;
    if (hint) return { path: full, message: `\`${full}\` is not an argument of ${tool.name}: ${hint}.` };
    const nearest = nearestName(key, known);
    const named = (name: string) => (prefix ? `${prefix}.${name}` : name);
    if (nearest)
      return { path: full, message: `Unknown argument \`${full}\`; did you mean \`${named(nearest)}\`?` };
    const listed = known.slice(0, LISTED_NAMES).join(', ');
    return {
      path: full,
      message: `Unknown argument \`${full}\`; ${tool.name} takes ${known.length === 0 ? 'no argument here' : `${listed}${known.length > LISTED_NAMES ? ', ...' : ''}`}.`,
    };
  });
}
