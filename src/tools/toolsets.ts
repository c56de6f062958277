// Toolsets: named groups of the tool map that a connection lists and may call, derived from each tool's metadata.
import type { TokenScope } from '../auth/principal.ts';
import type { Tool } from './types.ts';

/** The tools every connection lists: organizations, the summary, my work, findRecords, findTools, the call tools. */
export const CORE_TOOLSET = 'core';

/**
 * `?toolsets=default`: the registers used most, the tools a bare connection listed before it listed only the core
 * (docs/mcp.md). `?toolsets=all` lists these first, then the others, as far as the budget goes.
 */
export const DEFAULT_TOOLSETS: readonly string[] = [
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

/** Whether every connection lists it: the core toolset, and register tools marked core (listPeople, getPerson). */
export function isCore(tool: Tool): boolean {
  return tool.toolset === CORE_TOOLSET || tool.core === true;
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

/**
 * What a connection asked for: toolsets to list beside the core (none for the bare URL, in the order asked, or all
 * of them) and whether only read tools.
 */
export interface ToolSelection {
  toolsets: ReadonlySet<string> | 'all';
  readonly: boolean;
}

/** Why a connection cannot call a tool at all (its token's scope, its read-only mode), or null when it can. */
export function unreachableReason(
  tool: Tool,
  selection: ToolSelection,
  tokenScope: TokenScope,
): string | null {
  if (tool.scope === 'write' && tokenScope === 'read') return 'this API token is read-only (scope "read")';
  // A propose token lists the writes it can propose (and the call tools, which check the tool they name).
  if (tool.scope === 'write' && tokenScope === 'propose' && !tool.propose && !tool.dispatch)
    return 'this API token may only propose changes (scope "propose"), and this tool cannot be proposed';
  if (tool.scope === 'write' && selection.readonly) return 'this connection is read-only (readonly=true)';
  return null;
}

/** Whether a selection names the tool's toolset (the core is always named); the budget is not applied here. */
export function isSelected(tool: Tool, selection: ToolSelection): boolean {
  if (isCore(tool) || selection.toolsets === 'all') return true;
  const toolset = toolsetOf(tool);
  return toolset !== undefined && selection.toolsets.has(toolset);
}

/** Why a tool is not in a selection's documents (OpenAPI: scope, read-only, toolsets), or null when it is. */
export function exclusionOf(tool: Tool, selection: ToolSelection, tokenScope: TokenScope): string | null {
  const unreachable = unreachableReason(tool, selection, tokenScope);
  if (unreachable) return unreachable;
  if (isSelected(tool, selection)) return null;
  return `it is in the toolset "${toolsetOf(tool)}", not among those asked for`;
}

/** A stable key of what a connection lists (for caching its tools/list answer and instructions). */
export function selectionKey(selection: ToolSelection, tokenScope: TokenScope): string {
  const sets = selection.toolsets === 'all' ? 'all' : [...selection.toolsets].join(',');
  return `${sets}|${selection.readonly || tokenScope === 'read' ? 'read' : 'write'}`;
}
