// The assurance registers at scale (issue: acknowledgements, access reviews, vendor assessments, questionnaires): "who
// has not acknowledged" a document version among 10,000 people asked for each of 20 documents, a reviewer's open
// entries of a 50,000-entry access review, the vendors due for assessment among 5,000 vendors with 20 assessments
// each, the vendors whose contract renews within 90 days, and the questionnaires awaiting answers or whose link ran
// out unanswered among 4 sent to each vendor. Each
// is the list tool's first page (with its total count), timed in process, best of RUNS, at the full size and at 1/100
// of it; the target is the full size within 1.5x of the small one. `npm run bench -- --assurance`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOLS } from '../src/tools/index.ts';
import { contextOutsideSeam } from '../src/tools/types.ts';
import { prepareRiskSeed, type RiskSeed } from './bench-seed.ts';

const TARGET_RATIO = 1.5;
const RUNS = 9;
const DOCUMENTS = 20;
const ASSESSMENTS_PER_VENDOR = 20;
const REVIEWERS = 10;
const QUESTIONNAIRES_PER_VENDOR = 4;
/** The bench's today (its clock below): renewals within 90 days are those before this day. */
const RENEWAL_HORIZON = '2027-02-26';

interface Size {
  people: number;
  entries: number;
  vendors: number;
}

const FULL: Size = { people: 10_000, entries: 50_000, vendors: 5_000 };
const SMALL: Size = { people: 100, entries: 500, vendors: 50 };

/** An id of the project's shape (prefix, 24 characters of the id alphabet) from a number. */
const idSql = (prefix: string, expression: string) => `'${prefix}_' || printf('%024d', ${expression})`;

/** Seeds the three registers with SQL (a recursive counter per table), in one transaction. */
async function seed(target: RiskSeed, size: Size): Promise<void> {
  const org = target.organizationId;
  const at = '2026-01-01T00:00:00.000Z';
  const counter = (n: number) =>
    `with recursive n(i) as (select 0 union all select i + 1 from n where i < ${n - 1})`;
  const statements = [
    // People, and the documents they are asked to acknowledge (version 1, published).
    `${counter(size.people)} insert into people (id, organization_id, full_name, email, kind, created_at, updated_at)
       select ${idSql('per', 'i')}, '${org}', 'Person ' || i, 'person' || i || '@example.com', 'EMPLOYEE', '${at}', '${at}' from n`,
    `${counter(DOCUMENTS)} insert into documents (id, organization_id, title, type, status, version, created_at, updated_at)
       select ${idSql('doc', 'i')}, '${org}', 'Policy ' || i, 'POLICY', 'PUBLISHED', 1, '${at}', '${at}' from n`,
    `${counter(DOCUMENTS)} insert into document_versions (id, organization_id, document_id, number, status, created_at)
       select ${idSql('dov', 'i')}, '${org}', ${idSql('doc', 'i')}, 1, 'PUBLISHED', '${at}' from n`,
    `${counter(DOCUMENTS)} insert into acknowledgement_requests (id, organization_id, document_id, version_number, audience, created_at)
       select ${idSql('akr', 'i')}, '${org}', ${idSql('doc', 'i')}, 1, 'ALL', '${at}' from n`,
    // Every person asked for every document; every other one has acknowledged.
    `${counter(size.people * DOCUMENTS)} insert into acknowledgements (id, organization_id, request_id, document_id, version_number, person_id, acknowledged_at, method, created_at)
       select ${idSql('ack', 'i')}, '${org}', ${idSql('akr', `i % ${DOCUMENTS}`)}, ${idSql('doc', `i % ${DOCUMENTS}`)}, 1,
         ${idSql('per', `i / ${DOCUMENTS}`)}, case when (i / ${DOCUMENTS}) % 2 = 0 then '${at}' end,
         case when (i / ${DOCUMENTS}) % 2 = 0 then 'LINK' end, '${at}' from n`,
    // One campaign in progress; its entries spread over REVIEWERS reviewers, one in three decided.
    `insert into access_reviews (id, organization_id, name, status, created_at, updated_at)
       values (${idSql('arv', '0')}, '${org}', 'Quarterly review', 'IN_PROGRESS', '${at}', '${at}')`,
    `${counter(size.entries)} insert into access_review_entries (id, organization_id, access_review_id, account, system, reviewer_id, decision, created_at, updated_at)
       select ${idSql('are', 'i')}, '${org}', ${idSql('arv', '0')}, 'account' || i || '@corp.example', 'System ' || (i % 40),
         ${idSql('per', `i % ${REVIEWERS}`)}, case when i % 3 = 0 then 'KEEP' end, '${at}', '${at}' from n`,
    // Vendors with their assessments: one in ten has every assessment expired (due), the others one valid.
    // Their contracts renew over the next three years, one a day.
    `${counter(size.vendors)} insert into vendors (id, organization_id, name, category, renewal_on, created_at, updated_at)
       select ${idSql('ven', 'i')}, '${org}', 'Vendor ' || i, 'OTHER', date('2026-11-28', '+' || ((i * 7) % 1095) || ' days'),
         '${at}', '${at}' from n`,
    // Questionnaires sent to each vendor: a quarter answered, half awaiting answers, a quarter whose link ran out.
    `${counter(size.vendors * QUESTIONNAIRES_PER_VENDOR)} insert into vendor_questionnaires (id, organization_id, vendor_id, template_id, title, questions, contact_name, contact_email, due_date, secret_hash, link_expires_at, answers, score, answered_at, created_at)
       select ${idSql('vqn', 'i')}, '${org}', ${idSql('ven', `i / ${QUESTIONNAIRES_PER_VENDOR}`)}, ${idSql('qtp', '0')}, 'Starter', '[]',
         'Contact ' || i, 'contact' || i || '@vendor.example', case when i % 4 = 2 then '2026-10-01' else '2026-12-15' end,
         printf('%064d', i), case when i % 4 = 2 then '2026-10-15T00:00:00.000Z' else '2026-12-31T00:00:00.000Z' end,
         case when i % 2 = 0 and i % 4 <> 2 then '[]' end, case when i % 2 = 0 and i % 4 <> 2 then 80 end,
         case when i % 2 = 0 and i % 4 <> 2 then '2026-11-01T00:00:00.000Z' end, '${at}' from n`,
    `${counter(size.vendors * ASSESSMENTS_PER_VENDOR)} insert into vendor_assessments (id, organization_id, vendor_id, assessed_on, assessor_id, result, tier, expires_on, created_at, updated_at)
       select ${idSql('vas', 'i')}, '${org}', ${idSql('ven', `i / ${ASSESSMENTS_PER_VENDOR}`)},
         date('2020-01-01', '+' || (i % ${ASSESSMENTS_PER_VENDOR}) || ' months'), ${idSql('per', '0')}, 'APPROVED', 'MEDIUM',
         case when (i / ${ASSESSMENTS_PER_VENDOR}) % 10 <> 0 and i % ${ASSESSMENTS_PER_VENDOR} = ${ASSESSMENTS_PER_VENDOR - 1}
           then '2099-01-01' else date('2021-01-01', '+' || (i % ${ASSESSMENTS_PER_VENDOR}) || ' months') end,
         '${at}', '${at}' from n`,
    'analyze',
  ];
  await target.database.client.batch(statements, 'write');
}

interface Case {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** The list key of the answer, to count what the page held. */
  key: string;
}

function cases(organizationId: string): Case[] {
  return [
    {
      name: 'who has not acknowledged a version (listAcknowledgements PENDING)',
      tool: 'listAcknowledgements',
      args: {
        organization_id: organizationId,
        filter: { document_id: `doc_${'0'.repeat(24)}`, version: 1, status: 'PENDING' },
      },
      key: 'acknowledgements',
    },
    {
      name: "a reviewer's open entries (listAccessReviewEntries)",
      tool: 'listAccessReviewEntries',
      args: {
        organization_id: organizationId,
        filter: { reviewer_id: `per_${'0'.repeat(23)}1`, decided: false },
      },
      key: 'access_review_entries',
    },
    {
      name: 'vendors due for assessment (listVendors)',
      tool: 'listVendors',
      args: { organization_id: organizationId, filter: { assessment_due_before: '2026-11-28' } },
      key: 'vendors',
    },
    {
      name: 'vendors with contracts renewing within 90 days (listVendors)',
      tool: 'listVendors',
      args: {
        organization_id: organizationId,
        filter: { renewal_before: RENEWAL_HORIZON },
        order_by: { field: 'renewal_on', direction: 'ASC' },
      },
      key: 'vendors',
    },
    {
      name: 'questionnaires awaiting answers (listVendorQuestionnaires PENDING)',
      tool: 'listVendorQuestionnaires',
      args: { organization_id: organizationId, filter: { status: 'PENDING' } },
      key: 'vendor_questionnaires',
    },
    {
      name: 'questionnaires whose link ran out unanswered (listVendorQuestionnaires EXPIRED)',
      tool: 'listVendorQuestionnaires',
      args: { organization_id: organizationId, filter: { status: 'EXPIRED' } },
      key: 'vendor_questionnaires',
    },
  ];
}

interface Timed {
  ms: number;
  items: number;
  total: number;
}

async function timeCases(target: RiskSeed): Promise<Map<string, Timed>> {
  const ctx = contextOutsideSeam(
    target.database.db,
    {
      tokenId: 'bench',
      userId: target.userId,
      scope: 'read',
      roles: { [target.organizationId]: 'OWNER' },
      expiresAt: null,
    },
    () => new Date('2026-11-28T12:00:00.000Z'),
    'direct',
  );
  const times = new Map<string, Timed>();
  for (const item of cases(target.organizationId)) {
    const tool = TOOLS.get(item.tool);
    if (!tool) throw new Error(`no tool ${item.tool}`);
    const input = tool.input.parse(item.args);
    let best: Timed = { ms: Number.POSITIVE_INFINITY, items: 0, total: 0 };
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const page = (await tool.run(ctx, input)) as Record<string, unknown>;
      const ms = performance.now() - started;
      if (ms < best.ms)
        best = { ms, items: (page[item.key] as unknown[]).length, total: Number(page.total_count ?? 0) };
    }
    times.set(item.name, best);
  }
  return times;
}

const dir = mkdtempSync(join(tmpdir(), 'cmcp-assurance-'));
try {
  const bySize = new Map<Size, Map<string, Timed>>();
  for (const size of [SMALL, FULL]) {
    const target = await prepareRiskSeed(`file:${join(dir, `assurance-${size.people}.db`)}`);
    const started = Date.now();
    await seed(target, size);
    console.log(
      `seeded ${size.people.toLocaleString('en')} people x ${DOCUMENTS} documents of acknowledgements, ${size.entries.toLocaleString('en')} access review entries, ${size.vendors.toLocaleString('en')} vendors x ${ASSESSMENTS_PER_VENDOR} assessments and ${QUESTIONNAIRES_PER_VENDOR} questionnaires in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    bySize.set(size, await timeCases(target));
    target.close();
  }
  console.log('');
  console.log(
    '| assurance registers, in process (first page, total count) | 1/100 | full | ratio | target |',
  );
  console.log('|---|---|---|---|---|');
  let failed = 0;
  for (const { name } of cases('')) {
    const small = bySize.get(SMALL)?.get(name) as Timed;
    const full = bySize.get(FULL)?.get(name) as Timed;
    const ratio = full.ms / small.ms;
    const ok = ratio <= TARGET_RATIO;
    if (!ok) failed++;
    const cell = (timed: Timed) => `${timed.ms.toFixed(2)} ms (${timed.items} of ${timed.total})`;
    console.log(
      `| ${ok ? 'PASS' : '**FAIL**'} ${name} | ${cell(small)} | ${cell(full)} | ${ratio.toFixed(2)}x | <= ${TARGET_RATIO}x |`,
    );
  }
  console.log(failed > 0 ? `FAIL: ${failed} row(s) missed their target` : 'PASS: every row met its target');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
