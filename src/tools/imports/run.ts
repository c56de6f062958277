// The state one import shares between its steps: the options, the register's spec and fields, the report, what the
// file has shown so far (ids, unique values, people created, records placed in the tree), and the chunk's lookups.
import type { SQL } from 'drizzle-orm';
import { AppError } from '../../errors.ts';
import { randomBase32 } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import type { Registers, RegisterTools } from '../registers/builder.ts';
import {
  nameFieldsOf,
  type RegisterKind,
  type RegisterSpec,
  type Row,
  type UniqueField,
} from '../registers/spec.ts';
import type { OrganizationSettings } from '../settings.ts';
import type { TableRow } from '../tables/csv-reader.ts';
import type { ToolContext } from '../types.ts';
import { type ColumnMatch, type ImportField, importFieldsOf } from './columns.ts';
import type { HistoryEntry, RecordUpdate } from './statements.ts';
import type { DateFormat } from './values.ts';

/** Rows read, checked and written together: one read batch (one request over HTTP) per chunk. */
export const CHUNK_ROWS = 1000;
/** Errors listed in a report (the count is always whole). */
export const LISTED_ERRORS = 100;
/** People created from names, listed in a report. */
export const LISTED_PEOPLE = 100;

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
  /** The column's header, or null for the row as a whole (or a field the file has no column for). */
  column: string | null;
  /** The field the error is about (`owner_id`, `id`), or null for the row as a whole. */
  field: string | null;
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
    /** Warnings of the rows written (or to be written, on a dry run). */
    warnings: number;
  };
  errors: RowError[];
  /** The first LISTED_ERRORS warnings: rows written all the same, with a softer problem to tell the user. */
  warnings: RowError[];
  errors_truncated: boolean;
  people_created: { full_name: string; email: string }[];
}

/** A report of nothing read yet, for a register or a file kind (file-kinds.ts). */
export function emptyReport<K extends string>(
  kind: K,
  dryRun: boolean,
): Omit<ImportReport, 'kind'> & { kind: K } {
  return {
    kind,
    dry_run: dryRun,
    columns: [],
    counts: { rows: 0, created: 0, updated: 0, unchanged: 0, refused: 0, people_created: 0, warnings: 0 },
    errors: [],
    warnings: [],
    errors_truncated: false,
    people_created: [],
  };
}

/** Where the statements go: kept for one batch, or run at once in an open transaction. */
export interface ImportWriter {
  write(statements: readonly SQL[]): Promise<void>;
}

/** A table: its rows in order, the first the header. */
export type TableRows = AsyncIterable<TableRow> | Iterable<TableRow>;

export type Token = { text: string; by: 'id' | 'name' | 'email' };

export interface CellRef {
  field: ImportField;
  column: string;
  tokens: Token[];
  /** A person named by email: the name from the field's own column, to create them with (create_people). */
  names?: string[];
}

export interface ParsedRow {
  number: number;
  id: string | null;
  /** Field -> value; null where an empty cell clears an optional field. */
  values: Row;
  refs: CellRef[];
  errors: RowError[];
}

export type Found = { id: string; within: unknown; top: unknown };

export interface Lookups {
  ids: Map<RegisterKind, Set<string>>;
  names: Map<RegisterKind, Map<string, Found[]>>;
  emails: Map<string, string>;
  current: Map<string, Row>;
  taken: Map<string, string>;
  /** Records of this register by the value of spec.importKey's field (rows without an id are matched by it). */
  byKey: Map<string, Row[]>;
}

/** A new record placed in the tree by this file (for its children later in the file). */
export type Placed = Found;

/** What a row writes. */
export interface PlannedRow {
  insert?: Row;
  update?: RecordUpdate;
  history: HistoryEntry;
  /** Relation lists set by the row, by field. */
  lists: Record<string, { ownerId: string; targetIds: string[]; existed: boolean }>;
  /** Statements of spec hooks (a moved requirement's subtree). */
  extra: SQL[];
}

/** One import of a table into one register: its settings, its report and what the file has shown so far. */
export interface ImportRun {
  ctx: ToolContext;
  registers: Registers;
  kind: RegisterKind;
  tools: RegisterTools;
  spec: RegisterSpec;
  options: ImportOptions;
  organizationId: string;
  fields: ImportField[];
  fieldByName: Map<string, ImportField>;
  /** The people register (people named in the file may be created). */
  people: RegisterTools;
  /** The time of every record and history row written. */
  at: string;
  nonce: string;
  /** The field of this register referring to a record of the same register (a tree's parent), if any. */
  selfRef: ImportField | undefined;
  report: ImportReport;
  header: string[] | null;
  matches: ColumnMatch[];
  /** Id -> the row that named it. */
  seenIds: Map<string, number>;
  /** Unique value key -> the row that gave it. */
  seenUnique: Map<string, number>;
  /** `name:<full name>` or `email:<email>` -> a person created by this import. */
  createdPeople: Map<string, { id: string; full_name: string; email: string }>;
  /** New records of this register by name, and by id. */
  placed: Map<string, Placed[]>;
  placedById: Map<string, Placed>;
  /** What the current chunk's rows refer to. */
  lookups: Lookups;
  /** The organization's settings, for a register whose rules read them (importTable reads them first). */
  settings?: OrganizationSettings;
}

export function emptyLookups(): Lookups {
  return {
    ids: new Map(),
    names: new Map(),
    emails: new Map(),
    current: new Map(),
    taken: new Map(),
    byKey: new Map(),
  };
}

/** A new run: checks the caller may write to the organization. */
export function startRun(
  ctx: ToolContext,
  registers: Registers,
  kind: RegisterKind,
  options: ImportOptions,
): ImportRun {
  const tools = registers[kind];
  const { spec } = tools;
  const organizationId = options.organizationId;
  requireOrganization(ctx, organizationId, 'write');
  const fields = importFieldsOf(tools);
  return {
    ctx,
    registers,
    kind,
    tools,
    spec,
    options,
    organizationId,
    fields,
    fieldByName: new Map(fields.map((field) => [field.name, field])),
    people: registers.person,
    at: ctx.now().toISOString(),
    nonce: randomBase32(16),
    selfRef: fields.find((field) => field.target === kind && field.kind === 'ref'),
    report: emptyReport(kind, options.dryRun),
    header: null,
    matches: [],
    seenIds: new Map(),
    seenUnique: new Map(),
    createdPeople: new Map(),
    placed: new Map(),
    placedById: new Map(),
    lookups: emptyLookups(),
  };
}

/**
 * Characters of a listed error's message and column, at most: a message quotes the cell it refuses, and 100 long
 * cells would make a report of hundreds of thousands of characters (over what Claude and Claude Code take).
 */
export const LISTED_ERROR_CHARACTERS = 300;

const shortened = (text: string) =>
  text.length > LISTED_ERROR_CHARACTERS ? `${text.slice(0, LISTED_ERROR_CHARACTERS - 1)}…` : text;

/** Counts the row refused and lists its errors (up to LISTED_ERRORS, each shortened). */
export function refuseRow(run: ImportRun, row: ParsedRow) {
  const { report } = run;
  report.counts.refused++;
  for (const error of row.errors) {
    if (report.errors.length >= LISTED_ERRORS) report.errors_truncated = true;
    else
      report.errors.push({
        ...error,
        message: shortened(error.message),
        ...(error.column === null ? {} : { column: shortened(error.column) }),
      });
  }
}

/** Where a row's error about a field is: the header of the column holding it (if the file has one) and the field. */
export function placeOf(run: ImportRun, name: string | undefined): Pick<RowError, 'column' | 'field'> {
  if (!name) return { column: null, field: null };
  const match = run.matches.find((item) => item.target.kind === 'field' && item.target.field === name);
  return { column: match?.header ?? null, field: name };
}

/** The header of the id column. */
export function headerOfId(run: ImportRun): string | null {
  return run.matches.find((match) => match.target.kind === 'id')?.header ?? null;
}

export function fieldLabel(run: ImportRun, name: string): string {
  return run.fieldByName.get(name)?.label.toLowerCase() ?? name;
}

export function uniqueParts(unique: UniqueField): { field: string; within: string | null } {
  return typeof unique === 'string'
    ? { field: unique, within: null }
    : { field: unique.field, within: unique.within };
}

/** One key per value of a unique field (within its scope). */
export function uniqueKey(field: string, within: unknown, value: unknown): string {
  return `${field}\u0000${String(within ?? '')}\u0000${String(value).toLowerCase()}`;
}

export function nameOf(spec: RegisterSpec, record: Row): string {
  return nameFieldsOf(spec)
    .map((field) => record[field])
    .filter((value) => typeof value === 'string' && value !== '')
    .join(' ');
}

/** A refusal of a spec hook (an AppError) as a row's failure; any other error is thrown. */
export function failureOf(error: unknown): { ok: false; message: string; path?: string } {
  if (!(error instanceof AppError)) throw error;
  const details = error.details as { path?: string; field?: string } | { path: string }[] | undefined;
  const path = Array.isArray(details) ? details[0]?.path : (details?.path ?? details?.field);
  return { ok: false, message: error.message, ...(path ? { path } : {}) };
}
