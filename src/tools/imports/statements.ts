// The statements an import writes, each for many rows at once: the rows travel as one JSON parameter read with
// json_each, so a chunk of a thousand records is a handful of statements (and one libSQL batch is one request over
// HTTP). Guards make the whole batch or transaction fail if what the plan read changed before it was written.
import { getTableColumns, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { recordChanges } from '../../db/schema.ts';
import { stateOfAny } from '../changes.ts';
import type { RegisterRecords } from '../registers/records.ts';
import type { RegisterTable, RelationSpec, Row } from '../registers/spec.ts';
import type { ToolContext } from '../types.ts';

/**
 * The message of a guard that failed: SQLite has no RAISE outside triggers, so a guard asks `json()` to read this
 * text, which is not JSON, and the statement (and with it the batch or transaction) fails.
 */
export const GUARD_FAILED = 'import guard: the records changed while the file was imported';

/** Whether a database error is a failed guard of this module. */
export function isGuardFailure(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 6; cause = cause.cause, depth++)
    if (/malformed JSON/i.test(cause.message)) return true;
  return false;
}

/** Fails unless the statement just before it changed exactly `count` rows. */
export function changedExactly(count: number): SQL {
  return sql`select json(iif(changes() = ${count}, '1', ${GUARD_FAILED}))`;
}

/** Fails unless every id of `ids` is a record of `table` in the organization (none deleted since it was read). */
export function stillThere(table: RegisterTable, organizationId: string, ids: readonly string[]): SQL {
  return sql`select json(iif((select count(*) from ${table} where ${table.organization_id} = ${organizationId} and ${table.id} in (select value from json_each(${JSON.stringify(ids)}))) = ${ids.length}, '1', ${GUARD_FAILED}))`;
}

/** `j.value ->> n`: the n-th item of a row sent as a JSON array. */
function item(index: number): SQL {
  return sql`j.value ->> ${sql.raw(String(index))}`;
}

/** `insert into <table> (<columns>) select <items> from json_each(<rows>)`, rows as arrays in column order. */
function insertRows(table: SQLiteTable, columns: readonly string[], rows: unknown[][]): SQL {
  const names = sql.join(
    columns.map((name) => sql.identifier(name)),
    sql`, `,
  );
  const values = sql.join(
    columns.map((_, index) => item(index)),
    sql`, `,
  );
  return sql`insert into ${table} (${names}) select ${values} from json_each(${JSON.stringify(rows)}) as j`;
}

/** The columns an import writes of a register (all but those triggers keep and the write nonce). */
export function writtenColumns(records: RegisterRecords): string[] {
  const maintained = new Set(
    Object.entries(records.spec.fields)
      .filter(([, field]) => field.maintained)
      .map(([name]) => name),
  );
  return Object.keys(records.columns).filter((name) => !maintained.has(name));
}

/** A row's values as the driver stores them (JSON columns as text, booleans as 0/1). */
function driverValues(records: RegisterRecords, columns: readonly string[], row: Row): unknown[] {
  return columns.map((name) => {
    const column = records.columns[name];
    const value = row[name] ?? null;
    return column && value !== null ? column.mapToDriverValue(value) : null;
  });
}

/** New records, each a full row (id, organization, timestamps included); then a guard that all landed. */
export function insertRecords(records: RegisterRecords, rows: readonly Row[]): SQL[] {
  if (rows.length === 0) return [];
  const columns = writtenColumns(records);
  return [
    insertRows(
      records.table,
      columns,
      rows.map((row) => driverValues(records, columns, row)),
    ),
    changedExactly(rows.length),
  ];
}

export interface RecordUpdate {
  id: string;
  /** Every written column's new value (updated_at included). */
  row: Row;
  /** The updated_at the plan read: the update lands only if the record still has it. */
  previous: string;
}

/** Changed records, each only if unchanged since it was read; then a guard that all landed. */
export function updateRecords(
  records: RegisterRecords,
  updates: readonly RecordUpdate[],
  nonce: string,
): SQL[] {
  if (updates.length === 0) return [];
  const fixed = new Set(['id', 'organization_id', 'created_at']);
  const columns = writtenColumns(records).filter((name) => !fixed.has(name));
  const { table, nonceColumn } = records;
  const sets = columns.map((name, index) => sql`${sql.identifier(name)} = ${item(index + 2)}`);
  if (nonceColumn) sets.push(sql`${sql.identifier(nonceColumn.name)} = ${nonce}`);
  const payload = updates.map((update) => [
    update.id,
    update.previous,
    ...driverValues(records, columns, update.row),
  ]);
  return [
    sql`update ${table} set ${sql.join(sets, sql`, `)} from json_each(${JSON.stringify(payload)}) as j where ${table.id} = ${item(0)} and ${table.updated_at} = ${item(1)}`,
    changedExactly(updates.length),
  ];
}

export interface HistoryEntry {
  kind: string;
  recordId: string;
  action: 'add' | 'update';
  before: Row | null;
  after: Row | null;
}

/**
 * The history rows of an import: surface `import`, the call's id, who (and through which token, for API calls);
 * each with its own `chg_` id as the tools make them.
 */
export function historyRows(
  ctx: ToolContext,
  organizationId: string,
  tool: string,
  at: string,
  entries: readonly HistoryEntry[],
): SQL[] {
  if (entries.length === 0) return [];
  const columns = Object.keys(getTableColumns(recordChanges));
  const fromRow: Record<string, SQL> = {
    id: sql`'chg_' || lower(hex(randomblob(12)))`,
    organization_id: sql`${organizationId}`,
    kind: item(0),
    record_id: item(1),
    action: item(2),
    surface: sql`'import'`,
    user_id: sql`${ctx.principal.userId}`,
    token_id: sql`${ctx.surface === 'mcp' || ctx.surface === 'direct' ? ctx.principal.tokenId : null}`,
    call_id: sql`${ctx.callId}`,
    tool: sql`${tool}`,
    before: item(3),
    after: item(4),
    created_at: sql`${at}`,
    // Inserted after the records are written: each row's state as it now stands (read as of a date uses it).
    state: stateOfAny(
      entries.map((entry) => entry.kind),
      item(0),
      item(1),
      item(2),
    ),
  };
  const payload = entries.map((entry) => [
    entry.kind,
    entry.recordId,
    entry.action,
    entry.before === null ? null : JSON.stringify(entry.before),
    entry.after === null ? null : JSON.stringify(entry.after),
  ]);
  const values = sql.join(
    columns.map((name) => fromRow[name] ?? sql`null`),
    sql`, `,
  );
  return [
    sql`insert into ${recordChanges} (${sql.join(
      columns.map((name) => sql.identifier(name)),
      sql`, `,
    )}) select ${values} from json_each(${JSON.stringify(payload)}) as j`,
  ];
}

/**
 * A relation list set to exactly these ids for each owner: the owners' old links go (for records that existed), then
 * the new ones are inserted.
 */
export function setRelation(
  relation: RelationSpec,
  organizationId: string,
  at: string,
  lists: readonly { ownerId: string; targetIds: readonly string[]; existed: boolean }[],
): SQL[] {
  const statements: SQL[] = [];
  const replaced = lists.filter((list) => list.existed).map((list) => list.ownerId);
  if (replaced.length > 0)
    statements.push(
      sql`delete from ${relation.table} where ${relation.ownerColumn} in (select value from json_each(${JSON.stringify(replaced)}))`,
    );
  const pairs = lists.flatMap((list) => [...new Set(list.targetIds)].map((target) => [list.ownerId, target]));
  if (pairs.length === 0) return statements;
  const linkColumns = getTableColumns(relation.table);
  const columns = [relation.ownerColumn.name, relation.targetColumn.name, relation.organizationColumn.name];
  const hasCreatedAt = 'created_at' in linkColumns;
  if (hasCreatedAt) columns.push('created_at');
  statements.push(
    insertRows(
      relation.table,
      columns,
      pairs.map((pair) => [...pair, organizationId, ...(hasCreatedAt ? [at] : [])]),
    ),
  );
  return statements;
}

/** A statement of a spec hook (drizzle query builder) as SQL, for the same list. */
export function asSql(statement: SQLWrapper): SQL {
  return statement.getSQL();
}
