// An organization's settings in the web: time zone, the incident regimes whose clocks apply and the privacy contact,
// and the risk method (scales, levels with their colours, appetite) in a form of its own, read and changed through
// getOrganizationSettings / updateOrganizationSettings. Every member reads them; owners and admins change them.
import { type Context, Hono } from 'hono';
import { REGIMES } from '../../tools/incidents/clocks.ts';
import { RISK_COLOURS, type RiskMethod, SCALE_LEVELS } from '../../tools/risk-method.ts';
import {
  type ApprovalAction,
  getSettingsTool,
  MAX_PROPOSAL_EXPIRY_DAYS,
  updateSettingsTool,
} from '../../tools/settings.ts';
import { membershipOf } from '../access.ts';
import { MANAGER_ROLES, type Membership, type WebDeps, type WebEnv } from '../context.ts';
import { setFlash } from '../flash.ts';
import { Input, text, texts } from '../forms.tsx';
import { CsrfField, Layout, Notice, type Viewer } from '../layout.tsx';
import { notFoundPage, sendPage } from '../render.tsx';
import { webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

interface SettingsValues {
  time_zone: string;
  incident_regimes: string[];
  privacy_contact: string;
  allow_document_self_approval: boolean;
  web_only_decisions: boolean;
  reacknowledge_on: string;
  approval_required: string[];
  proposal_expiry_days: string;
}

/** What approval_required can hold back, as checkboxes. */
const APPROVAL_CHOICES: { value: ApprovalAction; label: string }[] = [
  { value: 'DELETES', label: 'Deletes' },
  { value: 'RISK_ACCEPTANCES', label: 'Risk acceptances (and risks set to ACCEPTED)' },
  { value: 'ALL_WRITES', label: 'Every add, update and delete of a register record' },
];

/** When publishing a document version asks again who acknowledged an earlier one: each choice and what it means. */
const REACKNOWLEDGE_CHOICES = [
  { value: 'NEVER', label: 'Never', hint: 'requests are made by hand (default)' },
  { value: 'EVERY_VERSION', label: 'Every version', hint: 'each published version asks them again' },
  { value: 'MAJOR_ONLY', label: 'Major versions only', hint: 'versions marked as a major change' },
] as const;

/** The two approval settings as checkboxes: what each one means for people and tokens. */
const DECISION_SETTINGS = [
  {
    name: 'allow_document_self_approval',
    label: 'Owners may approve their own documents',
    hint: "Off (default): a document's owner who is also one of its approvers cannot approve it; another approver does.",
  },
  {
    name: 'web_only_decisions',
    label: 'Decisions only by a person in the web',
    hint: 'Approving a document, accepting a risk and deleting records are refused from API tokens (MCP and direct calls); a person signed in here takes them.',
  },
] as const;

/** The risk method as its form holds it: one label or level per line. */
interface MethodValues {
  likelihood: string;
  impact: string;
  levels: string;
  appetite: string;
}

function methodValues(method: RiskMethod): MethodValues {
  return {
    likelihood: method.likelihood.join('\n'),
    impact: method.impact.join('\n'),
    levels: method.levels.map((level) => `${level.name}, ${level.min_score}, ${level.colour}`).join('\n'),
    appetite: method.appetite,
  };
}

/** The lines of a text area, trimmed, empty ones left out. */
const linesOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/**
 * The method the form says, for the tool to check whole: "name, min score, colour" per level line (a name holds no
 * comma); what does not parse is passed on as it is, and the tool's refusal names the field.
 */
function methodFrom(values: MethodValues): Record<string, unknown> {
  return {
    likelihood: linesOf(values.likelihood),
    impact: linesOf(values.impact),
    levels: linesOf(values.levels).map((line) => {
      const [name = '', score = '', colour = ''] = line.split(',').map((part) => part.trim());
      return { name, min_score: /^\d+$/.test(score) ? Number(score) : score, colour: colour.toUpperCase() };
    }),
    appetite: values.appetite.trim(),
  };
}

function RiskMethodForm(props: {
  membership: Membership;
  viewer: Viewer;
  values: MethodValues;
  error?: string;
}) {
  const editable = MANAGER_ROLES.has(props.membership.role);
  const area = (name: keyof MethodValues, label: string, hint: string, rows: number) => (
    <div class="field">
      <label for={`method-${name}`}>{label}</label>
      <textarea id={`method-${name}`} name={name} rows={rows} aria-describedby={`method-${name}-hint`}>
        {props.values[name]}
      </textarea>
      <p class="hint" id={`method-${name}-hint`}>
        {hint}
      </p>
    </div>
  );
  const scaleHint = `One label per line, lowest first: ${SCALE_LEVELS.min} to ${SCALE_LEVELS.max} levels; the first line is 1.`;
  return (
    <section aria-labelledby="risk-method">
      <h2 id="risk-method">Risk method</h2>
      <p>
        A risk's score is its likelihood times its impact; its level is the last level whose lowest score it
        reaches. Risks above the appetite need a recorded acceptance to be accepted. Changing the scales is
        refused while a risk is scored beyond them; levels are worked out again for every risk.
      </p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <form
        method="post"
        action={`/orgs/${props.membership.organizationId}/settings/risk-method`}
        class="card"
      >
        <CsrfField token={props.viewer.csrfToken} />
        <fieldset disabled={!editable}>
          <legend class="visually-hidden">Risk method</legend>
          {area('likelihood', 'Likelihood scale', scaleHint, 5)}
          {area('impact', 'Impact scale', scaleHint, 5)}
          {area(
            'levels',
            'Risk levels',
            `One per line, lowest first: name, lowest score, colour (${RISK_COLOURS.join(', ')}); the first starts at 1.`,
            4,
          )}
          <Input
            id="method-appetite"
            name="appetite"
            label="Appetite"
            value={props.values.appetite}
            hint="The name of the highest level a risk may stay at without a formal acceptance."
            required
          />
          {editable && (
            <div class="actions">
              <button type="submit">Save the risk method</button>
            </div>
          )}
        </fieldset>
      </form>
    </section>
  );
}

const REGIME_HINTS: Record<string, string> = {
  GDPR: 'personal data breaches: the authority within 72 hours, the people affected without undue delay',
  NIS2: 'significant incidents of essential and important entities: early warning, notification, final report',
  DORA: 'major ICT-related incidents of financial entities: initial, intermediate and final reports',
};

function SettingsPage(props: {
  viewer: Viewer;
  membership: Membership;
  values: SettingsValues;
  method: MethodValues;
  error?: string;
  methodError?: string;
  status?: number;
}) {
  const { membership, values } = props;
  const editable = MANAGER_ROLES.has(membership.role);
  const action = `/orgs/${membership.organizationId}/settings`;
  return (
    <Layout
      title={`Settings · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'settings' }}
    >
      <h1>Settings</h1>
      <p class="lead">
        How incident clocks are computed for {membership.name}, who the records of processing name as contact,
        and how its risks are scored.
      </p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {!editable && (
        <Notice kind="ok">Your role is {membership.role}: owners and admins change these settings.</Notice>
      )}
      <form method="post" action={action} class="card">
        <CsrfField token={props.viewer.csrfToken} />
        <fieldset disabled={!editable}>
          <legend class="visually-hidden">Organization settings</legend>
          <Input
            id="time_zone"
            label="Time zone"
            value={values.time_zone}
            hint="An IANA name such as Europe/Paris or America/New_York: deadlines and due dates are days there."
            required
          />
          <fieldset>
            <legend>Incident regimes</legend>
            {REGIMES.map((regime) => (
              <div class="choice">
                <input
                  type="checkbox"
                  id={`regime-${regime}`}
                  name="incident_regimes"
                  value={regime}
                  checked={values.incident_regimes.includes(regime)}
                />
                <label for={`regime-${regime}`}>
                  {regime} <span class="small muted">({REGIME_HINTS[regime] ?? ''})</span>
                </label>
              </div>
            ))}
          </fieldset>
          <div class="field">
            <label for="privacy_contact">Privacy contact</label>
            <textarea
              id="privacy_contact"
              name="privacy_contact"
              rows={3}
              aria-describedby="privacy_contact-hint"
            >
              {values.privacy_contact}
            </textarea>
            <p class="hint" id="privacy_contact-hint">
              The controller and data protection officer, as the record of processing activities names them.
            </p>
          </div>
          <fieldset>
            <legend>Approvals and decisions</legend>
            {DECISION_SETTINGS.map((setting) => (
              <div class="choice">
                <input
                  type="checkbox"
                  id={setting.name}
                  name={setting.name}
                  value="true"
                  checked={values[setting.name]}
                  aria-describedby={`${setting.name}-hint`}
                />
                <label for={setting.name}>{setting.label}</label>
                <p class="hint" id={`${setting.name}-hint`}>
                  {setting.hint}
                </p>
              </div>
            ))}
          </fieldset>
          <fieldset>
            <legend>Writes from API tokens and assistants that wait for approval</legend>
            <p class="hint">
              Held writes become proposals on the{' '}
              <a href={`/orgs/${membership.organizationId}/proposals`}>Proposals</a> page, where a person
              approves or rejects them. Tokens of scope “propose” always propose.
            </p>
            {APPROVAL_CHOICES.map((choice) => (
              <div class="choice">
                <input
                  type="checkbox"
                  id={`approval-${choice.value}`}
                  name="approval_required"
                  value={choice.value}
                  checked={values.approval_required.includes(choice.value)}
                />
                <label for={`approval-${choice.value}`}>{choice.label}</label>
              </div>
            ))}
            <label for="proposal_expiry_days">Days a proposal waits before it expires</label>
            <input
              type="number"
              id="proposal_expiry_days"
              name="proposal_expiry_days"
              min={1}
              max={MAX_PROPOSAL_EXPIRY_DAYS}
              value={values.proposal_expiry_days}
            />
          </fieldset>
          <fieldset>
            <legend>Acknowledge again when a version is published</legend>
            {REACKNOWLEDGE_CHOICES.map((choice) => (
              <div class="choice">
                <input
                  type="radio"
                  id={`reacknowledge-${choice.value}`}
                  name="reacknowledge_on"
                  value={choice.value}
                  checked={values.reacknowledge_on === choice.value}
                />
                <label for={`reacknowledge-${choice.value}`}>
                  {choice.label} <span class="small muted">({choice.hint})</span>
                </label>
              </div>
            ))}
          </fieldset>
          {editable && (
            <div class="actions">
              <button type="submit">Save settings</button>
            </div>
          )}
        </fieldset>
      </form>
      <RiskMethodForm
        membership={membership}
        viewer={props.viewer}
        values={props.method}
        {...(props.methodError ? { error: props.methodError } : {})}
      />
    </Layout>
  );
}

export function organizationSettingsRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  /** The settings as the forms show them, read with the member's rights. */
  async function currentValues(c: Context<WebEnv>, membership: Membership) {
    const outcome = await webCalls(c, deps).read(getSettingsTool, {
      organization_id: membership.organizationId,
    });
    if (!outcome.ok) return null;
    const settings = outcome.result.settings as Record<string, unknown>;
    const values: SettingsValues = {
      time_zone: String(settings.time_zone ?? 'UTC'),
      incident_regimes: (settings.incident_regimes as string[] | undefined) ?? [],
      privacy_contact: typeof settings.privacy_contact === 'string' ? settings.privacy_contact : '',
      allow_document_self_approval: settings.allow_document_self_approval === true,
      web_only_decisions: settings.web_only_decisions === true,
      reacknowledge_on: String(settings.reacknowledge_on ?? 'NEVER'),
      approval_required: (settings.approval_required as string[] | undefined) ?? [],
      proposal_expiry_days: String(settings.proposal_expiry_days ?? 7),
    };
    return { values, method: methodValues(settings.risk_method as RiskMethod) };
  }

  web.get('/orgs/:org/settings', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const current = await currentValues(c, membership);
    if (!current) return notFoundPage(c, viewerOf(c));
    return sendPage(c, <SettingsPage viewer={viewerOf(c)} membership={membership} {...current} />);
  });

  web.post('/orgs/:org/settings/risk-method', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody();
    const method: MethodValues = {
      likelihood: text(body, 'likelihood'),
      impact: text(body, 'impact'),
      levels: text(body, 'levels'),
      appetite: text(body, 'appetite'),
    };
    // The tool checks the method whole (and who may change it); its refusal is shown above the form, as typed.
    const outcome = await webCalls(c, deps).write(updateSettingsTool, {
      organization_id: membership.organizationId,
      risk_method: methodFrom(method),
    });
    if (!outcome.ok) {
      const current = await currentValues(c, membership);
      if (!current) return notFoundPage(c, viewerOf(c));
      return sendPage(
        c,
        <SettingsPage
          viewer={viewerOf(c)}
          membership={membership}
          values={current.values}
          method={method}
          methodError={outcome.error.message}
        />,
        outcome.error.status as 400,
      );
    }
    setFlash(c, 'Risk method saved: every risk has its level worked out again.');
    return c.redirect(`/orgs/${membership.organizationId}/settings#risk-method`, 303);
  });

  web.post('/orgs/:org/settings', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const values: SettingsValues = {
      time_zone: text(body, 'time_zone').trim(),
      incident_regimes: texts(body, 'incident_regimes'),
      privacy_contact: text(body, 'privacy_contact').trim(),
      allow_document_self_approval: text(body, 'allow_document_self_approval') === 'true',
      web_only_decisions: text(body, 'web_only_decisions') === 'true',
      reacknowledge_on: text(body, 'reacknowledge_on'),
      approval_required: texts(body, 'approval_required'),
      proposal_expiry_days: text(body, 'proposal_expiry_days').trim(),
    };
    // The tool decides who may change them (OWNER or ADMIN) and what is valid; its refusal is shown on the form.
    const outcome = await webCalls(c, deps).write(updateSettingsTool, {
      organization_id: membership.organizationId,
      time_zone: values.time_zone,
      incident_regimes: values.incident_regimes,
      privacy_contact: values.privacy_contact || null,
      allow_document_self_approval: values.allow_document_self_approval,
      web_only_decisions: values.web_only_decisions,
      // Not sent (a form without the choice): unchanged; anything else the tool checks.
      reacknowledge_on: values.reacknowledge_on || undefined,
      approval_required: values.approval_required,
      // Not sent: unchanged; a number the tool checks (1..90).
      proposal_expiry_days: values.proposal_expiry_days ? Number(values.proposal_expiry_days) : undefined,
    });
    if (!outcome.ok) {
      const current = await currentValues(c, membership);
      if (!current) return notFoundPage(c, viewerOf(c));
      return sendPage(
        c,
        <SettingsPage
          viewer={viewerOf(c)}
          membership={membership}
          values={values}
          method={current.method}
          error={outcome.error.message}
        />,
        outcome.error.status as 400,
      );
    }
    setFlash(c, 'Settings saved.');
    return c.redirect(`/orgs/${membership.organizationId}/settings`, 303);
  });

  return web;
}
