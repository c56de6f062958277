// Toolsets: named groups of the tool map that a connection lists and may call, derived from each tool's metadata.
import type { TokenScope } from '../auth/principal.ts';
import type { Tool } from './types.ts';

/** Organizations and the summary: every connection has them (the other tools need an organization_id). */
export const CORE_TOOLSET = 'core';

/**
 * The toolsets of a connection that names none: the registers used most, 35 tools, under the about 40 tools
 * editors such as Cursor accept across all servers. `?toolsets=all` lists every tool.
 */
export const DEFAULT_TOOLSETS: readonly string[] = [
  CORE_TOOLSET,
  'risks',
  'measures',
  'vendors',
  'obligations',
  'nonconformities',
  'audits',
];

/** A tool's toolset: the one it declares (register tools declare their register's, e.g. `risks`). */
export function toolsetOf(tool: Tool): string | undefined {
  return tool.toolset;
}

/** Every toolset of a tool map, in the map's order, with its tools. */
export function toolsetsOf(tools: Iterable<Tool>): Map<string, Tool[]> {
  const sets = new Map<string, Tool[]>();
  for (const tool of tools) {
    const name = toolsetOf(tool);
    if (name) sets.set(name, [...(sets.get(name) ?? []), tool]);
  }
  return sets;
}

/** What a connection asked for: toolsets (or all of them) and whether only read tools. */
export interface ToolSelection {
  toolsets: ReadonlySet<string> | 'all';
  readonly: boolean;
}

/** Why a tool of the map is not on a connection (its selection, its token's scope), or null when it is. */
export function exclusionOf(tool: Tool, selection: ToolSelection, tokenScope: TokenScope): string | null {
  if (tool.scope === 'write' && tokenScope === 'read') return 'this API token is read-only (scope "read")';
  if (tool.scope === 'write' && selection.readonly) return 'this connection is read-only (readonly=true)';
  const toolset = toolsetOf(tool);
  if (selection.toolsets !== 'all' && (!toolset || !selection.toolsets.has(toolset))) {
    return `it is in the toolset "${toolset}", not among this connection's (${[...selection.toolsets].join(', ')}); connect with ?toolsets=${toolset} or ?toolsets=all`;
  }
  return null;
}

/** A stable key of what a connection lists (for caching the tools/list answer). */
export function selectionKey(selection: ToolSelection, tokenScope: TokenScope): string {
  const sets = selection.toolsets === 'all' ? 'all' : [...selection.toolsets].sort().join(',');
  return `${sets}|${selection.readonly || tokenScope === 'read' ? 'read' : 'write'}`;
}
