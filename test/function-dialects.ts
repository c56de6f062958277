// Validators of each provider's function definitions, written from its documentation (not from our generator):
// what the provider's API refuses, one message per problem, so a test can list them and a report count them.
//
// - OpenAI, strict mode (Structured Outputs, "Supported schemas"): root an object, not anyOf; every object has
//   `additionalProperties: false` and lists every property in `required`; the supported keywords only (string:
//   pattern, format from a fixed list; number: minimum, maximum, exclusive bounds, multipleOf; array: items,
//   minItems, maxItems; anyOf, enum, const, $ref/$defs, description); at most 10 levels of nesting, 5,000
//   properties, 1,000 enum values, 120,000 characters of names and enum values, and 15,000 characters of values for
//   an enum of more than 250 values.
// - Gemini, function declarations (Schema: a subset of the OpenAPI 3.0 Schema object): one `type` from string,
//   number, integer, boolean, array, object (no type lists, no null type: `nullable` instead); no
//   additionalProperties, $ref, $defs or const; string formats `enum` and `date-time` only; an object has
//   properties; names start with a letter or an underscore, then letters, digits, `_`, `.`, `:`, `-`, 64 at most.
// - Anthropic, Messages API tools: name `^[a-zA-Z0-9_-]{1,64}$`, `input_schema` a JSON Schema whose root is an
//   object.
import { Ajv2020 } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

export type Problems = string[];

const OPENAI_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
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
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const OPENAI_MAX_DEPTH = 10;
const OPENAI_MAX_PROPERTIES = 5_000;
const OPENAI_MAX_ENUM_VALUES = 1_000;
const OPENAI_MAX_STRING_TOTAL = 120_000;

/** The schema nodes below a node (properties, items, anyOf options, $defs) with their paths. */
function children(node: Json, path: string): { node: Json; path: string; nests: boolean }[] {
  const out: { node: Json; path: string; nests: boolean }[] = [];
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    out.push({ node: property, path: `${path}.${name}`, nests: true });
  }
  if (node.items && typeof node.items === 'object')
    out.push({ node: node.items as Json, path: `${path}[]`, nests: false });
  for (const [index, option] of ((node.anyOf ?? []) as Json[]).entries()) {
    out.push({ node: option, path: `${path}|${index}`, nests: false });
  }
  for (const [name, definition] of Object.entries((node.$defs ?? {}) as Record<string, Json>)) {
    out.push({ node: definition, path: `${path}$defs.${name}`, nests: false });
  }
  return out;
}

export function openAiStrictProblems(definition: Json): Problems {
  const problems: Problems = [];
  const name = String(definition.name ?? '');
  if (definition.type !== 'function') problems.push(`${name}: type is not "function"`);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) problems.push(`${name}: name`);
  if (definition.strict !== true) problems.push(`${name}: strict is not true`);
  if (typeof definition.description !== 'string') problems.push(`${name}: no description`);
  const root = definition.parameters as Json | undefined;
  if (root?.type !== 'object' || root.anyOf) {
    problems.push(`${name}: parameters must be an object schema, not anyOf`);
    return problems;
  }
  let properties = 0;
  let enumValues = 0;
  let strings = 0;
  const visit = (node: Json, path: string, depth: number) => {
    for (const key of Object.keys(node)) {
      if (!OPENAI_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key} not supported`);
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    if (types.length === 0 && !node.anyOf && !node.$ref && node.const === undefined && !node.enum) {
      problems.push(`${path}: no type`);
    }
    for (const type of types)
      if (!JSON_TYPES.has(String(type))) problems.push(`${path}: type ${String(type)}`);
    if (typeof node.format === 'string' && !OPENAI_FORMATS.has(node.format)) {
      problems.push(`${path}: format ${node.format} not supported`);
    }
    if (types.includes('object')) {
      const names = Object.keys((node.properties ?? {}) as Json);
      properties += names.length;
      strings += names.reduce((sum, key) => sum + key.length, 0);
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
      const required = new Set((node.required ?? []) as string[]);
      const missing = names.filter((key) => !required.has(key));
      if (missing.length > 0 || required.size !== names.length) {
        problems.push(`${path}: not every property is required (${missing.join(', ')})`);
      }
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      const length = node.enum.reduce((sum: number, value) => sum + String(value).length, 0);
      strings += length;
      if (node.enum.length > 250 && length > 15_000)
        problems.push(`${path}: enum values over 15,000 characters`);
    }
    if (depth > OPENAI_MAX_DEPTH) problems.push(`${path}: nested deeper than ${OPENAI_MAX_DEPTH} levels`);
    for (const child of children(node, path)) visit(child.node, child.path, depth + (child.nests ? 1 : 0));
  };
  visit(root, name, 1);
  if (properties > OPENAI_MAX_PROPERTIES) problems.push(`${name}: ${properties} properties`);
  if (enumValues > OPENAI_MAX_ENUM_VALUES) problems.push(`${name}: ${enumValues} enum values`);
  if (strings > OPENAI_MAX_STRING_TOTAL) problems.push(`${name}: ${strings} characters of names and values`);
  return problems;
}

const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const GEMINI_STRING_FORMATS = new Set(['enum', 'date-time']);
const GEMINI_NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

export function geminiProblems(declaration: Json): Problems {
  const problems: Problems = [];
  const name = String(declaration.name ?? '');
  if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(name)) problems.push(`${name}: name`);
  if (typeof declaration.description !== 'string') problems.push(`${name}: no description`);
  const root = declaration.parameters as Json | undefined;
  if (root === undefined) return problems;
  if (String(root.type).toLowerCase() !== 'object') problems.push(`${name}: parameters is not an object`);
  const visit = (node: Json, path: string) => {
    for (const key of Object.keys(node)) {
      if (!GEMINI_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key} not supported`);
    }
    const type = typeof node.type === 'string' ? node.type.toLowerCase() : undefined;
    if (Array.isArray(node.type)) problems.push(`${path}: type list`);
    else if (type === undefined && !node.anyOf) problems.push(`${path}: no type`);
    else if (type !== undefined && !GEMINI_TYPES.has(type)) problems.push(`${path}: type ${type}`);
    if (typeof node.format === 'string') {
      const allowed = type === 'string' ? GEMINI_STRING_FORMATS : GEMINI_NUMBER_FORMATS;
      if (!allowed.has(node.format)) problems.push(`${path}: format ${node.format} not supported`);
    }
    if (node.enum !== undefined && type !== 'string') problems.push(`${path}: enum without type string`);
    if (type === 'object') {
      const names = Object.keys((node.properties ?? {}) as Json);
      if (names.length === 0) problems.push(`${path}: an object without properties`);
      for (const key of (node.required ?? []) as string[]) {
        if (!names.includes(key)) problems.push(`${path}: required ${key} is not a property`);
      }
    }
    if (type === 'array' && !node.items) problems.push(`${path}: an array without items`);
    for (const child of children(node, path)) visit(child.node, child.path);
  };
  visit(root, name);
  return problems;
}

const ajv = new Ajv2020({ strict: false });

export function anthropicProblems(tool: Json): Problems {
  const problems: Problems = [];
  const name = String(tool.name ?? '');
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) problems.push(`${name}: name`);
  if (typeof tool.description !== 'string') problems.push(`${name}: no description`);
  for (const key of Object.keys(tool)) {
    if (!['name', 'description', 'input_schema'].includes(key)) problems.push(`${name}: member ${key}`);
  }
  const schema = tool.input_schema as Json | undefined;
  if (schema?.type !== 'object') problems.push(`${name}: input_schema is not an object schema`);
  else if (!ajv.validateSchema(schema)) problems.push(`${name}: input_schema is not a valid JSON Schema`);
  return problems;
}
