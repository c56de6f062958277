// A questionnaire template as a file: a row per question (its template's id, name and description on every row, then
// key, topic, question, answer type, options, acceptable answers, weight), written by the export and read back by
// importRecords (kind questionnaire_template) and the CLI. Rows of one template id, or of one name without an id, make
// one template: a known id replaces that template's questions, no id creates a template. Each template's questions are
// checked as addQuestionnaireTemplate checks them, every refusal placed at its row and column.
import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { questionnaireTemplates } from '../../db/schema.ts';
import { isIdOf, newId } from '../../ids.ts';
import { requireOrganization } from '../access.ts';
import { longText, shortText } from '../fields.ts';
import {
  cellOf,
  enumOf,
  errorAt,
  type FileColumn,
  type FileImportOptions,
  type FileImportReport,
  type FileTable,
  listCell,
  listOf,
  readFileTable,
  refuseRows,
} from '../imports/file-kinds.ts';
import type { RowError, TableRows } from '../imports/run.ts';
import { changedExactly, type HistoryEntry, historyRows } from '../imports/statements.ts';
import type { ToolContext } from '../types.ts';
import { ANSWER_TYPES, type AnswerType, type Question, questionsInput } from './questions.ts';

const KIND = 'questionnaire_template';

export const TEMPLATE_FILE_COLUMNS: readonly FileColumn[] = [
  { field: 'template_id', header: 'Template id', aliases: ['id'] },
  { field: 'name', header: 'Template', aliases: ['template name', 'name'] },
  { field: 'description', header: 'Template description', aliases: ['description'] },
  { field: 'key', header: 'Key', aliases: ['question key'] },
  { field: 'topic', header: 'Topic' },
  { field: 'text', header: 'Question', aliases: ['question text', 'text'] },
  { field: 'answer_type', header: 'Answer type', aliases: ['type'] },
  { field: 'options', header: 'Options' },
  { field: 'acceptable', header: 'Acceptable answers', aliases: ['acceptable'] },
  { field: 'weight', header: 'Weight' },
];

const ANSWER_TYPE_LABELS: Record<AnswerType, string> = {
  YES_NO: 'Yes or no',
  TEXT: 'Text',
  CHOICE: 'Choice',
};

export interface TemplateForFile {
  id: string;
  name: string;
  description: string | null;
  questions: readonly Question[];
}

/** The export's header, then a row per question in order. */
export function templateFileRows(template: TemplateForFile): (string | number)[][] {
  return [
    TEMPLATE_FILE_COLUMNS.map((column) => column.header),
    ...template.questions.map((question) => [
      template.id,
      template.name,
      template.description ?? '',
      question.key,
      question.topic,
      question.text,
      ANSWER_TYPE_LABELS[question.answer_type],
      listCell(question.options),
      listCell(question.acceptable),
      question.weight,
    ]),
  ];
}

/** One template's rows as read: where each question came from, and what the rows say of the template. */
interface TemplateRows {
  id: string | null;
  name: string;
  description: string;
  /** Row number of the template's first row, and of each question. */
  first: number;
  questionRows: number[];
  questions: Record<string, unknown>[];
}

/** Schema field of a question -> the column its refusal is placed at. */
const QUESTION_FIELDS = new Set(['key', 'topic', 'text', 'answer_type', 'options', 'acceptable', 'weight']);

type TemplateRow = typeof questionnaireTemplates.$inferSelect;

/**
 * Imports questionnaire templates from `rows` (see the module's comment); the writes go to `write` only when every
 * row passes and it is not a dry run.
 */
export async function importTemplateFile(
  ctx: ToolContext,
  rows: TableRows,
  options: FileImportOptions,
  write: (statements: SQL[]) => Promise<void>,
): Promise<FileImportReport> {
  requireOrganization(ctx, options.organizationId, 'write');
  const table = await readFileTable(
    'questionnaire_template',
    rows,
    TEMPLATE_FILE_COLUMNS,
    options,
    'questionnaire templates',
  );
  const { report } = table;
  const errors: RowError[] = [];
  const templates = groupTemplates(table, errors);
  const ids = templates.flatMap((template) => (template.id ? [template.id] : []));
  const current = new Map<string, TemplateRow>();
  if (ids.length > 0)
    for (const row of await ctx.db
      .select()
      .from(questionnaireTemplates)
      .where(
        and(
          eq(questionnaireTemplates.organization_id, options.organizationId),
          inArray(questionnaireTemplates.id, ids),
        ),
      ))
      current.set(row.id, row);
  const at = ctx.now().toISOString();
  const statements: SQL[] = [];
  const history: HistoryEntry[] = [];
  for (const template of templates) {
    const before = template.id ? current.get(template.id) : undefined;
    if (template.id && !before) {
      errors.push(
        errorAt(
          table,
          template.first,
          'template_id',
          `No questionnaire template ${template.id} in this organization: leave the id out to create a new one.`,
        ),
      );
      continue;
    }
    const checked = checkTemplate(table, template, before, errors);
    if (!checked) continue;
    const shown = (row: { name: string; description: string | null; questions: unknown[] }) => ({
      name: row.name,
      description: row.description,
      questions: row.questions.length,
    });
    if (!before) {
      const row: TemplateRow = {
        id: newId('qtp'),
        organization_id: options.organizationId,
        ...checked,
        created_at: at,
        updated_at: at,
      };
      statements.push(ctx.db.insert(questionnaireTemplates).values(row).getSQL(), changedExactly(1));
      history.push({ kind: KIND, recordId: row.id, action: 'add', before: null, after: shown(row) });
      report.counts.created++;
      continue;
    }
    const same = (['name', 'description', 'questions'] as const).every(
      (field) => JSON.stringify(before[field]) === JSON.stringify(checked[field]),
    );
    if (same) {
      report.counts.unchanged++;
      continue;
    }
    statements.push(
      ctx.db
        .update(questionnaireTemplates)
        .set({ ...checked, updated_at: at })
        .where(
          and(
            eq(questionnaireTemplates.id, before.id),
            eq(questionnaireTemplates.updated_at, before.updated_at),
          ),
        )
        .getSQL(),
      changedExactly(1),
    );
    history.push({
      kind: KIND,
      recordId: before.id,
      action: 'update',
      before: shown(before),
      after: shown(checked),
    });
    report.counts.updated++;
  }
  refuseRows(report, errors);
  if (report.counts.refused > 0 || options.dryRun) return report;
  statements.push(...historyRows(ctx, options.organizationId, options.tool, at, history));
  if (statements.length > 0) await write(statements);
  return report;
}

/** The file's rows grouped into templates: by id when a row has one, else by name, in the order they come. */
function groupTemplates(table: FileTable, errors: RowError[]): TemplateRows[] {
  const byKey = new Map<string, TemplateRows>();
  for (const row of table.rows) {
    const id = cellOf(table, row, 'template_id') || null;
    const name = cellOf(table, row, 'name') ?? '';
    const description = cellOf(table, row, 'description') ?? '';
    if (id && !isIdOf('qtp', id)) {
      errors.push(
        errorAt(table, row.number, 'template_id', `Not a questionnaire template id (qtp_...): ${id}`),
      );
      continue;
    }
    if (!id && !name) {
      errors.push(errorAt(table, row.number, 'name', "Give the template's name (or its id) on every row."));
      continue;
    }
    const key = id ? `id:${id}` : `name:${name}`;
    let template = byKey.get(key);
    if (!template) {
      template = { id, name, description, first: row.number, questionRows: [], questions: [] };
      byKey.set(key, template);
    } else {
      if (name && template.name && name !== template.name)
        errors.push(
          errorAt(
            table,
            row.number,
            'name',
            `Another name than row ${template.first} for the same template id.`,
          ),
        );
      if (description && template.description && description !== template.description)
        errors.push(
          errorAt(
            table,
            row.number,
            'description',
            `Another description than row ${template.first} for the same template: give it once, or the same on every row.`,
          ),
        );
      template.name ||= name;
      template.description ||= description;
    }
    template.questionRows.push(row.number);
    template.questions.push(questionOf(table, row, errors));
  }
  return [...byKey.values()];
}

/** A row's question as addQuestionnaireTemplate takes it; a type or weight that cannot be read is refused here. */
function questionOf(
  table: FileTable,
  row: FileTable['rows'][number],
  errors: RowError[],
): Record<string, unknown> {
  const typeCell = cellOf(table, row, 'answer_type') ?? '';
  const answerType = typeCell === '' ? undefined : enumOf(typeCell, ANSWER_TYPE_LABELS);
  if (typeCell !== '' && !answerType)
    errors.push(
      errorAt(
        table,
        row.number,
        'answer_type',
        `"${typeCell}" is not an answer type: ${ANSWER_TYPES.map((code) => `${code} (${ANSWER_TYPE_LABELS[code]})`).join(', ')}.`,
      ),
    );
  const weightCell = cellOf(table, row, 'weight') ?? '';
  const weight = weightCell === '' ? undefined : Number(weightCell);
  if (weight !== undefined && !Number.isInteger(weight))
    errors.push(errorAt(table, row.number, 'weight', `"${weightCell}" is not a whole number from 0 to 10.`));
  const options = listOf(cellOf(table, row, 'options'));
  const acceptableCell = cellOf(table, row, 'acceptable') ?? '';
  // One acceptable option holding ";" is written alone on its line: the whole cell, when it is one of the options.
  const whole = options.find((option) => option.toLowerCase() === acceptableCell.toLowerCase());
  const acceptable = (whole ? [whole] : listOf(acceptableCell)).map((answer) => {
    // Yes/no answers in any case; a choice as one of the options in any case.
    if (answerType === 'YES_NO' && /^(yes|no)$/i.test(answer)) return answer.toUpperCase();
    return options.find((option) => option.toLowerCase() === answer.toLowerCase()) ?? answer;
  });
  return {
    key: cellOf(table, row, 'key') ?? '',
    topic: cellOf(table, row, 'topic') ?? '',
    text: cellOf(table, row, 'text') ?? '',
    answer_type: answerType ?? typeCell,
    options,
    ...(acceptable.length > 0 && { acceptable }),
    ...(weight !== undefined && Number.isInteger(weight) && { weight }),
  };
}

const nameSchema = shortText();
const descriptionSchema = longText(2000);

/** The template's name, description and questions as the add tool stores them, or null with its refusals listed. */
function checkTemplate(
  table: FileTable,
  template: TemplateRows,
  before: TemplateRow | undefined,
  errors: RowError[],
): { name: string; description: string | null; questions: Question[] } | null {
  let ok = true;
  const name = nameSchema.safeParse(template.name || before?.name || '');
  if (!name.success) {
    ok = false;
    errors.push(errorAt(table, template.first, 'name', `Template name: ${name.error.issues[0]?.message}`));
  }
  const description = descriptionSchema.safeParse(template.description);
  if (!description.success) {
    ok = false;
    errors.push(errorAt(table, template.first, 'description', `${description.error.issues[0]?.message}`));
  }
  // Each question alone first, so every row's problems are listed; then together (keys used twice, the count).
  const issues = template.questions.flatMap((question, index) => {
    const alone = questionsInput.safeParse([question]);
    return alone.success
      ? []
      : alone.error.issues.map((issue) => ({
          message: issue.message,
          path: [index, ...issue.path.slice(1)],
        }));
  });
  const questions = questionsInput.safeParse(template.questions);
  if (!questions.success) {
    ok = false;
    for (const issue of issues.length > 0 ? issues : questions.error.issues) {
      const [index, field] = issue.path;
      const row = typeof index === 'number' ? template.questionRows[index] : undefined;
      const column = typeof field === 'string' && QUESTION_FIELDS.has(field) ? field : null;
      errors.push(
        errorAt(
          table,
          row ?? template.first,
          column,
          row === undefined ? `Template "${template.name}": ${issue.message}` : issue.message,
        ),
      );
    }
  }
  if (!ok || !name.success || !description.success || !questions.success) return null;
  return { name: name.data, description: description.data || null, questions: questions.data };
}
