// A chat view's HTML: one document, its style and script inline, a content security policy that lets only that
// style and that script apply (by their hashes) and allows no network at all. The data arrives later, from the host, as the tool's result.

/** The stylesheet every view shares: light and dark, the heat-map colours of the risk method by name. */
const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --accent: #0b57d0;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
:root[data-theme="dark"] { --fg: #e6edf3; --muted: #9da7b3; --line: #30363d; --bg: #0d1117; --accent: #7aa7ff; }
body { margin: 0; padding: 12px; }
h1 { font-size: 16px; margin: 0 0 8px; }
h2 { font-size: 14px; margin: 12px 0 6px; }
p { margin: 4px 0; }
.muted { color: var(--muted); }
.error { color: #b42318; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
tr.section td { font-weight: 600; background: color-mix(in srgb, var(--line) 35%, transparent); }
button { font: inherit; cursor: pointer; border: 1px solid var(--line); border-radius: 4px; background: transparent;
  color: var(--accent); padding: 3px 8px; }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; border: 1px solid var(--line); }
.bad { color: #b42318; border-color: #b42318; }
.good { color: #1a7f37; border-color: #1a7f37; }
.grids { display: flex; flex-wrap: wrap; gap: 16px; }
.grid { border-collapse: separate; border-spacing: 3px; width: auto; }
.grid th { font-weight: 400; font-size: 12px; border: 0; }
.grid td { border: 0; padding: 0; }
.cell { width: 54px; height: 38px; border-radius: 4px; border: 0; color: #111; font-weight: 600; }
.cell:disabled { cursor: default; opacity: 0.55; }
.c-GREEN { background: #7ccf8a; } .c-LIME { background: #b8e07a; } .c-YELLOW { background: #f4e06a; }
.c-AMBER { background: #f6c25b; } .c-ORANGE { background: #f59a4a; } .c-RED { background: #ef6b5d; }
.c-DARK_RED { background: #b8322a; color: #fff; } .c-BLUE { background: #8fb8f0; } .c-GREY { background: #c4c8cc; }
.bar { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; min-width: 80px; }
.bar > span { display: block; height: 100%; background: var(--accent); }
.figures { display: flex; flex-wrap: wrap; gap: 18px; margin: 6px 0 10px; }
.figure strong { display: block; font-size: 20px; }
`;

/** The document of a view: `script` is the runtime followed by the view's own code. */
export async function viewDocument(title: string, script: string): Promise<string> {
  const policy = [
    "default-src 'none'",
    `script-src '${await hashSourceOf(script)}'`,
    `style-src '${await hashSourceOf(STYLE)}'`,
    "img-src 'none'",
    "connect-src 'none'",
    "font-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main id="root"><p class="muted">Waiting for the result…</p></main>
<script>${script}</script>
</body>
</html>
`;
}

/** CSP source of an inline block: 'sha256-<base64>' of its exact text (WebCrypto: on Node and in the Worker). */
async function hashSourceOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `sha256-${btoa(binary)}`;
}
