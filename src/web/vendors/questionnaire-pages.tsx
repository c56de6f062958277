// A vendor's questionnaire pages: the send form (sendVendorQuestionnaire: template, contact, due date) whose answer
// shows the single-use link once; a questionnaire's answers and score (getQuestionnaireAnswers); and the assessment
// drafted from them (draftVendorAssessment), which a person checks, changes if need be and confirms into
// addVendorAssessment. Every call goes through the invocation seam as the signed-in person.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { baseUrlOf } from '../../oauth/resource.ts';
import { invokeTool } from '../../surfaces/invoke.ts';
import { REGISTERS, VENDOR_QUESTIONNAIRES } from '../../tools/index.ts';
import { STARTER_TEMPLATE_NAME } from '../../tools/questionnaires/starter-template.ts';
import {
  addStarterQuestionnaireTemplate,
  listQuestionnaireTemplates,
} from '../../tools/questionnaires/templates.ts';
import { VENDOR_ASSESSMENT_RESULTS, VENDOR_TIERS } from '../../tools/states.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import { type Membership, type WebDeps, type WebEnv, webWriterPrincipal } from '../context.ts';
import { setFlash } from '../flash.ts';
import { type FormBody, Input, Select, text } from '../forms.tsx';
import { sizeLabel, valueLabel } from '../labels.ts';
import { Badge, CsrfField, Layout, Notice, type Viewer } from '../layout.tsx';
import { displayName } from '../register-pages.ts';
import { notFoundPage, sendPage } from '../render.tsx';
import { type WebCalls, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

const VENDOR_PATH = '/orgs/:org/vendors/:vendor{ven_[0-9a-z]+}';
const QUESTIONNAIRE_PATH = `${VENDOR_PATH}/questionnaires/:id{vqn_[0-9a-z]+}`;
/** Templates offered in the send form (the organization's first ones by name). */
const TEMPLATES_SHOWN = 100;

export interface SendValues {
  template_id: string;
  contact_name: string;
  contact_email: string;
  due_date: string;
}

/** The organization's questionnaire templates, for the send form. */
export async function templatesOf(calls: WebCalls, organizationId: string): Promise<Row[]> {
  const listed = await calls
    .run(listQuestionnaireTemplates, { organization_id: organizationId, size: TEMPLATES_SHOWN })
    .catch(() => null);
  return (listed?.questionnaire_templates as Row[] | undefined) ?? [];
}

/** Whether the organization has a template named as the starter one (looked up page by page, templates are few). */
async function hasStarterTemplate(calls: WebCalls, organizationId: string): Promise<boolean> {
  let cursor: string | undefined;
  do {
    const page = await calls.run(listQuestionnaireTemplates, {
      organization_id: organizationId,
      size: TEMPLATES_SHOWN,
      ...(cursor ? { cursor } : {}),
    });
    const templates = page.questionnaire_templates as Row[];
    if (templates.some((template) => template.name === STARTER_TEMPLATE_NAME)) return true;
    cursor = typeof page.next_cursor === 'string' ? page.next_cursor : undefined;
  } while (cursor);
  return false;
}

/** Whether the templates listed hold the starter one (the vendor page offers the button only without it). */
export function holdsStarterTemplate(templates: Row[]): boolean {
  return templates.some((template) => template.name === STARTER_TEMPLATE_NAME);
}

/** The button that adds the starter template to the organization; a second click finds it there and adds nothing. */
export function StarterTemplateButton(props: { action: string; csrfToken: string }) {
  return (
    <form method="post" action={props.action} class="actions">
      <CsrfField token={props.csrfToken} />
      <button type="submit" class="quiet">
        Add the starter questionnaire template
      </button>
    </form>
  );
}

/** The form that sends a questionnaire to the vendor's contact. */
export function SendQuestionnaireForm(props: {
  action: string;
  csrfToken: string;
  templates: Row[];
  values?: SendValues | undefined;
  error?: string | undefined;
}) {
  const values = props.values;
  if (props.templates.length === 0)
    return (
      <p class="small">
        No questionnaire template yet: add the starter template with the button below (or your own with
        addQuestionnaireTemplate), then send it from here.
      </p>
    );
  return (
    <form method="post" action={props.action} class="card" aria-labelledby="send-questionnaire">
      <h3 id="send-questionnaire">Send a questionnaire</h3>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <CsrfField token={props.csrfToken} />
      <Select
        id="template_id"
        label="Template"
        options={props.templates.map((template) => ({
          value: String(template.id),
          label: String(template.name),
        }))}
        value={values?.template_id}
      />
      <Input id="contact_name" label="Contact's name" value={values?.contact_name} required limit={200} />
      <Input
        id="contact_email"
        label="Contact's email"
        type="email"
        value={values?.contact_email}
        required
        hint="No mail is sent: the next page shows the link to send them, once."
      />
      <div class="field">
        <label for="due_date">Answer by</label>
        <input id="due_date" name="due_date" type="date" value={values?.due_date} required />
      </div>
      <button type="submit">Send the questionnaire</button>
    </form>
  );
}

function vendorBase(membership: Membership, vendorId: string): string {
  return `/orgs/${membership.organizationId}/vendors/${vendorId}`;
}

function Crumbs(props: { membership: Membership; vendor: Row }) {
  const base = vendorBase(props.membership, String(props.vendor.id));
  return (
    <p class="small">
      <a href={`/orgs/${props.membership.organizationId}/vendors`}>Vendors</a> ›{' '}
      <a href={base}>{displayName(props.vendor)}</a> ›
    </p>
  );
}

function VendorPage(props: {
  viewer: Viewer;
  membership: Membership;
  title: string;
  vendor: Row;
  children: unknown;
}) {
  return (
    <Layout
      title={`${props.title} · ${displayName(props.vendor)}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: props.membership.organizationId, page: 'vendors' }}
    >
      <Crumbs membership={props.membership} vendor={props.vendor} />
      <h1 dir="auto">{props.title}</h1>
      {props.children as never}
    </Layout>
  );
}

interface AnsweredQuestion {
  key: string;
  topic: string;
  text: string;
  answer_type: string;
  answer: string | null;
  acceptable_answer: boolean | null;
  weight: number;
  files: { id: string; file_name: string; size: number; download_url?: string | null }[];
}

function AnswersPage(props: { viewer: Viewer; membership: Membership; vendor: Row; questionnaire: Row }) {
  const { questionnaire, membership } = props;
  const questions = questionnaire.questions as AnsweredQuestion[];
  const status = String(questionnaire.status);
  const base = `${vendorBase(membership, String(props.vendor.id))}/questionnaires/${String(questionnaire.id)}`;
  return (
    <VendorPage
      viewer={props.viewer}
      membership={membership}
      vendor={props.vendor}
      title={String(questionnaire.title)}
    >
      <div class="card">
        <dl class="details">
          <dt>Status</dt>
          <dd>
            <Badge tone={status === 'ANSWERED' ? 'ok' : status === 'EXPIRED' ? 'bad' : 'warn'}>
              {valueLabel(status)}
            </Badge>
          </dd>
          <dt>Contact</dt>
          <dd dir="auto">
            {String(questionnaire.contact_name)} ({String(questionnaire.contact_email)})
          </dd>
          <dt>Sent</dt>
          <dd>{String(questionnaire.created_at).slice(0, 10)}</dd>
          <dt>Due</dt>
          <dd>{String(questionnaire.due_date)}</dd>
          <dt>Answered</dt>
          <dd>{questionnaire.answered_at ? String(questionnaire.answered_at).slice(0, 10) : 'Not yet'}</dd>
          <dt>Score</dt>
          <dd id="questionnaire-score">
            {questionnaire.score === null ? 'None yet' : `${String(questionnaire.score)} of 100`}
          </dd>
        </dl>
      </div>
      {status === 'ANSWERED' && mayWrite(membership) && (
        <p class="actions">
          <a class="button" href={`${base}/assessment`}>
            Draft an assessment from the answers
          </a>
        </p>
      )}
      <h2 id="answers">Questions and answers</h2>
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">Each question as sent, with the vendor's answer</caption>
          <thead>
            <tr>
              <th scope="col">Topic</th>
              <th scope="col">Question</th>
              <th scope="col">Answer</th>
              <th scope="col">Acceptable</th>
              <th scope="col" class="num">
                Weight
              </th>
            </tr>
          </thead>
          <tbody>
            {questions.map((question) => (
              <tr>
                <td>{question.topic}</td>
                <td class="wrap" dir="auto">
                  {question.text}
                </td>
                <td class="wrap" dir="auto">
                  {question.answer === null
                    ? '—'
                    : question.answer_type === 'YES_NO'
                      ? valueLabel(question.answer)
                      : question.answer}
                  {question.files.map((file) => (
                    <span class="small attached">
                      <br />
                      <a href={file.download_url ?? '#'} download>
                        {file.file_name}
                      </a>{' '}
                      <span class="muted">({sizeLabel(file.size)})</span>
                    </span>
                  ))}
                </td>
                <td>
                  {question.acceptable_answer === null ? (
                    '—'
                  ) : question.acceptable_answer ? (
                    <Badge tone="ok">Yes</Badge>
                  ) : (
                    <Badge tone="bad">No</Badge>
                  )}
                </td>
                <td class="num">{String(question.weight)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </VendorPage>
  );
}

interface AssessmentValues {
  assessor_id: string;
  assessed_on: string;
  result: string;
  tier: string;
  expires_on: string;
  summary: string;
}

function AssessmentPage(props: {
  viewer: Viewer;
  membership: Membership;
  vendor: Row;
  questionnaire: Row;
  draft: Row;
  people: { id: string; name: string }[];
  values: AssessmentValues;
  error?: string | undefined;
}) {
  const { values } = props;
  const findings = (props.draft.findings as Row[]) ?? [];
  const action = `${vendorBase(props.membership, String(props.vendor.id))}/questionnaires/${String(props.questionnaire.id)}/assessment`;
  return (
    <VendorPage
      viewer={props.viewer}
      membership={props.membership}
      vendor={props.vendor}
      title="Draft assessment"
    >
      <p>
        Drafted from “{String(props.questionnaire.title)}” (score{' '}
        {props.draft.score === null ? 'none' : String(props.draft.score)}). Nothing is saved until you
        confirm; change what you disagree with first.
      </p>
      {findings.length > 0 && (
        <>
          <h2 id="findings">Answers not acceptable</h2>
          <ul>
            {findings.map((finding) => (
              <li dir="auto">
                {String(finding.text)} Answer: {String(finding.answer)}
              </li>
            ))}
          </ul>
        </>
      )}
      <form method="post" action={action} class="card" aria-labelledby="confirm-assessment">
        <h2 id="confirm-assessment">The assessment to add</h2>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <CsrfField token={props.viewer.csrfToken} />
        <Select
          id="assessor_id"
          label="Assessor"
          options={[
            { value: '', label: 'Choose…' },
            ...props.people.map((person) => ({ value: person.id, label: person.name })),
          ]}
          value={values.assessor_id}
        />
        <div class="field">
          <label for="assessed_on">Assessed on</label>
          <input id="assessed_on" name="assessed_on" type="date" value={values.assessed_on} required />
        </div>
        <Select
          id="result"
          label="Result"
          options={VENDOR_ASSESSMENT_RESULTS.map((value) => ({ value, label: valueLabel(value) }))}
          value={values.result}
        />
        <Select
          id="tier"
          label="Tier decided"
          options={VENDOR_TIERS.map((value) => ({ value, label: valueLabel(value) }))}
          value={values.tier}
        />
        <div class="field">
          <label for="expires_on">Holds until</label>
          <input id="expires_on" name="expires_on" type="date" value={values.expires_on} required />
        </div>
        <div class="field">
          <label for="summary">Summary</label>
          <textarea id="summary" name="summary" rows={8} data-limit={5000}>
            {values.summary}
          </textarea>
        </div>
        <button type="submit">Confirm and add the assessment</button>
      </form>
    </VendorPage>
  );
}

/** The vendor and its questionnaire, read through the tools; null (a 404) when either is missing or they differ. */
async function loadQuestionnaire(
  c: Context<WebEnv>,
  calls: WebCalls,
): Promise<{ vendor: Row; questionnaire: Row } | null> {
  const vendor = await calls.read(REGISTERS.vendor.get, { id: c.req.param('vendor') ?? '' });
  if (!vendor.ok) return null;
  const got = await calls.read(VENDOR_QUESTIONNAIRES.get, { id: c.req.param('id') ?? '' });
  if (!got.ok) return null;
  const questionnaire = got.result.vendor_questionnaire as Row;
  const record = vendor.result.vendor as Row;
  if (questionnaire.vendor_id !== record.id) return null;
  return { vendor: record, questionnaire };
}

export function questionnairePageRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  // Send: the answer is the link, shown once on this page (never stored in a cookie or the history).
  web.post(`${VENDOR_PATH}/questionnaires`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'sending a questionnaire');
    const calls = webCalls(c, deps);
    const vendor = await calls.read(REGISTERS.vendor.get, { id: c.req.param('vendor') ?? '' });
    if (!vendor.ok) return notFoundPage(c, viewerOf(c));
    const record = vendor.result.vendor as Row;
    const body = (await c.req.parseBody()) as FormBody;
    const values: SendValues = {
      template_id: text(body, 'template_id'),
      contact_name: text(body, 'contact_name').trim(),
      contact_email: text(body, 'contact_email').trim(),
      due_date: text(body, 'due_date'),
    };
    const sent = await calls.write(VENDOR_QUESTIONNAIRES.send, { vendor_id: record.id, ...values });
    const viewer = viewerOf(c);
    const action = `${vendorBase(membership, String(record.id))}/questionnaires`;
    if (!sent.ok)
      return sendPage(
        c,
        <VendorPage viewer={viewer} membership={membership} vendor={record} title="Send a questionnaire">
          <SendQuestionnaireForm
            action={action}
            csrfToken={viewer.csrfToken}
            templates={await templatesOf(calls, membership.organizationId)}
            values={values}
            error={`Not sent: ${sent.error.message}`}
          />
        </VendorPage>,
        sent.error.code === 'not_found' ? 404 : 400,
      );
    const questionnaire = sent.result.vendor_questionnaire as Row;
    const link = `${baseUrlOf(deps.config, c.req.url)}${String(sent.result.link_path)}`;
    return sendPage(
      c,
      <VendorPage viewer={viewer} membership={membership} vendor={record} title="Questionnaire sent">
        <Notice kind="ok">
          “{String(questionnaire.title)}” is ready for {String(questionnaire.contact_name)}, to answer by{' '}
          {String(questionnaire.due_date)}.
        </Notice>
        <div class="card">
          <p>
            Send this link to {String(questionnaire.contact_email)} yourself: no mail was sent. It is shown
            only now; it works once, until {String(questionnaire.link_expires_at).slice(0, 10)}.
          </p>
          <div class="field">
            <label for="questionnaire-link">Link for the vendor</label>
            <input id="questionnaire-link" type="text" readonly value={link} />
          </div>
          <button
            type="button"
            class="button small quiet"
            data-copy="questionnaire-link"
            data-copy-label="Link"
          >
            Copy
          </button>
        </div>
        <p>
          <a href={`${action}/${String(questionnaire.id)}`}>Open the questionnaire</a> ·{' '}
          <a href={vendorBase(membership, String(record.id))}>Back to {displayName(record)}</a>
        </p>
      </VendorPage>,
    );
  });

  // The starter template, added once per organization: a template of its name already there (a second click, another
  // member's) adds nothing, and a double click's two posts carry one idempotency key, so only one is written.
  web.post(`${VENDOR_PATH}/questionnaire-templates/starter`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'adding a questionnaire template');
    const calls = webCalls(c, deps);
    const vendor = await calls.read(REGISTERS.vendor.get, { id: c.req.param('vendor') ?? '' });
    if (!vendor.ok) return notFoundPage(c, viewerOf(c));
    const back = `${vendorBase(membership, String((vendor.result.vendor as Row).id))}#questionnaires`;
    const { organizationId } = membership;
    if (await hasStarterTemplate(calls, organizationId)) {
      setFlash(c, `The organization has the template “${STARTER_TEMPLATE_NAME}” already: nothing was added.`);
      return c.redirect(back, 303);
    }
    const added = await invokeTool(
      deps.invoke,
      addStarterQuestionnaireTemplate,
      { organization_id: organizationId },
      webWriterPrincipal(c.get('user'), c.get('memberships')),
      'web',
      c.get('requestId'),
      undefined,
      { header: `web-starter-questionnaire-template-${organizationId}` },
    );
    setFlash(
      c,
      added.ok
        ? `Template “${STARTER_TEMPLATE_NAME}” added: choose it below to send it.`
        : `Not added: ${added.error.message}`,
    );
    return c.redirect(back, 303);
  });

  web.get(QUESTIONNAIRE_PATH, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const loaded = await loadQuestionnaire(c, webCalls(c, deps));
    if (!loaded) return notFoundPage(c, viewerOf(c));
    return sendPage(c, <AnswersPage viewer={viewerOf(c)} membership={membership} {...loaded} />);
  });

  async function assessmentPage(
    c: Context<WebEnv>,
    posted?: { values: AssessmentValues; error: string; status: 400 | 403 | 409 },
  ) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'adding an assessment');
    const calls = webCalls(c, deps);
    const loaded = await loadQuestionnaire(c, calls);
    if (!loaded) return notFoundPage(c, viewerOf(c));
    const drafted = await calls.read(VENDOR_QUESTIONNAIRES.draftAssessment, {
      questionnaire_id: loaded.questionnaire.id,
    });
    if (!drafted.ok) {
      setFlash(c, `No draft: ${drafted.error.message}`);
      return c.redirect(
        `${vendorBase(membership, String(loaded.vendor.id))}/questionnaires/${String(loaded.questionnaire.id)}`,
        303,
      );
    }
    const proposed = drafted.result.proposed as Row;
    const values: AssessmentValues = posted?.values ?? {
      assessor_id: String(proposed.assessor_id ?? ''),
      assessed_on: String(proposed.assessed_on),
      result: String(proposed.result),
      tier: String(proposed.tier),
      expires_on: String(proposed.expires_on),
      summary: String(proposed.summary),
    };
    const people = (await calls.pickers(membership.organizationId, ['person'])).person?.choices ?? [];
    return sendPage(
      c,
      <AssessmentPage
        viewer={viewerOf(c)}
        membership={membership}
        {...loaded}
        draft={drafted.result}
        people={people}
        values={values}
        error={posted?.error}
      />,
      posted?.status ?? 200,
    );
  }

  web.get(`${QUESTIONNAIRE_PATH}/assessment`, (c) => assessmentPage(c));

  web.post(`${QUESTIONNAIRE_PATH}/assessment`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'adding an assessment');
    const calls = webCalls(c, deps);
    const loaded = await loadQuestionnaire(c, calls);
    if (!loaded) return notFoundPage(c, viewerOf(c));
    const body = (await c.req.parseBody()) as FormBody;
    const values: AssessmentValues = {
      assessor_id: text(body, 'assessor_id'),
      assessed_on: text(body, 'assessed_on'),
      result: text(body, 'result'),
      tier: text(body, 'tier'),
      expires_on: text(body, 'expires_on'),
      summary: text(body, 'summary').trim(),
    };
    if (!values.assessor_id) return assessmentPage(c, { values, error: 'Choose the assessor.', status: 400 });
    const added = await calls.write(REGISTERS.vendor_assessment.add, {
      organization_id: membership.organizationId,
      vendor_id: loaded.vendor.id,
      ...values,
      ...(values.summary ? {} : { summary: undefined }),
    });
    if (!added.ok) {
      const status = added.error.code === 'forbidden' ? 403 : added.error.code === 'conflict' ? 409 : 400;
      return assessmentPage(c, { values, error: `Not added: ${added.error.message}`, status });
    }
    const assessment = added.result.vendor_assessment as Row;
    setFlash(
      c,
      `Assessment added: ${valueLabel(String(assessment.result))}, tier ${valueLabel(String(assessment.tier))}, until ${String(assessment.expires_on)}.`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/vendor-assessments/${String(assessment.id)}`, 303);
  });
  return web;
}
