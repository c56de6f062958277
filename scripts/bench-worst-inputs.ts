// `npm run bench -- --worst-inputs`: the worst inputs of docs/security.md ("Input limits") against a real Node host
// (`compliance-mcp serve` in a child process, a fresh database): how long GET /healthz waits while a sign-up carries
// a crafted email address of 30,000 characters and one that fills the 64 KB form, and how far the server's memory
// rises (VmHWM, the peak resident set, from /proc) while the register import reads XLSX zip bombs of 150 KB
// (150 MB of shared strings) and 1 MB (1 GB). Prints one JSON line per case; figures, no targets.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stallingEmail, xlsxBomb } from '../test/attacks.ts';
import { browserSession, csrfOf } from '../test/browser-session.ts';
import { memoryOf } from '../test/process-memory.ts';
import { startChildProcess } from './bench-load.ts';

const MB = 1024 * 1024;
const FORM_BYTES = 64 * 1024;

/** A fresh host for each case: a stall past its 30 s request timeout leaves the next case's connections reset. */
async function startHost() {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-worst-'));
  const children: ChildProcess[] = [];
  const child = await startChildProcess(
    ['bin/compliance-mcp.js', 'serve'],
    /listening on (http:\/\/\S+)[\s\S]*Web sign-in: \S+ \/ \S+\n/,
    children,
    { ...process.env, DATABASE_URL: `file:${join(dir, 'worst.db')}`, HOST: '127.0.0.1', PORT: '0' },
  );
  const [, email = '', password = ''] = /Web sign-in: (\S+) \/ (\S+)/.exec(child.output()) ?? [];
  return {
    url: child.url,
    pid: child.pid as number,
    demo: { email, password },
    token: /(cmcp_[A-Za-z0-9_-]+)/.exec(child.output())?.[1] ?? '',
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
type Host = Awaited<ReturnType<typeof startHost>>;

/** What a request ended with: its status, or the code of the error that ended it (ECONNRESET). */
const outcomeOf = (error: unknown) => String((error as { cause?: { code?: string } }).cause?.code ?? error);

/**
 * Polls /healthz until `work` settles: the longest wait (a poll the host's request timeout ended counts to then),
 * and the work's own time. A connection the host closes before it answers is an outcome too.
 */
async function healthzDuring(host: Host, work: () => Promise<Response>) {
  let done = false;
  let longest = 0;
  const healthz: string[] = [];
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      const status = await fetch(`${host.url}/healthz`).then(async (response) => {
        await response.arrayBuffer();
        return String(response.status);
      }, outcomeOf);
      if (!healthz.includes(status)) healthz.push(status);
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const started = performance.now();
  const answer = await work().then(
    async (response) => ({ status: String(response.status), html: await response.text() }),
    (error: unknown) => ({ status: outcomeOf(error), html: '' }),
  );
  const took = performance.now() - started;
  done = true;
  await poll;
  return { ...answer, tookMs: Math.round(took), longestHealthzMs: Math.round(longest), healthz };
}

/** A sign-up whose email is the stalling address, `length` characters (or as long as the 64 KB form allows). */
async function signUpWith(host: Host, length: number | 'form') {
  const session = browserSession((request) => fetch(request), host.url);
  const csrf = csrfOf(await (await session.send('/signup')).text());
  const fields = { _csrf: csrf, name: 'Stall', password: 'correct horse battery', organization: '' };
  const form = (address: string) =>
    new URLSearchParams({ ...fields, email: address, password_confirm: fields.password }).toString();
  const address =
    length === 'form' ? stallingEmail(FORM_BYTES - form('').length - 16) : stallingEmail(length);
  const body = form(address);
  const outcome = await healthzDuring(host, () =>
    session.send('/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );
  const { html, ...figures } = outcome;
  return { case: `sign-up, email of ${address.length} characters (form ${body.length} bytes)`, ...figures };
}

/** The text of a page's error notice (role="alert"), cut at 300 characters. */
function alertOf(html: string): string | null {
  const at = html.indexOf('role="alert"');
  if (at < 0) return null;
  const text = html.slice(html.indexOf('>', at) + 1, html.indexOf('</div>', at));
  return text.replace(/<[^>]*>/g, '').slice(0, 300);
}

/** The register import given an XLSX bomb: the server's peak memory before and after, and what it answered. */
async function importBomb(host: Host, inflatedBytes: number) {
  const bytes = await xlsxBomb({ inflatedBytes });
  const session = browserSession((request) => fetch(request), host.url);
  if ((await session.signIn(host.demo)).status !== 303) throw new Error('the demo sign-in failed');
  const organizations = await fetch(`${host.url}/api/mcp/tools/listOrganizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const { organizations: list } = (await organizations.json()) as { organizations: { id: string }[] };
  const path = `/orgs/${list[0]?.id}/risks/import`;
  const csrf = csrfOf(await (await session.send(path)).text());
  const form = new FormData();
  form.append('_csrf', csrf);
  form.append('file', new File([bytes], 'bomb.xlsx'));
  const before = await memoryOf(host.pid);
  const outcome = await healthzDuring(host, () => session.send(path, { method: 'POST', body: form }));
  const after = await memoryOf(host.pid);
  const { html, ...figures } = outcome;
  return {
    case: `XLSX of ${bytes.byteLength} bytes inflating to ${inflatedBytes} bytes of shared strings`,
    ...figures,
    message: alertOf(html),
    rssBeforeMiB: Math.round(before.rss / MB),
    peakBeforeMiB: Math.round(before.peak / MB),
    peakAfterMiB: Math.round(after.peak / MB),
    peakGrowthMiB: Math.round((after.peak - before.peak) / MB),
  };
}

const cases: ((host: Host) => Promise<object>)[] = [
  async (host) => ({ idleRssMiB: Math.round((await memoryOf(host.pid)).rss / MB) }),
  (host) => signUpWith(host, 30_000),
  (host) => signUpWith(host, 'form'),
  (host) => importBomb(host, 150_000_000),
  (host) => importBomb(host, 1_000_000_000),
];
for (const run of cases) {
  const host = await startHost();
  try {
    console.log(JSON.stringify(await run(host)));
  } finally {
    await host.stop();
  }
}
process.exit(0);
