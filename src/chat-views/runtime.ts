// The script every chat view opens with: the view's side of the MCP Apps protocol over postMessage (ui/initialize,
// the tool's result, size changes, tools/call through the host) and DOM helpers that only ever set text, never HTML.
// Plain browser JavaScript in a string: the resource is served as is, with no build step and no external script.

/** MCP Apps protocol revision the views speak (the extension's SDK 2.x speaks the same). */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

/**
 * Defines `view` for the view's own script: `view.onResult(render)` receives the tool's result (structuredContent,
 * or the JSON of its text) and the arguments the tool was called with; `view.callTool(name, args)` asks the host to
 * call one of the read tools the view declares (`CALLS`), any other name is refused before anything is sent;
 * `view.el(tag, attributes, children)` builds elements whose strings become text nodes.
 */
export function viewRuntime(name: string, version: string, calls: readonly string[]): string {
  return `(() => {
'use strict';
const CALLS = new Set(${JSON.stringify(calls)});
const pending = new Map();
let nextId = 1;
let args = {};
let renderResult = () => {};
const send = (message) => window.parent.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
const el = (tag, attributes, children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'onclick') node.addEventListener('click', value);
    else node.setAttribute(key, String(value));
  }
  for (const child of [].concat(children === undefined ? [] : children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  return node;
};
const dataOf = (result) => {
  if (result && result.structuredContent && typeof result.structuredContent === 'object') return result.structuredContent;
  const text = result && Array.isArray(result.content) ? result.content.find((item) => item.type === 'text') : null;
  try {
    return text ? JSON.parse(text.text) : null;
  } catch {
    return null;
  }
};
const errorOf = (result, data) =>
  result && result.isError ? (data && data.error && data.error.message) || 'The tool answered with an error.' : null;
const show = (node) => {
  const root = document.getElementById('root');
  root.replaceChildren(node);
};
const reportSize = () => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  const width = Math.ceil(document.documentElement.scrollWidth);
  send({ method: 'ui/notifications/size-changed', params: { width, height } });
};
new ResizeObserver(reportSize).observe(document.documentElement);
const callTool = async (name, callArgs) => {
  if (!CALLS.has(name)) throw new Error('This view does not call ' + name + '.');
  const result = await request('tools/call', { name, arguments: callArgs });
  const data = dataOf(result);
  const error = errorOf(result, data);
  if (error) throw new Error(error);
  return data;
};
const applyContext = (context) => {
  if (context && (context.theme === 'dark' || context.theme === 'light')) document.documentElement.dataset.theme = context.theme;
};
window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== '2.0') return;
  if (message.method === undefined && message.id !== undefined) {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(message.error.message || 'The host refused the call.'));
    else waiting.resolve(message.result);
    return;
  }
  const params = message.params || {};
  if (message.method === 'ui/notifications/tool-input') args = params.arguments || {};
  else if (message.method === 'ui/notifications/tool-result') {
    const data = dataOf(params);
    const error = errorOf(params, data);
    if (error || !data) show(el('p', { class: 'error', role: 'alert' }, error || 'No result to show.'));
    else show(renderResult(data, args));
  } else if (message.method === 'ui/notifications/host-context-changed') applyContext(params);
  else if (message.id !== undefined && (message.method === 'ping' || message.method === 'ui/resource-teardown'))
    send({ id: message.id, result: {} });
  else if (message.id !== undefined)
    send({ id: message.id, error: { code: -32601, message: 'Method not found: ' + message.method } });
});
window.view = {
  el,
  callTool,
  onResult(render) {
    renderResult = render;
  },
};
request('ui/initialize', {
  appInfo: ${JSON.stringify({ name, version })},
  appCapabilities: {},
  protocolVersion: '${APPS_PROTOCOL_VERSION}',
}).then((answer) => {
  applyContext(answer && answer.hostContext);
  send({ method: 'ui/notifications/initialized', params: {} });
  reportSize();
});
})();`;
}
