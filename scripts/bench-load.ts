// Load generation shared by the benches: a host started as a child process, autocannon runs, the best of rounds.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

export interface Load {
  requestsPerSecond: number;
  meanMs: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  requests: number;
}

/** The median of some figures (NaN for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The better of two rounds (lower mean latency): on a shared machine the quieter round says more. */
export function bestLoad(current: Load | undefined, next: Load): Load {
  if (!current) return next;
  // A round in which no call completed has a mean of 0: it says nothing, and never beats one that measured.
  if (next.requests === 0) return current;
  if (current.requests === 0) return next;
  return next.meanMs < current.meanMs ? next : current;
}

export function formatLoad(load: Load): string {
  return `${load.requestsPerSecond.toFixed(0)} req/s, mean ${load.meanMs.toFixed(2)} ms, p99 ${load.p99Ms} ms, errors ${load.errors}, non-2xx ${load.non2xx}`;
}

/** The headers of a call: the bearer token, a JSON body, and the Accept an MCP client sends. */
export function callHeaders(token: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
}

/** POSTs `body` to `url` with the bearer token from `connections` connections for `seconds`. */
export async function postLoad(
  url: string,
  body: unknown,
  token: string,
  connections: number,
  seconds: number,
) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: callHeaders(token),
    body: JSON.stringify(body),
    connections,
    duration: seconds,
    timeout: 10,
  });
  return {
    requestsPerSecond: result.requests.average,
    meanMs: result.latency.average,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  } satisfies Load;
}

/** A TCP port free on 127.0.0.1 just now. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** A child process serving at `url`. */
export interface ChildHost {
  url: string;
  pid: number | undefined;
  /** Sends SIGTERM; resolves when the process has exited. */
  stop(): Promise<void>;
  cpuSeconds(): number;
  /** Everything it has printed so far, both streams. */
  output(): string;
}

/** Starts a child process and waits (at most 90 s) for a line matching `ready`; its first group is the URL. */
export async function startChildProcess(
  args: string[],
  ready: RegExp,
  children: ChildProcess[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChildHost> {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready after 90 s:\n${output.slice(-2000)}`)),
      90_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
  const exited = new Promise<void>((resolveExit) => {
    if (child.exitCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
  return {
    url,
    pid: child.pid,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    cpuSeconds: () => cpuSecondsOf(child.pid),
    output: () => output,
  };
}

/** User + system CPU time a process has used so far (Linux /proc; NaN elsewhere). */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    // Fields after the command name: state is 3rd, utime 14th and stime 15th, in clock ticks (100 per second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
