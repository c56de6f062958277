// `npm run bench -- --files [--worker | --workerd]`: stored files over loopback against a real host process (the Node
// server; `dev:worker` with its local R2 bucket; or `--workerd`, the same Worker bundle, bucket and database served by
// workerd through Miniflare without wrangler dev's proxy, `dev:worker --workerd`): upload and download throughput for 1 MB and 25 MB files, the server's memory
// growth during a 25 MB upload, through the API and through the web form (Node: RSS of the server process sampled
// every 10 ms; the web form's first, the API's with `--api-first`), 100 parallel 1 MB uploads
// (`--rounds N` repeats them; a failure is printed with its cause chain), then for information the same 100 uploads
// each on a fresh connection.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text as readText } from 'node:stream/consumers';
import { signLink } from '../src/files/links.ts';
import { browserSession, csrfOf } from '../test/browser-session.ts';

const onWorkerd = process.argv.includes('--workerd');
const onWorker = onWorkerd || process.argv.includes('--worker');
const MB = 1024 * 1024;
/** The host's link secret, so the bench signs download links as a tool of the host would. */
const LINK_SECRET = `bench link secret ${Date.now()}`;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Host {
  url: string;
  token: string;
  child: ChildProcess;
  /** The demo account's web sign-in (Node: printed at start). */
  signIn: { email: string; password: string } | null;
}

async function startHost(dir: string): Promise<Host> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    WRANGLER_SEND_METRICS: 'false',
    FILES_LINK_SECRET: LINK_SECRET,
    // Room for the 100 MB upload that shows the server's memory does not follow a file's size.
    FILE_MAX_BYTES: String(100 * MB),
    // The bench stores hundreds of files a minute with one token: the upload rate would refuse them.
    UPLOADS_PER_MINUTE: '0',
    UPLOAD_BYTES_PER_MINUTE: '0',
  };
  const args = onWorker
    ? [
        'bin/run-ts.js',
        'scripts/dev-worker.ts',
        ...(onWorkerd ? ['--workerd'] : []),
        '--persist-to',
        join(dir, 'wrangler-state'),
        '--var',
        `FILES_LINK_SECRET:${LINK_SECRET}`,
        '--var',
        'UPLOADS_PER_MINUTE:0',
        '--var',
        'UPLOAD_BYTES_PER_MINUTE:0',
      ]
    : ['bin/compliance-mcp.js', 'serve'];
  const child = spawn(process.execPath, args, {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: onWorker,
  });
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const token = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(cmcp_[A-Za-z0-9_-]+)/.exec(output);
      if (found && (!onWorker || /Ready on|ready on/i.test(output))) resolve(found[1] as string);
    });
    child.once('exit', (code) =>
      reject(new Error(`the host exited (${code}) before it was ready:\n${output}`)),
    );
  });
  // wrangler prints "Ready" before the first request compiles the Worker; wait until it answers.
  for (let tries = 0; tries < 600; tries++) {
    const answered = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (answered === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signIn = /Web sign-in: (\S+) \/ (\S+)/.exec(output);
  return {
    url,
    token,
    child,
    signIn: signIn ? { email: signIn[1] as string, password: signIn[2] as string } : null,
  };
}

/** A browser's session, signed in with the demo account. */
async function webSession(host: Host) {
  const session = browserSession((request) => fetch(request), host.url);
  if (!host.signIn) throw new Error('the host printed no demo account to sign in with');
  const signedIn = await session.signIn(host.signIn);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  return session;
}

/** The evidence form's multipart body as a browser sends it: token, record, title, then a file of `size` bytes. */
function evidenceForm(csrf: string, recordId: string, size: number) {
  const boundary = '----benchformboundary7MA4YWxkTrZu0gW';
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = new TextEncoder().encode(
    `${field('_csrf', csrf)}${field('record_id', recordId)}${field('title', 'Bench evidence')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const file = body(size).getReader();
  let stage = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (stage === 0) {
        stage = 1;
        return controller.enqueue(head);
      }
      const read = stage === 1 ? await file.read() : { done: true as const, value: undefined };
      if (!read.done) return controller.enqueue(read.value);
      if (stage === 1) {
        stage = 2;
        return controller.enqueue(tail);
      }
      controller.close();
    },
  });
  return {
    stream,
    length: head.byteLength + size + tail.byteLength,
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** The 1 MB chunk every body repeats, built once (built per body, 100 parallel uploads spent about 1.8 s on it). */
const CHUNK = new Uint8Array(MB).map((_, index) => (index * 7) % 251);

/** A body of `size` bytes from one reused 1 MB chunk, so the client holds little. */
function body(size: number): ReadableStream<Uint8Array> {
  const chunk = CHUNK;
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const piece = chunk.subarray(0, Math.min(MB, size - sent));
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}

/** An error and its causes, as `TypeError: fetch failed <- Error EPIPE: write EPIPE`. */
function causeChain(error: unknown): string {
  const links: string[] = [];
  for (
    let at = error;
    at !== undefined && at !== null && links.length < 5;
    at = (at as { cause?: unknown }).cause
  ) {
    const { name, code, message } = at as { name?: string; code?: string; message?: string };
    links.push(`${name ?? 'Error'}${code ? ` ${code}` : ''}: ${message ?? String(at)}`);
  }
  return links.join(' <- ');
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-bench-files-'));
  const host = await startHost(dir);
  try {
    const auth = { authorization: `Bearer ${host.token}` };
    const orgs = (await (
      await fetch(`${host.url}/api/mcp/tools/listOrganizations`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { organizations: { id: string }[] };
    const org = orgs.organizations?.[0]?.id;
    if (!org) throw new Error(`no organization: ${JSON.stringify(orgs)}`);
    const upload = async (size: number) => {
      const response = await fetch(`${host.url}/api/v1/orgs/${org}/files?name=bench.bin`, {
        method: 'POST',
        headers: { ...auth, 'content-length': String(size) },
        body: body(size),
        duplex: 'half',
      } as RequestInit);
      const text = await response.text();
      const json = response.status === 201 ? (JSON.parse(text) as { file?: { id: string } }) : {};
      // The answer's status and first words (wrangler dev's proxy answers a plain-text 503, not JSON).
      if (!json.file) throw new Error(`upload answered ${response.status}: ${text.slice(0, 120)}`);
      return json.file.id;
    };
    console.log(
      `Stored files on the ${onWorkerd ? 'Worker (workerd through Miniflare, no wrangler dev proxy, local R2 bucket)' : onWorker ? 'Worker (dev:worker, local R2 bucket)' : 'Node host (FILES_DIR on disk)'}, loopback`,
    );
    await upload(MB); // warm-up
    if (!onWorker && host.child.pid) {
      const pid = host.child.pid;
      /** The server's RSS before and at its peak (sampled every 10 ms) while `run` runs. */
      const memoryDuring = async (what: string, run: () => Promise<unknown>) => {
        const before = rssOf(pid);
        let peak = before;
        const sampler = setInterval(() => {
          peak = Math.max(peak, rssOf(pid));
        }, 10);
        await run();
        clearInterval(sampler);
        peak = Math.max(peak, rssOf(pid));
        console.log(
          `  memory during ${what}: RSS ${(before / MB).toFixed(1)} MB -> peak ${(peak / MB).toFixed(1)} MB (growth ${((peak - before) / MB).toFixed(1)} MB; bound 32 MB)`,
        );
      };
      // A 25 MB file through the web form (src/web/uploads.ts): signed in, the evidence form of a measure.
      const web = await webSession(host);
      const measures = (await (
        await fetch(`${host.url}/api/mcp/tools/listMeasures`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ organization_id: org }),
        })
      ).json()) as { measures: { id: string }[] };
      const measureId = measures.measures[0]?.id ?? '';
      const csrf = csrfOf(await (await web.send(`/orgs/${org}/measures/${measureId}`)).text());
      const webUpload = async (size: number) => {
        const form = evidenceForm(csrf, measureId, size);
        const posted = await web.send(`/orgs/${org}/evidence/attach`, {
          method: 'POST',
          headers: { 'content-type': form.type, 'content-length': String(form.length) },
          body: form.stream,
          duplex: 'half',
        } as RequestInit);
        await posted.arrayBuffer();
        if (posted.status !== 303) throw new Error(`the web upload answered ${posted.status}`);
      };
      // The first large upload grows the process whatever its route (`--api-first` puts the API's first); the later
      // ones reuse that memory. A 100 MB one shows whether the growth follows the file's size (read whole) or not.
      const throughForm = () => memoryDuring('a 25 MB upload through the web form', () => webUpload(25 * MB));
      const throughApi = () => memoryDuring('a 25 MB upload through the API', () => upload(25 * MB));
      const apiFirst = process.argv.includes('--api-first');
      await (apiFirst ? throughApi : throughForm)();
      await (apiFirst ? throughForm : throughApi)();
      await memoryDuring('a 100 MB upload through the web form', () => webUpload(100 * MB));
    }
    const download = async (fileId: string) => {
      const token = await signLink(LINK_SECRET, {
        organizationId: org,
        fileId,
        subjectId: 'evd_aaaaaaaaaaaaaaaaaaaaaaaa',
        expires: Math.floor(Date.now() / 1000) + 600,
      });
      const response = await fetch(`${host.url}/files/${token}`);
      let received = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        received += chunk.byteLength;
      if (response.status !== 200) throw new Error(`download answered ${response.status}`);
      return received;
    };
    for (const size of [MB, 25 * MB]) {
      const rounds = size === MB ? 20 : 4;
      const ids: string[] = [];
      let started = performance.now();
      for (let round = 0; round < rounds; round++) ids.push(await upload(size));
      let seconds = (performance.now() - started) / 1000;
      console.log(
        `  upload ${size / MB} MB x ${rounds}: ${((rounds * size) / MB / seconds).toFixed(1)} MB/s, ${((seconds * 1000) / rounds).toFixed(0)} ms each`,
      );
      started = performance.now();
      for (const id of ids) if ((await download(id)) !== size) throw new Error('short download');
      seconds = (performance.now() - started) / 1000;
      console.log(
        `  download ${size / MB} MB x ${rounds}: ${((rounds * size) / MB / seconds).toFixed(1)} MB/s, ${((seconds * 1000) / rounds).toFixed(0)} ms each`,
      );
    }
    /** 100 uploads at once: their errors (each cause chain once, with its count) and time. */
    const parallel = async (label: string, send: () => Promise<unknown>) => {
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 100 }, send));
      const seconds = (performance.now() - started) / 1000;
      const failures = new Map<string, number>();
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') {
          const chain = causeChain(outcome.reason);
          failures.set(chain, (failures.get(chain) ?? 0) + 1);
        }
      const failed = outcomes.length - outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      console.log(
        `  ${label}: ${failed} errors, ${seconds.toFixed(2)} s, ${(100 / seconds).toFixed(1)} MB/s${[...failures].map(([chain, count]) => `\n    ${count} x ${chain}`).join('')}`,
      );
    };
    // `--rounds N`: the parallel case N times over the same client (its keep-alive pool carried from round to round).
    const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 1;
    for (let round = 0; round < rounds; round++)
      await parallel('100 parallel 1 MB uploads', () => upload(MB));
    // Information only, not the measure: the same uploads each on a connection of its own (node:http, no agent).
    const uploadAlone = () =>
      new Promise<void>((resolve, reject) => {
        const sent = httpRequest(
          `${host.url}/api/v1/orgs/${org}/files?name=bench.bin`,
          { method: 'POST', agent: false, headers: { ...auth, 'content-length': String(MB) } },
          (response) =>
            readText(response).then(
              (text) =>
                response.statusCode === 201
                  ? resolve()
                  : reject(new Error(`upload answered ${response.statusCode}: ${text.slice(0, 120)}`)),
              reject,
            ),
        );
        sent.on('error', reject);
        sent.end(CHUNK);
      });
    await parallel('(information) the same 100 on fresh connections, one each', uploadAlone);
  } finally {
    if (onWorker && host.child.pid) process.kill(-host.child.pid, 'SIGTERM');
    else host.child.kill('SIGTERM');
    await new Promise((resolve) => host.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
