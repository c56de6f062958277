// The statement of applicability of getStatementOfApplicability: the page it was given, in document order, with
// readiness beside the declared status; the next page comes through the host with the same tool and its cursor.
import { statementOfApplicabilityTool } from '../tools/coverage.ts';
import type { ChatViewSpec } from './spec.ts';

export const statementView: ChatViewSpec = {
  uri: 'ui://compliance-mcp/statement-of-applicability.html',
  name: 'statement-of-applicability',
  title: 'Statement of applicability',
  description: 'A page of getStatementOfApplicability as a table; the next page comes from the same tool.',
  tool: statementOfApplicabilityTool,
  calls: [statementOfApplicabilityTool],
  script: `
const { el, callTool } = window.view;
function rowsOf(requirements) {
  return requirements.map((row) => {
    if (row.is_section) return el('tr', { class: 'section' }, [el('td', {}, row.reference), el('td', { colspan: 5 }, row.title)]);
    const ready = row.readiness === 'READY';
    return el('tr', {}, [
      el('td', {}, row.reference),
      el('td', {}, [row.title, row.justification ? el('div', { class: 'muted' }, row.justification) : null]),
      el('td', {}, row.applicability),
      el('td', {}, row.implementation_status || ''),
      el('td', {}, [
        el('span', { class: 'badge ' + (ready ? 'good' : row.readiness === 'NOT_READY' ? 'bad' : '') }, row.readiness),
        row.readiness_reasons.length ? el('div', { class: 'muted' }, row.readiness_reasons.map((reason) => reason.message).join('; ')) : null,
      ]),
      el('td', {}, row.measures.map((measure) => el('div', {}, measure.name + ' (' + measure.state + ')'))),
    ]);
  });
}
window.view.onResult((statement, args) => {
  const body = el('tbody', {}, rowsOf(statement.requirements));
  const shown = el('p', { class: 'muted' });
  let count = statement.requirements.length;
  const setShown = () => shown.replaceChildren(count + ' of ' + statement.total_count + (statement.total_count_capped ? '+' : '') + ' rows shown');
  setShown();
  const more = el('p', {});
  const addMore = (cursor) => {
    if (!cursor) return more.replaceChildren();
    more.replaceChildren(el('button', { type: 'button', onclick: async () => {
      more.replaceChildren(el('span', { class: 'muted' }, 'Loading…'));
      try {
        const next = await callTool(${JSON.stringify(statementOfApplicabilityTool.name)}, Object.assign({}, args, { framework_id: statement.framework.id, cursor }));
        body.append(...rowsOf(next.requirements));
        count += next.requirements.length;
        setShown();
        addMore(next.next_cursor);
      } catch (error) {
        more.replaceChildren(el('span', { class: 'error', role: 'alert' }, error.message));
      }
    } }, 'Next page'));
  };
  addMore(statement.next_cursor);
  return el('div', {}, [
    el('h1', {}, 'Statement of applicability: ' + statement.framework.name + (statement.framework.version ? ' ' + statement.framework.version : '')),
    statement.without_justification ? el('p', { class: 'error' }, statement.without_justification + ' requirements have no justification yet.') : null,
    el('table', {}, [
      el('thead', {}, el('tr', {}, ['Reference', 'Requirement', 'Applicability', 'Status', 'Readiness', 'Measures'].map((name) => el('th', { scope: 'col' }, name)))),
      body,
    ]),
    shown,
    more,
  ]);
});
`,
};
