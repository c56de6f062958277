// The organization's history page: its filters, pages and CSV export, all read through listChanges.
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppError } from '../../errors.ts';
import { CHANGE_SURFACES, type ChangeRow } from '../../tools/changes.ts';
import { listChanges } from '../../tools/index.ts';
import { CSV_BOM, csvLine } from '../../tools/tables/csv-writer.ts';
import { membershipOf } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { downloadResponse, type Page, streamPages } from '../export.ts';
import { changedFields, HistoryTable, type KnownNames } from '../history-table.tsx';
import { ACTION_LABELS, SURFACE_LABELS, valueLabel } from '../labels.ts';
import { Layout, Notice, Pager, type Viewer } from '../layout.tsx';
import { listMembers } from '../queries.ts';
import { displayName, REGISTER_PAGES } from '../register-pages.ts';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

/** A record id: its kind prefix and 24 characters. */
const ID_SHAPE = /^([a-z]{3})_[0-9a-z]{24}$/;

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
  /** The organization's members, for the person filter. */
  people: { id: string; label: string }[];
  names?: KnownNames;
  error?: string;
}) {
  const { membership, filter } = props;
  const base = `/orgs/${membership.organizationId}/history`;
  const select = (name: string, label: string, values: string[], labelOf: (value: string) => string) => (
    <div class="field">
      <label for={`filter-${name}`}>{label}</label>
      <select id={`filter-${name}`} name={name}>
        <option value="">Any</option>
        {values.map((value) => (
          <option value={value} selected={filter[name] === value}>
            {labelOf(value)}
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
          {select('kind', 'Kind', props.kinds, (kind) => valueLabel(kind))}
          {select(
            'action',
            'Action',
            Object.keys(ACTION_LABELS),
            (action) => ACTION_LABELS[action] ?? action,
          )}
          {select(
            'surface',
            'Surface',
            [...CHANGE_SURFACES],
            (surface) => SURFACE_LABELS[surface] ?? surface,
          )}
          {select(
            'user_id',
            'Person',
            [
              ...props.people.map((person) => person.id),
              // Someone who has left still has their changes: keep the filter they came with.
              ...(filter.user_id && !props.people.some((person) => person.id === filter.user_id)
                ? [filter.user_id]
                : []),
            ],
            (id) => props.people.find((person) => person.id === id)?.label ?? id,
          )}
          {text('record_id', 'Record id', 'e.g. rsk_...')}
          {text('token_id', 'Token id', 'tok_...')}
          {text('since', 'Since', 'YYYY-MM-DD or an ISO time')}
          {text('until', 'Until', 'YYYY-MM-DD or an ISO time (not included)')}
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
  'person_id',
  'person_name',
  'token_id',
  'token_name',
  'call_id',
  'tool',
  'field',
  'before',
  'after',
  // Last, so the earlier columns keep their places: set on a change that applied an approved proposal.
  'proposal_id',
  'proposed_by_token_id',
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
    change.person_id,
    change.person_name,
    change.token_id,
    change.token_name,
    change.call_id,
    change.tool,
  ];
  const proposal = [change.proposal_id, change.proposed_by_token_id];
  const fields = changedFields(change);
  if (fields.length === 0) return csvLine([...common, null, null, null, ...proposal]);
  return fields
    .map((item) => csvLine([...common, item.field, item.before, item.after, ...proposal]))
    .join('');
}

export function historyRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /**
   * Names for the ids a page of changes mentions (the records changed, the records their fields point at): an add's
   * or a delete's own values name its record even once it is gone; current names come from each register's list
   * tool (its 100 latest records, as the record pages' lookups).
   */
  async function namesOf(
    c: Context<WebEnv>,
    organizationId: string,
    changes: ChangeRow[],
  ): Promise<KnownNames> {
    const prefixes = new Set<string>();
    const own = new Map<string, { name: string }>();
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
      const values =
        change.action === 'add' ? change.after : change.action === 'delete' ? change.before : null;
      if (values) own.set(change.record_id, { name: displayName({ id: change.record_id, ...values }) });
    }
    const kinds = REGISTER_PAGES.filter((page) => prefixes.has(page.spec.prefix)).map((page) => page.kind);
    const names = new Map<string, { name: string }>(own);
    for (const [id, entry] of await webCalls(c, deps).names(organizationId, kinds)) names.set(id, entry);
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
    const outcome = await webCalls(c, deps).read(listChanges, {
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
      people: (await listMembers(deps.database.db, membership.organizationId)).map((member) => ({
        id: member.userId,
        label: member.name ? `${member.name} (${member.email})` : member.email,
      })),
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
    const calls = webCalls(c, deps);
    const outcome = await calls.read(listChanges, args);
    if (!outcome.ok) return failed(c, outcome.error);
    const pageOf = (result: Row): Page<ChangeRow> => ({
      rows: result.changes as ChangeRow[],
      nextCursor: (result.next_cursor as string | null) ?? null,
    });
    const body = streamPages<ChangeRow>({
      first: pageOf(outcome.result),
      next: async (cursor) => pageOf(await calls.run(listChanges, { ...args, cursor })),
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
  return web;
}
