// One register's records as the tools read them: the selected columns, a record by id, and its presented form.
import { eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { SelectedFields, SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { rowMapper } from '../../db/rows.ts';
import { notFound } from '../../errors.ts';
import { requireOrganization } from '../access.ts';
import { todayOf } from '../overdue.ts';
import { reviewOverdue } from '../reviews.ts';
import type { ToolContext } from '../types.ts';
import { capitalize, type RegisterSpec, type RegisterTable, type Row, type TableOf } from './spec.ts';

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
  const selection = { ...columns, ...relationColumns, ...spec.computed };
  const listSelection = {
    ...Object.fromEntries(
      Object.entries(columns).map(([name, column]) => [name, sql`${column}`.mapWith(column)]),
    ),
    ...relationColumns,
    ...spec.computed,
  };
  const title = capitalize(spec.label);
  // Columns the tools keep for themselves (a sort key): read with a list page's rows, never answered.
  const shown = new Set(['id', 'organization_id', 'created_at', 'updated_at', ...Object.keys(spec.fields)]);
  const internalSet = new Set(Object.keys(columns).filter((name) => !shown.has(name)));
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
      for (const name in row) {
        if (internalSet.has(name)) continue;
        const relation = relationsByField.get(name);
        out[name] = relation ? presentedIds(row[name]) : row[name];
      }
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
    columnValues(values) {
      const out: Row = {};
      for (const name of Object.keys(values))
        if (name in columns && !maintained.has(name)) out[name] = values[name];
      return out;
    },
  };
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
