// The page a questionnaire link opens, for a vendor's contact without an account: the vendor's name, the due date and
// the questions, answered once. Opening shows; only the form's POST (same origin, double-submit token) stores answers.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { limitBody } from '../../http/body-limit.ts';
import {
  answerByLink,
  findQuestionnaireLink,
  QUESTIONNAIRE_LINK_PREFIX,
} from '../../tools/questionnaires/links.ts';
import {
  choicesOf,
  MAX_TEXT_ANSWER,
  type Question,
  readAnswers,
} from '../../tools/questionnaires/questions.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { type FormBody, text } from '../forms.tsx';
import { CardPage, CsrfField } from '../layout.tsx';
import { refusePublicPost } from '../public-posts.ts';
import { errorPage } from '../render.tsx';
import { formToken } from '../sessions.ts';
import { refusedLinkPage, sendPublicPage } from './layout.tsx';
import { limitPublicLink } from './limits.tsx';

const QUESTIONNAIRE_LIMIT_KEY = 'public:questionnaire';

/** A question's form field: its key behind a prefix, so no key can take the name of the form's token. */
const fieldName = (question: Question) => `answer_${question.key}`;

function QuestionField(props: { question: Question; value: string; error: string | undefined }) {
  const { question, value, error } = props;
  const id = fieldName(question);
  const errorId = error ? `${id}-error` : undefined;
  const choices = choicesOf(question);
  const problem = error && (
    <span class="hint error-text" id={errorId}>
      {error}
    </span>
  );
  if (choices.length === 0)
    return (
      <div class="field">
        <label for={id}>{question.text}</label>
        <textarea
          id={id}
          name={id}
          rows={3}
          required
          data-limit={MAX_TEXT_ANSWER}
          aria-describedby={errorId}
          aria-invalid={error ? 'true' : undefined}
        >
          {value}
        </textarea>
        {problem}
      </div>
    );
  return (
    <fieldset aria-describedby={errorId} aria-invalid={error ? 'true' : undefined}>
      <legend>{question.text}</legend>
      {choices.map((choice, at) => (
        <label class="choice" for={`${id}-${at}`}>
          <input
            type="radio"
            id={`${id}-${at}`}
            name={id}
            value={choice}
            checked={choice === value}
            required
          />
          <span>{choice === 'YES' ? 'Yes' : choice === 'NO' ? 'No' : choice}</span>
        </label>
      ))}
      {problem}
    </fieldset>
  );
}

/** The questions under their topic headings, in the template's order, with the values and problems of a resubmit. */
function QuestionnaireForm(props: {
  c: Context;
  secret: string;
  questions: Question[];
  values: Record<string, string>;
  problems: Record<string, string>;
}) {
  const topics: { topic: string; questions: Question[] }[] = [];
  for (const question of props.questions) {
    const last = topics.at(-1);
    if (last?.topic === question.topic) last.questions.push(question);
    else topics.push({ topic: question.topic, questions: [question] });
  }
  return (
    <form method="post" action={`${QUESTIONNAIRE_LINK_PREFIX}${props.secret}`}>
      <CsrfField token={formToken(props.c)} />
      {topics.map((group) => (
        <section>
          <h2>{group.topic}</h2>
          {group.questions.map((question) => (
            <QuestionField
              question={question}
              value={props.values[question.key] ?? ''}
              error={props.problems[question.key]}
            />
          ))}
        </section>
      ))}
      <div class="actions">
        <button type="submit">Send answers</button>
      </div>
    </form>
  );
}

export function questionnaireRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const path = `${QUESTIONNAIRE_LINK_PREFIX}:secret`;
  const title = 'Security questionnaire';

  web.get(path, async (c) => {
    const limited = await limitPublicLink(c, deps, QUESTIONNAIRE_LIMIT_KEY);
    if (limited) return limited;
    const secret = c.req.param('secret');
    const found = await findQuestionnaireLink(db, secret, deps.now());
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    const { grant } = found;
    return sendPublicPage(
      c,
      <CardPage title={title}>
        <p>
          For {grant.vendorName}. Please answer by {grant.dueDate}. Your answers are sent once and cannot be
          changed afterwards.
        </p>
        <QuestionnaireForm c={c} secret={secret} questions={grant.questions} values={{}} problems={{}} />
      </CardPage>,
    );
  });

  // Counted as read (a chunked body has no announced length): answers beyond the service's body limit are refused.
  const limitAnswers = limitBody<WebEnv>(deps.config.maxBodyBytes, (c) =>
    errorPage(
      c,
      413,
      'Answers too long',
      'Your answers are longer than this service takes: shorten the longest ones.',
    ),
  );

  web.post(path, limitAnswers, async (c) => {
    const body: FormBody = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const limited = await limitPublicLink(c, deps, QUESTIONNAIRE_LIMIT_KEY);
    if (limited) return limited;
    const now = deps.now();
    const secret = c.req.param('secret');
    const found = await findQuestionnaireLink(db, secret, now);
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    const { grant } = found;
    const given = (key: string) => text(body, `answer_${key}`);
    const read = readAnswers(grant.questions, given);
    if ('problems' in read) {
      // Shown again with every answer kept and each problem beside its question; nothing is stored.
      const values = Object.fromEntries(
        grant.questions.map((question) => [question.key, given(question.key)]),
      );
      const missing = Object.keys(read.problems).length;
      return sendPublicPage(
        c,
        <CardPage
          title={title}
          notice={{
            kind: 'error',
            text: `${missing} ${missing === 1 ? 'question needs' : 'questions need'} an answer or a correction; nothing was sent yet.`,
          }}
        >
          <p>
            For {grant.vendorName}. Please answer by {grant.dueDate}.
          </p>
          <QuestionnaireForm
            c={c}
            secret={secret}
            questions={grant.questions}
            values={values}
            problems={read.problems}
          />
        </CardPage>,
        400,
      );
    }
    if (!(await answerByLink(db, grant, read.answers, now))) return refusedLinkPage(c, 'used');
    return sendPublicPage(
      c,
      <CardPage
        title="Thank you"
        notice={{
          kind: 'ok',
          text: `Your answers for ${grant.vendorName} were received on ${now.toISOString().slice(0, 10)}.`,
        }}
      >
        <p>You can close this page.</p>
      </CardPage>,
    );
  });
  return web;
}
