// Function definitions for function-calling APIs (GET /api/mcp/functions.json?format=openai|gemini|anthropic),
// generated from the published input schemas of the tool map: each provider's schema dialect, ready to paste as
// the request's `tools`. A call comes back as POST /api/mcp/tools/<name> with the arguments the model wrote.
import { AppError } from '../errors.ts';
import type { Tool } from '../tools/types.ts';
import { estimatedTokens } from './connection.ts';
import { jsonSchemasOf } from './schemas.ts';

type Json = Record<string, unknown>;

export const FUNCTION_FORMATS = ['openai', 'gemini', 'anthropic'] as const;
export type FunctionFormat = (typeof FUNCTION_FORMATS)[number];

export function functionFormatOf(asked: string | undefined): FunctionFormat {
  const format = (asked ?? '').trim().toLowerCase();
  if ((FUNCTION_FORMATS as readonly string[]).includes(format)) return format as FunctionFormat;
  const message = `Unknown or missing ?format=${asked ?? ''}: one of ${FUNCTION_FORMATS.join(', ')}.`;
  throw new AppError('invalid_arguments', message, [{ path: 'format', message }]);
}

/** String formats OpenAI's strict mode takes (Structured Outputs, "Supported schemas"); others go to the description. */
const OPENAI_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
/** Gemini's Schema (an OpenAPI 3.0 subset) knows the string formats `enum` and `date-time` only. */
const GEMINI_FORMATS = new Set(['enum', 'date-time']);
/** What a format that a dialect drops says in words, appended to the description. */
const FORMAT_WORDS: Record<string, string> = {
  date: 'a date, YYYY-MM-DD',
  uri: 'an http(s) URL',
  email: 'an email address',
};

function withWords(node: Json, words: string | undefined): Json {
  if (!words) return node;
  const description = typeof node.description === 'string' ? node.description.replace(/\.$/, '') : '';
  return { ...node, description: description ? `${description} (${words}).` : `${capital(words)}.` };
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A node without a format the dialect does not take (said in words instead) or, for Gemini, a regex pattern. */
function portableFormat(node: Json, formats: Set<string>, dropPattern: boolean): Json {
  let out = node;
  if (typeof out.format === 'string' && !formats.has(out.format)) {
    const { format, ...rest } = out;
    out = withWords(rest, FORMAT_WORDS[format as string] ?? `format ${String(format)}`);
  }
  if (dropPattern && typeof out.pattern === 'string') {
    const { pattern: _pattern, ...rest } = out;
    out = rest;
  }
  return out;
}

/**
 * OpenAI strict mode (`strict: true`, the Responses API's default for function tools): every object lists all its
 * properties in `required` and has `additionalProperties: false`; an optional property is nullable instead
 * (`anyOf` with `{type: "null"}`), and the server takes null as "not given".
 */
function openAiSchema(node: Json, optional = false): Json {
  let out = portableFormat(node, OPENAI_FORMATS, false);
  if (out.type === 'object') {
    const properties = (out.properties ?? {}) as Record<string, Json>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    out = {
      ...out,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          openAiSchema(property, !required.has(name)),
        ]),
      ),
      required: Object.keys(properties),
      additionalProperties: false,
    };
  } else if (out.items) {
    out = { ...out, items: openAiSchema(out.items as Json) };
  }
  if (Array.isArray(out.anyOf))
    out = { ...out, anyOf: (out.anyOf as Json[]).map((option) => openAiSchema(option)) };
  if (!optional) return out;
  const { description, ...rest } = out;
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

/** Gemini function declarations: an OpenAPI 3.0 Schema subset (no additionalProperties, $ref, const, type lists). */
function geminiSchema(node: Json): Json {
  const out = portableFormat(node, GEMINI_FORMATS, true);
  const { additionalProperties: _additional, ...rest } = out;
  if (rest.properties) {
    rest.properties = Object.fromEntries(
      Object.entries(rest.properties as Record<string, Json>).map(([name, property]) => [
        name,
        geminiSchema(property),
      ]),
    );
  }
  if (rest.items) rest.items = geminiSchema(rest.items as Json);
  if (Array.isArray(rest.anyOf)) rest.anyOf = (rest.anyOf as Json[]).map(geminiSchema);
  return rest;
}

/** A free-form map (`{header: field}`): an object whose members are not named, which strict dialects cannot say. */
const isMap = (schema: Json) =>
  schema.type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object';

/** An argument taken as an object of any members or as its JSON text (the call tools' `arguments`). */
const isMapOrText = (schema: Json) =>
  Array.isArray(schema.anyOf) &&
  (schema.anyOf as Json[]).some(isMap) &&
  (schema.anyOf as Json[]).some((option) => option.type === 'string');

/**
 * The arguments OpenAI strict mode and Gemini can express: a map argument (importRecords' optional `columns`) is
 * left out of their definitions; the tool works without it (the server reads the columns by their headers). One
 * that also takes its JSON text (the call tools' `arguments`) is published as that text.
 */
function withoutMaps(schema: Json): Json {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>)
    .filter(([, property]) => !isMap(property))
    .map(([name, property]): [string, Json] =>
      isMapOrText(property)
        ? [name, { type: 'string', description: `${property.description} Write the object as JSON text.` }]
        : [name, property],
    );
  const names = new Set(properties.map(([name]) => name));
  return {
    ...schema,
    properties: Object.fromEntries(properties),
    required: ((schema.required ?? []) as string[]).filter((name) => names.has(name)),
  };
}

const hasProperties = (schema: Json) => Object.keys((schema.properties ?? {}) as Json).length > 0;

/** One tool as the provider's function definition. */
export function functionDefinitionOf(tool: Tool, format: FunctionFormat): Json {
  const input = jsonSchemasOf(tool).publishedInput;
  if (format === 'openai') {
    return {
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: openAiSchema(withoutMaps(input)),
      strict: true,
    };
  }
  if (format === 'gemini') {
    // Gemini refuses an OBJECT without properties: a tool without arguments declares no parameters.
    return {
      name: tool.name,
      description: tool.description,
      ...(hasProperties(input) ? { parameters: geminiSchema(withoutMaps(input)) } : {}),
    };
  }
  return { name: tool.name, description: tool.description, input_schema: input };
}

/** A tool's definition in a provider's dialect, in tokens (estimatedTokens): what a listing's budget counts. */
export function functionCostOf(format: FunctionFormat): (tool: Tool) => number {
  const costs = new WeakMap<Tool, number>();
  return (tool) => {
    let cost = costs.get(tool);
    if (cost === undefined) {
      cost = estimatedTokens(functionDefinitionOf(tool, format));
      costs.set(tool, cost);
    }
    return cost;
  };
}

/**
 * The document: the provider's `tools` value (OpenAI Responses API `tools`, Gemini `tools` with its
 * functionDeclarations, Anthropic Messages `tools`) and the text to give the model as system instructions.
 */
export function buildFunctions(tools: Iterable<Tool>, format: FunctionFormat, instructions: string) {
  const definitions = [...tools].map((tool) => functionDefinitionOf(tool, format));
  return {
    format,
    call: 'POST /api/mcp/tools/<name> with the arguments as the JSON body and Authorization: Bearer <API token>.',
    instructions,
    tools: format === 'gemini' ? [{ functionDeclarations: definitions }] : definitions,
  };
}
