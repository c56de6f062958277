// The risk heat map: two 5x5 likelihood x impact tables (inherent, residual), each cell a count linking to its risks.
import { RISK_STATUSES } from '../../tools/states.ts';

export interface HeatCell {
  likelihood: number;
  impact: number;
  count: number;
}

export interface HeatMap {
  inherent: HeatCell[];
  residual: HeatCell[];
}

const LEVELS = [1, 2, 3, 4, 5] as const;
const LEVEL_NAMES: Record<number, string> = {
  1: 'very low',
  2: 'low',
  3: 'medium',
  4: 'high',
  5: 'very high',
};

/** The heat map counts risks that are not CLOSED; its links ask the register for the same statuses. */
export const HEAT_MAP_STATUSES = RISK_STATUSES.filter((status) => status !== 'CLOSED');

/** Score bands, the same thresholds as the score badges of the register: a word for each, not only a colour. */
function band(score: number): { tone: 'ok' | 'warn' | 'bad'; label: string } {
  if (score >= 15) return { tone: 'bad', label: 'high' };
  if (score >= 8) return { tone: 'warn', label: 'medium' };
  return { tone: 'ok', label: 'low' };
}

function HeatTable(props: { organizationId: string; stage: 'inherent' | 'residual'; cells: HeatCell[] }) {
  const { stage } = props;
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
            {LEVELS.map((impact) => (
              <th scope="col">
                Impact {impact}
                <span class="level-name">{LEVEL_NAMES[impact]}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {[...LEVELS].reverse().map((likelihood) => (
            <tr>
              <th scope="row">
                Likelihood {likelihood}
                <span class="level-name">{LEVEL_NAMES[likelihood]}</span>
              </th>
              {LEVELS.map((impact) => {
                const count = counts.get(`${likelihood}:${impact}`) ?? 0;
                const score = likelihood * impact;
                const { tone, label } = band(score);
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
                  <td class={`cell ${tone}${count > 0 ? ' filled' : ''}`}>
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

/** Inherent and residual heat maps side by side, with the key to their bands. */
export function RiskHeatMaps({ organizationId, heatMap }: { organizationId: string; heatMap: HeatMap }) {
  return (
    <section class="heatmaps" aria-labelledby="heatmap-title">
      <h2 id="heatmap-title">Risk heat map</h2>
      <p class="small muted">
        Each cell counts the risks that are not closed with that likelihood and impact; select a number to
        list them. Bands by score (likelihood × impact): low 1–7, medium 8–14, high 15–25.
      </p>
      <div class="heatmap-pair">
        <HeatTable organizationId={organizationId} stage="inherent" cells={heatMap.inherent} />
        <HeatTable organizationId={organizationId} stage="residual" cells={heatMap.residual} />
      </div>
    </section>
  );
}
