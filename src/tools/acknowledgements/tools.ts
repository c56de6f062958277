// Policy acknowledgements: ask people of the register to read and accept a document version, see who has not, remind
// them. Each person gets a link of their own (src/tools/acknowledgements/links.ts); an account acknowledges by a call.
import { and, asc, count, eq, gt, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { z } from 'zod';
import {
  acknowledgementRequests,
  acknowledgements,
  documents,
  documentVersions,
  organizations,
  people,
} from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { queueLinkMail } from '../../notify/link-mail.ts';
import { requireOrganization } from '../access.ts';
import { changeAfterWrite } from '../changes.ts';
import { caseInsensitiveEnum, dateSchema, idOf, timestampSchema } from '../fields.ts';
import { cappedCount, pageOutputFields, TOTAL_COUNT_CAP } from '../pagination.ts';
import { callerPerson } from '../people-refs.ts';
import type { RegisterTools } from '../registers/builder.ts';
import { PERSON_KINDS } from '../states.ts';
import {
  CHANGED_A_ROW,
  CREATE_ANNOTATIONS,
  defineTool,
  READ_ANNOTATIONS,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from '../types.ts';
import { ACKNOWLEDGEMENT_VALID_DAYS, completionEvidence, latestAcknowledgement } from './cycles.ts';
import { ackLinkPath, newLinkSecret } from './links.ts';

export const ACK_AUDIENCES = ['ALL', 'KIND', 'PEOPLE'] as const;
export const ACK_STATUSES = ['PENDING', 'ACKNOWLEDGED', 'EXPIRED'] as const;
export const ACK_METHODS = ['LINK', 'WEB', 'TOKEN'] as const;
/** Rows per insert statement (12 columns: well under SQLite's bound on variables). */
const INSERT_CHUNK = 500;

const documentId = idOf('doc', 'Document').describe('The document (`doc_...`).');
const requestId = idOf('akr', 'Acknowledgement request').describe('The request (`akr_...`).');

const linkSchema = z
  .object({
    person_id: z.string().describe('The person (`per_...`).'),
    email: z.string().describe('Their address, to mail the link to.'),
    link_path: z
      .string()
      .nullable()
      .describe('Path of their link (prefix the service address), shown once; null when mailed.'),
    mail_queued: z
      .boolean()
      .describe('True: a mail carrying their link is queued (the link exists only in it).'),
  })
  .describe("A person's acknowledgement link.");

const requestSchema = z
  .object({
    id: z.string().describe('The request (`akr_...`).'),
    organization_id: z.string().describe('Its organization.'),
    document_id: z.string().describe('The document (`doc_...`).'),
    version: z.number().int().describe('The version number to acknowledge.'),
    audience: z.enum(ACK_AUDIENCES).describe('Who was asked: ALL, KIND or PEOPLE.'),
    due_date: z.string().nullable().describe('Due date, or null.'),
    created_at: timestampSchema.describe('When it was made.'),
  })
  .describe('An acknowledgement request.');

export const acknowledgementSchema = z
  .object({
    id: z.string().describe('The acknowledgement (`ack_...`).'),
    request_id: z.string().describe('Its request (`akr_...`).'),
    document_id: z.string().describe('The document (`doc_...`).'),
    version: z.number().int().describe('The version asked.'),
    person_id: z.string().describe('The person (`per_...`).'),
    person_name: z.string().describe("The person's full name."),
    status: z
      .enum(ACK_STATUSES)
      .describe(
        "PENDING, ACKNOWLEDGED, or EXPIRED: the person's latest acknowledgement of the document, given over a year ago (due again).",
      ),
    acknowledged_at: timestampSchema.nullable().describe('When they acknowledged, or null.'),
    method: z.enum(ACK_METHODS).nullable().describe('How: LINK (mailed link), WEB (signed in), TOKEN (API).'),
    due_date: z.string().nullable().describe("The request's due date, or null."),
    link_expires_at: timestampSchema.nullable().describe('When their link expires.'),
    reminded_at: timestampSchema.nullable().describe('Last reminder, or null.'),
  })
  .describe("One person's acknowledgement of a version.");

type AcknowledgementRow = z.output<typeof acknowledgementSchema>;

/** The row is the person's latest acknowledgement of the document (1) or an earlier one (0). */
const latestColumn = sql<number>`(${latestAcknowledgement('acknowledgements')})`;

const listed = {
  id: acknowledgements.id,
  request_id: acknowledgements.request_id,
  document_id: acknowledgements.document_id,
  version: acknowledgements.version_number,
  person_id: acknowledgements.person_id,
  person_name: people.full_name,
  acknowledged_at: acknowledgements.acknowledged_at,
  method: acknowledgements.method,
  due_date: acknowledgementRequests.due_date,
  link_expires_at: acknowledgements.link_expires_at,
  reminded_at: acknowledgements.reminded_at,
  latest: latestColumn,
};

type ListedRow = Omit<AcknowledgementRow, 'status'> & { latest: number };

/** Its status as of `yearAgo` (ISO): a latest acknowledgement given before it is EXPIRED. */
function present({ latest, ...row }: ListedRow, yearAgo: string): AcknowledgementRow {
  if (!row.acknowledged_at) return { ...row, status: 'PENDING' };
  return { ...row, status: latest && row.acknowledged_at < yearAgo ? 'EXPIRED' : 'ACKNOWLEDGED' };
}

/** The ISO time a year (ACKNOWLEDGEMENT_VALID_DAYS) before now: an acknowledgement given before it is due again. */
const yearBefore = (now: Date) =>
  new Date(now.getTime() - ACKNOWLEDGEMENT_VALID_DAYS * 86_400_000).toISOString();

/** What a mail asking for an acknowledgement says (never the link: the delivery run adds it). */
export interface AckMailText {
  organizationName: string;
  title: string;
  version: number;
  dueDate: string | null;
}

/** The mail's subject and text: what is asked, by whom, by when. */
function ackMail(text: AckMailText) {
  return {
    title: `Please acknowledge: ${text.title} v${text.version}`.slice(0, 200),
    body: `${text.organizationName} asks you to read version ${text.version} of "${text.title}" and confirm that you accept it${text.dueDate ? ` by ${text.dueDate}` : ''}. The link below opens it; no account is needed.`,
  };
}

/** A person's link: mailed through the outbox when the service mails links (no secret now), or a secret shown once. */
async function linkFor(
  ctx: ToolContext,
  acknowledgementId: string,
  organizationId: string,
  person: { id: string; email: string },
  text: AckMailText,
  at: string,
) {
  if (ctx.mailLinks) {
    const mail = ackMail(text);
    return {
      link: { person_id: person.id, email: person.email, link_path: null, mail_queued: true },
      hash: null,
      queued: queueLinkMail(
        ctx.db,
        {
          organizationId,
          recordKind: 'acknowledgement',
          recordId: acknowledgementId,
          to: person.email,
          title: mail.title,
          body: mail.body,
        },
        at,
      ),
    };
  }
  const { secret, hash } = await newLinkSecret();
  return {
    link: { person_id: person.id, email: person.email, link_path: ackLinkPath(secret), mail_queued: false },
    hash,
    queued: null,
  };
}

/** Runs statements in batches of INSERT_CHUNK. */
async function inChunks(ctx: ToolContext, statements: BatchItem<'sqlite'>[]) {
  for (let start = 0; start < statements.length; start += INSERT_CHUNK) {
    const [first, ...rest] = statements.slice(start, start + INSERT_CHUNK);
    if (first) await ctx.db.batch([first, ...rest]);
  }
}

/** Issues a fresh link (a new secret, or a mail; the old link stops working) for each pending acknowledgement given. */
async function issueLinks(
  ctx: ToolContext,
  organizationId: string,
  rows: readonly { id: string; person_id: string; email: string }[],
  text: AckMailText,
  expiresAt: string,
) {
  const links: z.output<typeof linkSchema>[] = [];
  const statements: BatchItem<'sqlite'>[] = [];
  const at = ctx.now().toISOString();
  for (const row of rows) {
    const issued = await linkFor(
      ctx,
      row.id,
      organizationId,
      { id: row.person_id, email: row.email },
      text,
      at,
    );
    links.push(issued.link);
    statements.push(
      ctx.db
        .update(acknowledgements)
        .set({ secret_hash: issued.hash, link_expires_at: expiresAt, reminded_at: at })
        .where(and(eq(acknowledgements.id, row.id), isNull(acknowledgements.acknowledged_at))),
    );
    if (issued.queued) statements.push(issued.queued);
  }
  await inChunks(ctx, statements);
  return links;
}

async function organizationName(ctx: ToolContext, id: string): Promise<string> {
  const [row] = await ctx.db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, id));
  return row?.name ?? 'Your organization';
}

const linkDays = z
  .number()
  .int()
  .min(1)
  .max(60)
  .default(14)
  .describe('Days each link stays valid (1..60, default 14).');

export interface AcknowledgementTools {
  request: Tool;
  list: Tool;
  acknowledge: Tool;
  remind: Tool;
}

export function acknowledgementTools(documentsRegister: RegisterTools): AcknowledgementTools {
  const { records } = documentsRegister;

  /** The document (checked for the caller) and the version asked, which must exist and be published or approved. */
  async function versionToAcknowledge(
    ctx: ToolContext,
    id: string,
    asked: number | undefined,
    mode: 'read' | 'write',
  ) {
    const document = await records.load(ctx, id, mode);
    const number = asked ?? (document.published_version as number | null) ?? undefined;
    if (number === undefined)
      throw new AppError(
        'invalid_arguments',
        'This document has no published version: give `version`, or publish one first.',
        { field: 'version' },
      );
    const [version] = await ctx.db
      .select({ status: documentVersions.status })
      .from(documentVersions)
      .where(and(eq(documentVersions.document_id, id), eq(documentVersions.number, number)));
    if (!version)
      throw new AppError('invalid_arguments', `The document has no version ${number}.`, { field: 'version' });
    return { document, number, organizationId: String(document.organization_id) };
  }

  const request = defineTool({
    name: 'requestAcknowledgements',
    title: 'Request policy acknowledgements',
    description:
      'Get everyone (ALL of the people register, some KINDs, or listed PEOPLE) to read and accept an updated policy or document version. Each gets a single-use link, mailed when the service sends mail (mail_queued), else returned to mail; those who acknowledged within a year are skipped.',
    scope: 'write',
    annotations: CREATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      document_id: documentId,
      version: z.number().int().min(1).optional().describe('Version number; default the published one.'),
      audience: caseInsensitiveEnum(ACK_AUDIENCES).describe(
        'ALL (everyone), KIND (the kinds given), PEOPLE (person_ids).',
      ),
      kinds: z
        .array(caseInsensitiveEnum(PERSON_KINDS))
        .max(3)
        .optional()
        .describe('With KIND: EMPLOYEE, CONTRACTOR, SERVICE_ACCOUNT.'),
      person_ids: z
        .array(idOf('per', 'Person'))
        .max(1000)
        .optional()
        .describe('With PEOPLE: the people (`per_...`).'),
      due_date: dateSchema.optional().describe('Acknowledge by, YYYY-MM-DD.'),
      link_days: linkDays,
    }),
    output: z.object({
      request: requestSchema,
      requested: z.number().int().describe('People asked.'),
      mails_queued: z
        .number()
        .int()
        .describe('Of them, how many get their link by mail (0 when the service sends no mail).'),
      skipped: z.number().int().describe('People already pending or acknowledged within a year.'),
      links: z.array(linkSchema).describe('One link per person asked.'),
    }),
    async run(ctx, input) {
      const { document, number, organizationId } = await versionToAcknowledge(
        ctx,
        input.document_id,
        input.version,
        'write',
      );
      if (input.audience === 'KIND' && !input.kinds?.length)
        throw new AppError('invalid_arguments', 'audience KIND needs `kinds`.', { field: 'kinds' });
      if (input.audience === 'PEOPLE' && !input.person_ids?.length)
        throw new AppError('invalid_arguments', 'audience PEOPLE needs `person_ids`.', {
          field: 'person_ids',
        });
      const who: SQL[] = [eq(people.organization_id, organizationId)];
      if (input.audience === 'KIND') who.push(inArray(people.kind, input.kinds ?? []));
      if (input.audience === 'PEOPLE') {
        const ids = [...new Set(input.person_ids)];
        who.push(inArray(people.id, ids));
        const [found] = await ctx.db
          .select({ n: count() })
          .from(people)
          .where(and(...who));
        if ((found?.n ?? 0) !== ids.length)
          throw new AppError('invalid_arguments', 'Some person_ids are not people of this organization.', {
            field: 'person_ids',
          });
      }
      const now = ctx.now();
      const yearAgo = yearBefore(now);
      // Pending for this version, or acknowledged it within the year: not asked again.
      const covered = sql`exists (select 1 from ${acknowledgements} a where a.person_id = ${people.id} and a.document_id = ${input.document_id} and a.version_number = ${number} and (a.acknowledged_at is null or a.acknowledged_at > ${yearAgo}))`;
      const everyone = await ctx.db
        .select({ id: people.id, email: people.email, covered: sql<number>`${covered}` })
        .from(people)
        .where(and(...who))
        .orderBy(asc(people.id));
      const asked = everyone.filter((person) => !person.covered);
      const at = now.toISOString();
      const expiresAt = new Date(now.getTime() + input.link_days * 86_400_000).toISOString();
      const requestRow = {
        id: newId('akr'),
        organization_id: organizationId,
        document_id: input.document_id,
        version_number: number,
        audience: input.audience,
        due_date: input.due_date ?? null,
        requested_by_user_id: ctx.principal.userId,
        created_at: at,
      };
      const links: z.output<typeof linkSchema>[] = [];
      const rows = [];
      const mails: BatchItem<'sqlite'>[] = [];
      const text = {
        organizationName: await organizationName(ctx, organizationId),
        title: String(document.title),
        version: number,
        dueDate: requestRow.due_date,
      };
      for (const person of asked) {
        const id = newId('ack');
        const issued = await linkFor(ctx, id, organizationId, person, text, at);
        links.push(issued.link);
        if (issued.queued) mails.push(issued.queued);
        rows.push({
          id,
          organization_id: organizationId,
          request_id: requestRow.id,
          document_id: input.document_id,
          version_number: number,
          person_id: person.id,
          secret_hash: issued.hash,
          link_expires_at: expiresAt,
          created_at: at,
        });
      }
      const inserts = [];
      for (let start = 0; start < rows.length; start += INSERT_CHUNK)
        inserts.push(ctx.db.insert(acknowledgements).values(rows.slice(start, start + INSERT_CHUNK)));
      // The mails after their rows; over one chunk they go in batches of their own once the request landed.
      // All or nothing: the request, its history row on the document and every person's row in one batch.
      await ctx.db.batch([
        ctx.db.insert(acknowledgementRequests).values(requestRow),
        changeAfterWrite(ctx, {
          tool: 'requestAcknowledgements',
          kind: 'document',
          recordId: input.document_id,
          organizationId,
          action: 'update',
          before: { acknowledgement_request_id: null },
          after: {
            acknowledgement_request_id: requestRow.id,
            version: number,
            audience: input.audience,
            due_date: requestRow.due_date,
            requested: asked.length,
          },
          at,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        ...inserts,
        ...mails.slice(0, INSERT_CHUNK),
      ]);
      await inChunks(ctx, mails.slice(INSERT_CHUNK));
      return {
        request: {
          id: requestRow.id,
          organization_id: organizationId,
          document_id: input.document_id,
          version: number,
          audience: input.audience,
          due_date: requestRow.due_date,
          created_at: at,
        },
        requested: asked.length,
        mails_queued: mails.length,
        skipped: everyone.length - asked.length,
        links,
      };
    },
  });

  const list = defineTool({
    name: 'listAcknowledgements',
    title: 'List policy acknowledgements',
    description:
      'List who acknowledged a document version and who has not (filter status PENDING for "who has not acknowledged v3"), with when and how (LINK, WEB, TOKEN).',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('The organization (`org_...`).'),
      filter: z
        .strictObject({
          document_id: documentId.optional(),
          version: z.number().int().min(1).optional().describe('Only this version number.'),
          status: caseInsensitiveEnum(ACK_STATUSES)
            .optional()
            .describe('PENDING (not yet), ACKNOWLEDGED, or EXPIRED (latest one over a year old: due again).'),
          person_id: idOf('per', 'Person').optional().describe('Only this person (`per_...`).'),
          request_id: requestId.optional(),
        })
        .default({})
        .describe('Filters, all optional.'),
      size: z.number().int().min(1).max(100).default(20).describe('Page size (1..100, default 20).'),
      cursor: z.string().max(200).optional().describe('next_cursor of the previous page.'),
    }),
    output: z.object({
      acknowledgements: z.array(acknowledgementSchema),
      ...pageOutputFields,
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      const { filter } = input;
      const where: SQL[] = [eq(acknowledgements.organization_id, input.organization_id)];
      if (filter.document_id) where.push(eq(acknowledgements.document_id, filter.document_id));
      if (filter.version !== undefined) where.push(eq(acknowledgements.version_number, filter.version));
      const yearAgo = yearBefore(ctx.now());
      const expired = sql`(${acknowledgements.acknowledged_at} < ${yearAgo} and ${latestColumn})`;
      if (filter.status === 'PENDING') where.push(isNull(acknowledgements.acknowledged_at));
      if (filter.status === 'ACKNOWLEDGED')
        where.push(isNotNull(acknowledgements.acknowledged_at), sql`not ${expired}`);
      if (filter.status === 'EXPIRED') where.push(expired);
      if (filter.person_id) where.push(eq(acknowledgements.person_id, filter.person_id));
      if (filter.request_id) where.push(eq(acknowledgements.request_id, filter.request_id));
      const after = input.cursor ? decodeAckCursor(input.cursor) : null;
      const page = after ? [...where, gt(acknowledgements.id, after)] : where;
      const [rows, [total]] = await Promise.all([
        ctx.db
          .select(listed)
          .from(acknowledgements)
          .innerJoin(people, eq(people.id, acknowledgements.person_id))
          .innerJoin(acknowledgementRequests, eq(acknowledgementRequests.id, acknowledgements.request_id))
          .where(and(...page))
          .orderBy(asc(acknowledgements.id))
          .limit(input.size + 1),
        // Counted up to the cap, as every list counts (DESIGN.md): the count stops at the cap's next row.
        ctx.db.select({ n: count() }).from(
          ctx.db
            .select({ one: sql`1` })
            .from(acknowledgements)
            .where(and(...where))
            .limit(TOTAL_COUNT_CAP + 1)
            .as('matches'),
        ),
      ]);
      const shown = rows.slice(0, input.size);
      const last = shown.at(-1);
      const counted = cappedCount(total?.n ?? 0, TOTAL_COUNT_CAP);
      return {
        acknowledgements: shown.map((row) => present(row as ListedRow, yearAgo)),
        next_cursor: rows.length > input.size && last ? encodeAckCursor(last.id) : null,
        total_count: counted.total,
        total_count_capped: counted.capped,
      };
    },
  });

  const acknowledge = defineTool({
    name: 'acknowledgeDocument',
    title: 'Acknowledge a document',
    description:
      "Record that I have read and accept (acknowledge) a policy, code of conduct or other document version, as the person whose email is my account's confirmed address.",
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({
      document_id: documentId,
      version: z.number().int().min(1).optional().describe('Version number; default the published one.'),
    }),
    output: z.object({ acknowledgements: z.array(acknowledgementSchema) }),
    async run(ctx, input) {
      const { document, number, organizationId } = await versionToAcknowledge(
        ctx,
        input.document_id,
        input.version,
        'read',
      );
      const personId = await callerPerson(ctx, organizationId);
      if (!personId)
        throw new AppError(
          'forbidden',
          "Your account's confirmed email is not that of a person of this organization's register, so there is no one to acknowledge as.",
        );
      const of = and(
        eq(acknowledgements.organization_id, organizationId),
        eq(acknowledgements.document_id, input.document_id),
        eq(acknowledgements.version_number, number),
        eq(acknowledgements.person_id, personId),
      );
      const at = ctx.now().toISOString();
      const evidence = await completionEvidence(ctx, {
        documentId: input.document_id,
        organizationId,
        title: String(document.title),
        version: number,
        personId,
        at,
      });
      const method = ctx.surface === 'web' ? 'WEB' : 'TOKEN';
      // The acknowledgement and its history row on the document, in one batch: the row only when one was pending.
      const [updated] = await ctx.db.batch([
        ctx.db
          .update(acknowledgements)
          .set({ acknowledged_at: at, method })
          .where(and(of, isNull(acknowledgements.acknowledged_at)))
          .returning({ id: acknowledgements.id }),
        changeAfterWrite(ctx, {
          tool: 'acknowledgeDocument',
          kind: 'document',
          recordId: input.document_id,
          organizationId,
          action: 'update',
          before: { acknowledged_version: null },
          after: { acknowledged_version: number, acknowledged_by_id: personId, method },
          at,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        // The last one asked acknowledging completes the request: its evidence, in the same batch.
        ...evidence,
      ]);
      if (updated.length === 0)
        throw new AppError(
          'not_found',
          `Nothing is pending for you on version ${number} of this document: no request asked you, or you acknowledged it already.`,
        );
      const rows = await ctx.db
        .select(listed)
        .from(acknowledgements)
        .innerJoin(people, eq(people.id, acknowledgements.person_id))
        .innerJoin(acknowledgementRequests, eq(acknowledgementRequests.id, acknowledgements.request_id))
        .where(
          inArray(
            acknowledgements.id,
            updated.map((row) => row.id),
          ),
        );
      const yearAgo = yearBefore(ctx.now());
      return { acknowledgements: rows.map((row) => present(row as ListedRow, yearAgo)) };
    },
  });

  const remind = defineTool({
    name: 'sendAcknowledgementReminders',
    title: 'Remind people to acknowledge',
    description:
      'Send reminders to the staff who still have not accepted a policy on an acknowledgement request: each gets a fresh link (the old one stops working), mailed when the service sends mail (mail_queued), else returned to mail.',
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: 'documents',
    input: z.strictObject({ request_id: requestId, link_days: linkDays }),
    output: z.object({
      reminded: z.number().int().describe('People reminded.'),
      mails_queued: z.number().int().describe('Of them, how many get the new link by mail.'),
      links: z.array(linkSchema).describe('Their new links.'),
    }),
    async run(ctx, input) {
      const [found] = await ctx.db
        .select({
          organization_id: acknowledgementRequests.organization_id,
          version: acknowledgementRequests.version_number,
          due_date: acknowledgementRequests.due_date,
          title: documents.title,
          organization: organizations.name,
        })
        .from(acknowledgementRequests)
        .innerJoin(
          documents,
          and(
            eq(documents.id, acknowledgementRequests.document_id),
            eq(documents.organization_id, acknowledgementRequests.organization_id),
          ),
        )
        .innerJoin(organizations, eq(organizations.id, acknowledgementRequests.organization_id))
        .where(eq(acknowledgementRequests.id, input.request_id));
      if (!found) throw new AppError('not_found', 'Acknowledgement request not found.');
      try {
        requireOrganization(ctx, found.organization_id, 'write', 'Acknowledgement request');
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found')
          throw new AppError('not_found', 'Acknowledgement request not found.');
        throw error;
      }
      const pending = await ctx.db
        .select({ id: acknowledgements.id, person_id: acknowledgements.person_id, email: people.email })
        .from(acknowledgements)
        .innerJoin(people, eq(people.id, acknowledgements.person_id))
        .where(
          and(
            eq(acknowledgements.organization_id, found.organization_id),
            eq(acknowledgements.request_id, input.request_id),
            isNull(acknowledgements.acknowledged_at),
          ),
        )
        .orderBy(asc(acknowledgements.id));
      const expiresAt = new Date(ctx.now().getTime() + input.link_days * 86_400_000).toISOString();
      const links = await issueLinks(
        ctx,
        found.organization_id,
        pending,
        {
          organizationName: found.organization,
          title: found.title,
          version: found.version,
          dueDate: found.due_date,
        },
        expiresAt,
      );
      return { reminded: links.length, mails_queued: links.filter((link) => link.mail_queued).length, links };
    },
  });

  return { request, list, acknowledge, remind };
}

const CURSOR_PATTERN = /^ack_[0-9a-z]{24}$/;

function encodeAckCursor(id: string): string {
  return btoa(id).replaceAll('=', '');
}

function decodeAckCursor(cursor: string): string {
  let id = '';
  try {
    id = atob(cursor);
  } catch {
    id = '';
  }
  if (!CURSOR_PATTERN.test(id))
    throw new AppError('invalid_arguments', 'This cursor is not one this list returned.', {
      field: 'cursor',
    });
  return id;
}
