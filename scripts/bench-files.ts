// `npm run bench -- --files [--worker]`: stored files over loopback against a real host process (the Node server, or
// `dev:worker` with its local R2 bucket): upload and download throughput for 1 MB and 25 MB files, the server's memory
// growth during a 25 MB upload (Node: RSS of the server process sampled every 10 ms), 100 parallel 1 MB uploads
// (`--rounds N` repeats them; a failure is printed with its cause chain).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signLink } from '../src/files/links.ts';

const onWorker = process.argv.includes('--worker');
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

async function startHost(dir: string): Promise<{ url: string; token: string; child: ChildProcess }> {
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    WRANGLER_SEND_METRICS: 'false',
    FILES_LINK_SECRET: LINK_SECRET,
  };
  const args = onWorker
    ? [
        'bin/run-ts.js',
        'scripts/dev-worker.ts',
        '--persist-to',
        join(dir, 'wrangler-state'),
        '--var',
        `FILES_LINK_SECRET:${LINK_SECRET}`,
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
  return { url, token, child };
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** A body of `size` bytes from one reused 1 MB chunk, so the client holds little. */
function body(size: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(MB).map((_, index) => (index * 7) % 251);
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
      const json = (await response.json()) as { file?: { id: string } };
      if (response.status !== 201 || !json.file) throw new Error(`upload answered ${response.status}`);
      return json.file.id;
    };
    console.log(
      `Stored files on the ${onWorker ? 'Worker (dev:worker, local R2 bucket)' : 'Node host (FILES_DIR on disk)'}, loopback`,
    );
    await upload(MB); // warm-up
    if (!onWorker && host.child.pid) {
      const pid = host.child.pid;
      const before = rssOf(pid);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 10);
      await upload(25 * MB);
      clearInterval(sampler);
      peak = Math.max(peak, rssOf(pid));
      console.log(
        `  memory during a 25 MB upload: RSS ${(before / MB).toFixed(1)} MB -> peak ${(peak / MB).toFixed(1)} MB (growth ${((peak - before) / MB).toFixed(1)} MB; bound 32 MB)`,
      );
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
    // `--rounds N`: the parallel case N times over the same client (its keep-alive pool carried from round to round).
    const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 1;
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => upload(MB)));
      const seconds = (performance.now() - started) / 1000;
      const failures = new Map<string, number>();
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') {
          const chain = causeChain(outcome.reason);
          failures.set(chain, (failures.get(chain) ?? 0) + 1);
        }
      const failed = outcomes.length - outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      console.log(
        `  100 parallel 1 MB uploads: ${failed} errors, ${seconds.toFixed(2)} s, ${(100 / seconds).toFixed(1)} MB/s${[...failures].map(([chain, count]) => `\n    ${count} x ${chain}`).join('')}`,
      );
    }
  } finally {
    if (onWorker && host.child.pid) process.kill(-host.child.pid, 'SIGTERM');
    else host.child.kill('SIGTERM');
    await new Promise((resolve) => host.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
