// Questionnaire templates: the ordered questions an organization sends to vendors, and the starter template it can
// add. Each add and update writes its history row; a questionnaire sent keeps its own copy of the questions.
import { and, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { questionnaireTemplates } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import { changeAfterWrite } from '../changes.ts';
import {
  cursorSchema,
  idOf,
  longText,
  PAGE_SIZE,
  shortText,
  sizeSchema,
  timestampSchema,
} from '../fields.ts';
import { registerIdKind } from '../id-kinds.ts';
import { countMatches, pageById, TOTAL_COUNT_CAP } from '../pagination.ts';
import {
  CHANGED_A_ROW,
  CREATE_ANNOTATIONS,
  defineTool,
  READ_ANNOTATIONS,
  type ToolContext,
  UPDATE_ANNOTATIONS,
} from '../types.ts';
import { type Question, questionSchema, questionsInput } from './questions.ts';
import {
  STARTER_QUESTIONS,
  STARTER_TEMPLATE_DESCRIPTION,
  STARTER_TEMPLATE_NAME,
} from './starter-template.ts';

export const QUESTIONNAIRE_TOOLSET = 'vendor_questionnaires';
const KIND = 'questionnaire_template';

export const templateId = idOf('qtp', 'Questionnaire template').describe(
  'The questionnaire template (`qtp_...`).',
);
const organizationId = idOf('org', 'Organization').describe('The organization (`org_...`).');

export const templateSchema = z
  .object({
    id: z.string().describe('The template (`qtp_...`).'),
    organization_id: z.string().describe('Its organization.'),
    name: z.string().describe('Its name.'),
    description: z.string().nullable().describe('What it is for, or null.'),
    questions: z.array(questionSchema).describe('The questions in order.'),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .describe('A questionnaire template.');

type TemplateRow = typeof questionnaireTemplates.$inferSelect;

function present(row: TemplateRow): z.input<typeof templateSchema> {
  return { ...row, questions: row.questions as Question[] };
}

/** The template by id, in an organization the caller reaches for `mode`; else the same not_found. */
export async function loadTemplate(
  ctx: ToolContext,
  id: string,
  mode: 'read' | 'write',
): Promise<TemplateRow> {
  const [row] = await ctx.db.select().from(questionnaireTemplates).where(eq(questionnaireTemplates.id, id));
  if (!row) throw notFound('Questionnaire template');
  requireOrganization(ctx, row.organization_id, mode, 'Questionnaire template');
  return row;
}

/** Inserts a template with its history row, all or nothing. */
async function insertTemplate(
  ctx: ToolContext,
  tool: string,
  values: { organization_id: string; name: string; description: string | null; questions: Question[] },
): Promise<TemplateRow> {
  const at = ctx.now().toISOString();
  const row: TemplateRow = { id: newId('qtp'), ...values, created_at: at, updated_at: at };
  await ctx.db.batch([
    ctx.db.insert(questionnaireTemplates).values(row),
    changeAfterWrite(ctx, {
      tool,
      kind: KIND,
      recordId: row.id,
      organizationId: row.organization_id,
      action: 'add',
      before: null,
      after: { name: row.name, description: row.description, questions: row.questions.length },
      at,
    }),
    ...ctx.writeExtras(CHANGED_A_ROW),
  ]);
  return row;
}

const description = longText(2000).optional().describe('What the template is for.');

export const addQuestionnaireTemplate = defineTool({
  name: 'addQuestionnaireTemplate',
  title: 'Add a questionnaire template',
  description:
    'Create a security questionnaire template: ordered questions, each with a topic, an answer type (YES_NO, TEXT, CHOICE with options), the acceptable answers and a weight for the score.',
  scope: 'write',
  annotations: CREATE_ANNOTATIONS,
  toolset: QUESTIONNAIRE_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    name: shortText().describe('Its name, e.g. "Cloud vendor questionnaire".'),
    description,
    questions: questionsInput,
  }),
  output: z.object({ questionnaire_template: templateSchema }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'write');
    const row = await insertTemplate(ctx, 'addQuestionnaireTemplate', {
      organization_id: input.organization_id,
      name: input.name,
      description: input.description || null,
      questions: input.questions,
    });
    return { questionnaire_template: present(row) };
  },
});

export const addStarterQuestionnaireTemplate = defineTool({
  name: 'addStarterQuestionnaireTemplate',
  title: 'Add the starter questionnaire template',
  description:
    "Add this service's ready-made vendor security questionnaire to an organization as a template to send or adapt: access control, encryption, incident response, business continuity, sub-processors, certifications.",
  scope: 'write',
  annotations: CREATE_ANNOTATIONS,
  toolset: QUESTIONNAIRE_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    name: shortText()
      .default(STARTER_TEMPLATE_NAME)
      .describe(`Its name (default "${STARTER_TEMPLATE_NAME}").`),
  }),
  output: z.object({ questionnaire_template: templateSchema }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'write');
    const row = await insertTemplate(ctx, 'addStarterQuestionnaireTemplate', {
      organization_id: input.organization_id,
      name: input.name,
      description: STARTER_TEMPLATE_DESCRIPTION,
      questions: [...STARTER_QUESTIONS],
    });
    return { questionnaire_template: present(row) };
  },
});

export const getQuestionnaireTemplate = defineTool({
  name: 'getQuestionnaireTemplate',
  title: 'Get a questionnaire template',
  description:
    'Read one questionnaire template with its questions in order (topic, answer type, options, acceptable answers, weight).',
  scope: 'read',
  annotations: READ_ANNOTATIONS,
  toolset: QUESTIONNAIRE_TOOLSET,
  input: z.strictObject({ id: templateId }),
  output: z.object({ questionnaire_template: templateSchema }),
  async run(ctx, input) {
    return { questionnaire_template: present(await loadTemplate(ctx, input.id, 'read')) };
  },
});

export const updateQuestionnaireTemplate = defineTool({
  name: 'updateQuestionnaireTemplate',
  title: 'Update a questionnaire template',
  description:
    'Rename a questionnaire template, change its description or replace its questions (as in addQuestionnaireTemplate). Questionnaires already sent keep their questions.',
  scope: 'write',
  annotations: UPDATE_ANNOTATIONS,
  toolset: QUESTIONNAIRE_TOOLSET,
  input: z.strictObject({
    id: templateId,
    name: shortText().optional().describe('New name.'),
    description: longText(2000).optional().describe('New description; an empty one clears it.'),
    questions: questionsInput.optional().describe('All the questions, in order: they replace the old ones.'),
  }),
  output: z.object({ questionnaire_template: templateSchema }),
  async run(ctx, input) {
    const current = await loadTemplate(ctx, input.id, 'write');
    const next: TemplateRow = {
      ...current,
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description || null }),
      ...(input.questions !== undefined && { questions: input.questions }),
      updated_at: ctx.now().toISOString(),
    };
    const changed = (['name', 'description', 'questions'] as const).filter(
      (field) => JSON.stringify(current[field]) !== JSON.stringify(next[field]),
    );
    if (changed.length === 0) return { questionnaire_template: present(current) };
    const shown = (row: TemplateRow) =>
      Object.fromEntries(
        changed.map((field) => [
          field,
          field === 'questions' ? (row.questions as Question[]).length : row[field],
        ]),
      );
    await ctx.db.batch([
      ctx.db
        .update(questionnaireTemplates)
        .set({
          name: next.name,
          description: next.description,
          questions: next.questions,
          updated_at: next.updated_at,
        })
        .where(eq(questionnaireTemplates.id, current.id)),
      changeAfterWrite(ctx, {
        tool: 'updateQuestionnaireTemplate',
        kind: KIND,
        recordId: current.id,
        organizationId: current.organization_id,
        action: 'update',
        before: shown(current),
        after: shown(next),
        at: next.updated_at,
      }),
      ...ctx.writeExtras(CHANGED_A_ROW),
    ]);
    return { questionnaire_template: present(next) };
  },
});

export const listQuestionnaireTemplates = defineTool({
  name: 'listQuestionnaireTemplates',
  title: 'List questionnaire templates',
  description: 'List the security questionnaire templates of an organization (name, description, questions).',
  scope: 'read',
  annotations: READ_ANNOTATIONS,
  toolset: QUESTIONNAIRE_TOOLSET,
  input: z.strictObject({
    organization_id: organizationId,
    size: sizeSchema.default(PAGE_SIZE.default),
    cursor: cursorSchema.optional(),
  }),
  output: z.object({
    questionnaire_templates: z.array(templateSchema),
    next_cursor: z.string().nullable().describe('Cursor of the next page, or null.'),
    total_count: z.number().int().describe(`Templates in all pages, at most ${TOTAL_COUNT_CAP}.`),
    total_count_capped: z.boolean().describe('True: more than total_count exist.'),
  }),
  async run(ctx, input) {
    requireOrganization(ctx, input.organization_id, 'read');
    const of = eq(questionnaireTemplates.organization_id, input.organization_id);
    const { rows, ...page } = await pageById({
      list: 'listQuestionnaireTemplates',
      size: input.size,
      cursor: input.cursor,
      read: (afterId, limit) =>
        ctx.db
          .select()
          .from(questionnaireTemplates)
          .where(afterId ? and(of, gt(questionnaireTemplates.id, afterId)) : of)
          .orderBy(questionnaireTemplates.id)
          .limit(limit),
      countUpTo: (bound) =>
        countMatches(
          ctx.db,
          ctx.db.select({ one: sql`1` }).from(questionnaireTemplates).where(of).limit(bound),
        ),
    });
    return { questionnaire_templates: rows.map(present), ...page };
  },
});

registerIdKind('qtp', {
  label: 'questionnaire template',
  plural: 'questionnaire templates',
  read: 'getQuestionnaireTemplate',
  list: 'listQuestionnaireTemplates',
});
