// One register's records as the tools read them: the selected columns, a record by id, and its presented form.
import { eq, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import type { SelectedFields, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rowMapper } from '../../db/rows.ts';
import { notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { keepStateOf } from '../changes.ts';
import { todayOf } from '../overdue.ts';
import { reviewOverdue } from '../reviews.ts';
import type { ToolContext } from '../types.ts';
import { NAME_FIELDS } from './naming.ts';
import {
  capitalize,
  type RegisterSpec,
  type RegisterTable,
  type Row,
  singleTargetOf,
  type TableOf,
} from './spec.ts';

export interface RegisterRecords {
  spec: RegisterSpec;
  table: RegisterTable;
  /** "Risk", "Data classification": the start of a not-found message. */
  title: string;
  /** The table's columns but write_nonce (a write's private token, never shown). */
  columns: Record<string, SQLiteColumn>;
  nonceColumn: SQLiteColumn | undefined;
  /** The columns and each relation list (a JSON array of ids), for reads by id. */
  selection: SelectedFields;
  /** The same as SQL expressions, for list pages read `<table> indexed by <index>` (drizzle would refuse columns). */
  listSelection: SelectedFields;
  /** How other registers' tables are found (references, existence checks). */
  tableOf: TableOf;
  today(ctx: ToolContext): string;
  /** A row as the tools answer it: relation lists as sorted ids, derived fields added. */
  present(row: Row, ctx: ToolContext): Row;
  /** The record by id, in an organization the caller reaches (for `mode`), else not_found. */
  load(ctx: ToolContext, id: string, mode: 'read' | 'write'): Promise<Row>;
  /** The values a history entry shows: every stored field and relation list (sorted ids) the tools write. */
  historyValues(row: Row): Row;
  /** Only the values of columns the tools write (not those triggers keep). */
  columnValues(values: Row): Row;
  /** The keys of a history state (record_changes.state): the stamps, stored fields the tools write, relation lists. */
  stateKeys: string[];
}

export function registerRecords(spec: RegisterSpec, tableOf: TableOf): RegisterRecords {
  const { table } = spec;
  const { write_nonce: nonceColumn, ...columns } = getTableColumns(table);
  if ((spec.relations ?? []).some((relation) => relation.writable) && !nonceColumn) {
    throw new Error(`${spec.kind}: a register with writable relations needs a write_nonce column`);
  }
  const relationColumns = Object.fromEntries(
    (spec.relations ?? []).map((relation) => [
      relation.field,
      sql<string>`(select json_group_array(${relation.targetColumn}) from ${relation.table} where ${relation.ownerColumn} = ${table.id})`,
    ]),
  );
  const labelColumns = labelSelection(spec, tableOf);
  const selection = { ...columns, ...relationColumns, ...spec.computed, ...labelColumns };
  const listSelection = {
    ...Object.fromEntries(
      Object.entries(columns).map(([name, column]) => [name, sql`${column}`.mapWith(column)]),
    ),
    ...relationColumns,
    ...spec.computed,
    ...labelColumns,
  };
  const state = stateExpression(spec, columns, relationColumns);
  keepStateOf(spec.kind, table, table.id, state.sql);
  const title = capitalize(spec.label);
  // Columns the tools keep for themselves (a sort key): read with a list page's rows, never answered.
  const shown = new Set(['id', 'organization_id', 'created_at', 'updated_at', ...Object.keys(spec.fields)]);
  const internalSet = new Set(Object.keys(columns).filter((name) => !shown.has(name)));
  const hasLabels = carriesLabels(spec);
  const relationsByField = new Map((spec.relations ?? []).map((relation) => [relation.field, relation]));
  const maintained = new Set(
    Object.entries(spec.fields)
      .filter(([, field]) => field.maintained)
      .map(([name]) => name),
  );
  // One date per call: a page presents each of its records with it.
  const days = new WeakMap<ToolContext, string>();
  const today = (ctx: ToolContext) => {
    let day = days.get(ctx);
    if (day === undefined) {
      day = todayOf(ctx);
      days.set(ctx, day);
    }
    return day;
  };

  // get/update/delete read the record by id on every call: the statement is built once per database handle, and its
  // rows mapped by a mapper made once.
  const byIdRow = rowMapper(selection);
  const byIdStatements = new WeakMap<ToolContext['db'], ReturnType<typeof prepareById>>();
  function prepareById(db: ToolContext['db']) {
    return db
      .select(selection)
      .from(table)
      .where(eq(table.id, sql.placeholder('id')))
      .limit(1)
      .prepare();
  }

  return {
    spec,
    table,
    title,
    columns,
    nonceColumn,
    selection,
    listSelection,
    tableOf,
    today,
    present(row, ctx) {
      // Built key by key in the row's order (no copy then delete: a deleted key makes every later read of the object
      // slow), the relations parsed in place, today read once.
      const out: Row = {};
      let labels: Record<string, string> | undefined;
      for (const name in row) {
        if (internalSet.has(name)) continue;
        if (name.startsWith(LABEL_PREFIX)) {
          labels = addLabels(labels, row[name]);
          continue;
        }
        const relation = relationsByField.get(name);
        out[name] = relation ? presentedIds(row[name]) : row[name];
      }
      if (hasLabels) out.labels = labels ?? {};
      // A relation the row does not carry (read through `selection`, it always does) is answered empty.
      for (const relation of spec.relations ?? []) if (!(relation.field in row)) out[relation.field] = [];
      if (!spec.review && !spec.present) return out;
      const day = today(ctx);
      if (spec.review) out.review_overdue = reviewOverdue(out, day, spec.review);
      return spec.present ? spec.present(out, day) : out;
    },
    async load(ctx, id, mode) {
      let byId = byIdStatements.get(ctx.db);
      if (!byId) {
        byId = prepareById(ctx.db);
        byIdStatements.set(ctx.db, byId);
      }
      const [values] = (await byId.values({ id })) as ArrayLike<unknown>[];
      if (!values) throw notFound(title);
      const row = byIdRow(values);
      requireOrganization(ctx, String(row.organization_id), mode, title);
      if (spec.beforeRead && (await spec.beforeRead(ctx, String(row.organization_id))) > 0) {
        const [again] = (await byId.values({ id })) as ArrayLike<unknown>[];
        if (!again) throw notFound(title);
        return byIdRow(again);
      }
      return row;
    },
    historyValues(row) {
      const out: Row = {};
      for (const name of Object.keys(spec.fields))
        if (name in columns && !maintained.has(name)) out[name] = row[name] ?? null;
      for (const relation of spec.relations ?? [])
        if (!relation.inverse) out[relation.field] = idList(row[relation.field]);
      return out;
    },
    stateKeys: state.keys,
    columnValues(values) {
      const out: Row = {};
      for (const name of Object.keys(values))
        if (name in columns && !maintained.has(name)) out[name] = values[name];
      return out;
    },
  };
}

/** Pairs per json_object call: SQLite allows a function 127 arguments. */
const PAIRS_PER_CALL = 60;

/**
 * SQL over the register's row: its state as history keeps it (record_changes.state), a JSON object of created_at,
 * updated_at, each stored field the tools write (not those triggers keep) and each relation list, as stored values.
 */
function stateExpression(
  spec: RegisterSpec,
  columns: Record<string, SQLiteColumn>,
  relationColumns: Record<string, SQL>,
): { sql: SQL; keys: string[] } {
  const values: [string, SQL][] = [];
  // The stamps too: updated_at as the row had it (a link's touch of its owner may be 1 ms past the history row's time).
  for (const name of ['created_at', 'updated_at'])
    if (columns[name]) values.push([name, sql`${columns[name]}`]);
  for (const [name, field] of Object.entries(spec.fields)) {
    const column = columns[name];
    if (column && !field.maintained) values.push([name, sql`${column}`]);
  }
  for (const relation of spec.relations ?? [])
    if (!relation.inverse) values.push([relation.field, sql`json(${relationColumns[relation.field]})`]);
  const pairs = values.map(([name, value]) => sql`${name}, ${value}`);
  // json_patch drops the keys a later part sets to null: a reader takes a key absent from a state as null.
  let out = sql`json_object(${sql.join(pairs.slice(0, PAIRS_PER_CALL), sql`, `)})`;
  for (let at = PAIRS_PER_CALL; at < pairs.length; at += PAIRS_PER_CALL)
    out = sql`json_patch(${out}, json_object(${sql.join(pairs.slice(at, at + PAIRS_PER_CALL), sql`, `)}))`;
  return { sql: out, keys: values.map(([name]) => name) };
}

/** SQL: a new updated_at for a row changed now, strictly later than its current one (optimistic checks stay sound). */
export function nextUpdatedAt(column: SQLiteColumn, now: string): SQL {
  return sql`case when ${now} > ${column} then ${now} else strftime('%Y-%m-%dT%H:%M:%fZ', ${column}, '+0.001 seconds') end`;
}

/** A relation list as answered: the ids of its JSON array (anything else none), sorted. */
function presentedIds(raw: unknown): string[] {
  const ids = typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : [];
  return ids.filter((id): id is string => typeof id === 'string').sort();
}

/** A relation list as stored or read back (JSON text or array): unique ids, sorted. */
function idList(raw: unknown): string[] {
  const ids = typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : Array.isArray(raw) ? raw : [];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))].sort();
}

/** Whether a register's records answer `labels`: it has a field holding an id, or a relation list of one kind. */
export function carriesLabels(spec: RegisterSpec): boolean {
  return (
    Object.values(spec.fields).some((field) => field.ref !== undefined) ||
    (spec.relations ?? []).some((relation) => singleTargetOf(relation) !== undefined)
  );
}

/** Columns holding the names of referenced records (`{id: label}` as JSON), read with a record, answered as `labels`. */
const LABEL_PREFIX = '__labels_';

/** What a person calls a record of this table, as SQL over its alias: a requirement's reference and title, else its name. */
function labelExpression(table: SQLiteTable, as: string): SQL | undefined {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const ref = (name: string) => sql`${sql.identifier(as)}.${sql.identifier(columns[name]?.name ?? name)}`;
  if (columns.reference && columns.title) return sql`${ref('reference')} || ' ' || ${ref('title')}`;
  const found = NAME_FIELDS.find((name) => columns[name]);
  return found ? ref(found) : undefined;
}

/** `"table"."column"` of the register's own row, for a subquery that looks beside it. */
function outer(table: SQLiteTable, column: SQLiteColumn): SQL {
  return sql`${sql.identifier(getTableName(table))}.${sql.identifier(column.name)}`;
}

/**
 * For each field that holds another record's id and each relation list of one kind, a subquery answering the
 * referenced records' names as a JSON object by id (primary-key lookups: a page of 100 records stays flat).
 */
export function labelSelection(spec: RegisterSpec, tableOf: TableOf): Record<string, SQL> {
  const out: Record<string, SQL> = {};
  const self = getTableColumns(spec.table) as Record<string, SQLiteColumn>;
  const idColumn = self.id as SQLiteColumn;
  for (const [name, field] of Object.entries(spec.fields)) {
    const column = self[name];
    if (!field.ref || !column) continue;
    const target = tableOf(field.ref);
    const label = labelExpression(target, 'label_target');
    if (!label) continue;
    out[`${LABEL_PREFIX}${name}`] =
      sql<string>`(select json_object("label_target"."id", ${label}) from ${sql.identifier(getTableName(target))} "label_target" where "label_target"."id" = ${outer(spec.table, column)})`;
  }
  for (const relation of spec.relations ?? []) {
    const kind = singleTargetOf(relation);
    if (!kind) continue;
    const target = tableOf(kind);
    const label = labelExpression(target, 'label_target');
    if (!label) continue;
    const link = sql.identifier(getTableName(relation.table));
    out[`${LABEL_PREFIX}${relation.field}`] =
      sql<string>`(select json_group_object("label_target"."id", ${label}) from ${link} "label_link" join ${sql.identifier(getTableName(target))} "label_target" on "label_target"."id" = "label_link".${sql.identifier(relation.targetColumn.name)} where "label_link".${sql.identifier(relation.ownerColumn.name)} = ${outer(spec.table, idColumn)})`;
  }
  return out;
}

function addLabels(
  labels: Record<string, string> | undefined,
  value: unknown,
): Record<string, string> | undefined {
  if (typeof value !== 'string' || value === '{}') return labels;
  const parsed = JSON.parse(value) as Record<string, string | null>;
  let out = labels;
  for (const id in parsed) {
    const label = parsed[id];
    if (typeof label !== 'string' || label === '') continue;
    out ??= {};
    out[id] = label;
  }
  return out;
}
