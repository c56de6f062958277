// The table of changes the record pages and the history page show: who, when, how, and each field before and after.
import type { ChangeRow } from '../tools/changes.ts';
import { enumValuesOf, fieldLabelOf } from '../tools/registers/spec.ts';
import { ACTION_LABELS, SURFACE_LABELS, valueLabel } from './labels.ts';
import { Badge, Time } from './layout.tsx';
import { registerPageByKind } from './register-pages.ts';

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
      {change.person_id
        ? `${change.person_name ?? change.person_id} (by link)`
        : (change.user_email ?? change.user_id)}
      <br />
      <span class="small muted">{via}</span>
      {change.proposal_id && (
        <>
          <br />
          <span class="small muted">
            approved proposal {change.proposal_id}, proposed with token {change.proposed_by_token_id}
            {change.proposed_by_client ? ` (client ${change.proposed_by_client})` : ''}
          </span>
        </>
      )}
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

/**
 * The changes grouped into saves, newest first: a form that changed a risk and linked two measures made three tool
 * calls under one call id (the web gives one to a request's writes; a tool call's own links share its id), so one
 * entry. Consecutive changes of the same record and call id group; changes without a call id stand alone.
 */
export function groupSaves(changes: readonly ChangeRow[]): ChangeRow[][] {
  const groups: ChangeRow[][] = [];
  for (const change of changes) {
    const group = groups.at(-1);
    const last = group?.at(-1);
    const same =
      group !== undefined &&
      last !== undefined &&
      change.call_id !== null &&
      last.call_id === change.call_id &&
      last.record_id === change.record_id;
    if (same) group.push(change);
    else groups.push([change]);
  }
  return groups;
}

/** The order a save's actions are named in: what it did to the record first, then its links. */
const ACTION_ORDER = ['add', 'update', 'delete', 'link', 'unlink'];

/** The changes as a table of saves, newest first; `showRecord` adds which record each one changed (organization history). */
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
            <th scope="col" class="fields">
              Fields
            </th>
          </tr>
        </thead>
        <tbody>
          {groupSaves(changes).map((save) => {
            const [change] = save as [ChangeRow, ...ChangeRow[]];
            const href = recordHref(organizationId, change);
            const actions = [...new Set(save.map((item) => item.action))].sort(
              (a, b) => ACTION_ORDER.indexOf(a) - ACTION_ORDER.indexOf(b),
            );
            // Oldest first within a save, as it happened.
            const steps = [...save].reverse();
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
                      href ? (
                        <a href={href} dir="auto">
                          {names.get(change.record_id)?.name}
                        </a>
                      ) : (
                        <bdi>{names.get(change.record_id)?.name}</bdi>
                      )
                    ) : href ? (
                      <a href={href}>{change.record_id}</a>
                    ) : (
                      <code>{change.record_id}</code>
                    )}
                  </td>
                )}
                <td>
                  {actions.map((action) => (
                    <>
                      <Badge tone={ACTION_TONES[action]}>{ACTION_LABELS[action] ?? action}</Badge>{' '}
                    </>
                  ))}
                  <details class="technical">
                    <summary>Details</summary>
                    <ul class="small plain">
                      {showRecord && (
                        <li>
                          record <code>{change.record_id}</code>
                        </li>
                      )}
                      {steps.map((step) => (
                        <li>
                          tool <code>{step.tool}</code>
                          {step.call_id && (
                            <>
                              , call <code>{step.call_id}</code>
                            </>
                          )}
                        </li>
                      ))}
                    </ul>
                  </details>
                </td>
                <td>
                  {steps.map((step) => (
                    <Changes change={step} names={names} />
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
