// The zod schemas of a register's tools: the record (output), add and update arguments, filters and sorts.
import { z } from 'zod';
import { ID_PREFIXES } from '../../ids.ts';
import {
  cursorSchema,
  directionSchema,
  idOf,
  idOfAny,
  longText,
  sizeSchema,
  timestampSchema,
} from '../fields.ts';
import { article } from '../id-kinds.ts';
import { SAME_AS_ADD } from '../types.ts';
import { asOfSchema } from './as-of.ts';
import { carriesLabels } from './records.ts';
import {
  capitalize,
  type FieldSpec,
  orderFieldsOf,
  type RegisterSpec,
  type RelationSpec,
  targetsOf,
} from './spec.ts';

function outputFieldSchema(field: FieldSpec): z.ZodType {
  return field.mode === 'optional' ? field.schema.nullable() : field.schema;
}

export function recordSchema(spec: RegisterSpec): z.ZodObject {
  const shape: Record<string, z.ZodType> = {
    id: z.string().describe(`Id of the ${spec.label} (\`${spec.prefix}_...\`).`),
    organization_id: z.string().describe('Id of the organization it belongs to (`org_...`).'),
  };
  for (const [name, field] of Object.entries(spec.fields)) shape[name] = outputFieldSchema(field);
  for (const relation of spec.relations ?? [])
    shape[relation.field] = z.array(z.string()).describe(relation.description);
  if (carriesLabels(spec))
    shape.labels = z
      .record(z.string(), z.string())
      .describe(
        'What the records it refers to are called, by id (a person\'s full name, a requirement\'s reference and title, a record\'s name), so no further call is needed to name them, e.g. {"per_...": "Alice Martin"}.',
      );
  shape.created_at = timestampSchema.describe('When it was created (ISO 8601).');
  shape.updated_at = timestampSchema.describe(
    'When it was last changed (ISO 8601); pass as expected_updated_at.',
  );
  return z.object(shape).describe(`${capitalize(article(spec.label))} ${spec.label}.`);
}

/** An ISO 8601 date and time with its offset (`Z` or `+hh:mm`), as updated_at is written: not any text Date.parse reads. */
function isIsoTime(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}

const organizationIdInput = () => idOf('org', 'Organization').describe('`org_...` id.');

export function recordIdInput(spec: RegisterSpec) {
  return idOf(spec.prefix, capitalize(spec.label)).describe(`\`${spec.prefix}_...\` id.`);
}

export function addInput(spec: RegisterSpec): z.ZodObject {
  const shape: Record<string, z.ZodType> = { organization_id: organizationIdInput() };
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.derived) continue;
    if (field.mode === 'required') shape[name] = field.schema;
    else if (field.mode === 'default' && field.defaultValue !== undefined)
      shape[name] = field.schema.default(field.defaultValue as never);
    else shape[name] = field.schema.optional();
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable) shape[relation.field] = relationInput(relation).optional();
  }
  return z.strictObject({ ...shape, ...spec.addArguments?.shape });
}

/** The fields an update may empty (`clear`): optional ones, which a record may hold as null. */
export function clearableFields(spec: RegisterSpec): string[] {
  return Object.entries(spec.fields)
    .filter(([, field]) => field.mode === 'optional' && !field.derived && !field.fixed)
    .map(([name]) => name);
}

export function updateInput(spec: RegisterSpec): z.ZodObject {
  const shape: Record<string, z.ZodType> = { id: recordIdInput(spec) };
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.derived || field.fixed) continue;
    shape[name] = describedInAdd(field.schema).optional();
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable) shape[relation.field] = describedInAdd(relationInput(relation)).optional();
  }
  const clearable = clearableFields(spec);
  if (clearable.length > 0) {
    shape.clear = z
      .array(z.enum(clearable as [string, ...string[]]))
      .max(clearable.length)
      .optional()
      .describe('Fields to empty.');
  }
  shape.expected_updated_at = timestampSchema
    .refine(isIsoTime, 'Expected the updated_at you read, an ISO 8601 time such as 2026-03-01T09:30:00.000Z')
    .optional()
    .describe('The updated_at you read; if it changed since: conflict.');
  // Arguments the add tool takes too (a document's inline file): described there.
  const extra = Object.entries(spec.addArguments?.onUpdate ? spec.addArguments.shape : {}).map(
    ([name, schema]) => [name, describedInAdd(schema)],
  );
  return z.strictObject({ ...shape, ...Object.fromEntries(extra) });
}

/**
 * Why an add or update tool refuses an argument named after a field of its records (`inherent_score`, a risk's
 * `measure_ids`): said in place of the nearest argument name when a call sends one (Tool.argumentHints).
 */
export function refusedFieldHints(
  spec: RegisterSpec,
  mode: 'add' | 'update',
  input: z.ZodObject,
): Record<string, string> {
  const hints: Record<string, string> = {
    created_at: 'set by the service',
    updated_at:
      mode === 'update'
        ? 'set by the service; pass the one you read as expected_updated_at'
        : 'set by the service',
  };
  if (mode === 'add') hints.id = `the service gives the new ${spec.label} its id`;
  else hints.organization_id = `${article(spec.label)} ${spec.label} stays in its organization`;
  for (const [name, field] of Object.entries(spec.fields)) {
    const about = field.schema.description?.replace(/\.$/, '');
    if (field.derived) hints[name] = `computed by the service${about ? ` (${about})` : ''}`;
    else if (field.fixed && mode === 'update')
      hints[name] = `set when the ${spec.label} is added; it cannot change`;
  }
  for (const relation of spec.relations ?? []) {
    if (relation.writable) continue;
    hints[relation.field] = relation.links
      ? `changed with ${relation.links.link.name} and ${relation.links.unlink.name}`
      : `read-only here: ${relation.description}`;
  }
  // A derived field may share its name with an argument (a document's file_name, given with an inline file).
  for (const name of Object.keys(input.shape)) delete hints[name];
  return hints;
}

export function idInput(spec: RegisterSpec) {
  return z.strictObject({ id: recordIdInput(spec) });
}

/**
 * The get tool's input: `id`, or for a register whose records are also named otherwise (spec.namedBy: a requirement
 * by framework and reference) that name instead, with the organization it is looked for in.
 */
export function getInput(spec: RegisterSpec) {
  const named = spec.namedBy;
  if (!named) return z.strictObject({ id: recordIdInput(spec), as_of: asOfSchema.optional() });
  return z
    .strictObject({
      id: recordIdInput(spec).optional().describe(`\`${spec.prefix}_...\` id, or give ${named.argument}.`),
      as_of: asOfSchema.optional(),
      [named.argument]: named.schema.optional(),
      organization_id: organizationIdInput()
        .optional()
        .describe(
          `The organization ${named.argument} is looked for in (not needed with id, or a framework id).`,
        ),
    })
    .superRefine(exactlyOneOf('id', named.argument));
}

/** A refinement: exactly one of two arguments that name the same thing (an id, or the record named otherwise). */
export function exactlyOneOf(first: string, second: string) {
  return (value: Record<string, unknown>, issues: z.core.$RefinementCtx) => {
    const given = [first, second].filter((name) => value[name] !== undefined);
    if (given.length !== 1)
      issues.addIssue({
        code: 'custom',
        path: [first],
        message: `Give ${first} or ${second}${given.length === 2 ? ', not both' : ''}`,
      });
  };
}

/**
 * An update tool's field is the add tool's: published with its type and values, its meaning once, in the add tool
 * (the update tool says "as in addX"; tools/list stays small, and leaves out the values too). A state's moves are
 * named there too.
 */
function describedInAdd(schema: z.ZodType): z.ZodType {
  return schema.meta({ description: undefined, [SAME_AS_ADD]: true });
}

function relationInput(relation: RelationSpec): z.ZodType {
  const kinds = targetsOf(relation);
  const what = kinds.length === 1 ? capitalize(String(kinds[0]).replace('_', ' ')) : 'record';
  const item = idOfAny(
    kinds.map((kind) => ID_PREFIXES[kind]),
    what,
  );
  return z.array(item).max(100).describe(`${relation.description} Replaces the whole list when given.`);
}

function filterSchema(spec: RegisterSpec): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  if (spec.search?.length) {
    // Normalised as stored text is (no NUL or other control character reaches the search).
    shape.query = longText(200, 1)
      .optional()
      .describe(`Searches ${spec.search.map((column) => column.name).join(', ')}.`);
  }
  for (const [name, item] of Object.entries(spec.filters ?? {})) shape[name] = item.schema.optional();
  return z.strictObject(shape).optional().describe('All given must match.');
}

function orderBySchema(spec: RegisterSpec): z.ZodType {
  const fields = Object.keys(orderFieldsOf(spec)) as [string, ...string[]];
  return z
    .strictObject({
      field: z.enum(fields).describe('Field.'),
      direction: directionSchema.default('DESC').describe('Direction.'),
    })
    .optional()
    .describe('Sort; default created_at DESC.');
}

export function listInput(spec: RegisterSpec) {
  return z.strictObject({
    organization_id: organizationIdInput(),
    filter: filterSchema(spec),
    order_by: orderBySchema(spec),
    as_of: asOfSchema
      .optional()
      .describe('A past time (ISO 8601): list as things stood then, from history; created_at order only.'),
    size: sizeSchema.optional().describe('Default 20.'),
    cursor: cursorSchema.optional().describe('From next_cursor.'),
  });
}
