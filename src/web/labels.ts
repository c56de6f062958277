// People's words for the API's codes: enum values ("IN_TREATMENT" -> "In treatment"), change actions, surfaces.

/** Words that keep their capitals in a value's label (a vendor category IT, SOC 2). */
const UPPER_WORDS = new Set(['IT', 'EU', 'US', 'SOC', 'ISO', 'CI']);

/** An enum value as a person reads it: `IN_TREATMENT` -> "In treatment", `IT` -> "IT". */
export function valueLabel(value: string): string {
  const words = value.split(/[_\s]+/).filter(Boolean);
  return words
    .map((word, index) => {
      if (UPPER_WORDS.has(word)) return word;
      const lower = word.toLowerCase();
      return index === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
}

/** A list of values as one label: `OPEN,IN_PROGRESS` -> "Open, In progress". */
export function valuesLabel(values: string): string {
  return values
    .split(',')
    .map((value) => valueLabel(value.trim()))
    .join(', ');
}

/** Where a change or a call came in. */
export const SURFACE_LABELS: Record<string, string> = {
  mcp: 'MCP',
  direct: 'HTTP (direct)',
  web: 'web interface',
  cli: 'operator CLI',
  import: 'file import',
  link: 'public link',
};

/** What a change did, in the history: "Added", "Changed", ... */
export const ACTION_LABELS: Record<string, string> = {
  add: 'Added',
  update: 'Changed',
  delete: 'Deleted',
  link: 'Linked',
  unlink: 'Unlinked',
};

/** A file size for people: bytes, KB or MB. */
export function sizeLabel(bytes: unknown): string {
  const size = Number(bytes);
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}
