// myWork as a list by due date: overdue first as the tool orders it, deadlines with their hours left; the next page
// comes through the host with myWork and its cursor.
import { myWorkTool } from '../tools/my-work.ts';
import type { ChatViewSpec } from './spec.ts';

export const myWorkView: ChatViewSpec = {
  uri: 'ui://compliance-mcp/my-work.html',
  name: 'my-work',
  title: 'My work',
  description:
    'The items of myWork by due date, overdue and due soon marked; the next page comes from myWork.',
  tool: myWorkTool,
  calls: [myWorkTool],
  script: `
const { el, callTool } = window.view;
function rowsOf(items) {
  return items.map((item) => el('tr', {}, [
    el('td', {}, [item.due_on || '', item.due_local ? el('div', { class: 'muted' }, item.due_local) : null]),
    el('td', {}, [item.title, el('div', { class: 'muted' }, item.kind + ' · ' + item.id)]),
    el('td', {}, item.reason),
    el('td', {}, item.status || ''),
    el('td', {}, item.overdue
      ? el('span', { class: 'badge bad' }, 'overdue')
      : item.due_soon ? el('span', { class: 'badge' }, 'due soon') : ''),
  ]));
}
window.view.onResult((work, args) => {
  const body = el('tbody', {}, rowsOf(work.items));
  const more = el('p', {});
  const addMore = (cursor) => {
    if (!cursor) return more.replaceChildren();
    more.replaceChildren(el('button', { type: 'button', onclick: async () => {
      try {
        const next = await callTool(${JSON.stringify(myWorkTool.name)}, Object.assign({}, args, { cursor }));
        body.append(...rowsOf(next.items));
        addMore(next.next_cursor);
      } catch (error) {
        more.replaceChildren(el('span', { class: 'error', role: 'alert' }, error.message));
      }
    } }, 'Next page'));
  };
  addMore(work.next_cursor);
  return el('div', {}, [
    el('h1', {}, 'My work'),
    el('p', { class: 'muted' }, work.total_count + ' items, today ' + work.today),
    work.items.length === 0
      ? el('p', {}, 'Nothing due.')
      : el('table', {}, [
          el('thead', {}, el('tr', {}, ['Due', 'Item', 'Why', 'Status', ''].map((name) => el('th', { scope: 'col' }, name)))),
          body,
        ]),
    more,
  ]);
});
`,
};
