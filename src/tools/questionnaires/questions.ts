// The questions of a vendor security questionnaire: their shape (checked once for a template, copied into each
// questionnaire sent), the answers a vendor gives and the score those answers earn from the questions' weights.
import { z } from 'zod';
import { caseInsensitiveEnum, normalizeText, shortText } from '../fields.ts';

export const ANSWER_TYPES = ['YES_NO', 'TEXT', 'CHOICE'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];
export const YES_NO = ['YES', 'NO'] as const;

/** Most questions a template holds, characters of a question's text and of a TEXT answer. */
export const MAX_QUESTIONS = 100;
export const MAX_QUESTION_TEXT = 1000;
export const MAX_TEXT_ANSWER = 4000;

/** A question as stored: the same fields as given, defaults applied. */
export interface Question {
  key: string;
  topic: string;
  text: string;
  answer_type: AnswerType;
  options: string[];
  acceptable: string[];
  weight: number;
}

/** One answer as stored: the question's key and what the vendor answered (YES/NO, an option, or text). */
export interface Answer {
  key: string;
  answer: string;
}

const KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

const questionInput = z.strictObject({
  key: z
    .string()
    .regex(KEY_PATTERN, 'Expected 1..40 characters from a-z, 0-9 and _, starting with a letter')
    .describe('Short stable key, unique in the template, e.g. "mfa_admins".'),
  topic: shortText(80).describe('Topic heading, e.g. "Access control".'),
  text: shortText(MAX_QUESTION_TEXT).describe('The question as the vendor reads it.'),
  answer_type: caseInsensitiveEnum(ANSWER_TYPES).describe(
    'YES_NO, TEXT (free text, not scored) or CHOICE (one of options).',
  ),
  options: z
    .array(shortText(100))
    .max(10)
    .default([])
    .describe('CHOICE only: 2..10 options the vendor picks one of.'),
  acceptable: z
    .array(shortText(100))
    .max(10)
    .optional()
    .describe('Answers that earn the weight: YES_NO default ["YES"]; CHOICE some of options; TEXT none.'),
  weight: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Weight in the score, 0..10 (default 1; TEXT questions are not scored: 0).'),
});

function checkQuestion(question: z.output<typeof questionInput>, at: number, issues: z.RefinementCtx): void {
  const problem = (field: string, message: string) =>
    issues.addIssue({ code: 'custom', path: [at, field], message });
  const { answer_type: type, options, acceptable } = question;
  if (type === 'CHOICE' && (options.length < 2 || new Set(options).size !== options.length))
    problem('options', 'A CHOICE question needs 2..10 different options.');
  if (type !== 'CHOICE' && options.length > 0) problem('options', 'Only a CHOICE question has options.');
  const allowed: readonly string[] = type === 'YES_NO' ? YES_NO : type === 'CHOICE' ? options : [];
  if (type === 'TEXT' && (acceptable?.length || question.weight)) {
    problem('weight', 'A TEXT question is not scored: leave out acceptable and weight (or give 0).');
    return;
  }
  if (type !== 'TEXT' && acceptable?.length === 0)
    problem('acceptable', 'Give at least one acceptable answer, or weight 0 to leave it out of the score.');
  for (const value of acceptable ?? [])
    if (!allowed.includes(value))
      problem('acceptable', `"${value}" is not an answer of this question: one of ${allowed.join(', ')}.`);
}

/** A template's questions, in the order the vendor reads them. */
export const questionsInput = z
  .array(questionInput)
  .min(1)
  .max(MAX_QUESTIONS)
  .superRefine((questions, issues) => {
    const keys = new Set<string>();
    questions.forEach((question, at) => {
      if (keys.has(question.key))
        issues.addIssue({
          code: 'custom',
          path: [at, 'key'],
          message: `Key "${question.key}" is used twice.`,
        });
      keys.add(question.key);
      checkQuestion(question, at, issues);
    });
  })
  .transform((questions): Question[] => questions.map(withDefaults))
  .describe(`The questions in order, 1..${MAX_QUESTIONS}.`);

function withDefaults(question: z.output<typeof questionInput>): Question {
  const scored = question.answer_type !== 'TEXT';
  return {
    key: question.key,
    topic: question.topic,
    text: question.text,
    answer_type: question.answer_type,
    options: question.options,
    acceptable: scored ? (question.acceptable ?? (question.answer_type === 'YES_NO' ? ['YES'] : [])) : [],
    weight: scored ? (question.weight ?? 1) : 0,
  };
}

export const questionSchema = z
  .object({
    key: z.string().describe('Its key.'),
    topic: z.string().describe('Topic heading.'),
    text: z.string().describe('The question.'),
    answer_type: z.enum(ANSWER_TYPES).describe('YES_NO, TEXT or CHOICE.'),
    options: z.array(z.string()).describe('CHOICE options (else empty).'),
    acceptable: z.array(z.string()).describe('Answers that earn the weight.'),
    weight: z.number().int().describe('Weight in the score (0: not scored).'),
  })
  .describe('A question.');

/** The choices a question offers the vendor: YES/NO, its options, or none (free text). */
export function choicesOf(question: Question): readonly string[] {
  if (question.answer_type === 'YES_NO') return YES_NO;
  return question.answer_type === 'CHOICE' ? question.options : [];
}

/**
 * The answers of a submitted form, one per question in the questions' order, or the keys that are missing or not
 * one of the question's choices (the form is shown again with the answers kept and these marked).
 */
export function readAnswers(
  questions: readonly Question[],
  given: (key: string) => string | undefined,
): { answers: Answer[] } | { problems: Record<string, string> } {
  const answers: Answer[] = [];
  const problems: Record<string, string> = {};
  for (const question of questions) {
    // The one normalisation of text input (fields.ts): control characters out, NFC, ends trimmed.
    const value = normalizeText(given(question.key) ?? '', true);
    const choices = choicesOf(question);
    if (value === '') problems[question.key] = 'Answer this question.';
    else if (choices.length > 0 && !choices.includes(value))
      problems[question.key] = 'Pick one of the answers offered.';
    else if (value.length > MAX_TEXT_ANSWER)
      problems[question.key] = `Keep the answer within ${MAX_TEXT_ANSWER} characters.`;
    else answers.push({ key: question.key, answer: value });
  }
  return Object.keys(problems).length > 0 ? { problems } : { answers };
}

/**
 * The score of the answers, 0..100: the share of the scored weight whose answer is acceptable, rounded to a whole
 * number; null when no question carries weight.
 */
export function scoreOf(questions: readonly Question[], answers: readonly Answer[]): number | null {
  const byKey = new Map(answers.map((answer) => [answer.key, answer.answer]));
  let total = 0;
  let earned = 0;
  for (const question of questions) {
    total += question.weight;
    if (question.acceptable.includes(byKey.get(question.key) ?? '')) earned += question.weight;
  }
  return total === 0 ? null : Math.round((100 * earned) / total);
}

/** The scored questions whose answer is not acceptable, in order: what an assessment's summary lists as findings. */
export function findingsOf(questions: readonly Question[], answers: readonly Answer[]): Question[] {
  const byKey = new Map(answers.map((answer) => [answer.key, answer.answer]));
  return questions.filter(
    (question) => question.weight > 0 && !question.acceptable.includes(byKey.get(question.key) ?? ''),
  );
}
