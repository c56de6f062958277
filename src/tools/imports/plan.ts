// A row planned as its add or update tool would write it: a new record placed in the tree, an existing one updated,
// each checked for unique values against the organization and the rows before it.
import { type SQLWrapper, sql } from 'drizzle-orm';
import { newId } from '../../ids.ts';
import type { RegisterTools } from '../registers/builder.ts';
import { prepareRecord } from '../registers/prepare.ts';
import { clearableFields } from '../registers/schemas.ts';
import { capitalize, nameFieldsOf, type Row } from '../registers/spec.ts';
import { changedValues } from '../registers/write-tools.ts';
import {
  failureOf,
  fieldLabel,
  type ImportRun,
  nameOf,
  type ParsedRow,
  type Placed,
  type PlannedRow,
  placeOf,
  uniqueKey,
  uniqueParts,
} from './run.ts';
import { asSql } from './statements.ts';

/** A new record as its add tool builds it, or why not. */
export function planAdd(
  run: ImportRun,
  target: RegisterTools,
  values: Row,
): { ok: true; row: Row; after: Row } | { ok: false; message: string; path?: string } {
  const { organizationId, at } = run;
  // An empty cell (null) is a field not given, as null is for every tool argument.
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null));
  const parsed = target.add.input.safeParse({ organization_id: organizationId, ...given });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = String(issue?.path[0] ?? '');
    // A required field the row leaves empty (or the file has no column for): said so, not as a type error.
    const missing = issue?.code === 'invalid_type' && path !== '' && given[path] === undefined;
    return { ok: false, message: missing ? 'Required: no value given' : (issue?.message ?? 'Invalid'), path };
  }
  const input = parsed.data as Row;
  const next: Row = {};
  for (const [field, fieldSpec] of Object.entries(target.spec.fields)) {
    if (!fieldSpec.derived)
      next[field] = input[field] ?? (fieldSpec.mode === 'default' ? fieldSpec.defaultValue : null);
  }
  try {
    prepareRecord(target.spec, next, null, input, at.slice(0, 10));
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

/** A new record of the row, placed in the tree and checked for unique values. */
export function planNew(run: ImportRun, row: ParsedRow, linkValues: Row): PlannedRow | 'refused' {
  const { tools, spec, kind, selfRef, placed, placedById } = run;
  const planned = planAdd(run, tools, row.values);
  if (!planned.ok) {
    row.errors.push({ row: row.number, ...placeOf(run, planned.path), message: planned.message });
    return 'refused';
  }
  const record = planned.row;
  if (!placeInTree(run, row, record) || !checkUnique(run, row, record, null)) return 'refused';
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

/** The new record's top-level ancestor, from its parent (a record read, or one placed earlier in the file). */
function placeInTree(run: ImportRun, row: ParsedRow, record: Row): boolean {
  const { spec } = run;
  const tree = spec.tree;
  if (!tree) return true;
  const parentId = record[tree.parent];
  if (typeof parentId !== 'string') {
    record[tree.top] = null;
    return true;
  }
  const known = treeNode(run, parentId);
  if (!known) {
    row.errors.push({
      row: row.number,
      ...placeOf(run, tree.parent),
      message: `The parent ${parentId} is not in this organization`,
    });
    return false;
  }
  if (known.within !== record[tree.within]) {
    row.errors.push({
      row: row.number,
      ...placeOf(run, tree.parent),
      message: `The parent must be ${spec.label === 'requirement' ? 'a requirement' : `a ${spec.label}`} of the same ${tree.within.replace(/_id$/, '')}`,
    });
    return false;
  }
  record[tree.top] = known.top ?? known.id;
  return true;
}

/** A record of this register by id: placed earlier in the file, or read with the chunk. */
function treeNode(run: ImportRun, id: string): Placed | null {
  const { spec, kind, organizationId, placedById, lookups } = run;
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
function checkUnique(run: ImportRun, row: ParsedRow, next: Row, exceptId: string | null): boolean {
  const { spec, lookups, seenUnique } = run;
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
        ...placeOf(run, field),
        message:
          earlier !== undefined
            ? `The same ${fieldLabel(run, field)} as row ${earlier}`
            : `Another ${spec.label} already has ${field} ${String(value)} (${taken})`,
      });
      return false;
    }
    seenUnique.set(key, row.number);
  }
  return true;
}

/** An existing record's update as its update tool builds it, 'unchanged', or 'refused'. */
export async function planUpdate(
  run: ImportRun,
  row: ParsedRow,
  current: Row,
  linkValues: Row,
): Promise<PlannedRow | 'unchanged' | 'refused'> {
  const { ctx, tools, spec, kind, fields, at } = run;
  const { records } = tools;
  const fail = (field: string | undefined, message: string) => {
    row.errors.push({ row: row.number, ...placeOf(run, field), message });
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
    prepareRecord(spec, next, current, given, run.at.slice(0, 10));
    const tree = spec.tree;
    if (tree && next[tree.parent] !== current[tree.parent]) await spec.settle?.(ctx, next, current);
  } catch (error) {
    const failure = failureOf(error);
    return fail(failure.path, failure.message);
  }
  if (!checkUnique(run, row, next, String(current.id))) return 'refused';
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
