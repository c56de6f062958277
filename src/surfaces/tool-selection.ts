// Which toolsets a request asks for: `?toolsets=` / `?readonly=`, or the X-MCP-Toolsets / X-MCP-Readonly headers.
import { CORE_TOOLSET, DEFAULT_TOOLSETS, type ToolSelection } from '../tools/toolsets.ts';

export type ParsedSelection = { ok: true; selection: ToolSelection } | { ok: false; message: string };

const TRUE_VALUES = new Set(['1', 'true', 'yes']);

/** What a request asks for: `?toolsets=risks,vendors` and `?readonly=true`, or else the X-MCP-* headers. */
export function requestedToolSelection(request: Request, known: Iterable<string>): ParsedSelection {
  // Most calls have no query: the URL is parsed only when there is one (it is parsed again on every call).
  const query = request.url.indexOf('?');
  const searchParams = query < 0 ? null : new URLSearchParams(request.url.slice(query + 1));
  return parseToolSelection(
    {
      toolsets: searchParams?.get('toolsets') ?? request.headers.get('x-mcp-toolsets'),
      readonly: searchParams?.get('readonly') ?? request.headers.get('x-mcp-readonly'),
    },
    known,
  );
}

/** The bare connection (the core only), read-only and readable-and-writable: made once, shared by every call. */
const BARE_SELECTIONS = {
  readonly: { ok: true, selection: { toolsets: new Set<string>(), readonly: true } },
  readWrite: { ok: true, selection: { toolsets: new Set<string>(), readonly: false } },
} as const satisfies Record<string, ParsedSelection>;

/**
 * No or an empty value: the core only. `all` names every toolset, `default` the registers used most
 * (DEFAULT_TOOLSETS), `core` nothing more than the core; names take `-` or `_`, in the order given (the order
 * they are listed in while the budget lasts). `readonly` is true for 1, true or yes.
 */
export function parseToolSelection(
  asked: { toolsets?: string | null; readonly?: string | null },
  known: Iterable<string>,
): ParsedSelection {
  const raw = asked.toolsets ?? null;
  const readonly = TRUE_VALUES.has((asked.readonly ?? '').trim().toLowerCase());
  if (raw === null || raw.trim() === '') {
    return readonly ? BARE_SELECTIONS.readonly : BARE_SELECTIONS.readWrite;
  }
  const names = raw
    .split(',')
    .map((name) => name.trim().toLowerCase().replace(/-/g, '_'))
    .filter(Boolean);
  if (names.includes('all')) return { ok: true, selection: { toolsets: 'all', readonly } };
  const knownNames = new Set(known);
  const chosen = new Set<string>();
  const unknown: string[] = [];
  for (const name of names) {
    if (name === 'default') for (const set of DEFAULT_TOOLSETS) chosen.add(set);
    else if (name === CORE_TOOLSET) continue;
    else if (knownNames.has(name)) chosen.add(name);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `Unknown toolsets: ${unknown.join(', ')}. Known: all, default, ${[...knownNames].join(', ')}.`,
    };
  }
  return { ok: true, selection: { toolsets: chosen, readonly } };
}
