// The record forms' routes: add, edit and delete a record of any register through its tools, as the signed-in
// person (webCalls), with field errors shown next to the fields and links kept through the link tools.
import type { Context } from 'hono';
import { Hono } from 'hono';
import type { AppError } from '../../errors.ts';
import type { ChangeRow } from '../../tools/changes.ts';
import { listChanges } from '../../tools/index.ts';
import { capitalize } from '../../tools/registers/spec.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import {
  displayName,
  RECORD_PATH,
  REGISTER_PATH,
  type RegisterPage,
  registerPageBySlug,
} from '../register-pages.ts';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { type WebCalls, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';
import {
  argumentsFromValues,
  defaultValues,
  editFieldsOf,
  type FormErrors,
  type FormField,
  type FormValues,
  formErrorsOf,
  formFieldsOf,
  valuesFromBody,
  valuesFromRecord,
} from './fields.ts';
import { DeletePage, type EditConflict, RecordFormPage } from './pages.tsx';

type Row = Record<string, unknown>;

export function recordFormRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /** The membership and register of the URL, if the person may write there; else the page to send instead. */
  function writableContext(c: Context<WebEnv>) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    const page = registerPageBySlug(c.req.param('register') ?? '');
    if (!membership || !page) return { refused: notFoundPage(c, viewerOf(c)) } as const;
    if (!mayWrite(membership)) {
      return {
        refused: notAllowedPage(c, membership, 'adding, changing and deleting records', {
          kind: 'organization',
          organizationId: membership.organizationId,
          page: page.slug,
        }),
      } as const;
    }
    return { membership, page, fields: formFieldsOf(page) } as const;
  }

  /** The record of the URL, read through the get tool, if it belongs to the organization of the URL. */
  async function recordOf(
    c: Context<WebEnv>,
    membership: Membership,
    page: RegisterPage,
  ): Promise<Row | null> {
    const id = c.req.param('id') ?? '';
    if (!id.startsWith(`${page.spec.prefix}_`)) return null;
    const outcome = await webCalls(c, deps).read(page.tools.get, { id });
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
    calls: WebCalls,
    field: FormField,
    ownerId: string,
    current: string[],
    wanted: string[],
  ) {
    const links = field.links;
    if (!links) return [];
    const failures: string[] = [];
    const change = async (tool: typeof links.link, targetId: string) => {
      const outcome = await calls.write(tool, {
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
      conflict?: EditConflict;
    },
    status: 200 | 400 | 403 | 404 | 409 = 200,
  ) {
    const kinds = props.fields.flatMap((field) => (field.target ? [field.target] : []));
    const pickers = await webCalls(c, deps).pickers(props.membership.organizationId, kinds);
    // Editing: state fields offer the moves allowed from the record's current state.
    const fields = props.record ? editFieldsOf(props.page, props.fields, props.record) : props.fields;
    return sendPage(
      c,
      <RecordFormPage viewer={viewerOf(c)} pickers={pickers} {...props} fields={fields} />,
      status,
    );
  }

  web.get(`${REGISTER_PATH}/new`, async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    // Fields named in the query start filled in (`?record_ids=rsk_...`: a new task linked to a risk); the tool checks them.
    const query = c.req.queries();
    const given = valuesFromBody(
      context.fields.filter((field) => field.name in query),
      query,
    );
    return formPage(c, { ...context, values: { ...defaultValues(context.fields), ...given } });
  });

  web.post(`${REGISTER_PATH}/new`, async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page, fields } = context;
    const calls = webCalls(c, deps);
    const values = valuesFromBody(fields, await c.req.parseBody({ all: true }));
    const outcome = await calls.write(page.tools.add, {
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
        ...(await syncLinks(calls, field, String(record.id), [], Array.isArray(wanted) ? wanted : [])),
      );
    }
    setFlash(
      c,
      `${capitalize(page.spec.label)} “${displayName(record)}” was added.${failures.length > 0 ? ` Some links were refused: ${failures.join(' ')}` : ''}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}/${String(record.id)}`, 303);
  });

  web.get(`${RECORD_PATH}/edit`, async (c) => {
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

  web.post(`${RECORD_PATH}/edit`, async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page, fields } = context;
    const record = await recordOf(c, membership, page);
    if (!record) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const values = valuesFromBody(fields, body);
    const expected = typeof body.expected_updated_at === 'string' ? body.expected_updated_at : undefined;
    const calls = webCalls(c, deps);
    const outcome = await calls.write(page.tools.update, {
      id: record.id,
      ...argumentsFromValues(fields, values, 'update'),
      ...(expected ? { expected_updated_at: expected } : {}),
    });
    // Changed since the form was loaded (the record read at the top of this request is newer than the form): show
    // what changed and the current values beside the person's, and let the next save apply theirs to that version.
    const stale =
      !outcome.ok &&
      outcome.error.code === 'conflict' &&
      expected !== undefined &&
      Date.parse(String(record.updated_at)) !== Date.parse(expected);
    if (stale) {
      const since = await calls.run(listChanges, {
        organization_id: membership.organizationId,
        filter: { record_id: String(record.id), since: expected },
        size: 50,
      });
      return formPage(
        c,
        {
          ...context,
          record,
          values,
          expectedUpdatedAt: String(record.updated_at),
          conflict: {
            // `since` counts from the form's own version: the change that made it is not news.
            changes: ((since.changes as ChangeRow[] | undefined) ?? []).filter(
              (change) => Date.parse(change.created_at) > Date.parse(expected),
            ),
            current: valuesFromRecord(fields, record),
          },
        },
        409,
      );
    }
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
        ...(await syncLinks(calls, field, String(record.id), current, Array.isArray(wanted) ? wanted : [])),
      );
    }
    setFlash(
      c,
      `${capitalize(page.spec.label)} “${displayName(saved)}” was saved.${failures.length > 0 ? ` Some links were refused: ${failures.join(' ')}` : ''}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}/${String(record.id)}`, 303);
  });

  web.get(`${RECORD_PATH}/delete`, async (c) => {
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
        effects={context.page.tools.deleteEffects}
      />,
    );
  });

  web.post(`${RECORD_PATH}/delete`, async (c) => {
    const context = writableContext(c);
    if ('refused' in context) return context.refused;
    const { membership, page } = context;
    const record = await recordOf(c, membership, page);
    if (!record) return notFoundPage(c, viewerOf(c));
    const outcome = await webCalls(c, deps).write(page.tools.delete, { id: record.id });
    if (!outcome.ok) {
      if (outcome.error.code === 'insufficient_scope') return refusedPage(c, outcome.error, membership, page);
      return sendPage(
        c,
        <DeletePage
          viewer={viewerOf(c)}
          membership={membership}
          page={page}
          record={record}
          effects={page.tools.deleteEffects}
          error={outcome.error.message}
        />,
        outcome.error.status as 409,
      );
    }
    setFlash(c, `${capitalize(page.spec.label)} “${displayName(record)}” was deleted.`);
    return c.redirect(`/orgs/${membership.organizationId}/${page.slug}`, 303);
  });
  return web;
}
