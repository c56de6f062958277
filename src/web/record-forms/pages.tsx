// The record form and delete confirmation pages, and the add/edit/delete links the register pages show.

import type { ChangeRow } from '../../tools/changes.ts';
import type { DeleteEffects, PointingField } from '../../tools/registers/references.ts';
import { fieldLabelOf } from '../../tools/registers/spec.ts';
import { ConfirmPage } from '../confirm-page.tsx';
import type { Membership } from '../context.ts';
import { HistoryTable } from '../history-table.tsx';
import { valueLabel } from '../labels.ts';
import { CsrfField, Layout, type Viewer } from '../layout.tsx';
import { displayName, type RegisterPage, registerPageByKind } from '../register-pages.ts';
import type { Pickers } from '../tool-calls.ts';
import { controlId, FieldControl } from './controls.tsx';
import type { FormErrors, FormField, FormValues } from './fields.ts';

/** The record changed while the person edited it: what changed (from the history) and the current values. */
export interface EditConflict {
  changes: ChangeRow[];
  current: FormValues;
}

/** A form value as a person reads it: a choice's name, an enum's label, a list joined, nothing as a dash. */
function readable(field: FormField, value: string | string[] | undefined, pickers: Pickers): string {
  const items = (Array.isArray(value) ? value : [value ?? '']).map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) return '—';
  const choices = field.target ? pickers[field.target]?.choices : undefined;
  return items
    .map(
      (item) =>
        choices?.find((choice) => choice.id === item)?.name ??
        (field.kind === 'enum' ? valueLabel(item) : item),
    )
    .join(', ');
}

/** Yours beside the current version, for the fields where they differ. */
function ConflictPanel(props: {
  conflict: EditConflict;
  fields: FormField[];
  values: FormValues;
  pickers: Pickers;
  organizationId: string;
  label: string;
  reloadHref: string;
}) {
  const differing = props.fields.filter(
    (field) =>
      readable(field, props.values[field.name], props.pickers) !==
      readable(field, props.conflict.current[field.name], props.pickers),
  );
  return (
    <section class="notice warn conflict" aria-labelledby="conflict-title">
      <h2 id="conflict-title">Changed while you were editing</h2>
      <p>
        Your values are kept in the form below. <strong>Save changes</strong> applies them to the current
        version of this {props.label}; <a href={props.reloadHref}>reload the form</a> to start again from the
        current version.
      </p>
      {differing.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Fields where your values and the current version differ.</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Yours</th>
                <th scope="col">Current version</th>
              </tr>
            </thead>
            <tbody>
              {differing.map((field) => (
                <tr>
                  <th scope="row">{field.label}</th>
                  <td>
                    <bdi>{readable(field, props.values[field.name], props.pickers)}</bdi>
                  </td>
                  <td>
                    <bdi>{readable(field, props.conflict.current[field.name], props.pickers)}</bdi>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <HistoryTable
        changes={props.conflict.changes}
        organizationId={props.organizationId}
        showRecord={false}
        caption="What was changed meanwhile, newest first."
      />
    </section>
  );
}

type Row = Record<string, unknown>;

export function RecordFormPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  fields: FormField[];
  values: FormValues;
  pickers: Pickers;
  errors?: FormErrors;
  record?: Row;
  expectedUpdatedAt?: string;
  /** The save was refused because the record changed meanwhile. */
  conflict?: EditConflict;
}) {
  const { page, membership, record, errors } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const editing = record !== undefined;
  const recordHref = editing ? `${base}/${String(record.id)}` : base;
  const action = editing ? `${recordHref}/edit` : `${base}/new`;
  const title = editing ? `Edit ${page.spec.label}: ${displayName(record)}` : `Add ${page.spec.label}`;
  const fieldErrors = errors?.fields ?? {};
  const erroneous = props.fields.filter((field) => fieldErrors[field.name]);
  // Keyboard users start where there is work: the first field in error, else the first field of a new record.
  const focusField = erroneous[0] ?? (editing ? undefined : props.fields[0]);
  return (
    <Layout
      title={`${title} · ${page.title}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
    >
      <p class="small">
        <a href={base}>{page.title}</a> ›{' '}
        {editing && (
          <>
            <a href={recordHref}>{displayName(record)}</a> ›
          </>
        )}
      </p>
      <h1>{title}</h1>
      {props.conflict && editing && (
        <ConflictPanel
          conflict={props.conflict}
          fields={props.fields}
          values={props.values}
          pickers={props.pickers}
          organizationId={membership.organizationId}
          label={page.spec.label}
          reloadHref={`${recordHref}/edit`}
        />
      )}
      {errors && (errors.form || erroneous.length > 0) && (
        <div class="notice error" role="alert" id="form-errors">
          <p>
            <strong>
              {editing ? 'The changes were not saved.' : `The ${page.spec.label} was not added.`}
            </strong>{' '}
            {errors.form}
          </p>
          {errors.stale && editing && (
            <p>
              <a href={`${recordHref}/edit`}>Reload the form</a> to see the current values (what you typed
              below will be lost: copy what you need first).
            </p>
          )}
          {erroneous.length > 0 && (
            <ul>
              {erroneous.map((field) => (
                <li>
                  <a href={`#${controlId(field)}`}>
                    {field.label}: {fieldErrors[field.name]}
                  </a>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <form method="post" action={action} class="card">
        <CsrfField token={props.viewer.csrfToken} />
        {editing && props.expectedUpdatedAt && (
          <input type="hidden" name="expected_updated_at" value={props.expectedUpdatedAt} />
        )}
        {props.fields.map((field) => (
          <FieldControl
            field={field}
            autofocus={field === focusField}
            value={props.values[field.name] ?? ''}
            {...(fieldErrors[field.name] ? { error: fieldErrors[field.name] } : {})}
            {...(field.target && props.pickers[field.target] ? { picker: props.pickers[field.target] } : {})}
          />
        ))}
        <div class="actions">
          <button type="submit">{editing ? 'Save changes' : `Add ${page.spec.label}`}</button>
          <a href={recordHref}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}

export function DeletePage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  record: Row;
  effects: DeleteEffects;
  error?: string;
}) {
  const { page, membership, record } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const recordHref = `${base}/${String(record.id)}`;
  const name = displayName(record);
  return (
    <ConfirmPage
      viewer={props.viewer}
      title={`Delete ${page.spec.label} · ${page.title}`}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
      crumbs={
        <>
          <a href={base}>{page.title}</a> › <a href={recordHref}>{name}</a> ›
        </>
      }
      heading={`Delete ${page.spec.label} “${name}”?`}
      error={props.error}
      action={`${recordHref}/delete`}
      button={`Delete ${page.spec.label}`}
      cancelHref={recordHref}
      cancelLabel="Cancel, keep it"
    >
      <p>This permanently deletes the {page.spec.label}. It cannot be undone.</p>
      {deleteConsequences(props.effects).map((sentence) => (
        <p>{sentence}</p>
      ))}
    </ConfirmPage>
  );
}

/** "the owner of risks, the business owner of vendors": fields of other registers, in people's words. */
function pointingFields(fields: PointingField[]): string {
  return fields
    .map(({ kind, field }) => {
      const page = registerPageByKind(kind);
      return `the ${fieldLabelOf(page?.spec, field).toLowerCase()} of ${page?.spec.labelPlural ?? kind}`;
    })
    .join(', ');
}

/** What the delete does to the records pointing at this one, from the register's delete effects. */
export function deleteConsequences(effects: DeleteEffects): string[] {
  const blocking = [
    ...new Set(effects.blockedBy.map(({ kind }) => registerPageByKind(kind)?.spec.labelPlural)),
  ];
  const deleted = [...new Set(effects.deletes.map(({ kind }) => registerPageByKind(kind)?.spec.labelPlural))];
  return [
    deleted.length > 0 ? `Its ${deleted.join(', ')} are deleted with it, each with its history.` : '',
    effects.clears.length > 0
      ? `Where they point at it, these fields are cleared: ${pointingFields(effects.clears)}.`
      : '',
    effects.removesFrom.length > 0 ? `It is taken out of ${pointingFields(effects.removesFrom)}.` : '',
    blocking.length > 0 ? `It cannot be deleted while ${blocking.join(', ')} still point at it.` : '',
  ].filter(Boolean);
}
