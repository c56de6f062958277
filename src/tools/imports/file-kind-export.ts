// The export of a file kind (file-kinds.ts): a questionnaire template or an audit's checklist results, as the CSV an
// import reads back (a header, then a row per question or per requirement) or as the JSON the read tools answer. The
// records are read through the read tools (getQuestionnaireTemplate, listAuditChecklist), so the caller's reach holds.
import { type ChecklistItemForFile, checklistFileHeader, checklistFileRow } from '../audit-checklist-file.ts';
import { AUDIT_CHECKLIST, REGISTERS } from '../index.ts';
import { type TemplateForFile, templateFileRows } from '../questionnaires/template-file.ts';
import { getQuestionnaireTemplate } from '../questionnaires/templates.ts';
import type { Tool } from '../types.ts';
import type { FileKind } from './file-kinds.ts';

type Row = Record<string, unknown>;

/** Runs a read tool as the caller (the web's calls, the CLI's owner context). */
export type ReadTool = (tool: Tool, input: Row) => Promise<Row>;

/** Checklist items read a page at a time (the list's largest page). */
const CHECKLIST_PAGE = 200;

export interface FileKindExport {
  /** The rows of the CSV, the header first. */
  rows: (string | number)[][];
  /** What the read tools answered: the template, or the audit and every item of its checklist. */
  json: Row;
  /** A name for the file: the template's name, or the audit's. */
  name: string;
  /** The organization the template or the audit belongs to. */
  organizationId: string;
}

/** The file of one template (`id`: `qtp_...`) or of one audit's checklist (`id`: `aud_...`). */
export async function exportFileKind(read: ReadTool, kind: FileKind, id: string): Promise<FileKindExport> {
  if (kind === 'questionnaire_template') {
    const template = (await read(getQuestionnaireTemplate, { id })).questionnaire_template as Row;
    return {
      rows: templateFileRows(template as unknown as TemplateForFile),
      json: template,
      name: String(template.name),
      organizationId: String(template.organization_id),
    };
  }
  const owner = ((await read(REGISTERS.audit.get, { id })).audit as Row).organization_id;
  const items: Row[] = [];
  let audit: Row = {};
  let cursor: unknown;
  do {
    const page = await read(AUDIT_CHECKLIST.list, {
      audit_id: id,
      size: CHECKLIST_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    audit = page.audit as Row;
    items.push(...(page.items as Row[]));
    cursor = page.next_cursor;
  } while (cursor);
  return {
    rows: [
      checklistFileHeader(),
      ...items.map((item) => checklistFileRow(item as unknown as ChecklistItemForFile)),
    ],
    json: { audit, items },
    name: `${String(audit.name ?? audit.id)} checklist`,
    organizationId: String(owner),
  };
}
