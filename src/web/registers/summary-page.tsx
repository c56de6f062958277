// An organization's home page: the compliance summary (getComplianceSummary) with links into the registers.
import type { Child } from 'hono/jsx';
import type { Membership } from '../context.ts';
import { valueLabel } from '../labels.ts';
import { Layout, Time, type Viewer } from '../layout.tsx';
import { type HeatMap, RiskHeatMaps } from './heat-map.tsx';

export interface Summary {
  risks: {
    total: number;
    by_status: Record<string, number>;
    residual_score_threshold: number;
    at_or_above_threshold: number;
    heat_map: HeatMap;
  };
  measures: {
    total: number;
    by_state: Record<string, number>;
    applicable: number;
    implemented_share: number | null;
  };
  obligations: { total: number; by_status: Record<string, number>; overdue: number };
  nonconformities: { total: number; by_status: Record<string, number>; open: number; overdue: number };
  continual_improvements: { total: number; open: number };
  audits: { total: number; by_state: Record<string, number>; in_progress: number };
  generated_at: string;
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
}: {
  viewer: Viewer;
  membership: Membership;
  summary: Summary;
}) {
  const base = `/orgs/${membership.organizationId}`;
  const share = summary.measures.implemented_share;
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
      <div class="cards">
        <Stat
          title={`High risks (residual ≥ ${summary.risks.residual_score_threshold})`}
          value={summary.risks.at_or_above_threshold}
          alert={summary.risks.at_or_above_threshold > 0}
          href={`${base}/risks?min_residual_score=${summary.risks.residual_score_threshold}&sort=residual_score&direction=DESC`}
        >
          of {summary.risks.total - (summary.risks.by_status.CLOSED ?? 0)} risks not closed
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
        </Stat>
        <Stat
          title="Open improvements"
          value={summary.continual_improvements.open}
          href={`${base}/continual-improvements`}
        >
          of {summary.continual_improvements.total} continual improvements
        </Stat>
        <Stat
          title="Audits in progress"
          value={summary.audits.in_progress}
          href={`${base}/audits?state=IN_PROGRESS`}
        >
          of {summary.audits.total} audits
        </Stat>
      </div>
      <RiskHeatMaps organizationId={membership.organizationId} heatMap={summary.risks.heat_map} />
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
