// Adopting built-in catalogues, and the crosswalk proposals a second one brings, timed in process on an embedded
// database (issue targets: ISO/IEC 27001:2022 under 1 s, every catalogue under 10 s, the proposals for 5,000 mapped
// measures under 5 s). Run by `npm run bench -- --catalogs`, and after the frameworks rows (`--frameworks`).
import { newId } from '../src/ids.ts';
import { CATALOG_KEYS } from '../src/tools/catalogs/builtin.ts';
import { callDirect } from '../test/contract/host.ts';
import { createScratchRuntime } from './scratch-runtime.ts';

const TARGETS = { iso: 1, all: 10, proposals: 5 } as const;
const MEASURES = 5000;

type Row = Record<string, unknown>;

export interface CatalogTiming {
  name: string;
  seconds: number;
  target: number;
  detail: string;
}

export async function catalogTimings(): Promise<CatalogTiming[]> {
  const scratch = await createScratchRuntime('catalogs');
  try {
    const { runtime } = scratch;
    const fetcher = { fetch: async (request: Request) => runtime.app.fetch(request) };
    const call = async (token: string, tool: string, args: Row) => {
      const answer = await callDirect(fetcher, token, tool, args);
      if (answer.status !== 200)
        throw new Error(`${tool}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      return answer.body as Row;
    };
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now();
      const result = await work();
      return { result, seconds: (performance.now() - started) / 1000 };
    };
    const rows: CatalogTiming[] = [];

    const first = await scratch.owner('iso@example.com', 'ISO only');
    const iso = await timed(() =>
      call(first.token, 'importFrameworkCatalog', {
        organization_id: first.organizationId,
        catalog: 'iso-27001-2022',
      }),
    );
    rows.push({
      name: 'adopt ISO/IEC 27001:2022 (importFrameworkCatalog {catalog})',
      seconds: iso.seconds,
      target: TARGETS.iso,
      detail: `${(iso.result.counts as Row).created} requirements and sections`,
    });

    const every = await scratch.owner('all@example.com', 'Every catalogue');
    let created = 0;
    const all = await timed(async () => {
      for (const key of CATALOG_KEYS) {
        const answer = await call(every.token, 'importFrameworkCatalog', {
          organization_id: every.organizationId,
          catalog: key,
        });
        created += Number((answer.counts as Row).created);
      }
    });
    rows.push({
      name: `adopt all ${CATALOG_KEYS.length} catalogues, one after the other`,
      seconds: all.seconds,
      target: TARGETS.all,
      detail: `${created} requirements and sections`,
    });

    // 5,000 measures, each mapped to one of ISO's assessable requirements, written straight into the tables; then
    // SOC 2 adopted: its import and the proposals the ISO-SOC 2 crosswalk makes for every mapped measure.
    const mapped = await scratch.owner('proposals@example.com', 'Proposals');
    const org = mapped.organizationId;
    await call(mapped.token, 'importFrameworkCatalog', { organization_id: org, catalog: 'iso-27001-2022' });
    const requirements = await scratch.database.client.execute({
      sql: 'select id from requirements where organization_id = ? and is_section = 0 order by reference',
      args: [org],
    });
    const now = new Date().toISOString();
    const statements = [];
    for (let i = 0; i < MEASURES; i++) {
      const id = newId('msr');
      const requirement = String(requirements.rows[i % requirements.rows.length]?.id);
      statements.push(
        {
          sql: `insert into measures (id, organization_id, name, category, state, created_at, updated_at)
                values (?, ?, ?, 'Technical', 'IMPLEMENTED', ?, ?)`,
          args: [id, org, `Measure ${i}`, now, now],
        },
        {
          sql: 'insert into requirement_measures (requirement_id, measure_id, organization_id, created_at) values (?, ?, ?, ?)',
          args: [requirement, id, org, now],
        },
      );
    }
    await scratch.database.client.batch(statements, 'write');
    const soc2 = await timed(() =>
      call(mapped.token, 'importFrameworkCatalog', { organization_id: org, catalog: 'soc2-2017' }),
    );
    const proposals = soc2.result.proposals as { created: number } | null;
    rows.push({
      name: `adopt SOC 2 with ${MEASURES.toLocaleString('en')} measures mapped to ISO: import and crosswalk proposals`,
      seconds: soc2.seconds,
      target: TARGETS.proposals,
      detail: `${proposals?.created ?? 0} mappings proposed`,
    });
    const again = await timed(() =>
      call(mapped.token, 'proposeMappings', { organization_id: org, dry_run: true }),
    );
    rows.push({
      name: `proposeMappings over the same ${MEASURES.toLocaleString('en')} measures (dry run: all already proposed)`,
      seconds: again.seconds,
      target: TARGETS.proposals,
      detail: JSON.stringify(again.result.counts ?? again.result).slice(0, 80),
    });
    return rows;
  } finally {
    scratch.close();
  }
}

/** Prints the rows as a table; answers how many missed their target. */
export function printCatalogTimings(rows: CatalogTiming[]): number {
  console.log('');
  console.log('| built-in catalogues (in process, embedded file) | time | target | |');
  console.log('|---|---|---|---|');
  let failed = 0;
  for (const row of rows) {
    const ok = row.seconds <= row.target;
    if (!ok) failed++;
    console.log(
      `| ${ok ? 'PASS' : 'FAIL'} ${row.name} | ${row.seconds.toFixed(2)} s | <= ${row.target} s | ${row.detail} |`,
    );
  }
  return failed;
}

if (process.argv.includes('--catalogs')) {
  const failed = printCatalogTimings(await catalogTimings());
  console.log(failed > 0 ? `FAIL: ${failed} row(s) missed their target` : 'PASS: every row met its target');
  process.exit(failed > 0 ? 1 : 0);
}
