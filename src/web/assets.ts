// The web interface's stylesheet and its one small script, served by the app from strings (no CDN, no files).

export const STYLESHEET = `
:root {
  --ink: #1b2430; --muted: #5b6675; --line: #dde2e8; --bg: #f5f7fa; --card: #ffffff;
  --brand: #1f3a5f; --accent: #1d5fd1; --accent-ink: #ffffff; --focus: #f5a623;
  --ok: #17663a; --ok-bg: #e3f4ea; --warn: #8a5300; --warn-bg: #fff2d6; --bad: #9f1c1c; --bad-bg: #fde6e6;
  --radius: 6px;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 16px; line-height: 1.5; color: var(--ink); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px; }
h1 { font-size: 1.6rem; margin: 0 0 0.75rem; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 0.6rem; }
h3 { font-size: 1rem; margin: 1.25rem 0 0.5rem; }
p { margin: 0 0 0.75rem; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.88rem; }
pre { background: #0f1b2b; color: #e6edf5; padding: 0.75rem 1rem; border-radius: var(--radius); overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 0; }
.skip-link { position: absolute; left: -9999px; top: 0; background: var(--card); padding: 0.5rem 1rem; z-index: 10; }
.skip-link:focus { left: 0.5rem; top: 0.5rem; }

.topbar { background: var(--brand); color: #fff; display: flex; align-items: center; gap: 1rem; padding: 0.55rem 1.25rem; flex-wrap: wrap; }
.topbar a { color: #fff; }
.brand { font-weight: 700; text-decoration: none; font-size: 1.05rem; margin-right: auto; }
.brand span { opacity: 0.7; font-weight: 400; }
.switcher { display: flex; gap: 0.4rem; align-items: center; }
.switcher label { font-size: 0.85rem; opacity: 0.85; }
.switcher select { max-width: 16rem; }
.topnav { display: flex; gap: 1rem; align-items: center; }
.topnav .who { font-size: 0.85rem; opacity: 0.85; }
.topnav .bell .count { display: inline-block; margin-left: 0.3rem; min-width: 1.4rem; padding: 0 0.35rem; border-radius: 999px; background: #fff; color: var(--brand); font-size: 0.78rem; font-weight: 700; text-align: center; }
.notifications { list-style: none; margin: 0; padding: 0; }
.notifications li h2 { font-size: 1rem; margin: 0 0 0.25rem; overflow-wrap: anywhere; }
.notifications li.read h2 { font-weight: 500; }
.notification-body { white-space: pre-wrap; overflow-wrap: anywhere; font-family: inherit; margin: 0.5rem 0; }
.topbar .button.quiet { color: #fff; border-color: rgba(255,255,255,0.5); background: transparent; }

.shell { display: flex; max-width: 1280px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; gap: 2rem; align-items: flex-start; }
.sidenav { flex: 0 0 14rem; background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 0.75rem 0; position: sticky; top: 1rem; }
.sidenav h2 { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 0.75rem 1rem 0.25rem; }
.sidenav ul { list-style: none; margin: 0; padding: 0; }
.menu-search { margin: 0.25rem 1rem 0.5rem; }
.menu-search input { min-height: 2rem; padding: 0.25rem 0.5rem; font-size: 0.9rem; }
.sidenav a { display: block; padding: 0.3rem 1rem; text-decoration: none; color: var(--ink); border-left: 3px solid transparent; }
.sidenav a:hover { background: var(--bg); }
.sidenav a[aria-current="page"] { border-left-color: var(--accent); background: #eaf1fd; font-weight: 600; }
main { flex: 1 1 auto; min-width: 0; }
main.page { max-width: 1280px; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
.narrow { max-width: 30rem; margin: 3rem auto; padding: 0 1.25rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.25rem 1.5rem; margin-bottom: 1.25rem; }
.lead { color: var(--muted); }
.muted { color: var(--muted); }
.small { font-size: 0.85rem; }

.field { margin-bottom: 1rem; }
.field > label, fieldset legend { display: block; font-weight: 600; margin-bottom: 0.3rem; }
.hint { display: block; color: var(--muted); font-size: 0.85rem; margin-top: 0.2rem; }
details.technical { margin-top: 0.35rem; }
details.technical summary { cursor: pointer; color: var(--muted); font-size: 0.8rem; }
.counter { display: block; text-align: right; color: var(--muted); font-size: 0.8rem; font-variant-numeric: tabular-nums; }
.counter.over { color: var(--bad); font-weight: 700; }
input[type="text"], input[type="email"], input[type="password"], input[type="number"], input[type="search"], input[type="date"], input[type="url"], select, textarea {
  font: inherit; min-height: 2.5rem; padding: 0.45rem 0.6rem; border: 1px solid #b7c0cc; border-radius: var(--radius); background: #fff; color: var(--ink); width: 100%;
}
.topbar select { width: auto; min-height: 0; padding: 0.25rem 0.4rem; }
.inline-form { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
.inline-form select { width: auto; min-height: 0; padding: 0.2rem 0.4rem; }
pre.document-content { background: var(--card); color: var(--ink); border: 1px solid var(--line); word-break: normal; overflow-wrap: anywhere; max-height: 40rem; overflow-y: auto; }
pre.diff { word-break: normal; overflow-wrap: anywhere; }
pre.diff .diff-add { color: #a6f0b4; }
pre.diff .diff-del { color: #ffc2c2; }
.compare-form { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; margin-bottom: 0.75rem; }
.compare-form select { width: auto; }
.error-text { color: var(--bad); }
fieldset { border: 1px solid var(--line); border-radius: var(--radius); padding: 0.75rem 1rem; margin: 0 0 1rem; }
.choice { display: flex; gap: 0.5rem; align-items: baseline; margin: 0.25rem 0; }
.choice input { margin: 0; }
.indent { margin-left: 1.6rem; }
.button, button {
  font: inherit; display: inline-block; padding: 0.45rem 1rem; border-radius: var(--radius); border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; line-height: 1.4;
}
.button:hover, button:hover { filter: brightness(1.08); }
.button.quiet, button.quiet { background: #fff; color: var(--accent); }
.button.danger, button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
.button.small, button.small { padding: 0.15rem 0.6rem; font-size: 0.85rem; }
button:disabled { background: #e5e7eb; border-color: #cbd5e1; color: #475569; cursor: not-allowed; filter: none; }
.actions { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; margin-top: 1rem; }
.inline { display: inline; }
.row { display: flex; gap: 0.75rem; flex-wrap: wrap; align-items: flex-end; }
.row .field { flex: 1 1 10rem; margin-bottom: 0.5rem; }

.notice { border-radius: var(--radius); padding: 0.75rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.notice.ok { background: var(--ok-bg); border-color: #9fd3b3; color: var(--ok); }
.notice.error { background: var(--bad-bg); border-color: #f0a8a8; color: var(--bad); }
.notice.warn { background: var(--warn-bg); border-color: #f0cf8a; color: var(--warn); }

.table-wrap { position: relative; overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; }
caption { text-align: left; padding: 0.6rem 0.75rem; color: var(--muted); font-size: 0.85rem; caption-side: bottom; }
th, td { text-align: left; padding: 0.5rem 0.75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
tbody th { background: transparent; }
tbody tr:last-child td, tbody tr:last-child th { border-bottom: none; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.empty { padding: 1.25rem; color: var(--muted); }

.badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.78rem; font-weight: 600; background: #e8ebf0; color: #39424e; white-space: nowrap; }
.badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.bad { background: var(--bad-bg); color: var(--bad); }

.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 1rem; margin-bottom: 1.5rem; }
.breakdowns { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: 1rem; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem 1.25rem; }
.stat h2 { font-size: 0.85rem; margin: 0 0 0.25rem; color: var(--muted); font-weight: 600; }
.stat .value { font-size: 1.9rem; font-weight: 700; line-height: 1.2; }
.stat.alert .value { color: var(--bad); }
.stat p { margin: 0.25rem 0 0; font-size: 0.85rem; }
dl.details { display: grid; grid-template-columns: minmax(10rem, max-content) 1fr; gap: 0.4rem 1.5rem; margin: 0; }
dl.details dt { font-weight: 600; color: var(--muted); }
dl.details dd { margin: 0; word-break: break-word; }
ul.changes { margin: 0; padding-left: 1rem; }
table.history th.fields { min-width: 18rem; width: 45%; }
table.diff tbody th { overflow-wrap: anywhere; min-width: 6rem; }
ul.plain { list-style: none; margin: 0; padding: 0; }
.getting-started ol { margin: 0; padding-left: 1.4rem; }
.getting-started li { margin: 0.35rem 0; }
.getting-started li.done strong { color: var(--muted); text-decoration: line-through; }
.getting-started .step-action { display: block; }
ul.changes li { word-break: break-word; }
.wrap, code.secret { overflow-wrap: anywhere; word-break: break-word; }
ul.changes del { color: var(--bad); }
ul.changes ins { color: var(--ok); text-decoration: none; font-weight: 600; }
.actions-row { display: flex; gap: 0.75rem; flex-wrap: wrap; align-items: center; margin: 0 0 1rem; }
.secret { display: flex; gap: 0.5rem; align-items: stretch; }
.secret input { font-family: ui-monospace, Menlo, Consolas, monospace; }
.snippet { margin: 0.5rem 0 1.25rem; }
.snippet-head { display: flex; justify-content: space-between; align-items: center; margin-bottom: 0.35rem; gap: 1rem; }
.snippet-head h3 { margin: 0; }
figure { margin: 0 0 1.25rem; }
.chart { display: block; width: 100%; max-width: 46rem; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); }
.chart rect.bar { fill: var(--accent); }
.chart rect.bar.errors { fill: var(--bad); }
.chart text { font-size: 10px; fill: var(--muted); }
.heatmaps { margin: 1.5rem 0; }
.heatmaps h2 { margin-bottom: 0.25rem; }
details.heatmaps > summary { cursor: pointer; }
details.heatmaps > summary h2 { display: inline; }
fieldset.multi { border: none; padding: 0; margin: 0 0 0.5rem; min-width: 0; }
fieldset.multi details { position: relative; }
fieldset.multi summary { cursor: pointer; min-height: 2.5rem; padding: 0.45rem 0.6rem; border: 1px solid #b7c0cc; border-radius: var(--radius); background: #fff; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.multi-choices { background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); padding: 0.4rem 0.6rem; margin-top: 0.25rem; }
th a.sort { color: inherit; text-decoration: none; }
th a.sort:hover { text-decoration: underline; }
.heatmap-pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(24rem, 100%), 1fr)); gap: 1rem; }
.heatmap-wrap { position: relative; overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: var(--radius); }
table.heatmap { table-layout: fixed; min-width: 24rem; }
table.heatmap caption { caption-side: top; color: var(--ink); font-size: 0.92rem; }
table.heatmap th { font-size: 0.78rem; text-align: center; padding: 0.35rem; }
.heatmap .level-name { display: block; font-weight: 400; color: var(--muted); }
.heatmap td.cell { text-align: center; padding: 0; border: 2px solid var(--card); vertical-align: middle; }
.heatmap td.cell > * { display: block; padding: 0.35rem 0.2rem; color: var(--ink); text-decoration: none; }
.level-green { background: #dff3e4; }
.level-lime { background: #edf7d4; }
.level-yellow { background: #fdf6c8; }
.level-amber { background: #fff0d0; }
.level-orange { background: #ffe2c7; }
.level-red { background: #fde2e2; }
.level-dark-red { background: #f6c9c9; }
.level-blue { background: #e1ecfb; }
.level-grey { background: #eceef1; }
.badge.level { color: var(--ink); }
.heatmap td.cell a:hover, .heatmap td.cell a:focus-visible { outline: 3px solid var(--accent); outline-offset: -3px; }
.heatmap .count { display: block; font-size: 1.25rem; font-weight: 700; line-height: 1.2; }
.heatmap td.cell:not(.filled) .count { color: var(--muted); font-weight: 400; }
.heatmap .band { display: block; font-size: 0.7rem; color: var(--muted); }
.pager { display: flex; gap: 0.75rem; align-items: center; margin-top: 0.75rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
footer.page-footer { text-align: center; color: var(--muted); font-size: 0.8rem; padding: 1rem; }

table.coverage tr.total th, table.coverage tr.total td { font-weight: 700; border-top: 2px solid var(--line); }
table.requirement-tree tr.section-row th { font-weight: 700; background: var(--bg); }
table.requirement-tree th[scope="row"] { font-weight: 400; min-width: 14rem; }
table.requirement-tree .depth-1 { padding-left: 2rem; }
table.requirement-tree .depth-2 { padding-left: 3.25rem; }
table.requirement-tree .depth-3 { padding-left: 4.5rem; }
table.requirement-tree .depth-4 { padding-left: 5.75rem; }
table.requirement-tree .depth-5 { padding-left: 7rem; }
.reference { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.88rem; white-space: nowrap; }
.applicability-form { display: grid; grid-template-columns: auto 1fr auto; gap: 0.4rem; align-items: start; min-width: 18rem; }
.applicability-form select, .applicability-form textarea { min-height: 0; padding: 0.25rem 0.4rem; font-size: 0.88rem; }
.soa-document h2 { margin-top: 2rem; }
table.soa { table-layout: fixed; width: 100%; }
table.soa td, table.soa th { vertical-align: top; font-size: 0.88rem; word-break: break-word; }
table.soa thead th:nth-child(1) { width: 9%; }
table.soa thead th:nth-child(2) { width: 26%; }
table.soa thead th:nth-child(3) { width: 9%; }
table.soa thead th:nth-child(4) { width: 25%; }
table.soa thead th:nth-child(5) { width: 13%; }
table.soa thead th:nth-child(6) { width: 18%; }
table.soa tr.section-row th { background: var(--bg); }

/* The side menu's button: only where the menu folds (narrow screens, with the script). */
.menu-toggle { display: none; }

@media (max-width: 800px) {
  .shell { flex-direction: column; align-items: stretch; padding: 1rem 0.75rem 2rem; gap: 1rem; }
  .sidenav { position: static; width: 100%; flex: none; padding: 0.25rem 0; }
  .js .menu-toggle { display: block; width: 100%; text-align: left; background: transparent; color: var(--ink); border: none; padding: 0.5rem 1rem; font-weight: 600; }
  .js .menu-toggle::after { content: " ▾"; }
  .js .menu-toggle[aria-expanded="true"]::after { content: " ▴"; }
  .js .sidenav.folded .menu-lists { display: none; }
  .topbar { padding: 0.5rem 0.75rem; gap: 0.4rem 0.75rem; }
  .topnav { flex-wrap: wrap; gap: 0.25rem 0.75rem; }
  .topnav .who { overflow-wrap: anywhere; }
  .switcher select { max-width: 11rem; }
  main.page { padding: 1rem 0.75rem 2rem; }
  .card { padding: 1rem; }
  dl.details { grid-template-columns: 1fr; gap: 0.1rem; }
  dl.details dd { margin-bottom: 0.5rem; }
  .narrow { margin: 1.5rem auto; }
}

@media print {
  @page { size: A4; margin: 16mm 14mm; }
  :root { background: #fff; font-size: 10pt; }
  .topbar, .sidenav, .skip-link, .no-print, .pager, .actions, .notice.flash { display: none !important; }
  .shell { display: block; padding: 0; max-width: none; }
  a { color: inherit; text-decoration: none; }
  .table-wrap, .card { border: none; overflow: visible; padding: 0; }
  table { font-size: 8.5pt; width: 100%; }
  thead { display: table-header-group; }
  tr, th, td { break-inside: avoid; }
  h1, h2 { break-after: avoid; }
  .soa-section { break-before: page; }
  .soa-section:first-of-type { break-before: auto; }
}
`;

/** Copy buttons (`data-copy="<id of element>"`) and confirmation-free niceties; the pages work without it. */
export const SCRIPT = `
(function () {
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    try { document.execCommand('copy'); } finally { document.body.removeChild(area); }
    return Promise.resolve();
  }
  document.addEventListener('click', function (event) {
    var button = event.target.closest ? event.target.closest('[data-copy]') : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = 'value' in source && source.tagName === 'INPUT' ? source.value : source.textContent;
    var status = document.getElementById('copy-status');
    copyText(text).then(function () {
      button.textContent = 'Copied';
      if (status) status.textContent = (button.getAttribute('data-copy-label') || 'Text') + ' copied to the clipboard.';
      setTimeout(function () { button.textContent = 'Copy'; }, 2000);
    }, function () {
      if (status) status.textContent = 'Could not copy: select the text and copy it by hand.';
    });
  });
  // The side menu folds behind its button on narrow screens (the stylesheet shows the button there only).
  document.documentElement.classList.add('js');
  var menu = document.querySelector('.sidenav');
  var toggle = menu && menu.querySelector('.menu-toggle');
  if (toggle) {
    menu.classList.add('folded');
    toggle.setAttribute('aria-expanded', 'false');
    toggle.addEventListener('click', function () {
      var folded = menu.classList.toggle('folded');
      toggle.setAttribute('aria-expanded', folded ? 'false' : 'true');
    });
  }
  // Times in the reader's own time zone: the server writes UTC; the browser knows where the person is.
  var times = document.querySelectorAll('time[datetime]');
  for (var i = 0; i < times.length; i++) {
    var when = new Date(times[i].getAttribute('datetime'));
    if (isNaN(when.getTime()) || times[i].getAttribute('datetime').length <= 10) continue;
    times[i].setAttribute('title', times[i].textContent);
    times[i].textContent = when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
  // Length counters of text fields (data-limit): kept current as the person types; over the limit they say so.
  document.addEventListener('input', function (event) {
    var field = event.target;
    if (!field || !field.getAttribute || !field.getAttribute('data-limit')) return;
    var counter = document.getElementById(field.id + '-counter');
    if (!counter) return;
    var limit = Number(field.getAttribute('data-limit'));
    var length = field.value.length;
    counter.textContent = length.toLocaleString('en') + ' / ' + limit.toLocaleString('en');
    counter.className = length > limit ? 'counter over' : 'counter';
  });
  var some = document.getElementById('org-some');
  if (some) {
    document.addEventListener('change', function (event) {
      if (event.target && event.target.name === 'organizations' && event.target.type === 'checkbox' && event.target.checked) some.checked = true;
    });
  }
})();
`;

// FNV-1a: a cheap, synchronous fingerprint of the asset text (not security-relevant).
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/** The tab icon: a shield with a check mark, in the header's colours. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.4 12 15 6.9-1.6 12-7.5 12-15V7z" fill="#1e3a5f"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** Content-addressed asset paths, so browsers may cache them for a year and still get a new release at once. */
export const ASSET_PATHS = {
  css: `/assets/app.${fingerprint(STYLESHEET)}.css`,
  js: `/assets/app.${fingerprint(SCRIPT)}.js`,
  icon: `/assets/icon.${fingerprint(FAVICON)}.svg`,
} as const;
