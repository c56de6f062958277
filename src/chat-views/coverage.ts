// Framework coverage and readiness of getFrameworkCoverage: the shares, the counts per status, per top-level section;
// a section's requirements come through the host with getStatementOfApplicability filtered to it.
import { frameworkCoverageTool, statementOfApplicabilityTool } from '../tools/coverage.ts';
import type { ChatViewSpec } from './spec.ts';

export const coverageView: ChatViewSpec = {
  uri: 'ui://compliance-mcp/framework-coverage.html',
  name: 'framework-coverage',
  title: 'Framework coverage and readiness',
  description:
    'getFrameworkCoverage as bars per section; a section lists its requirements (getStatementOfApplicability).',
  tool: frameworkCoverageTool,
  calls: [statementOfApplicabilityTool],
  script: `
const { el, callTool } = window.view;
const percent = (share) => (share === null || share === undefined ? 'n/a' : Math.round(share * 100) + '%');
const bar = (share, label) => {
  const fill = el('span', {});
  fill.style.width = Math.max(0, Math.min(100, Math.round((share || 0) * 100))) + '%';
  return el('div', { class: 'bar', role: 'img', 'aria-label': label + ' ' + percent(share) }, fill);
};
const figure = (label, value) => el('div', { class: 'figure' }, [el('strong', {}, value), el('span', { class: 'muted' }, label)]);
window.view.onResult((result) => {
  const details = el('div', { id: 'details', 'aria-live': 'polite' });
  const coverage = result.coverage;
  const sections = result.sections.map((section) => el('tr', {}, [
    el('td', {}, section.id
      ? el('button', { type: 'button', 'data-section': section.id, onclick: async () => {
          details.replaceChildren(el('p', { class: 'muted' }, 'Listing the requirements…'));
          try {
            const page = await callTool(${JSON.stringify(statementOfApplicabilityTool.name)}, { framework_id: result.framework.id, filter: { section_id: section.id }, size: 50 });
            details.replaceChildren(el('section', {}, [
              el('h2', {}, (section.reference || '') + ' ' + (section.title || '') + ' (' + page.total_count + ')'),
              el('table', {}, el('tbody', {}, page.requirements.map((row) => el('tr', {}, [
                el('td', {}, row.reference), el('td', {}, row.title), el('td', {}, row.implementation_status || ''), el('td', {}, row.readiness),
              ])))),
            ]));
          } catch (error) {
            details.replaceChildren(el('p', { class: 'error', role: 'alert' }, error.message));
          }
        } }, (section.reference || '') + ' ' + (section.title || ''))
      : el('span', { class: 'muted' }, 'Outside sections')),
    el('td', {}, section.coverage.applicable),
    el('td', {}, [bar(section.coverage.implemented_share, 'Implemented'), percent(section.coverage.implemented_share)]),
    el('td', {}, [bar(section.coverage.covered_share, 'Covered'), percent(section.coverage.covered_share)]),
  ]));
  return el('div', {}, [
    el('h1', {}, 'Coverage: ' + result.framework.name + (result.framework.version ? ' ' + result.framework.version : '')),
    el('div', { class: 'figures' }, [
      figure('implemented', percent(coverage.implemented_share)),
      figure('covered by a measure', percent(coverage.covered_share)),
      figure('ready (evidenced)', percent(result.readiness.ready_share)),
      figure('implemented, not ready', String(result.readiness.implemented_not_ready)),
      figure('applicable of ' + coverage.requirements, String(coverage.applicable)),
    ]),
    el('p', { class: 'muted' }, Object.entries(coverage.by_status).map(([status, n]) => status + ' ' + n).join(' · ')),
    result.crosswalk.pending ? el('p', {}, result.crosswalk.pending + ' crosswalk proposals pending; accepted, covered would be ' + percent(result.crosswalk.covered_share_if_accepted)) : null,
    el('h2', {}, 'Sections'),
    el('table', {}, [
      el('thead', {}, el('tr', {}, ['Section', 'Applicable', 'Implemented', 'Covered'].map((name) => el('th', { scope: 'col' }, name)))),
      el('tbody', {}, sections),
    ]),
    details,
  ]);
});
`,
};
