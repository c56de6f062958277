// The change history in the web interface: the table of changes (record page, history page) and the history
// page with its filters and CSV export, all read through listChanges.
import type { Context, Hono } from 'hono';
import type { AppError } from '../errors.ts';
import { invokeTool } from '../surfaces/invoke.ts';
import type { ChangeRow } from '../tools/changes.ts';
import { contextOutsideSeam, type Tool } from '../tools/types.ts';
import { type Membership, type WebDeps, type WebEnv, webPrincipal } from './context.ts';
import { CSV_BOM, csvLine, downloadResponse, type Page, streamPages } from './export.ts';
import { Badge, Layout, Notice, Pager, Time, type Viewer } from './layout.tsx';
import { membershipOf } from './organization-routes.tsx';
import { displayName, fieldLabel, REGISTER_PAGES } from './register-pages.ts';
import { errorPage, notFoundPage, sendPage } from './render.tsx';
import { viewerOf } from './viewer.ts';

type Row = Record<string, unknown>;

/** A record id: its kind prefix and 24 characters. */
const ID_SHAPE = /^([a-z]{3})_[0-9a-z]{24}$/;

const SURFACE_NAMES: Record<string, string> = {
  mcp: 'MCP',
  direct: 'HTTP (direct)',
  web: 'web interface',
  cli: 'operator CLI',
};

const ACTION_TONES: Record<string, 'ok' | 'warn' | 'bad' | undefined> = {
  add: 'ok',
  update: 'warn',
  delete: 'bad',
  link: undefined,
  unlink: undefined,
};

/** Names of records by id, where the page knows them (a record page knows those its fields point at). */
export type KnownNames = ReadonlyMap<string, { name: string }>;

/** A value as the history shows it: ids as the names the page knows, lists joined, nothing as a dash, long text cut. */
function shown(value: unknown, names?: KnownNames): string {
  if (value === null || value === undefined || value === '') return '—';
  const named = (item: unknown) =>
    typeof item === 'string' ? (names?.get(item)?.name ?? item) : String(item);
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(named).join(', ');
  const text = typeof value === 'object' ? JSON.stringify(value) : named(value);
  return text.length > 200 ? `${text.slice(0, 197)}…` : text;
}

/** Field by field: `before -> after` for updates and links, the values written for an add, the last ones for a delete. */
export function changedFields(change: Pick<ChangeRow, 'before' | 'after'>): {
  field: string;
  before: unknown;
  after: unknown;
}[] {
  const before = change.before ?? {};
  const after = change.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

function recordHref(organizationId: string, change: ChangeRow): string | undefined {
  const page = REGISTER_PAGES.find((item) => item.kind === change.kind);
  return page ? `/orgs/${organizationId}/${page.slug}/${change.record_id}` : undefined;
}

function Who({ change }: { change: ChangeRow }) {
  const via =
    change.surface === 'web' || change.token_id === null
      ? `via the ${SURFACE_NAMES[change.surface] ?? change.surface}`
      : `via ${SURFACE_NAMES[change.surface] ?? change.surface}, token ${change.token_name ?? change.token_id}`;
  return (
    <>
      {change.user_email ?? change.user_id}
      <br />
      <span class="small muted">{via}</span>
    </>
  );
}

function Changes({ change, names }: { change: ChangeRow; names?: KnownNames | undefined }) {
  const fields = changedFields(change).filter(
    // An add lists what was set; empty optional fields say nothing.
    (item) => change.action !== 'add' || shown(item.after, names) !== '—',
  );
  if (fields.length === 0) return <span class="muted">no field changed</span>;
  return (
    <ul class="changes">
      {fields.map((item) => (
        <li>
          <strong>{fieldLabel(item.field)}</strong>:{' '}
          {change.action === 'add' ? (
            <span>{shown(item.after, names)}</span>
          ) : change.action === 'delete' ? (
            <del>{shown(item.before, names)}</del>
          ) : (
            <>
              <del>{shown(item.before, names)}</del> → <ins>{shown(item.after, names)}</ins>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The changes as a table, newest first; `showRecord` adds which record each one changed (organization history). */
export function HistoryTable({
  changes,
  organizationId,
  showRecord,
  caption,
  names,
}: {
  changes: ChangeRow[];
  organizationId: string;
  showRecord: boolean;
  caption: string;
  names?: KnownNames;
}) {
  if (changes.length === 0) return <p class="empty">No changes recorded.</p>;
  return (
    <div class="table-wrap">
      <table class="history">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            {showRecord && <th scope="col">Record</th>}
            <th scope="col">Action</th>
            <th scope="col">Fields</th>
          </tr>
        </thead>
        <tbody>
          {changes.map((change) => {
            const href = recordHref(organizationId, change);
            return (
              <tr id={change.id}>
                <td>
                  <Time iso={change.created_at} />
                </td>
                <td>
                  <Who change={change} />
                </td>
                {showRecord && (
                  <td>
                    {change.kind.replace(/_/g, ' ')}{' '}
                    {names?.get(change.record_id) ? (
                      <>
                        {href ? (
                          <a href={href}>{names.get(change.record_id)?.name}</a>
                        ) : (
                          names.get(change.record_id)?.name
                        )}
                        <br />
                        <code class="small">{change.record_id}</code>
                      </>
                    ) : href ? (
                      <a href={href}>{change.record_id}</a>
                    ) : (
                      <code>{change.record_id}</code>
                    )}
                  </td>
                )}
                <td>
                  <Badge tone={ACTION_TONES[change.action]}>{change.action}</Badge>
                  <br />
                  <code class="small">{change.tool}</code>
                </td>
                <td>
                  <Changes change={change} names={names} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

// ---- the organization's history page -------------------------------------------------------------------------

const FILTERS = [
  'record_id',
  'kind',
  'action',
  'surface',
  'user_id',
  'token_id',
  'call_id',
  'since',
  'until',
] as const;
const HISTORY_PAGE_SIZE = 50;
const EXPORT_PAGE_SIZE = 100;

function readFilter(c: Context): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = c.req.query(name)?.trim();
    if (value) filter[name] = value;
  }
  return filter;
}

function historyQuery(filter: Record<string, string>, cursor?: string | null): string {
  const params = new URLSearchParams(filter);
  if (cursor) params.set('cursor', cursor);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function HistoryPage(props: {
  viewer: Viewer;
  membership: Membership;
  filter: Record<string, string>;
  changes: ChangeRow[];
  total: number;
  nextCursor: string | null;
  later: boolean;
  kinds: string[];
  names?: KnownNames;
  error?: string;
}) {
  const { membership, filter } = props;
  const base = `/orgs/${membership.organizationId}/history`;
  const select = (name: string, label: string, values: string[]) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <select id={`filter-${name}`} name={name}>
        <option value="">Any</option>
        {values.map((value) => (
          <option value={value} selected={filter[name] === value}>
            {value.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    </div>
  );
  const text = (name: string, label: string, hint: string) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <input
        id={`filter-${name}`}
        name={name}
        type="text"
        value={filter[name] ?? ''}
        title={hint}
        placeholder={hint}
      />
    </div>
  );
  return (
    <Layout
      title={`History · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'history' }}
    >
      <h1>History</h1>
      <p class="lead">
        Every add, update, delete and link of this organization's records: who made it, through which token or
        the web interface, when, and the fields before and after. Deleted records keep their history.
      </p>
      <form method="get" action={base} class="card" aria-label="Filter the history">
        <div class="row">
          {select('kind', 'Kind', props.kinds)}
          {select('action', 'Action', ['add', 'update', 'delete', 'link', 'unlink'])}
          {select('surface', 'Surface', ['mcp', 'direct', 'web', 'cli'])}
          {text('record_id', 'Record id', 'e.g. rsk_...')}
          {text('token_id', 'Token id', 'tok_...')}
          {text('since', 'Since', 'YYYY-MM-DD or an ISO time')}
          {text('until', 'Until', 'YYYY-MM-DD or an ISO time (not included)')}
          {filter.user_id && <input type="hidden" name="user_id" value={filter.user_id} />}
          {filter.call_id && <input type="hidden" name="call_id" value={filter.call_id} />}
          <div class="field">
            <button type="submit">Apply</button> <a href={base}>Reset</a>
          </div>
        </div>
      </form>
      {filter.call_id && (
        <p>
          The changes of tool call <code>{filter.call_id}</code>.
        </p>
      )}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <p>
        <a class="button quiet" href={`${base}/export.csv${historyQuery(filter)}`} download>
          Export CSV
        </a>
      </p>
      <HistoryTable
        changes={props.changes}
        organizationId={membership.organizationId}
        showRecord
        names={props.names}
        caption={`${props.changes.length} of ${props.total} changes${props.later ? ' (a later page)' : ''}, newest first.`}
      />
      <Pager
        first={props.later ? `${base}${historyQuery(filter)}` : null}
        next={props.nextCursor ? `${base}${historyQuery(filter, props.nextCursor)}` : null}
      />
    </Layout>
  );
}

const CSV_COLUMNS = [
  'time',
  'change_id',
  'kind',
  'record_id',
  'action',
  'surface',
  'user_id',
  'user_email',
  'token_id',
  'token_name',
  'call_id',
  'tool',
  'field',
  'before',
  'after',
] as const;

/** One CSV line per changed field (one line with an empty field for a change that changed none). */
export function historyCsvLines(change: ChangeRow): string {
  const common = [
    change.created_at,
    change.id,
    change.kind,
    change.record_id,
    change.action,
    change.surface,
    change.user_id,
    change.user_email,
    change.token_id,
    change.token_name,
    change.call_id,
    change.tool,
  ];
  const fields = changedFields(change);
  if (fields.length === 0) return csvLine([...common, null, null, null]);
  return fields.map((item) => csvLine([...common, item.field, item.before, item.after])).join('');
}

export function registerHistoryRoutes(web: Hono<WebEnv>, deps: WebDeps): void {
  const tool = deps.tools.get('listChanges') as Tool;

  function call(c: Context<WebEnv>, args: Row) {
    const principal = webPrincipal(c.get('user'), c.get('memberships'));
    return invokeTool(deps.invoke, tool, args, principal, 'web', c.get('requestId'));
  }

  /**
   * Names for the ids a page of changes mentions (the records changed, the records their fields point at): an add's
   * or a delete's own values name its record even once it is gone; current names come from each register's list
   * tool (its 100 latest records, as the record pages' lookups), run directly and not logged as calls of their own.
   */
  async function namesOf(
    c: Context<WebEnv>,
    organizationId: string,
    changes: ChangeRow[],
  ): Promise<KnownNames> {
    const names = new Map<string, { name: string }>();
    const prefixes = new Set<string>();
    const mention = (value: unknown) => {
      for (const item of Array.isArray(value) ? value : [value]) {
        const prefix = typeof item === 'string' ? ID_SHAPE.exec(item)?.[1] : undefined;
        if (prefix) prefixes.add(prefix);
      }
    };
    for (const change of changes) {
      mention(change.record_id);
      for (const values of [change.before, change.after])
        for (const value of Object.values(values ?? {})) mention(value);
      const own = change.action === 'add' ? change.after : change.action === 'delete' ? change.before : null;
      if (own) names.set(change.record_id, { name: displayName({ id: change.record_id, ...own }) });
    }
    const ctx = contextOutsideSeam(
      deps.database.db,
      webPrincipal(c.get('user'), c.get('memberships')),
      deps.now,
      'web',
    );
    await Promise.all(
      REGISTER_PAGES.filter((page) => prefixes.has(page.spec.prefix)).map(async (page) => {
        const list = deps.tools.get(`list${page.spec.nounPlural}`);
        if (!list) return;
        const result = await list.run(ctx, list.input.parse({ organization_id: organizationId, size: 100 }));
        for (const record of (result[page.spec.listKey] as Row[] | undefined) ?? []) {
          names.set(String(record.id), { name: displayName(record) });
        }
      }),
    );
    return names;
  }

  function failed(c: Context<WebEnv>, error: AppError) {
    if (error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    return errorPage(c, error.status as 400, 'Something went wrong', error.message, viewerOf(c));
  }

  web.get('/orgs/:org/history', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const filter = readFilter(c);
    const cursor = c.req.query('cursor') || undefined;
    const outcome = await call(c, {
      organization_id: membership.organizationId,
      size: HISTORY_PAGE_SIZE,
      ...(Object.keys(filter).length > 0 ? { filter } : {}),
      ...(cursor ? { cursor } : {}),
    });
    const common = {
      viewer: viewerOf(c),
      membership,
      filter,
      later: !!cursor,
      kinds: REGISTER_PAGES.map((page) => page.kind),
    };
    if (!outcome.ok) {
      if (outcome.error.code !== 'invalid_arguments') return failed(c, outcome.error);
      return sendPage(
        c,
        <HistoryPage {...common} changes={[]} total={0} nextCursor={null} error={outcome.error.message} />,
        400,
      );
    }
    const result = outcome.result as {
      changes: ChangeRow[];
      next_cursor: string | null;
      total_count: number;
    };
    return sendPage(
      c,
      <HistoryPage
        {...common}
        names={await namesOf(c, membership.organizationId, result.changes)}
        changes={result.changes}
        total={result.total_count}
        nextCursor={result.next_cursor}
      />,
    );
  });

  web.get('/orgs/:org/history/export.csv', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const filter = readFilter(c);
    const args: Row = {
      organization_id: membership.organizationId,
      size: EXPORT_PAGE_SIZE,
      ...(Object.keys(filter).length > 0 ? { filter } : {}),
    };
    // The first page through the seam (checked, logged once as this export); the rest page on from its cursor.
    const outcome = await call(c, args);
    if (!outcome.ok) return failed(c, outcome.error);
    const ctx = contextOutsideSeam(
      deps.database.db,
      webPrincipal(c.get('user'), c.get('memberships')),
      deps.now,
      'web',
    );
    const pageOf = (result: Row): Page<ChangeRow> => ({
      rows: result.changes as ChangeRow[],
      nextCursor: (result.next_cursor as string | null) ?? null,
    });
    const body = streamPages<ChangeRow>({
      first: pageOf(outcome.result),
      next: async (cursor) => pageOf(await tool.run(ctx, tool.input.parse({ ...args, cursor }))),
      head: CSV_BOM + csvLine(CSV_COLUMNS),
      encode: (rows) => rows.map(historyCsvLines).join(''),
      tail: '',
      onError: (error) => deps.invoke.logError(c.get('requestId'), error),
    });
    return downloadResponse(body, {
      organizationName: membership.name,
      what: 'history',
      date: deps.now(),
      format: 'csv',
    });
  });
}
