// JSON Schemas of the tool map, computed once per tool (not per request) and shared by MCP, OpenAPI and the web.
import { z } from 'zod';
import type { Tool } from '../tools/types.ts';
import { RECORD_SCHEMAS, SAME_AS_ADD } from '../tools/types.ts';

type Json = Record<string, unknown>;

export interface ToolJsonSchemas {
  /** The input as zod describes it, enums in their canonical upper case (the web's filter forms read it). */
  input: Json & { type: 'object' };
  /**
   * The published input (OpenAPI, function definitions): every property typed and described, enums in their
   * canonical upper case (the server also takes lower case with spaces, `not started`), no size limits or defaults
   * (the server checks and fills them), no type lists; null is not listed, though the server takes it as "not given".
   */
  publishedInput: Json & { type: 'object' };
  /**
   * The published input as MCP tools/list shows it: the arguments common to many tools (COMMON_ARGUMENTS) and the
   * enum filters are explained once, in the server instructions, instead of in every tool. Clients that validate
   * arguments against it (LangChain's adapters) must let through every form the server takes: an optional argument
   * may be null (a type list with "null"), and a value the server normalises before checking it (an enum in any case
   * with spaces, `open` or `in treatment`; a country code in lower case) is a typed string whose values, if it has a
   * list of them, are in its description; an enum filter takes one value as well as a list.
   */
  mcpInput: Json & { type: 'object' };
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

// Marks, while converting an input, a value the server normalises before checking it (zod's preprocess: an enum in
// any case, a trimmed and upper-cased country code, a URL or an email address): its enum, pattern and format say
// what the server stores, not all it takes.
const NORMALISED_MARK = 'x-normalised';

// Marks an enum filter ("one value or a list", published as the list): tools/list takes the one value too.
const ONE_OR_LIST_MARK = 'x-one-or-list';

/** A zod schema whose input is normalised before it is checked (`z.preprocess`): a pipe from a transform. */
function isNormalised(schema: z.core.$ZodTypes): boolean {
  const def = schema._zod.def;
  return def.type === 'pipe' && def.in._zod.def.type === 'transform';
}

// dateSchema's pattern (fields.ts): the same as JSON Schema's `date` format, which says it in fewer words.
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

// Size limits of strings and lists: the server checks them (invalid_arguments names the limit); defaults: the server
// fills them (descriptions say them; strict function dialects refuse the keyword). The published input keeps
// names, types, enums, formats and numeric ranges, which tell a model what to send.
const INPUT_OMITTED = ['minLength', 'maxLength', 'minItems', 'maxItems', 'default'];

/** What a compacted schema is for: MCP outputs, published inputs (OpenAPI, functions), or tools/list inputs. */
type CompactForm = 'output' | 'input' | 'mcp-input';

/**
 * Shortens a JSON Schema without changing what it accepts (input) or what it tells: zod's safe-integer bounds go,
 * and a union or array repeats no description its parent already gives; an update tool's field keeps its type and
 * values but not the add tool's descriptions. Every node keeps its `type` (enums too), and a nullable value is an
 * `anyOf` with `{type: "null"}`, never a type list: the portable forms. `additionalProperties: false` goes from
 * inputs: the server refuses an unknown argument by name. With `loose` (MCP outputs), value constraints go too, every
 * object below the root is outlined (its keys) and descriptions stay only on the result's own sections and records.
 */
function compact(node: unknown, form: CompactForm, describedAbove = false, depth = 0): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, form, describedAbove, depth));
  const loose = form === 'output';
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = withoutTypeList({ ...(node as Json) });
  for (const [key, bound] of Object.entries(SAFE_INTEGER_BOUNDS)) if (out[key] === bound) delete out[key];
  if (out.pattern === DATE_PATTERN) {
    delete out.pattern;
    out.format = 'date';
  }
  if (loose) for (const key of OUTPUT_CONSTRAINTS) delete out[key];
  else for (const key of INPUT_OMITTED) delete out[key];
  if (!loose && out.additionalProperties === false) delete out.additionalProperties;
  // Only tools/list (forValidatingClients) reads them.
  if (form !== 'mcp-input') {
    delete out[NORMALISED_MARK];
    delete out[ONE_OR_LIST_MARK];
  }
  // JSON object keys are strings: zod's `propertyNames: {type: "string"}` of a record says nothing.
  if (
    (out.propertyNames as Json | undefined)?.type === 'string' &&
    Object.keys(out.propertyNames as Json).length === 1
  )
    delete out.propertyNames;
  // Described in the add tool: what is inside (an id list's items) is not described again either.
  const sameAsAdd = out[SAME_AS_ADD] === true;
  delete out[SAME_AS_ADD];
  // In tools/list, an update field is its type alone (its values, bounds and a state's moves are read in the add tool).
  if (sameAsAdd && form === 'mcp-input') {
    for (const key of ['enum', 'minimum', 'maximum', 'format', 'pattern']) delete out[key];
    if (out.items) out.items = { type: (out.items as Json).type };
  }
  const record = out[RECORD_MARK] === true;
  delete out[RECORD_MARK];
  // Outputs: a section of the result (an object) says what it is; scalars and lists are named well enough.
  const section = depth === 1 && out.type === 'object';
  // A record is named by its place (getRisk's risk, listRisks' risks): the instructions say where it is spelled out.
  if (record || describedAbove || (loose && !section)) delete out.description;
  if (loose && depth > 0 && out.properties) return outline(out, record);
  const described = typeof out.description === 'string' || sameAsAdd;
  for (const [key, value] of Object.entries(out)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, property]) => [
          name,
          compact(property, form, false, depth + 1),
        ]),
      );
    } else if (key === 'anyOf' || key === 'items') {
      out[key] = compact(value, form, described || describedAbove, depth);
    }
  }
  return out;
}

/** `{type: ["string", "null"]}` (zod's nullable scalar) as `{anyOf: [{type: "string"}, {type: "null"}]}`. */
function withoutTypeList(node: Json): Json {
  if (!Array.isArray(node.type)) return node;
  const { type, description, ...rest } = node;
  const anyOf = (type as string[]).map((name) =>
    name === 'null' ? { type: name } : { ...rest, type: name },
  );
  return { ...(description === undefined ? {} : { description }), anyOf };
}

/** Fields every record has, named once in the server instructions rather than in each record's outline. */
export const RECORD_COMMON_FIELDS = ['id', 'organization_id', 'created_at', 'updated_at'];

/**
 * An object in an MCP output schema below the root (a record, a section of a summary, a row): its keys, all always
 * present (null when empty); a record's own, besides RECORD_COMMON_FIELDS. Types, values and meanings are in the
 * add tools' inputs, the list tools' filters and the OpenAPI document; this keeps tools/list small.
 */
function outline(node: Json, record: boolean): Json {
  const keys = Object.keys(node.properties as Json);
  return {
    type: 'object',
    ...(typeof node.description === 'string' ? { description: node.description } : {}),
    required: record ? keys.filter((key) => !RECORD_COMMON_FIELDS.includes(key)) : keys,
  };
}

const PAGE_FIELDS = ['next_cursor', 'total_count', 'total_count_capped', 'page_shortened'];

/**
 * Arguments many tools share, explained once in the MCP server instructions (SHARED_RULES, instructions.ts): tools/list
 * leaves out their descriptions (order_by's members too), and those of enum filters (a list of values, any of
 * which matches). The OpenAPI document and the function definitions keep them.
 */
export const COMMON_ARGUMENTS = [
  'id',
  'organization_id',
  'filter',
  'order_by',
  'size',
  'cursor',
  'clear',
  'expected_updated_at',
];

function undescribed(schema: Json): Json {
  const { description: _description, ...rest } = schema;
  return rest;
}

function mapProperties(schema: Json, change: (name: string, property: Json) => Json): Json {
  if (!schema.properties) return schema;
  const properties = Object.entries(schema.properties as Record<string, Json>);
  return {
    ...schema,
    properties: Object.fromEntries(properties.map(([name, property]) => [name, change(name, property)])),
  };
}

const isEnumList = (schema: Json) =>
  schema.type === 'array' && Array.isArray((schema.items as Json | undefined)?.enum);

// An id's format in a description ("Owner (`per_...`)."): the server instructions list every kind's prefix once.
const ID_FORMAT = / ?\(`[a-z]{3}_\.\.\.`\)/g;

// Words that say nothing a field's name does not: "The risk." for risk_id, "Target date." for target_date.
const FILLER_WORDS = new Set(['the', 'a', 'an', 'of', 'its', 'id', 'ids']);

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '' && !FILLER_WORDS.has(word));

/**
 * True when a description, its id format aside, only repeats its field's name ("Business owner (`per_...`)." for
 * business_owner_id): tools/list leaves it out, the name and the instructions' id prefixes say as much.
 */
export function saysOnlyItsName(name: string, description: string): boolean {
  const named = new Set(wordsOf(name).flatMap((word) => [word, `${word}s`]));
  return wordsOf(description.replace(ID_FORMAT, '')).every((word) => named.has(word));
}

/**
 * A property as tools/list shows it: its description without id formats (the instructions give the prefixes),
 * left out when it only repeats the property's name; an object's properties likewise.
 */
function mcpProperty(name: string, property: Json): Json {
  let out = property;
  if (typeof out.description === 'string') {
    out = saysOnlyItsName(name, out.description)
      ? undescribed(out)
      : { ...out, description: out.description.replace(ID_FORMAT, '') };
  }
  return out.properties ? mapProperties(out, mcpProperty) : out;
}

/** The input as tools/list shows it: without the descriptions the server instructions give once. */
function mcpInputOf(input: Json): Json {
  return mapProperties(input, (name, property) => {
    if (!COMMON_ARGUMENTS.includes(name)) return mcpProperty(name, property);
    // The direction's values (ASC, DESC) are in the instructions.
    if (name === 'order_by')
      return mapProperties(undescribed(property), (key, member) =>
        key === 'direction' ? { type: member.type } : undescribed(member),
      );
    if (name === 'size') return { type: property.type };
    if (name === 'filter')
      return mapProperties(undescribed(property), (key, member) =>
        isEnumList(member) ? undescribed(member) : mcpProperty(key, member),
      );
    return undescribed(property);
  });
}

/** A description with a sentence added. */
function withSentence(description: unknown, sentence: string): string {
  return typeof description === 'string' && description !== ''
    ? `${description.replace(/\.?$/, '.')} ${sentence}`
    : sentence;
}

/** A normalised value as tools/list publishes it: its type, its values (if a list) said in words. */
function loosened(node: Json, listed: 'One of' | 'Any of'): Json {
  const { enum: values, pattern: _pattern, format: _format, [NORMALISED_MARK]: _mark, ...rest } = node;
  if (!Array.isArray(values)) return rest;
  return { ...rest, description: withSentence(rest.description, `${listed}: ${values.join(', ')}.`) };
}

/**
 * The MCP input as validating clients must read it (see ToolJsonSchemas.mcpInput): a normalised value loosened
 * (a list of enum values says them on the list), every optional property nullable. Type lists are the form such
 * clients keep: LangChain's adapters drop an `anyOf` of scalars (and with it the type) and keep only the object
 * of an `anyOf` with null, refusing the null.
 */
function forValidatingClients(node: Json): Json {
  let out: Json = node[NORMALISED_MARK] ? loosened(node, 'One of') : { ...node };
  const items = out.items as Json | undefined;
  if (items && typeof items === 'object' && !Array.isArray(items)) {
    if (items[NORMALISED_MARK] && Array.isArray(items.enum)) {
      const { items: _items, ...list } = out;
      out = {
        ...loosened({ ...list, enum: items.enum, [NORMALISED_MARK]: true }, 'Any of'),
        items: { type: items.type },
      };
    } else out.items = forValidatingClients(items);
  }
  if (out[ONE_OR_LIST_MARK]) {
    delete out[ONE_OR_LIST_MARK];
    out.type = ['array', 'string'];
  }
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Json[]).map(forValidatingClients);
  if (out.properties) {
    const required = new Set((out.required as string[] | undefined) ?? []);
    out = mapProperties(out, (name, property) => {
      const accepted = forValidatingClients(property);
      return required.has(name) ? accepted : nullable(accepted);
    });
  }
  return out;
}

/** A property that may be null too: its type listed with "null" (or null added to its anyOf). */
function nullable(property: Json): Json {
  if (typeof property.type === 'string') return { ...property, type: [property.type, 'null'] };
  if (Array.isArray(property.type))
    return property.type.includes('null') ? property : { ...property, type: [...property.type, 'null'] };
  if (Array.isArray(property.anyOf)) {
    // Already nullable in zod (`.nullable().optional()`): null is listed once.
    const options = property.anyOf as Json[];
    if (options.some((option) => option.type === 'null')) return property;
    return { ...property, anyOf: [...options, { type: 'null' }] };
  }
  return property;
}

const cache = new WeakMap<Tool, ToolJsonSchemas>();

export function jsonSchemasOf(tool: Tool): ToolJsonSchemas {
  let schemas = cache.get(tool);
  if (!schemas) {
    const output = { ...convert(tool.output, 'output'), type: 'object' as const };
    const published = convert(tool.input, 'input', ({ zodSchema, jsonSchema }) => {
      if (isNormalised(zodSchema)) jsonSchema[NORMALISED_MARK] = true;
      // "One value or a list" (enum filters) is published as the list: one form to learn, half the bytes.
      if (isOneOrList(zodSchema) && Array.isArray(jsonSchema.anyOf)) {
        const list = (jsonSchema.anyOf as Json[]).find((option) => option.type === 'array');
        delete jsonSchema.anyOf;
        Object.assign(jsonSchema, list, { [ONE_OR_LIST_MARK]: true });
      }
    });
    // Records are spelled out in the tool that returns one (getRisk); elsewhere they are named.
    const mcp = convert(tool.output, 'output', ({ zodSchema, jsonSchema }) => {
      const record = RECORD_SCHEMAS.get(zodSchema);
      if (!record) return;
      jsonSchema[RECORD_MARK] = true;
      if (record.spelledOutIn === tool.name) return;
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, { type: 'object', [RECORD_MARK]: true });
    });
    // Without `required` or `additionalProperties: false`, an error result ({error: {...}}, isError: true)
    // validates too: clients such as the SDK's validate structuredContent whether or not isError is set.
    const mcpOutput = compact(mcp, 'output') as Json;
    // The paging fields every list returns are explained once, in the server instructions.
    const properties = mcpOutput.properties as Json | undefined;
    for (const name of PAGE_FIELDS) delete properties?.[name];
    // A section named by its key alone ("Risks." for risks) is not described again.
    if (properties) mcpOutput.properties = mapProperties(mcpOutput, mcpProperty).properties;
    const publishedInput = compact(published, 'input') as Json;
    schemas = {
      input: { ...convert(tool.input, 'input'), type: 'object' },
      publishedInput: { ...publishedInput, type: 'object' },
      mcpInput: {
        ...forValidatingClients(mcpInputOf(compact(published, 'mcp-input') as Json)),
        type: 'object',
      },
      output,
      mcpOutput: { ...mcpOutput, type: 'object' },
    };
    cache.set(tool, schemas);
  }
  return schemas;
}
