// Imports a table (CSV or a sheet) into one register, for every register through its spec and tools: columns
// matched, cells read as values, references found by id, name or email, each row checked as its add or update tool
// checks it, in chunks of rows (one read batch each), then written in bulk with history rows (surface `import`).
// Nothing is written unless every row passes: the caller's writer keeps the statements for one batch, or runs them
// in one transaction it rolls back.
// The steps share one ImportRun (run.ts): the header and rows read (rows.ts), references looked up in one batch
// (lookups.ts) and resolved (references.ts), each row planned (plan.ts), here the chunks and their statements.
import type { SQL } from 'drizzle-orm';
import { invalidArguments } from '../../errors.ts';
import { isIdOf } from '../../ids.ts';
import { article } from '../id-kinds.ts';
import type { Registers } from '../registers/builder.ts';
import type { RegisterKind, Row } from '../registers/spec.ts';
import { readSettings } from '../settings.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import type { ToolContext } from '../types.ts';
import { lookUp } from './lookups.ts';
import { planNew, planUpdate } from './plan.ts';
import { resolveReferences } from './references.ts';
import { parseRow, readHeader } from './rows.ts';
import {
  CHUNK_ROWS,
  fieldLabel,
  headerOfId,
  type ImportOptions,
  type ImportReport,
  type ImportRun,
  type ImportWriter,
  type ParsedRow,
  type PlannedRow,
  placeOf,
  refuseRow,
  startRun,
  type TableRows,
} from './run.ts';
import {
  type HistoryEntry,
  historyRows,
  insertRecords,
  type RecordUpdate,
  setRelation,
  stillThere,
  updateRecords,
} from './statements.ts';

export {
  CHUNK_ROWS,
  type ImportOptions,
  type ImportReport,
  type ImportWriter,
  LISTED_ERRORS,
  type RowError,
  type TableRows,
} from './run.ts';

/** A chunk's statements, gathered row by row. */
interface ChunkPlan {
  people: Row[];
  inserts: Row[];
  updates: RecordUpdate[];
  history: HistoryEntry[];
  lists: Map<string, PlannedRow['lists'][string][]>;
  extra: SQL[];
}

/** Runs an import of `table` into the register `kind`; the writer receives the statements chunk by chunk. */
export async function importTable(
  ctx: ToolContext,
  registers: Registers,
  kind: RegisterKind,
  table: TableRows,
  options: ImportOptions,
  writer: ImportWriter,
): Promise<ImportReport> {
  const run = startRun(ctx, registers, kind, options);
  const { spec, report } = run;
  if (spec.usesSettings) run.settings = await readSettings(ctx.db, run.organizationId);
  let chunk: TableRow[] = [];
  for await (const row of table) {
    if (!run.header) {
      readHeader(run, row);
      continue;
    }
    chunk.push(row);
    if (chunk.length >= CHUNK_ROWS) {
      const rows = chunk;
      chunk = [];
      await runChunk(run, rows, writer);
    }
  }
  if (chunk.length > 0) await runChunk(run, chunk, writer);
  if (!run.header)
    throw invalidArguments('The file is empty: expected a header row, then one row per record.');
  if (report.counts.rows === 0)
    throw invalidArguments(`The file has only a header row: no ${spec.labelPlural} to import.`);
  return report;
}

/** Plans the chunk's rows and hands their statements to the writer. */
async function runChunk(run: ImportRun, rows: TableRow[], writer: ImportWriter) {
  const { ctx, registers, spec, options, organizationId, fields, people, at, nonce, report } = run;
  const { records } = run.tools;
  const parsed = rows.map((row) => parseRow(run, row));
  run.lookups = await lookUp(run, parsed);
  const { lookups } = run;
  const existingRefs = new Map<RegisterKind, Set<string>>();
  const plan: ChunkPlan = {
    people: [],
    inserts: [],
    updates: [],
    history: [],
    lists: new Map(),
    extra: [],
  };
  for (const row of parsed) {
    report.counts.rows++;
    let current = row.id ? lookups.current.get(row.id) : undefined;
    if (row.errors.length === 0 && row.id) checkId(run, row, current);
    const rowPeople: Row[] = [];
    if (row.errors.length === 0) resolveReferences(run, row, current, existingRefs, rowPeople);
    // A row without an id updates the record its key names (a requirement's reference, within the framework the
    // row names once resolved), as a row with that record's id would.
    if (row.errors.length === 0 && !row.id) current = matchByKey(run, row);
    if (row.errors.length > 0) {
      refuseRow(run, row);
      continue;
    }
    const linkValues: Row = {};
    for (const field of fields) {
      if (!field.relation || field.relation.writable || !(field.name in row.values)) continue;
      linkValues[field.name] = row.values[field.name] ?? [];
      delete row.values[field.name];
    }
    const planned = current ? await planUpdate(run, row, current, linkValues) : planNew(run, row, linkValues);
    if (planned === 'refused') {
      refuseRow(run, row);
      continue;
    }
    if (planned === 'unchanged') {
      report.counts.unchanged++;
      continue;
    }
    if (current) report.counts.updated++;
    else report.counts.created++;
    plan.people.push(...rowPeople);
    plan.history.push(planned.history);
    if (planned.update) plan.updates.push(planned.update);
    if (planned.insert) plan.inserts.push(planned.insert);
    plan.extra.push(...planned.extra);
    for (const [field, list] of Object.entries(planned.lists))
      plan.lists.set(field, [...(plan.lists.get(field) ?? []), list]);
  }
  if (report.counts.refused > 0 || options.dryRun) return;
  const statements: SQL[] = [];
  for (const [target, ids] of existingRefs)
    statements.push(stillThere(registers[target].spec.table, organizationId, [...ids]));
  statements.push(...insertRecords(people.records, plan.people));
  statements.push(...insertRecords(records, plan.inserts));
  statements.push(...updateRecords(records, plan.updates, nonce));
  statements.push(...plan.extra);
  for (const relation of spec.relations ?? []) {
    const lists = plan.lists.get(relation.field);
    if (lists) statements.push(...setRelation(relation, organizationId, at, lists));
  }
  const peopleHistory: HistoryEntry[] = plan.people.map((person) => ({
    kind: 'person',
    recordId: String(person.id),
    action: 'add',
    before: null,
    after: people.records.historyValues(person),
  }));
  statements.push(...historyRows(ctx, organizationId, options.tool, at, [...peopleHistory, ...plan.history]));
  await writer.write(statements);
}

/** The row's id: of this register, once in the file, a record of this organization (else as a missing one). */
/**
 * The existing record a row without an id names by its register's import key (spec.importKey), if one does: the
 * only record with that key, or the one within the row's `within` (its framework); a key found in several and no
 * `within` to choose is refused, naming the column to add.
 */
function matchByKey(run: ImportRun, row: ParsedRow): Row | undefined {
  const key = run.spec.importKey;
  const value = key ? row.values[key.field] : undefined;
  if (!key || typeof value !== 'string') return undefined;
  const within = row.values[key.within];
  const candidates = (run.lookups.byKey.get(value) ?? []).filter(
    (candidate) => within === undefined || within === null || candidate[key.within] === within,
  );
  if (candidates.length > 1) {
    const label = fieldLabel(run, key.within);
    row.errors.push({
      row: row.number,
      ...placeOf(run, key.field),
      message: `"${value}" is the ${fieldLabel(run, key.field)} of ${candidates.length} records, in different ${label}s: add a column naming the ${label}`,
    });
    return undefined;
  }
  const [current] = candidates;
  if (!current) return undefined;
  row.id = String(current.id);
  checkId(run, row, current);
  return current;
}

function checkId(run: ImportRun, row: ParsedRow, current: Row | undefined) {
  const { spec, organizationId, seenIds } = run;
  const id = row.id as string;
  const column = headerOfId(run);
  const field = 'id';
  const earlier = seenIds.get(id);
  if (earlier !== undefined) {
    row.errors.push({ row: row.number, column, field, message: `The same id as row ${earlier}` });
    return;
  }
  seenIds.set(id, row.number);
  if (!isIdOf(spec.prefix, id))
    row.errors.push({
      row: row.number,
      column,
      field,
      message: `Not ${article(spec.label)} ${spec.label} id (${spec.prefix}_...): ${id}`,
    });
  else if (!current || current.organization_id !== organizationId)
    row.errors.push({
      row: row.number,
      column,
      field,
      message: `No ${spec.label} ${id} in this organization`,
    });
}
