// A record's page: every field with references named and linked, edit/delete actions, and its recent history.
import type { Child } from 'hono/jsx';
import type { ChangeRow } from '../../tools/changes.ts';
import { fieldLabelOf } from '../../tools/registers/spec.ts';
import type { RiskLevel } from '../../tools/risk-method.ts';
import type { Membership } from '../context.ts';
import { HistoryTable } from '../history-table.tsx';
import { Layout, Notice, type Viewer } from '../layout.tsx';
import { RecordActions } from '../record-actions.tsx';
import { displayName, type RegisterPage } from '../register-pages.ts';
import type { NameIndex } from '../tool-calls.ts';
import { Value } from './values.tsx';

type Row = Record<string, unknown>;

export function RecordPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  record: Row;
  names: NameIndex;
  history: RecordHistory;
  /** Fields shown in `details` instead of the list of fields (a document's content). */
  hiddenFields?: string[];
  /** What this kind of record shows beyond its fields (a framework: coverage and requirements). */
  details?: Child;
  /** The organization's risk levels, for a risk's scores and levels. */
  levels?: RiskLevel[] | undefined;
}) {
  const { page, membership, record } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  // The id is for the technical reader: in a disclosure under the fields, not first among them.
  // labels (the names of the records it refers to) are shown beside each reference, not as a field of their own.
  const hidden = new Set(['organization_id', 'id', 'labels', ...(props.hiddenFields ?? [])]);
  return (
    <Layout
      title={`${displayName(record)} · ${page.title}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
    >
      <p class="small">
        <a href={base}>{page.title}</a> ›
      </p>
      <h1 dir="auto">{displayName(record)}</h1>
      <div class="card">
        <dl class="details">
          {Object.entries(record)
            .filter(([field]) => !hidden.has(field))
            .map(([field, value]) => (
              <>
                <dt>{fieldLabelOf(page.spec, field)}</dt>
                <dd>
                  <Value
                    page={page}
                    field={field}
                    value={value}
                    names={props.names}
                    levels={props.levels}
                    full
                  />
                </dd>
              </>
            ))}
        </dl>
        <details class="technical">
          <summary>Technical details</summary>
          <p class="small">
            Id <code>{String(record.id)}</code> (for API calls and AI assistants)
          </p>
        </details>
      </div>
      <RecordActions membership={membership} page={page} record={record} />
      {props.details}
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

export interface RecordHistory {
  changes: ChangeRow[];
  total: number;
  more: boolean;
  error?: string;
}

/** How many changes a record page shows; the history page has the rest. */
export const RECORD_HISTORY_SIZE = 20;
