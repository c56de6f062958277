// Downloads of the kinds that travel as files beside the registers (src/tools/imports/file-kinds.ts): a questionnaire
// template (a row per question) and an audit's checklist results (a row per requirement), as the CSV importRecords
// reads back or as the JSON the read tools answer. Read through the tools as the signed-in member.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { AppError } from '../errors.ts';
import { exportFileKind, type FileKindExport } from '../tools/imports/file-kind-export.ts';
import type { FileKind } from '../tools/imports/file-kinds.ts';
import { membershipOf } from './access.ts';
import type { WebDeps, WebEnv } from './context.ts';
import { CSV_BOM, csvLine, downloadResponse } from './export.ts';
import { errorPage, notFoundPage } from './render.tsx';
import { webCalls } from './tool-calls.ts';
import { viewerOf } from './viewer.ts';

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

  web.get(`${TEMPLATE_PATH}.csv`, (c) => download(c, 'questionnaire_template', 'csv'));
  web.get(`${TEMPLATE_PATH}.json`, (c) => download(c, 'questionnaire_template', 'json'));
  web.get(`${CHECKLIST_PATH}.csv`, (c) => download(c, 'audit_checklist_result', 'csv'));
  web.get(`${CHECKLIST_PATH}.json`, (c) => download(c, 'audit_checklist_result', 'json'));
  return web;
}
