// What a connection lists: the core, then the toolsets it asked for, whole, in order, while they fit its token
// budget; everything else it may call stays reachable through findTools and the call tools (docs/mcp.md).
import type { TokenScope } from '../auth/principal.ts';
import { estimatedTokens as tokensOfText } from '../tools/pagination.ts';
import {
  CORE_TOOLSET,
  DEFAULT_TOOLSETS,
  isCore,
  type ToolSelection,
  toolsetsOf,
  unreachableReason,
} from '../tools/toolsets.ts';
import type { Tool } from '../tools/types.ts';

/**
 * Tokens of tool definitions a connection lists, at most: the bare URL (the core) and any selection. However many
 * registers the service grows, the core stays the same tools, and a selection lists whole toolsets up to its budget.
 */
export const TOOL_TOKEN_BUDGETS = { bare: 8_000, selection: 15_000 } as const;

/**
 * Tokens of a value's JSON text by the project's one estimate (estimatedTokens, src/tools/pagination.ts: ASCII
 * characters / 4, any other character a token), the one pages are cut by; no tokenizer ships with the service.
 */
export function estimatedTokens(value: unknown): number {
  return tokensOfText(JSON.stringify(value));
}

export interface ConnectionListing {
  /** What it lists, in the map's order. */
  tools: Tool[];
  /** The toolsets it lists whole beside the core, in the order listed. */
  toolsets: string[];
  /** Toolsets asked for that did not fit the budget: reachable through findTools, not listed. */
  leftOut: string[];
  /** Toolsets neither asked for nor listed (reachable through findTools). */
  others: string[];
  /** True when its tools were asked for by name (functions.json `?tools=`), not by toolsets. */
  picked?: true;
  /** True when it may call read tools only (a read token or `readonly=true`). */
  readOnly: boolean;
  /** Its budget (TOOL_TOKEN_BUDGETS) and the estimate of what it lists, by `costOf`. */
  budget: number;
  tokens: number;
}

/**
 * The listing of a selection for a token scope. `costOf` is a tool's definition in the surface's own form, in
 * tokens (tools/list for MCP, a provider's function definition for functions.json).
 */
export function connectionListing(
  tools: Iterable<Tool>,
  selection: ToolSelection,
  tokenScope: TokenScope,
  costOf: (tool: Tool) => number,
): ConnectionListing {
  const all = [...tools];
  const reachable = all.filter((tool) => unreachableReason(tool, selection, tokenScope) === null);
  const sets = toolsetsOf(reachable.filter((tool) => !isCore(tool)));
  const bare = selection.toolsets !== 'all' && selection.toolsets.size === 0;
  const budget = bare ? TOOL_TOKEN_BUDGETS.bare : TOOL_TOKEN_BUDGETS.selection;
  const asked =
    selection.toolsets === 'all'
      ? [...new Set([...DEFAULT_TOOLSETS, ...toolsetsOf(all).keys()])]
      : [...selection.toolsets];
  const listed = new Set(reachable.filter(isCore));
  // `{"tools":[...]}` around the definitions, each followed by a comma.
  let tokens = 4 + [...listed].reduce((sum, tool) => sum + costOf(tool) + 1, 0);
  const toolsets: string[] = [];
  const leftOut: string[] = [];
  for (const name of asked) {
    if (name === CORE_TOOLSET) continue;
    const members = sets.get(name) ?? [];
    // Nothing of it this connection may call (a read-only one and a toolset of writes): neither listed nor left out.
    if (members.length === 0) continue;
    const cost = members.reduce((sum, tool) => sum + costOf(tool) + 1, 0);
    if (tokens + cost > budget) {
      leftOut.push(name);
      continue;
    }
    tokens += cost;
    toolsets.push(name);
    for (const tool of members) listed.add(tool);
  }
  const named = new Set([...toolsets, ...leftOut, CORE_TOOLSET]);
  return {
    tools: all.filter((tool) => listed.has(tool)),
    toolsets,
    leftOut,
    others: [...toolsetsOf(all).keys()].filter((name) => !named.has(name) && sets.has(name)),
    readOnly: selection.readonly || tokenScope === 'read',
    budget,
    tokens,
  };
}

/** The listing of tools asked for by name (functions.json `?tools=`): those, or an error when over the budget. */
export function pickedListing(
  all: Iterable<Tool>,
  picked: Tool[],
  readOnly: boolean,
  costOf: (tool: Tool) => number,
): ConnectionListing | { overBudget: number } {
  const tokens = 4 + picked.reduce((sum, tool) => sum + costOf(tool) + 1, 0);
  if (tokens > TOOL_TOKEN_BUDGETS.selection) return { overBudget: tokens };
  const named = new Set(picked.map((tool) => tool.toolset));
  return {
    tools: picked,
    toolsets: [],
    leftOut: [],
    others: [...toolsetsOf(all).keys()].filter((name) => !named.has(name) && name !== CORE_TOOLSET),
    picked: true,
    readOnly,
    budget: TOOL_TOKEN_BUDGETS.selection,
    tokens,
  };
}
