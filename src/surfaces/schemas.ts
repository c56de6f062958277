// JSON Schemas of the tool map, computed once per tool (not per request) and shared by MCP, OpenAPI and the web.
import { z } from 'zod';
import { article, capitalize } from '../tools/registers/spec.ts';
import type { Tool } from '../tools/types.ts';
import { RECORD_SCHEMAS, SAME_AS_ADD } from '../tools/types.ts';

type Json = Record<string, unknown>;

export interface ToolJsonSchemas {
  /** The input as zod describes it, enums in their canonical upper case (the web's filter forms read it). */
  input: Json & { type: 'object' };
  /**
   * The published input (MCP tools/list, OpenAPI): every spelling the server accepts is valid here, e.g. enum
   * values in upper case and in lower case with spaces (`NOT_STARTED`, `not started`).
   */
  publishedInput: Json & { type: 'object' };
  /** The success result alone, fully described (OpenAPI 200). */
  output: Json & { type: 'object' };
  /**
   * The compact MCP outputSchema: each record kind is spelled out once, in its get tool; the other tools name it.
   * Nothing is required, so error results (`structuredContent.error`) validate against it too.
   */
  mcpOutput: Json & { type: 'object' };
}

export const ERROR_JSON_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      description: 'Why the call failed (a refused call changes nothing).',
      properties: {
        code: {
          type: 'string',
          description:
            'Machine-readable code: invalid_json, invalid_arguments, unauthorized, insufficient_scope, forbidden, not_found, unknown_tool, invalid_transition, conflict, payload_too_large, unsupported_media_type, rate_limited, internal.',
        },
        message: { type: 'string', description: 'What went wrong and how to fix it.' },
        details: {
          description:
            'For invalid_arguments: a list of {path, message}; for invalid_transition: the states.',
        },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

/** Every spelling of an enum value that the published input schema lists: `NOT_STARTED` and `not started`. */
export function enumSpellings(values: readonly unknown[]): unknown[] {
  const spellings: unknown[] = [...values];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const spaced = value.toLowerCase().replace(/_/g, ' ');
    if (!spellings.includes(spaced)) spellings.push(spaced);
  }
  return spellings;
}

/** `caseInsensitiveEnum` (fields.ts): a preprocess (transform) piped into an enum. */
function isCaseInsensitiveEnum(schema: z.core.$ZodTypes): boolean {
  const def = schema._zod.def;
  return def.type === 'pipe' && def.in._zod.def.type === 'transform' && def.out._zod.def.type === 'enum';
}

/** `enumFilter` (registers/spec.ts): a union of a schema and a list of the same schema. */
function isOneOrList(schema: z.core.$ZodTypes): boolean {
  const def = schema._zod.def;
  if (def.type !== 'union' || def.options.length !== 2) return false;
  const [one, list] = def.options;
  return (
    list?._zod.def.type === 'array' && (list._zod.def as unknown as { element: unknown }).element === one
  );
}

function convert(
  schema: z.ZodType,
  io: 'input' | 'output',
  override?: (ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: Json }) => void,
): Json {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    ...(override ? { override: (ctx) => override(ctx as never) } : {}),
  });
  return json;
}

// Bounds zod adds to every integer: they say nothing to a reader.
const SAFE_INTEGER_BOUNDS: Json = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

// Keywords that only constrain values: the output schema describes what comes back, the server guarantees them.
const OUTPUT_CONSTRAINTS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'default',
  'additionalProperties',
  'required',
];

// Marks a record's root in the MCP output while converting; its description stays, its fields' go.
const RECORD_MARK = 'x-record';

// dateSchema's pattern (fields.ts): the same as JSON Schema's `date` format, which says it in fewer words.
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

// Size limits of strings and lists: the server checks them (invalid_arguments names the limit); the published input
// keeps names, types, enums, formats and numeric ranges, which tell a model what to send.
const SIZE_LIMITS = ['minLength', 'maxLength', 'minItems', 'maxItems'];

/**
 * Shortens a JSON Schema without changing what it accepts (input) or what it tells: nullable unions become type
 * lists, zod's safe-integer bounds go, and a union or array repeats no description its parent already gives.
 * With `loose` (MCP outputs), value constraints go too, and descriptions stay only on the result's own
 * properties and on records (their fields are described in the add/update tools' input).
 */
function compact(node: unknown, loose: boolean, describedAbove = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, loose, describedAbove, depth));
  if (typeof node !== 'object' || node === null) return node;
  let out: Json = { ...(node as Json) };
  const anyOf = out.anyOf as Json[] | undefined;
  if (anyOf?.length === 2 && anyOf.some((option) => option.type === 'null')) {
    const [other] = anyOf.filter((option) => option.type !== 'null');
    if (other && typeof other.type === 'string' && !other.anyOf) {
      const { anyOf: _union, ...rest } = out;
      out = { ...other, ...rest, type: [other.type, 'null'] };
      if (Array.isArray(other.enum)) out.enum = [...other.enum, null];
    }
  }
  for (const [key, bound] of Object.entries(SAFE_INTEGER_BOUNDS)) if (out[key] === bound) delete out[key];
  if (out.pattern === DATE_PATTERN) {
    delete out.pattern;
    out.format = 'date';
  }
  // An enum of strings says its type already.
  if (Array.isArray(out.enum) && out.enum.every((value) => typeof value === 'string' || value === null)) {
    delete out.type;
  }
  if (loose) for (const key of OUTPUT_CONSTRAINTS) delete out[key];
  else for (const key of SIZE_LIMITS) delete out[key];
  if (out[SAME_AS_ADD] === true)
    return typeof out.description === 'string' ? { description: out.description } : {};
  const record = out[RECORD_MARK] === true;
  delete out[RECORD_MARK];
  // Outputs: a section of the result (an object) says what it is; scalars and lists are named well enough.
  const section = depth === 1 && out.type === 'object';
  if (!record && (describedAbove || (loose && !section))) delete out.description;
  if (loose && record && out.properties) out = recordOutline(out);
  const described = typeof out.description === 'string';
  for (const [key, value] of Object.entries(out)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, property]) => [
          name,
          compact(property, loose, false, depth + 1),
        ]),
      );
    } else if (key === 'anyOf' || key === 'items') {
      out[key] = compact(value, loose, described || describedAbove, depth);
    }
  }
  if (loose) out = countsOutline(out);
  return out;
}

/** An object of counts (the summary's by_status): its keys once, and that each is an integer. */
function countsOutline(node: Json): Json {
  const properties = node.properties as Record<string, Json> | undefined;
  const values = Object.values(properties ?? {});
  if (
    values.length < 2 ||
    !values.every((value) => Object.keys(value).length === 1 && value.type === 'integer')
  ) {
    return node;
  }
  const { properties: _properties, ...rest } = node;
  return { ...rest, additionalProperties: { type: 'integer' }, required: Object.keys(properties ?? {}) };
}

/**
 * A record in an MCP output schema: its field names, all always present (null when empty). Types, values and
 * meanings are in the add tool's input and the list tool's filters; this keeps tools/list small.
 */
function recordOutline(record: Json): Json {
  return {
    type: 'object',
    description: record.description,
    required: Object.keys(record.properties as Json),
  };
}

const PAGE_FIELDS = ['next_cursor', 'total_count', 'total_count_capped'];

const cache = new WeakMap<Tool, ToolJsonSchemas>();

export function jsonSchemasOf(tool: Tool): ToolJsonSchemas {
  let schemas = cache.get(tool);
  if (!schemas) {
    const output = { ...convert(tool.output, 'output'), type: 'object' as const };
    const published = convert(tool.input, 'input', ({ zodSchema, jsonSchema }) => {
      if (isCaseInsensitiveEnum(zodSchema) && Array.isArray(jsonSchema.enum)) {
        jsonSchema.enum = enumSpellings(jsonSchema.enum);
      }
      // "One value or a list" (enum filters) is published as the list: one form to learn, half the bytes.
      if (isOneOrList(zodSchema) && Array.isArray(jsonSchema.anyOf)) {
        const list = (jsonSchema.anyOf as Json[]).find((option) => option.type === 'array');
        delete jsonSchema.anyOf;
        Object.assign(jsonSchema, list);
      }
    });
    // Records are spelled out in the tool that returns one (getRisk); elsewhere they are named.
    const mcp = convert(tool.output, 'output', ({ zodSchema, jsonSchema }) => {
      const record = RECORD_SCHEMAS.get(zodSchema);
      if (!record) return;
      jsonSchema[RECORD_MARK] = true;
      if (record.spelledOutIn === tool.name) return;
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, {
        type: 'object',
        description: `${capitalize(article(record.label))} ${record.label}, as ${record.spelledOutIn} returns it.`,
        [RECORD_MARK]: true,
      });
    });
    // Without `required` or `additionalProperties: false`, an error result ({error: {...}}, isError: true)
    // validates too: clients such as the SDK's validate structuredContent whether or not isError is set.
    const mcpOutput = compact(mcp, true) as Json;
    // The paging fields every list returns are explained once, in the server instructions.
    const properties = mcpOutput.properties as Json | undefined;
    for (const name of PAGE_FIELDS) delete properties?.[name];
    schemas = {
      input: { ...convert(tool.input, 'input'), type: 'object' },
      publishedInput: { ...(compact(published, false) as Json), type: 'object' },
      output,
      mcpOutput: { ...mcpOutput, type: 'object' },
    };
    cache.set(tool, schemas);
  }
  return schemas;
}
