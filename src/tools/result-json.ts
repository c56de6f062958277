// A tool result's JSON written once: a list page's items are serialized to measure them against the result budget
// (pagination.ts), and that text is reused when the result is answered, instead of serializing them again.

/** JSON text of arrays already serialized, by the array (never changed after: a page answered as it was measured). */
const serialized = new WeakMap<object, string>();

/** Remembers `json` as the JSON of `items`, which must not change afterwards. */
export function rememberJson(items: readonly unknown[], json: string): void {
  serialized.set(items, json);
}

/**
 * JSON.stringify(result) for a result object: each top-level value serialized, or its remembered JSON reused. The
 * same text (members in order, those JSON leaves out left out).
 */
export function resultJson(result: Record<string, unknown>): string {
  let out = '';
  for (const key of Object.keys(result)) {
    const value = result[key];
    const json =
      typeof value === 'object' && value !== null
        ? (serialized.get(value) ?? JSON.stringify(value))
        : JSON.stringify(value);
    if (json === undefined) continue;
    out += `${out === '' ? '{' : ','}${JSON.stringify(key)}:${json}`;
  }
  return out === '' ? '{}' : `${out}}`;
}
