// A 10,000-row CSV through the web upload on the Worker under `npm run dev:worker` (wrangler dev and the libSQL dev
// server over a file), as a browser sends it: sign in, upload (the dry run's report), then import. Prints the table
// rows; bench-import.ts runs it with `--import --worker`.
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createOrganization, createUser } from '../src/accounts.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { browserSession, csrfOf, pageOf } from '../test/browser-session.ts';
import { freePort, startChildProcess } from './bench-load.ts';

const PASSWORD = 'bench worker password';
const SECONDS_TARGET = 60;

/** A browser's session against the Worker over loopback: its pages read whole, forms posted. */
function browser(base: string) {
  const session = browserSession((request) => fetch(request), base);
  return {
    get: (path: string) => session.send(path).then(pageOf),
    post: (path: string, body: URLSearchParams | FormData) =>
      session.send(path, { method: 'POST', body }).then(pageOf),
  };
}

export async function benchWorkerUpload(databaseUrl: string, csv: string): Promise<string[]> {
  const database = await openNodeDatabase(databaseUrl);
  await migrateDatabase(database);
  const email = 'worker-import@example.com';
  const user = await createUser(database.db, new Date(), { emailVerified: true, email, password: PASSWORD });
  const org = (await createOrganization(database.db, new Date(), { name: 'Worker import', ownerId: user.id }))
    .id;
  database.client.close();
  const children: ChildProcess[] = [];
  const port = await freePort();
  const lines: string[] = [];
  try {
    const worker = await startChildProcess(
      [
        resolve('bin/run-ts.js'),
        resolve('scripts/dev-worker.ts'),
        '--var',
        'RATE_LIMIT_PER_MINUTE:0',
        '--var',
        `MAX_BODY_BYTES:${4 * 1024 * 1024}`,
      ],
      /Ready on (http:\/\/[0-9.:]+)/,
      children,
      { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), WRANGLER_SEND_METRICS: 'false' },
    );
    const site = browser(worker.url);
    const login = await site.get('/login');
    await site.post('/login', new URLSearchParams({ _csrf: csrfOf(login.html), email, password: PASSWORD }));
    const form = await site.get(`/orgs/${org}/risks/import`);
    const upload = new FormData();
    upload.append('_csrf', csrfOf(form.html));
    upload.append('file', new File([csv], 'risks.csv', { type: 'text/csv' }));
    let started = performance.now();
    const checked = await site.post(`/orgs/${org}/risks/import`, upload);
    const checkSeconds = (performance.now() - started) / 1000;
    const report =
      /(\d+) rows: (\d+) to create, (\d+) to update, (\d+) unchanged,\s*<strong>(\d+) refused/.exec(
        checked.html,
      );
    const commit = new FormData();
    commit.append('_csrf', csrfOf(checked.html));
    commit.append('csv', csv);
    commit.append('file_name', 'risks.csv');
    commit.append('action', 'import');
    started = performance.now();
    const imported = await site.post(`/orgs/${org}/risks/import`, commit);
    const importSeconds = (performance.now() - started) / 1000;
    const after = await openNodeDatabase(databaseUrl);
    const stored = await after.client.execute({
      sql: "select (select count(*) from risks where organization_id = ?1) as risks, (select count(*) from record_changes where organization_id = ?1 and surface = 'import') as history",
      args: [org],
    });
    after.client.close();
    const rows = Number(report?.[1] ?? 0);
    const ok =
      checked.status === 200 &&
      imported.status === 303 &&
      Number(stored.rows[0]?.risks) === rows &&
      Number(stored.rows[0]?.history) === rows &&
      checkSeconds + importSeconds <= SECONDS_TARGET;
    lines.push(
      `| ${rows.toLocaleString('en')} risks (${(csv.length / 1048576).toFixed(1)} MB CSV) through the web upload on the Worker (dev:worker, MAX_BODY_BYTES 4 MiB): upload + dry run, then import in one batch | ${checkSeconds.toFixed(1)} s + ${importSeconds.toFixed(1)} s; ${report?.[5] ?? '?'} refused; stored ${stored.rows[0]?.risks}, history ${stored.rows[0]?.history} | ${SECONDS_TARGET} s, all stored | ${ok ? 'ok' : '**FAIL**'} |`,
    );
    if (!ok)
      lines.push(
        `FAIL: worker upload (${checked.status} / ${imported.status}): ${checked.html.slice(0, 300)}`,
      );
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  }
  return lines;
}
