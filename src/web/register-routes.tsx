// Registers and the compliance summary: every page calls the tool map (listX/getX/getComplianceSummary), never SQL.
import type { Context, Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppError } from '../errors.ts';
import { invokeTool } from '../surfaces/invoke.ts';
import { jsonSchemasOf } from '../surfaces/schemas.ts';
import type { ChangeRow } from '../tools/changes.ts';
import { type RegisterKind, recordSchema } from '../tools/register.ts';
import { contextOutsideSeam, type Tool } from '../tools/types.ts';
import { type Membership, type WebDeps, type WebEnv, webPrincipal } from './context.ts';
import { CSV_BOM, csvLine, downloadResponse, type Page, streamPages } from './export.ts';
import { type HeatMap, RiskHeatMaps } from './heat-map.tsx';
import { HistoryTable } from './history.tsx';
import { Badge, Layout, Notice, Pager, Time, type Viewer } from './layout.tsx';
import { membershipOf } from './organization-routes.tsx';
import { AddRecordLink, RecordActions } from './record-form-routes.tsx';
import {
  displayName,
  fieldLabel,
  type RegisterPage,
  registerPageByKind,
  registerPageBySlug,
} from './register-pages.ts';
import { errorPage, notFoundPage, sendPage } from './render.tsx';
import { viewerOf } from './viewer.ts';

const PAGE_SIZE = 25;
/** Records per page of an export: the list tools' largest page. */
const EXPORT_PAGE_SIZE = 100;

/** The CSV columns of a register: its record's fields in the tool's order, without the organization. */
function exportColumns(page: RegisterPage): string[] {
  return Object.keys(recordSchema(page.spec).shape).filter((field) => field !== 'organization_id');
}
type Row = Record<string, unknown>;

// ---- filters, derived from the list tool's own input schema -------------------------------------------------

interface FilterField {
  name: string;
  label: string;
  kind: 'text' | 'enum' | 'integer' | 'boolean';
  options: string[];
  min?: number;
  max?: number;
  description: string;
}

interface JsonSchema {
  type?: string;
  enum?: string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
  description?: string;
}

const filterFieldsCache = new WeakMap<Tool, { filters: FilterField[]; orderFields: string[] }>();

/** The filters and sort fields a list tool accepts, read from its JSON Schema so the page offers exactly those. */
function listOptions(tool: Tool): { filters: FilterField[]; orderFields: string[] } {
  const cached = filterFieldsCache.get(tool);
  if (cached) return cached;
  const input = jsonSchemasOf(tool).input as JsonSchema;
  const filterProperties = input.properties?.filter?.properties ?? {};
  const filters = Object.entries(filterProperties).map(([name, schema]): FilterField => {
    const enumValues = schema.enum ?? schema.anyOf?.find((option) => option.enum)?.enum;
    const base = { name, label: fieldLabel(name), options: [], description: schema.description ?? '' };
    if (enumValues) return { ...base, kind: 'enum', options: enumValues };
    if (schema.type === 'boolean') return { ...base, kind: 'boolean' };
    if (schema.type === 'integer' || schema.type === 'number') {
      return {
        ...base,
        kind: 'integer',
        ...(schema.minimum !== undefined ? { min: schema.minimum } : {}),
        ...(schema.maximum !== undefined ? { max: schema.maximum } : {}),
      };
    }
    return { ...base, kind: 'text' };
  });
  const orderFields = input.properties?.order_by?.properties?.field?.enum ?? [];
  const options = { filters, orderFields };
  filterFieldsCache.set(tool, options);
  return options;
}

interface ListQuery {
  filter: Record<string, string>;
  sort: string | undefined;
  direction: 'ASC' | 'DESC';
  cursor: string | undefined;
}

function readListQuery(c: Context, page: RegisterPage, options: ReturnType<typeof listOptions>): ListQuery {
  const filter: Record<string, string> = {};
  for (const field of options.filters) {
    const value = c.req.query(field.name)?.trim();
    if (value) filter[field.name] = value;
  }
  const sortParam = c.req.query('sort');
  const sort = sortParam && options.orderFields.includes(sortParam) ? sortParam : page.defaultOrder?.field;
  const directionParam = c.req.query('direction');
  const direction =
    directionParam === 'ASC' || directionParam === 'DESC'
      ? directionParam
      : (page.defaultOrder?.direction ?? 'DESC');
  return { filter, sort, direction, cursor: c.req.query('cursor') || undefined };
}

/** Query-string values become the tool's argument types; anything odd is passed on for the tool to reject clearly. */
function toolArguments(
  organizationId: string,
  query: ListQuery,
  options: ReturnType<typeof listOptions>,
): Row {
  const filter: Row = {};
  for (const field of options.filters) {
    const raw = query.filter[field.name];
    if (raw === undefined) continue;
    if (field.kind === 'integer') filter[field.name] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
    // Several values of an enum, comma-separated (e.g. every status but CLOSED from the heat map): any of them.
    else if (field.kind === 'enum' && raw.includes(','))
      filter[field.name] = raw.split(',').map((value) => value.trim());
    else if (field.kind === 'boolean')
      filter[field.name] = raw === 'true' ? true : raw === 'false' ? false : raw;
    else filter[field.name] = raw;
  }
  return {
    organization_id: organizationId,
    size: PAGE_SIZE,
    ...(Object.keys(filter).length > 0 ? { filter } : {}),
    ...(query.sort ? { order_by: { field: query.sort, direction: query.direction } } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}

function queryString(query: ListQuery, cursor?: string | null): string {
  const params = new URLSearchParams(query.filter);
  if (query.sort) {
    params.set('sort', query.sort);
    params.set('direction', query.direction);
  }
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text ? `?${text}` : '';
}

// ---- presenting values ------------------------------------------------------------------------------------

const STATE_TONES: Record<string, 'ok' | 'warn' | 'bad'> = {
  IMPLEMENTED: 'ok',
  COMPLIANT: 'ok',
  CLOSED: 'ok',
  MITIGATED: 'ok',
  COMPLETED: 'ok',
  ACCEPTED: 'ok',
  IN_PROGRESS: 'warn',
  IN_TREATMENT: 'warn',
  PARTIALLY_COMPLIANT: 'warn',
  OPEN: 'bad',
  NON_COMPLIANT: 'bad',
  REJECTED: 'bad',
  HIGH: 'bad',
  MEDIUM: 'warn',
  SECRET: 'bad',
  CONFIDENTIAL: 'warn',
};
const BADGE_FIELDS = new Set([
  'status',
  'state',
  'treatment',
  'classification',
  'priority',
  'kind',
  'type',
  'asset_type',
  'category',
]);

function scoreTone(score: number): 'ok' | 'warn' | 'bad' {
  return score >= 15 ? 'bad' : score >= 8 ? 'warn' : 'ok';
}

type NameIndex = Map<string, { name: string; href: string; kind: RegisterKind }>;

/** Which register a field points into (owner_id -> person, vendor_ids -> vendor, ...). */
function refKind(page: RegisterPage, field: string): RegisterKind | undefined {
  const spec = page.spec;
  return spec.fields[field]?.ref ?? spec.relations?.find((relation) => relation.field === field)?.target;
}

function Reference({ id, names }: { id: string; names: NameIndex }) {
  const found = names.get(id);
  return found ? <a href={found.href}>{found.name}</a> : <code class="small">{id}</code>;
}

function Value({
  page,
  field,
  value,
  names,
  full,
}: {
  page: RegisterPage;
  field: string;
  value: unknown;
  names: NameIndex;
  full?: boolean;
}): Child {
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  if (refKind(page, field)) {
    const ids = Array.isArray(value) ? value.map(String) : [String(value)];
    if (ids.length === 0) return <span class="muted">—</span>;
    return (
      <>
        {ids.map((id, index) => (
          <>
            {index > 0 && ', '}
            <Reference id={id} names={names} />
          </>
        ))}
      </>
    );
  }
  if (field === 'overdue')
    return value === true ? <Badge tone="bad">overdue</Badge> : <span class="muted">no</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value))
    return value.length === 0 ? <span class="muted">—</span> : value.map(String).join(', ');
  if (typeof value === 'number')
    return field.endsWith('_score') ? <Badge tone={scoreTone(value)}>{value}</Badge> : String(value);
  const textValue = String(value);
  if (BADGE_FIELDS.has(field))
    return <Badge tone={STATE_TONES[textValue]}>{textValue.replace(/_/g, ' ')}</Badge>;
  if (field.endsWith('_url') && /^https?:\/\//i.test(textValue)) {
    return (
      <a href={textValue} rel="noopener noreferrer nofollow">
        {full ? textValue : textValue.replace(/^https?:\/\//i, '').replace(/\/$/, '')}
      </a>
    );
  }
  if (field === 'created_at' || field === 'updated_at') return <Time iso={textValue} />;
  if (!full && textValue.length > 140) return `${textValue.slice(0, 137)}…`;
  return textValue;
}

// ---- pages --------------------------------------------------------------------------------------------------

function FilterForm({
  page,
  base,
  options,
  query,
  names,
}: {
  page: RegisterPage;
  base: string;
  options: ReturnType<typeof listOptions>;
  query: ListQuery;
  names: NameIndex;
}) {
  return (
    <form method="get" action={base} class="card" aria-label={`Filter ${page.title.toLowerCase()}`}>
      <div class="row">
        {options.filters.map((field) => {
          const id = `filter-${field.name}`;
          const value = query.filter[field.name] ?? '';
          const target = refKind(page, field.name);
          if (target) {
            // An id filter (owner_id, framework_id): choose by name among the register's records.
            const choices = [...names]
              .filter(([, entry]) => entry.kind === target)
              .map(([id, entry]) => ({ id, name: entry.name }))
              .sort((a, b) => a.name.localeCompare(b.name));
            if (value && !choices.some((choice) => choice.id === value))
              choices.push({ id: value, name: value });
            return (
              <div class="field">
                <label for={id}>{field.label}</label>
                <select id={id} name={field.name}>
                  <option value="">Any</option>
                  {choices.map((choice) => (
                    <option value={choice.id} selected={choice.id === value}>
                      {choice.name}
                    </option>
                  ))}
                </select>
              </div>
            );
          }
          if (field.kind === 'enum' || field.kind === 'boolean') {
            const values = field.kind === 'boolean' ? ['true', 'false'] : field.options;
            return (
              <div class="field">
                <label for={id}>{field.label}</label>
                <select id={id} name={field.name}>
                  <option value="">Any</option>
                  {value && !values.includes(value) && (
                    <option value={value} selected>
                      {value.replace(/_/g, ' ').replace(/,/g, ', ')}
                    </option>
                  )}
                  {values.map((option) => (
                    <option value={option} selected={option === value}>
                      {field.kind === 'boolean'
                        ? option === 'true'
                          ? 'Yes'
                          : 'No'
                        : option.replace(/_/g, ' ')}
                    </option>
                  ))}
                </select>
              </div>
            );
          }
          return (
            <div class="field">
              <label for={id}>{field.label}</label>
              <input
                id={id}
                name={field.name}
                type={field.kind === 'integer' ? 'number' : field.name === 'query' ? 'search' : 'text'}
                value={value}
                min={field.min}
                max={field.max}
                title={field.description}
              />
            </div>
          );
        })}
        {options.orderFields.length > 0 && (
          <>
            <div class="field">
              <label for="sort">Sort by</label>
              <select id="sort" name="sort">
                {options.orderFields.map((field) => (
                  <option value={field} selected={field === (query.sort ?? 'created_at')}>
                    {fieldLabel(field)}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="direction">Order</label>
              <select id="direction" name="direction">
                <option value="DESC" selected={query.direction === 'DESC'}>
                  Descending
                </option>
                <option value="ASC" selected={query.direction === 'ASC'}>
                  Ascending
                </option>
              </select>
            </div>
          </>
        )}
        <div class="field">
          <button type="submit">Apply</button> <a href={base}>Reset</a>
        </div>
      </div>
    </form>
  );
}

function RegisterListPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  options: ReturnType<typeof listOptions>;
  query: ListQuery;
  rows: Row[];
  total: number;
  /** More records match than `total` (the list tools count up to a cap). */
  totalCapped?: boolean;
  nextCursor: string | null;
  names: NameIndex;
  error?: string;
  /** The risks register shows the heat map above its filters. */
  heatMap?: HeatMap | undefined;
}) {
  const { page, membership, query } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const [titleColumn, ...otherColumns] = page.columns;
  return (
    <Layout
      title={`${page.title} · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
    >
      <h1>{page.title}</h1>
      <p class="lead">{page.spec.about}</p>
      <AddRecordLink membership={membership} page={page} />
      {props.heatMap && <RiskHeatMaps organizationId={membership.organizationId} heatMap={props.heatMap} />}
      <FilterForm page={page} base={base} options={props.options} query={query} names={props.names} />
      <p class="actions-row small">
        <a href={`${base}/export.csv${queryString(query)}`} download>
          Export CSV
        </a>
        <a href={`${base}/export.json${queryString(query)}`} download>
          Export JSON
        </a>
        <span class="muted">(every {page.spec.label} matching these filters)</span>
        <a href={`/orgs/${membership.organizationId}/history?kind=${page.kind}`}>
          History of {page.spec.labelPlural}
        </a>
      </p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <div class="table-wrap">
        {props.rows.length === 0 ? (
          <p class="empty">
            {Object.keys(query.filter).length > 0
              ? `No ${page.spec.labelPlural} match these filters.`
              : `No ${page.spec.labelPlural} yet.`}
          </p>
        ) : (
          <table>
            <caption>
              {props.rows.length} of {props.totalCapped ? `more than ${props.total}` : props.total}{' '}
              {props.total === 1 ? page.spec.label : page.spec.labelPlural}
              {query.cursor ? ' (a later page)' : ''}.
            </caption>
            <thead>
              <tr>
                {page.columns.map((column) => (
                  <th
                    scope="col"
                    class={column.endsWith('_score') || column === 'amount' ? 'num' : undefined}
                  >
                    {fieldLabel(column)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr>
                  <th scope="row">
                    <a href={`${base}/${String(row.id)}`}>
                      {titleColumn ? displayOrDash(row[titleColumn], row) : String(row.id)}
                    </a>
                  </th>
                  {otherColumns.map((column) => (
                    <td class={column.endsWith('_score') || column === 'amount' ? 'num' : undefined}>
                      <Value page={page} field={column} value={row[column]} names={props.names} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <Pager
        first={query.cursor ? `${base}${queryString(query)}` : null}
        next={props.nextCursor ? `${base}${queryString(query, props.nextCursor)}` : null}
      />
    </Layout>
  );
}

function displayOrDash(value: unknown, row: Row): string {
  if (typeof value === 'string' && value) return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  return displayName(row);
}

function RecordPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  record: Row;
  names: NameIndex;
  history: RecordHistory;
}) {
  const { page, membership, record } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const hidden = new Set(['organization_id']);
  return (
    <Layout
      title={`${displayName(record)} · ${page.title}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
    >
      <p class="small">
        <a href={base}>{page.title}</a> ›
      </p>
      <h1>{displayName(record)}</h1>
      <div class="card">
        <dl class="details">
          {Object.entries(record)
            .filter(([field]) => !hidden.has(field))
            .map(([field, value]) => (
              <>
                <dt>{fieldLabel(field)}</dt>
                <dd>
                  {field === 'id' ? (
                    <code>{String(value)}</code>
                  ) : (
                    <Value page={page} field={field} value={value} names={props.names} full />
                  )}
                </dd>
              </>
            ))}
        </dl>
      </div>
      <RecordActions membership={membership} page={page} record={record} />
      <h2 id="history">History</h2>
      {props.history.error ? (
        <Notice kind="error">{props.history.error}</Notice>
      ) : (
        <HistoryTable
          changes={props.history.changes}
          organizationId={membership.organizationId}
          showRecord={false}
          names={props.names}
          caption={`The ${props.history.changes.length} most recent of ${props.history.total} changes of this ${page.spec.label}, newest first.`}
        />
      )}
      {props.history.more && (
        <p>
          <a href={`/orgs/${membership.organizationId}/history?record_id=${String(record.id)}`}>
            All changes of this {page.spec.label}
          </a>
        </p>
      )}
    </Layout>
  );
}

interface RecordHistory {
  changes: ChangeRow[];
  total: number;
  more: boolean;
  error?: string;
}

/** How many changes a record page shows; the history page has the rest. */
const RECORD_HISTORY_SIZE = 20;

interface Summary {
  risks: {
    total: number;
    by_status: Record<string, number>;
    residual_score_threshold: number;
    at_or_above_threshold: number;
    heat_map: HeatMap;
  };
  measures: {
    total: number;
    by_state: Record<string, number>;
    applicable: number;
    implemented_share: number | null;
  };
  obligations: { total: number; by_status: Record<string, number>; overdue: number };
  nonconformities: { total: number; by_status: Record<string, number>; open: number; overdue: number };
  continual_improvements: { total: number; open: number };
  audits: { total: number; by_state: Record<string, number>; in_progress: number };
  generated_at: string;
}

function Stat(props: {
  title: string;
  value: string | number;
  alert?: boolean;
  href?: string;
  children?: Child;
}) {
  return (
    <section class={props.alert ? 'stat alert' : 'stat'}>
      <h2>{props.title}</h2>
      <div class="value">{props.href ? <a href={props.href}>{props.value}</a> : props.value}</div>
      {props.children && <p>{props.children}</p>}
    </section>
  );
}

function Breakdown({
  title,
  counts,
  href,
}: {
  title: string;
  counts: Record<string, number>;
  href: (value: string) => string;
}) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{title}</th>
            <th scope="col" class="num">
              Count
            </th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(counts).map(([value, count]) => (
            <tr>
              <td>
                <a href={href(value)}>{value.replace(/_/g, ' ')}</a>
              </td>
              <td class="num">{count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function SummaryPage({
  viewer,
  membership,
  summary,
}: {
  viewer: Viewer;
  membership: Membership;
  summary: Summary;
}) {
  const base = `/orgs/${membership.organizationId}`;
  const share = summary.measures.implemented_share;
  return (
    <Layout
      title={membership.name}
      viewer={viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'overview' }}
    >
      <h1>{membership.name}</h1>
      <p class="lead">
        Compliance summary · your role: {membership.role} · as of <Time iso={summary.generated_at} />
      </p>
      <div class="cards">
        <Stat
          title={`High risks (residual ≥ ${summary.risks.residual_score_threshold})`}
          value={summary.risks.at_or_above_threshold}
          alert={summary.risks.at_or_above_threshold > 0}
          href={`${base}/risks?min_residual_score=${summary.risks.residual_score_threshold}&sort=residual_score&direction=DESC`}
        >
          of {summary.risks.total} risks, not closed
        </Stat>
        <Stat
          title="Measures implemented"
          value={share === null ? '—' : `${Math.round(share * 100)}%`}
          href={`${base}/measures`}
        >
          {summary.measures.by_state.IMPLEMENTED ?? 0} of {summary.measures.applicable} applicable measures
          {summary.measures.applicable < summary.measures.total &&
            ` (${summary.measures.total - summary.measures.applicable} not applicable)`}
        </Stat>
        <Stat
          title="Overdue obligations"
          value={summary.obligations.overdue}
          alert={summary.obligations.overdue > 0}
          href={`${base}/obligations?overdue=true`}
        >
          of {summary.obligations.total} obligations
        </Stat>
        <Stat
          title="Open nonconformities"
          value={summary.nonconformities.open}
          alert={summary.nonconformities.overdue > 0}
          href={`${base}/nonconformities?status=OPEN`}
        >
          <a href={`${base}/nonconformities?overdue=true`}>{summary.nonconformities.overdue} overdue</a>
        </Stat>
        <Stat
          title="Open improvements"
          value={summary.continual_improvements.open}
          href={`${base}/continual-improvements`}
        >
          of {summary.continual_improvements.total} continual improvements
        </Stat>
        <Stat
          title="Audits in progress"
          value={summary.audits.in_progress}
          href={`${base}/audits?state=IN_PROGRESS`}
        >
          of {summary.audits.total} audits
        </Stat>
      </div>
      <RiskHeatMaps organizationId={membership.organizationId} heatMap={summary.risks.heat_map} />
      <div class="breakdowns">
        <Breakdown
          title="Risks by status"
          counts={summary.risks.by_status}
          href={(value) => `${base}/risks?status=${value}`}
        />
        <Breakdown
          title="Measures by state"
          counts={summary.measures.by_state}
          href={(value) => `${base}/measures?state=${value}`}
        />
        <Breakdown
          title="Obligations by status"
          counts={summary.obligations.by_status}
          href={(value) => `${base}/obligations?status=${value}`}
        />
        <Breakdown
          title="Audits by state"
          counts={summary.audits.by_state}
          href={(value) => `${base}/audits?state=${value}`}
        />
      </div>
    </Layout>
  );
}

// ---- routes -------------------------------------------------------------------------------------------------

export function registerRegisterRoutes(web: Hono<WebEnv>, deps: WebDeps): void {
  function toolNamed(name: string): Tool {
    const tool = deps.tools.get(name);
    if (!tool) throw new Error(`The tool map has no ${name}`);
    return tool;
  }

  /** A call on the person's behalf through the one invocation seam: checked, validated and logged (surface "web"). */
  async function call(c: Context<WebEnv>, name: string, args: Row) {
    const principal = webPrincipal(c.get('user'), c.get('memberships'));
    return invokeTool(deps.invoke, toolNamed(name), args, principal, 'web', c.get('requestId'));
  }

  /** Names for the ids a page shows (owners, vendors, frameworks), from each register's own list tool. */
  async function nameIndex(
    c: Context<WebEnv>,
    organizationId: string,
    kinds: Set<RegisterKind>,
  ): Promise<NameIndex> {
    const names: NameIndex = new Map();
    const ctx = contextOutsideSeam(
      deps.database.db,
      webPrincipal(c.get('user'), c.get('memberships')),
      deps.now,
      'web',
    );
    await Promise.all(
      [...kinds].map(async (kind) => {
        const target = registerPageByKind(kind);
        if (!target) return;
        const tool = toolNamed(`list${target.spec.nounPlural}`);
        // Lookups for display only: run directly (parsed by the tool's schema), not logged as calls of their own.
        const result = await tool.run(ctx, tool.input.parse({ organization_id: organizationId, size: 100 }));
        for (const record of (result[target.spec.listKey] as Row[] | undefined) ?? []) {
          names.set(String(record.id), {
            kind,
            name: displayName(record),
            href: `/orgs/${organizationId}/${target.slug}/${String(record.id)}`,
          });
        }
      }),
    );
    return names;
  }

  /** The heat map of the organization's risks, from the summary tool (one grouped query over an index). */
  async function heatMapOf(c: Context<WebEnv>, organizationId: string): Promise<HeatMap | undefined> {
    const outcome = await call(c, 'getComplianceSummary', { organization_id: organizationId });
    return outcome.ok ? (outcome.result as unknown as Summary).risks.heat_map : undefined;
  }

  function toolErrorPage(c: Context<WebEnv>, error: AppError, membership: Membership) {
    if (error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    return errorPage(c, error.status as 400, 'Something went wrong', error.message, viewerOf(c), {
      kind: 'organization',
      organizationId: membership.organizationId,
      page: 'overview',
    });
  }

  web.get('/orgs/:org', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const outcome = await call(c, 'getComplianceSummary', { organization_id: membership.organizationId });
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    return sendPage(
      c,
      <SummaryPage
        viewer={viewerOf(c)}
        membership={membership}
        summary={outcome.result as unknown as Summary}
      />,
    );
  });

  web.get('/orgs/:org/:register', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    const page = registerPageBySlug(c.req.param('register'));
    if (!membership || !page) return notFoundPage(c, viewerOf(c));
    const tool = toolNamed(`list${page.spec.nounPlural}`);
    const options = listOptions(tool);
    const query = readListQuery(c, page, options);
    const kinds = new Set(
      [...page.columns, ...options.filters.map((field) => field.name)]
        .map((field) => refKind(page, field))
        .filter((kind): kind is RegisterKind => !!kind),
    );
    const [outcome, names, heatMap] = await Promise.all([
      call(c, tool.name, toolArguments(membership.organizationId, query, options)),
      kinds.size > 0 ? nameIndex(c, membership.organizationId, kinds) : Promise.resolve<NameIndex>(new Map()),
      page.kind === 'risk' ? heatMapOf(c, membership.organizationId) : Promise.resolve(undefined),
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
   * The register's records matching the page's filters and sort, as CSV or JSON, streamed page by page (keyset) so
   * that no export holds more than one page in memory. The first page goes through the seam (checked, logged once
   * as this export); the rest page on from its cursor.
   */
  async function exportRegister(c: Context<WebEnv>, format: 'csv' | 'json') {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    const page = registerPageBySlug(c.req.param('register') ?? '');
    if (!membership || !page) return notFoundPage(c, viewerOf(c));
    const tool = toolNamed(`list${page.spec.nounPlural}`);
    const options = listOptions(tool);
    const query = { ...readListQuery(c, page, options), cursor: undefined };
    const args = { ...toolArguments(membership.organizationId, query, options), size: EXPORT_PAGE_SIZE };
    const outcome = await call(c, tool.name, args);
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    const ctx = contextOutsideSeam(
      deps.database.db,
      webPrincipal(c.get('user'), c.get('memberships')),
      deps.now,
      'web',
    );
    const pageOf = (result: Row): Page<Row> => ({
      rows: (result[page.spec.listKey] as Row[] | undefined) ?? [],
      nextCursor: (result.next_cursor as string | null | undefined) ?? null,
    });
    const next = async (cursor: string) => pageOf(await tool.run(ctx, tool.input.parse({ ...args, cursor })));
    const onError = (error: unknown) => deps.invoke.logError(c.get('requestId'), error);
    const columns = exportColumns(page);
    let written = 0;
    const body =
      format === 'csv'
        ? streamPages<Row>({
            first: pageOf(outcome.result),
            next,
            head: CSV_BOM + csvLine(columns),
            encode: (rows) => rows.map((row) => csvLine(columns.map((column) => row[column]))).join(''),
            tail: '',
            onError,
          })
        : streamPages<Row>({
            first: pageOf(outcome.result),
            next,
            head: '[',
            encode: (rows) =>
              rows.map((row) => `${written++ === 0 ? '' : ','}\n${JSON.stringify(row)}`).join(''),
            tail: '\n]\n',
            onError,
          });
    return downloadResponse(body, {
      organizationName: membership.name,
      what: page.slug,
      date: deps.now(),
      format,
    });
  }

  web.get('/orgs/:org/:register/export.csv', (c) => exportRegister(c, 'csv'));
  web.get('/orgs/:org/:register/export.json', (c) => exportRegister(c, 'json'));

  web.get('/orgs/:org/:register/:id', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    const page = registerPageBySlug(c.req.param('register'));
    if (!membership || !page) return notFoundPage(c, viewerOf(c));
    const id = c.req.param('id');
    if (!id.startsWith(`${page.spec.prefix}_`)) return notFoundPage(c, viewerOf(c));
    const outcome = await call(c, `get${page.spec.noun}`, { id });
    if (!outcome.ok) return toolErrorPage(c, outcome.error, membership);
    const record = outcome.result[page.spec.key] as Row | undefined;
    // The tool only returns records of the person's organizations; the URL must also name the right one.
    if (!record || record.organization_id !== membership.organizationId) return notFoundPage(c, viewerOf(c));
    const kinds = new Set(
      Object.keys(record)
        .map((field) => refKind(page, field))
        .filter((kind): kind is RegisterKind => !!kind),
    );
    const [names, changes] = await Promise.all([
      kinds.size > 0 ? nameIndex(c, membership.organizationId, kinds) : Promise.resolve<NameIndex>(new Map()),
      call(c, 'listChanges', {
        organization_id: membership.organizationId,
        filter: { record_id: id },
        size: RECORD_HISTORY_SIZE,
      }),
    ]);
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
        record={record}
        names={names}
        history={history}
      />,
    );
  });
}
