// A register's list page: filters and sorts read from the list tool's own input schema, a page of records, exports.
import type { Context } from 'hono';
import { jsonSchemasOf } from '../../surfaces/schemas.ts';
import { fieldLabelOf } from '../../tools/registers/spec.ts';
import type { Tool } from '../../tools/types.ts';
import type { Membership } from '../context.ts';
import { valueLabel, valuesLabel } from '../labels.ts';
import { Layout, Notice, Pager, type Viewer } from '../layout.tsx';
import { AddRecordLink } from '../record-actions.tsx';
import { displayName, type RegisterPage } from '../register-pages.ts';
import type { NameIndex } from '../tool-calls.ts';
import { type HeatMap, RiskHeatMaps } from './heat-map.tsx';
import { refKinds, Value } from './values.tsx';

type Row = Record<string, unknown>;

/** Rows per page of a register's list: the default and the choices offered. */
const PAGE_SIZE = 25;
export const PAGE_SIZES = [25, 50, 100] as const;
/** How many earlier pages' cursors a list's URL carries, so Previous goes back that far (First page always works). */
const BACK_LIMIT = 20;

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

export interface ListOptions {
  filters: FilterField[];
  orderFields: string[];
}

const listOptionsCache = new WeakMap<Tool, ListOptions>();

/** The filters and sort fields a list tool accepts, read from its JSON Schema so the page offers exactly those. */
export function listOptions(page: RegisterPage): ListOptions {
  const tool = page.tools.list;
  const cached = listOptionsCache.get(tool);
  if (cached) return cached;
  const input = jsonSchemasOf(tool).input as JsonSchema;
  const filterProperties = input.properties?.filter?.properties ?? {};
  const filters = Object.entries(filterProperties).map(([name, schema]): FilterField => {
    const enumValues = schema.enum ?? schema.anyOf?.find((option) => option.enum)?.enum;
    const base = {
      name,
      label: fieldLabelOf(page.spec, name),
      options: [],
      description: schema.description ?? '',
    };
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
  listOptionsCache.set(tool, options);
  return options;
}

export interface ListQuery {
  filter: Record<string, string>;
  sort: string | undefined;
  direction: 'ASC' | 'DESC';
  cursor: string | undefined;
  /** Rows per page (one of PAGE_SIZES). */
  size: number;
  /** The cursors of the pages between the first and this one, oldest first: Previous goes to the last. */
  back: string[];
  /** Records the page hides unless asked (closed risks) are shown. */
  showHidden: boolean;
}

export function readListQuery(c: Context, page: RegisterPage, options: ListOptions): ListQuery {
  const filter: Record<string, string> = {};
  for (const field of options.filters) {
    // An enum filter may come several times (checkboxes) or comma-separated: any of the values matches.
    const value = (c.req.queries(field.name) ?? [])
      .flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter(Boolean)
      .join(',');
    if (value) filter[field.name] = value;
  }
  const sortParam = c.req.query('sort');
  const sort = sortParam && options.orderFields.includes(sortParam) ? sortParam : page.defaultOrder?.field;
  const directionParam = c.req.query('direction');
  const direction =
    directionParam === 'ASC' || directionParam === 'DESC'
      ? directionParam
      : (page.defaultOrder?.direction ?? 'DESC');
  const size = Number(c.req.query('size'));
  const cursor = c.req.query('cursor') || undefined;
  return {
    filter,
    sort,
    direction,
    cursor,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : PAGE_SIZE,
    back: cursor ? (c.req.query('back') ?? '').split(',').filter(Boolean).slice(-BACK_LIMIT) : [],
    showHidden: c.req.query('hidden') === 'show',
  };
}

/** Query-string values become the tool's argument types; anything odd is passed on for the tool to reject clearly. */
export function toolArguments(
  organizationId: string,
  page: RegisterPage,
  query: ListQuery,
  options: ListOptions,
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
  // Closed risks stay out of the list unless asked for, or unless the person filtered on their field.
  const hidden = page.hiddenByDefault;
  if (hidden && !query.showHidden && filter[hidden.field] === undefined) {
    const field = options.filters.find((item) => item.name === hidden.field);
    if (field) filter[hidden.field] = field.options.filter((value) => !hidden.values.includes(value));
  }
  return {
    organization_id: organizationId,
    size: query.size,
    ...(Object.keys(filter).length > 0 ? { filter } : {}),
    ...(query.sort ? { order_by: { field: query.sort, direction: query.direction } } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  };
}

/**
 * The list's URL query for `changes` to the current one (a page's cursor and the earlier ones, another sort): the
 * filters, sort, page size and hidden-records choice carry over; the page goes back to the first unless a cursor is
 * given.
 */
export function queryString(
  query: ListQuery,
  changes: {
    cursor?: string | null;
    back?: string[];
    sort?: string;
    direction?: 'ASC' | 'DESC';
    /** More parameters (an export's `headers=api`). */
    extra?: Record<string, string>;
  } = {},
): string {
  const params = new URLSearchParams({ ...query.filter, ...changes.extra });
  const sort = changes.sort ?? query.sort;
  if (sort) {
    params.set('sort', sort);
    params.set('direction', changes.direction ?? query.direction);
  }
  if (query.size !== PAGE_SIZE) params.set('size', String(query.size));
  if (query.showHidden) params.set('hidden', 'show');
  if (changes.cursor) {
    params.set('cursor', changes.cursor);
    if (changes.back && changes.back.length > 0)
      params.set('back', changes.back.slice(-BACK_LIMIT).join(','));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function FilterForm({
  page,
  base,
  options,
  query,
  names,
}: {
  page: RegisterPage;
  base: string;
  options: ListOptions;
  query: ListQuery;
  names: NameIndex;
}) {
  return (
    <form method="get" action={base} class="card" aria-label={`Filter ${page.title.toLowerCase()}`}>
      <div class="row">
        {options.filters.map((field) => {
          const id = `filter-${field.name}`;
          const value = query.filter[field.name] ?? '';
          const targets = refKinds(page, field.name);
          if (targets.length > 0) {
            // An id filter (owner_id, framework_id): choose by name among the register's records.
            const choices = [...names]
              .filter(([, entry]) => targets.includes(entry.kind))
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
          if (field.kind === 'enum') {
            // Several values at once: checkboxes, folded under a summary of what is chosen.
            const chosen = value ? value.split(',') : [];
            const values = [...field.options, ...chosen.filter((option) => !field.options.includes(option))];
            return (
              <fieldset class="field multi">
                <legend>{field.label}</legend>
                <details>
                  <summary>{chosen.length > 0 ? valuesLabel(value) : 'Any'}</summary>
                  <div class="multi-choices">
                    {values.map((option) => (
                      <label class="choice">
                        <input
                          type="checkbox"
                          name={field.name}
                          value={option}
                          checked={chosen.includes(option)}
                        />
                        <span>{valueLabel(option)}</span>
                      </label>
                    ))}
                  </div>
                </details>
              </fieldset>
            );
          }
          if (field.kind === 'boolean') {
            return (
              <div class="field">
                <label for={id}>{field.label}</label>
                <select id={id} name={field.name}>
                  <option value="">Any</option>
                  <option value="true" selected={value === 'true'}>
                    Yes
                  </option>
                  <option value="false" selected={value === 'false'}>
                    No
                  </option>
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
                    {fieldLabelOf(page.spec, field)}
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
          <label for="size">Rows per page</label>
          <select id="size" name="size">
            {PAGE_SIZES.map((size) => (
              <option value={size} selected={size === query.size}>
                {size}
              </option>
            ))}
          </select>
        </div>
        {query.showHidden && <input type="hidden" name="hidden" value="show" />}
        <div class="field">
          <button type="submit">Apply</button> <a href={base}>Reset</a>
        </div>
      </div>
    </form>
  );
}

export function RegisterListPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  options: ListOptions;
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
      {props.heatMap && (
        <RiskHeatMaps
          organizationId={membership.organizationId}
          heatMap={props.heatMap}
          foldable
          open={Object.keys(query.filter).some((name) => /_(likelihood|impact)$/.test(name))}
        />
      )}
      <FilterForm page={page} base={base} options={props.options} query={query} names={props.names} />
      <p class="actions-row small">
        <a href={`${base}/export.csv${queryString(query)}`} download>
          Export CSV
        </a>
        <a href={`${base}/export.xlsx${queryString(query)}`} download>
          Export XLSX
        </a>
        <a href={`${base}/export.json${queryString(query)}`} download>
          Export JSON
        </a>
        <a href={`${base}/export.csv${queryString(query, { extra: { headers: 'api' } })}`} download>
          CSV with API names
        </a>
        <span class="muted">(every {page.spec.label} matching these filters)</span>
        {page.kind === 'processing_activity' && (
          <>
            <a href={`${base}/art30.pdf`} download>
              Art. 30 record (PDF)
            </a>
            <a href={`${base}/art30.xlsx`} download>
              Art. 30 record (XLSX)
            </a>
          </>
        )}
        {page.kind === 'audit' && <a href={`${base}/programme`}>Audit programme</a>}
        <a href={`/orgs/${membership.organizationId}/history?kind=${page.kind}`}>
          History of {page.spec.labelPlural}
        </a>
        {page.quickFilters?.map((quick) => (
          <a href={`${base}?${new URLSearchParams(quick.filter(new Date().toISOString().slice(0, 10)))}`}>
            {quick.label}
          </a>
        ))}
        {page.hiddenByDefault && query.filter[page.hiddenByDefault.field] === undefined && (
          <a href={`${base}${queryString({ ...query, showHidden: !query.showHidden })}`}>
            {query.showHidden ? `Hide ${page.hiddenByDefault.label}` : `Show ${page.hiddenByDefault.label}`}
          </a>
        )}
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
                  <SortableHeader
                    page={page}
                    base={base}
                    column={column}
                    query={query}
                    options={props.options}
                  />
                ))}
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr>
                  <th scope="row">
                    <a href={`${base}/${String(row.id)}`} dir="auto">
                      {titleColumn ? displayOrDash(row[titleColumn], row) : String(row.id)}
                    </a>
                  </th>
                  {otherColumns.map((column) => (
                    <td class={numeric(column) ? 'num' : undefined}>
                      <Value
                        page={page}
                        field={column}
                        value={row[column]}
                        names={props.names}
                        levels={props.heatMap?.method.levels}
                      />
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
        previous={
          query.cursor
            ? `${base}${queryString(query, { cursor: query.back.at(-1) ?? null, back: query.back.slice(0, -1) })}`
            : null
        }
        number={query.cursor ? query.back.length + 2 : 1}
        next={
          props.nextCursor
            ? `${base}${queryString(query, {
                cursor: props.nextCursor,
                back: query.cursor ? [...query.back, query.cursor] : [],
              })}`
            : null
        }
      />
    </Layout>
  );
}

const numeric = (column: string) => column.endsWith('_score') || column === 'amount';

/**
 * A column's header: a link that sorts the list by it when the list tool sorts on that field (again: the other
 * way), with `aria-sort` on the column it is sorted by. Numbers and dates start with the largest, text with A.
 */
function SortableHeader(props: {
  page: RegisterPage;
  base: string;
  column: string;
  query: ListQuery;
  options: ListOptions;
}) {
  const { page, column, query } = props;
  const label = fieldLabelOf(page.spec, column);
  const current = query.sort === column;
  const sortable = props.options.orderFields.includes(column);
  const first: 'ASC' | 'DESC' = numeric(column) || /_(at|date|from|until)$/.test(column) ? 'DESC' : 'ASC';
  const direction = current ? (query.direction === 'ASC' ? 'DESC' : 'ASC') : first;
  return (
    <th
      scope="col"
      class={numeric(column) ? 'num' : undefined}
      aria-sort={current ? (query.direction === 'ASC' ? 'ascending' : 'descending') : undefined}
    >
      {sortable ? (
        <a href={`${props.base}${queryString(query, { sort: column, direction })}`} class="sort">
          {label}
          <span class="visually-hidden">{`, sort ${direction === 'ASC' ? 'ascending' : 'descending'}`}</span>
          {current && <span aria-hidden="true">{query.direction === 'ASC' ? ' ▲' : ' ▼'}</span>}
        </a>
      ) : (
        label
      )}
    </th>
  );
}

function displayOrDash(value: unknown, row: Row): string {
  if (typeof value === 'string' && value) return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  return displayName(row);
}
