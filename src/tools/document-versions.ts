// A document's versions: approval by its listed approvers under its approval rule, rejection with a comment, the list
// of versions, and the version in force on a date.
import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  isNotNull,
  isNull,
  lt,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { z } from 'zod';
import { selectRow } from '../db/client.ts';
import {
  documentApprovals,
  documentApprovers,
  documents,
  documentVersions,
  people,
  storedFiles,
  users,
} from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { DOWNLOAD_SCHEMAS, FILE_FACT_SCHEMAS, fileDownload } from './attached-files.ts';
import { changeAfterWrite } from './changes.ts';
import { requirePersonInWeb } from './decisions.ts';
import { approvalsCleared } from './documents.ts';
import { caseInsensitiveEnum, dateSchema, idOf, timestampSchema } from './fields.ts';
import { addDays } from './overdue.ts';
import type { RegisterTools } from './registers/builder.ts';
import type { Row } from './registers/spec.ts';
import { readSettings } from './settings.ts';
import { APPROVE_DOCUMENT, DOCUMENT_VERSION_STATUSES, REJECT_DOCUMENT } from './states.ts';
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
    data_file_id: z
      .string()
      .nullable()
      .describe("A generated version's machine-readable copy (JSON, `fil_...`), or null."),
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

const changedMeanwhile = () =>
  new AppError(
    'conflict',
    'This document was changed by another request at the same time. Get it again and retry.',
  );

/** The web page of a document, where a person approves or rejects its version. */
export const documentPage = (document: Row) =>
  `/orgs/${String(document.organization_id)}/documents/${String(document.id)}`;

/** Refuses a decision on a document that is not IN_REVIEW. */
function refuseUnlessInReview(document: Row, requested: string, what: string): void {
  if (document.status === 'IN_REVIEW') return;
  throw new AppError(
    'invalid_transition',
    `Only a document IN_REVIEW can be ${what}; this one is ${String(document.status)}. Submit it with updateDocument status IN_REVIEW.`,
    { field: 'status', current: document.status, requested, allowed: [] },
  );
}

/** The document's approvers and who of them approved its latest version so far. */
async function approvalTally(
  ctx: ToolContext,
  document: Row,
): Promise<{ approvers: number; given: string[] }> {
  const id = String(document.id);
  const [listed] = await ctx.db
    .select({ n: count() })
    .from(documentApprovers)
    .where(eq(documentApprovers.document_id, id));
  const given = await ctx.db
    .select({ person_id: documentApprovals.person_id })
    .from(documentApprovals)
    .where(
      and(eq(documentApprovals.document_id, id), eq(documentApprovals.version, Number(document.version))),
    );
  return { approvers: Number(listed?.n ?? 0), given: given.map((row) => row.person_id) };
}

/** How many approvals the document's rule asks of a version: one, all approvers, or the quorum (at most all). */
export function requiredApprovals(document: Row, approvers: number): number {
  if (document.approval_rule === 'ALL') return Math.max(approvers, 1);
  if (document.approval_rule === 'QUORUM')
    return Math.max(1, Math.min(Number(document.approvals_required ?? 1), approvers));
  return 1;
}

/** The statement that records `personId`'s approval of the latest version, only where `landed` holds. */
function approvalInsert(ctx: ToolContext, document: Row, personId: string, at: string, landed: SQL) {
  const row = {
    document_id: String(document.id),
    version: Number(document.version),
    person_id: personId,
    organization_id: String(document.organization_id),
    user_id: ctx.principal.userId,
    approved_at: at,
  };
  return ctx.db
    .insert(documentApprovals)
    .select(selectRow(documentApprovals, row, landed))
    .onConflictDoNothing();
}

/** The document as read now is the one `document` was: same write, still IN_REVIEW. */
const unchanged = (document: Row) =>
  sql`exists (select 1 from ${documents} where ${documents.id} = ${String(document.id)} and ${documents.updated_at} = ${String(document.updated_at)} and ${documents.status} = 'IN_REVIEW' and ${documents.version} = ${Number(document.version)})`;

/**
 * Records one approval that does not yet meet the rule: the version stays IN_REVIEW; the history row says who
 * approved and how many approvals there are of how many needed.
 */
async function recordApproval(
  ctx: ToolContext,
  document: Row,
  personId: string,
  given: number,
  required: number,
): Promise<void> {
  const at = ctx.now().toISOString();
  const landed = unchanged(document);
  const [inserted] = await ctx.db.batch([
    approvalInsert(ctx, document, personId, at, landed).returning({ person_id: documentApprovals.person_id }),
    changeAfterWrite(ctx, {
      tool: APPROVE_DOCUMENT,
      kind: 'document',
      recordId: String(document.id),
      organizationId: String(document.organization_id),
      action: 'update',
      before: { approvals: given - 1 },
      after: {
        approvals: given,
        approvals_required: required,
        approval_by_id: personId,
        version: document.version,
      },
      at,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
  ]);
  if ((inserted as unknown[]).length === 0) throw changedMeanwhile();
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
  refuseUnlessInReview(document, 'APPROVED', 'approved');
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
    approvalInsert(ctx, document, personId, at, landed),
  ]);
  if ((updated as unknown[]).length === 0) throw changedMeanwhile();
}

/**
 * Sends the latest version, IN_REVIEW, back to DRAFT with the approver's comment, kept in the history; the approvals
 * given to it are cleared (a resubmitted version is reviewed afresh).
 */
async function rejectLatestVersion(ctx: ToolContext, document: Row, personId: string, comment: string) {
  const id = String(document.id);
  const previous = String(document.updated_at);
  const now = ctx.now().toISOString();
  const at = now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
  const landed = sql`exists (select 1 from ${documents} where ${documents.id} = ${id} and ${documents.updated_at} = ${at} and ${documents.status} = 'DRAFT')`;
  const [updated] = await ctx.db.batch([
    ctx.db
      .update(documents)
      .set({ status: 'DRAFT', updated_at: at })
      .where(and(eq(documents.id, id), eq(documents.updated_at, previous), eq(documents.status, 'IN_REVIEW')))
      .returning({ id: documents.id }),
    changeAfterWrite(ctx, {
      tool: REJECT_DOCUMENT,
      kind: 'document',
      recordId: id,
      organizationId: String(document.organization_id),
      action: 'update',
      before: { status: 'IN_REVIEW' },
      after: { status: 'DRAFT', rejected_by_id: personId, rejected_version: document.version, comment },
      at,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
    ctx.db
      .update(documentVersions)
      .set({ status: 'DRAFT' })
      .where(
        and(
          eq(documentVersions.document_id, id),
          eq(documentVersions.number, Number(document.version)),
          landed,
        ),
      ),
    approvalsCleared(ctx, id, Number(document.version), landed),
  ]);
  if ((updated as unknown[]).length === 0) throw changedMeanwhile();
}

/** Refuses a caller who is not one of the document's approvers; else their person id. */
async function requireApprover(ctx: ToolContext, documentId: string, what: string): Promise<string> {
  const personId = await approverOf(ctx, documentId);
  if (personId) return personId;
  throw new AppError(
    'forbidden',
    `Only an approver of this document can ${what} it: your account's email is not that of any of its approver_ids, or it is not confirmed yet (the account's settings show how).`,
  );
}

/** The latest version is the one the caller read, when they name it. */
function checkVersionRead(document: Row, version: number | undefined, what: string): void {
  if (version !== undefined && version !== document.version)
    throw new AppError(
      'conflict',
      `The latest version is ${String(document.version)}, not ${version}. Read it again before ${what}.`,
    );
}

/** The version tools of the documents register, as handles. */
export interface DocumentVersionTools {
  listVersions: Tool;
  inForce: Tool;
  approve: Tool;
  reject: Tool;
}

/** The version tools of the documents register: listDocumentVersions, getDocumentInForce, approve and reject. */
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
    output: z.object({
      version: versionSchema.nullable(),
      ...DOWNLOAD_SCHEMAS,
      data_download_url: z
        .string()
        .nullable()
        .optional()
        .describe('Signed link to the JSON copy of a generated version; null without one.'),
    }),
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
      const data = await fileDownload(ctx, {
        organizationId: String(ctx.organizationId),
        fileId: found?.data_file_id,
        subjectId: String(found?.id),
      });
      return {
        version: found,
        ...(await fileDownload(ctx, {
          organizationId: String(ctx.organizationId),
          fileId: found?.file_id,
          subjectId: String(found?.id),
        })),
        data_download_url: data.download_url,
      };
    },
  });

  const versionRead = z.number().int().min(1).optional().describe('Version read (conflict if outdated).');
  const documentOutput = register.get.output.shape.document as z.ZodType;
  const approve = defineTool({
    name: APPROVE_DOCUMENT,
    title: 'Approve a document',
    description:
      "Approve a document IN_REVIEW as one of its approvers; it becomes APPROVED once its approval_rule is met (ANY, ALL, QUORUM). The owner's own approval is refused unless the settings allow it.",
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({ id: documentId, version: versionRead }),
    output: z.object({
      document: documentOutput,
      version: versionSchema,
      approvals: z
        .object({
          given: z.number().int().describe('Approvals of this version so far, yours included.'),
          required: z.number().int().describe('Approvals its rule needs; APPROVED when given reaches it.'),
        })
        .describe('Where the approval of the version stands.'),
    }),
    async run(ctx, input) {
      const document = await records.load(ctx, input.id, 'write');
      checkVersionRead(document, input.version, 'approving');
      const settings = await readSettings(ctx.db, String(document.organization_id));
      requirePersonInWeb(ctx, settings, 'approving a document', documentPage(document));
      const personId = await requireApprover(ctx, input.id, 'approve');
      if (document.owner_id === personId && !settings.allow_document_self_approval)
        throw new AppError(
          'forbidden',
          "You own this document: another of its approvers approves it. An OWNER or ADMIN can allow owners' own approvals (setting allow_document_self_approval).",
        );
      refuseUnlessInReview(document, 'APPROVED', 'approved');
      const tally = await approvalTally(ctx, document);
      const required = requiredApprovals(document, tally.approvers);
      if (tally.given.includes(personId))
        throw new AppError(
          'conflict',
          `You already approved version ${String(document.version)}; it has ${tally.given.length} of the ${required} approvals it needs.`,
        );
      let given = tally.given.length + 1;
      if (given >= required) await approveLatestVersion(ctx, document, personId);
      else {
        await recordApproval(ctx, document, personId, given, required);
        // Another approver may have approved meanwhile: the last of them approves the version.
        const now = await approvalTally(ctx, document);
        given = now.given.length;
        if (given >= required) await approveLatestVersion(ctx, document, personId);
      }
      const [version] = await versionsOf(ctx, input.id, false);
      return {
        document: records.present(await records.load(ctx, input.id, 'read'), ctx),
        version: version as DocumentVersion,
        approvals: { given, required },
      };
    },
  });

  const reject = defineTool({
    name: REJECT_DOCUMENT,
    title: 'Send a document back to draft',
    description:
      'Send a document IN_REVIEW back to DRAFT with a comment, as one of its approvers: the comment is kept in the history (listChanges), earlier sign-offs are cleared.',
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      id: documentId,
      comment: z
        .string()
        .trim()
        .min(1)
        .max(2000)
        .describe('Why it is rejected and what to change, e.g. "Section 3 lacks the review period."'),
      version: versionRead,
    }),
    output: z.object({ document: documentOutput, version: versionSchema }),
    async run(ctx, input) {
      const document = await records.load(ctx, input.id, 'write');
      checkVersionRead(document, input.version, 'rejecting');
      const personId = await requireApprover(ctx, input.id, 'reject');
      refuseUnlessInReview(document, 'DRAFT', 'rejected');
      await rejectLatestVersion(ctx, document, personId, input.comment);
      const [version] = await versionsOf(ctx, input.id, false);
      return {
        document: records.present(await records.load(ctx, input.id, 'read'), ctx),
        version: version as DocumentVersion,
      };
    },
  });
  return { listVersions, inForce, approve, reject };
}
