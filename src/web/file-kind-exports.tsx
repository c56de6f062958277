// The kinds that travel as files beside the registers (src/tools/imports/file-kinds.ts) in the web: a questionnaire
// template (a row per question) and an audit's checklist results (a row per requirement), downloaded as the CSV
// importRecords reads back or as the JSON the read tools answer, and uploaded (CSV or XLSX) into importRecords. Read
// and written through the tools as the signed-in member.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { AppError } from '../errors.ts';
import { isIdOf } from '../ids.ts';
import { exportFileKind, type FileKindExport } from '../tools/imports/file-kind-export.ts';
import type { FileKind } from '../tools/imports/file-kinds.ts';
import { importRecords } from '../tools/index.ts';
import { CSV_BOM, csvLine } from '../tools/tables/csv-writer.ts';
import { mayWrite, membershipOf, notAllowedPage } from './access.ts';
import type { WebDeps, WebEnv } from './context.ts';
import { downloadResponse } from './export.ts';
import { setFlash } from './flash.ts';
import { type FormBody, text } from './forms.tsx';
import { CsrfField, Layout, Notice } from './layout.tsx';
import { errorPage, notFoundPage, sendPage } from './render.tsx';
import { webCalls } from './tool-calls.ts';
import { csvOfFile, readWholeForm } from './uploads.ts';
import { viewerOf } from './viewer.ts';

/** The form that uploads a file of `kind` to `action` (the audit page's checklist, a vendor page's templates). */
export function FileKindImportForm(props: {
  action: string;
  csrfToken: string;
  label: string;
  back?: string;
}) {
  return (
    <form method="post" action={props.action} enctype="multipart/form-data" class="inline-form">
      <CsrfField token={props.csrfToken} />
      {props.back && <input type="hidden" name="back" value={props.back} />}
      <label for={`${props.action}-file`}>{props.label}</label>{' '}
      <input id={`${props.action}-file`} type="file" name="file" accept=".csv,.xlsx,text/csv" required />{' '}
      <button type="submit" class="quiet">
        Import
      </button>
    </form>
  );
}

const TEMPLATE_PATH = '/orgs/:org/questionnaire-templates/:id{qtp_[0-9a-z]+}/export';
const CHECKLIST_PATH = '/orgs/:org/audits/:id{aud_[0-9a-z]+}/checklist/export';

/** Where a template's or an audit checklist's file is downloaded (`.csv` or `.json` after it). */
export function fileKindExportPath(kind: FileKind, organizationId: string, id: string): string {
  return kind === 'questionnaire_template'
    ? `/orgs/${organizationId}/questionnaire-templates/${id}/export`
    : `/orgs/${organizationId}/audits/${id}/checklist/export`;
}

export function fileKindExportRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  async function download(c: Context<WebEnv>, kind: FileKind, format: 'csv' | 'json') {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const calls = webCalls(c, deps);
    let file: FileKindExport;
    try {
      file = await exportFileKind(
        async (tool, input) => {
          const outcome = await calls.read(tool, input);
          if (!outcome.ok) throw outcome.error;
          return outcome.result;
        },
        kind,
        c.req.param('id') ?? '',
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return notFoundPage(c, viewerOf(c));
      if (error instanceof AppError) return errorPage(c, 400, 'Not exported', error.message);
      throw error;
    }
    // The record is read as the member; through another organization's address it is not found.
    if (file.organizationId !== membership.organizationId) return notFoundPage(c, viewerOf(c));
    const text =
      format === 'csv'
        ? CSV_BOM + file.rows.map((row) => csvLine(row)).join('')
        : `${JSON.stringify(file.json, null, 2)}\n`;
    return downloadResponse(new Blob([text]).stream(), {
      organizationName: membership.name,
      what: file.name,
      date: deps.now(),
      format,
    });
  }

  /** An uploaded file imported in one call: back to `back` with a flash, or a page listing the refused rows. */
  async function upload(
    c: Context<WebEnv>,
    kind: FileKind,
    back: (organizationId: string, form: FormBody) => string,
  ) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'importing a file');
    const body = await readWholeForm(c);
    if (body instanceof Response) return body;
    const file = body.file;
    const refused = (message: string, details: { path: string; message: string }[] = []) =>
      sendPage(
        c,
        <Layout
          title={`Nothing was imported · ${membership.name}`}
          viewer={viewerOf(c)}
          section={{
            kind: 'organization',
            organizationId: membership.organizationId,
            page: kind === 'audit_checklist_result' ? 'audits' : 'vendors',
          }}
        >
          <h1>Nothing was imported</h1>
          <Notice kind="error">{message}</Notice>
          {details.length > 0 && (
            <ul>
              {details.map((detail) => (
                <li>
                  {detail.path}: {detail.message}
                </li>
              ))}
            </ul>
          )}
          <p>
            <a href={back(membership.organizationId, body)}>Back</a>
          </p>
        </Layout>,
        400,
      );
    if (!(file instanceof File) || file.size === 0) return refused('Choose a CSV or XLSX file to import.');
    let csv: string;
    try {
      csv = await csvOfFile(file, '', deps.config.maxBodyBytes);
    } catch (error) {
      return refused(error instanceof Error ? error.message : 'The file could not be read.');
    }
    const outcome = await webCalls(c, deps).write(importRecords, {
      organization_id: membership.organizationId,
      kind,
      csv,
      ...(kind === 'audit_checklist_result' ? { audit_id: c.req.param('id') } : {}),
    });
    if (!outcome.ok) {
      if (outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
      const details = Array.isArray(outcome.error.details)
        ? (outcome.error.details as { path: string; message: string }[])
        : [];
      return refused(outcome.error.message, details);
    }
    const { counts } = outcome.result as { counts: Record<string, number> };
    setFlash(
      c,
      `Imported ${file.name}: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged.`,
    );
    return c.redirect(back(membership.organizationId, body), 303);
  }

  web.post(`/orgs/:org/audits/:id{aud_[0-9a-z]+}/checklist/import`, (c) =>
    upload(c, 'audit_checklist_result', (org) => `/orgs/${org}/audits/${c.req.param('id')}`),
  );
  // Back to the vendor page the form was on, when the form names one of this organization's vendor pages.
  web.post('/orgs/:org/questionnaire-templates/import', (c) =>
    upload(c, 'questionnaire_template', (org, form) => {
      const vendors = `/orgs/${org}/vendors`;
      const asked = text(form, 'back');
      return asked.startsWith(`${vendors}/`) && isIdOf('ven', asked.slice(vendors.length + 1))
        ? asked
        : vendors;
    }),
  );

  web.get(`${TEMPLATE_PATH}.csv`, (c) => download(c, 'questionnaire_template', 'csv'));
  web.get(`${TEMPLATE_PATH}.json`, (c) => download(c, 'questionnaire_template', 'json'));
  web.get(`${CHECKLIST_PATH}.csv`, (c) => download(c, 'audit_checklist_result', 'csv'));
  web.get(`${CHECKLIST_PATH}.json`, (c) => download(c, 'audit_checklist_result', 'json'));
  return web;
}
