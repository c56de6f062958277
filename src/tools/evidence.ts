// Evidence: a link or a stored file that shows a record's work was done (the MFA screenshot, the signed DPA).
// Immutable once stored: its url or file never changes; a newer one supersedes it.
import { and, eq, gte, isNotNull, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { evidence, evidenceRecords, storedFiles } from '../db/schema.ts';
import { AppError, invalidArguments } from '../errors.ts';
import { readAll } from '../files/store.ts';
import { ID_PREFIXES } from '../ids.ts';
import {
  DOWNLOAD_SCHEMAS,
  FILE_FACT_SCHEMAS,
  fileDownload,
  fileFacts,
  inlineFileArguments,
  takeInlineFile,
} from './attached-files.ts';
import { descriptionField, linkFilter } from './common-fields.ts';
import { expiredFilter, isExpired } from './expiry.ts';
import { caseInsensitiveEnum, dateSchema, httpUrl, idOf, idOfAny, shortText } from './fields.ts';
import {
  derived,
  enumFilter,
  filledOnAdd,
  filter,
  optional,
  type RegisterKind,
  type RegisterSpec,
  type RelationSpec,
  type Row,
  required,
} from './registers/spec.ts';
import { EVIDENCE_KINDS } from './states.ts';
import type { ToolContext } from './types.ts';

/** The registers whose records can carry evidence. */
export const EVIDENCE_TARGETS: readonly RegisterKind[] = [
  'measure',
  'control_test',
  'requirement',
  'risk',
  'vendor',
  'vendor_assessment',
  'audit',
  'nonconformity',
  'obligation',
  'incident',
  'processing_activity',
  'dpia',
  'data_subject_request',
];

/** The read-only `evidence_ids` of a record that can carry evidence: the other side of evidence's record_ids. */
export function evidenceIdsRelation(): RelationSpec {
  return {
    field: 'evidence_ids',
    table: evidenceRecords,
    ownerColumn: evidenceRecords.record_id,
    targetColumn: evidenceRecords.evidence_id,
    organizationColumn: evidenceRecords.organization_id,
    target: 'evidence',
    writable: false,
    inverse: true,
    description: 'Ids of its evidence (read-only here; set with addEvidence record_ids).',
    label: 'Evidence',
  };
}

const kind = caseInsensitiveEnum(EVIDENCE_KINDS).describe('FILE (a stored file) or LINK (a url); derived.');

/**
 * The newest item that supersedes an evidence item: read with it, never stored twice. Written out in full, since a
 * query of one table names its columns unqualified.
 */
export const supersededBy = sql<
  string | null
>`(select later.id from evidence as later where later.supersedes_id = "evidence"."id" order by later.created_at desc limit 1)`;

/** The items an evidence item supersedes, nearest first, up to a bound (a chain never loops). */
const SUPERSEDE_DEPTH = 100;

/** Text files up to this size come back as text in getEvidence. */
const INLINE_TEXT_BYTES = 8 * 1024;

/** getEvidence's download link (the caller read the item, so may read its file) and a small text file's text. */
async function downloadOf(ctx: ToolContext, record: Row): Promise<Row> {
  const organizationId = String(record.organization_id);
  const out: Row = await fileDownload(ctx, {
    organizationId,
    fileId: record.file_id,
    subjectId: String(record.id),
  });
  if (typeof record.file_id !== 'string') return out;
  if (String(record.content_type).startsWith('text/') && Number(record.size) <= INLINE_TEXT_BYTES) {
    const [file] = await ctx.db
      .select({ key: storedFiles.storage_key })
      .from(storedFiles)
      .where(and(eq(storedFiles.id, record.file_id), eq(storedFiles.organization_id, organizationId)))
      .limit(1);
    const blob = file ? await ctx.files.store.get(file.key) : null;
    if (blob) out.text = new TextDecoder().decode(await readAll(blob.body));
  }
  return out;
}

export const evidenceSpec: RegisterSpec = {
  kind: 'evidence',
  prefix: 'evd',
  label: 'evidence item',
  labelPlural: 'evidence',
  noun: 'Evidence',
  nounPlural: 'Evidence',
  key: 'evidence',
  listKey: 'evidence',
  table: evidence,
  toolset: 'evidence',
  nameFields: ['title'],
  about:
    'Evidence is a link or stored file showing work was done (screenshot, signed DPA, report), attached to records; immutable once stored: a newer item supersedes it.',
  fields: {
    title: required(shortText().describe('Title, e.g. "MFA enforcement screenshot 2026-Q3".')),
    description: descriptionField('evidence'),
    kind: derived(kind),
    url: {
      ...optional(
        httpUrl.describe('Link (http/https) to the evidence; for LINK. Cannot change later.'),
        undefined,
        {
          label: 'Link',
        },
      ),
      fixed: true,
    },
    file_id: {
      ...optional(
        idOf('fil', 'Stored file').describe(
          'File uploaded to POST /api/v1/orgs/<org>/files (`fil_...`), for FILE. Cannot change later.',
        ),
        undefined,
        { label: 'File' },
      ),
      fixed: true,
    },
    file_name: derived(FILE_FACT_SCHEMAS.file_name),
    size: derived(FILE_FACT_SCHEMAS.size),
    content_type: derived(FILE_FACT_SCHEMAS.content_type),
    sha256: derived(FILE_FACT_SCHEMAS.sha256),
    collected_on: filledOnAdd(dateSchema.describe('When it was collected (default today).'), {
      label: 'Collected on',
    }),
    valid_until: optional(dateSchema.describe('Last day it is valid, if it expires.'), undefined, {
      label: 'Valid until',
    }),
    supersedes_id: optional(
      idOf('evd', 'Evidence').describe('Older evidence item this one replaces (`evd_...`).'),
      'evidence',
      { label: 'Supersedes', hint: 'The older evidence item this one replaces.' },
    ),
    // A reference for readers (pages and readable exports show the newer item's title); derived, never written.
    superseded_by: {
      ...derived(
        z.string().nullable().describe('Newer evidence item that replaces this one (derived), or null.'),
        {
          label: 'Superseded by',
        },
      ),
      ref: 'evidence',
    },
    expired: derived(z.boolean().describe('Derived: valid_until is before today.')),
  },
  relations: [
    {
      field: 'record_ids',
      table: evidenceRecords,
      ownerColumn: evidenceRecords.evidence_id,
      targetColumn: evidenceRecords.record_id,
      organizationColumn: evidenceRecords.organization_id,
      target: EVIDENCE_TARGETS,
      writable: true,
      description:
        'Records it is evidence for: measures, control tests, requirements, risks, vendors, audits, nonconformities, obligations, incidents, processing activities, DPIAs, data-subject requests.',
      label: 'Records',
      hint: 'The records this evidence supports.',
    },
  ],
  computed: { superseded_by: supersededBy },
  search: [evidence.title, evidence.description],
  filters: {
    kind: enumFilter(kind, evidence.kind, 'Any of these kinds.'),
    expired: expiredFilter(evidence.valid_until),
    expiring_before: filter(
      dateSchema.describe('Only those valid until this date or earlier (YYYY-MM-DD).'),
      // With expired = false the range starts at today (what that filter implies): the count reads only it.
      (value, today, { expired }) =>
        and(
          isNotNull(evidence.valid_until),
          lte(evidence.valid_until, value),
          expired === false ? gte(evidence.valid_until, today) : undefined,
        ),
    ),
    record_id: linkFilter(
      {
        ownerId: evidence.id,
        owner: evidenceRecords.evidence_id,
        target: evidenceRecords.record_id,
        lead: {
          index: 'evidence_records_record_idx',
          organization: evidenceRecords.organization_id,
          order: { created_at: evidenceRecords.created_at },
        },
      },
      idOfAny(
        EVIDENCE_TARGETS.map((target) => ID_PREFIXES[target]),
        'record',
      ).describe(
        'Only evidence for this record (`msr_`, `ctt_`, `rsk_`, `req_`, `ven_`, `aud_`, `ncf_`, `obl_`, `inc_`, `pra_`, `dpi_`, `dsr_...`).',
      ),
    ),
    supersedes_id: filter(idOf('evd', 'Evidence').describe('Only those that replace this item.'), (value) =>
      eq(evidence.supersedes_id, value),
    ),
  },
  orderFields: {
    title: { column: evidence.title },
    collected_on: { column: evidence.collected_on },
    valid_until: { column: evidence.valid_until, nullable: true },
  },
  prepare(next: Row, current: Row | null) {
    if (current) return;
    if (!next.url === !next.file_id)
      throw invalidArguments('Give a url (LINK) or a file (FILE), not both.', [
        { path: 'url', message: next.url ? 'With a file' : 'Required' },
      ]);
    next.kind = next.file_id ? 'FILE' : 'LINK';
  },
  async settle(ctx, next, current) {
    next.collected_on ??= ctx.now().toISOString().slice(0, 10);
    if (!current && typeof next.file_id === 'string') Object.assign(next, await fileFacts(ctx, next.file_id));
    const replaced = next.supersedes_id;
    if (typeof replaced !== 'string' || replaced === current?.supersedes_id) return;
    if (!current) return;
    // An update may not make an item supersede itself, directly or through the items it supersedes.
    let at: string | null = replaced;
    for (let depth = 0; at && depth < SUPERSEDE_DEPTH; depth++) {
      if (at === current.id)
        throw new AppError('invalid_arguments', 'An evidence item cannot supersede itself or a newer item.', [
          { path: 'supersedes_id', message: 'Would make a loop' },
        ]);
      const [row] = await ctx.db
        .select({ next: evidence.supersedes_id })
        .from(evidence)
        .where(eq(evidence.id, at))
        .limit(1);
      at = row?.next ?? null;
    }
  },
  addArguments: {
    shape: inlineFileArguments(
      'A small file inline, base64 (with file_name), for FILE; larger ones: upload, then file_id.',
    ),
    take: (ctx, organizationId, values) => takeInlineFile(ctx, organizationId, values, ['url', 'file_id']),
  },
  getExtras: {
    shape: {
      ...DOWNLOAD_SCHEMAS,
      text: z.string().optional().describe('A text file of at most 8 KB: its content.'),
    },
    read: downloadOf,
  },
  present: (row, today) => ({ ...row, expired: isExpired(row, 'valid_until', today) }),
  hints: {
    list: 'For a record: filter.record_id; running out: filter.expiring_before; filter.expired = true.',
    add: 'Attaches proof (a screenshot, a report) to records: a LINK: url; a FILE: file_id from the upload route, or a small one inline as content_base64 + file_name. Replacing an older item: supersedes_id.',
    update: 'The url or file never changes: add a new item that supersedes it.',
  },
  example: {
    organization_id: 'org_...',
    title: 'MFA enforcement screenshot',
    url: 'https://intranet.example.com/evidence/mfa-2026-q3.png',
    collected_on: '2026-09-30',
    valid_until: '2027-09-30',
  },
};
