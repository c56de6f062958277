// Frameworks at scale (`npm run bench -- --frameworks`, and after the list rows of `--scale`): one organization with
// 10 frameworks, 10,000 requirements and 5,000 measures with 20,000 links against one with 100 requirements; the
// first statement-of-applicability page, one framework's coverage and listRequirements must stay within 1.5x of the
// small one over loopback. Then the import of a 1,220-entry OSCAL catalog (the size of SP 800-53 rev5 with its
// enhancements) on Node within 10 s, and the size of tools/list (all tools <= 15,000 tokens, default <= 10,000).
// Readiness (issue 35): the large organization also holds 100,000 evidence items on its measures (a tenth expired)
// and 20,000 control tests (the small one 1,000 and 200); the statement's first page, the coverage and "implemented
// but not ready" (listMeasures, the statement filtered by readiness) read them. Audits: the first framework has three
// audits with checklists; getAuditProgramme and listAuditChecklist are shown (INFO) for what they cost.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createOrganization, createUser } from '../src/accounts.ts';
import { noTokenCache } from '../src/auth/token-cache.ts';
import { createTokenService } from '../src/auth/tokens.ts';
import { importFrameworkFile } from '../src/cli/framework-file.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { newId } from '../src/ids.ts';
import { referenceKey } from '../src/tools/requirements.ts';
import { oscalCatalog } from '../test/catalogs.ts';
import { catalogTimings, printCatalogTimings } from './bench-catalogs.ts';
import { bestLoad, formatLoad, type Load, postLoad, startChildProcess } from './bench-load.ts';

const ROUNDS = 3;
const RATIO_TARGET = 1.5;
const IMPORT_SECONDS_TARGET = 10;
const TOKENS_ALL_TARGET = 15_000;
const TOKENS_DEFAULT_TARGET = 10_000;

interface Shape {
  frameworks: number;
  requirementsPerFramework: number;
  measures: number;
  links: number;
  evidence: number;
  tests: number;
}

const LARGE: Shape = {
  frameworks: 10,
  requirementsPerFramework: 1000,
  measures: 5000,
  links: 20_000,
  evidence: 100_000,
  tests: 20_000,
};
const SMALL: Shape = {
  frameworks: 1,
  requirementsPerFramework: 100,
  measures: 50,
  links: 200,
  evidence: 1000,
  tests: 200,
};
const SECTIONS = 10;
const MEASURE_STATES = ['NOT_STARTED', 'IN_PROGRESS', 'IMPLEMENTED', 'IMPLEMENTED', 'NOT_APPLICABLE'];

/** An organization of `shape`, written straight into a file database (the link triggers derive the statuses). */
async function seed(databaseUrl: string, shape: Shape) {
  const database = await openNodeDatabase(databaseUrl);
  await migrateDatabase(database);
  const now = new Date().toISOString();
  const user = await createUser(database.db, new Date(), {
    emailVerified: true,
    email: 'frameworks@example.com',
    password: 'bench pw 12',
  });
  const organization = await createOrganization(database.db, new Date(), {
    name: 'Frameworks',
    ownerId: user.id,
  });
  const org = organization.id;
  const { token } = await createTokenService({
    db: database.db,
    cache: noTokenCache,
    cacheTtlSeconds: 0,
    now: () => new Date(),
  }).create({
    userId: user.id,
    name: 'frameworks bench',
    // read_write: tools/list is measured with every tool, as a read_write client sees it.
    scope: 'read_write',
    organizationIds: null,
    expiresAt: null,
  });
  const frameworkIds = Array.from({ length: shape.frameworks }, () => newId('fwk'));
  const requirementIds: string[] = [];
  // The first framework's requirements: the audits below have them in scope.
  const auditedIds: string[] = [];
  const statements: { sql: string; args: (string | number | null)[] }[] = [];
  for (const [f, frameworkId] of frameworkIds.entries()) {
    statements.push({
      sql: 'insert into frameworks (id, organization_id, name, version, created_at, updated_at) values (?, ?, ?, ?, ?, ?)',
      args: [frameworkId, org, `Framework ${f + 1}`, '2026', now, now],
    });
    const perSection = Math.floor(shape.requirementsPerFramework / SECTIONS) - 1;
    for (let s = 1; s <= SECTIONS; s++) {
      const sectionId = newId('req');
      const row = (
        id: string,
        reference: string,
        parent: string | null,
        section: string | null,
        isSection: number,
        position: number,
        excluded: boolean,
      ) => ({
        sql: 'insert into requirements (id, organization_id, framework_id, reference, reference_key, title, description, parent_id, section_id, is_section, position, applicability, justification, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        args: [
          id,
          org,
          frameworkId,
          reference,
          referenceKey(reference),
          `Title of ${reference}`,
          `What ${reference} requires.`,
          parent,
          section,
          isSection,
          position,
          excluded ? 'EXCLUDED' : 'APPLICABLE',
          excluded ? 'Out of scope.' : null,
          now,
          now,
        ],
      });
      statements.push(row(sectionId, `S${s}`, null, null, 1, s, false));
      for (let r = 1; r <= perSection; r++) {
        const id = newId('req');
        requirementIds.push(id);
        if (f === 0) auditedIds.push(id);
        statements.push(row(id, `S${s}.${r}`, sectionId, sectionId, 0, r, r % 20 === 7));
      }
    }
  }
  const measureIds = Array.from({ length: shape.measures }, () => newId('msr'));
  for (const [m, id] of measureIds.entries()) {
    // Readiness expectations: most require evidence, one in three is tested every 90 days.
    statements.push({
      sql: 'insert into measures (id, organization_id, name, category, state, evidence_required, test_interval_days, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      args: [
        id,
        org,
        `Measure ${m}`,
        'General',
        MEASURE_STATES[m % MEASURE_STATES.length] ?? 'NOT_STARTED',
        m % 4 === 3 ? 0 : 1,
        m % 3 === 0 ? 90 : null,
        now,
        now,
      ],
    });
  }
  // Evidence spread over the measures (a tenth expired), and control tests (one in eight not effective).
  const today = now.slice(0, 10);
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  for (let e = 0; e < shape.evidence; e++) {
    const id = newId('evd');
    statements.push(
      {
        sql: 'insert into evidence (id, organization_id, title, kind, url, collected_on, valid_until, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        args: [
          id,
          org,
          `Evidence ${e}`,
          'LINK',
          `https://evidence.example.com/${e}`,
          today,
          e % 10 === 0 ? day(-30) : day(365),
          now,
          now,
        ],
      },
      {
        sql: 'insert into evidence_records (evidence_id, record_id, organization_id) values (?, ?, ?)',
        args: [id, measureIds[(e * 31) % measureIds.length] as string, org],
      },
    );
  }
  const tester = newId('per');
  statements.push({
    sql: "insert into people (id, organization_id, full_name, email, kind, created_at, updated_at) values (?, ?, 'Tess Tester', 'tess@example.com', 'EMPLOYEE', ?, ?)",
    args: [tester, org, now, now],
  });
  for (let t = 0; t < shape.tests; t++) {
    statements.push({
      sql: 'insert into control_tests (id, organization_id, measure_id, tester_id, tested_on, method, result, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      args: [
        newId('ctt'),
        org,
        measureIds[(t * 17) % measureIds.length] as string,
        tester,
        day(-(t % 120)),
        'INSPECTION',
        t % 8 === 5 ? 'NOT_EFFECTIVE' : 'EFFECTIVE',
        now,
        now,
      ],
    });
  }
  // Links spread over the requirements: each requirement gets a few, some none (the gaps).
  const seen = new Set<string>();
  for (let l = 0; seen.size < shape.links; l++) {
    const requirement = requirementIds[(l * 7919) % requirementIds.length] as string;
    const measure = measureIds[(l * 104_729) % measureIds.length] as string;
    const key = `${requirement} ${measure}`;
    if (seen.has(key)) continue;
    seen.add(key);
    statements.push({
      sql: 'insert into requirement_measures (requirement_id, measure_id, organization_id, created_at) values (?, ?, ?, ?)',
      args: [requirement, measure, org, now],
    });
  }
  // Three audits of the first framework over three years, each with two thirds of it in scope and a checklist result
  // for every requirement in scope (one in five NOT_AUDITED): getAuditProgramme reads them per requirement.
  const auditIds = [-900, -500, -60].map((offset, a) => {
    const id = newId('aud');
    statements.push({
      sql: "insert into audits (id, organization_id, framework_id, name, state, audit_type, actual_start_on, actual_end_on, created_at, updated_at) values (?, ?, ?, ?, 'COMPLETED', 'INTERNAL', ?, ?, ?, ?)",
      args: [
        id,
        org,
        frameworkIds[0] as string,
        `Internal audit ${a + 1}`,
        day(offset),
        day(offset + 2),
        now,
        now,
      ],
    });
    for (const [r, requirement] of auditedIds.entries()) {
      if (r % 3 === a) continue;
      statements.push(
        {
          sql: 'insert into audit_requirements (audit_id, requirement_id, organization_id) values (?, ?, ?)',
          args: [id, requirement, org],
        },
        {
          sql: 'insert into audit_checklist_results (audit_id, requirement_id, organization_id, result, notes, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
          args: [id, requirement, org, r % 5 === 4 ? 'NOT_AUDITED' : 'CONFORMING', 'Sampled.', now, now],
        },
      );
    }
    return id;
  });
  for (let at = 0; at < statements.length; at += 5000)
    await database.client.batch(statements.slice(at, at + 5000), 'write');
  await database.client.execute('ANALYZE');
  database.client.close();
  return { token, org, frameworkId: frameworkIds[0] as string, auditId: auditIds[2] as string };
}

type Seeded = Awaited<ReturnType<typeof seed>>;

function cases(seeded: Seeded) {
  return [
    {
      name: 'getStatementOfApplicability, first page',
      tool: 'getStatementOfApplicability',
      body: { framework_id: seeded.frameworkId },
    },
    {
      name: 'getFrameworkCoverage, one framework',
      tool: 'getFrameworkCoverage',
      body: { framework_id: seeded.frameworkId },
    },
    { name: 'listRequirements, first page', tool: 'listRequirements', body: { organization_id: seeded.org } },
    {
      name: 'listMeasures, implemented but not ready',
      tool: 'listMeasures',
      // The small organization has 2 implemented measures not ready (the large 250): pages of 2 rows at both sizes,
      // so the row compares the cost of finding them, not of presenting 2 rows against 20.
      body: {
        organization_id: seeded.org,
        filter: { state: 'IMPLEMENTED', readiness: 'NOT_READY' },
        size: 2,
      },
    },
    {
      name: 'getStatementOfApplicability, implemented but not ready',
      tool: 'getStatementOfApplicability',
      body: {
        framework_id: seeded.frameworkId,
        filter: { implementation_status: ['IMPLEMENTED'], readiness: 'NOT_READY' },
      },
    },
    {
      name: 'getAuditProgramme, one framework, 3 audits',
      tool: 'getAuditProgramme',
      body: { framework_id: seeded.frameworkId },
    },
    {
      name: 'listAuditChecklist, first page of an audit',
      tool: 'listAuditChecklist',
      body: { audit_id: seeded.auditId },
    },
    {
      name: 'listRequirements, gaps of one framework',
      tool: 'listRequirements',
      body: {
        organization_id: seeded.org,
        filter: { framework_id: seeded.frameworkId, implementation_status: ['NOT_COVERED'] },
      },
    },
  ];
}

/** The median latency of 15 calls made one after the other (after 3 to warm up), and whether all answered 200. */
async function sequentialMedian(
  url: string,
  body: unknown,
  token: string,
): Promise<{ ms: number; ok: boolean }> {
  const times: number[] = [];
  let ok = true;
  for (let call = 0; call < 18; call++) {
    const started = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    if (response.status !== 200) ok = false;
    if (call >= 3) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? Number.NaN, ok };
}

/** The tools/list answer's size in tokens (chars / 4) at `path`. */
async function toolsListTokens(
  url: string,
  token: string,
  path: string,
): Promise<{ tools: number; tokens: number }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const text = await response.text();
  return {
    tools: (JSON.parse(text) as { result: { tools: unknown[] } }).result.tools.length,
    tokens: Math.ceil(text.length / 4),
  };
}

async function importTiming(
  dir: string,
): Promise<{ entries: number; seconds: number; again: number; heapMb: number }> {
  const url = `file:${join(dir, 'import.db')}`;
  const database = await openNodeDatabase(url);
  await migrateDatabase(database);
  const user = await createUser(database.db, new Date(), {
    emailVerified: true,
    email: 'import@example.com',
    password: 'bench pw 12',
  });
  const organization = await createOrganization(database.db, new Date(), {
    name: 'Import',
    ownerId: user.id,
  });
  const file = join(dir, 'catalog.json');
  writeFileSync(file, oscalCatalog({ groups: 20, controls: 20, enhancements: 2 }));
  const options = {
    organizationId: organization.id,
    frameworkId: undefined,
    name: 'SP 800-53 sized',
    version: undefined,
    format: 'oscal' as const,
    file,
    dryRun: false,
    removeMissing: false,
  };
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const first = await importFrameworkFile(database.db, () => new Date(), options);
  const seconds = (performance.now() - t0) / 1000;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  const t1 = performance.now();
  await importFrameworkFile(database.db, () => new Date(), options);
  const again = (performance.now() - t1) / 1000;
  database.client.close();
  return { entries: first.counts.created, seconds, again, heapMb };
}

export async function benchFrameworks(options: { seconds: number }): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-frameworks-'));
  const children: ChildProcess[] = [];
  let failed = 0;
  const verdict = (ok: boolean) => {
    if (!ok) failed += 1;
    return ok ? 'PASS' : 'FAIL';
  };
  try {
    const hosts: { label: string; seeded: Seeded; url: string }[] = [];
    for (const [label, shape] of [
      ['100 requirements', SMALL],
      ['10,000 requirements', LARGE],
    ] as const) {
      const databaseUrl = `file:${join(dir, `${label.replace(/\D/g, '')}.db`)}`;
      const t0 = Date.now();
      const seeded = await seed(databaseUrl, shape);
      console.log(
        `seeded ${label} (${shape.frameworks} frameworks, ${shape.measures} measures, ${shape.links} links, ${shape.evidence} evidence, ${shape.tests} tests) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      const node = await startChildProcess(
        [resolve('bin/run-ts.js'), resolve('scripts/bench.ts'), '--serve-node', databaseUrl],
        /LISTENING (\S+)/,
        children,
      );
      hosts.push({ label, seeded, url: node.url });
    }
    const [small, large] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    console.log('');
    console.log(`| frameworks, 10 connections over loopback | at 100 | at 10,000 | 10,000 / 100 | target |`);
    console.log('|---|---|---|---|---|');
    const smallCases = cases(small.seeded);
    const largeCases = cases(large.seeded);
    for (const [index, item] of smallCases.entries()) {
      const other = largeCases[index];
      if (!other) continue;
      let atSmall: Load | undefined;
      let atLarge: Load | undefined;
      for (let round = 0; round < ROUNDS; round++) {
        if (round === 0) {
          await postLoad(`${small.url}/api/mcp/tools/${item.tool}`, item.body, small.seeded.token, 10, 1);
          await postLoad(`${large.url}/api/mcp/tools/${other.tool}`, other.body, large.seeded.token, 10, 1);
        }
        atSmall = bestLoad(
          atSmall,
          await postLoad(
            `${small.url}/api/mcp/tools/${item.tool}`,
            item.body,
            small.seeded.token,
            10,
            options.seconds,
          ),
        );
        atLarge = bestLoad(
          atLarge,
          await postLoad(
            `${large.url}/api/mcp/tools/${other.tool}`,
            other.body,
            large.seeded.token,
            10,
            options.seconds,
          ),
        );
      }
      if (!atSmall || !atLarge) continue;
      const clean = atSmall.errors + atSmall.non2xx + atLarge.errors + atLarge.non2xx === 0;
      const ratio = atLarge.meanMs / atSmall.meanMs;
      // The first five rows are the issues' targets; the gaps query is shown for what it costs.
      const targeted = index < 5;
      const mark = targeted ? verdict(ratio <= RATIO_TARGET && clean) : clean ? 'INFO' : verdict(false);
      console.log(
        `| ${mark} ${item.name} | ${atSmall.meanMs.toFixed(2)} ms (${atSmall.requestsPerSecond.toFixed(0)}/s) | ${atLarge.meanMs.toFixed(2)} ms (${atLarge.requestsPerSecond.toFixed(0)}/s) | ${ratio.toFixed(2)}x | ${targeted ? `<= ${RATIO_TARGET}x` : '-'} |`,
      );
      if (!clean) console.log(`  errors: ${formatLoad(atSmall)} / ${formatLoad(atLarge)}`);
    }
    // One call at a time: the median of a case's latencies, which a machine shared with other work skews less than a
    // saturating load does.
    console.log('');
    console.log(
      '| frameworks, one call at a time (median of 15) | at 100 | at 10,000 | 10,000 / 100 | target |',
    );
    console.log('|---|---|---|---|---|');
    for (const [index, item] of smallCases.entries()) {
      const other = largeCases[index];
      if (!other) continue;
      const atSmall = await sequentialMedian(
        `${small.url}/api/mcp/tools/${item.tool}`,
        item.body,
        small.seeded.token,
      );
      const atLarge = await sequentialMedian(
        `${large.url}/api/mcp/tools/${other.tool}`,
        other.body,
        large.seeded.token,
      );
      const ratio = atLarge.ms / atSmall.ms;
      const clean = atSmall.ok && atLarge.ok;
      const targeted = index < 5;
      const mark = targeted ? verdict(ratio <= RATIO_TARGET && clean) : clean ? 'INFO' : verdict(false);
      console.log(
        `| ${mark} ${item.name} | ${atSmall.ms.toFixed(2)} ms | ${atLarge.ms.toFixed(2)} ms | ${ratio.toFixed(2)}x | ${targeted ? `<= ${RATIO_TARGET}x` : '-'} |`,
      );
    }
    const all = await toolsListTokens(large.url, large.seeded.token, '/api/mcp/v1?toolsets=all');
    const byDefault = await toolsListTokens(large.url, large.seeded.token, '/api/mcp/v1');
    console.log('');
    console.log(
      `${verdict(all.tokens <= TOKENS_ALL_TARGET)} tools/list, all ${all.tools} tools: ${all.tokens.toLocaleString('en')} tokens (chars/4), target <= ${TOKENS_ALL_TARGET.toLocaleString('en')}`,
    );
    console.log(
      `${verdict(byDefault.tokens <= TOKENS_DEFAULT_TARGET)} tools/list, default ${byDefault.tools} tools: ${byDefault.tokens.toLocaleString('en')} tokens (chars/4), target <= ${TOKENS_DEFAULT_TARGET.toLocaleString('en')}`,
    );
    for (const child of children) child.kill('SIGTERM');
    const timing = await importTiming(dir);
    console.log(
      `${verdict(timing.seconds <= IMPORT_SECONDS_TARGET)} import of a ${timing.entries}-entry OSCAL catalog on Node: ${timing.seconds.toFixed(2)} s (<= ${IMPORT_SECONDS_TARGET} s), again (all unchanged) ${timing.again.toFixed(2)} s, heap +${timing.heapMb.toFixed(0)} MB`,
    );
    failed += printCatalogTimings(await catalogTimings());
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  return failed;
}

if (process.argv.includes('--frameworks') && !process.argv.includes('--scale')) {
  const index = process.argv.indexOf('--seconds');
  const failed = await benchFrameworks({ seconds: index >= 0 ? Number(process.argv[index + 1]) : 2 });
  console.log(failed > 0 ? `FAIL: ${failed} row(s) missed their target` : 'PASS: every row met its target');
  process.exit(0);
}
