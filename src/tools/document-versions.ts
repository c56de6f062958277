// A document's versions: approval by a listed approver, the list of versions, and the version in force on a date.
import { and, asc, desc, eq, getTableColumns, gte, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { documentApprovers, documents, documentVersions, people, storedFiles, users } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { DOWNLOAD_SCHEMAS, FILE_FACT_SCHEMAS, fileDownload } from './attached-files.ts';
import { changeAfterWrite } from './changes.ts';
import { caseInsensitiveEnum, dateSchema, idOf, timestampSchema } from './fields.ts';
import { addDays } from './overdue.ts';
import type { RegisterTools } from './registers/builder.ts';
import type { Row } from './registers/spec.ts';
import { APPROVE_DOCUMENT, DOCUMENT_VERSION_STATUSES } from './states.ts';
import {
  CHANGED_A_ROW,
  defineTool,
  READ_ANNOTATIONS,
  RECORD_SCHEMAS,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from './types.ts';

const documentId = idOf('doc', 'Document').describe('`doc_...` id.');
const nullableTime = (what: string) => timestampSchema.nullable().describe(what);

export const versionSchema = z
  .object({
    id: z.string().describe('Id of the version (`dcv_...`).'),
    document_id: z.string().describe('Its document (`doc_...`).'),
    number: z.number().int().describe('Version number, 1 for the first.'),
    status: caseInsensitiveEnum(DOCUMENT_VERSION_STATUSES).describe('State of this version.'),
    content: z.string().nullable().describe('Markdown text; null unless asked for.'),
    file_id: z.string().nullable().describe('Its stored file (`fil_...`), or null.'),
    ...FILE_FACT_SCHEMAS,
    approved_by_id: z.string().nullable().describe('Approver (`per_...`), null until approved.'),
    approved_at: nullableTime('When it was approved.'),
    published_at: nullableTime('When it came into force.'),
    superseded_at: nullableTime('When a later version replaced it.'),
    retired_at: nullableTime('When it was retired.'),
    created_at: timestampSchema.describe('When the version was started.'),
  })
  .describe('A document version.');

export type DocumentVersion = z.output<typeof versionSchema>;

RECORD_SCHEMAS.set(versionSchema, { label: 'document version', spelledOutIn: 'listDocumentVersions' });

const {
  organization_id: _organization,
  approved_by_user_id: _user,
  content,
  ...columns
} = getTableColumns(documentVersions);
/** A version's columns but its content, and its file's facts (null without a file). */
const listed = {
  ...columns,
  file_name: storedFiles.name,
  size: storedFiles.size,
  content_type: storedFiles.content_type,
  sha256: storedFiles.sha256,
};
/** The version's stored file, of the version's organization. */
const fileOfVersion = and(
  eq(storedFiles.id, documentVersions.file_id),
  eq(storedFiles.organization_id, documentVersions.organization_id),
);

/** The document's versions, newest first; with their content when asked. */
export async function versionsOf(
  ctx: ToolContext,
  id: string,
  withContent: boolean,
): Promise<DocumentVersion[]> {
  const rows = await ctx.db
    .select({ ...listed, content: withContent ? content : sql<null>`null` })
    .from(documentVersions)
    .leftJoin(storedFiles, fileOfVersion)
    .where(eq(documentVersions.document_id, id))
    .orderBy(desc(documentVersions.number));
  return rows as DocumentVersion[];
}

/**
 * The listed approver of the document whose email is the caller's account's, else null. Only an account whose
 * address is confirmed approves as the person of that address (anyone could make an account with someone's address).
 */
async function approverOf(ctx: ToolContext, documentId: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ id: people.id })
    .from(documentApprovers)
    .innerJoin(people, eq(people.id, documentApprovers.person_id))
    .innerJoin(users, sql`lower(${users.email}) = lower(${people.email})`)
    .where(
      and(
        eq(documentApprovers.document_id, documentId),
        eq(users.id, ctx.principal.userId),
        isNotNull(users.email_verified_at),
      ),
    )
    .orderBy(asc(people.id))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Approves the document's latest version, IN_REVIEW, by the approver `personId`: the document and the version become
 * APPROVED, the version records who and when, with a history row. The caller has checked that `personId` may.
 */
export async function approveLatestVersion(
  ctx: ToolContext,
  document: Row,
  personId: string,
  tool = APPROVE_DOCUMENT,
): Promise<void> {
  const id = String(document.id);
  if (document.status !== 'IN_REVIEW') {
    throw new AppError(
      'invalid_transition',
      `Only a document IN_REVIEW can be approved; this one is ${String(document.status)}. Submit it with updateDocument status IN_REVIEW.`,
      { field: 'status', current: document.status, requested: 'APPROVED', allowed: [] },
    );
  }
  const previous = String(document.updated_at);
  const now = ctx.now().toISOString();
  const at = now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
  const landed = sql`exists (select 1 from ${documents} where ${documents.id} = ${id} and ${documents.updated_at} = ${at} and ${documents.status} = 'APPROVED')`;
  const [updated] = await ctx.db.batch([
    ctx.db
      .update(documents)
      .set({ status: 'APPROVED', updated_at: at })
      .where(and(eq(documents.id, id), eq(documents.updated_at, previous), eq(documents.status, 'IN_REVIEW')))
      .returning({ id: documents.id }),
    changeAfterWrite(ctx, {
      tool,
      kind: 'document',
      recordId: id,
      organizationId: String(document.organization_id),
      action: 'update',
      before: { status: 'IN_REVIEW', approved_by_id: null },
      after: { status: 'APPROVED', approved_by_id: personId, approved_version: document.version },
      at,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
    ctx.db
      .update(documentVersions)
      .set({
        status: 'APPROVED',
        approved_by_id: personId,
        approved_by_user_id: ctx.principal.userId,
        approved_at: at,
      })
      .where(
        and(
          eq(documentVersions.document_id, id),
          eq(documentVersions.number, Number(document.version)),
          landed,
        ),
      ),
  ]);
  if ((updated as unknown[]).length === 0)
    throw new AppError(
      'conflict',
      'This document was changed by another request at the same time. Get it again and retry.',
    );
}

/** The version tools of the documents register, as handles. */
export interface DocumentVersionTools {
  listVersions: Tool;
  inForce: Tool;
  approve: Tool;
}

/** The version tools of the documents register: listDocumentVersions, getDocumentInForce, approveDocument. */
export function documentVersionTools(register: RegisterTools): DocumentVersionTools {
  const { records } = register;
  const listVersions = defineTool({
    name: 'listDocumentVersions',
    title: 'List document versions',
    description:
      "List a document's versions, newest first, with who approved each and when, and dates in force.",
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      document_id: documentId,
      include_content: z.boolean().default(false).describe("Include each version's Markdown."),
    }),
    output: z.object({ versions: z.array(versionSchema) }),
    async run(ctx, input) {
      await records.load(ctx, input.document_id, 'read');
      return { versions: await versionsOf(ctx, input.document_id, input.include_content) };
    },
  });

  const inForce = defineTool({
    name: 'getDocumentInForce',
    title: 'Get the document version in force',
    description:
      'Get the version of a document (a policy) in force on a day (at its end, UTC), with its content and file link; null if none.',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      document_id: documentId,
      on: dateSchema.describe('The day, YYYY-MM-DD.'),
    }),
    output: z.object({ version: versionSchema.nullable(), ...DOWNLOAD_SCHEMAS }),
    async run(ctx, input) {
      await records.load(ctx, input.document_id, 'read');
      const end = `${addDays(input.on, 1)}T00:00:00.000Z`;
      const [version] = await ctx.db
        .select({ ...listed, content })
        .from(documentVersions)
        .leftJoin(storedFiles, fileOfVersion)
        .where(
          and(
            eq(documentVersions.document_id, input.document_id),
            lt(documentVersions.published_at, end),
            or(isNull(documentVersions.superseded_at), gte(documentVersions.superseded_at, end)),
            or(isNull(documentVersions.retired_at), gte(documentVersions.retired_at, end)),
          ),
        )
        .orderBy(desc(documentVersions.published_at))
        .limit(1);
      const found = (version as DocumentVersion | undefined) ?? null;
      return {
        version: found,
        ...(await fileDownload(ctx, {
          organizationId: String(ctx.organizationId),
          fileId: found?.file_id,
          subjectId: String(found?.id),
        })),
      };
    },
  });

  const approve = defineTool({
    name: APPROVE_DOCUMENT,
    title: 'Approve a document',
    description: 'Approve a document IN_REVIEW; only for its approvers (forbidden otherwise).',
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      id: documentId,
      version: z.number().int().min(1).optional().describe('Version read (conflict if outdated).'),
    }),
    output: z.object({ document: register.get.output.shape.document as z.ZodType, version: versionSchema }),
    async run(ctx, input) {
      const document = await records.load(ctx, input.id, 'write');
      if (input.version !== undefined && input.version !== document.version) {
        throw new AppError(
          'conflict',
          `The latest version is ${String(document.version)}, not ${input.version}. Read it again before approving.`,
        );
      }
      const personId = await approverOf(ctx, input.id);
      if (!personId) {
        throw new AppError(
          'forbidden',
          "Only an approver of this document can approve it: your account's email is not that of any of its approver_ids, or it is not confirmed yet (the account's settings show how).",
        );
      }
      await approveLatestVersion(ctx, document, personId);
      const [version] = await versionsOf(ctx, input.id, false);
      return {
        document: records.present(await records.load(ctx, input.id, 'read'), ctx),
        version: version as DocumentVersion,
      };
    },
  });
  return { listVersions, inForce, approve };
}
