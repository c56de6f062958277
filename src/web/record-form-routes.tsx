// Add, edit and delete records of every register, with forms generated from the tools' input schemas.
import type { Context, Hono } from 'hono';
import { WRITER_ROLES } from '../auth/principal.ts';
import type { AppError } from '../errors.ts';
import { invokeTool } from '../surfaces/invoke.ts';
import { capitalize, orderFieldsOf, type RegisterKind } from '../tools/register.ts';
import { contextOutsideSeam, type Tool } from '../tools/types.ts';
import { type Membership, type WebDeps, type WebEnv, webPrincipal, webWriterPrincipal } from './context.ts';
import { setFlash } from './flash.ts';
import { CsrfField, Layout, Notice, type Viewer } from './layout.tsx';
import { membershipOf } from './organization-routes.tsx';
import {
  argumentsFromValues,
  defaultValues,
  type FormErrors,
  type FormField,
  type FormValues,
  formErrorsOf,
  formFieldsOf,
  listToolFor,
  valuesFromBody,
  valuesFromRecord,
} from './record-form.ts';
import { displayName, type RegisterPage, registerPageByKind, registerPageBySlug } from './register-pages.ts';
import { errorPage, notFoundPage, sendPage } from './render.tsx';
import { viewerOf } from './viewer.ts';

type Row = Record<string, unknown>;

/** A picker lists this many records at most; a register with more takes an id, with suggestions. */
const PICKER_LIMIT = 100;

interface Picker {
  choices: { id: string; name: string }[];
  /** False when the register holds more records than the picker lists. */
  complete: boolean;
  total: number;
  /** Where to look a record up when the picker cannot list them all. */
  registerHref: string;
}

type Pickers = Partial<Record<RegisterKind, Picker>>;

export function mayWrite(membership: Membership): boolean {
  return WRITER_ROLES.has(membership.role);
}

// ---- pieces the register pages show --------------------------------------------------------------------------

/** "Add <kind>" on a register page, for members who may write. */
export function AddRecordLink({ membership, page }: { membership: Membership; page: RegisterPage }) {
  if (!mayWrite(membership)) return null;
  return (
    <p class="actions">
      <a class="button" href={`/orgs/${membership.organizationId}/${page.slug}/new`}>
        Add {page.spec.label}
      </a>
    </p>
  );
}

/** Edit and delete links on a record page, for members who may write. */
export function RecordActions(props: { membership: Membership; page: RegisterPage; record: Row }) {
  if (!mayWrite(props.membership)) return null;
  const base = `/orgs/${props.membership.organizationId}/${props.page.slug}/${String(props.record.id)}`;
  return (
    <p class="actions">
      <a class="button" href={`${base}/edit`}>
        Edit {props.page.spec.label}
      </a>
      <a class="button quiet" href={`${base}/delete`}>
        Delete {props.page.spec.label}
      </a>
    </p>
  );
}

// ---- form controls ------------------------------------------------------------------------------------------

function controlId(field: FormField): string {
  return `field-${field.name}`;
}

function FieldControl(props: {
  field: FormField;
  value: string | string[];
  error?: string;
  picker?: Picker;
  autofocus?: boolean;
}) {
  const { field, error, picker } = props;
  const id = controlId(field);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy || undefined,
    'aria-invalid': error ? ('true' as const) : undefined,
    autofocus: props.autofocus || undefined,
  };
  const text = typeof props.value === 'string' ? props.value : props.value.join('\n');
  const label = `${field.label}${field.required ? '' : ' (optional)'}`;
  const hint = field.description && (
    <span class="hint" id={hintId}>
      {field.kind === 'list' ? `${field.description} One per line.` : field.description}
    </span>
  );
  const errorText = error && (
    <span class="hint error-text" id={errorId}>
      {error}
    </span>
  );

  if (field.kind === 'refs') {
    const selected = new Set(Array.isArray(props.value) ? props.value : []);
    if (picker?.complete) {
      return (
        <fieldset aria-describedby={describedBy || undefined} id={id}>
          <legend>{label}</legend>
          {picker.choices.length === 0 && <p class="muted small">None in this organization yet.</p>}
          {picker.choices.map((choice) => (
            <label class="choice">
              <input type="checkbox" name={field.name} value={choice.id} checked={selected.has(choice.id)} />
              <span>{choice.name}</span>
            </label>
          ))}
          {hint}
          {errorText}
        </fieldset>
      );
    }
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input {...common} type="text" value={[...selected].join(', ')} />
        <span class="hint">
          Ids separated by commas. There are {picker?.total ?? 'many'} records:{' '}
          {picker && (
            <a href={picker.registerHref} target="_blank" rel="noopener">
              find their ids in the register
            </a>
          )}
          .
        </span>
        {hint}
        {errorText}
      </div>
    );
  }

  let control: unknown;
  if (field.kind === 'ref') {
    if (picker?.complete) {
      const known = picker.choices.some((choice) => choice.id === text);
      control = (
        <select {...common} required={field.required}>
          <option value="">{field.required ? 'Choose…' : '— none —'}</option>
          {picker.choices.map((choice) => (
            <option value={choice.id} selected={choice.id === text}>
              {choice.name}
            </option>
          ))}
          {text && !known && (
            <option value={text} selected>
              {text}
            </option>
          )}
        </select>
      );
    } else {
      const listId = `${id}-choices`;
      control = (
        <>
          <input {...common} type="text" value={text} list={listId} required={field.required} />
          <datalist id={listId}>
            {(picker?.choices ?? []).map((choice) => (
              <option value={choice.id} label={choice.name} />
            ))}
          </datalist>
          <span class="hint">
            An id. Suggestions list {picker?.choices.length ?? 0} of {picker?.total ?? 0};{' '}
            {picker && (
              <a href={picker.registerHref} target="_blank" rel="noopener">
                search the register
              </a>
            )}{' '}
            for the others.
          </span>
        </>
      );
    }
  } else if (field.kind === 'enum') {
    const empty = !field.required && field.defaultValue === undefined;
    control = (
      <select {...common}>
        {empty && <option value="">— none —</option>}
        {field.options.map((option) => (
          <option value={option} selected={option === text}>
            {option.replace(/_/g, ' ')}
          </option>
        ))}
        {text && !field.options.includes(text) && (
          <option value={text} selected>
            {text}
          </option>
        )}
      </select>
    );
  } else if (field.kind === 'boolean') {
    return (
      <div class="field">
        <label class="choice">
          <input {...common} type="checkbox" value="true" checked={text === 'true'} />
          <span>{label}</span>
        </label>
        {hint}
        {errorText}
      </div>
    );
  } else if (field.kind === 'textarea' || field.kind === 'list') {
    control = (
      <textarea {...common} rows={field.kind === 'list' ? 3 : 4} maxlength={field.maxLength}>
        {text}
      </textarea>
    );
  } else {
    const type =
      field.kind === 'integer' || field.kind === 'number'
        ? 'number'
        : field.kind === 'date' || field.kind === 'url' || field.kind === 'email'
          ? field.kind
          : 'text';
    control = (
      <input
        {...common}
        type={type}
        value={text}
        required={field.required}
        min={field.min}
        max={field.max}
        step={field.kind === 'number' ? 'any' : undefined}
        maxlength={field.maxLength}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {hint}
      {errorText}
    </div>
  );
}

// ---- pages --------------------------------------------------------------------------------------------------

function RecordFormPage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  fields: FormField[];
  values: FormValues;
  pickers: Pickers;
  errors?: FormErrors;
  record?: Row;
  expectedUpdatedAt?: string;
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

function DeletePage(props: {
  viewer: Viewer;
  membership: Membership;
  page: RegisterPage;
  record: Row;
  consequences: string[];
  error?: string;
}) {
  const { page, membership, record } = props;
  const base = `/orgs/${membership.organizationId}/${page.slug}`;
  const recordHref = `${base}/${String(record.id)}`;
  const name = displayName(record);
  return (
    <Layout
      title={`Delete ${page.spec.label} · ${page.title}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: page.slug }}
    >
      <p class="small">
        <a href={base}>{page.title}</a> › <a href={recordHref}>{name}</a> ›
      </p>
      <h1>
        Delete {page.spec.label} “{name}”?
      </h1>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <div class="card">
        <p>This permanently deletes the {page.spec.label}. It cannot be undone.</p>
        {props.consequences.map((sentence) => (
          <p>{sentence}</p>
        ))}
        <form method="post" action={`${recordHref}/delete`}>
          <CsrfField token={props.viewer.csrfToken} />
          <div class="actions">
            <button type="submit" class="danger">
              Delete {page.spec.label}
            </button>
            <a href={recordHref}>Cancel, keep it</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}

// ---- routes -------------------------------------------------------------------------------------------------

export function registerRecordFormRoutes(web: Hono<WebEnv>, deps: WebDeps): void {
  function toolNamed(name: string): Tool {
    const tool = deps.tools.get(name);
    if (!tool) throw new Error(`The tool map has no ${name}`);
    return tool;
  }

  /** A write on the person's behalf, through the one invocation seam, with exactly their role's rights. */
  function write(c: Context<WebEnv>, name: string, args: Row) {
    const principal = webWriterPrincipal(c.get('user'), c.get('memberships'));
    return invokeTool(deps.invoke, toolNamed(name), args, principal, 'web', c.get('requestId'));
  }

  function read(c: Context<WebEnv>, name: string, args: Row) {
    const principal = webPrincipal(c.get('user'), c.get('memberships'));
    return invokeTool(deps.invoke, toolNamed(name), args, principal, 'web', c.get('requestId'));
  }

  /** The choices of each register the form's references point into (up to PICKER_LIMIT, by name). */
  async function loadPickers(
    c: Context<WebEnv>,
    organizationId: string,
    fields: FormField[],
  ): Promise<Pickers> {
    const kinds = new Set(fields.map((field) => field.target).filter((kind): kind is RegisterKind => !!kind));
    const ctx = contextOutsideSeam(
      deps.database.db,
      webPrincipal(c.get('user'), c.get('memberships')),
      deps.now,
      'web',
    );
    const pickers: Pickers = {};
    await Promise.all(
      [...kinds].map(async (kind) => {
        const page = registerPageByKind(kind);
        const tool = listToolFor(deps.tools, kind);
        if (!page || !tool) return;
        const sortField = ['name', 'full_name', 'reference_id'].find(
          (field) => field in orderFieldsOf(page.spec),
        );
        // Lookups for the form only: run directly (parsed by the tool's schema), not logged as calls of their own.
        const result = await tool.run(
          ctx,
          tool.input.parse({
            organization_id: organizationId,
            size: PICKER_LIMIT,
            ...(sortField ? { order_by: { field: sortField, direction: 'ASC' } } : {}),
          }),
        );
        const records = (result[page.spec.listKey] as Row[] | undefined) ?? [];
        const total = Number(result.total_count ?? records.length);
        pickers[kind] = {
          choices: records.map((record) => ({ id: String(record.id), name: displayName(record) })),
          complete: total <= records.length,
          total,
          registerHref: `/orgs/${organizationId}/${page.slug}`,
        };
      }),
    );
    return pickers;
  }

  /** The membership and register of the URL, if the person may write there; else the page to send instead. */
  function writableContext(c: Context<WebEnv>) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    const page = registerPageBySlug(c.req.param('register') ?? '');
    if (!membership || !page) return { refused: notFoundPage(c, viewerOf(c)) } as const;
    if (!mayWrite(membership)) {
      return {
        refused: errorPage(
          c,
          403,
          'Not allowed',
          `Your role in ${membership.name} is ${membership.role}; adding, changing and deleting records needs OWNER, ADMIN or EDITOR.`,
          viewerOf(c),
          { kind: 'organization', organizationId: membership.organizationId, page: page.slug },
        ),
      } as const;
    }
    return { membership, page, fields: formFieldsOf(page.spec, deps.tools) } as const;
  }

  /** The record of the URL, read through the get tool, if it belongs to the organization of the URL. */
  async function recordOf(
    c: Context<WebEnv>,
    membership: Membership,
    page: RegisterPage,
  ): Promise<Row | null> {
    const id = c.req.param('id') ?? '';
    if (!id.startsWith(`${page.spec.prefix}_`)) return null;
    const outcome = await read(c, `get${page.spec.noun}`, { id });
    if (!outcome.ok) return null;
    const record = outcome.result[page.spec.key] as Row | undefined;
    return record && record.organization_id === membership.organizationId ? record : null;
  }

  function refusedPage(c: Context<WebEnv>, error: AppError, membership: Membership, page: RegisterPage) {
    return errorPage(c, error.status as 403, 'Not allowed', error.message, viewerOf(c), {
      kind: 'organization',
      organizationId: membership.organizationId,
      page: page.slug,
    });
  }

  /** Links and unlinks so that the relation holds exactly `wanted`; returns the messages of refused changes. */
  async function syncLinks(
    c: Context<WebEnv>,
    field: FormField,
    ownerId: string,
    current: string[],
    wanted: string[],
  ) {
    const links = field.links;
    if (!links) return [];
    const failures: string[] = [];
    const change = async (tool: string, targetId: string) => {
      const outcome = await write(c, tool, {
        [links.ownerArgument]: ownerId,
        [links.targetArgument]: targetId,
      });
      if (!outcome.ok) failures.push(outcome.error.message);
    };
    for (const id of wanted.filter((item) => !current.includes(item))) await change(links.link, id);
    for (const id of current.filter((item) => !wanted.includes(item))) await change(links.unlink, id);
    return failures;
  }

  async function formPage(
    c: Context<WebEnv>,
    props: {
      membership: Membership;
      page: RegisterPage;
      fields: FormField[];
      values: FormValues;
      errors?: FormErrors;
      record?: Row;
      expectedUpdatedAt?: string;
    },
    status: 200 | 400 | 403 | 404 | 409 = 200,
  ) {
    const pickers = await loadPickers(c, props.membership.organizationId, props.fields);
    return sendPage(c, <RecordFormPage viewer={viewerOf(c)} pickers={pickers} {...props} />, status);
  }

  web.get('/orgs/:org/:register/new', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    return formPage(c, { ...context, values: defaultValues(context.fields) });
  });

  web.post('/orgs/:org/:register/new', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page, fields } = context;
    const values = valuesFromBody(fields, await c.req.parseBody({ all: true }));
    const outcome = await write(c, `add${page.spec.noun}`, {
      organization_id: membership.organizationId,
      ...argumentsFromValues(fields, values, 'add'),
    });
    if (!outcome.ok) {
      if (outcome.error.code === 'insufficient_scope') return refusedPage(c, outcome.error, membership, page);
      const errors = formErrorsOf(outcome.error, fields, values);
      return formPage(
        c,
        { ...context, values, errors: { ...errors, stale: false } },
        outcome.error.status as 400,
      );
    }
    const record = outcome.result[page.spec.key] as Row;
    const failures: string[] = [];
    for (const field of fields.filter((item) => item.links)) {
      const wanted = values[field.name];
      failures.push(
        ...(await syncLinks(c, field, String(record.id), [], Array.isArray(wanted) ? wanted : [])),
      );
    }
    setFlash(
      c,
      `${capitalize(page.spec.label)} “${displayName(record)}” was added.${failures.length > 0 ? ` Some links were refused: ${failures.join(' ')}` : ''}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}/${String(record.id)}`, 303);
  });

  web.get('/orgs/:org/:register/:id/edit', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const record = await recordOf(c, context.membership, context.page);
    if (!record) return notFoundPage(c, viewerOf(c));
    return formPage(c, {
      ...context,
      record,
      values: valuesFromRecord(context.fields, record),
      expectedUpdatedAt: String(record.updated_at),
    });
  });

  web.post('/orgs/:org/:register/:id/edit', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page, fields } = context;
    const record = await recordOf(c, membership, page);
    if (!record) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const values = valuesFromBody(fields, body);
    const expected = typeof body.expected_updated_at === 'string' ? body.expected_updated_at : undefined;
    const outcome = await write(c, `update${page.spec.noun}`, {
      id: record.id,
      ...argumentsFromValues(fields, values, 'update'),
      ...(expected ? { expected_updated_at: expected } : {}),
    });
    if (!outcome.ok) {
      if (outcome.error.code === 'insufficient_scope') return refusedPage(c, outcome.error, membership, page);
      return formPage(
        c,
        {
          ...context,
          record,
          values,
          errors: formErrorsOf(outcome.error, fields, values),
          ...(expected ? { expectedUpdatedAt: expected } : {}),
        },
        outcome.error.status as 400,
      );
    }
    const saved = outcome.result[page.spec.key] as Row;
    const failures: string[] = [];
    for (const field of fields.filter((item) => item.links)) {
      const current = Array.isArray(saved[field.name]) ? (saved[field.name] as unknown[]).map(String) : [];
      const wanted = values[field.name];
      failures.push(
        ...(await syncLinks(c, field, String(record.id), current, Array.isArray(wanted) ? wanted : [])),
      );
    }
    setFlash(
      c,
      `${capitalize(page.spec.label)} “${displayName(saved)}” was saved.${failures.length > 0 ? ` Some links were refused: ${failures.join(' ')}` : ''}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}/${String(record.id)}`, 303);
  });

  function consequencesOf(page: RegisterPage): string[] {
    // The delete tool's own description says what happens to the records that point at it.
    const description = toolNamed(`delete${page.spec.noun}`).description;
    return description
      .split(/(?<=\.)\s+/)
      .filter((sentence) => /^(Records that|Refused)/.test(sentence))
      .map((sentence) => sentence.replace(/^Refused \(conflict\) while/, 'It cannot be deleted while'));
  }

  web.get('/orgs/:org/:register/:id/delete', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const record = await recordOf(c, context.membership, context.page);
    if (!record) return notFoundPage(c, viewerOf(c));
    return sendPage(
      c,
      <DeletePage
        viewer={viewerOf(c)}
        membership={context.membership}
        page={context.page}
        record={record}
        consequences={consequencesOf(context.page)}
      />,
    );
  });

  web.post('/orgs/:org/:register/:id/delete', async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page } = context;
    const record = await recordOf(c, membership, page);
    if (!record) return notFoundPage(c, viewerOf(c));
    const outcome = await write(c, `delete${page.spec.noun}`, { id: record.id });
    if (!outcome.ok) {
      if (outcome.error.code === 'insufficient_scope') return refusedPage(c, outcome.error, membership, page);
      return sendPage(
        c,
        <DeletePage
          viewer={viewerOf(c)}
          membership={membership}
          page={page}
          record={record}
          consequences={consequencesOf(page)}
          error={outcome.error.message}
        />,
        outcome.error.status as 409,
      );
    }
    setFlash(c, `${capitalize(page.spec.label)} “${displayName(record)}” was deleted.`);
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}`, 303);
  });
}
