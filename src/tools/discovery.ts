// Progressive discovery (docs/mcp.md): findTools returns the tools for a task with their input schemas, and three call
// tools run any tool by name, each for one class of tools so that its annotations stay honest.
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { jsonSchemasOf } from '../surfaces/schemas.ts';
import { createToolRanker } from './tool-ranker.ts';
import { toolsetsOf } from './toolsets.ts';
import { READ_ANNOTATIONS, type Tool, type ToolAnnotations } from './types.ts';

/** The tools the discovery tools see: the tool map, read when they run (it holds them too). */
export type ToolsOf = () => ReadonlyMap<string, Tool>;

/** A class of tools one call tool runs: its name and annotations, and which tools belong to it. */
export interface CallClass {
  name: string;
  title: string;
  what: string;
  annotations: ToolAnnotations;
  admits(tool: Tool): boolean;
}

/**
 * Read, write and destructive: a host may approve callReadTool once and ask for the others, and the annotations of
 * each are the most dangerous of the tools it runs (test/core/discovery.test.ts holds them to the map).
 */
export const CALL_CLASSES = {
  read: {
    name: 'callReadTool',
    title: 'Call a read tool',
    what: 'a tool that only reads (list*, get*, reports)',
    annotations: READ_ANNOTATIONS,
    admits: (tool) => tool.annotations.readOnlyHint,
  },
  write: {
    name: 'callWriteTool',
    title: 'Call a write tool',
    what: 'a tool that adds or changes records (add*, update*, link*, approvals, imports) without deleting any',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    admits: (tool) => !tool.annotations.readOnlyHint && !tool.annotations.destructiveHint,
  },
  destructive: {
    name: 'callDestructiveTool',
    title: 'Call a destructive tool',
    what: 'a tool that deletes or removes (delete*, unlink*, a catalog import that removes requirements)',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    admits: (tool) => tool.annotations.destructiveHint,
  },
} as const satisfies Record<string, CallClass>;

const CLASSES: CallClass[] = Object.values(CALL_CLASSES);

/** The call tool that runs `tool`. */
export function callClassOf(tool: Tool): CallClass {
  return CLASSES.find((item) => item.admits(tool)) ?? CALL_CLASSES.destructive;
}

/** Another tool's arguments: an object, or its JSON text (function dialects that cannot say "any object" send that). */
export const toolArgumentsSchema = z.union([z.record(z.string(), z.unknown()), z.string().max(200_000)]);

const callInput = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .describe('The exact name of the tool to run, as findTools gives it (e.g. listRequirements).'),
  arguments: toolArgumentsSchema
    .optional()
    .describe(
      "That tool's arguments, as its input schema from findTools says: an object (or its JSON text).",
    ),
});

/** A call tool's arguments given as JSON text (function dialects that cannot say "any object" send that). */
export function argumentsOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const message =
      'Give the arguments as a JSON object (or its JSON text), e.g. {"organization_id": "org_..."}.';
    throw new AppError('invalid_arguments', message, [{ path: 'arguments', message: 'Not a JSON object' }]);
  }
  return parsed;
}

function buildCallTool(callClass: CallClass, toolsOf: ToolsOf): Tool {
  return {
    name: callClass.name,
    title: callClass.title,
    description: `Run ${callClass.what} that this connection does not list, by its name from findTools, with its arguments. Same checks, result and errors as calling it directly.`,
    scope: callClass.annotations.readOnlyHint ? 'read' : 'write',
    annotations: callClass.annotations,
    toolset: 'core',
    input: callInput,
    // The result is the called tool's, as its own output schema (findTools) describes it.
    output: z.looseObject({}),
    dispatch(input) {
      const { name, arguments: given } = input as z.output<typeof callInput>;
      const tool = toolsOf().get(name);
      if (!tool || tool.dispatch) {
        const message = `No tool is named ${name}: call findTools with the task to get the exact names.`;
        throw new AppError('invalid_arguments', message, [{ path: 'name', message: 'Not a tool' }]);
      }
      if (!callClass.admits(tool)) {
        const right = callClassOf(tool);
        const message = `${name} is ${right.what}: run it with ${right.name}.`;
        throw new AppError('invalid_arguments', message, [{ path: 'name', message: `Use ${right.name}` }]);
      }
      return { tool, arguments: argumentsOf(given) };
    },
    // invokeTool runs the tool `dispatch` names instead; nothing calls this one.
    async run() {
      throw new AppError('internal', `${callClass.name} runs through the invocation seam only.`);
    },
  };
}

/**
 * The tools that best match a task, best first, by the ranker tool choice is tested with (src/tools/tool-ranker.ts,
 * test/tool-choice/): none when nothing matches. A ranker is built once per list of tools.
 */
const rankers = new WeakMap<readonly Tool[], ReturnType<typeof createToolRanker>>();

export function rankTools(tools: Tool[], task: string, limit: number): Tool[] {
  let ranker = rankers.get(tools);
  if (!ranker) {
    ranker = createToolRanker(tools);
    rankers.set(tools, ranker);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return ranker
    .rank(task)
    .filter((item) => item.score > 0)
    .slice(0, limit)
    .flatMap((item) => byName.get(item.name) ?? []);
}

/** The discovery tool's name (the instructions point to it when a connection lists it). */
export const FIND_TOOLS = 'findTools';

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 10;

const findInput = z.strictObject({
  task: z
    .string()
    .min(2)
    .max(500)
    .optional()
    .describe(
      'What to do, in a few words (e.g. "statement of applicability", "link a measure to a requirement").',
    ),
  toolset: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Every tool of this toolset (names: call with no arguments).'),
  names: z.array(z.string().min(1).max(64)).min(1).max(20).optional().describe('These exact tools.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`Tools for a task, at most; default ${DEFAULT_LIMIT}.`),
});

const foundTool = z
  .object({
    name: z.string().describe('Its name.'),
    title: z.string().describe('What it is, in a few words.'),
    description: z.string().describe('What it does.'),
    toolset: z.string().describe('Its toolset.'),
    call_with: z
      .string()
      .describe(
        'The call tool that runs it (callReadTool, callWriteTool or callDestructiveTool), unless it is listed.',
      ),
    annotations: z
      .object({
        readOnlyHint: z.boolean(),
        destructiveHint: z.boolean(),
        idempotentHint: z.boolean(),
        openWorldHint: z.boolean(),
      })
      .describe('Its MCP annotation hints.'),
    input_schema: z
      .record(z.string(), z.unknown())
      .describe('JSON Schema of its arguments, every field described.'),
  })
  .describe('A tool found, with what calling it takes.');

const findOutput = z.object({
  tools: z.array(foundTool).describe('The tools found, best first, with what calling them takes.'),
  toolsets: z
    .array(
      z
        .object({
          name: z.string(),
          tools: z.array(z.object({ name: z.string(), title: z.string() })),
        })
        .describe('A toolset and its tools.'),
    )
    .optional()
    .describe('Every toolset with its tools (names and titles), when no tool was asked for or none matched.'),
  note: z.string().optional().describe('What was left out and why.'),
});

function buildFindTools(toolsOf: ToolsOf): Tool {
  const tool: Tool = {
    name: FIND_TOOLS,
    title: 'Find tools for a task',
    description:
      'Find the tools for a task among all of the service (frameworks, requirements, SoA, documents, evidence, tasks, history, imports, ...), with their input schemas; then run one with the call tool it names. No arguments: every toolset and its tools.',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: 'core',
    input: findInput,
    output: findOutput,
    async run(ctx, input) {
      const { task, toolset, names, limit } = input as z.output<typeof findInput>;
      const readOnly = ctx.principal.scope === 'read';
      // What a discovery can return: every tool but the discovery tools, and only read tools to a read-only caller.
      const all = [...toolsOf().values()].filter((item) => !item.dispatch && item !== tool);
      const reachable = all.filter((item) => !readOnly || item.scope === 'read');
      const notes: string[] = [];
      if (readOnly && reachable.length < all.length)
        notes.push('Only read tools: this token or connection is read-only.');
      let found: Tool[] = [];
      if (names) {
        const unknown = names.filter((name) => !all.some((item) => item.name === name));
        if (unknown.length > 0) {
          const message = `No tool is named ${unknown.join(', ')}: call findTools with the task to find the right ones.`;
          throw new AppError('invalid_arguments', message, [{ path: 'names', message: 'Not a tool' }]);
        }
        found = reachable.filter((item) => names.includes(item.name));
      }
      if (toolset) {
        const sets = toolsetsOf(all);
        const key = toolset.trim().toLowerCase().replace(/-/g, '_');
        if (!sets.has(key)) {
          const message = `No toolset is named ${toolset}. Toolsets: ${[...sets.keys()].join(', ')}.`;
          throw new AppError('invalid_arguments', message, [{ path: 'toolset', message: 'Not a toolset' }]);
        }
        found = [...found, ...reachable.filter((item) => item.toolset === key && !found.includes(item))];
      }
      if (task) {
        const ranked = rankTools(reachable, task, limit ?? DEFAULT_LIMIT);
        found = [...found, ...ranked.filter((item) => !found.includes(item))];
        if (ranked.length === 0)
          notes.push(`No tool matches "${task}": here is every toolset; ask again in other words.`);
      }
      const catalogue = found.length === 0;
      return {
        tools: found.map((item) => ({
          name: item.name,
          title: item.title,
          description: item.description,
          toolset: item.toolset ?? '',
          call_with: callClassOf(item).name,
          annotations: { ...item.annotations },
          input_schema: jsonSchemasOf(item).publishedInput,
        })),
        ...(catalogue && {
          toolsets: [...toolsetsOf(reachable)].map(([name, members]) => ({
            name,
            tools: members.map((member) => ({ name: member.name, title: member.title })),
          })),
        }),
        ...(notes.length > 0 && { note: notes.join(' ') }),
      };
    },
  };
  return tool;
}

/** findTools and the three call tools, over the tool map `toolsOf` gives when they run. */
export function discoveryTools(toolsOf: ToolsOf) {
  return {
    findTools: buildFindTools(toolsOf),
    callRead: buildCallTool(CALL_CLASSES.read, toolsOf),
    callWrite: buildCallTool(CALL_CLASSES.write, toolsOf),
    callDestructive: buildCallTool(CALL_CLASSES.destructive, toolsOf),
  };
}
