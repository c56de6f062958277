// An audit's checklist result for one requirement of its scope, recorded through recordAuditChecklistResult (with a
// graded nonconformity raised in the same write when asked), and the audit programme of a framework
// (getAuditProgramme: audits per year, which applicable requirements were audited in the last years), linked from
// the audits register.
import type { Context } from 'hono';
import { Hono } from 'hono';
import { auditProgrammeTool } from '../../tools/audit-programme.ts';
import { AUDIT_CHECKLIST, REGISTERS } from '../../tools/index.ts';
import { CHECKLIST_RESULTS, FINDING_GRADES } from '../../tools/states.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { setFlash } from '../flash.ts';
import { type FormBody, Input, Select, text } from '../forms.tsx';
import { valueLabel } from '../labels.ts';
import { CsrfField, Layout, Notice, type Viewer } from '../layout.tsx';
import { displayName } from '../register-pages.ts';
import { notFoundPage, sendPage } from '../render.tsx';
import { type WebCalls, webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

type Row = Record<string, unknown>;

const AUDIT_PATH = '/orgs/:org/audits/:id{aud_[0-9a-z]+}';
const RESULT_PATH = `${AUDIT_PATH}/checklist/:requirement{req_[0-9a-z]+}`;
/** Checklist pages read to find one requirement of the scope (200 a page). */
const CHECKLIST_PAGE = 200;

interface ResultValues {
  result: string;
  notes: string;
  raise_reference: string;
  raise_grade: string;
  raise_due: string;
}

/** The audit and the checklist item of one requirement of its scope; null when either is not there. */
async function checklistItemOf(
  calls: WebCalls,
  auditId: string,
  requirementId: string,
): Promise<{ audit: Row; item: Row } | null> {
  const got = await calls.read(REGISTERS.audit.get, { id: auditId });
  if (!got.ok) return null;
  let cursor: unknown;
  // The scope is read a page at a time until the requirement is found (a scope is a framework's size at most).
  for (let page = 0; page < 50; page++) {
    const listed = await calls.run(AUDIT_CHECKLIST.list, {
      audit_id: auditId,
      size: CHECKLIST_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    const item = (listed.items as Row[]).find((row) => row.requirement_id === requirementId);
    if (item) return { audit: got.result.audit as Row, item };
    cursor = listed.next_cursor;
    if (!cursor) return null;
  }
  return null;
}

function ResultPage(props: {
  viewer: Viewer;
  membership: Membership;
  audit: Row;
  item: Row;
  values: ResultValues;
  error?: string | undefined;
}) {
  const { audit, item, values, membership } = props;
  const auditHref = `/orgs/${membership.organizationId}/audits/${String(audit.id)}`;
  const requirement = `${String(item.reference)} ${String(item.title)}`;
  return (
    <Layout
      title={`${requirement} · ${displayName(audit)}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'audits' }}
    >
      <p class="small">
        <a href={`/orgs/${membership.organizationId}/audits`}>Audits</a> ›{' '}
        <a href={auditHref}>{displayName(audit)}</a> ›
      </p>
      <h1 dir="auto">Checklist: {requirement}</h1>
      <form
        method="post"
        action={`${auditHref}/checklist/${String(item.requirement_id)}`}
        class="card"
        aria-labelledby="record-result"
      >
        <h2 id="record-result">Result</h2>
        {props.error && <Notice kind="error">{props.error}</Notice>}
        <CsrfField token={props.viewer.csrfToken} />
        <Select
          id="result"
          label="Result"
          options={CHECKLIST_RESULTS.map((value) => ({ value, label: valueLabel(value) }))}
          value={values.result}
        />
        <div class="field">
          <label for="notes">Notes</label>
          <textarea id="notes" name="notes" rows={4} data-limit={5000} aria-describedby="notes-hint">
            {values.notes}
          </textarea>
          <span class="hint" id="notes-hint">
            What was examined and found.
          </span>
        </div>
        {item.nonconformity_id ? (
          <p class="small">Finding raised: {String(item.nonconformity_reference)}.</p>
        ) : (
          <fieldset>
            <legend>Raise a finding (optional)</legend>
            <Input
              id="raise_reference"
              label="Nonconformity reference"
              value={values.raise_reference}
              limit={100}
              hint="e.g. NC-2026-004; leave empty to raise none."
            />
            <Select
              id="raise_grade"
              label="Grade"
              options={[
                { value: '', label: 'From the result' },
                ...FINDING_GRADES.map((value) => ({ value, label: valueLabel(value) })),
              ]}
              value={values.raise_grade}
              hint="A nonconformity is Major or Minor."
            />
            <div class="field">
              <label for="raise_due">Close by</label>
              <input id="raise_due" name="raise_due" type="date" value={values.raise_due} />
            </div>
          </fieldset>
        )}
        <button type="submit">Record the result</button>
      </form>
    </Layout>
  );
}

interface Programme {
  framework: { id: string; name: string };
  since: string;
  years: { year: number; audits: number; by_type: Record<string, number> }[];
  applicable: number;
  audited_count: number;
  not_audited_count: number;
  audited: { id: string; reference: string; title: string; last_audited_on: string }[];
  not_audited: { id: string; reference: string; title: string }[];
}

function ProgrammePage(props: {
  viewer: Viewer;
  membership: Membership;
  frameworks: { id: string; name: string }[];
  frameworkId: string;
  years: number;
  programme: Programme | null;
  error?: string | undefined;
}) {
  const { membership, programme } = props;
  const base = `/orgs/${membership.organizationId}`;
  return (
    <Layout
      title={`Audit programme · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'audits' }}
    >
      <p class="small">
        <a href={`${base}/audits`}>Audits</a> ›
      </p>
      <h1>Audit programme</h1>
      <p class="lead">
        Audits per year, and which applicable requirements of a framework an audit has checked in the last
        years (ISO/IEC 27001 9.2.2).
      </p>
      {props.frameworks.length === 0 ? (
        <p class="empty">No framework yet: add one to plan its audits.</p>
      ) : (
        <form method="get" action={`${base}/audits/programme`} class="inline-form">
          <label for="framework_id">Framework</label>
          <select id="framework_id" name="framework_id">
            {props.frameworks.map((framework) => (
              <option value={framework.id} selected={framework.id === props.frameworkId}>
                {framework.name}
              </option>
            ))}
          </select>
          <label for="years">Years back</label>
          <select id="years" name="years">
            {[1, 2, 3, 4, 5].map((years) => (
              <option value={String(years)} selected={years === props.years}>
                {years}
              </option>
            ))}
          </select>
          <button type="submit" class="quiet">
            Show
          </button>
        </form>
      )}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      {programme && (
        <>
          <h2 id="programme-years">Audits per year</h2>
          <DataTable
            items={programme.years}
            empty="No audit of this framework has dates yet."
            caption={`Audits of ${programme.framework.name} per year`}
            columns={[
              { header: 'Year', cell: (year) => String(year.year) },
              { header: 'Audits', class: 'num', cell: (year) => String(year.audits) },
              {
                header: 'Kinds',
                class: 'wrap',
                cell: (year) =>
                  Object.entries(year.by_type)
                    .map(([type, n]) => `${n} ${type === 'NONE' ? 'without a kind' : valueLabel(type)}`)
                    .join(', '),
              },
            ]}
          />
          <h2 id="programme-coverage">Requirements audited since {programme.since}</h2>
          <p id="programme-counts">
            {programme.audited_count} of {programme.applicable} applicable requirements audited;{' '}
            {programme.not_audited_count} not audited.
          </p>
          <h3 id="programme-not-audited">Not audited: plan them</h3>
          <DataTable
            items={programme.not_audited}
            empty="Every applicable requirement was audited."
            caption="Applicable requirements no audit checked"
            columns={[
              {
                header: 'Requirement',
                cell: (requirement) => (
                  <a href={`${base}/requirements/${requirement.id}`}>
                    {requirement.reference} {requirement.title}
                  </a>
                ),
              },
            ]}
          />
          <h3 id="programme-audited">Audited</h3>
          <DataTable
            items={programme.audited}
            empty="None yet."
            caption="Applicable requirements audited, with the last day"
            columns={[
              {
                header: 'Requirement',
                cell: (requirement) => (
                  <a href={`${base}/requirements/${requirement.id}`}>
                    {requirement.reference} {requirement.title}
                  </a>
                ),
              },
              { header: 'Last audited', cell: (requirement) => requirement.last_audited_on },
            ]}
          />
        </>
      )}
    </Layout>
  );
}

export function auditPageRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  web.get('/orgs/:org/audits/programme', async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const calls = webCalls(c, deps);
    const frameworks =
      (await calls.pickers(membership.organizationId, ['framework'])).framework?.choices ?? [];
    const asked = c.req.query('framework_id') ?? '';
    const frameworkId = asked || frameworks[0]?.id || '';
    const yearsAsked = Number.parseInt(c.req.query('years') ?? '', 10);
    const years = yearsAsked >= 1 && yearsAsked <= 5 ? yearsAsked : 3;
    const outcome = frameworkId
      ? await calls.read(auditProgrammeTool, { framework_id: frameworkId, years })
      : null;
    if (outcome && !outcome.ok && outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
    return sendPage(
      c,
      <ProgrammePage
        viewer={viewerOf(c)}
        membership={membership}
        frameworks={frameworks}
        frameworkId={frameworkId}
        years={years}
        programme={outcome?.ok ? (outcome.result as unknown as Programme) : null}
        error={outcome && !outcome.ok ? outcome.error.message : undefined}
      />,
      outcome && !outcome.ok ? 400 : 200,
    );
  });

  async function resultPage(
    c: Context<WebEnv>,
    posted?: { values: ResultValues; error: string; status: 400 | 403 | 409 },
  ) {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'recording a checklist result');
    const found = await checklistItemOf(
      webCalls(c, deps),
      c.req.param('id') ?? '',
      c.req.param('requirement') ?? '',
    );
    if (!found) return notFoundPage(c, viewerOf(c));
    const values = posted?.values ?? {
      result: String(found.item.result),
      notes: String(found.item.notes ?? ''),
      raise_reference: '',
      raise_grade: '',
      raise_due: '',
    };
    return sendPage(
      c,
      <ResultPage
        viewer={viewerOf(c)}
        membership={membership}
        {...found}
        values={values}
        error={posted?.error}
      />,
      posted?.status ?? 200,
    );
  }

  web.get(RESULT_PATH, (c) => resultPage(c));

  web.post(RESULT_PATH, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership, 'recording a checklist result');
    const auditId = c.req.param('id') ?? '';
    const body = (await c.req.parseBody()) as FormBody;
    const values: ResultValues = {
      result: text(body, 'result'),
      notes: text(body, 'notes').trim(),
      raise_reference: text(body, 'raise_reference').trim(),
      raise_grade: text(body, 'raise_grade'),
      raise_due: text(body, 'raise_due'),
    };
    const raise = values.raise_reference
      ? {
          raise_nonconformity: {
            reference_id: values.raise_reference,
            ...(values.raise_grade ? { grade: values.raise_grade } : {}),
            ...(values.raise_due ? { due_date: values.raise_due } : {}),
          },
        }
      : {};
    const outcome = await webCalls(c, deps).write(AUDIT_CHECKLIST.record, {
      audit_id: auditId,
      requirement_id: c.req.param('requirement') ?? '',
      result: values.result,
      ...(values.notes ? { notes: values.notes } : { clear: ['notes'] }),
      ...raise,
    });
    if (!outcome.ok) {
      if (outcome.error.code === 'not_found') return notFoundPage(c, viewerOf(c));
      const status = outcome.error.code === 'forbidden' ? 403 : outcome.error.code === 'conflict' ? 409 : 400;
      return resultPage(c, { values, error: `Not recorded: ${outcome.error.message}`, status });
    }
    const item = outcome.result.item as Row;
    const raised = outcome.result.raised_nonconformity as Row | null;
    setFlash(
      c,
      `Recorded: ${String(item.reference)} ${valueLabel(String(item.result))}${raised ? `, nonconformity ${String(raised.reference_id)} raised` : ''}.`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/audits/${auditId}#checklist`, 303);
  });
  return web;
}
