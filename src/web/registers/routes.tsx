// The register pages' routes: the organization's summary, each register's list, exports and record pages. Every
// page reads through the register's tools (webCalls), never SQL; `:register` matches only the register slugs.
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppError } from '../../errors.ts';
import type { ChangeRow } from '../../tools/changes.ts';
import {
  cellText,
  exportColumnsOf,
  nameBookOf,
  recordName,
  referencedKinds,
} from '../../tools/imports/export-columns.ts';
import { listChanges, REGISTERS, type RegisterTools } from '../../tools/index.ts';
import { addDays } from '../../tools/overdue.ts';
import type { RegisterKind } from '../../tools/registers/spec.ts';
import type { RiskMethod } from '../../tools/risk-method.ts';
import { getSettingsTool } from '../../tools/settings.ts';
import { summaryTool } from '../../tools/summary.ts';
import { CSV_BOM, csvLine } from '../../tools/tables/csv-writer.ts';
import { createXlsxWriter } from '../../tools/tables/xlsx-writer.ts';
import { membershipOf } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { EvidenceDownload, EvidenceSection, evidenceOfRecord } from '../evidence.tsx';
import { downloadResponse, type Page, streamPages } from '../export.ts';
import { listMembers } from '../queries.ts';
import { carriesTasks, TasksSection, tasksOfRecord } from '../record-tasks.tsx';
import {
  EXPIRING_DAYS,
  RECORD_PATH,
  REGISTER_PAGES,
  REGISTER_PATH,
  type RecordSectionOf,
  type RegisterPage,
  registerPageBySlug,
} from '../register-pages.ts';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { type NameIndex, type WebCalls, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';
import { Backlinks, backlinksOf } from './backlinks.tsx';
import { DOCUMENT_OWN_FIELDS, DocumentDetails, documentDetailsOf } from './document-details.tsx';
import type { HeatMap } from './heat-map.tsx';
import { IncidentClocks } from './incident-clocks.tsx';
import { listOptions, RegisterListPage, readListQuery, toolArguments } from './list-page.tsx';
import { recordOfProcessingPdf, recordOfProcessingXlsx } from './record-of-processing.ts';
import { RECORD_HISTORY_SIZE, type RecordHistory, RecordPage } from './record-page.tsx';
import { type RegisterMatches, SEARCH_MATCHES_PER_REGISTER, SearchPage } from './search-page.tsx';
import { type FirstSteps, type Summary, SummaryPage } from './summary-page.tsx';
import { refKinds } from './values.tsx';

type Row = Record<string, unknown>;

/** Records per page of an export: the list tools' largest page. */
const EXPORT_PAGE_SIZE = 100;

/** Every record of a register, read a page at a time through its list tool (for the names an export writes). */
async function* everyRecord(
  calls: WebCalls,
  tools: RegisterTools,
  organizationId: string,
): AsyncGenerator<Row> {
  let cursor: string | undefined;
  do {
    const result = await calls.run(tools.list, {
      organization_id: organizationId,
      size: EXPORT_PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    yield* (result[tools.spec.listKey] as Row[] | undefined) ?? [];
    cursor = (result.next_cursor as string | null | undefined) ?? undefined;
  } while (cursor);
}

/** The registers referenced by these fields of a page's records. */
function kindsOf(page: RegisterPage, fields: Iterable<string>): Set<RegisterKind> {
  return new Set([...fields].flatMap((field) => refKinds(page, field)));
}

function toolErrorPage(c: Context<WebEnv>, error: AppError, membership: Membership) {
  if (error.code === 'not_found') return notFoundPage(c, viewerOf(c));
  return errorPage(c, error.status as 400, 'Something went wrong', error.message, viewerOf(c), {
    kind: 'organization',
    organizationId: membership.organizationId,
    page: 'overview',
  });
}

/** The membership and register page of the URL, or null (not a member, or not a register). */
function pageOfUrl(c: Context<WebEnv>): { membership: Membership; page: RegisterPage } | null {
  const membership = membershipOf(c, c.req.param('org') ?? '');
  const page = registerPageBySlug(c.req.param('register') ?? '');
  return membership && page ? { membership, page } : null;
}

/**
 * The record pages' extra sections from other page groups, by kind (a framework's coverage and requirement tree):
 * the web's root passes them in, so this group imports no other.
 */
export type RecordSections = Partial<Record<RegisterKind, RecordSectionOf>>;

export function registerPageRoutes(deps: WebDeps, sections: RecordSections = {}): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  web.get('/orgs/:org', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const userId = c.get('user').id;
    const calls = webCalls(c, deps);
    const today = deps.now().toISOString().slice(0, 10);
    const [outcome, documentsDue, members, tokens, clients, expiring] = await Promise.all([
      calls.read(summaryTool, { organization_id: membership.organizationId }),
      calls.run(REGISTERS.document.list, {
        organization_id: membership.organizationId,
        filter: { review_due: true },
        size: 1,
      }),
      listMembers(deps.database.db, membership.organizationId),
      deps.tokens.list(userId),
      deps.oauth.grants.listForUser(userId),
      calls.run(REGISTERS.evidence.list, {
        organization_id: membership.organizationId,
        filter: { expired: false, expiring_before: addDays(today, EXPIRING_DAYS) },
        size: 1,
      }),
    ]);
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    const steps: FirstSteps = {
      invited: members.length > 1,
      connected: tokens.some((token) => token.state === 'active') || clients.length > 0,
    };
    return sendPage(
      c,
      <SummaryPage
        viewer={viewerOf(c)}
        membership={membership}
        summary={outcome.result as unknown as Summary}
        documentsDue={Number(documentsDue.total_count ?? 0)}
        steps={steps}
        expiringEvidence={Number(expiring.total_count)}
      />,
    );
  });

  web.get(REGISTER_PATH, async (c) => {
    const found = pageOfUrl(c);
    if (!found) return notFoundPage(c, viewerOf(c));
    const { membership, page } = found;
    const calls = webCalls(c, deps);
    const options = listOptions(page);
    const query = readListQuery(c, page, options);
    const kinds = kindsOf(page, [...page.columns, ...options.filters.map((field) => field.name)]);
    // The heat map of the organization's risks, from the summary tool (one grouped query over an index).
    const heatMapOf = async (): Promise<HeatMap | undefined> => {
      const outcome = await calls.read(summaryTool, { organization_id: membership.organizationId });
      if (!outcome.ok) return undefined;
      const { risks } = outcome.result as unknown as Summary;
      return { ...risks.heat_map, method: risks.method };
    };
    const [outcome, names, heatMap] = await Promise.all([
      calls.read(page.tools.list, toolArguments(membership.organizationId, page, query, options)),
      kinds.size > 0 ? calls.names(membership.organizationId, kinds) : Promise.resolve<NameIndex>(new Map()),
      page.kind === 'risk' ? heatMapOf() : Promise.resolve(undefined),
    ]);
    const common = { viewer: viewerOf(c), membership, page, options, query, names, heatMap };
    if (!outcome.ok) {
      if (outcome.error.code !== 'invalid_arguments') return toolErrorPage(c, outcome.error, membership);
      return sendPage(
        c,
        <RegisterListPage {...common} rows={[]} total={0} nextCursor={null} error={outcome.error.message} />,
        400,
      );
    }
    const rows = (outcome.result[page.spec.listKey] as Row[] | undefined) ?? [];
    return sendPage(
      c,
      <RegisterListPage
        {...common}
        rows={rows}
        total={Number(outcome.result.total_count ?? rows.length)}
        totalCapped={outcome.result.total_count_capped === true}
        nextCursor={(outcome.result.next_cursor as string | null | undefined) ?? null}
      />,
    );
  });

  /**
   * The register's records matching the page's filters and sort, as CSV, XLSX or JSON, streamed page by page (keyset)
   * so that no export holds more than one page in memory. The first page goes through the seam (checked, logged once
   * as this export); the rest page on from its cursor. CSV and XLSX are readable (labels, values in words, records
   * named: the names of the registers it refers to are read first) unless `?headers=api` asks for the API's names.
   */
  async function exportRegister(c: Context<WebEnv>, format: 'csv' | 'json' | 'xlsx') {
    const found = pageOfUrl(c);
    if (!found) return notFoundPage(c, viewerOf(c));
    const { membership, page } = found;
    const calls = webCalls(c, deps);
    const options = listOptions(page);
    const query = { ...readListQuery(c, page, options), cursor: undefined };
    const args = {
      ...toolArguments(membership.organizationId, page, query, options),
      size: EXPORT_PAGE_SIZE,
    };
    const outcome = await calls.read(page.tools.list, args);
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    const pageOf = (result: Row): Page<Row> => ({
      rows: (result[page.spec.listKey] as Row[] | undefined) ?? [],
      nextCursor: (result.next_cursor as string | null | undefined) ?? null,
    });
    const next = async (cursor: string) => pageOf(await calls.run(page.tools.list, { ...args, cursor }));
    const onError = (error: unknown) => deps.invoke.logError(c.get('requestId'), error);
    const first = pageOf(outcome.result);
    const download = (body: ReadableStream<Uint8Array>) =>
      downloadResponse(body, {
        organizationName: membership.name,
        what: page.slug,
        date: deps.now(),
        format,
      });
    if (format === 'json') {
      let written = 0;
      return download(
        streamPages<Row>({
          first,
          next,
          head: '[',
          encode: (rows) =>
            rows.map((row) => `${written++ === 0 ? '' : ','}\n${JSON.stringify(row)}`).join(''),
          tail: '\n]\n',
          onError,
        }),
      );
    }
    const headers = c.req.query('headers') === 'api' ? 'api' : 'labels';
    const book =
      headers === 'labels'
        ? await nameBookOf(
            [...referencedKinds(page.spec)].map((kind) => REGISTERS[kind]),
            (tools) => everyRecord(calls, tools, membership.organizationId),
          )
        : new Map();
    const columns = exportColumnsOf(page.tools, headers, book);
    const cellsOf = (row: Row) => columns.map((column) => column.cell(row));
    if (format === 'csv')
      return download(
        streamPages<Row>({
          first,
          next,
          head: CSV_BOM + csvLine(columns.map((column) => column.header)),
          encode: (rows) => rows.map((row) => csvLine(cellsOf(row).map(cellText))).join(''),
          tail: '',
          onError,
        }),
      );
    const sheet = createXlsxWriter(page.title);
    return download(
      streamPages<Row>({
        first,
        next,
        head: sheet.header(columns.map((column) => column.header)),
        encode: (rows) => sheet.rows(rows.map(cellsOf)),
        tail: () => sheet.finish(),
        onError,
      }),
    );
  }

  web.get(`${REGISTER_PATH}/export.csv`, (c) => exportRegister(c, 'csv'));
  web.get(`${REGISTER_PATH}/export.xlsx`, (c) => exportRegister(c, 'xlsx'));
  web.get(`${REGISTER_PATH}/export.json`, (c) => exportRegister(c, 'json'));

  /** The GDPR Art. 30 record of the organization's processing activities, as XLSX or PDF. */
  async function recordOfProcessingDownload(c: Context<WebEnv>, format: 'xlsx' | 'pdf') {
    const found = pageOfUrl(c);
    if (found?.page.kind !== 'processing_activity') return notFoundPage(c, viewerOf(c));
    const { membership } = found;
    const calls = webCalls(c, deps);
    const settings = await calls.read(getSettingsTool, { organization_id: membership.organizationId });
    if (!settings.ok) return toolErrorPage(c, settings.error, membership);
    const collect = async (tools: RegisterTools) => {
      const rows: Row[] = [];
      for await (const row of everyRecord(calls, tools, membership.organizationId)) rows.push(row);
      return rows;
    };
    const names = new Map<string, string>();
    for (const tools of [REGISTERS.vendor, REGISTERS.measure])
      for (const row of await collect(tools)) names.set(String(row.id), recordName(tools.spec, row));
    const activities = (await collect(REGISTERS.processing_activity)).sort((a, b) =>
      String(a.name).localeCompare(String(b.name)),
    );
    const record = {
      organization: membership.name,
      contact: ((settings.result.settings as Row | undefined)?.privacy_contact as string | null) ?? null,
      activities,
      names,
      createdAt: deps.now(),
    };
    const body = format === 'pdf' ? [recordOfProcessingPdf(record)] : recordOfProcessingXlsx(record);
    return downloadResponse(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of body) controller.enqueue(chunk);
          controller.close();
        },
      }),
      { organizationName: membership.name, what: 'art30-record', date: deps.now(), format },
    );
  }

  web.get(`${REGISTER_PATH}/art30.xlsx`, (c) => recordOfProcessingDownload(c, 'xlsx'));
  web.get(`${REGISTER_PATH}/art30.pdf`, (c) => recordOfProcessingDownload(c, 'pdf'));

  // Every register's text filter at once: the first matches of each, linking to the register filtered the same way.
  web.get('/orgs/:org/search', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const query = (c.req.query('q') ?? '').trim();
    const calls = webCalls(c, deps);
    const searchable = REGISTER_PAGES.filter((page) =>
      listOptions(page).filters.some((field) => field.name === 'query'),
    );
    const viewer = viewerOf(c);
    if (!query)
      return sendPage(c, <SearchPage viewer={viewer} membership={membership} query="" results={[]} />);
    try {
      const results = await Promise.all(
        searchable.map(async (page): Promise<RegisterMatches> => {
          const result = await calls.run(page.tools.list, {
            organization_id: membership.organizationId,
            filter: { query },
            size: SEARCH_MATCHES_PER_REGISTER,
          });
          const rows = (result[page.spec.listKey] as Row[] | undefined) ?? [];
          return {
            page,
            rows,
            total: Number(result.total_count ?? rows.length),
            capped: result.total_count_capped === true,
          };
        }),
      );
      return sendPage(
        c,
        <SearchPage viewer={viewer} membership={membership} query={query} results={results} />,
      );
    } catch {
      // The list tools refuse what their text filter cannot take (too long, no word in it).
      return sendPage(
        c,
        <SearchPage
          viewer={viewer}
          membership={membership}
          query={query}
          results={[]}
          error="Search for one or more words of at most 200 characters in all."
        />,
        400,
      );
    }
  });

  web.get(RECORD_PATH, async (c) => {
    const found = pageOfUrl(c);
    if (!found) return notFoundPage(c, viewerOf(c));
    const { membership, page } = found;
    const calls = webCalls(c, deps);
    const id = c.req.param('id') ?? '';
    if (!id.startsWith(`${page.spec.prefix}_`)) return notFoundPage(c, viewerOf(c));
    const outcome = await calls.read(page.tools.get, { id });
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    const record = outcome.result[page.spec.key] as Row | undefined;
    // The tool only returns records of the person's organizations; the URL must also name the right one.
    if (!record || record.organization_id !== membership.organizationId) return notFoundPage(c, viewerOf(c));
    const kinds = kindsOf(page, Object.keys(record));
    const tasksShown = carriesTasks(page.kind);
    const [names, changes, details, backlinks, linkedTasks, levels] = await Promise.all([
      kinds.size > 0 ? calls.names(membership.organizationId, kinds) : Promise.resolve<NameIndex>(new Map()),
      calls.read(listChanges, {
        organization_id: membership.organizationId,
        filter: { record_id: id },
        size: RECORD_HISTORY_SIZE,
      }),
      sections[page.kind]
        ? sections[page.kind]?.(c, calls, membership, id)
        : page.kind === 'document'
          ? documentDetailsOf(c, calls, membership, record, outcome.result.download_url).then((data) => (
              <DocumentDetails membership={membership} data={data} csrfToken={c.get('session').csrfToken} />
            ))
          : Promise.resolve(undefined),
      backlinksOf(calls, membership.organizationId, page, id, tasksShown ? ['task'] : []),
      tasksShown ? tasksOfRecord(calls, membership.organizationId, id) : Promise.resolve(null),
      page.kind === 'risk' ? riskLevelsOf(calls, membership.organizationId) : Promise.resolve(undefined),
    ]);
    const carriesEvidence = (page.spec.relations ?? []).some((relation) => relation.field === 'evidence_ids');
    const evidence = carriesEvidence ? await evidenceOfRecord(calls, membership.organizationId, id) : null;
    const history: RecordHistory = changes.ok
      ? {
          changes: changes.result.changes as ChangeRow[],
          total: Number(changes.result.total_count),
          more: changes.result.next_cursor !== null,
        }
      : { changes: [], total: 0, more: false, error: changes.error.message };
    return sendPage(
      c,
      <RecordPage
        viewer={viewerOf(c)}
        membership={membership}
        page={page}
        levels={levels}
        record={record}
        names={names}
        history={history}
        hiddenFields={page.kind === 'document' ? DOCUMENT_OWN_FIELDS : []}
        details={
          <>
            {page.kind === 'incident' && (
              <IncidentClocks
                membership={membership}
                incidentId={id}
                clocks={outcome.result.clocks as never}
                timeZone={String(outcome.result.time_zone)}
              />
            )}
            <Backlinks links={backlinks} />
            {page.kind === 'evidence' && <EvidenceDownload result={outcome.result} />}
            {linkedTasks && (
              <TasksSection membership={membership} kind={page.kind} recordId={id} {...linkedTasks} />
            )}
            {evidence && (
              <EvidenceSection viewer={viewerOf(c)} membership={membership} recordId={id} items={evidence} />
            )}
            {details}
          </>
        }
      />,
    );
  });

  return web;
}

/** The organization's risk levels (its risk method), for a risk's page; undefined when the settings cannot be read. */
async function riskLevelsOf(calls: ReturnType<typeof webCalls>, organizationId: string) {
  const outcome = await calls.read(getSettingsTool, { organization_id: organizationId });
  return outcome.ok ? (outcome.result.settings as { risk_method: RiskMethod }).risk_method.levels : undefined;
}
