// filter.query through the FTS5 trigram indexes: whatever a user types is one literal string (never an SQL or FTS
// syntax error), the index follows adds, updates and deletes, short text falls back to LIKE, and total_count is
// counted on the first page up to its cap, then carried by the cursor.
import { createClient } from '@libsql/client';
import { and, asc, eq, getTableName, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { risks } from '../../src/db/schema.ts';
import { newId } from '../../src/ids.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { TOTAL_COUNT_CAP } from '../../src/tools/pagination.ts';
import { FOLDS_TO_ASCII, foldedQuery, searchTableName, textSearch } from '../../src/tools/search.ts';
import {
  type Actor,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  ok,
  type TestRuntime,
} from '../helpers.ts';

type Risk = { id: string; name: string };
type RiskPage = {
  risks: Risk[];
  next_cursor: string | null;
  total_count: number;
  total_count_capped: boolean;
};

let runtime: TestRuntime;
let alice: Actor;

beforeAll(async () => {
  runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  alice = await createActor(runtime, 'alice');
});

afterAll(async () => runtime?.cleanup());

async function scope() {
  const org = await createOrg(runtime, alice, 'Search Org');
  const token = await createToken(runtime, alice, { organizationIds: [org] });
  return {
    org,
    token,
    async addRisk(name: string, description: string | null = null): Promise<string> {
      const result = await ok<{ risk: { id: string } }>(runtime, token, 'addRisk', {
        organization_id: org,
        name,
        description,
        inherent_likelihood: 2,
        inherent_impact: 3,
      });
      return result.risk.id;
    },
    list(args: Record<string, unknown>) {
      return ok<RiskPage>(runtime, token, 'listRisks', { organization_id: org, ...args });
    },
    async names(query: string): Promise<string[]> {
      const page = await ok<RiskPage>(runtime, token, 'listRisks', {
        organization_id: org,
        filter: { query },
        size: 100,
        order_by: { field: 'name', direction: 'ASC' },
      });
      return page.risks.map((risk) => risk.name);
    },
  };
}

// What users type that means something to FTS5 or SQL. Each is one literal string.
const ODD = [
  '"',
  '""',
  '"unterminated',
  'foo"bar',
  "it's",
  '*',
  'back*',
  'NEAR(a b)',
  'a NEAR b',
  '-foo',
  'foo -bar',
  '(',
  ')',
  '(a OR b)',
  'a AND b',
  'OR',
  'NOT x',
  '^start',
  'name:foo',
  '{name description}:x',
  ';drop table risks;--',
  '\\',
  '%',
  '_',
  '%_%',
  '🔥🔥🔥',
  '🔥',
  'Straße',
  // Stored descriptions keep tabs but drop other control characters (normalizeText), so a tab is the control here.
  'a\tb',
  'x'.repeat(200),
];

describe('filter.query', () => {
  it('takes every odd input literally: no error, and exactly the records containing it', async () => {
    const s = await scope();
    const records = ODD.map((text, index) => ({ name: `R${index + 10}`, description: `<${text}>` }));
    for (const record of records) await s.addRisk(record.name, record.description);
    for (const [index, text] of ODD.entries()) {
      const needle = text.toLowerCase();
      const expected = records
        .filter((record) => `${record.name}\n${record.description}`.toLowerCase().includes(needle))
        .map((record) => record.name)
        .sort();
      expect(await s.names(text), `query ${JSON.stringify(text)}`).toEqual(expected);
      expect(expected).toContain(records[index]?.name);
    }
  });

  it('refuses an empty query and one over 200 characters as invalid_arguments', async () => {
    const s = await scope();
    for (const query of ['', '   ', 'x'.repeat(201)]) {
      const result = await callDirect(runtime, s.token, 'listRisks', {
        organization_id: s.org,
        filter: { query },
      });
      expect(result.status, JSON.stringify(query)).toBe(400);
      expect((result.body as { error: { code: string } }).error.code).toBe('invalid_arguments');
    }
  });

  it('matches substrings inside words, in any letter case, Unicode included (3+ characters)', async () => {
    const s = await scope();
    await s.addRisk('Ransomware on backups', 'Encrypted by attackers');
    await s.addRisk('Ünïcode Straße outage');
    await s.addRisk('Other');
    expect(await s.names('SOMWAR')).toEqual(['Ransomware on backups']);
    expect(await s.names('crypted BY')).toEqual(['Ransomware on backups']);
    expect(await s.names('ünïCODE')).toEqual(['Ünïcode Straße outage']);
    expect(await s.names('ÜNÏ')).toEqual(['Ünïcode Straße outage']);
    // The whole text is one string: words in another order or apart do not match.
    expect(await s.names('backups on')).toEqual([]);
    expect(await s.names('ransomware backups')).toEqual([]);
  });

  it('finds 1- and 2-character text too (without the index), case-insensitive for ASCII letters', async () => {
    const s = await scope();
    await s.addRisk('Alpha', 'qz');
    await s.addRisk('Beta');
    expect(await s.names('QZ')).toEqual(['Alpha']);
    expect(await s.names('a')).toEqual(['Alpha', 'Beta']);
    expect(await s.names('ph')).toEqual(['Alpha']);
    expect(await s.names('%')).toEqual([]);
  });

  it('follows updates and deletes, and stays within the organization', async () => {
    const s = await scope();
    const other = await scope();
    const id = await s.addRisk('Flooded basement');
    await other.addRisk('Flooded basement');
    expect(await s.names('flooded')).toEqual(['Flooded basement']);
    await ok(runtime, s.token, 'updateRisk', { id, name: 'Burst pipe', description: 'kitchen' });
    expect(await s.names('flooded')).toEqual([]);
    expect(await s.names('burst')).toEqual(['Burst pipe']);
    expect(await s.names('kitchen')).toEqual(['Burst pipe']);
    await ok(runtime, s.token, 'updateRisk', { id, clear: ['description'] });
    expect(await s.names('kitchen')).toEqual([]);
    await ok(runtime, s.token, 'deleteRisk', { id });
    expect(await s.names('burst')).toEqual([]);
    expect(await other.names('flooded')).toEqual(['Flooded basement']);
  });

  it('has an FTS table with triggers for every searched register, consistent with its rows', async () => {
    const client = runtime.database.client;
    for (const spec of REGISTER_SPECS.filter((item) => item.search?.length)) {
      const fts = searchTableName(spec.table);
      const table = getTableName(spec.table);
      const triggers = await client.execute({
        sql: "select name from sqlite_master where type = 'trigger' and tbl_name = ? order by name",
        args: [table],
      });
      expect(triggers.rows.map((row) => row.name)).toEqual(
        expect.arrayContaining([`${fts}_delete`, `${fts}_insert`, `${fts}_update`]),
      );
      const columns = await client.execute(`select name from pragma_table_info('${fts}')`);
      expect(columns.rows.map((row) => row.name)).toEqual(spec.search?.map((column) => column.name));
      // Raises if the index does not match the table's rows.
      await client.execute(`insert into "${fts}"("${fts}", rank) values ('integrity-check', 1)`);
    }
  });
});

describe('the trigram index and the row tests', () => {
  // A dense filter.query tests rows with LIKE (ASCII letters folded), and a row not all ASCII with the index at that
  // row (or, for short text, GLOB with each letter's folds): they must find exactly what the index finds (Unicode
  // case and Latin diacritics folded). The query is folded with FOLDED_LETTERS: every code point is tried against an
  // index made as the migrations make them, one row per code point.
  it('folds exactly the characters of FOLDED_LETTERS to ASCII letters, no others', async () => {
    const client = createClient({ url: ':memory:' });
    await client.execute(`create virtual table t using fts5(x, tokenize='trigram remove_diacritics 1')`);
    await client.execute(`with recursive n(i) as (select 128 union all select i + 1 from n where i < 1114111)
      insert into t(rowid, x) select i, '<' || char(i) || '>' from n where i < 55296 or i > 57343`);
    const found: [string, string][] = [];
    // The index folds to lower case: upper-case ASCII letters need no query of their own.
    for (let code = 0x20; code < 0x7f; code++) {
      const ascii = String.fromCharCode(code);
      if (ascii !== ascii.toLowerCase()) continue;
      const phrase = `"<${ascii.replace('"', '""')}>"`;
      const hits = await client.execute({ sql: 'select rowid from t where t match ?', args: [phrase] });
      for (const row of hits.rows) found.push([String.fromCodePoint(Number(row.rowid)), ascii]);
    }
    client.close();
    expect(found.sort()).toEqual([...FOLDS_TO_ASCII].sort());
    expect(FOLDS_TO_ASCII.length).toBeGreaterThan(400);
    for (const [character, letter] of FOLDS_TO_ASCII) expect(foldedQuery(character)).toBe(letter);
  }, 60_000);

  it('finds accented text from a query without accents and the reverse, in every form, dense or sparse', async () => {
    const s = await scope();
    await s.addRisk('Sécurité des données', 'Über Ændringer og Ærø');
    await s.addRisk('ÉCOLE fermée');
    await s.addRisk('Security review');
    await s.addRisk('Straße', 'ſecret Kelvin K');
    // 3+ characters (the index, and the row test at each row), then 1-2 characters (LIKE and GLOB).
    expect(await s.names('securite')).toEqual(['Sécurité des données']);
    expect(await s.names('SÉCURITÉ')).toEqual(['Sécurité des données']);
    expect(await s.names('securi')).toEqual(['Security review', 'Sécurité des données']);
    expect(await s.names('ecole')).toEqual(['ÉCOLE fermée']);
    expect(await s.names('Fermee')).toEqual(['ÉCOLE fermée']);
    expect(await s.names('uber')).toEqual(['Sécurité des données']);
    expect(await s.names('secret')).toEqual(['Straße']);
    expect(await s.names('kelvin k')).toEqual(['Straße']);
    // Not folded by the index: æ, ß.
    expect(await s.names('aendringer')).toEqual([]);
    expect(await s.names('strasse')).toEqual([]);
    expect(await s.names('straße')).toEqual(['Straße']);
    expect(await s.names('é')).toEqual(await s.names('e'));
    expect(await s.names('É')).toContain('Security review');
    expect(await s.names('fe')).toEqual(['ÉCOLE fermée']);
    expect(await s.names('ée')).toEqual(['Sécurité des données', 'ÉCOLE fermée']);
    expect(await s.names('*')).toEqual([]);
    expect(await s.names('?')).toEqual([]);
    expect(await s.names('[')).toEqual([]);
  });

  it('finds the same rows by each form: index matches, the row test, the short-text test', async () => {
    const s = await scope();
    const names = ['Café crème', 'CAFE', 'cafè', 'Caff', 'Kafé', 'café'];
    for (const name of names) await s.addRisk(name);
    const forms = async (query: string) => {
      const search = textSearch(risks, [risks.name, risks.description], query);
      const where = (test: SQL) =>
        runtime.database.db
          .select({ name: risks.name })
          .from(risks)
          .where(and(eq(risks.organization_id, s.org), test))
          .orderBy(asc(risks.name));
      const byTest = (await where(search.rowTest)).map((row) => row.name);
      const byIndex = search.index ? (await where(search.index.matches)).map((row) => row.name) : byTest;
      return { byTest, byIndex };
    };
    for (const query of ['cafe', 'CAFÉ', 'afé', 'fe', 'é', 'ff', 'kaf']) {
      const { byTest, byIndex } = await forms(query);
      expect(byTest, query).toEqual(byIndex);
      const expected = names
        .filter((name) => foldedQuery(name).toLowerCase().includes(foldedQuery(query).toLowerCase()))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(byTest, query).toEqual(expected);
    }
  });
});

describe('total_count', () => {
  it('is exact up to the cap, then the cap with total_count_capped; later pages carry it', async () => {
    const s = await scope();
    const now = new Date().toISOString();
    const rows = Array.from({ length: TOTAL_COUNT_CAP + 5 }, (_, index) => ({
      sql: `insert into risks (id, organization_id, name, description, category, status, treatment,
              inherent_likelihood, inherent_impact, inherent_score, residual_likelihood, residual_impact,
              residual_score, created_at, updated_at) values (?, ?, ?, ?, 'General', 'OPEN', 'MITIGATE', 1, 1, 1, 1, 1, 1, ?, ?)`,
      args: [newId('rsk'), s.org, `Bulk ${index}`, index % 100 === 0 ? 'rare needle' : null, now, now],
    }));
    await runtime.database.client.batch(rows, 'write');

    const first = await s.list({ size: 10 });
    expect(first.total_count).toBe(TOTAL_COUNT_CAP);
    expect(first.total_count_capped).toBe(true);
    const rare = await s.list({ filter: { query: 'needle' }, size: 3 });
    expect(rare.total_count).toBe(11);
    expect(rare.total_count_capped).toBe(false);

    // Carried: a record added between pages does not change the count of the walk that started before it.
    await s.addRisk('Late needle');
    const second = await s.list({ filter: { query: 'needle' }, size: 3, cursor: rare.next_cursor });
    expect(second.total_count).toBe(11);
    expect(second.risks).toHaveLength(3);
    // A new walk counts again.
    expect((await s.list({ filter: { query: 'needle' }, size: 3 })).total_count).toBe(12);
    // The cursor used with another filter: counted for that filter, not taken from the cursor.
    const other = await s.list({ filter: { query: 'Late' }, size: 3, cursor: rare.next_cursor });
    expect(other.total_count).toBe(1);
  });
});
