// An organization's home page: the compliance summary (getComplianceSummary) with links into the registers.

import type { Child } from 'hono/jsx';
import { REVIEW_DUE_DAYS } from '../../tools/documents.ts';
import { addDays, todayIn } from '../../tools/overdue.ts';
import { REQUEST_OPEN } from '../../tools/privacy/data-subject-requests.ts';
import { INCIDENT_STATUSES } from '../../tools/states.ts';
import type { Membership } from '../context.ts';
import { valueLabel } from '../labels.ts';
import { Layout, Time, type Viewer } from '../layout.tsx';
import { EXPIRING_DAYS } from '../register-pages.ts';
import { type HeatMap, RiskHeatMaps } from './heat-map.tsx';

export interface Summary {
  risks: {
    total: number;
    by_status: Record<string, number>;
    residual_score_threshold: number;
    at_or_above_threshold: number;
    above_appetite: number;
    acceptances_due: number;
    method: HeatMap['method'];
    heat_map: Omit<HeatMap, 'method'>;
  };
  measures: {
    total: number;
    by_state: Record<string, number>;
    applicable: number;
    implemented_share: number | null;
    ready: number;
    implemented_not_ready: number;
    tests_overdue: number;
  };
  obligations: { total: number; by_status: Record<string, number>; overdue: number };
  nonconformities: {
    total: number;
    by_status: Record<string, number>;
    open: number;
    overdue: number;
    closure_incomplete: number;
  };
  continual_improvements: { total: number; open: number };
  audits: { total: number; by_state: Record<string, number>; in_progress: number };
  frameworks: {
    id: string;
    name: string;
    version: string | null;
    coverage: {
      requirements: number;
      applicable: number;
      excluded: number;
      by_status: Record<string, number>;
      implemented_share: number | null;
    };
  }[];
  generated_at: string;
  reviews_overdue: Record<string, number>;
  incidents: {
    total: number;
    open: number;
    open_by_severity: Record<string, number>;
    deadlines_due_24h: number;
    deadlines_missed: number;
  };
  data_subject_requests: { total: number; open: number; overdue: number };
  dpias: { total: number; in_review: number };
}

/** What a new organization has done of its first steps (the home page guides through the rest). */
export interface FirstSteps {
  /** Another member besides the viewer. */
  invited: boolean;
  /** The viewer has an API token or a connected client. */
  connected: boolean;
}

/** The statuses of an incident not closed, as a list filter's value. */
const OPEN_INCIDENT_STATUSES = INCIDENT_STATUSES.filter((status) => status !== 'CLOSED').join(',');

const percent = (share: number | null) => (share === null ? '—' : `${Math.round(share * 100)}%`);

/** The first steps, each done or with a link to do it; shown until all are done. */
function GettingStarted({ base, summary, steps }: { base: string; summary: Summary; steps: FirstSteps }) {
  const items = [
    {
      done: summary.risks.total + summary.measures.total + summary.obligations.total > 0,
      title: 'Bring in your registers',
      action: (
        <>
          <a href={`${base}/risks/import`}>Import a spreadsheet</a> of risks (or vendors, assets, measures…),
          or <a href={`${base}/risks/new`}>add a risk</a>.
        </>
      ),
    },
    {
      done: summary.frameworks.length > 0,
      title: 'Add a framework',
      action: (
        <>
          <a href={`${base}/frameworks/catalogues`}>
            Adopt ISO 27001, SOC 2, NIST CSF or another built-in catalogue
          </a>
          , then map your measures to its requirements.
        </>
      ),
    },
    {
      done: steps.invited,
      title: 'Invite a colleague',
      action: (
        <>
          <a href={`${base}/members`}>Add a member</a> with the role they need.
        </>
      ),
    },
    {
      done: steps.connected,
      title: 'Connect an assistant',
      action: (
        <>
          <a href="/settings/tokens/new">Generate an API token</a> for Claude, Cursor or a script, or add this
          server as a connector and sign in (OAuth).
        </>
      ),
    },
  ];
  const left = items.filter((item) => !item.done).length;
  if (left === 0) return null;
  return (
    <section class="card getting-started" aria-labelledby="getting-started">
      <h2 id="getting-started">Getting started</h2>
      <p class="small muted">
        {left} of {items.length} steps left. This list goes away once they are done.
      </p>
      <ol>
        {items.map((item) => (
          <li class={item.done ? 'done' : undefined}>
            <strong>{item.title}</strong>
            {item.done ? (
              <>
                {' '}
                <span class="badge ok">Done</span>
              </>
            ) : (
              <span class="step-action">{item.action}</span>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Coverage per framework: applicable requirements, how many implemented, the share; each linking to its page. */
function FrameworkCoverage({ base, frameworks }: { base: string; frameworks: Summary['frameworks'] }) {
  if (frameworks.length === 0) return null;
  return (
    <section aria-labelledby="framework-coverage">
      <h2 id="framework-coverage">Frameworks</h2>
      <div class="table-wrap">
        <table>
          <caption>Applicable requirements and how many are implemented by their measures.</caption>
          <thead>
            <tr>
              <th scope="col">Framework</th>
              <th scope="col" class="num">
                Requirements
              </th>
              <th scope="col" class="num">
                Applicable
              </th>
              <th scope="col" class="num">
                Implemented
              </th>
              <th scope="col" class="num">
                Not covered
              </th>
              <th scope="col" class="num">
                Share implemented
              </th>
            </tr>
          </thead>
          <tbody>
            {frameworks.map((framework) => (
              <tr>
                <th scope="row">
                  <a href={`${base}/frameworks/${framework.id}`} dir="auto">
                    {framework.name}
                    {framework.version ? ` ${framework.version}` : ''}
                  </a>
                </th>
                <td class="num">{framework.coverage.requirements}</td>
                <td class="num">{framework.coverage.applicable}</td>
                <td class="num">{framework.coverage.by_status.IMPLEMENTED ?? 0}</td>
                <td class="num">{framework.coverage.by_status.NOT_COVERED ?? 0}</td>
                <td class="num">{percent(framework.coverage.implemented_share)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Stat(props: {
  title: string;
  value: string | number;
  alert?: boolean;
  href?: string;
  children?: Child;
}) {
  return (
    <section class={props.alert ? 'stat alert' : 'stat'}>
      <h2>{props.title}</h2>
      <div class="value">{props.href ? <a href={props.href}>{props.value}</a> : props.value}</div>
      {props.children && <p>{props.children}</p>}
    </section>
  );
}

function Breakdown({
  title,
  counts,
  href,
}: {
  title: string;
  counts: Record<string, number>;
  href: (value: string) => string;
}) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{title}</th>
            <th scope="col" class="num">
              Count
            </th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(counts).map(([value, count]) => (
            <tr>
              <td>
                <a href={href(value)}>{valueLabel(value)}</a>
              </td>
              <td class="num">{count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SummaryPage({
  viewer,
  membership,
  summary,
  documentsDue,
  steps,
  expiringEvidence,
}: {
  viewer: Viewer;
  membership: Membership;
  summary: Summary;
  /** Documents whose next review is within REVIEW_DUE_DAYS (or past), not retired. */
  documentsDue: number;
  steps: FirstSteps;
  /** Evidence items whose validity ends within EXPIRING_DAYS. */
  expiringEvidence: number;
}) {
  const base = `/orgs/${membership.organizationId}`;
  const share = summary.measures.implemented_share;
  // The reader's today, as the summary counted overdue reviews.
  const reviewToday = todayIn(new Date(summary.generated_at), viewer.user.timeZone);
  return (
    <Layout
      title={membership.name}
      viewer={viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'overview' }}
    >
      <h1 dir="auto">{membership.name}</h1>
      <p class="lead">
        Compliance summary · your role: {membership.role} · as of <Time iso={summary.generated_at} />
      </p>
      <GettingStarted base={base} summary={summary} steps={steps} />
      <div class="cards">
        <Stat
          title={`Risks above the appetite (${summary.risks.method.appetite})`}
          value={summary.risks.above_appetite}
          alert={summary.risks.above_appetite > 0}
          href={`${base}/risks?above_appetite=true&sort=residual_score&direction=DESC`}
        >
          of {summary.risks.total - (summary.risks.by_status.CLOSED ?? 0)} risks not closed
          {summary.risks.acceptances_due > 0 && (
            <>
              {' · '}
              <a href={`${base}/risks?acceptance_due=true`}>
                {summary.risks.acceptances_due}{' '}
                {summary.risks.acceptances_due === 1 ? 'acceptance' : 'acceptances'} due
              </a>
            </>
          )}
        </Stat>
        <Stat
          title="Measures implemented"
          value={share === null ? '—' : `${Math.round(share * 100)}%`}
          href={`${base}/measures`}
        >
          {summary.measures.by_state.IMPLEMENTED ?? 0} of {summary.measures.applicable} applicable measures
          {summary.measures.applicable < summary.measures.total &&
            ` (${summary.measures.total - summary.measures.applicable} not applicable)`}
        </Stat>
        <Stat
          title="Measures ready"
          value={summary.measures.ready}
          alert={summary.measures.implemented_not_ready > 0}
          href={`${base}/measures?readiness=READY`}
        >
          evidenced, beside {summary.measures.by_state.IMPLEMENTED ?? 0} declared implemented;{' '}
          <a href={`${base}/measures?state=IMPLEMENTED&readiness=NOT_READY`}>
            {summary.measures.implemented_not_ready} implemented but not ready
          </a>
          {summary.measures.tests_overdue > 0 && (
            <>
              ;{' '}
              <a href={`${base}/measures?test_due_before=${summary.generated_at.slice(0, 10)}`}>
                {summary.measures.tests_overdue} control tests overdue
              </a>
            </>
          )}
        </Stat>
        <Stat
          title="Overdue obligations"
          value={summary.obligations.overdue}
          alert={summary.obligations.overdue > 0}
          href={`${base}/obligations?overdue=true`}
        >
          of {summary.obligations.total} obligations
        </Stat>
        <Stat
          title="Open nonconformities"
          value={summary.nonconformities.open}
          alert={summary.nonconformities.overdue > 0}
          href={`${base}/nonconformities?status=OPEN`}
        >
          <a href={`${base}/nonconformities?overdue=true`}>{summary.nonconformities.overdue} overdue</a>
          {summary.nonconformities.closure_incomplete > 0 && (
            <>
              {' · '}
              <a href={`${base}/nonconformities?closure_incomplete=true`}>
                {summary.nonconformities.closure_incomplete} closed without their checks
              </a>
            </>
          )}
        </Stat>
        <Stat
          title="Open improvements"
          value={summary.continual_improvements.open}
          href={`${base}/continual-improvements`}
        >
          of {summary.continual_improvements.total} continual improvements
        </Stat>
        <Stat
          title="Overdue reviews"
          value={Object.values(summary.reviews_overdue).reduce((a, b) => a + b, 0)}
          alert={Object.values(summary.reviews_overdue).some((n) => n > 0)}
        >
          {Object.entries(summary.reviews_overdue).map(([register, n], index) => (
            <>
              {index > 0 && ', '}
              <a href={`${base}/${register}?${new URLSearchParams({ review_due_before: reviewToday })}`}>
                {n} {register}
              </a>
            </>
          ))}
        </Stat>
        <Stat
          title="Audits in progress"
          value={summary.audits.in_progress}
          href={`${base}/audits?state=IN_PROGRESS`}
        >
          of {summary.audits.total} audits
        </Stat>
        <Stat
          title="Open incidents"
          value={summary.incidents.open}
          alert={summary.incidents.deadlines_missed + summary.incidents.deadlines_due_24h > 0}
          href={`${base}/incidents?open_deadlines=true`}
        >
          {summary.incidents.deadlines_due_24h} notification deadline
          {summary.incidents.deadlines_due_24h === 1 ? '' : 's'} within 24 hours,{' '}
          {summary.incidents.deadlines_missed} missed
          {Object.entries(summary.incidents.open_by_severity)
            .filter(([, n]) => n > 0)
            .map(([severity, n]) => (
              <>
                {', '}
                <a href={`${base}/incidents?severity=${severity}&status=${OPEN_INCIDENT_STATUSES}`}>
                  {n} {valueLabel(severity).toLowerCase()}
                </a>
              </>
            ))}
        </Stat>
        <Stat
          title="Open data-subject requests"
          value={summary.data_subject_requests.open}
          alert={summary.data_subject_requests.overdue > 0}
          href={`${base}/data-subject-requests?status=${REQUEST_OPEN.join(',')}`}
        >
          <a href={`${base}/data-subject-requests?overdue=true`}>
            {summary.data_subject_requests.overdue} overdue
          </a>{' '}
          of {summary.data_subject_requests.total} requests
        </Stat>
        <Stat title="DPIAs in review" value={summary.dpias.in_review} href={`${base}/dpias?status=IN_REVIEW`}>
          of {summary.dpias.total} DPIAs
        </Stat>
        <Stat
          title="Documents due for review"
          value={documentsDue}
          alert={documentsDue > 0}
          href={`${base}/documents?review_due=true`}
        >
          next review within {REVIEW_DUE_DAYS} days
        </Stat>
        <Stat
          title={`Evidence expiring in ${EXPIRING_DAYS} days`}
          value={expiringEvidence}
          alert={expiringEvidence > 0}
          href={`${base}/evidence?expired=false&expiring_before=${addDays(summary.generated_at.slice(0, 10), EXPIRING_DAYS)}`}
        >
          <a href={`${base}/evidence?expired=true`}>expired evidence</a>
        </Stat>
      </div>
      <FrameworkCoverage base={base} frameworks={summary.frameworks} />
      <RiskHeatMaps
        organizationId={membership.organizationId}
        heatMap={{ ...summary.risks.heat_map, method: summary.risks.method }}
      />
      <div class="breakdowns">
        <Breakdown
          title="Risks by status"
          counts={summary.risks.by_status}
          href={(value) => `${base}/risks?status=${value}`}
        />
        <Breakdown
          title="Measures by state"
          counts={summary.measures.by_state}
          href={(value) => `${base}/measures?state=${value}`}
        />
        <Breakdown
          title="Obligations by status"
          counts={summary.obligations.by_status}
          href={(value) => `${base}/obligations?status=${value}`}
        />
        <Breakdown
          title="Audits by state"
          counts={summary.audits.by_state}
          href={(value) => `${base}/audits?state=${value}`}
        />
      </div>
    </Layout>
  );
}
