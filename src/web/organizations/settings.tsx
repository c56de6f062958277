// An organization's settings in the web: time zone, the incident regimes whose clocks apply and the privacy contact,
// read and changed through getOrganizationSettings / updateOrganizationSettings (the risk method stays with the
// tools: a matrix is given whole). Every member reads them; owners and admins change them.
import { Hono } from 'hono';
import { REGIMES } from '../../tools/incidents/clocks.ts';
import { getSettingsTool, updateSettingsTool } from '../../tools/settings.ts';
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
  error?: string;
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
        How incident clocks are computed for {membership.name} and who the records of processing name as
        contact. The risk method is set through updateOrganizationSettings.
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
          {editable && (
            <div class="actions">
              <button type="submit">Save settings</button>
            </div>
          )}
        </fieldset>
      </form>
    </Layout>
  );
}

export function organizationSettingsRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  web.get('/orgs/:org/settings', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const outcome = await webCalls(c, deps).read(getSettingsTool, {
      organization_id: membership.organizationId,
    });
    if (!outcome.ok) return notFoundPage(c, viewerOf(c));
    const settings = outcome.result.settings as Record<string, unknown>;
    const values: SettingsValues = {
      time_zone: String(settings.time_zone ?? 'UTC'),
      incident_regimes: (settings.incident_regimes as string[] | undefined) ?? [],
      privacy_contact: typeof settings.privacy_contact === 'string' ? settings.privacy_contact : '',
    };
    return sendPage(c, <SettingsPage viewer={viewerOf(c)} membership={membership} values={values} />);
  });

  web.post('/orgs/:org/settings', async (c) => {
    const membership = membershipOf(c, c.req.param('org'));
    if (!membership) return notFoundPage(c, viewerOf(c));
    const body = await c.req.parseBody({ all: true });
    const values: SettingsValues = {
      time_zone: text(body, 'time_zone').trim(),
      incident_regimes: texts(body, 'incident_regimes'),
      privacy_contact: text(body, 'privacy_contact').trim(),
    };
    // The tool decides who may change them (OWNER or ADMIN) and what is valid; its refusal is shown on the form.
    const outcome = await webCalls(c, deps).write(updateSettingsTool, {
      organization_id: membership.organizationId,
      time_zone: values.time_zone,
      incident_regimes: values.incident_regimes,
      privacy_contact: values.privacy_contact || null,
    });
    if (!outcome.ok) {
      return sendPage(
        c,
        <SettingsPage
          viewer={viewerOf(c)}
          membership={membership}
          values={values}
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
