// The risk heat map of getComplianceSummary: the likelihood x impact grids (inherent, residual) in the method's
// colours; a cell with risks lists them through the host with listRisks, filtered to that cell.
import { REGISTERS } from '../tools/index.ts';
import { RISK_COLOURS } from '../tools/risk-method.ts';
import { RISK_STATUSES } from '../tools/states.ts';
import { summaryTool } from '../tools/summary.ts';
import type { ChatViewSpec } from './spec.ts';

const listRisks = REGISTERS.risk.list;
const NOT_CLOSED = RISK_STATUSES.filter((status) => status !== 'CLOSED');

export const heatMapView: ChatViewSpec = {
  uri: 'ui://compliance-mcp/risk-heat-map.html',
  name: 'risk-heat-map',
  title: 'Risk heat map',
  description:
    'The likelihood x impact heat maps of getComplianceSummary; a cell lists its risks (listRisks).',
  tool: summaryTool,
  calls: [listRisks],
  script: `
const { el, callTool } = window.view;
const COLOURS = ${JSON.stringify(RISK_COLOURS)};
const NOT_CLOSED = ${JSON.stringify(NOT_CLOSED)};
const colourOf = (levels, level) => {
  const found = levels.find((item) => item.name === level);
  return found && COLOURS.includes(found.colour) ? found.colour : 'GREY';
};
function riskList(risks, heading) {
  if (risks.length === 0) return el('p', { class: 'muted' }, 'No risks in this cell.');
  return el('section', { 'aria-label': heading }, [
    el('h2', {}, heading),
    el('table', {}, [
      el('thead', {}, el('tr', {}, [el('th', {}, 'Risk'), el('th', {}, 'Status'), el('th', {}, 'Residual score'), el('th', {}, 'Id')])),
      el('tbody', {}, risks.map((risk) =>
        el('tr', {}, [el('td', {}, risk.name), el('td', {}, risk.status), el('td', {}, risk.residual_score), el('td', { class: 'muted' }, risk.id)]))),
    ]),
  ]);
}
function grid(stage, label, cells, method, organizationId, details) {
  const counts = new Map(cells.map((cell) => [cell.likelihood + ':' + cell.impact, cell]));
  const rows = [];
  for (let likelihood = method.likelihood.length; likelihood >= 1; likelihood--) {
    const row = [el('th', { scope: 'row' }, method.likelihood[likelihood - 1])];
    for (let impact = 1; impact <= method.impact.length; impact++) {
      const cell = counts.get(likelihood + ':' + impact);
      const score = likelihood * impact;
      let level = method.levels[0] ? method.levels[0].name : '';
      for (const item of method.levels) if (score >= item.min_score) level = item.name;
      const name = label + ': likelihood ' + likelihood + ', impact ' + impact + ', ' + (cell ? cell.count : 0) + ' risks';
      row.push(el('td', {}, el('button', {
        class: 'cell c-' + colourOf(method.levels, cell ? cell.level : level),
        'aria-label': name,
        'data-stage': stage,
        'data-likelihood': likelihood,
        'data-impact': impact,
        disabled: !cell,
        onclick: async () => {
          details.replaceChildren(el('p', { class: 'muted' }, 'Listing the risks…'));
          const filter = { status: NOT_CLOSED };
          filter[stage + '_likelihood'] = likelihood;
          filter[stage + '_impact'] = impact;
          try {
            const page = await callTool(${JSON.stringify(listRisks.name)}, { organization_id: organizationId, filter, size: 50 });
            details.replaceChildren(riskList(page.risks, label + ' ' + likelihood + ' x ' + impact + ' (' + page.total_count + ')'));
          } catch (error) {
            details.replaceChildren(el('p', { class: 'error', role: 'alert' }, error.message));
          }
        },
      }, cell ? cell.count : '')));
    }
    rows.push(el('tr', {}, row));
  }
  const head = el('tr', {}, [el('th', {}, '')].concat(method.impact.map((name) => el('th', { scope: 'col' }, name))));
  return el('figure', {}, [
    el('figcaption', {}, el('h2', {}, label)),
    el('table', { class: 'grid' }, [el('thead', {}, head), el('tbody', {}, rows)]),
    el('p', { class: 'muted' }, 'Likelihood up, impact across'),
  ]);
}
window.view.onResult((summary) => {
  const risks = summary.risks;
  const details = el('div', { id: 'details', 'aria-live': 'polite' });
  return el('div', {}, [
    el('h1', {}, 'Risk heat map'),
    el('p', { class: 'muted' }, risks.total + ' risks, ' + risks.above_appetite + ' above the appetite (' + risks.method.appetite + '), as of ' + summary.generated_at),
    el('div', { class: 'grids' }, [
      grid('inherent', 'Inherent', risks.heat_map.inherent, risks.method, summary.organization_id, details),
      grid('residual', 'Residual', risks.heat_map.residual, risks.method, summary.organization_id, details),
    ]),
    details,
  ]);
});
`,
};
