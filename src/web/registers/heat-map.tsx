// The risk heat map: two likelihood x impact tables (inherent, residual) on the scales of the organization's risk
// method, each cell coloured by its level and holding a count that links to its risks.
import { levelOf, maxScoreOf, type RiskMethod } from '../../tools/risk-method.ts';
import { RISK_STATUSES } from '../../tools/states.ts';

export interface HeatCell {
  likelihood: number;
  impact: number;
  count: number;
}

/** The summary's heat map and the method it follows (getComplianceSummary's risks.heat_map and risks.method). */
export interface HeatMap {
  inherent: HeatCell[];
  residual: HeatCell[];
  method: RiskMethod;
}

/** The heat map counts risks that are not CLOSED; its links ask the register for the same statuses. */
export const HEAT_MAP_STATUSES = RISK_STATUSES.filter((status) => status !== 'CLOSED');

/** The style class of a level's colour (the stylesheet has one per colour: no colour is given inline). */
export function colourClass(colour: string): string {
  return `level-${colour.toLowerCase().replace(/_/g, '-')}`;
}

/** Values 1..n of a scale, each with its label. */
function scaleOf(labels: string[]) {
  return labels.map((label, at) => ({ value: at + 1, label }));
}

function HeatTable(props: {
  organizationId: string;
  stage: 'inherent' | 'residual';
  cells: HeatCell[];
  method: RiskMethod;
}) {
  const { stage, method } = props;
  const likelihoods = scaleOf(method.likelihood);
  const impacts = scaleOf(method.impact);
  const counts = new Map(props.cells.map((cell) => [`${cell.likelihood}:${cell.impact}`, cell.count]));
  const total = props.cells.reduce((sum, cell) => sum + cell.count, 0);
  const title = stage === 'inherent' ? 'Inherent risk (before measures)' : 'Residual risk (after measures)';
  const base = `/orgs/${props.organizationId}/risks`;
  return (
    <div class="heatmap-wrap">
      <table class="heatmap" aria-label={`${title}: open risks by likelihood and impact`}>
        <caption>
          <strong>{`${title}:`}</strong> {total} {total === 1 ? 'risk' : 'risks'} not closed
        </caption>
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">Likelihood \ Impact</span>
              <span aria-hidden="true">L \ I</span>
            </th>
            {impacts.map((impact) => (
              <th scope="col">
                Impact {impact.value}
                <span class="level-name">{impact.label}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {[...likelihoods].reverse().map(({ value: likelihood, label: likelihoodLabel }) => (
            <tr>
              <th scope="row">
                Likelihood {likelihood}
                <span class="level-name">{likelihoodLabel}</span>
              </th>
              {impacts.map(({ value: impact }) => {
                const count = counts.get(`${likelihood}:${impact}`) ?? 0;
                const score = likelihood * impact;
                const level = levelOf(method, score);
                const label = level.name;
                const params = new URLSearchParams({
                  [`${stage}_likelihood`]: String(likelihood),
                  [`${stage}_impact`]: String(impact),
                  status: HEAT_MAP_STATUSES.join(','),
                });
                // The cell's name is its visible text with the words a sighted reader gets from the headers, every
                // hidden part between word boundaries ("2 risks, inherent likelihood 4, impact 5: high · score 20").
                const content = (
                  <>
                    <span class="count">{count}</span>
                    <span class="visually-hidden">
                      {count === 1 ? 'risk' : 'risks'}, {stage} likelihood {likelihood}, impact {impact}:
                    </span>
                    <span class="band">
                      {label} · <span class="visually-hidden">score</span> {score}
                    </span>
                  </>
                );
                return (
                  <td class={`cell ${colourClass(level.colour)}${count > 0 ? ' filled' : ''}`}>
                    {count > 0 ? (
                      <a href={`${base}?${params.toString()}`}>{content}</a>
                    ) : (
                      <span>{content}</span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Inherent and residual heat maps side by side, with the key to their bands. `foldable` (the risks register): under
 * a summary the person opens, so the list starts on the first screen; open when `open`.
 */
export function RiskHeatMaps({
  organizationId,
  heatMap,
  foldable = false,
  open = true,
}: {
  organizationId: string;
  heatMap: HeatMap;
  foldable?: boolean;
  open?: boolean;
}) {
  const { method } = heatMap;
  const title = <h2 id="heatmap-title">Risk heat map</h2>;
  const bands = method.levels
    .map((level, at) => {
      const next = method.levels[at + 1];
      return `${level.name} ${level.min_score}–${next ? next.min_score - 1 : maxScoreOf(method)}`;
    })
    .join(', ');
  const body = (
    <>
      <p class="small muted">
        Each cell counts the risks that are not closed with that likelihood and impact; select a number to
        list them. Levels by score (likelihood × impact): {bands}. Appetite: {method.appetite}.
      </p>
      <div class="heatmap-pair">
        <HeatTable
          organizationId={organizationId}
          stage="inherent"
          cells={heatMap.inherent}
          method={method}
        />
        <HeatTable
          organizationId={organizationId}
          stage="residual"
          cells={heatMap.residual}
          method={method}
        />
      </div>
    </>
  );
  if (foldable) {
    return (
      <details class="heatmaps" open={open}>
        <summary>{title}</summary>
        {body}
      </details>
    );
  }
  return (
    <section class="heatmaps" aria-labelledby="heatmap-title">
      {title}
      {body}
    </section>
  );
}
