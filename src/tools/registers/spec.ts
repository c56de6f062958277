// The register spec: what one organization-scoped kind is (table, fields, relations, filters, sorts, rules), as data.
import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { ID_PREFIXES, type IdPrefix } from '../../ids.ts';
import type { OrderField } from '../pagination.ts';
import type { ReviewCycle } from '../reviews.ts';
import type { OrganizationSettings } from '../settings.ts';
import type { Transitions } from '../states.ts';
import type { ToolContext, ToolScope } from '../types.ts';

export type RegisterKind =
  | 'vendor'
  | 'vendor_assessment'
  | 'risk'
  | 'risk_acceptance'
  | 'measure'
  | 'control_test'
  | 'obligation'
  | 'person'
  | 'framework'
  | 'asset'
  | 'data_classification'
  | 'nonconformity'
  | 'continual_improvement'
  | 'audit'
  | 'requirement'
  | 'document'
  | 'evidence'
  | 'task'
  | 'incident'
  | 'incident_action'
  | 'incident_notification'
  | 'processing_activity'
  | 'dpia'
  | 'data_subject_request'
  | 'access_review'
  | 'access_review_entry'
  | 'management_review';

export type Row = Record<string, unknown>;

/** A softer problem of a record that was written all the same: the assistant relays it to the person. */
export interface Warning {
  field: string;
  message: string;
}

/** What a register's rules read beside the record: the same for the add and update tools and for imports. */
export interface RuleContext {
  /** The caller's date (YYYY-MM-DD). */
  today: string;
  /** The fields the caller gave (null for cleared ones); on add, the arguments given. */
  given: Row;
  /** The organization's settings, read when the spec sets `usesSettings`. */
  settings?: OrganizationSettings;
  /** The tool making the change (a generated document's content changes only through its publish tool). */
  tool: string;
}

/**
 * Whether a rule is asked of this change: always on add; on update, when the change gives one of the fields the rule
 * reads (a record written before the rule existed keeps its values until someone touches them, and gets a warning).
 */
export function touches(current: Row | null, rules: RuleContext, fields: readonly string[]): boolean {
  return current === null || fields.some((field) => field in rules.given);
}

/** A refusal naming the field and the fix: `invalid_arguments` with the field as its detail's path. */
export function ruleRefusal(field: string, message: string, fix: string): AppError {
  return new AppError('invalid_arguments', `${message} ${fix}`, [{ path: field, message: fix }]);
}

/** Refuses a pair of days that runs backwards (`end` before `start`, both given), naming both and the fix. */
export function requireForward(next: Row, start: string, end: string, fix: string): void {
  const from = next[start];
  const until = next[end];
  if (typeof from === 'string' && typeof until === 'string' && until < from)
    throw ruleRefusal(end, `${end} ${until} is before ${start} ${from}.`, fix);
}

export type RegisterTable = SQLiteTable &
  Record<'id' | 'organization_id' | 'created_at' | 'updated_at', SQLiteColumn>;

export type TableOf = (kind: RegisterKind) => RegisterTable;

/** What a person reads about a field in the web interface (the schema's description is for AI clients). */
export interface FieldText {
  /** Form label and column heading, e.g. "Business owner"; default: the field name in words. */
  label?: string;
  /** Form hint; default: the schema's description, where that says nothing only a program needs. */
  hint?: string;
  /** Left out of the add and edit forms: the record page has its own control for it (a document's file). */
  ownControl?: boolean;
}

export interface FieldSpec extends FieldText {
  schema: z.ZodType;
  /**
   * required: must be given on add; optional: nullable, may be cleared with null; default: filled on add (with
   * defaultValue, or by the spec's settle when it has none).
   */
  mode: 'required' | 'optional' | 'default';
  defaultValue?: unknown;
  /** The field holds the id of another record of the same organization. */
  ref?: RegisterKind;
  /** Derived by the service: shown in output, refused on input. */
  derived?: boolean;
  /** Kept by database triggers (with `derived`): never written by the tools, not in history rows. */
  maintained?: boolean;
  /** Set on add only: the update tool does not take it (a requirement stays in its framework). */
  fixed?: boolean;
  /** With `ref` on a required field: deleting the referenced record deletes this one too (with history rows). */
  cascade?: boolean;
  /**
   * Read but never written by imports: its value needs a check only the tools run (a stored file of the
   * organization, in settle); an import file's column for it is read-only.
   */
  notImported?: boolean;
}

export const required = (schema: z.ZodType, ref?: RegisterKind, text: FieldText = {}): FieldSpec => ({
  schema,
  mode: 'required',
  ref,
  ...text,
});
export const optional = (schema: z.ZodType, ref?: RegisterKind, text: FieldText = {}): FieldSpec => ({
  schema,
  mode: 'optional',
  ref,
  ...text,
});
export const withDefault = (schema: z.ZodType, defaultValue: unknown, text: FieldText = {}): FieldSpec => ({
  schema,
  mode: 'default',
  defaultValue,
  ...text,
});
/** A field the service fills on add when not given (a date that defaults to today): never empty, so not cleared. */
export const filledOnAdd = (schema: z.ZodType, text: FieldText = {}): FieldSpec => ({
  schema,
  mode: 'default',
  ...text,
});
export const derived = (schema: z.ZodType, text: FieldText = {}): FieldSpec => ({
  schema,
  mode: 'required',
  derived: true,
  ...text,
});

/** A derived field stored in its column and kept current by triggers (e.g. a measure's latest test). */
export const maintainedField = (schema: z.ZodType, label: string): FieldSpec => ({
  ...derived(schema, { label }),
  maintained: true,
});

/** The tools that change a relation kept out of add/update (e.g. a risk's measure_ids): linkRiskMeasure & co. */
export interface LinkToolsSpec {
  link: { name: string; title: string; description: string };
  unlink: { name: string; title: string; description: string };
}

/** A many-to-many link stored in a join table, exposed as an array of ids (e.g. an asset's `vendor_ids`). */
export interface RelationSpec extends FieldText {
  field: string;
  table: SQLiteTable;
  ownerColumn: SQLiteColumn;
  targetColumn: SQLiteColumn;
  organizationColumn: SQLiteColumn;
  /**
   * The kind of record it links to, or several kinds (evidence for measures, risks, vendors...): then the link
   * table's target column holds ids of any of them, told apart by their prefix (`msr_`, `rsk_`).
   */
  target: RegisterKind | readonly RegisterKind[];
  /** Set through add/update (true) or only through its link tools (false, `links` names them). */
  writable: boolean;
  description: string;
  links?: LinkToolsSpec;
  /** A check before a link is made (a requirement that is a section is refused): throws to refuse. */
  beforeLink?(ctx: ToolContext, ownerId: string, targetId: string): Promise<void>;
  /**
   * The other side of another register's relation, shown read-only (a measure's risk_ids from the risks' measure_ids):
   * the owning side keeps the links, their history and their clean-up.
   */
  inverse?: boolean;
}

/**
 * A list of links to records of one register, set through add and update, kept in a join table: `ownerColumn`
 * holds this record's id, `targetColumn` the linked one's (an incident's `asset_ids`, a review's `attendee_ids`).
 */
export function writableLinks(
  field: string,
  table: SQLiteTable & { organization_id: SQLiteColumn },
  columns: { owner: SQLiteColumn; target: SQLiteColumn },
  target: RegisterKind,
  label: string,
  hint: string,
): RelationSpec {
  return {
    field,
    table,
    ownerColumn: columns.owner,
    targetColumn: columns.target,
    organizationColumn: table.organization_id,
    target,
    writable: true,
    description: `Ids of the ${label.toLowerCase()} (\`${ID_PREFIXES[target]}_...\`).`,
    label,
    hint,
  };
}

/** The kinds a relation links to: one, or several. */
export function targetsOf(relation: RelationSpec): readonly RegisterKind[] {
  return typeof relation.target === 'string' ? [relation.target] : relation.target;
}

/** A relation's one target kind, or undefined when it links to several kinds. */
export function singleTargetOf(relation: RelationSpec): RegisterKind | undefined {
  return typeof relation.target === 'string' ? relation.target : undefined;
}

/** The kind among `kinds` whose ids start with the prefix of `id` (`rsk_...` is a risk), or undefined. */
export function kindOfId(kinds: readonly RegisterKind[], id: string): RegisterKind | undefined {
  const prefix = id.slice(0, id.indexOf('_'));
  return kinds.find((kind) => ID_PREFIXES[kind] === prefix);
}

/** A field unique within the organization (`'email'`), or within the records sharing another field's value. */
export type UniqueField = string | { field: string; within: string };

export interface FilterSpec {
  schema: z.ZodType;
  /**
   * The condition. `filter` is the call's whole filter: a condition may restate what another filter implies, so an
   * index range takes both (expiring_before with expired = false starts at today).
   */
  where(value: unknown, today: string, filter?: Row): SQL | undefined;
  /**
   * The same condition as `where`, written for a first page's count (at most cap + 1 matches, in no order), when
   * another form is cheaper there: a link filter's count reads the target's links by their index, where its row
   * test (`where`) suits a walk along the page's sort index. Without it the count uses `where`.
   */
  count?(value: unknown, today: string): SQL | undefined;
  /**
   * For a filter that matches few of the records (incidents with a notice still due, overdue requests): its matches
   * read from an index of their own, as `sparseMatches` builds them (the ids of the organization's matches), or
   * undefined for a value that matches many. A page then reads these matches by id and sorts them, O(matches), while
   * they are at most the count cap; past it, it walks the sort index as for any filter. The count reads them too.
   */
  matches?(value: unknown, today: string, organizationId: string): SQL | undefined;
  /**
   * For a link filter whose link rows carry the record's sort keys (evidence_records.created_at): the target's links
   * read from their index in the page's order, each record looked up as it is kept, for the sort fields `order`
   * names. O(page) whatever the target's number of links. Preferred to `matches` in those orders.
   */
  lead?(value: unknown, organizationId: string): FilterLead | undefined;
}

/** The links a page is read from in its order (FilterSpec.lead). */
export interface FilterLead {
  /** The link table, read by `index`. */
  table: SQLiteTable;
  index: string;
  /** The target's links within the organization. */
  where: SQL;
  /** The link's column holding the record's id. */
  id: SQLiteColumn;
  /** The link's columns holding the record's values of these sort fields (fields that are never NULL). */
  order: Record<string, SQLiteColumn>;
}

/** The column a filter's `matches` select names its ids by. */
export const SPARSE_ID = 'sparse_id';

/** A filter's matches (FilterSpec.matches): the ids in `id` (repeated or not) of the rows of `table` meeting `where`. */
export function sparseMatches(id: SQLiteColumn, table: SQLiteTable, where: SQL | undefined): SQL {
  return sql`select ${id} as ${sql.identifier(SPARSE_ID)} from ${table} where ${where ?? sql`1`}`;
}

export function filter<T>(
  schema: z.ZodType<T>,
  where: (value: T, today: string, filter: Row) => SQL | undefined,
): FilterSpec {
  return { schema, where: (value, today, filter = {}) => where(value as T, today, filter) };
}

/** A filter on an enum column: one value or a list of values (any of them). */
export function enumFilter(values: z.ZodType<string>, column: SQLiteColumn, description: string): FilterSpec {
  return filter(z.union([values, z.array(values).min(1).max(20)]).describe(description), (value) =>
    Array.isArray(value) ? inArray(column, value) : eq(column, value),
  );
}

export interface RegisterSpec {
  kind: RegisterKind;
  prefix: IdPrefix;
  /** Human label, singular and plural: "data classification", "data classifications". */
  label: string;
  labelPlural: string;
  /** Tool-name nouns: getDataClassification / listDataClassifications. */
  noun: string;
  nounPlural: string;
  /** Response keys: `data_classification` / `data_classifications`. */
  key: string;
  listKey: string;
  table: RegisterTable;
  /** One sentence saying what this kind is, for the tool descriptions. */
  about: string;
  /** What its ids name, where they are easily taken for another kind's (a person is no account): for errors. */
  idNote?: string;
  fields: Record<string, FieldSpec>;
  relations?: RelationSpec[];
  /**
   * What an import row without an id is matched by (a requirement's reference, within its framework when the file
   * names one): a row naming an existing record's key updates it, as a row with its id would.
   */
  importKey?: { field: string; within: string };
  /** Fields unique within an organization (e.g. a person's email) or within a field: a duplicate is a `conflict`. */
  unique?: UniqueField[];
  /** Columns searched by `filter.query` (case-insensitive substring). */
  search?: SQLiteColumn[];
  /**
   * A column whose exact value (any letter case) `filter.query` may be (a requirement's reference): those records
   * come first on the first page, and not again after it.
   */
  exactFirst?: SQLiteColumn;
  filters?: Record<string, FilterSpec>;
  /** Sort fields besides created_at and updated_at, which every register has. */
  orderFields: Record<string, OrderField>;
  /**
   * The state fields whose changes follow defined moves (risk status: out of CLOSED only to OPEN): an update to a
   * state not allowed from the current one is `invalid_transition`, and the web offers only the allowed ones.
   */
  transitions?: Record<string, Transitions>;
  /** States a tool of their own sets, not an update (a document's status APPROVED: approveDocument), by field. */
  stateTools?: Record<string, Record<string, string>>;
  /** Validates a change and fills derived columns; `current` is null on add. */
  prepare?(next: Row, current: Row | null, rules: RuleContext): void;
  /** After prepare: the softer problems of the record as it will be (answered as `warnings`, written all the same). */
  warnings?(next: Row, current: Row | null, rules: RuleContext): Warning[];
  /** prepare and warnings read the organization's settings (rules.settings): the tools read them first. */
  usesSettings?: boolean;
  /** After prepare: checks that read the database (a parent in the same framework) and fills what they derive. */
  settle?(ctx: ToolContext, next: Row, current: Row | null, rules?: RuleContext): Promise<void>;
  /**
   * A condition the add's insert (and an update's write) also needs, checked by the write itself: what settle read
   * still holds (a risk acceptance's risk still has the score accepted), else the write lands nowhere (conflict).
   */
  writeGuard?(next: Row): SQL | undefined;
  /**
   * Statements an update's batch runs after the record's own, only where `landed` holds (the update is the one that
   * landed): e.g. a moved section's descendants.
   */
  afterUpdate?(ctx: ToolContext, id: string, next: Row, current: Row, landed: SQL): BatchItem<'sqlite'>[];
  /** Statements an add's batch runs after the record's insert, only where `landed` holds (it was inserted). */
  afterAdd?(ctx: ToolContext, id: string, next: Row, landed: SQL): BatchItem<'sqlite'>[];
  /** Statements a delete's batch runs once the record is `gone` (rows of its own, such as a document's versions). */
  afterDelete?(ctx: ToolContext, id: string, gone: SQL): BatchItem<'sqlite'>[];
  /**
   * Derived fields read with the row by a subquery (an evidence item's superseded_by): in every read, never written.
   */
  computed?: Record<string, SQL>;
  /**
   * Arguments of the add tool that are no field (an evidence file's content_base64): `take` turns them into fields
   * (a file_id) after the checks, before the record is prepared. With `onUpdate`, the update tool takes them too
   * (a document's draft gets a new file).
   */
  addArguments?: {
    shape: Record<string, z.ZodType>;
    take(ctx: ToolContext, organizationId: string, values: Row): Promise<void>;
    onUpdate?: boolean;
  };
  /** What the get tool answers beside the record (an evidence file's signed download_url). */
  getExtras?: {
    shape: Record<string, z.ZodType>;
    read(ctx: ToolContext, record: Row): Promise<Row>;
  };
  /** Review cycles (src/tools/reviews.ts): the spec also spreads reviewFields(), reviewFilters() and the sort. */
  review?: ReviewCycle;
  /**
   * Brings derived tables up to date before the register is read (an incident's clocks): called by the list tool and
   * when a record is loaded; answers how many records it changed (a loaded record is read again when any).
   */
  beforeRead?(ctx: ToolContext, organizationId: string): Promise<number>;
  /** Adds derived output fields (e.g. `overdue`). */
  present?(row: Row, today: string): Row;
  /** Extra sentences for the descriptions. */
  hints?: { list?: string; get?: string; add?: string; update?: string; delete?: string };
  /** A realistic add example, shown in the OpenAPI document of the add tool. */
  example: Record<string, unknown>;
  /** The toolset its tools are in; default its listKey (`risks`). */
  toolset?: string;
  /**
   * The fields a person names a record by, joined with a space ("A.5.15 Access control"); default `name`. Imports
   * find a reference written as a name by them, and readable exports write references with them.
   */
  nameFields?: string[];
  /**
   * Its records named another way than by id (a requirement by framework and reference): its link tools take
   * `argument` beside `<kind>_id`, resolved in the organization of the other record of the link, and its get tool
   * beside `id`, resolved in the `organization_id` it is given (for a tool of `mode`).
   */
  namedBy?: {
    argument: string;
    schema: z.ZodType;
    resolve(
      ctx: ToolContext,
      value: unknown,
      organizationId: string | null,
      mode: ToolScope,
    ): Promise<string>;
  };
  /**
   * Records in a tree (a requirement's parent): `parent` points at a record of the same register that shares the
   * `within` field's value, and `top` (derived) holds the top-level ancestor's id, null at the top level. Imports
   * place records of a file in the tree without reading each parent (the spec's `settle` does that one by one).
   */
  tree?: { parent: string; top: string; within: string };
}

/** The fields a record of the register is named by (`name`, `full_name`, or `reference` and `title`). */
export function nameFieldsOf(spec: RegisterSpec): string[] {
  return spec.nameFields ?? ['name'];
}

/** The values a state field may take next, from `current` (itself first); all values where it moves freely. */
export function allowedStates(
  spec: RegisterSpec,
  field: string,
  current: string,
  all: readonly string[],
): string[] {
  const allowed = spec.transitions?.[field]?.[current];
  return allowed ? [current, ...allowed.filter((state) => state !== current)] : [...all];
}

/**
 * The register a person names, singular or plural, in any case, with spaces or hyphens (`risk`, `Risks`,
 * `data-classifications`, `people`): its kind, or null.
 */
export function kindNamed(specs: Iterable<RegisterSpec>, name: string): RegisterKind | null {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  for (const spec of specs) if (spec.kind === key || spec.listKey === key) return spec.kind;
  return null;
}

/** The toolset a register's tools are in. */
export function toolsetOf(spec: RegisterSpec): string {
  return spec.toolset ?? spec.listKey;
}

/** Every sort field of a register: created_at and updated_at, then its own. */
export function orderFieldsOf(spec: RegisterSpec): Record<string, OrderField> {
  return {
    created_at: { column: spec.table.created_at },
    updated_at: { column: spec.table.updated_at },
    ...spec.orderFields,
  };
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Labels of the fields every record has, and of the text search. */
const COMMON_LABELS: Record<string, string> = { id: 'Id', query: 'Search' };

/** What a person calls a field of a register (or a filter of the same name): "Business owner", "Residual score". */
export function fieldLabelOf(spec: RegisterSpec | undefined, name: string): string {
  const own =
    spec?.fields[name]?.label ?? spec?.relations?.find((relation) => relation.field === name)?.label;
  if (own) return own;
  if (COMMON_LABELS[name]) return COMMON_LABELS[name];
  // A filter on a linked record (`measure_id`) is named for that record: "Measure".
  const words = name.replace(/_id$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The values of an enum field (a state, a category), or undefined for any other field. */
export function enumValuesOf(spec: RegisterSpec | undefined, name: string): readonly string[] | undefined {
  let def = spec?.fields[name]?.schema._zod.def as
    | {
        type: string;
        entries?: Record<string, string>;
        out?: { _zod: { def: unknown } };
        innerType?: { _zod: { def: unknown } };
      }
    | undefined;
  // Through the wrappers a field schema may have: case-insensitive preprocessing (a pipe), nullable, default.
  for (let depth = 0; def && depth < 4; depth++) {
    if (def.type === 'enum' && def.entries) return Object.values(def.entries);
    const next = def.out ?? def.innerType;
    def = next?._zod.def as typeof def;
  }
  return undefined;
}

/** A form's hint for a field: the spec's words for people, else the schema's description. */
export function fieldHintOf(spec: RegisterSpec, name: string): string {
  const field = spec.fields[name];
  if (field) return field.hint ?? field.schema.description ?? '';
  const relation = spec.relations?.find((item) => item.field === name);
  return relation ? (relation.hint ?? relation.description) : '';
}
