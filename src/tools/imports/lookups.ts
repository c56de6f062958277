// What a chunk's rows refer to, read in one batch: records named by id, name or email, the records the rows update,
// and the records already holding the rows' unique values.
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { nameFieldsOf, type RegisterKind, type Row } from '../registers/spec.ts';
import {
  emptyLookups,
  type Found,
  type ImportRun,
  type Lookups,
  type ParsedRow,
  uniqueKey,
  uniqueParts,
} from './run.ts';

async function sequentially(queries: BatchItem<'sqlite'>[]): Promise<unknown[]> {
  const results: unknown[] = [];
  for (const query of queries) results.push(await query);
  return results;
}

/** Everything the chunk's rows refer to, read in one batch. */
export async function lookUp(run: ImportRun, rows: ParsedRow[]): Promise<Lookups> {
  const { ctx, registers, kind, spec, organizationId, people } = run;
  const { records } = run.tools;
  const ids = new Map<RegisterKind, Set<string>>();
  const names = new Map<RegisterKind, Set<string>>();
  const emails = new Set<string>();
  const own = new Set<string>();
  const unique = new Map<string, Set<string>>();
  const keyField = spec.importKey?.field;
  const keys = new Set<string>();
  const add = (map: Map<RegisterKind, Set<string>>, target: RegisterKind, value: string) =>
    map.set(target, (map.get(target) ?? new Set()).add(value));
  for (const row of rows) {
    if (row.errors.length > 0) continue;
    if (row.id) own.add(row.id);
    else if (keyField && typeof row.values[keyField] === 'string') keys.add(row.values[keyField] as string);
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
  const found = emptyLookups();
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
  const keyColumn = keyField ? records.columns[keyField] : undefined;
  if (keyField && keyColumn && keys.size > 0) {
    queries.push({
      query: ctx.db
        .select(records.selection)
        .from(spec.table)
        .where(and(eq(spec.table.organization_id, organizationId), sql`${keyColumn} in ${json(keys)}`)),
      apply: (result) => {
        for (const item of result) {
          const value = String(item[keyField]);
          found.byKey.set(value, [...(found.byKey.get(value) ?? []), item]);
        }
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
