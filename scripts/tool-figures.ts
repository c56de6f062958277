// Tool counts, toolsets and token figures, generated from the tool map into README.md and docs/mcp.md between
// `<!-- tool-figures:NAME -->` markers: `npm run docs:figures` rewrites them, test/core/tool-figures.test.ts fails when
// they are stale. Tokens are the project's estimate (estimatedTokens: ASCII characters / 4).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TokenScope } from '../src/auth/principal.ts';
import { connectionListing, estimatedTokens, TOOL_TOKEN_BUDGETS } from '../src/surfaces/connection.ts';
import { buildFunctions, FUNCTION_FORMATS, functionCostOf } from '../src/surfaces/functions.ts';
import { instructionsFor } from '../src/surfaces/instructions.ts';
import { listedTools, mcpCostOf } from '../src/surfaces/mcp-server.ts';
import { parseToolSelection } from '../src/surfaces/tool-selection.ts';
import { TOOLS } from '../src/tools/index.ts';
import { CORE_TOOLSET, isCore, toolsetsOf } from '../src/tools/toolsets.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const FIGURE_FILES = { readme: join(ROOT, 'README.md'), docs: join(ROOT, 'docs/mcp.md') } as const;

const number = (value: number) => value.toLocaleString('en');
const code = (names: string[]) => names.map((name) => `\`${name}\``).join(', ');
const toolsetNames = [...toolsetsOf(TOOLS.values()).keys()];

/** A connection of the endpoint: what it lists, its tools/list and instructions in tokens. */
function connectionFigures(query: string, scope: TokenScope = 'read_write') {
  const params = new URLSearchParams(query);
  const parsed = parseToolSelection(
    { toolsets: params.get('toolsets'), readonly: params.get('readonly') },
    toolsetNames,
  );
  if (!parsed.ok) throw new Error(parsed.message);
  const listing = connectionListing(TOOLS.values(), parsed.selection, scope, mcpCostOf);
  return {
    listing,
    tokens: estimatedTokens({ tools: listedTools(listing.tools) }),
    instructions: estimatedTokens(instructionsFor(listing)),
  };
}

/** Tokens of a function-definitions document's `tools` for a format and query (as GET /api/mcp/functions.json). */
function functionTokens(format: (typeof FUNCTION_FORMATS)[number], query: string): number {
  const params = new URLSearchParams(query);
  const parsed = parseToolSelection({ toolsets: params.get('toolsets') }, toolsetNames);
  if (!parsed.ok) throw new Error(parsed.message);
  const listing = connectionListing(TOOLS.values(), parsed.selection, 'read_write', functionCostOf(format));
  return estimatedTokens(buildFunctions(listing.tools, format, '').tools);
}

const CONNECTIONS = [
  ['`/api/mcp/v1` (the bare URL)', ''],
  ['`?readonly=true`, or a `read` token', 'readonly=true'],
  ['`?toolsets=risks`', 'toolsets=risks'],
  ['`?toolsets=frameworks`', 'toolsets=frameworks'],
  ['`?toolsets=default`', 'toolsets=default'],
  ['`?toolsets=all`', 'toolsets=all'],
  ['`?toolsets=all&readonly=true`', 'toolsets=all&readonly=true'],
] as const;

/** The docs/mcp.md section: totals, the core, each toolset, each connection type, the function definitions. */
function docsFigures(): string {
  const tools = [...TOOLS.values()];
  const core = tools.filter(isCore);
  const sets = toolsetsOf(tools);
  const lines = [
    `${number(tools.length)} tools in ${sets.size} toolsets. The core, listed on every connection (${core.length} tools): ${code(core.map((tool) => tool.name))}.`,
    '',
    '| Toolset | Tools | Tokens in tools/list | Names |',
    '|---|---|---|---|',
    ...[...sets].map(
      ([name, members]) =>
        `| \`${name}\` | ${members.length} | ${number(estimatedTokens({ tools: listedTools(members) }))} | ${code(members.map((tool) => tool.name))} |`,
    ),
    '',
    `| Connection | Tools listed | tools/list tokens | Budget | Instructions tokens | Toolsets listed beside the core | Asked for, left to findTools |`,
    '|---|---|---|---|---|---|---|',
    ...CONNECTIONS.map(([label, query]) => {
      const { listing, tokens, instructions } = connectionFigures(query);
      return `| ${label} | ${listing.tools.length} | ${number(tokens)} | ${number(listing.budget)} | ${number(instructions)} | ${listing.toolsets.join(', ') || '-'} | ${listing.leftOut.join(', ') || '-'} |`;
    }),
    '',
    '| Function definitions (`tools` of functions.json) | bare | `?toolsets=default` | `?toolsets=all` |',
    '|---|---|---|---|',
    ...FUNCTION_FORMATS.map(
      (format) =>
        `| \`${format}\` | ${number(functionTokens(format, ''))} | ${number(functionTokens(format, 'toolsets=default'))} | ${number(functionTokens(format, 'toolsets=all'))} |`,
    ),
  ];
  return lines.join('\n');
}

/** The README's paragraph: the counts a reader needs, pointing at docs/mcp.md for the rest. */
function readmeFigures(): string {
  const tools = [...TOOLS.values()];
  const bare = connectionFigures('');
  const all = connectionFigures('toolsets=all');
  const toolsets = toolsetNames.filter((name) => name !== CORE_TOOLSET);
  return [
    `**${number(tools.length)} tools** in ${toolsets.length} toolsets beside the core (${code(toolsets)}). The bare URL`,
    `lists the core, ${bare.listing.tools.length} tools, about ${number(bare.tokens)} tokens of tool definitions (budget ${number(TOOL_TOKEN_BUDGETS.bare)});`,
    `\`?toolsets=all\` lists ${all.listing.tools.length}, about ${number(all.tokens)} tokens (budget ${number(TOOL_TOKEN_BUDGETS.selection)}); every other tool is reached`,
    'through `findTools` and the call tools. Per toolset and connection: [docs/mcp.md](docs/mcp.md#figures-generated-from-the-tool-map).',
  ].join('\n');
}

export function toolFigures(): { readme: string; docs: string } {
  return { readme: readmeFigures(), docs: docsFigures() };
}

const markers = (name: string) =>
  [`<!-- tool-figures:${name} -->`, `<!-- /tool-figures:${name} -->`] as const;

/** The generated block of `text` (between its markers), or null when the markers are missing. */
export function generatedBlock(text: string, name: string): string | null {
  const [open, close] = markers(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) return null;
  return text.slice(start + open.length, end).trim();
}

function withBlock(text: string, name: string, body: string): string {
  const [open, close] = markers(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`No ${open} ... ${close} markers`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const figures = toolFigures();
  for (const [name, file] of Object.entries(FIGURE_FILES) as [keyof typeof FIGURE_FILES, string][]) {
    writeFileSync(file, withBlock(readFileSync(file, 'utf8'), name, figures[name]));
    console.log(`${file}: tool figures written`);
  }
}
