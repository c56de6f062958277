// Vendor questionnaires: send a template's questions to a vendor's contact through a single-use link (no mail is sent
// here: the caller mails the link), remind with a fresh link, read the answers and their score, and draft a vendor
// assessment from them for a person to confirm. The link's page is src/web/public/questionnaires.tsx.
import { and, eq, gt, isNotNull, isNull, lte, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { organizations, vendorQuestionnaires, vendors } from '../../db/schema.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { queueLinkMail } from '../../notify/link-mail.ts';
import { requireOrganization } from '../access.ts';
import { newLinkSecret } from '../acknowledgements/links.ts';
import { DOWNLOAD_SCHEMAS, fileDownload } from '../attached-files.ts';
import { changeAfterWrite } from '../changes.ts';
import {
  caseInsensitiveEnum,
  cursorSchema,
  dateSchema,
  emailAddress,
  idOf,
  PAGE_SIZE,
  shortText,
  sizeSchema,
  timestampSchema,
} from '../fields.ts';
import { registerIdKind } from '../id-kinds.ts';
import { countMatches, pageById, pageOutputFields } from '../pagination.ts';
import { callerPerson } from '../people-refs.ts';
import type { RegisterTools } from '../registers/builder.ts';
import { VENDOR_ASSESSMENT_RESULTS, VENDOR_TIERS } from '../states.ts';
import {
  CHANGED_A_ROW,
  CREATE_ANNOTATIONS,
  defineTool,
  READ_ANNOTATIONS,
  type Tool,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from '../types.ts';
import { attachmentsOf } from './attachments.ts';
import { questionnaireLinkPath } from './links.ts';
import { type Answer, findingsOf, type Question, questionSchema } from './questions.ts';
import { loadTemplate, QUESTIONNAIRE_TOOLSET, templateId } from './templates.ts';

export const QUESTIONNAIRE_STATUSES = ['PENDING', 'ANSWERED', 'EXPIRED'] as const;
type QuestionnaireStatus = (typeof QUESTIONNAIRE_STATUSES)[number];
const DAY_MS = 86_400_000;
/** Score bands of a drafted assessment's result: at least APPROVED_FROM is APPROVED, below CONDITIONS_FROM NOT_APPROVED. */
const APPROVED_FROM = 80;
const CONDITIONS_FROM = 50;

/** The result a score suggests; no score (no scored questions) leaves it to conditions a person writes. */
function proposedResult(score: number | null): (typeof VENDOR_ASSESSMENT_RESULTS)[number] {
  if (score === null) return 'APPROVED_WITH_CONDITIONS';
  if (score >= APPROVED_FROM) return 'APPROVED';
  return score >= CONDITIONS_FROM ? 'APPROVED_WITH_CONDITIONS' : 'NOT_APPROVED';
}

const questionnaireId = idOf('vqn', 'Vendor questionnaire').describe('The questionnaire (`vqn_...`).');
const vendorId = idOf('ven', 'Vendor').describe('The vendor (`ven_...`).');

const questionnaireSchema = z
  .object({
    id: z.string().describe('The questionnaire (`vqn_...`).'),
    organization_id: z.string().describe('Its organization.'),
    vendor_id: z.string().describe('The vendor asked (`ven_...`).'),
    vendor_name: z.string().describe("The vendor's name."),
    template_id: z.string().describe('The template it was sent from (`qtp_...`).'),
    title: z.string().describe("The template's name when sent."),
    contact_name: z.string().describe('Who was asked to answer.'),
    contact_email: z.string().describe('Their address.'),
    due_date: z.string().describe('Answer by, YYYY-MM-DD.'),
    status: z
      .enum(QUESTIONNAIRE_STATUSES)
      .describe('PENDING, ANSWERED or EXPIRED (link ran out unanswered).'),
    link_expires_at: timestampSchema.describe('When the current link stops working.'),
    reminded_at: timestampSchema.nullable().describe('Last reminder, or null.'),
    answered_at: timestampSchema.nullable().describe('When the answers were submitted, or null.'),
    score: z
      .number()
      .int()
      .nullable()
      .describe('0..100 from the weights once answered; null before or if unscored.'),
    created_at: timestampSchema.describe('When it was sent.'),
  })
  .describe('A questionnaire sent to a vendor.');

const answeredQuestionSchema = questionSchema
  .extend({
    answer: z.string().nullable().describe('What the vendor answered, or null before.'),
    acceptable_answer: z
      .boolean()
      .nullable()
      .describe('Whether the answer earns the weight; null before answering or for unscored questions.'),
    files: z
      .array(
        z
          .object({
            id: z.string().describe('The stored file (`fil_...`).'),
            file_name: z.string().describe('File name, sanitised.'),
            size: z.number().int().describe('Size in bytes.'),
            content_type: z.string().describe('Content type sniffed from the bytes.'),
            sha256: z.string().describe('SHA-256 of the bytes (hex).'),
            attached_at: timestampSchema.describe('When the contact attached it.'),
            ...DOWNLOAD_SCHEMAS,
          })
          .describe('A file the contact attached to this answer.'),
      )
      .describe("Files the vendor's contact attached to this answer (e.g. a SOC 2 report)."),
  })
  .describe('A question with its answer.');

type QuestionnaireRow = typeof vendorQuestionnaires.$inferSelect & { vendor_name: string };

const selected = {
  id: vendorQuestionnaires.id,
  organization_id: vendorQuestionnaires.organization_id,
  vendor_id: vendorQuestionnaires.vendor_id,
  vendor_name: vendors.name,
  template_id: vendorQuestionnaires.template_id,
  title: vendorQuestionnaires.title,
  questions: vendorQuestionnaires.questions,
  contact_name: vendorQuestionnaires.contact_name,
  contact_email: vendorQuestionnaires.contact_email,
  due_date: vendorQuestionnaires.due_date,
  secret_hash: vendorQuestionnaires.secret_hash,
  link_expires_at: vendorQuestionnaires.link_expires_at,
  reminded_at: vendorQuestionnaires.reminded_at,
  answers: vendorQuestionnaires.answers,
  score: vendorQuestionnaires.score,
  answered_at: vendorQuestionnaires.answered_at,
  sent_by_user_id: vendorQuestionnaires.sent_by_user_id,
  created_at: vendorQuestionnaires.created_at,
};

const withVendor = and(
  eq(vendors.id, vendorQuestionnaires.vendor_id),
  eq(vendors.organization_id, vendorQuestionnaires.organization_id),
);

function statusOf(row: QuestionnaireRow, now: Date): QuestionnaireStatus {
  if (row.answered_at) return 'ANSWERED';
  return row.link_expires_at <= now.toISOString() ? 'EXPIRED' : 'PENDING';
}

function present(row: QuestionnaireRow, now: Date): z.input<typeof questionnaireSchema> {
  return {
    id: row.id,
    organization_id: row.organization_id,
    vendor_id: row.vendor_id,
    vendor_name: row.vendor_name,
    template_id: row.template_id,
    title: row.title,
    contact_name: row.contact_name,
    contact_email: row.contact_email,
    due_date: row.due_date,
    status: statusOf(row, now),
    link_expires_at: row.link_expires_at,
    reminded_at: row.reminded_at,
    answered_at: row.answered_at,
    score: row.score,
    created_at: row.created_at,
  };
}

/** The questionnaire by id, in an organization the caller reaches for `mode`; else the same not_found. */
async function loadQuestionnaire(
  ctx: ToolContext,
  id: string,
  mode: 'read' | 'write',
): Promise<QuestionnaireRow> {
  const [row] = await ctx.db
    .select(selected)
    .from(vendorQuestionnaires)
    .innerJoin(vendors, withVendor)
    .where(eq(vendorQuestionnaires.id, id));
  if (!row) throw notFound('Vendor questionnaire');
  requireOrganization(ctx, row.organization_id, mode, 'Vendor questionnaire');
  return row;
}

const linkDays = z
  .number()
  .int()
  .min(1)
  .max(90)
  .default(30)
  .describe('Days the link stays valid (1..90, default 30); it must reach the due date.');

const NO_MAIL = 'No mail was sent: send link_path (after the service address) to the contact yourself.';
const MAILED =
  'A mail with the link is queued to contact_email; the link is issued as it is sent, never shown here.';

/**
 * The questionnaire's link: when the service mails links, a mail queued in the outbox (its link issued as it is sent,
 * so no secret now); otherwise a secret shown once. `queued` goes in the batch that stores the questionnaire.
 */
async function questionnaireLink(
  ctx: ToolContext,
  questionnaire: {
    id: string;
    organizationId: string;
    vendorName: string;
    title: string;
    contactEmail: string;
    dueDate: string;
  },
  at: string,
) {
  if (!ctx.mailLinks) {
    const { secret, hash } = await newLinkSecret();
    return { hash, link_path: questionnaireLinkPath(secret), mail_queued: false, note: NO_MAIL, queued: [] };
  }
  const [organization] = await ctx.db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, questionnaire.organizationId));
  const asker = organization?.name ?? 'A customer';
  const queued = queueLinkMail(
    ctx.db,
    {
      organizationId: questionnaire.organizationId,
      recordKind: 'vendor_questionnaire',
      recordId: questionnaire.id,
      to: questionnaire.contactEmail,
      title: `Security questionnaire from ${asker}: ${questionnaire.title}`.slice(0, 200),
      body: `${asker} asks ${questionnaire.vendorName} to answer the questionnaire "${questionnaire.title}" by ${questionnaire.dueDate}. The link below opens it and can be used once; no account is needed.`,
    },
    at,
  );
  return { hash: null, link_path: null, mail_queued: true, note: MAILED, queued: [queued] };
}

const linkOutput = {
  link_path: z
    .string()
    .nullable()
    .describe('Path of the link (prefix the service address), shown once; null when mailed.'),
  mail_queued: z.boolean().describe("True: a mail carrying the link is queued to the contact's address."),
  note: z.string().describe('What to do with the link.'),
};

registerIdKind('vqn', {
  label: 'vendor questionnaire',
  plural: 'vendor questionnaires',
  read: 'getQuestionnaireAnswers',
  list: 'listVendorQuestionnaires',
});

export interface QuestionnaireTools {
  send: Tool;
  list: Tool;
  get: Tool;
  remind: Tool;
  draftAssessment: Tool;
}

export function vendorQuestionnaireTools(vendorsRegister: RegisterTools): QuestionnaireTools {
  const send = defineTool({
    name: 'sendVendorQuestionnaire',
    title: 'Send a vendor security questionnaire',
    description:
      "Send a vendor a security questionnaire from a template: a single-use link for the vendor's contact to answer without an account, by the due date. Mailed to the contact when the service sends mail (mail_queued); otherwise returned for you to mail.",
    scope: 'write',
    annotations: CREATE_ANNOTATIONS,
    toolset: QUESTIONNAIRE_TOOLSET,
    input: z.strictObject({
      vendor_id: vendorId,
      template_id: templateId,
      contact_name: shortText().describe("The vendor's contact who answers."),
      contact_email: emailAddress.describe('Their email address.'),
      due_date: dateSchema.describe('Answer by, YYYY-MM-DD (today or later).'),
      link_days: linkDays,
    }),
    output: z.object({ vendor_questionnaire: questionnaireSchema, ...linkOutput }),
    async run(ctx, input) {
      const vendor = await vendorsRegister.records.load(ctx, input.vendor_id, 'write');
      const template = await loadTemplate(ctx, input.template_id, 'read');
      const organizationId = String(vendor.organization_id);
      if (template.organization_id !== organizationId) throw notFound('Questionnaire template');
      const now = ctx.now();
      const at = now.toISOString();
      if (input.due_date < at.slice(0, 10))
        throw new AppError('invalid_arguments', `due_date ${input.due_date} is in the past.`, {
          field: 'due_date',
        });
      const expiresAt = new Date(now.getTime() + input.link_days * DAY_MS).toISOString();
      if (input.due_date > expiresAt.slice(0, 10))
        throw new AppError(
          'invalid_arguments',
          `The link would expire on ${expiresAt.slice(0, 10)}, before due_date ${input.due_date}: give more link_days or an earlier due_date.`,
          { field: 'link_days' },
        );
      const id = newId('vqn');
      const link = await questionnaireLink(
        ctx,
        {
          id,
          organizationId,
          vendorName: String(vendor.name),
          title: template.name,
          contactEmail: input.contact_email,
          dueDate: input.due_date,
        },
        at,
      );
      const row: QuestionnaireRow = {
        id,
        organization_id: organizationId,
        vendor_id: input.vendor_id,
        vendor_name: String(vendor.name),
        template_id: template.id,
        title: template.name,
        questions: template.questions,
        contact_name: input.contact_name,
        contact_email: input.contact_email,
        due_date: input.due_date,
        secret_hash: link.hash,
        link_expires_at: expiresAt,
        reminded_at: null,
        answers: null,
        score: null,
        answered_at: null,
        sent_by_user_id: ctx.principal.userId,
        created_at: at,
      };
      const { vendor_name: _shown, ...stored } = row;
      // The questionnaire and its history row on the vendor, in one batch.
      await ctx.db.batch([
        ctx.db.insert(vendorQuestionnaires).values(stored),
        changeAfterWrite(ctx, {
          tool: 'sendVendorQuestionnaire',
          kind: 'vendor',
          recordId: input.vendor_id,
          organizationId,
          action: 'update',
          before: { questionnaire_id: null },
          after: {
            questionnaire_id: row.id,
            template_id: template.id,
            contact_email: row.contact_email,
            due_date: row.due_date,
          },
          at,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        ...link.queued,
      ]);
      return {
        vendor_questionnaire: present(row, now),
        link_path: link.link_path,
        mail_queued: link.mail_queued,
        note: link.note,
      };
    },
  });

  const list = defineTool({
    name: 'listVendorQuestionnaires',
    title: 'List sent questionnaires',
    description:
      'List the security questionnaires sent out, with status (PENDING, ANSWERED, EXPIRED), due date and score: who has not answered yet.',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: QUESTIONNAIRE_TOOLSET,
    input: z.strictObject({
      organization_id: idOf('org', 'Organization').describe('The organization (`org_...`).'),
      filter: z
        .strictObject({
          vendor_id: vendorId.optional().describe('Only those sent to this vendor (`ven_...`).'),
          status: caseInsensitiveEnum(QUESTIONNAIRE_STATUSES)
            .optional()
            .describe('PENDING (link open), ANSWERED or EXPIRED (link ran out unanswered).'),
          template_id: templateId.optional().describe('Only those sent from this template (`qtp_...`).'),
        })
        .default({})
        .describe('Filters, all optional.'),
      size: sizeSchema.default(PAGE_SIZE.default),
      cursor: cursorSchema.optional(),
    }),
    output: z.object({
      vendor_questionnaires: z.array(questionnaireSchema),
      ...pageOutputFields,
    }),
    async run(ctx, input) {
      requireOrganization(ctx, input.organization_id, 'read');
      const { filter } = input;
      const now = ctx.now();
      const at = now.toISOString();
      const where: SQL[] = [eq(vendorQuestionnaires.organization_id, input.organization_id)];
      if (filter.vendor_id) where.push(eq(vendorQuestionnaires.vendor_id, filter.vendor_id));
      if (filter.template_id) where.push(eq(vendorQuestionnaires.template_id, filter.template_id));
      if (filter.status === 'ANSWERED') where.push(isNotNull(vendorQuestionnaires.answered_at));
      if (filter.status === 'PENDING')
        where.push(isNull(vendorQuestionnaires.answered_at), gt(vendorQuestionnaires.link_expires_at, at));
      if (filter.status === 'EXPIRED')
        where.push(isNull(vendorQuestionnaires.answered_at), lte(vendorQuestionnaires.link_expires_at, at));
      const { rows, ...page } = await pageById({
        list: 'listVendorQuestionnaires',
        size: input.size,
        cursor: input.cursor,
        read: (afterId, limit) =>
          ctx.db
            .select(selected)
            .from(vendorQuestionnaires)
            .innerJoin(vendors, withVendor)
            .where(and(...where, afterId ? gt(vendorQuestionnaires.id, afterId) : undefined))
            .orderBy(vendorQuestionnaires.id)
            .limit(limit),
        // Without the vendors: a vendor's questionnaires go with it (deleteVendor), and the join let the planner walk
        // every vendor of the organization instead of the range of vendor_questionnaires_unanswered_idx.
        countUpTo: (bound) =>
          countMatches(
            ctx.db,
            ctx.db
              .select({ one: sql`1` })
              .from(vendorQuestionnaires)
              .where(and(...where))
              .limit(bound),
          ),
      });
      return { vendor_questionnaires: rows.map((row) => present(row, now)), ...page };
    },
  });

  const get = defineTool({
    name: 'getQuestionnaireAnswers',
    title: "Get a questionnaire's answers and score",
    description:
      'Read a sent security questionnaire: each question with its answer, whether it is acceptable and the files attached to it, when it was answered, and the score (0..100 from the weights).',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: QUESTIONNAIRE_TOOLSET,
    input: z.strictObject({ id: questionnaireId }),
    output: z.object({
      vendor_questionnaire: questionnaireSchema.extend({
        questions: z.array(answeredQuestionSchema).describe('The questions as sent, with the answers.'),
      }),
    }),
    async run(ctx, input) {
      const row = await loadQuestionnaire(ctx, input.id, 'read');
      const answers = new Map(((row.answers ?? []) as Answer[]).map((answer) => [answer.key, answer.answer]));
      const files = await Promise.all(
        (await attachmentsOf(ctx.db, row.id)).map(async (file) => ({
          question_key: file.question_key,
          id: file.file_id,
          file_name: file.file_name,
          size: file.size,
          content_type: file.content_type,
          sha256: file.sha256,
          attached_at: file.created_at,
          ...(await fileDownload(ctx, {
            organizationId: row.organization_id,
            fileId: file.file_id,
            subjectId: row.id,
          })),
        })),
      );
      const questions = (row.questions as Question[]).map((question) => {
        const answer = answers.get(question.key) ?? null;
        const scored = answer !== null && question.weight > 0;
        return {
          ...question,
          answer,
          acceptable_answer: scored ? question.acceptable.includes(answer) : null,
          files: files
            .filter((file) => file.question_key === question.key)
            .map(({ question_key: _key, ...file }) => file),
        };
      });
      return { vendor_questionnaire: { ...present(row, ctx.now()), questions } };
    },
  });

  const remind = defineTool({
    name: 'remindQuestionnaire',
    title: 'Remind to answer a questionnaire',
    description:
      'Remind a contact who has not answered a security questionnaire: a fresh single-use link (the old one stops working), also for an expired one. Mailed to the contact when the service sends mail (mail_queued); otherwise returned for you to mail.',
    scope: 'write',
    annotations: UPDATE_ANNOTATIONS,
    toolset: QUESTIONNAIRE_TOOLSET,
    input: z.strictObject({
      id: questionnaireId,
      due_date: dateSchema.optional().describe('A new due date, YYYY-MM-DD (default: keep it).'),
      link_days: linkDays,
    }),
    output: z.object({ vendor_questionnaire: questionnaireSchema, ...linkOutput }),
    async run(ctx, input) {
      const row = await loadQuestionnaire(ctx, input.id, 'write');
      if (row.answered_at)
        throw new AppError(
          'conflict',
          `This questionnaire was answered on ${row.answered_at.slice(0, 10)}: there is nothing to remind. Read the answers with getQuestionnaireAnswers.`,
        );
      const now = ctx.now();
      const at = now.toISOString();
      const dueDate = input.due_date ?? row.due_date;
      const expiresAt = new Date(now.getTime() + input.link_days * DAY_MS).toISOString();
      if (input.due_date !== undefined && input.due_date < at.slice(0, 10))
        throw new AppError('invalid_arguments', `due_date ${input.due_date} is in the past.`, {
          field: 'due_date',
        });
      if (dueDate > expiresAt.slice(0, 10))
        throw new AppError(
          'invalid_arguments',
          `The link would expire on ${expiresAt.slice(0, 10)}, before due_date ${dueDate}: give more link_days or an earlier due_date.`,
          { field: 'link_days' },
        );
      const link = await questionnaireLink(
        ctx,
        {
          id: row.id,
          organizationId: row.organization_id,
          vendorName: row.vendor_name,
          title: row.title,
          contactEmail: row.contact_email,
          dueDate,
        },
        at,
      );
      // The new secret (or none until the mail goes) replaces the old one only while unanswered, with its history row.
      await ctx.db.batch([
        ctx.db
          .update(vendorQuestionnaires)
          .set({ secret_hash: link.hash, link_expires_at: expiresAt, reminded_at: at, due_date: dueDate })
          .where(and(eq(vendorQuestionnaires.id, row.id), isNull(vendorQuestionnaires.answered_at))),
        changeAfterWrite(ctx, {
          tool: 'remindQuestionnaire',
          kind: 'vendor',
          recordId: row.vendor_id,
          organizationId: row.organization_id,
          action: 'update',
          before: { questionnaire_id: row.id, due_date: row.due_date, link_expires_at: row.link_expires_at },
          after: { questionnaire_id: row.id, due_date: dueDate, link_expires_at: expiresAt },
          at,
        }),
        ...ctx.writeExtras(CHANGED_A_ROW),
        ...link.queued,
      ]);
      const next = await loadQuestionnaire(ctx, row.id, 'read');
      if (next.answered_at)
        throw new AppError('conflict', 'The vendor answered while the reminder was made: nothing to remind.');
      return {
        vendor_questionnaire: present(next, now),
        link_path: link.link_path,
        mail_queued: link.mail_queued,
        note: link.note,
      };
    },
  });

  const draftAssessment = defineTool({
    name: 'draftVendorAssessment',
    title: 'Draft a vendor assessment from answers',
    description:
      'Propose an assessment (result from the score, tier, findings in the summary) from answered security questionnaire answers. Saves nothing: a person checks the draft first.',
    scope: 'read',
    annotations: READ_ANNOTATIONS,
    toolset: QUESTIONNAIRE_TOOLSET,
    input: z.strictObject({ questionnaire_id: questionnaireId }),
    output: z.object({
      proposed: z
        .object({
          organization_id: z.string().describe('The organization.'),
          vendor_id: z.string().describe('The vendor (`ven_...`).'),
          assessor_id: z
            .string()
            .nullable()
            .describe('You as a person of the register (`per_...`), or null: choose the assessor.'),
          assessed_on: z.string().describe('Today, YYYY-MM-DD.'),
          result: z.enum(VENDOR_ASSESSMENT_RESULTS).describe('Proposed from the score.'),
          tier: z.enum(VENDOR_TIERS).describe("The vendor's tier, or MEDIUM if it has none."),
          expires_on: z.string().describe('A year after assessed_on.'),
          summary: z.string().describe('The score and the answers that were not acceptable.'),
        })
        .describe('Arguments for addVendorAssessment, to confirm or change first.'),
      score: z.number().int().nullable().describe("The questionnaire's score, 0..100."),
      findings: z
        .array(
          z
            .object({
              key: z.string().describe("The question's key."),
              text: z.string().describe('The question.'),
              answer: z.string().describe('What the vendor answered.'),
            })
            .describe('A question whose answer was not acceptable.'),
        )
        .describe('Scored questions whose answer was not acceptable.'),
      next_step: z.string().describe('What to do with the proposal.'),
    }),
    async run(ctx, input) {
      const row = await loadQuestionnaire(ctx, input.questionnaire_id, 'read');
      if (!row.answered_at || !row.answers)
        throw new AppError(
          'conflict',
          `The vendor has not answered this questionnaire yet (status ${statusOf(row, ctx.now())}): there is nothing to draft from.`,
        );
      const vendor = await vendorsRegister.records.load(ctx, row.vendor_id, 'read');
      const questions = row.questions as Question[];
      const answers = row.answers as Answer[];
      const given = new Map(answers.map((answer) => [answer.key, answer.answer]));
      const findings = findingsOf(questions, answers).map((question) => ({
        key: question.key,
        text: question.text,
        answer: given.get(question.key) ?? '',
      }));
      const score = row.score;
      const today = ctx.now().toISOString().slice(0, 10);
      const nextYear = `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`;
      const lines = [
        `Questionnaire "${row.title}" answered by ${row.contact_name} on ${row.answered_at.slice(0, 10)}; score ${score ?? 'none (no scored questions)'}.`,
        ...(findings.length > 0
          ? [
              'Answers not acceptable:',
              ...findings.map((finding) => `- ${finding.text} Answer: ${finding.answer}.`),
            ]
          : ['Every scored answer was acceptable.']),
      ];
      return {
        proposed: {
          organization_id: row.organization_id,
          vendor_id: row.vendor_id,
          assessor_id: await callerPerson(ctx, row.organization_id),
          assessed_on: today,
          result: proposedResult(score),
          tier: (vendor.tier as (typeof VENDOR_TIERS)[number] | null) ?? 'MEDIUM',
          // 29 February has no day a year later: the 28th.
          expires_on: nextYear.endsWith('-02-29') ? `${nextYear.slice(0, 8)}28` : nextYear,
          summary: lines.join('\n').slice(0, 5000),
        },
        score,
        findings,
        next_step:
          'Nothing was saved. Show the proposal to a person; once they confirm (and choose the assessor if null), call addVendorAssessment with it.',
      };
    },
  });

  return { send, list, get, remind, draftAssessment };
}
