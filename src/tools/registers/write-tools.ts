// A register's add and update tools: references and uniqueness checked, the write, its history row and its call-log
// row in one batch, guarded so that a record changed or a reference deleted meanwhile writes nothing.
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { selectRow } from '../../db/client.ts';
import { recordChanges } from '../../db/schema.ts';
import { AppError, invalidArguments } from '../../errors.ts';
import { newId, randomBase32 } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import { changeAfterWrite } from '../changes.ts';
import { article } from '../id-kinds.ts';
import { readSettings } from '../settings.ts';
import { checkTransition } from '../states.ts';
import {
  CHANGED_A_ROW,
  CREATE_ANNOTATIONS,
  defineTool,
  type ProposalDraft,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from '../types.ts';
import { prepareRecord } from './prepare.ts';
import type { RegisterRecords } from './records.ts';
import { checkReferences, existsInOrganization, referencesExist } from './references.ts';
import { addInput, refusedFieldHints, updateInput } from './schemas.ts';
import { kindOfId, type RegisterSpec, type Row, type RuleContext, targetsOf, toolsetOf } from './spec.ts';

/** The `warnings` of a write's answer: the record was written, and these softer problems remain. */
export const warningsSchema = z
  .array(
    z
      .object({
        field: z.string().describe('The field concerned.'),
        message: z.string().describe('What is missing or odd, and the fix.'),
      })
      .describe('A warning.'),
  )
  .describe('Problems of the record as written ([] when none): tell the user each one.');

/** A write's output: the record and its warnings. */
export function writeOutput(single: z.ZodObject): z.ZodObject {
  return single.extend({ warnings: warningsSchema });
}

/** What the register's rules read for a change in `organizationId`. */
async function rulesFor(
  ctx: ToolContext,
  spec: RegisterSpec,
  organizationId: string,
  today: string,
  given: Row,
  tool: string,
): Promise<RuleContext> {
  return {
    today,
    given,
    tool,
    ...(spec.usesSettings ? { settings: await readSettings(ctx.db, organizationId) } : {}),
  };
}

export function buildAddTool(records: RegisterRecords, single: z.ZodObject): Tool {
  const { spec } = records;
  const name = `add${spec.noun}`;
  const input = addInput(spec);
  return defineTool({
    name,
    title: `Add ${spec.label}`,
    description: [`Create ${article(spec.label)} ${spec.label}.`, spec.hints?.add ?? '']
      .filter(Boolean)
      .join(' '),
    scope: 'write',
    annotations: CREATE_ANNOTATIONS,
    toolset: toolsetOf(spec),
    input,
    argumentHints: refusedFieldHints(spec, 'add', input),
    example: spec.example,
    output: writeOutput(single),
    run: (ctx, input) => addRecord(ctx, records, name, input as Row),
    propose: (ctx, input) => proposedAdd(ctx, records, name, input as Row),
    async answerAgain(ctx, _input, callId) {
      const [added] = await ctx.db
        .select({ id: recordChanges.record_id })
        .from(recordChanges)
        .where(and(eq(recordChanges.call_id, callId), eq(recordChanges.action, 'add')));
      if (!added) throw new AppError('not_found', `The ${spec.label} this call added is not found.`);
      return { [spec.key]: records.present(await records.load(ctx, added.id, 'read'), ctx), warnings: [] };
    },
  });
}

/**
 * What another write adds to an add's batch (an audit checklist result raising a nonconformity): a condition the
 * insert also needs, and statements that run after it, each only where `landed` (the record was inserted) holds.
 */
export interface AddAlongside {
  guard?: SQL;
  statements(id: string, landed: SQL): BatchItem<'sqlite'>[];
  /** After an insert that did not land: the refusal when it was the guard that held it back, else null. */
  refusal(): Promise<AppError | null>;
}

/**
 * An add as the add tool makes it (references, uniqueness, rules, the guarded insert and its history row), recorded
 * under `tool`. `derivedValues` sets fields the tools derive (a generated document's source), for the service's
 * own writers; `alongside` writes more in the same batch. Answers `{ <key>: record, warnings }`.
 */
export async function addRecord(
  ctx: ToolContext,
  records: RegisterRecords,
  tool: string,
  input: Row,
  derivedValues: Row = {},
  alongside?: AddAlongside,
): Promise<Record<string, unknown>> {
  const { spec, table } = records;
  const { organization_id, ...values } = input as Row & { organization_id: string };
  requireOrganization(ctx, organization_id, 'write');
  await checkReferences(ctx, spec, records.tableOf, organization_id, values);
  await checkUnique(ctx, records, organization_id, values, null);
  await spec.addArguments?.take(ctx, organization_id, values);
  const timestamp = ctx.now().toISOString();
  const id = newId(spec.prefix);
  const next: Row = { ...derivedValues };
  for (const [field, fieldSpec] of Object.entries(spec.fields)) {
    if (!fieldSpec.derived)
      next[field] = values[field] ?? (fieldSpec.mode === 'default' ? fieldSpec.defaultValue : null);
  }
  const rules = await rulesFor(ctx, spec, organization_id, records.today(ctx), values, tool);
  const warnings = prepareRecord(spec, next, null, rules);
  await spec.settle?.(ctx, next, null, rules);
  const row = {
    ...records.columnValues(next),
    id,
    organization_id,
    created_at: timestamp,
    updated_at: timestamp,
  };
  const guard = and(
    referencesExist(spec, records.tableOf, organization_id, next),
    uniqueGuard(records, organization_id, next, null, values),
    spec.writeGuard?.(next),
    alongside?.guard,
  ) as SQL;
  const landed = sql`exists (select 1 from ${table} where ${table.id} = ${id})`;
  const [inserted] = await ctx.db.batch([
    ctx.db
      .insert(table)
      .select(selectRow(table, row, guard))
      .returning({ id: table.id }),
    changeAfterWrite(ctx, {
      tool,
      kind: spec.kind,
      recordId: id,
      organizationId: organization_id,
      action: 'add',
      before: null,
      after: records.historyValues({ ...values, ...next }),
      at: timestamp,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
    ...relationWrites(ctx, records, id, organization_id, values),
    ...(spec.afterAdd?.(ctx, id, { ...next, organization_id }, landed) ?? []),
    ...(alongside?.statements(id, landed) ?? []),
  ]);
  if ((inserted as unknown[]).length === 0) {
    const refused = await alongside?.refusal();
    if (refused) throw refused;
    // A referenced record vanished, or another took a unique value, between the checks and the write: say which.
    await checkReferences(ctx, spec, records.tableOf, organization_id, values);
    await checkUnique(ctx, records, organization_id, next, null, values);
    throw new AppError('conflict', `A record this ${spec.label} points at changed meanwhile. Retry.`);
  }
  return { [spec.key]: records.present(await records.load(ctx, id, 'read'), ctx), warnings };
}

export function buildUpdateTool(records: RegisterRecords, single: z.ZodObject): Tool {
  const { spec } = records;
  const name = `update${spec.noun}`;
  const input = updateInput(spec);
  return defineTool({
    name,
    title: `Update ${spec.label}`,
    description: [
      `Change ${article(spec.label)} ${spec.label}; fields as in add${spec.noun}.`,
      spec.hints?.update ?? '',
    ]
      .filter(Boolean)
      .join(' '),
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: toolsetOf(spec),
    input,
    argumentHints: refusedFieldHints(spec, 'update', input),
    output: writeOutput(single),
    run: (ctx, input) => updateRecord(ctx, records, name, input as Row),
    propose: (ctx, input) => proposedUpdate(ctx, records, name, input as Row),
    async answerAgain(ctx, input) {
      const { id } = input as { id: string };
      return { [spec.key]: records.present(await records.load(ctx, id, 'read'), ctx), warnings: [] };
    },
  });
}

/**
 * An update as the update tool makes it (checks, transitions, derived fields, the guarded write and its history row),
 * recorded under `tool`: markReviewed writes through it too. Answers `{ <key>: record, warnings }`.
 */
export async function updateRecord(
  ctx: ToolContext,
  records: RegisterRecords,
  tool: string,
  input: Row,
): Promise<Record<string, unknown>> {
  const { spec, table } = records;
  const { id, current, organizationId, provided, next, warnings, change } = await checkedUpdate(
    ctx,
    records,
    tool,
    input,
    'write',
  );
  const sameColumns = Object.keys(records.columns).every(
    (column) => JSON.stringify(current[column] ?? null) === JSON.stringify(next[column] ?? null),
  );
  // Nothing would change: no write, so updated_at stays (a client holding it keeps a valid expected_updated_at)
  // and no empty change lands in the history. The record is the row just read.
  if (Object.keys(change.before).length === 0 && sameColumns)
    return { [spec.key]: records.present(current, ctx), warnings };
  const previous = String(current.updated_at);
  const now = ctx.now().toISOString();
  // Strictly later than the previous value, so optimistic checks never see two versions with one stamp.
  const updatedAt = now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
  const set: Row = { ...records.columnValues(next), updated_at: updatedAt };
  for (const fixed of ['id', 'organization_id', 'created_at']) delete set[fixed];
  const nonce = records.nonceColumn ? randomBase32(16) : undefined;
  if (nonce) set.write_nonce = nonce;
  const [updated] = await ctx.db.batch([
    ctx.db
      .update(table)
      .set(set as never)
      .where(
        and(
          eq(table.id, id),
          eq(table.updated_at, previous),
          referencesExist(spec, records.tableOf, organizationId, next),
          uniqueGuard(records, organizationId, next, id, provided),
          spec.writeGuard?.(next),
        ),
      )
      .returning({ id: table.id }),
    changeAfterWrite(ctx, {
      tool,
      kind: spec.kind,
      recordId: id,
      organizationId,
      action: 'update',
      ...change,
      at: updatedAt,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
    ...relationWrites(ctx, records, id, organizationId, provided, nonce),
    ...(spec.afterUpdate?.(ctx, id, next, current, landedUpdate(records, id, nonce)) ?? []),
  ]);
  if ((updated as unknown[]).length === 0) {
    await checkReferences(ctx, spec, records.tableOf, organizationId, next);
    await checkUnique(ctx, records, organizationId, next, id, provided);
    throw new AppError(
      'conflict',
      `This ${spec.label} was changed by another request at the same time. Get it again and retry.`,
    );
  }
  return { [spec.key]: records.present(await records.load(ctx, id, 'read'), ctx), warnings };
}

/**
 * An add as a change set, written nowhere: the access, reference and rule checks of the add, and the full record it
 * would create (defaults and derived fields filled). The add itself checks everything again when applied.
 */
async function proposedAdd(
  ctx: ToolContext,
  records: RegisterRecords,
  tool: string,
  input: Row,
): Promise<ProposalDraft> {
  const { spec } = records;
  const { organization_id, ...values } = input as Row & { organization_id: string };
  requireOrganization(ctx, organization_id, 'write');
  await checkReferences(ctx, spec, records.tableOf, organization_id, values);
  await checkUnique(ctx, records, organization_id, values, null);
  const next: Row = {};
  for (const [field, fieldSpec] of Object.entries(spec.fields)) {
    if (!fieldSpec.derived)
      next[field] = values[field] ?? (fieldSpec.mode === 'default' ? fieldSpec.defaultValue : null);
  }
  prepareRecord(
    spec,
    next,
    null,
    await rulesFor(ctx, spec, organization_id, records.today(ctx), values, tool),
  );
  return {
    organizationId: organization_id,
    kind: spec.kind,
    action: 'add',
    recordId: null,
    baseUpdatedAt: null,
    before: null,
    after: records.historyValues({ ...values, ...next }),
  };
}

/**
 * An update as a change set, written nowhere: the record's current version and exactly the fields that would change
 * (derived ones included), after the update's own checks. Applying it later is refused if the record changed since.
 */
async function proposedUpdate(
  ctx: ToolContext,
  records: RegisterRecords,
  tool: string,
  input: Row,
): Promise<ProposalDraft> {
  const { spec } = records;
  const { id, current, organizationId, change } = await checkedUpdate(ctx, records, tool, input, 'propose');
  if (Object.keys(change.after).length === 0)
    throw invalidArguments(`This change would leave the ${spec.label} as it is: nothing to propose.`, [
      { path: '(arguments)', message: 'No field would change' },
    ]);
  return {
    organizationId,
    kind: spec.kind,
    action: 'update',
    recordId: id,
    baseUpdatedAt: String(current.updated_at),
    ...change,
  };
}

/**
 * An update's checks and its next version, shared by the write and its proposal: the expected version, clear,
 * references, uniqueness, transitions, rules and derived fields. Only the write takes the register's extra arguments
 * (addArguments) and settles (spec.settle); a proposal records the fields the update itself would change.
 */
async function checkedUpdate(
  ctx: ToolContext,
  records: RegisterRecords,
  tool: string,
  input: Row,
  purpose: 'write' | 'propose',
) {
  const { spec } = records;
  const { id, expected_updated_at, clear, ...changes } = input as Row & {
    id: string;
    expected_updated_at?: string;
    clear?: string[];
  };
  const current = await records.load(ctx, id, 'write');
  const organizationId = String(current.organization_id);
  // Compared as instants: the same time written with an offset, or without milliseconds, is no conflict.
  if (
    expected_updated_at !== undefined &&
    Date.parse(expected_updated_at) !== Date.parse(String(current.updated_at))
  ) {
    throw new AppError(
      'conflict',
      `This ${spec.label} changed since ${expected_updated_at} (now ${String(current.updated_at)}). Get it again and retry.`,
    );
  }
  if (purpose === 'write' && spec.addArguments?.onUpdate)
    await spec.addArguments.take(ctx, organizationId, changes);
  const provided = withCleared(
    Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    clear,
  );
  await checkReferences(ctx, spec, records.tableOf, organizationId, provided);
  await checkUnique(ctx, records, organizationId, { ...current, ...provided }, id, provided);
  const next: Row = { ...current, ...provided };
  for (const [field, transitions] of Object.entries(spec.transitions ?? {}))
    checkTransition(
      spec.label,
      field,
      String(current[field]),
      String(next[field]),
      transitions,
      spec.stateTools?.[field],
    );
  const rules = await rulesFor(ctx, spec, organizationId, records.today(ctx), provided, tool);
  const warnings = prepareRecord(spec, next, current, rules);
  if (purpose === 'write') await spec.settle?.(ctx, next, current, rules);
  const change = changedValues(records.historyValues(current), records.historyValues(next));
  return { id, current, organizationId, provided, next, warnings, change };
}

/** The changes with each field of `clear` set to null; a field both given and cleared is refused. */
function withCleared(provided: Row, clear: string[] | undefined): Row {
  const both = (clear ?? []).filter((field) => field in provided);
  if (both.length > 0) {
    throw invalidArguments(
      `Give a field a value or put it in clear, not both: ${both.join(', ')}.`,
      both.map((field) => ({ path: field, message: 'Also in clear' })),
    );
  }
  return { ...provided, ...Object.fromEntries((clear ?? []).map((field) => [field, null])) };
}

/** SQL: the update with this nonce is the one that landed (true where the register has no nonce column). */
function landedUpdate(records: RegisterRecords, id: string, nonce: string | undefined) {
  const { table, nonceColumn } = records;
  return nonce && nonceColumn
    ? sql`exists (select 1 from ${table} where ${table.id} = ${id} and ${nonceColumn} = ${nonce})`
    : sql`1`;
}

/** Only the fields whose value differs, before and after. */
export function changedValues(before: Row, after: Row): { before: Row; after: Row } {
  const changed = Object.keys(after).filter(
    (name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]),
  );
  return {
    before: Object.fromEntries(changed.map((name) => [name, before[name]])),
    after: Object.fromEntries(changed.map((name) => [name, after[name]])),
  };
}

/**
 * Statements that set the relation lists given in `values`. With a `nonce` (an update), each runs only if the
 * record carries that nonce, i.e. only if the batch's update is the one that landed: a refused update
 * (conflict) leaves the lists as they were.
 */
function relationWrites(
  ctx: ToolContext,
  records: RegisterRecords,
  id: string,
  organizationId: string,
  values: Row,
  nonce?: string,
) {
  const { spec, table, nonceColumn } = records;
  const landed = nonce
    ? sql`exists (select 1 from ${table} where ${table.id} = ${id} and ${nonceColumn} = ${nonce})`
    : sql`exists (select 1 from ${table} where ${table.id} = ${id})`;
  const statements: BatchItem<'sqlite'>[] = [];
  for (const relation of spec.relations ?? []) {
    const value = values[relation.field];
    if (!relation.writable || !Array.isArray(value)) continue;
    if (nonce)
      statements.push(ctx.db.delete(relation.table).where(and(eq(relation.ownerColumn, id), landed)));
    for (const targetId of new Set(value.map(String))) {
      const row: Row = {
        [relation.ownerColumn.name]: id,
        [relation.targetColumn.name]: targetId,
        [relation.organizationColumn.name]: organizationId,
      };
      const kind = kindOfId(targetsOf(relation), targetId);
      if (!kind) continue;
      const exists = existsInOrganization(records.tableOf, kind, organizationId, targetId);
      statements.push(
        ctx.db.insert(relation.table).select(selectRow(relation.table, row, sql`${landed} and ${exists}`)),
      );
    }
  }
  return statements;
}

/** The unique fields a change asks to check: on add every one given, on update those it changes (or their scope). */
function uniqueChecks(records: RegisterRecords, values: Row, changed: Row) {
  return (records.spec.unique ?? []).flatMap((unique) => {
    const { field, within } = typeof unique === 'string' ? { field: unique, within: null } : unique;
    const column = records.columns[field];
    const value = values[field];
    if (!column || value === undefined || value === null) return [];
    if (changed[field] === undefined && (!within || changed[within] === undefined)) return [];
    const scope = within ? records.columns[within] : undefined;
    return [{ field, within, column, value, scope, scopeValue: within ? (values[within] ?? null) : null }];
  });
}

/**
 * SQL: no other record holds the change's unique values, checked again by the write itself, so two requests adding
 * the same reference at the same time cannot both land (checkUnique, before, names the clash).
 */
function uniqueGuard(
  records: RegisterRecords,
  organizationId: string,
  values: Row,
  exceptId: string | null,
  changed: Row,
) {
  const { table } = records;
  const clauses = uniqueChecks(records, values, changed).map(
    ({ column, value, scope, scopeValue }) =>
      sql`not exists (select 1 from ${table} where ${and(
        eq(table.organization_id, organizationId),
        scope ? eq(scope, scopeValue) : undefined,
        eq(column, value),
        exceptId ? ne(table.id, exceptId) : undefined,
      )})`,
  );
  return clauses.length > 0 ? and(...clauses) : undefined;
}

/** Refuses a value that another record of the organization (or of the scope) already has in a unique field. */
async function checkUnique(
  ctx: ToolContext,
  records: RegisterRecords,
  organizationId: string,
  values: Row,
  exceptId: string | null,
  changed: Row = values,
) {
  const { spec, table } = records;
  // An update checks only what it changes.
  for (const { field: name, within, column, value, scope, scopeValue } of uniqueChecks(
    records,
    values,
    changed,
  )) {
    const [clash] = await ctx.db
      .select({ id: table.id })
      .from(table)
      .where(
        and(
          eq(table.organization_id, organizationId),
          scope ? eq(scope, scopeValue) : undefined,
          eq(column, value),
          exceptId ? ne(table.id, exceptId) : undefined,
        ),
      )
      .limit(1);
    if (clash) {
      const where = within ? `this ${within.replace(/_id$/, '')}` : 'this organization';
      throw new AppError(
        'conflict',
        `Another ${spec.label} of ${where} already has ${name} ${String(value)} (${clash.id}). Give it a ${name} of its own.`,
        [{ path: name, message: `Already used in ${where}: choose another` }],
      );
    }
  }
}
