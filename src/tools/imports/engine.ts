// Imports a table (CSV or a sheet) into one register, for every register through its spec and tools: columns
// matched, cells read as values, references found by id, name or email, each row checked as its add or update tool
// checks it, in chunks of rows (one read batch each), then written in bulk with history rows (surface `import`).
// Nothing is written unless every row passes: the caller's writer keeps the statements for one batch, or runs them
// in one transaction it rolls back.
import { and, eq, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { AppError, invalidArguments } from '../../errors.ts';
import { ID_PREFIXES, isIdOf, newId, randomBase32 } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import type { Registers, RegisterTools } from '../registers/builder.ts';
import { clearableFields } from '../registers/schemas.ts';
import {
  article,
  capitalize,
  nameFieldsOf,
  type RegisterKind,
  type RegisterSpec,
  type Row,
  type UniqueField,
} from '../registers/spec.ts';
import { changedValues } from '../registers/write-tools.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import type { ToolContext } from '../types.ts';
import { type ColumnMatch, type ImportField, importFieldsOf, matchColumns, matchedField } from './columns.ts';
import {
  asSql,
  type HistoryEntry,
  historyRows,
  insertRecords,
  type RecordUpdate,
  setRelation,
  stillThere,
  updateRecords,
} from './statements.ts';
import { cellValue, type DateFormat } from './values.ts';

/** A person's reference written as an email address. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Rows read, checked and written together: one read batch (one request over HTTP) per chunk. */
export const CHUNK_ROWS = 1000;
/** Errors listed in a report (the count is always whole). */
export const LISTED_ERRORS = 100;
/** People created from names, listed in a report. */
const LISTED_PEOPLE = 100;

export interface ImportOptions {
  organizationId: string;
  dryRun: boolean;
  /** Header -> field (API name or label), or null to ignore the column. */
  columns?: Record<string, string | null>;
  dateFormat?: DateFormat;
  /** A person named as an owner but not found is created (email from the "<label> email" column if any). */
  createPeople?: boolean;
  /** The tool the history rows name. */
  tool: string;
}

export interface RowError {
  row: number;
  /** The column's header, or null for the row as a whole. */
  column: string | null;
  message: string;
}

export interface ImportReport {
  kind: RegisterKind;
  dry_run: boolean;
  columns: { column: number; header: string; field: string | null; status: ColumnMatch['target']['kind'] }[];
  counts: {
    rows: number;
    created: number;
    updated: number;
    unchanged: number;
    refused: number;
    people_created: number;
  };
  errors: RowError[];
  errors_truncated: boolean;
  people_created: { full_name: string; email: string }[];
}

/** Where the statements go: kept for one batch, or run at once in an open transaction. */
export interface ImportWriter {
  write(statements: readonly SQL[]): Promise<void>;
}

/** A table: its rows in order, the first the header. */
export type TableRows = AsyncIterable<TableRow> | Iterable<TableRow>;

type Token = { text: string; by: 'id' | 'name' | 'email' };

interface CellRef {
  field: ImportField;
  column: string;
  tokens: Token[];
  /** A person named by email: the name from the field's own column, to create them with (create_people). */
  names?: string[];
}

interface ParsedRow {
  number: number;
  id: string | null;
  /** Field -> value; null where an empty cell clears an optional field. */
  values: Row;
  refs: CellRef[];
  errors: RowError[];
}

type Found = { id: string; within: unknown; top: unknown };

interface Lookups {
  ids: Map<RegisterKind, Set<string>>;
  names: Map<RegisterKind, Map<string, Found[]>>;
  emails: Map<string, string>;
  current: Map<string, Row>;
  taken: Map<string, string>;
}

/** A new record placed in the tree by this file (for its children later in the file). */
type Placed = Found;

/** What a row writes. */
interface PlannedRow {
  insert?: Row;
  update?: RecordUpdate;
  history: HistoryEntry;
  /** Relation lists set by the row, by field. */
  lists: Record<string, { ownerId: string; targetIds: string[]; existed: boolean }>;
  /** Statements of spec hooks (a moved requirement's subtree). */
  extra: SQL[];
}

interface ChunkPlan {
  people: Row[];
  inserts: Row[];
  updates: RecordUpdate[];
  history: HistoryEntry[];
  lists: Map<string, PlannedRow['lists'][string][]>;
  extra: SQL[];
}

function uniqueParts(unique: UniqueField): { field: string; within: string | null } {
  return typeof unique === 'string'
    ? { field: unique, within: null }
    : { field: unique.field, within: unique.within };
}

/** One key per value of a unique field (within its scope). */
function uniqueKey(field: string, within: unknown, value: unknown): string {
  return `${field}\u0000${String(within ?? '')}\u0000${String(value).toLowerCase()}`;
}

function nameOf(spec: RegisterSpec, record: Row): string {
  return nameFieldsOf(spec)
    .map((field) => record[field])
    .filter((value) => typeof value === 'string' && value !== '')
    .join(' ');
}

async function sequentially(queries: BatchItem<'sqlite'>[]): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const query of queries) results.push(await query);
  return results;
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
  const tools = registers[kind];
  const { spec, records } = tools;
  const organizationId = options.organizationId;
  requireOrganization(ctx, organizationId, 'write');
  const fields = importFieldsOf(tools);
  const fieldByName = new Map(fields.map((field) => [field.name, field]));
  const people = registers.person;
  const at = ctx.now().toISOString();
  const nonce = randomBase32(16);
  const selfRef = fields.find((field) => field.target === kind && field.kind === 'ref');

  const report: ImportReport = {
    kind,
    dry_run: options.dryRun,
    columns: [],
    counts: { rows: 0, created: 0, updated: 0, unchanged: 0, refused: 0, people_created: 0 },
    errors: [],
    errors_truncated: false,
    people_created: [],
  };
  let matches: ColumnMatch[] = [];
  let header: string[] | null = null;
  const seenIds = new Map<string, number>();
  const seenUnique = new Map<string, number>();
  const createdPeople = new Map<string, { id: string; full_name: string; email: string }>();
  const placed = new Map<string, Placed[]>();
  const placedById = new Map<string, Placed>();
  let lookups: Lookups = {
    ids: new Map(),
    names: new Map(),
    emails: new Map(),
    current: new Map(),
    taken: new Map(),
  };
  let chunk: TableRow[] = [];

  const refuse = (error: RowError) => {
    if (report.errors.length < LISTED_ERRORS) report.errors.push(error);
    else report.errors_truncated = true;
  };

  function readHeader(row: TableRow) {
    header = row.cells.map((cell) => cell.trim());
    if (header.every((cell) => cell === ''))
      throw invalidArguments('The file has no header row: expected column names on its first row.');
    matches = matchColumns(tools, header, options.columns);
    report.columns = matches.map((match) => ({
      column: match.column,
      header: match.header,
      field: matchedField(match),
      status: match.target.kind,
    }));
    const unknown = matches.filter((match) => match.target.kind === 'unknown');
    if (unknown.length > 0) {
      const names = unknown.map((match) => `"${match.header || `(column ${match.column}, no header)`}"`);
      throw invalidArguments(
        `Unknown column${unknown.length > 1 ? 's' : ''} ${names.join(', ')}: not a field of ${spec.labelPlural}. Map ${unknown.length > 1 ? 'them' : 'it'} to a field with columns ({"${unknown[0]?.header}": "<field>"}) or ignore ${unknown.length > 1 ? 'them' : 'it'} (null). Fields: id, ${fields.map((field) => field.name).join(', ')}.`,
        unknown.map((match) => ({
          path: `column ${match.column}`,
          message: `Unknown column ${match.header}`,
        })),
      );
    }
    const claimed = new Map<string, ColumnMatch>();
    for (const match of matches) {
      const { target } = match;
      const key =
        target.kind === 'id'
          ? 'id'
          : target.kind === 'field'
            ? `${target.field}:${target.byEmail === true}`
            : null;
      if (!key) continue;
      const earlier = claimed.get(key);
      if (earlier) {
        throw invalidArguments(
          `Columns "${earlier.header}" and "${match.header}" both hold ${matchedField(match)}; ignore one of them.`,
          [{ path: `column ${match.column}`, message: `Same field as column ${earlier.column}` }],
        );
      }
      claimed.set(key, match);
    }
  }

  function parseRow(row: TableRow): ParsedRow {
    const parsed: ParsedRow = { number: row.number, id: null, values: {}, refs: [], errors: [] };
    if (row.cells.length > matches.length) {
      parsed.errors.push({
        row: row.number,
        column: null,
        message: `${row.cells.length} cells, but the header has ${matches.length} columns`,
      });
      return parsed;
    }
    const emailRefs = new Map<string, CellRef>();
    matches.forEach((match, index) => {
      const raw = row.cells[index] ?? '';
      const text = raw.trim();
      const { target } = match;
      if (target.kind === 'id') {
        if (text !== '') parsed.id = text;
        return;
      }
      if (target.kind !== 'field') return;
      const field = fieldByName.get(target.field);
      if (!field) return;
      if (text === '') {
        // An empty list cell is an empty list; any other empty cell clears an optional field (on an update).
        if (target.byEmail || field.name in parsed.values) return;
        if (field.kind === 'list' || field.kind === 'refs') parsed.values[field.name] = [];
        else if (field.nullable) parsed.values[field.name] = null;
        return;
      }
      const converted = cellValue(field, raw, options.dateFormat);
      if (!converted.ok) {
        parsed.errors.push({ row: row.number, column: match.header, message: converted.message });
        return;
      }
      if (field.target) {
        const items = field.kind === 'refs' ? (converted.value as string[]) : [String(converted.value)];
        const prefix = ID_PREFIXES[field.target];
        const ref: CellRef = {
          field,
          column: match.header,
          tokens: items.map((text) => ({
            text,
            by:
              target.byEmail || (field.target === 'person' && EMAIL.test(text))
                ? 'email'
                : isIdOf(prefix, text)
                  ? 'id'
                  : 'name',
          })),
        };
        if (target.byEmail) emailRefs.set(field.name, ref);
        else parsed.refs.push(ref);
        delete parsed.values[field.name];
        return;
      }
      parsed.values[field.name] = converted.value;
    });
    // An email names the person better than a name: it replaces the name column's reference.
    for (const [name, ref] of emailRefs) {
      const byName = parsed.refs.find((item) => item.field.name === name);
      if (byName) ref.names = byName.tokens.map((token) => token.text);
      parsed.refs = [...parsed.refs.filter((item) => item.field.name !== name), ref];
      delete parsed.values[name];
    }
    return parsed;
  }

  /** Everything the chunk's rows refer to, read in one batch. */
  async function lookUp(rows: ParsedRow[]): Promise<Lookups> {
    const ids = new Map<RegisterKind, Set<string>>();
    const names = new Map<RegisterKind, Set<string>>();
    const emails = new Set<string>();
    const own = new Set<string>();
    const unique = new Map<string, Set<string>>();
    const add = (map: Map<RegisterKind, Set<string>>, target: RegisterKind, value: string) =>
      map.set(target, (map.get(target) ?? new Set()).add(value));
    for (const row of rows) {
      if (row.errors.length > 0) continue;
      if (row.id) own.add(row.id);
      for (const ref of row.refs) {
        const target = ref.field.target as RegisterKind;
        for (const token of ref.tokens) {
          if (token.by === 'id') {
            add(ids, target, token.text);
            if (target === kind) own.add(token.text);
          } else if (token.by === 'email') emails.add(token.text.toLowerCase());
          else add(names, target, token.text);
        }
      }
      for (const item of spec.unique ?? []) {
        const { field } = uniqueParts(item);
        const value = row.values[field];
        if (typeof value === 'string') unique.set(field, (unique.get(field) ?? new Set()).add(value));
      }
    }
    const queries: { apply: (rows: Row[]) => void; query: BatchItem<'sqlite'> }[] = [];
    const found: Lookups = {
      ids: new Map(),
      names: new Map(),
      emails: new Map(),
      current: new Map(),
      taken: new Map(),
    };
    const json = (values: Iterable<string>) =>
      sql`(select value from json_each(${JSON.stringify([...values])}))`;
    for (const [target, values] of ids) {
      const table = registers[target].spec.table;
      queries.push({
        query: ctx.db
          .select({ id: table.id })
          .from(table)
          .where(and(eq(table.organization_id, organizationId), sql`${table.id} in ${json(values)}`)),
        apply: (result) => found.ids.set(target, new Set(result.map((item) => String(item.id)))),
      });
    }
    for (const [target, values] of names) {
      const targetSpec = registers[target].spec;
      const table = targetSpec.table;
      const columns = registers[target].records.columns;
      const nameColumns = nameFieldsOf(targetSpec).map((field) => columns[field]);
      const expression = sql.join(
        nameColumns.map((column) => sql`coalesce(${column}, '')`),
        sql` || ' ' || `,
      );
      const [first] = nameColumns;
      const tree = targetSpec.tree;
      queries.push({
        query: ctx.db
          .select({
            id: table.id,
            name: sql<string>`${expression}`,
            first: sql<string>`${first}`,
            within: tree ? sql`${columns[tree.within]}` : sql`null`,
            top: tree ? sql`${columns[tree.top]}` : sql`null`,
          })
          .from(table)
          .where(
            and(
              eq(table.organization_id, organizationId),
              nameColumns.length > 1
                ? sql`(${expression} in ${json(values)} or ${first} in ${json(values)})`
                : sql`${first} in ${json(values)}`,
            ),
          ),
        apply: (result) => {
          const byName = new Map<string, Found[]>();
          for (const item of result) {
            const entry = { id: String(item.id), within: item.within, top: item.top };
            for (const key of new Set([String(item.name), String(item.first)]))
              if (values.has(key)) byName.set(key, [...(byName.get(key) ?? []), entry]);
          }
          found.names.set(target, byName);
        },
      });
    }
    if (emails.size > 0) {
      const table = people.spec.table;
      const email = people.records.columns.email;
      queries.push({
        query: ctx.db
          .select({ id: table.id, email: sql<string>`${email}` })
          .from(table)
          .where(and(eq(table.organization_id, organizationId), sql`${email} in ${json(emails)}`)),
        apply: (result) => {
          for (const item of result) found.emails.set(String(item.email), String(item.id));
        },
      });
    }
    if (own.size > 0) {
      queries.push({
        query: ctx.db
          .select(records.selection)
          .from(spec.table)
          .where(sql`${spec.table.id} in ${json(own)}`),
        apply: (result) => {
          for (const item of result) found.current.set(String(item.id), item);
        },
      });
    }
    for (const item of spec.unique ?? []) {
      const { field, within } = uniqueParts(item);
      const values = unique.get(field);
      const column = records.columns[field];
      if (!values || !column) continue;
      queries.push({
        query: ctx.db
          .select({
            id: spec.table.id,
            value: sql`${column}`,
            within: within ? sql`${records.columns[within]}` : sql`null`,
          })
          .from(spec.table)
          .where(and(eq(spec.table.organization_id, organizationId), sql`${column} in ${json(values)}`)),
        apply: (result) => {
          for (const row of result) found.taken.set(uniqueKey(field, row.within, row.value), String(row.id));
        },
      });
    }
    const [first, ...rest] = queries;
    if (!first) return found;
    // One batch (one request over HTTP); a transaction's handle has no batch and runs them in turn.
    const results =
      typeof ctx.db.batch === 'function'
        ? await ctx.db.batch([first.query, ...rest.map((item) => item.query)])
        : await sequentially(queries.map((item) => item.query));
    queries.forEach((item, index) => {
      item.apply(results[index] as Row[]);
    });
    return found;
  }

  /** The ids a reference's tokens name, or the errors why not; people to create are created in the plan. */
  function resolve(
    row: ParsedRow,
    ref: CellRef,
    found: Lookups,
    within: unknown,
    existingRefs: Map<RegisterKind, Set<string>>,
    newPeople: Row[],
  ): string[] | null {
    const target = ref.field.target as RegisterKind;
    const targetSpec = registers[target].spec;
    const ids: string[] = [];
    let failed = false;
    const fail = (message: string) => {
      row.errors.push({ row: row.number, column: ref.column, message });
      failed = true;
    };
    for (const token of ref.tokens) {
      if (token.by === 'id') {
        if (found.ids.get(target)?.has(token.text)) {
          ids.push(token.text);
          existingRefs.set(target, (existingRefs.get(target) ?? new Set()).add(token.text));
        } else fail(`No ${targetSpec.label} ${token.text} in this organization`);
        continue;
      }
      if (token.by === 'email') {
        const email = token.text.toLowerCase();
        const id = found.emails.get(email) ?? createdPeople.get(`email:${email}`)?.id;
        const name = ref.names?.[0];
        if (id) {
          ids.push(id);
          if (found.emails.has(email))
            existingRefs.set('person', (existingRefs.get('person') ?? new Set()).add(id));
        } else if (options.createPeople && name) {
          const person = newPerson(row, ref, name, email);
          if (person) {
            newPeople.push(person);
            ids.push(String(person.id));
          }
        } else
          fail(
            `No person with email ${email} in this organization${options.createPeople ? `: give their name in the "${ref.field.label}" column to create them` : ''}`,
          );
        continue;
      }
      let candidates: Found[] = found.names.get(target)?.get(token.text) ?? [];
      if (target === kind) candidates = [...candidates, ...(placed.get(token.text) ?? [])];
      if (targetSpec.tree && target === kind && within !== undefined)
        candidates = candidates.filter((candidate) => candidate.within === within);
      const created = target === 'person' ? createdPeople.get(`name:${token.text}`) : undefined;
      if (created) candidates = [...candidates, { id: created.id, within: null, top: null }];
      if (candidates.length === 1 && candidates[0]) {
        const id = candidates[0].id;
        ids.push(id);
        if (
          found.names
            .get(target)
            ?.get(token.text)
            ?.some((item) => item.id === id)
        )
          existingRefs.set(target, (existingRefs.get(target) ?? new Set()).add(id));
        continue;
      }
      if (candidates.length > 1) {
        fail(
          `${candidates.length} ${targetSpec.labelPlural} are named "${token.text}" (${candidates
            .slice(0, 5)
            .map((item) => item.id)
            .join(', ')}): give the id${target === 'person' ? ' or the email' : ''}`,
        );
        continue;
      }
      if (target === 'person' && options.createPeople) {
        const person = newPerson(row, ref, token.text, null);
        if (person) {
          newPeople.push(person);
          ids.push(String(person.id));
        }
        continue;
      }
      fail(
        `No ${targetSpec.label} named "${token.text}" in this organization${target === 'person' ? ' (create_people adds them)' : ''}`,
      );
    }
    return failed ? null : ids;
  }

  /** A person named in the file but not found, planned as a new record of the people register. */
  function newPerson(row: ParsedRow, ref: CellRef, fullName: string, given: string | null): Row | null {
    const email =
      given ??
      `${
        fullName
          .normalize('NFKD')
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '.')
          .replace(/^\.+|\.+$/g, '') || 'person'
      }.${randomBase32(6)}@unknown.invalid`;
    const planned = planAdd(people, { full_name: fullName, email });
    if (!planned.ok) {
      row.errors.push({
        row: row.number,
        column: ref.column,
        message: `Cannot create ${fullName}: ${planned.message}`,
      });
      return null;
    }
    const person = { id: String(planned.row.id), full_name: fullName, email };
    createdPeople.set(`name:${fullName}`, person);
    createdPeople.set(`email:${email}`, person);
    report.counts.people_created++;
    if (report.people_created.length < LISTED_PEOPLE)
      report.people_created.push({ full_name: fullName, email });
    return planned.row;
  }

  /** A new record as its add tool builds it, or why not. */
  function planAdd(
    target: RegisterTools,
    values: Row,
  ): { ok: true; row: Row; after: Row } | { ok: false; message: string; path?: string } {
    // An empty cell (null) is a field not given, as null is for every tool argument.
    const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));
    const parsed = target.add.input.safeParse({ organization_id: organizationId, ...given });
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      return { ok: false, message: issue?.message ?? 'Invalid', path: String(issue?.path[0] ?? '') };
    }
    const input = parsed.data as Row;
    const next: Row = {};
    for (const [field, fieldSpec] of Object.entries(target.spec.fields)) {
      if (!fieldSpec.derived)
        next[field] = input[field] ?? (fieldSpec.mode === 'default' ? fieldSpec.defaultValue : null);
    }
    try {
      target.spec.prepare?.(next, null);
    } catch (error) {
      return failureOf(error);
    }
    const id = newId(target.spec.prefix);
    const row = {
      ...target.records.columnValues(next),
      id,
      organization_id: organizationId,
      created_at: at,
      updated_at: at,
    };
    return { ok: true, row, after: target.records.historyValues({ ...input, ...next }) };
  }

  function failureOf(error: unknown): { ok: false; message: string; path?: string } {
    if (!(error instanceof AppError)) throw error;
    const details = error.details as { path?: string; field?: string } | { path: string }[] | undefined;
    const path = Array.isArray(details) ? details[0]?.path : (details?.path ?? details?.field);
    return { ok: false, message: error.message, ...(path ? { path } : {}) };
  }

  const headerOfField = (name: string | undefined): string | null => {
    if (!name) return null;
    const match = matches.find((item) => item.target.kind === 'field' && item.target.field === name);
    return match?.header ?? null;
  };

  /** Plans the chunk's rows and hands their statements to the writer. */
  async function runChunk(rows: TableRow[]) {
    const parsed = rows.map(parseRow);
    lookups = await lookUp(parsed);
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
      const current = row.id ? lookups.current.get(row.id) : undefined;
      if (row.errors.length === 0 && row.id) checkId(row, current);
      const rowPeople: Row[] = [];
      if (row.errors.length === 0) resolveReferences(row, current, existingRefs, rowPeople);
      if (row.errors.length > 0) {
        refuseRow(row);
        continue;
      }
      const linkValues: Row = {};
      for (const field of fields) {
        if (!field.relation || field.relation.writable || !(field.name in row.values)) continue;
        linkValues[field.name] = row.values[field.name] ?? [];
        delete row.values[field.name];
      }
      const planned = current ? await planUpdate(row, current, linkValues) : planNew(row, linkValues);
      if (planned === 'refused') {
        refuseRow(row);
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
    statements.push(
      ...historyRows(ctx, organizationId, options.tool, at, [...peopleHistory, ...plan.history]),
    );
    await writer.write(statements);
  }

  /** The row's id: of this register, once in the file, a record of this organization (else as a missing one). */
  function checkId(row: ParsedRow, current: Row | undefined) {
    const id = row.id as string;
    const column = headerOfId();
    const earlier = seenIds.get(id);
    if (earlier !== undefined) {
      row.errors.push({ row: row.number, column, message: `The same id as row ${earlier}` });
      return;
    }
    seenIds.set(id, row.number);
    if (!isIdOf(spec.prefix, id))
      row.errors.push({
        row: row.number,
        column,
        message: `Not ${article(spec.label)} ${spec.label} id (${spec.prefix}_...): ${id}`,
      });
    else if (!current || current.organization_id !== organizationId)
      row.errors.push({ row: row.number, column, message: `No ${spec.label} ${id} in this organization` });
  }

  /** Each reference's ids into the row's values; the tree's parent last, looked for in the row's `within`. */
  function resolveReferences(
    row: ParsedRow,
    current: Row | undefined,
    existingRefs: Map<RegisterKind, Set<string>>,
    rowPeople: Row[],
  ) {
    const parentField = spec.tree?.parent;
    const ordered = [
      ...row.refs.filter((ref) => ref.field.name !== parentField),
      ...row.refs.filter((ref) => ref.field.name === parentField),
    ];
    for (const ref of ordered) {
      const tree = spec.tree;
      const scope =
        tree && ref.field.name === tree.parent
          ? (row.values[tree.within] ?? current?.[tree.within])
          : undefined;
      const ids = resolve(row, ref, lookups, scope, existingRefs, rowPeople);
      if (ids) row.values[ref.field.name] = ref.field.kind === 'refs' ? ids : ids[0];
    }
  }

  /** A new record of the row, placed in the tree and checked for unique values. */
  function planNew(row: ParsedRow, linkValues: Row): PlannedRow | 'refused' {
    const planned = planAdd(tools, row.values);
    if (!planned.ok) {
      row.errors.push({ row: row.number, column: headerOfField(planned.path), message: planned.message });
      return 'refused';
    }
    const record = planned.row;
    if (!placeInTree(row, record) || !checkUnique(row, record, null)) return 'refused';
    const after: Row = { ...planned.after };
    for (const [name, ids] of Object.entries(linkValues)) after[name] = [...new Set(ids as string[])].sort();
    if (spec.tree) after[spec.tree.top] = record[spec.tree.top] ?? null;
    const lists: PlannedRow['lists'] = {};
    for (const relation of spec.relations ?? []) {
      const ids = (relation.field in linkValues ? linkValues[relation.field] : row.values[relation.field]) as
        | string[]
        | undefined;
      if (Array.isArray(ids) && ids.length > 0)
        lists[relation.field] = { ownerId: String(record.id), targetIds: ids, existed: false };
    }
    if (selfRef) {
      const entry: Placed = {
        id: String(record.id),
        within: spec.tree ? record[spec.tree.within] : null,
        top: spec.tree ? record[spec.tree.top] : null,
      };
      const first = String(record[nameFieldsOf(spec)[0] ?? ''] ?? '');
      for (const key of new Set([nameOf(spec, record), first]))
        placed.set(key, [...(placed.get(key) ?? []), entry]);
      placedById.set(entry.id, entry);
    }
    return {
      insert: record,
      history: { kind, recordId: String(record.id), action: 'add', before: null, after },
      lists,
      extra: [],
    };
  }

  function headerOfId(): string | null {
    return matches.find((match) => match.target.kind === 'id')?.header ?? null;
  }

  function refuseRow(row: ParsedRow) {
    report.counts.refused++;
    for (const error of row.errors) refuse(error);
  }

  /** The new record's top-level ancestor, from its parent (a record read, or one placed earlier in the file). */
  function placeInTree(row: ParsedRow, record: Row): boolean {
    const tree = spec.tree;
    if (!tree) return true;
    const parentId = record[tree.parent];
    if (typeof parentId !== 'string') {
      record[tree.top] = null;
      return true;
    }
    const known = treeNode(parentId);
    if (!known) {
      row.errors.push({
        row: row.number,
        column: headerOfField(tree.parent),
        message: `The parent ${parentId} is not in this organization`,
      });
      return false;
    }
    if (known.within !== record[tree.within]) {
      row.errors.push({
        row: row.number,
        column: headerOfField(tree.parent),
        message: `The parent must be ${spec.label === 'requirement' ? 'a requirement' : `a ${spec.label}`} of the same ${tree.within.replace(/_id$/, '')}`,
      });
      return false;
    }
    record[tree.top] = known.top ?? known.id;
    return true;
  }

  /** A record of this register by id: placed earlier in the file, or read with the chunk. */
  function treeNode(id: string): Placed | null {
    const tree = spec.tree;
    const hit = placedById.get(id);
    if (hit || !tree) return hit ?? null;
    const current = lookups.current.get(id);
    if (current && current.organization_id === organizationId)
      return { id, within: current[tree.within], top: current[tree.top] };
    for (const list of lookups.names.get(kind)?.values() ?? []) {
      const named = list.find((item) => item.id === id);
      if (named) return named;
    }
    return null;
  }

  /** Refuses a value another record (in the organization or earlier in the file) already has in a unique field. */
  function checkUnique(row: ParsedRow, next: Row, exceptId: string | null): boolean {
    for (const item of spec.unique ?? []) {
      const { field, within } = uniqueParts(item);
      const value = next[field];
      if (value === null || value === undefined) continue;
      const key = uniqueKey(field, within ? next[within] : null, value);
      const taken = lookups.taken.get(key);
      const earlier = seenUnique.get(key);
      if ((taken && taken !== exceptId) || earlier !== undefined) {
        row.errors.push({
          row: row.number,
          column: headerOfField(field),
          message:
            earlier !== undefined
              ? `The same ${fieldLabel(field)} as row ${earlier}`
              : `Another ${spec.label} already has ${field} ${String(value)} (${taken})`,
        });
        return false;
      }
      seenUnique.set(key, row.number);
    }
    return true;
  }

  const fieldLabel = (name: string) => fieldByName.get(name)?.label.toLowerCase() ?? name;

  /** An existing record's update as its update tool builds it, 'unchanged', or 'refused'. */
  async function planUpdate(
    row: ParsedRow,
    current: Row,
    linkValues: Row,
  ): Promise<PlannedRow | 'unchanged' | 'refused'> {
    const fail = (field: string | undefined, message: string) => {
      row.errors.push({ row: row.number, column: headerOfField(field), message });
      return 'refused' as const;
    };
    const values = { ...row.values };
    for (const field of fields) {
      if (!field.fixed || !(field.name in values)) continue;
      if (values[field.name] !== current[field.name])
        return fail(field.name, `${capitalize(field.label)} cannot change once set`);
      delete values[field.name];
    }
    // An empty cell (null) empties a field the update tool can clear; elsewhere the tool refuses it, naming the field.
    const clearable = new Set(clearableFields(spec));
    const emptied = Object.keys(values).filter((name) => values[name] === null && clearable.has(name));
    for (const name of emptied) delete values[name];
    const parsed = tools.update.input.safeParse({ id: current.id, ...values });
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      return fail(String(issue?.path[0] ?? ''), issue?.message ?? 'Invalid');
    }
    const { id: _id, ...provided } = parsed.data as Row;
    const given = {
      ...Object.fromEntries(Object.entries(provided).filter(([, value]) => value !== undefined)),
      ...Object.fromEntries(emptied.map((name) => [name, null])),
    };
    const next: Row = { ...current, ...given };
    for (const [name, ids] of Object.entries(linkValues)) next[name] = JSON.stringify(ids);
    try {
      spec.prepare?.(next, current);
      const tree = spec.tree;
      if (tree && next[tree.parent] !== current[tree.parent]) await spec.settle?.(ctx, next, current);
    } catch (error) {
      const failure = failureOf(error);
      return fail(failure.path, failure.message);
    }
    if (!checkUnique(row, next, String(current.id))) return 'refused';
    const change = changedValues(records.historyValues(current), records.historyValues(next));
    if (Object.keys(change.before).length === 0) return 'unchanged';
    const id = String(current.id);
    const previous = String(current.updated_at);
    const updatedAt = at > previous ? at : new Date(Date.parse(previous) + 1).toISOString();
    const lists: PlannedRow['lists'] = {};
    for (const relation of spec.relations ?? []) {
      if (relation.inverse || !(relation.field in change.after)) continue;
      const ids = relation.field in linkValues ? linkValues[relation.field] : given[relation.field];
      if (Array.isArray(ids))
        lists[relation.field] = { ownerId: id, targetIds: ids as string[], existed: true };
    }
    const extra = spec.afterUpdate?.(ctx, id, next, current, sql`1`) ?? [];
    return {
      update: { id, previous, row: { ...records.columnValues(next), updated_at: updatedAt } },
      history: { kind, recordId: id, action: 'update', ...change },
      lists,
      extra: extra.map((statement) => asSql(statement as unknown as SQLWrapper)),
    };
  }

  for await (const row of table) {
    if (!header) {
      readHeader(row);
      continue;
    }
    chunk.push(row);
    if (chunk.length >= CHUNK_ROWS) {
      const rows = chunk;
      chunk = [];
      await runChunk(rows);
    }
  }
  if (chunk.length > 0) await runChunk(chunk);
  if (!header) throw invalidArguments('The file is empty: expected a header row, then one row per record.');
  if (report.counts.rows === 0)
    throw invalidArguments(`The file has only a header row: no ${spec.labelPlural} to import.`);
  return report;
}
