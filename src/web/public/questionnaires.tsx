// The page a questionnaire link opens, for a vendor's contact without an account: the vendor's name, the due date and
// the questions, answered once, with files attached to answers while the link is open. Opening shows; only the form's
// POSTs (same origin, double-submit token) store answers or files. The form is multipart: its attach button posts it
// to /attach (the answers typed are kept on the page shown back), its file field comes last so the file streams. Each
// attached file has a remove button posting the form to /remove, until the answers are sent.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { multipartBoundary } from '../../files/multipart.ts';
import { discardFile, type StoredFile } from '../../files/receive.ts';
import { storeFileTool } from '../../files/store-file-tool.ts';
import { uploadBodyLimit } from '../../files/upload-limits.ts';
import { limitBody } from '../../http/body-limit.ts';
import { invokeTool } from '../../surfaces/invoke.ts';
import {
  type AttachmentLimits,
  attachmentLimits,
  attachmentsOf,
  linkAttachment,
  linkUploader,
  type QuestionnaireAttachment,
  unlinkAttachment,
} from '../../tools/questionnaires/attachments.ts';
import {
  answerByLink,
  findQuestionnaireLink,
  QUESTIONNAIRE_LINK_PREFIX,
  type QuestionnaireGrant,
} from '../../tools/questionnaires/links.ts';
import {
  choicesOf,
  MAX_TEXT_ANSWER,
  type Question,
  readAnswers,
} from '../../tools/questionnaires/questions.ts';
import type { WebDeps, WebEnv } from '../context.ts';
import { CSRF_FIELD, crossSiteReason } from '../csrf.ts';
import { text } from '../forms.tsx';
import { sizeLabel } from '../labels.ts';
import { CardPage, CsrfField } from '../layout.tsx';
import { refusePublicPost } from '../public-posts.ts';
import { errorPage } from '../render.tsx';
import { formCookie, formToken } from '../sessions.ts';
import { readStreamedForm, type UploadForm } from '../uploads.ts';
import { refusedLinkPage, sendPublicPage } from './layout.tsx';
import { limitPublicLink } from './limits.tsx';

const QUESTIONNAIRE_LIMIT_KEY = 'public:questionnaire';

/** A question's form field: its key behind a prefix, so no key can take the name of the form's token. */
const fieldName = (question: Question) => `answer_${question.key}`;

/** The form field naming the attached file a remove button removes (its `vqf_` id). */
const REMOVE_FIELD = 'remove_file';

/** The files attached to a question's answer, under it, each with its remove button (the form posted to /remove). */
function AttachedFiles(props: { files: QuestionnaireAttachment[]; removeAction: string }) {
  if (props.files.length === 0) return null;
  return (
    <ul class="small attached">
      {props.files.map((file) => (
        <li dir="auto">
          Attached: {file.file_name} ({sizeLabel(file.size)}){' '}
          <button
            type="submit"
            class="quiet"
            formaction={props.removeAction}
            formnovalidate
            name={REMOVE_FIELD}
            value={file.id}
            aria-label={`Remove ${file.file_name}`}
          >
            Remove
          </button>
        </li>
      ))}
    </ul>
  );
}

function QuestionField(props: {
  question: Question;
  value: string;
  error: string | undefined;
  files: QuestionnaireAttachment[];
  removeAction: string;
}) {
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
        <AttachedFiles files={props.files} removeAction={props.removeAction} />
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
      <AttachedFiles files={props.files} removeAction={props.removeAction} />
      {problem}
    </fieldset>
  );
}

/** The attach block, last in the form: the question a file is for, then the file (the last part, so it streams). */
function AttachFields(props: {
  action: string;
  questions: Question[];
  limits: AttachmentLimits;
  chosen: string;
  error: string | undefined;
}) {
  const { limits } = props;
  return (
    <fieldset aria-describedby="attach-hint">
      <legend>Attach a document (optional)</legend>
      <p class="hint" id="attach-hint">
        For example your SOC 2 report for the certifications question. Up to {limits.files} files, each at
        most {sizeLabel(limits.fileBytes)}, {sizeLabel(limits.totalBytes)} in all. Files are kept with your
        answers; you can remove one until you send your answers.
      </p>
      <div class="field">
        <label for="attach_question">For the question</label>
        <select id="attach_question" name="attach_question">
          <option value="">Choose a question…</option>
          {props.questions.map((question) => (
            <option value={question.key} selected={question.key === props.chosen}>
              {question.text}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="attachment">File</label>
        <input type="file" id="attachment" name="attachment" />
      </div>
      {props.error && (
        <p class="hint error-text" role="alert">
          {props.error}
        </p>
      )}
      <button type="submit" class="quiet" formaction={props.action} formnovalidate>
        Attach file
      </button>
    </fieldset>
  );
}

interface FormState {
  values: Record<string, string>;
  problems: Record<string, string>;
  attachments: QuestionnaireAttachment[];
  /** The question chosen in the attach block, and the attach block's problem. */
  chosen: string;
  attachError?: string | undefined;
}

/** The questions under their topic headings, in the template's order, with the values and problems of a resubmit. */
function QuestionnaireForm(props: {
  c: Context;
  secret: string;
  questions: Question[];
  limits: AttachmentLimits;
  state: FormState;
}) {
  const { state } = props;
  const topics: { topic: string; questions: Question[] }[] = [];
  for (const question of props.questions) {
    const last = topics.at(-1);
    if (last?.topic === question.topic) last.questions.push(question);
    else topics.push({ topic: question.topic, questions: [question] });
  }
  const action = `${QUESTIONNAIRE_LINK_PREFIX}${props.secret}`;
  return (
    <form method="post" action={action} enctype="multipart/form-data">
      <CsrfField token={formToken(props.c)} />
      {topics.map((group) => (
        <section>
          <h2>{group.topic}</h2>
          {group.questions.map((question) => (
            <QuestionField
              question={question}
              value={state.values[question.key] ?? ''}
              error={state.problems[question.key]}
              files={state.attachments.filter((file) => file.question_key === question.key)}
              removeAction={`${action}/remove`}
            />
          ))}
        </section>
      ))}
      <AttachFields
        action={`${action}/attach`}
        questions={props.questions}
        limits={props.limits}
        chosen={state.chosen}
        error={state.attachError}
      />
      <div class="actions">
        <button type="submit">Send answers</button>
      </div>
    </form>
  );
}

/** A multipart/form-data post (with its boundary): the page's own form, read as a stream. */
const isMultipart = (c: Context) => multipartBoundary(c.req.header('content-type')) !== null;

/** The form's fields and file as posted: multipart (the page's own form) or urlencoded (a form without a file). */
type PostedForm = UploadForm;

/** What an attached file came to: linked, or why not (the page's words and its status). */
type AttachOutcome =
  | { ok: true; attachment: QuestionnaireAttachment }
  | { ok: false; status: 400 | 410 | 413 | 429; message: string };

export function questionnaireRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  const { db } = deps.database;
  const path = `${QUESTIONNAIRE_LINK_PREFIX}:secret`;
  const title = 'Security questionnaire';
  const limits = attachmentLimits(deps.invoke.files);

  const page = (
    c: Context<WebEnv>,
    grant: QuestionnaireGrant,
    secret: string,
    state: FormState,
    notice?: { kind: 'ok' | 'error'; text: string },
    status: 200 | 400 | 404 | 413 | 429 = 200,
  ) =>
    sendPublicPage(
      c,
      <CardPage title={title} notice={notice}>
        <p>
          For {grant.vendorName}. Please answer by {grant.dueDate}. Your answers are sent once and cannot be
          changed afterwards.
        </p>
        <QuestionnaireForm c={c} secret={secret} questions={grant.questions} limits={limits} state={state} />
      </CardPage>,
      status,
    );

  web.get(path, async (c) => {
    const limited = await limitPublicLink(c, deps, QUESTIONNAIRE_LIMIT_KEY);
    if (limited) return limited;
    const secret = c.req.param('secret');
    const found = await findQuestionnaireLink(db, secret, deps.now());
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    const { grant } = found;
    const attachments = await attachmentsOf(db, grant.questionnaireId);
    return page(c, grant, secret, { values: {}, problems: {}, attachments, chosen: '' });
  });

  // Counted as read (a chunked body has no announced length): answers beyond the service's body limit, or a file
  // beyond the attachment limit (with the answers beside it), are refused.
  const tooLong = (c: Context<WebEnv>) =>
    errorPage(
      c,
      413,
      'Answers or file too large',
      `Your answers are longer than this service takes, or the file is larger than ${sizeLabel(limits.fileBytes)}: shorten the longest answers or attach a smaller file.`,
    );
  const limitAnswers = limitBody<WebEnv>(deps.config.maxBodyBytes, tooLong);
  // As the Node host's edge allows an upload path (src/node.ts): a file of FILE_MAX_BYTES in a multipart body.
  const limitWithFile = limitBody<WebEnv>(uploadBodyLimit(deps.invoke.files.maxBytes), tooLong);
  const limitPosted = (c: Context<WebEnv>, next: () => Promise<void>) =>
    isMultipart(c) ? limitWithFile(c, next) : limitAnswers(c, next);

  /**
   * The checks before the body is read (same origin, the rate, the link usable now), then the form read behind its
   * token: a tampered, used or expired link reads and stores nothing.
   */
  async function openPost(
    c: Context<WebEnv>,
  ): Promise<Response | { grant: QuestionnaireGrant; secret: string; form: PostedForm }> {
    const reason = crossSiteReason(c, deps.config);
    if (reason) return errorPage(c, 403, 'Request refused', reason);
    const limited = await limitPublicLink(c, deps, QUESTIONNAIRE_LIMIT_KEY);
    if (limited) return limited;
    const secret = c.req.param('secret') ?? '';
    const found = await findQuestionnaireLink(db, secret, deps.now());
    if ('refusal' in found) return refusedLinkPage(c, found.refusal);
    if (isMultipart(c)) {
      const form = await readStreamedForm(c, formCookie(c), 'attachment', deps.config.maxBodyBytes);
      if (form instanceof Response) return form;
      return { grant: found.grant, secret, form };
    }
    const body = await c.req.parseBody({ all: true });
    const refused = refusePublicPost(c, deps, body);
    if (refused) return refused;
    const fields: Record<string, string> = {};
    for (const name of Object.keys(body)) if (name !== CSRF_FIELD) fields[name] = text(body, name);
    return { grant: found.grant, secret, form: { fields, file: null } };
  }

  /** Stores the posted file through the seam as the link's storeFile call, then links it to the chosen answer. */
  async function attach(
    c: Context<WebEnv>,
    grant: QuestionnaireGrant,
    questionKey: string,
    file: NonNullable<PostedForm['file']>,
  ): Promise<AttachOutcome> {
    const refuse = (status: 400 | 410 | 413 | 429, message: string): AttachOutcome => {
      // The rest of the file is not read: the host drops it with the request.
      file.stream.cancel().catch(() => undefined);
      return { ok: false, status, message };
    };
    if (!grant.questions.some((question) => question.key === questionKey))
      return refuse(400, 'Choose the question the file is for, then attach it again.');
    const held = await attachmentsOf(db, grant.questionnaireId);
    if (held.length >= limits.files)
      return refuse(413, `This questionnaire has ${limits.files} files already: no more can be attached.`);
    const taken = held.reduce((sum, item) => sum + item.size, 0);
    const room = Math.min(limits.fileBytes, limits.totalBytes - taken);
    const tooLarge =
      room < limits.fileBytes
        ? `The file is too large: the files of this questionnaire may take ${sizeLabel(limits.totalBytes)} in all, and ${sizeLabel(Math.max(0, room))} are left.`
        : `The file is larger than ${sizeLabel(limits.fileBytes)}: attach a smaller file.`;
    const stored = await invokeTool(
      deps.invoke,
      storeFileTool,
      { organization_id: grant.organizationId, name: file.name || 'file', max_bytes: Math.max(0, room) },
      linkUploader(grant),
      'web',
      c.get('requestId'),
      undefined,
      undefined,
      file.stream,
    );
    if (!stored.ok) {
      const { code, message } = stored.error;
      if (code === 'payload_too_large')
        return refuse(
          413,
          message.includes('ORG_FILES_QUOTA_BYTES')
            ? 'The file cannot be stored: the organization that asked has no room left for files. Tell them.'
            : tooLarge,
        );
      if (code === 'rate_limited')
        return refuse(429, 'Too many files at once: wait a minute, then attach it again.');
      return refuse(400, `The file was not attached: ${message}`);
    }
    const saved = stored.result.file as StoredFile;
    if (!(await linkAttachment(db, grant, questionKey, saved, limits, deps.now()))) {
      await discardFile({ db, files: deps.invoke.files, now: deps.now }, grant.organizationId, saved.id);
      // Answered or replaced meanwhile, or parallel uploads took the room.
      const now = await findQuestionnaireLink(db, c.req.param('secret') ?? '', deps.now());
      if ('refusal' in now) return { ok: false, status: 410, message: 'used' };
      return refuse(413, tooLarge);
    }
    return {
      ok: true,
      attachment: {
        id: saved.id,
        question_key: questionKey,
        file_id: saved.id,
        file_name: saved.name,
        size: saved.size,
        content_type: saved.content_type,
        sha256: saved.sha256,
        created_at: saved.created_at,
      },
    };
  }

  const valuesOf = (grant: QuestionnaireGrant, form: PostedForm) =>
    Object.fromEntries(
      grant.questions.map((question) => [question.key, form.fields[`answer_${question.key}`] ?? '']),
    );

  web.post(`${path}/attach`, limitPosted, async (c) => {
    const opened = await openPost(c);
    if (opened instanceof Response) return opened;
    const { grant, secret, form } = opened;
    const chosen = form.fields.attach_question ?? '';
    const values = valuesOf(grant, form);
    const state = (attachError?: string): FormState => ({
      values,
      problems: {},
      chosen,
      attachError,
      attachments: [],
    });
    if (!form.file) {
      const attachments = await attachmentsOf(db, grant.questionnaireId);
      return page(c, grant, secret, { ...state('Choose a file to attach.'), attachments }, undefined, 400);
    }
    const outcome = await attach(c, grant, chosen, form.file);
    if (!outcome.ok && outcome.status === 410) return refusedLinkPage(c, 'used');
    const attachments = await attachmentsOf(db, grant.questionnaireId);
    if (!outcome.ok)
      return page(
        c,
        grant,
        secret,
        { ...state(outcome.message), attachments },
        { kind: 'error', text: `Not attached: ${outcome.message}` },
        outcome.status as 400 | 413 | 429,
      );
    return page(
      c,
      grant,
      secret,
      { ...state(), chosen: '', attachments },
      { kind: 'ok', text: `Attached ${outcome.attachment.file_name}. Your answers are not sent yet.` },
    );
  });

  // Removes one file of this questionnaire, through its link while the answers are not sent: another questionnaire's
  // file, or one of this questionnaire removed already, is not found; the stored file goes with it.
  web.post(`${path}/remove`, limitPosted, async (c) => {
    const opened = await openPost(c);
    if (opened instanceof Response) return opened;
    const { grant, secret, form } = opened;
    // A file chosen in the attach block meanwhile is not read: removing attaches nothing.
    form.file?.stream.cancel().catch(() => undefined);
    const values = valuesOf(grant, form);
    const chosen = form.fields.attach_question ?? '';
    const held = await attachmentsOf(db, grant.questionnaireId);
    const named = held.find((file) => file.id === (form.fields[REMOVE_FIELD] ?? ''));
    const removed = named ? await unlinkAttachment(db, grant, named.id, deps.now()) : null;
    if (named && !removed) {
      // The answers were sent (or a reminder replaced the link) meanwhile: the file stays with them.
      const now = await findQuestionnaireLink(db, secret, deps.now());
      if ('refusal' in now) return refusedLinkPage(c, now.refusal);
    }
    if (removed)
      await discardFile(
        { db, files: deps.invoke.files, now: deps.now },
        grant.organizationId,
        removed.fileId,
      );
    const attachments = removed ? await attachmentsOf(db, grant.questionnaireId) : held;
    const state: FormState = { values, problems: {}, chosen, attachments };
    if (!named || !removed)
      return page(
        c,
        grant,
        secret,
        state,
        {
          kind: 'error',
          text: 'That file is not attached to this questionnaire (it may be removed already).',
        },
        404,
      );
    return page(c, grant, secret, state, {
      kind: 'ok',
      text: `Removed ${named.file_name}. Your answers are not sent yet.`,
    });
  });

  web.post(path, limitPosted, async (c) => {
    const opened = await openPost(c);
    if (opened instanceof Response) return opened;
    const { grant, secret, form } = opened;
    const now = deps.now();
    const values = valuesOf(grant, form);
    const chosen = form.fields.attach_question ?? '';
    // A file chosen but not attached goes with the answers; refused, nothing is sent.
    if (form.file) {
      const outcome = await attach(c, grant, chosen, form.file);
      if (!outcome.ok && outcome.status === 410) return refusedLinkPage(c, 'used');
      if (!outcome.ok) {
        const attachments = await attachmentsOf(db, grant.questionnaireId);
        return page(
          c,
          grant,
          secret,
          { values, problems: {}, chosen, attachError: outcome.message, attachments },
          { kind: 'error', text: `The file was not attached, and nothing was sent yet: ${outcome.message}` },
          outcome.status as 400 | 413 | 429,
        );
      }
    }
    const read = readAnswers(grant.questions, (key) => values[key] ?? '');
    if ('problems' in read) {
      // Shown again with every answer kept and each problem beside its question; nothing is stored.
      const missing = Object.keys(read.problems).length;
      const attachments = await attachmentsOf(db, grant.questionnaireId);
      return page(
        c,
        grant,
        secret,
        { values, problems: read.problems, chosen: '', attachments },
        {
          kind: 'error',
          text: `${missing} ${missing === 1 ? 'question needs' : 'questions need'} an answer or a correction; nothing was sent yet.`,
        },
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
