// Query plans of every list query: for each register, each documented filter (and filter.query, long and short) and
// each order_by field in both directions, first page and a page after a cursor, the statements the list tool runs
// are recorded and explained. None may scan a register table without an index or sort in a temporary B-tree: a
// page must cost O(page), whatever the register's size. The one exception is the sparse text read (marked): it
// sorts the FTS index's matches, which the list reads that way only when they are few (at most the text count cap,
// or fewer than 1 in DENSE_WALK_ROWS_PER_ROW rows), and it must look them up by rowid, never through another index.
// filter.query is explained both ways: sparse (one record matches) and dense (more than the count cap match, first
// page, and a cursor carrying a capped count).
// Generated from the register specs, not a hand list.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type InStatement } from '@libsql/client';
import { getTableName } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTokenCache } from '../../src/auth/token-cache.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/db/open-node.ts';
import { ID_PREFIXES, newId } from '../../src/ids.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { encodeCursor, filterFingerprint, TEXT_COUNT_CAP } from '../../src/tools/pagination.ts';
import { attachmentsOf } from '../../src/tools/questionnaires/attachments.ts';
import { orderFieldsOf, type RegisterSpec } from '../../src/tools/registers/spec.ts';
import {
  LED_FILTER_MARK,
  SPARSE_FILTER_MARK,
  SPARSE_TEXT_MARK,
} from '../../src/tools/registers/text-pages.ts';
import * as states from '../../src/tools/states.ts';
import { type Actor, callDirect, createActor, createOrg, createToken } from '../helpers.ts';

let dir: string;
let database: Database;
let runtime: Runtime;
let token: string;
let org: string;
let alice: Actor;
let recorded: InStatement[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-plans-'));
  const url = `file:${join(dir, 'plans.db')}`;
  const client = createClient({ url });
  // Records every statement the app sends (drizzle runs list pages as one batch).
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'batch') {
        return (statements: InStatement[], mode?: Parameters<typeof client.batch>[1]) => {
          recorded.push(...statements);
          return target.batch(statements, mode);
        };
      }
      if (property === 'execute') {
        return (statement: InStatement) => {
          recorded.push(statement);
          return target.execute(statement);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  database = createDatabase(recording);
  await migrateDatabase(database);
  runtime = createRuntime({
    config: loadConfig({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0' }),
    database,
    cache: createMemoryTokenCache(),
    loopbackOnly: true,
    usageFlush: 'host',
    log: () => {},
  });
  alice = await createActor(runtime, 'alice');
  org = await createOrg(runtime, alice, 'Plans');
  token = await createToken(runtime, alice, {});
  // One record holding "needle" in each searched register, and more than the text count cap holding "haystack",
  // written straight into its table (every required column given a placeholder), so a first page of filter.query
  // has matches to read, sparse and dense.
  // One write transaction per register: a commit per row made this set-up take a minute on a busy machine.
  for (const spec of REGISTER_SPECS.filter((item) => item.search?.length)) {
    const insert = await recordInserter(spec);
    const statements = Array.from({ length: TEXT_COUNT_CAP + 1 }, () =>
      insert(newId(spec.prefix), 'a haystack here'),
    );
    statements.push(insert(`${spec.prefix}_${'b'.repeat(24)}`, 'a needle here'));
    await database.client.batch(statements, 'write');
  }
});

/** Makes the insert of a record of `spec`'s register: `text` in every searched column, placeholders in the others. */
async function recordInserter(spec: RegisterSpec) {
  const table = getTableName(spec.table);
  const info = await database.client.execute(
    `select name, type, "notnull", dflt_value from pragma_table_info('${table}')`,
  );
  const searched = new Set(spec.search?.map((column) => column.name));
  return (id: string, text: string): InStatement => {
    const values: Record<string, string | number> = {};
    for (const column of info.rows) {
      const name = String(column.name);
      if (name === 'id') values[name] = id;
      else if (name === 'organization_id') values[name] = org;
      else if (name === 'email') values[name] = `${id}@example.com`;
      // A requirement's reference is unique in its framework: the text, made unique by the id.
      else if (searched.has(name)) values[name] = name === 'reference' ? `${text} ${id}` : text;
      else if (Number(column.notnull) === 1 && column.dflt_value === null)
        values[name] = /INT|REAL/i.test(String(column.type)) ? 1 : '2026-01-15T00:00:00.000Z';
    }
    const names = Object.keys(values);
    return {
      sql: `insert into "${table}" (${names.map((name) => `"${name}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
      args: Object.values(values),
    };
  };
}

afterAll(async () => {
  database?.client.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ENUM_VALUES = (Object.values(states) as unknown[]).filter(
  (value): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string'),
);
const CANDIDATES: unknown[] = [
  ...new Set(ENUM_VALUES.flat()),
  true,
  15,
  3, // a likelihood or an impact (1..5)
  'CURRENT', // a risk's acceptance_status
  '2026-01-15',
  ...Object.values(ID_PREFIXES).map((prefix) => `${prefix}_${'a'.repeat(24)}`),
];

/** Values a filter accepts, found by trying candidates against its schema: the first one, and null if allowed. */
function sampleValues(spec: RegisterSpec, name: string): unknown[] {
  const schema = spec.filters?.[name]?.schema;
  if (!schema) throw new Error(`${spec.kind}.${name}: no schema`);
  const first = CANDIDATES.find((candidate) => schema.safeParse(candidate).success);
  if (first === undefined) throw new Error(`${spec.kind}.${name}: no sample value accepted`);
  return schema.safeParse(null).success ? [first, null] : [first];
}

function filtersOf(spec: RegisterSpec): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [{}];
  if (spec.search?.length) filters.push({ query: 'needle' }, { query: 'haystack' }, { query: 'ne' });
  for (const name of Object.keys(spec.filters ?? {})) {
    for (const value of sampleValues(spec, name)) filters.push({ [name]: value });
  }
  return filters;
}

function cursorsOf(
  org: string,
  field: string,
  direction: 'ASC' | 'DESC',
  nullable: boolean,
  sample: string | number,
  filter: Record<string, unknown>,
) {
  const cursors: (string | undefined)[] = [
    undefined,
    encodeCursor({ f: field, d: direction, v: sample, i: 'x' }),
  ];
  if (nullable) cursors.push(encodeCursor({ f: field, d: direction, v: null, i: 'x' }));
  if (typeof filter.query === 'string') {
    // A walk that counted more than the text cap on its first page: its later pages read the matches densely.
    const dense = { t: TEXT_COUNT_CAP, c: true, h: filterFingerprint(org, filter) };
    cursors.push(encodeCursor({ f: field, d: direction, v: sample, i: 'x', ...dense }));
    if (nullable) cursors.push(encodeCursor({ f: field, d: direction, v: null, i: 'x', ...dense }));
    // And one that counted a few: its later pages read the FTS index's matches again.
    cursors.push(encodeCursor({ f: field, d: direction, v: sample, i: 'x', t: 1, c: false, h: dense.h }));
  }
  return cursors;
}

const registerTables = new Set(REGISTER_SPECS.map((spec) => getTableName(spec.table)));

/** A sparse read's plan: each record looked up by its id, and no register table scanned. */
function expectReadById(read: string[], table: string, label: string): void {
  expect(
    read.some((line) =>
      new RegExp(`^SEARCH ${table} USING INDEX sqlite_autoindex_${table}_1 \\(id=\\?\\)$`).test(line),
    ),
    `${label}\n${read.join('\n')}`,
  ).toBe(true);
  expect(
    read.filter(
      (line) => /^SCAN (\w+)/.test(line) && registerTables.has(/^SCAN (\w+)/.exec(line)?.[1] ?? ''),
    ),
    `${label}\n${read.join('\n')}`,
  ).toEqual([]);
}

/** The query plan's lines of a recorded statement. */
async function planOf(statement: InStatement): Promise<string[]> {
  const { sql, args } = typeof statement === 'string' ? { sql: statement, args: [] } : statement;
  const plan = await database.client.execute({ sql: `explain query plan ${sql}`, args: args ?? [] });
  return plan.rows.map((row) => String(row.detail));
}

/** Plan lines that make a page cost more than O(page). */
async function badPlanLines(statement: InStatement): Promise<string[]> {
  const sql = typeof statement === 'string' ? statement : statement.sql;
  const details = await planOf(statement);
  const sparse = sql.includes(SPARSE_TEXT_MARK);
  // A sparse filter's read sorts its few matches (and drops the repeated ones); it still scans no register table.
  const sparseFilter = sql.includes(SPARSE_FILTER_MARK);
  return details.filter((detail) => {
    if (
      /USE TEMP B-TREE FOR (?:ORDER BY|RIGHT PART OF ORDER BY|LAST TERM OF ORDER BY|GROUP BY|DISTINCT)/.test(
        detail,
      )
    )
      return !sparse && !sparseFilter;
    // The sparse read looks its matches up by rowid: another index would mean reading rows that do not match.
    const search = /^SEARCH (\w+) USING (.*)$/.exec(detail);
    if (sparse && search && registerTables.has(search[1] ?? '')) {
      return !/^INTEGER PRIMARY KEY \(rowid=\?\)$/.test(search[2] ?? '');
    }
    const scan = /^SCAN (\w+)(.*)$/.exec(detail);
    return !!scan && registerTables.has(scan[1] ?? '') && !/USING (?:COVERING )?INDEX/.test(scan[2] ?? '');
  });
}

describe('list query plans', () => {
  for (const spec of REGISTER_SPECS) {
    it(`${spec.nounPlural}: every filter and order uses an index, without a sort`, async () => {
      const orders = orderFieldsOf(spec);
      const tool = `list${spec.nounPlural}`;
      let explained = 0;
      const textReads = { sparseByRowid: 0, sparseByIndex: 0, dense: 0, denseKnown: 0 };
      for (const filter of filtersOf(spec)) {
        for (const [field, order] of Object.entries(orders)) {
          const sample = order.column.dataType === 'number' ? 3 : '2026-01-15';
          for (const direction of ['ASC', 'DESC'] as const) {
            for (const cursor of cursorsOf(org, field, direction, order.nullable === true, sample, filter)) {
              recorded = [];
              const args = { organization_id: org, filter, order_by: { field, direction }, cursor };
              const result = await callDirect(runtime, token, tool, args);
              expect(result.status, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(result.body)}`).toBe(
                200,
              );
              const statements = recorded.filter((statement) => {
                const text = typeof statement === 'string' ? statement : statement.sql;
                return /^select\b/i.test(text) && text.includes(`"${getTableName(spec.table)}"`);
              });
              expect(statements.length, `${tool}: no list statement recorded`).toBeGreaterThan(0);
              for (const statement of statements) {
                const bad = await badPlanLines(statement);
                const text = typeof statement === 'string' ? statement : statement.sql;
                expect(bad, `${tool} ${JSON.stringify(args)}\n${text}`).toEqual([]);
                explained += 1;
                if (text.includes(SPARSE_TEXT_MARK)) {
                  // By the rowids a count read (the row test may probe the index at each of them), or by the index.
                  if (text.includes('in (select value from json_each(')) textReads.sparseByRowid += 1;
                  else if (text.includes('_fts" match')) textReads.sparseByIndex += 1;
                }
                if (text.includes('"walked_rowid"')) textReads.dense += 1;
                if (text.includes('"walked_rowid" in (select value from json_each('))
                  textReads.denseKnown += 1;
              }
            }
          }
        }
      }
      expect(explained).toBeGreaterThan(Object.keys(orders).length * 4);
      // Every read of filter.query was explained, for every order.
      const searched = spec.search?.length ? Object.keys(orders).length * 2 : 0;
      expect(textReads.sparseByRowid).toBeGreaterThanOrEqual(searched);
      expect(textReads.sparseByIndex).toBeGreaterThanOrEqual(searched);
      expect(textReads.dense).toBeGreaterThanOrEqual(searched);
      // A dense first page passes over the rows its count knows do not match.
      expect(textReads.denseKnown).toBeGreaterThanOrEqual(searched);
    });
  }

  it("a link filter's first page counts from the target's links and reads its few records by id", async () => {
    // A count that tested every record of the organization against the link was O(records) for one target holding a
    // few of them (listEvidence of one measure at 100k items: 52 ms); from the target's links it is O(matches). The
    // page walked the sort index testing each row (O(records walked) for a target holding 1% of them); while the
    // target has at most the count cap of links, it reads them and sorts those records (FilterSpec.matches).
    const linked = REGISTER_SPECS.flatMap((spec) =>
      Object.entries(spec.filters ?? {})
        .filter(([, item]) => item.count)
        .map(([name]) => ({ spec, name })),
    );
    expect(linked.map(({ spec, name }) => `${spec.kind}.${name}`).sort()).toEqual([
      'access_review.reviewer_id',
      'asset.vendor_id',
      'data_classification.vendor_id',
      'data_subject_request.processing_activity_id',
      'document.requirement_id',
      'dpia.processing_activity_id',
      'evidence.record_id',
      'incident.asset_id',
      'incident.data_classification_id',
      'incident.obligation_id',
      'incident.processing_activity_id',
      'incident.risk_id',
      'incident.vendor_id',
      'nonconformity.requirement_id',
      'nonconformity.risk_id',
      'processing_activity.vendor_id',
      'requirement.measure_id',
      'risk.measure_id',
      'task.record_id',
    ]);
    for (const { spec, name } of linked) {
      // A filter whose links carry the sort key reads them in order instead (the next test).
      if (spec.filters?.[name]?.lead) continue;
      recorded = [];
      const table = getTableName(spec.table);
      const tool = `list${spec.nounPlural}`;
      const [value] = sampleValues(spec, name);
      const result = await callDirect(runtime, token, tool, {
        organization_id: org,
        filter: { [name]: value },
      });
      expect(result.status, `${tool} ${name}`).toBe(200);
      const texts = recorded.map((statement) => (typeof statement === 'string' ? statement : statement.sql));
      const marked = (index: number) => texts[index]?.includes(SPARSE_FILTER_MARK) === true;
      const counts = recorded.filter(
        (_, index) => /^select count\(/i.test(texts[index] ?? '') && !marked(index),
      );
      const reads = recorded.filter((_, index) => /order by/i.test(texts[index] ?? ''));
      expect(
        [counts.length, reads.length, recorded.filter((_, index) => marked(index)).length],
        `${tool} ${name}: ${texts.join('\n')}`,
      ).toEqual([1, 1, 2]);
      expect(texts.some((text) => /indexed by/i.test(text))).toBe(false);
      const count = await planOf(counts[0] as InStatement);
      // The link table searched by its index on the target, each match looked up by its id; no per-row subquery.
      expect(
        count.some((line) => /^SEARCH \w+ USING (?:COVERING )?INDEX \w+_idx \(\w+=\?\)$/.test(line)),
        `${tool} ${name}\n${count.join('\n')}`,
      ).toBe(true);
      expect(
        count.some((line) => line.startsWith('CORRELATED')),
        `${tool} ${name}\n${count.join('\n')}`,
      ).toBe(false);
      // The page: the target's links by their index, each record by its id; no register table scanned.
      const read = await planOf(reads[0] as InStatement);
      expect(
        read.some((line) => /^SEARCH \w+ USING (?:COVERING )?INDEX \w+ \(\w+=\?\)$/.test(line)),
        `${tool} ${name}\n${read.join('\n')}`,
      ).toBe(true);
      expectReadById(read, table, `${tool} ${name}`);
    }
  });

  it("a link filter whose links carry the sort key reads them in the page's order: no sort, no walk", async () => {
    // listEvidence of one measure holding 1% of 100k items: the sparse read sorted its 1,000 matches (22 ms, against
    // 1.3 ms at 1k); the links in evidence_records_record_idx, in created_at order, give the page in O(page).
    const led = REGISTER_SPECS.flatMap((spec) =>
      Object.entries(spec.filters ?? {})
        .filter(([, item]) => item.lead)
        .map(([name]) => ({ spec, name })),
    );
    expect(led.map(({ spec, name }) => `${spec.kind}.${name}`)).toEqual(['evidence.record_id']);
    for (const { spec, name } of led) {
      const tool = `list${spec.nounPlural}`;
      const [value] = sampleValues(spec, name);
      for (const direction of ['DESC', 'ASC'] as const) {
        for (const cursor of cursorsOf(org, 'created_at', direction, false, '2026-01-15', {
          [name]: value,
        })) {
          for (const filter of [{ [name]: value }, { [name]: value, expired: false }]) {
            recorded = [];
            const args = {
              organization_id: org,
              filter,
              order_by: { field: 'created_at', direction },
              cursor,
            };
            const result = await callDirect(runtime, token, tool, args);
            expect(result.status, `${tool} ${JSON.stringify(args)}`).toBe(200);
            const texts = recorded.map((statement) =>
              typeof statement === 'string' ? statement : statement.sql,
            );
            const reads = recorded.filter(
              (_, index) => texts[index]?.includes(LED_FILTER_MARK) && /order by/i.test(texts[index] ?? ''),
            );
            expect(reads, texts.join('\n')).toHaveLength(1);
            const plan = await planOf(reads[0] as InStatement);
            expect(
              plan.some((line) => line.includes('TEMP B-TREE')),
              plan.join('\n'),
            ).toBe(false);
            expect(plan[0], plan.join('\n')).toMatch(
              /^SEARCH evidence_records USING COVERING INDEX evidence_records_record_idx \(record_id=\? AND organization_id=\?(?: AND .*)?\)$/,
            );
            expectReadById(plan, getTableName(spec.table), `${tool} ${JSON.stringify(args)}`);
            if (cursor) continue;
            const counts = recorded.filter((_, index) => /^select count\(/i.test(texts[index] ?? ''));
            expect(counts, texts.join('\n')).toHaveLength(1);
            const count = await planOf(counts[0] as InStatement);
            // The links counted from their index; with another filter each item is looked up by id and tested.
            expect(count, count.join('\n')).toContain(
              'SEARCH evidence_records USING COVERING INDEX evidence_records_record_idx (record_id=? AND organization_id=?)',
            );
            if (Object.keys(filter).length > 1) expectReadById(count, getTableName(spec.table), 'count');
            else
              expect(
                count.filter((line) => line.startsWith('SEARCH')),
                count.join('\n'),
              ).toHaveLength(1);
          }
        }
      }
      // Another order reads the few matches and sorts them, as before.
      recorded = [];
      await callDirect(runtime, token, tool, {
        organization_id: org,
        filter: { [name]: value },
        order_by: { field: 'title', direction: 'ASC' },
      });
      const texts = recorded.map((statement) => (typeof statement === 'string' ? statement : statement.sql));
      expect(texts.some((text) => text.includes(LED_FILTER_MARK))).toBe(false);
      expect(texts.some((text) => text.includes(SPARSE_FILTER_MARK))).toBe(true);
    }
  });

  it('a filter that matches few reads its matches from their own index and each record by its id', async () => {
    // Walking the sort index past every record that does not match was O(records) for a filter few records meet
    // (listIncidents with open_deadlines at 100k incidents, 20 with a notice due); from the matches it is O(matches).
    const sparse = REGISTER_SPECS.flatMap((spec) =>
      Object.entries(spec.filters ?? {})
        // Link filters read their matches too: the test above holds them.
        .filter(([, item]) => item.matches && !item.count)
        .map(([name]) => ({ spec, name })),
    );
    expect(sparse.map(({ spec, name }) => `${spec.kind}.${name}`).sort()).toEqual([
      'data_subject_request.overdue',
      'incident.open_deadlines',
    ]);
    for (const { spec, name } of sparse) {
      const table = getTableName(spec.table);
      const tool = `list${spec.nounPlural}`;
      for (const cursor of [
        undefined,
        encodeCursor({ f: 'created_at', d: 'DESC', v: '2026-01-15', i: 'x' }),
      ]) {
        recorded = [];
        const result = await callDirect(runtime, token, tool, {
          organization_id: org,
          filter: { [name]: sampleValues(spec, name)[0] },
          cursor,
        });
        expect(result.status, `${tool} ${name}`).toBe(200);
        const texts = recorded.map((statement) =>
          typeof statement === 'string' ? statement : statement.sql,
        );
        const marked = recorded.filter((_, index) => texts[index]?.includes(SPARSE_FILTER_MARK));
        // The matches counted, and the page read from them; no walk along the sort index.
        expect(marked.length, `${tool} ${name}: ${texts.join('\n')}`).toBe(2);
        expect(texts.some((text) => /indexed by/i.test(text))).toBe(false);
        const read = await planOf(
          marked.find((statement) =>
            /order by/i.test(String(typeof statement === 'string' ? statement : statement.sql)),
          ) as InStatement,
        );
        expectReadById(read, table, `${tool} ${name}`);
        expect(
          read.some((line) =>
            /^SEARCH \w+ USING (?:COVERING )?INDEX \w+_idx \(organization_id=\? AND /.test(line),
          ),
          `${tool} ${name}\n${read.join('\n')}`,
        ).toBe(true);
      }
      // A flag's other value matches many: walked as any filter.
      if (sampleValues(spec, name)[0] !== true) continue;
      recorded = [];
      await callDirect(runtime, token, tool, { organization_id: org, filter: { [name]: false } });
      const texts = recorded.map((statement) => (typeof statement === 'string' ? statement : statement.sql));
      expect(texts.some((text) => text.includes(SPARSE_FILTER_MARK))).toBe(false);
      expect(texts.some((text) => /indexed by/i.test(text))).toBe(true);
    }
  });

  it('frameworks: the statement of applicability, coverage and the summary read indexes, without a sort', async () => {
    const framework = await callDirect(runtime, token, 'addFramework', {
      organization_id: org,
      name: 'Plans',
    });
    const frameworkId = (framework.body as { framework: { id: string } }).framework.id;
    const calls: [string, Record<string, unknown>][] = [
      ['getStatementOfApplicability', { framework_id: frameworkId }],
      [
        'getStatementOfApplicability',
        { framework_id: frameworkId, filter: { implementation_status: ['NOT_COVERED'] } },
      ],
      [
        'getStatementOfApplicability',
        {
          framework_id: frameworkId,
          cursor: encodeCursor({
            l: 'getStatementOfApplicability',
            f: 'reference',
            d: 'ASC',
            v: 'A',
            i: 'x',
          }),
        },
      ],
      ['getFrameworkCoverage', { framework_id: frameworkId }],
      ['getComplianceSummary', { organization_id: org }],
    ];
    let explained = 0;
    for (const [tool, args] of calls) {
      recorded = [];
      const result = await callDirect(runtime, token, tool, args);
      expect(result.status, `${tool}: ${JSON.stringify(result.body)}`).toBe(200);
      const statements = recorded.filter((statement) => {
        const text = typeof statement === 'string' ? statement : statement.sql;
        return /^select\b/i.test(text) && text.includes('"requirements"');
      });
      expect(statements.length, `${tool}: no statement on requirements`).toBeGreaterThan(0);
      for (const statement of statements) {
        const text = typeof statement === 'string' ? statement : statement.sql;
        expect(await badPlanLines(statement), `${tool}\n${text}`).toEqual([]);
        explained += 1;
      }
    }
    expect(explained).toBeGreaterThanOrEqual(calls.length);
  });

  it("myWork reads one owner's open data-subject requests by the owner index with the status, not all they answered", async () => {
    // Alice owns records through a person of her email; myWork's union then reads the requests she owns.
    const person = await callDirect(runtime, token, 'addPerson', {
      organization_id: org,
      full_name: 'Alice Plans',
      email: alice.email,
    });
    expect(person.status).toBe(200);
    recorded = [];
    expect((await callDirect(runtime, token, 'myWork', {})).status).toBe(200);
    const union = recorded.find((statement) =>
      (typeof statement === 'string' ? statement : statement.sql).includes('"data_subject_requests"'),
    );
    expect(union).toBeDefined();
    const { sql, args } =
      typeof union === 'string' ? { sql: union, args: [] } : (union as { sql: string; args: [] });
    const plan = await database.client.execute({ sql: `explain query plan ${sql}`, args: args ?? [] });
    expect(plan.rows.map((row) => String(row.detail))).toContain(
      'SEARCH data_subject_requests USING INDEX data_subject_requests_org_owner_idx (organization_id=? AND owner_id=? AND status=?)',
    );
  });

  it('counts the vendors due for assessment along one range of the due index, never every vendor', async () => {
    recorded = [];
    const listed = await callDirect(runtime, token, 'listVendors', {
      organization_id: org,
      filter: { assessment_due_before: '2026-11-28' },
    });
    expect(listed.status).toBe(200);
    const count = recorded
      .map((statement) => (typeof statement === 'string' ? { sql: statement, args: [] } : statement))
      .find((statement) => statement.sql.includes('count(') && statement.sql.includes('"vendors"'));
    expect(count).toBeDefined();
    const plan = await database.client.execute({
      sql: `explain query plan ${count?.sql}`,
      args: (count?.args ?? []) as never,
    });
    // `is null or <` read the organization's every entry of vendors_org_assessed_idx (organization_id=?) instead.
    expect(plan.rows.map((row) => String(row.detail)).join('\n')).toMatch(
      /SEARCH vendors USING (COVERING )?INDEX vendors_org_assessment_due_idx \(organization_id=\? AND <expr><\?\)/,
    );
  });

  it("reads a questionnaire's attached files along its index in the order they came, without a sort", async () => {
    recorded = [];
    expect(await attachmentsOf(database.db, newId('vqn'))).toEqual([]);
    const read = recorded.find((statement) =>
      (typeof statement === 'string' ? statement : statement.sql).includes('"vendor_questionnaire_files"'),
    );
    expect(read).toBeDefined();
    const plan = await planOf(read as InStatement);
    expect(plan).toContain(
      'SEARCH vendor_questionnaire_files USING INDEX vendor_questionnaire_files_questionnaire_idx (questionnaire_id=?)',
    );
    expect(plan.filter((line) => /TEMP B-TREE|^SCAN vendor_questionnaire_files/.test(line))).toEqual([]);
    expect(await badPlanLines(read as InStatement)).toEqual([]);
  });

  it('would catch a sort in a temporary B-tree and a full scan', async () => {
    expect(await badPlanLines('select * from risks order by note')).toEqual(
      expect.arrayContaining(['SCAN risks', 'USE TEMP B-TREE FOR ORDER BY']),
    );
    expect(
      await badPlanLines({
        sql: 'select * from risks where organization_id = ? order by created_at desc, id desc limit 21',
        args: ['org_x'],
      }),
    ).toEqual([]);
  });
});
