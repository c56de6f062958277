// Documents: policies, procedures, standards and plans, each a series of versions (document_versions) that are
// drafted, reviewed, approved by a listed approver, published and retired; the document row holds the latest one.
import { and, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import { selectRow } from '../db/client.ts';
import {
  documentApprovals,
  documentApprovers,
  documentMeasures,
  documentRequirements,
  documents,
  documentVersions,
} from '../db/schema.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { reacknowledgeOnPublish } from './acknowledgements/cycles.ts';
import {
  DOWNLOAD_SCHEMAS,
  FILE_FACT_SCHEMAS,
  fileDownload,
  fileFacts,
  inlineFileArguments,
  takeInlineFile,
} from './attached-files.ts';
import { linkedFilter, ownerField, ownerFilter } from './common-fields.ts';
import { caseInsensitiveEnum, idOf, longText, shortText } from './fields.ts';
import { addDays } from './overdue.ts';
import {
  derived,
  enumFilter,
  filter,
  optional,
  type RegisterSpec,
  type Row,
  type RuleContext,
  required,
  ruleRefusal,
  withDefault,
} from './registers/spec.ts';
import { REVIEW_CYCLES, reviewDueBefore, reviewFields, reviewFilters, reviewOrderField } from './reviews.ts';
import {
  APPROVAL_RULES,
  APPROVE_DOCUMENT,
  DOCUMENT_STATUSES,
  DOCUMENT_TRANSITIONS,
  DOCUMENT_TYPES,
} from './states.ts';
import type { ToolContext } from './types.ts';

/** The longest Markdown content a version holds (characters). */
export const DOCUMENT_CONTENT_MAX = 100_000;
/** Days ahead in which a document's next review counts as due (the home page and filter.review_due). */
export const REVIEW_DUE_DAYS = 30;

const status = caseInsensitiveEnum(DOCUMENT_STATUSES).describe(
  'DRAFT -> IN_REVIEW (or back) -> APPROVED (approveDocument only) -> PUBLISHED -> RETIRED.',
);
const documentType = caseInsensitiveEnum(DOCUMENT_TYPES).describe('Kind of document.');
const approvalRule = caseInsensitiveEnum(APPROVAL_RULES).describe(
  'Who approves a version: ANY (default) one approver, ALL of them, or QUORUM (approvals_required of them).',
);

/** A QUORUM names its number; another rule has none (a number given with it is refused, not dropped). */
function checkApprovalRule(next: Row, rules: RuleContext): void {
  if (next.approval_rule === 'QUORUM') {
    if (typeof next.approvals_required !== 'number')
      throw ruleRefusal(
        'approvals_required',
        'The approval rule QUORUM needs the number of approvals.',
        'Give approvals_required (e.g. 2), or choose ANY or ALL.',
      );
    return;
  }
  if (typeof rules.given.approvals_required === 'number')
    throw ruleRefusal(
      'approvals_required',
      `approvals_required applies to the approval rule QUORUM, not ${String(next.approval_rule)}.`,
      'Set approval_rule QUORUM with it, or leave it out.',
    );
  next.approvals_required = null;
}

/** SQL: the document's next review falls within REVIEW_DUE_DAYS of `today` (or has passed), and it is not retired. */
export function reviewDueCondition(today: string): SQL {
  return reviewDueBefore(REVIEW_CYCLES.document, addDays(today, REVIEW_DUE_DAYS));
}

/** What a version carries: its Markdown, its file, and a generated version's machine-readable copy. */
const VERSION_FIELDS = ['content', 'file_id', 'data_file_id'] as const;

/** The tools that write a generated document's versions (src/tools/controlled-outputs.ts). */
export const GENERATING_TOOLS = new Set([
  'publishStatementOfApplicability',
  'publishRiskRegister',
  'publishRiskTreatmentPlan',
]);

/** The version fields whose value differs between `next` and `current`. */
function versionEdits(next: Row, current: Row): string[] {
  return VERSION_FIELDS.filter((field) => (next[field] ?? null) !== (current[field] ?? null));
}

/** A status change together with a content change of an approved or published document is ambiguous: refused. */
function startsNewVersion(next: Row, current: Row): boolean {
  const [edited] = versionEdits(next, current);
  if (!edited) return false;
  if (current.status === 'RETIRED') {
    throw new AppError(
      'invalid_transition',
      `A RETIRED document cannot change its ${edited === 'content' ? 'content' : 'file'}. Add a new document instead.`,
      { field: edited, current: 'RETIRED' },
    );
  }
  if (current.status !== 'APPROVED' && current.status !== 'PUBLISHED') return false;
  if (next.status !== current.status) {
    throw new AppError(
      'invalid_transition',
      `Changing the ${edited === 'content' ? 'content' : 'file'} of ${String(current.status)} version ${String(current.version)} starts a new DRAFT version; change the status in a separate call.`,
      { field: 'status', current: current.status, requested: next.status },
    );
  }
  return true;
}

function prepareDocument(next: Row, current: Row | null, rules: RuleContext): void {
  const generated = typeof (current?.source ?? next.source) === 'string';
  if (generated && !GENERATING_TOOLS.has(rules.tool)) {
    const edited = current ? versionEdits(next, current)[0] : undefined;
    if (edited)
      throw ruleRefusal(
        edited,
        `This document is generated by the service (${String(current?.source)}): its ${edited === 'content' ? 'content' : 'file'} is not edited by hand.`,
        'Publish it again with its publish tool (e.g. publishStatementOfApplicability): that writes a new version.',
      );
  }
  checkApprovalRule(next, rules);
  if (!current) {
    if (next.status !== 'DRAFT' && next.status !== 'IN_REVIEW') {
      throw new AppError(
        'invalid_transition',
        `A new document starts as DRAFT or IN_REVIEW, not ${String(next.status)}: approve it with approveDocument, then publish it.`,
        { field: 'status', current: null, requested: next.status, allowed: ['DRAFT', 'IN_REVIEW'] },
      );
    }
    next.version = 1;
    next.published_version = null;
    return;
  }
  if (startsNewVersion(next, current)) {
    next.version = Number(current.version) + 1;
    next.status = 'DRAFT';
    // Whether a version is major is said of that version: a new one starts minor unless said with the edit.
    if (!('major_change' in rules.given)) next.major_change = false;
  }
  if (next.status === 'PUBLISHED' && current.status !== 'PUBLISHED') next.published_version = next.version;
  if (next.status === 'RETIRED') {
    // A retired document is no longer reviewed: retiring it ends its review cycle.
    next.published_version = null;
    next.review_interval_days = null;
    next.next_review_on = null;
  }
}

/** The statement that writes a new version row, only where `landed` holds. */
function insertVersion(ctx: ToolContext, documentId: string, next: Row, at: string, landed: SQL) {
  const row = {
    id: newId('dcv'),
    organization_id: next.organization_id,
    document_id: documentId,
    number: next.version,
    status: next.status,
    content: next.content ?? null,
    file_id: next.file_id ?? null,
    data_file_id: next.data_file_id ?? null,
    created_at: at,
  };
  return ctx.db.insert(documentVersions).select(selectRow(documentVersions, row, landed));
}

/** The version statements of an update: a new version, or the latest one's content and state, and what it ends. */
function versionWrites(ctx: ToolContext, id: string, next: Row, current: Row, landed: SQL) {
  const at = ctx.now().toISOString();
  const statements: BatchItem<'sqlite'>[] = [];
  const ofDocument = (...conditions: (SQL | undefined)[]) =>
    and(eq(documentVersions.document_id, id), landed, ...conditions);
  const supersede = (...conditions: SQL[]) =>
    ctx.db
      .update(documentVersions)
      .set({ status: 'SUPERSEDED', superseded_at: at })
      .where(ofDocument(...conditions));
  if (next.version !== current.version) {
    // An approved version that was never published is superseded by the new draft; a published one stays in force.
    statements.push(
      supersede(
        eq(documentVersions.number, Number(current.version)),
        eq(documentVersions.status, 'APPROVED'),
      ),
      insertVersion(ctx, id, next, at, landed),
    );
    return statements;
  }
  const latest = eq(documentVersions.number, Number(next.version));
  const edits = versionEdits(next, current);
  // Approvals are of the text reviewed: an edit, or a return to draft, starts the review over.
  if (edits.length > 0 || (next.status === 'DRAFT' && current.status !== 'DRAFT'))
    statements.push(approvalsCleared(ctx, id, Number(next.version), landed));
  if (edits.length > 0)
    statements.push(
      ctx.db
        .update(documentVersions)
        .set(Object.fromEntries(edits.map((field) => [field, next[field] ?? null])))
        .where(ofDocument(latest)),
    );
  if (next.status === current.status) return statements;
  if (next.status === 'PUBLISHED') {
    statements.push(
      supersede(eq(documentVersions.status, 'PUBLISHED'), ne(documentVersions.number, Number(next.version))),
      ctx.db
        .update(documentVersions)
        .set({ status: 'PUBLISHED', published_at: at })
        .where(ofDocument(latest)),
      ...reacknowledgeOnPublish(
        ctx,
        {
          id,
          organizationId: String(next.organization_id),
          version: Number(next.version),
          major: next.major_change === true,
        },
        landed,
      ),
    );
  } else if (next.status === 'RETIRED') {
    statements.push(
      ctx.db
        .update(documentVersions)
        .set({ status: 'RETIRED', retired_at: at })
        .where(ofDocument(eq(documentVersions.status, 'PUBLISHED'))),
    );
  } else {
    statements.push(
      ctx.db
        .update(documentVersions)
        .set({ status: String(next.status) })
        .where(ofDocument(latest)),
    );
  }
  return statements;
}

/** The statement that removes the approvals given to a version of the document, only where `landed` holds. */
export function approvalsCleared(ctx: ToolContext, documentId: string, version: number, landed: SQL) {
  return ctx.db
    .delete(documentApprovals)
    .where(
      and(eq(documentApprovals.document_id, documentId), eq(documentApprovals.version, version), landed),
    );
}

/** A fact of the document's file, read with it from stored_files (written out: a one-table query names columns bare). */
const fileFact = (column: string) =>
  sql.raw(`(select stored_files.${column} from stored_files where stored_files.id = "documents"."file_id")`);

/** A file given to a document: one of its organization (else not_found). */
async function settleDocument(ctx: ToolContext, next: Row, current: Row | null): Promise<void> {
  if (typeof next.file_id === 'string' && next.file_id !== current?.file_id)
    await fileFacts(ctx, next.file_id);
}

/** getDocument's signed link to the latest version's file, bound to that version (the caller read the document). */
async function latestFileDownload(ctx: ToolContext, record: Row): Promise<Row> {
  const [version] =
    typeof record.file_id === 'string'
      ? await ctx.db
          .select({ id: documentVersions.id })
          .from(documentVersions)
          .where(
            and(
              eq(documentVersions.document_id, String(record.id)),
              eq(documentVersions.number, Number(record.version)),
            ),
          )
          .limit(1)
      : [];
  return fileDownload(ctx, {
    organizationId: String(record.organization_id),
    fileId: version ? record.file_id : null,
    subjectId: String(version?.id),
  });
}

const versionNumber = (what: string) => z.number().int().min(1).describe(what);

export const documentSpec: RegisterSpec = {
  kind: 'document',
  prefix: 'doc',
  label: 'document',
  labelPlural: 'documents',
  noun: 'Document',
  nounPlural: 'Documents',
  key: 'document',
  listKey: 'documents',
  table: documents,
  nameFields: ['title'],
  about: 'A policy, procedure, standard or plan, in versions.',
  fields: {
    title: required(shortText().describe('Title, e.g. "Access control policy".')),
    type: withDefault(documentType, 'POLICY'),
    owner_id: ownerField(),
    status: withDefault(status, 'DRAFT'),
    approval_rule: withDefault(approvalRule, 'ANY'),
    approvals_required: optional(
      z
        .number()
        .int()
        .min(1)
        .max(50)
        .describe(
          'With approval_rule QUORUM: how many approvers approve a version (capped at their number).',
        ),
    ),
    major_change: withDefault(
      z
        .boolean()
        .describe(
          'The latest version is a major change: with the setting reacknowledge_on MAJOR_ONLY, publishing it asks its earlier acknowledgers again. A new version starts false.',
        ),
      false,
      { label: 'Major change' },
    ),
    version: derived(versionNumber('Number of the latest version (derived).')),
    published_version: derived(
      versionNumber('Number of the version in force now (derived); null if none.').nullable(),
      { label: 'Version in force' },
    ),
    content: optional(
      longText(DOCUMENT_CONTENT_MAX).describe(
        'Markdown of the latest version; editing an APPROVED or PUBLISHED one starts a new DRAFT version.',
      ),
    ),
    file_id: optional(
      idOf('fil', 'Stored file').describe(
        'File (`fil_...`) from POST /api/v1/orgs/<org>/files; clear removes it. Versioned like content.',
      ),
      undefined,
      { label: 'File', ownControl: true },
    ),
    file_name: derived(FILE_FACT_SCHEMAS.file_name, { label: 'File name' }),
    size: derived(FILE_FACT_SCHEMAS.size, { label: 'File size' }),
    content_type: derived(FILE_FACT_SCHEMAS.content_type, { label: 'File type' }),
    sha256: derived(FILE_FACT_SCHEMAS.sha256, { label: 'File SHA-256' }),
    data_file_id: derived(
      z.string().nullable().describe("A generated document's JSON copy of the latest version (`fil_...`)."),
      { label: 'Machine-readable copy' },
    ),
    source: derived(
      z
        .string()
        .nullable()
        .describe(
          'What the service generates it from (e.g. statement_of_applicability:fwk_...); null if written.',
        ),
      { label: 'Generated from' },
    ),
    ...reviewFields(),
  },
  relations: [
    {
      field: 'approver_ids',
      table: documentApprovers,
      ownerColumn: documentApprovers.document_id,
      targetColumn: documentApprovers.person_id,
      organizationColumn: documentApprovers.organization_id,
      target: 'person',
      writable: true,
      description:
        'Who may approve (`per_...`), signed in with the same email; approval_rule says how many must.',
      label: 'Approvers',
      hint: 'They approve a version as the approval rule says, signed in with an account of the same email.',
    },
    {
      field: 'requirement_ids',
      table: documentRequirements,
      ownerColumn: documentRequirements.document_id,
      targetColumn: documentRequirements.requirement_id,
      organizationColumn: documentRequirements.organization_id,
      target: 'requirement',
      writable: true,
      description: 'Requirements covered (`req_...`).',
      label: 'Requirements',
      hint: 'The requirements this document addresses.',
    },
    {
      field: 'measure_ids',
      table: documentMeasures,
      ownerColumn: documentMeasures.document_id,
      targetColumn: documentMeasures.measure_id,
      organizationColumn: documentMeasures.organization_id,
      target: 'measure',
      writable: true,
      description: 'Measures described (`msr_...`).',
      label: 'Measures',
      hint: 'The measures this document describes.',
    },
  ],
  computed: {
    file_name: fileFact('name'),
    size: fileFact('size'),
    content_type: fileFact('content_type'),
    sha256: fileFact('sha256'),
  },
  search: [documents.title, documents.content],
  filters: {
    status: enumFilter(status, documents.status, 'Any of these statuses.'),
    type: enumFilter(documentType, documents.type, 'Any of these types.'),
    owner_id: ownerFilter(documents.owner_id),
    requirement_id: linkedFilter(
      {
        ownerId: documents.id,
        owner: documentRequirements.document_id,
        target: documentRequirements.requirement_id,
      },
      { prefix: 'req', what: 'Requirement' },
      'Only those covering this requirement (`req_...`).',
    ),
    generated: filter(z.boolean().describe('true: only documents the service generates.'), (value) =>
      value ? sql`${documents.source} is not null` : sql`${documents.source} is null`,
    ),
    review_due: filter(
      z.boolean().describe(`Next review within ${REVIEW_DUE_DAYS} days (not retired).`),
      (value, today) => (value ? reviewDueCondition(today) : sql`not (${reviewDueCondition(today)})`),
    ),
    ...reviewFilters(REVIEW_CYCLES.document),
  },
  orderFields: {
    title: { column: documents.title },
    ...reviewOrderField(documents.next_review_on),
  },
  review: REVIEW_CYCLES.document,
  transitions: { status: DOCUMENT_TRANSITIONS },
  stateTools: { status: { APPROVED: APPROVE_DOCUMENT } },
  prepare: prepareDocument,
  settle: settleDocument,
  addArguments: {
    shape: inlineFileArguments(
      'A small file inline, base64 (with file_name); larger ones: upload, then file_id.',
    ),
    take: (ctx, organizationId, values) => takeInlineFile(ctx, organizationId, values, ['file_id']),
    onUpdate: true,
  },
  getExtras: { shape: DOWNLOAD_SCHEMAS, read: latestFileDownload },
  afterAdd: (ctx, id, next, landed) => [insertVersion(ctx, id, next, ctx.now().toISOString(), landed)],
  afterUpdate: versionWrites,
  afterDelete: (ctx, id, gone) => [
    ctx.db.delete(documentVersions).where(and(eq(documentVersions.document_id, id), gone)),
    ctx.db.delete(documentApprovals).where(and(eq(documentApprovals.document_id, id), gone)),
  ],
  hints: {
    update: 'Submit: status IN_REVIEW; publish an APPROVED one: PUBLISHED.',
  },
  example: {
    organization_id: 'org_...',
    title: 'Access control policy',
    type: 'POLICY',
    content: '# Access control\n\nAccess is granted on a need-to-know basis.',
    next_review_on: '2027-03-01',
  },
};
