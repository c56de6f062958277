// References between registers: who points at a kind (the graph), what deleting one does (effects, as data),
// and the checks and statements that keep references inside one organization and consistent.
import { and, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { AppError } from '../../errors.ts';
import { changesOfRows } from '../changes.ts';
import { resolvePersonFields } from '../people-refs.ts';
import type { ToolContext } from '../types.ts';
import {
  kindOfId,
  type RegisterKind,
  type RegisterSpec,
  type RegisterTable,
  type RelationSpec,
  type Row,
  type TableOf,
  targetsOf,
} from './spec.ts';

/** Who points at a kind: used to keep references consistent when a record is deleted. */
export interface Reference {
  table: RegisterTable | SQLiteTable;
  column: SQLiteColumn;
  onDelete: 'set_null' | 'restrict' | 'delete_rows' | 'cascade';
  /** The register whose records hold the reference field (set_null/restrict), for their change history. */
  kind?: RegisterKind;
  /** That register's plural label ("audits"), for messages. */
  label: string;
  /** The field of that register that holds the reference (`owner_id`). */
  field?: string;
  /** For a link row pointing at the deleted record: whose list it is part of, for that record's history. */
  listOf?: { kind: RegisterKind; field: string; relation: RelationSpec };
  /** For `cascade`: the register whose records are deleted with the referenced one. */
  spec?: RegisterSpec;
}

export type ReferenceGraph = Map<RegisterKind, Reference[]>;

export function buildReferenceGraph(specs: readonly RegisterSpec[]): ReferenceGraph {
  const graph: ReferenceGraph = new Map();
  const add = (kind: RegisterKind, reference: Reference) =>
    graph.set(kind, [...(graph.get(kind) ?? []), reference]);
  for (const spec of specs) {
    const columns = getTableColumns(spec.table);
    for (const [name, field] of Object.entries(spec.fields)) {
      const column = columns[name];
      if (!field.ref || !column) continue;
      add(field.ref, {
        table: spec.table,
        column,
        onDelete: field.cascade ? 'cascade' : field.mode === 'required' ? 'restrict' : 'set_null',
        kind: spec.kind,
        label: spec.labelPlural,
        field: name,
        ...(field.cascade ? { spec } : {}),
      });
    }
    for (const relation of spec.relations ?? []) {
      if (relation.inverse) continue;
      for (const target of targetsOf(relation)) {
        add(target, {
          table: relation.table,
          column: relation.targetColumn,
          onDelete: 'delete_rows',
          label: '',
          listOf: { kind: spec.kind, field: relation.field, relation },
        });
      }
      add(spec.kind, {
        table: relation.table,
        column: relation.ownerColumn,
        onDelete: 'delete_rows',
        label: '',
      });
    }
  }
  return graph;
}

/** A field of another register that points at the deleted kind: `{kind: 'risk', field: 'owner_id'}`. */
export interface PointingField {
  kind: RegisterKind;
  field: string;
}

/** What deleting a record of a kind does to the records that point at it, as data for descriptions and pages. */
export interface DeleteEffects {
  /** Optional reference fields that are cleared (set to null). */
  clears: PointingField[];
  /** Required reference fields: the delete is refused (conflict) while a record's field points at it. */
  blockedBy: PointingField[];
  /** Relation lists it is taken out of (an asset's vendor_ids). */
  removesFrom: PointingField[];
  /** Records deleted with it (a framework's requirements), each with its history row. */
  deletes: PointingField[];
}

export function deleteEffectsOf(references: readonly Reference[]): DeleteEffects {
  const pointing = (onDelete: Reference['onDelete']) =>
    references.flatMap((reference) =>
      reference.onDelete === onDelete && reference.kind && reference.field
        ? [{ kind: reference.kind, field: reference.field }]
        : [],
    );
  return {
    clears: pointing('set_null'),
    blockedBy: pointing('restrict'),
    removesFrom: references.flatMap((reference) =>
      reference.listOf ? [{ kind: reference.listOf.kind, field: reference.listOf.field }] : [],
    ),
    deletes: pointing('cascade'),
  };
}

/**
 * Checks that referenced records exist in the same organization (one round trip for all of them), once people named
 * by email or full name are replaced in `values` by their ids.
 */
export async function checkReferences(
  ctx: ToolContext,
  spec: RegisterSpec,
  tableOf: TableOf,
  organizationId: string,
  values: Row,
): Promise<void> {
  await resolvePersonFields(ctx, spec, organizationId, values);
  const checks: { path: string; kind: RegisterKind; ids: string[] }[] = [];
  for (const [name, field] of Object.entries(spec.fields)) {
    const value = values[name];
    if (field.ref && typeof value === 'string') checks.push({ path: name, kind: field.ref, ids: [value] });
  }
  for (const relation of spec.relations ?? []) {
    const value = values[relation.field];
    if (!Array.isArray(value) || value.length === 0) continue;
    // Ids of a several-kinds relation are checked against their own kind's records (the schema took the prefix).
    const byKind = new Map<RegisterKind, string[]>();
    for (const id of new Set(value.map(String))) {
      const kind = kindOfId(targetsOf(relation), id);
      if (kind) byKind.set(kind, [...(byKind.get(kind) ?? []), id]);
    }
    for (const [kind, ids] of byKind) checks.push({ path: relation.field, kind, ids });
  }
  if (checks.length === 0) return;
  const queries = checks.map(({ kind, ids }) => {
    const target = tableOf(kind);
    return ctx.db
      .select({ id: target.id })
      .from(target)
      .where(and(eq(target.organization_id, organizationId), inArray(target.id, ids)));
  });
  const results = await ctx.db.batch(queries as unknown as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]);
  checks.forEach((check, index) => {
    const found = new Set((results[index] as { id: string }[]).map((row) => row.id));
    const missing = check.ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new AppError(
        'not_found',
        `${check.path}: no ${check.kind.replace('_', ' ')} ${missing.join(', ')} in this organization.`,
        [{ path: check.path, message: `Not found in this organization: ${missing.join(', ')}` }],
      );
    }
  });
}

/** SQL: `id` is a record of `kind` in the organization. */
export function existsInOrganization(
  tableOf: TableOf,
  kind: RegisterKind,
  organizationId: string,
  id: string,
): SQL {
  const target = tableOf(kind);
  return sql`exists (select 1 from ${target} where ${target.id} = ${id} and ${target.organization_id} = ${organizationId})`;
}

/**
 * SQL: every record the row's reference fields point at still exists. Part of the write statement itself, so a
 * record deleted between the checks and the write cannot be left pointed at.
 */
export function referencesExist(
  spec: RegisterSpec,
  tableOf: TableOf,
  organizationId: string,
  values: Row,
): SQL {
  const conditions = Object.entries(spec.fields)
    .filter(([name, field]) => field.ref && typeof values[name] === 'string')
    .map(([name, field]) =>
      existsInOrganization(tableOf, field.ref as RegisterKind, organizationId, String(values[name])),
    );
  return conditions.length > 0 ? sql.join(conditions, sql` and `) : sql`1`;
}

/**
 * History rows for the records a delete changes besides the deleted one: those whose reference field it clears,
 * and those whose relation list (e.g. an asset's vendor_ids) loses it. Run before the clean-up, only once the
 * record is gone.
 */
export function cascadeChanges(
  ctx: ToolContext,
  tool: string,
  reference: Reference,
  deletedId: string,
  gone: SQL,
  at: string,
): BatchItem<'sqlite'>[] {
  return pointingChanges(ctx, tool, reference, and(eq(reference.column, deletedId), gone) as SQL, at);
}

/** The history rows of cascadeChanges, for the rows of `reference` that `where` selects. */
function pointingChanges(
  ctx: ToolContext,
  tool: string,
  reference: Reference,
  where: SQL,
  at: string,
): BatchItem<'sqlite'>[] {
  const deletedId = sql`${reference.column}`;
  if (reference.onDelete === 'set_null' && reference.kind) {
    const referring = reference.table as RegisterTable;
    return [
      changesOfRows(ctx, {
        tool,
        kind: reference.kind,
        table: referring,
        idColumn: referring.id,
        organizationColumn: referring.organization_id,
        before: sql`json_object(${reference.column.name}, ${reference.column})`,
        after: sql`json_object(${reference.column.name}, null)`,
        at,
        where,
      }),
    ];
  }
  if (reference.onDelete === 'delete_rows' && reference.listOf) {
    const { kind, field, relation } = reference.listOf;
    // The owner's list as a sorted JSON array, with or without the deleted id; `inner` aliases the link table so
    // the bare column names refer to the outer row.
    const target = sql`inner_link.${sql.identifier(relation.targetColumn.name)}`;
    const owner = sql`inner_link.${sql.identifier(relation.ownerColumn.name)}`;
    const list = (withDeleted: boolean) =>
      sql`json((select json_group_array(x) from (select ${target} as x from ${relation.table} as inner_link where ${owner} = ${relation.ownerColumn}${withDeleted ? sql`` : sql` and ${target} != ${deletedId}`} order by x)))`;
    return [
      changesOfRows(ctx, {
        tool,
        kind,
        table: relation.table,
        idColumn: relation.ownerColumn,
        organizationColumn: relation.organizationColumn,
        before: sql`json_object(${field}, ${list(true)})`,
        after: sql`json_object(${field}, ${list(false)})`,
        at,
        where,
      }),
    ];
  }
  return [];
}

/**
 * For a `cascade` reference (a framework's requirements): the statements that delete, once the referenced record
 * is gone, the records pointing at it, each with a history row of its last values; first the link rows that point
 * at them (with their owners' history) and the optional fields of other registers that point at them.
 */
export function cascadeDeletes(
  ctx: ToolContext,
  tool: string,
  reference: Reference,
  deletedId: string,
  gone: SQL,
  at: string,
  referencesOf: (kind: RegisterKind) => readonly Reference[],
): BatchItem<'sqlite'>[] {
  const { spec } = reference;
  if (reference.onDelete !== 'cascade' || !spec) return [];
  const table = spec.table;
  const doomed = sql`(select ${table.id} from ${table} where ${reference.column} = ${deletedId})`;
  const statements: BatchItem<'sqlite'>[] = [];
  for (const pointing of referencesOf(spec.kind)) {
    // Its own records' fields pointing at each other (a requirement's parent) go with them.
    if (pointing.kind === spec.kind || pointing.onDelete === 'restrict' || pointing.onDelete === 'cascade')
      continue;
    const where = and(sql`${pointing.column} in ${doomed}`, gone) as SQL;
    statements.push(...pointingChanges(ctx, tool, pointing, where, at));
    if (pointing.onDelete === 'delete_rows') statements.push(ctx.db.delete(pointing.table).where(where));
    else statements.push(clearPointing(ctx, pointing, where, at));
  }
  const fields = Object.entries(spec.fields)
    .filter(([name, field]) => !field.maintained && name in getTableColumns(table))
    .map(([name]) => sql`${name}, ${getTableColumns(table)[name]}`);
  const where = and(eq(reference.column, deletedId), gone) as SQL;
  statements.push(
    changesOfRows(ctx, {
      tool,
      kind: spec.kind,
      action: 'delete',
      table,
      idColumn: table.id,
      organizationColumn: table.organization_id,
      before: sql`json_object(${sql.join(fields, sql`, `)})`,
      after: sql`null`,
      at,
      where,
    }),
    ctx.db.delete(table).where(where),
  );
  return statements;
}

/** Clears an optional reference field where `where` holds; those records' updated_at moves. */
export function clearPointing(ctx: ToolContext, reference: Reference, where: SQL, at: string) {
  const touched = 'updated_at' in getTableColumns(reference.table) ? { updated_at: at } : {};
  return ctx.db
    .update(reference.table)
    .set({ [reference.column.name]: null, ...touched } as never)
    .where(where);
}
