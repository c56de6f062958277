// The table of changes the record pages and the history page show: who, when, how, and each field before and after.
import type { ChangeRow } from '../../tools/changes.ts';
import { enumValuesOf, fieldLabelOf } from '../../tools/registers/spec.ts';
import { ACTION_LABELS, SURFACE_LABELS, valueLabel } from '../labels.ts';
import { Badge, Time } from '../layout.tsx';
import { registerPageByKind } from '../registers/pages.ts';

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
  const page = registerPageByKind(change.kind);
  return page ? `/orgs/${organizationId}/${page.slug}/${change.record_id}` : undefined;
}

function Who({ change }: { change: ChangeRow }) {
  const via =
    change.surface === 'web' || change.token_id === null
      ? `via the ${SURFACE_LABELS[change.surface] ?? change.surface}`
      : `via ${SURFACE_LABELS[change.surface] ?? change.surface}, token ${change.token_name ?? change.token_id}`;
  return (
    <>
      {change.user_email ?? change.user_id}
      <br />
      <span class="small muted">{via}</span>
    </>
  );
}

function Changes({ change, names }: { change: ChangeRow; names?: KnownNames | undefined }) {
  const spec = registerPageByKind(change.kind)?.spec;
  // A state or category reads as its label ("In treatment"), anything else as shown() puts it.
  const value = (field: string, raw: unknown) =>
    typeof raw === 'string' && enumValuesOf(spec, field)?.includes(raw) ? valueLabel(raw) : shown(raw, names);
  const fields = changedFields(change).filter(
    // An add lists what was set, a delete what the record held; empty optional fields say nothing.
    (item) =>
      (change.action !== 'add' || shown(item.after, names) !== '—') &&
      (change.action !== 'delete' || shown(item.before, names) !== '—'),
  );
  if (fields.length === 0) return <span class="muted">no field changed</span>;
  return (
    <ul class="changes">
      {fields.map((item) => (
        <li>
          <strong>{fieldLabelOf(spec, item.field)}</strong>:{' '}
          {change.action === 'add' ? (
            <span>{value(item.field, item.after)}</span>
          ) : change.action === 'delete' ? (
            <del>{value(item.field, item.before)}</del>
          ) : (
            <>
              <del>{value(item.field, item.before)}</del> → <ins>{value(item.field, item.after)}</ins>
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
                          <a href={href} dir="auto">
                            {names.get(change.record_id)?.name}
                          </a>
                        ) : (
                          <bdi>{names.get(change.record_id)?.name}</bdi>
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
                  <Badge tone={ACTION_TONES[change.action]}>
                    {ACTION_LABELS[change.action] ?? change.action}
                  </Badge>
                  <details class="technical">
                    <summary>Details</summary>
                    <span class="small">
                      tool <code>{change.tool}</code>
                      {change.call_id && (
                        <>
                          , call <code>{change.call_id}</code>
                        </>
                      )}
                    </span>
                  </details>
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
