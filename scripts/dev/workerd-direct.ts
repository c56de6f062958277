// `npm run dev:worker -- --workerd`: the Worker's deployable bundle (`wrangler deploy --dry-run`) served by workerd
// through Miniflare directly, with wrangler.toml's bindings (local R2 and KV), and without the proxy Worker that
// `wrangler dev` puts in front of it. A deployed Worker has no such hop either.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The part of wrangler's Miniflare (4.x; the project's own `miniflare` package is another major) used here. */
interface MiniflareModule {
  Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> };
  Log: new (level: number) => unknown;
  LogLevel: { INFO: number };
}

export interface DirectWorker {
  url: string;
  dispose(): Promise<void>;
}

/** `--persist-to DIR` and `--var NAME:VALUE` as `wrangler dev` takes them; other arguments are refused. */
function parseArgs(args: string[]): { persistTo: string | undefined; vars: Record<string, string> } {
  let persistTo: string | undefined;
  const vars: Record<string, string> = {};
  for (let at = 0; at < args.length; at++) {
    const [flag = '', inline] = (args[at] as string).split(/=(.*)/s);
    const value = inline ?? args[++at];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--persist-to') persistTo = value;
    else if (flag === '--var' && value.includes(':')) {
      const colon = value.indexOf(':');
      vars[value.slice(0, colon)] = value.slice(colon + 1);
    } else throw new Error(`--workerd takes --persist-to DIR and --var NAME:VALUE, not ${args[at]}`);
  }
  return { persistTo, vars };
}

/** The Worker bundle `npm run build:worker` deploys, written to `outdir`. */
async function buildBundle(wranglerBin: string, outdir: string): Promise<void> {
  const build = spawn(process.execPath, [wranglerBin, 'deploy', '--dry-run', '--outdir', outdir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    build.once('exit', resolve);
    build.once('error', reject);
  });
  if (code !== 0) throw new Error(`wrangler deploy --dry-run exited with ${code}`);
}

/**
 * Builds the bundle and serves it on 127.0.0.1:`port` with wrangler.toml's bindings and the arguments' `--var`s
 * (the later of two wins). Miniflare is the one wrangler itself runs, so workerd is the same version as under
 * `wrangler dev`.
 */
export async function serveWorkerdDirect(
  wranglerBin: string,
  port: number,
  args: string[],
): Promise<DirectWorker> {
  const options = parseArgs(args);
  const { unstable_getMiniflareWorkerOptions } = await import('wrangler');
  const { Miniflare, Log, LogLevel } = (await import(
    pathToFileURL(createRequire(wranglerBin).resolve('miniflare')).href
  )) as MiniflareModule;
  const outdir = mkdtempSync(join(tmpdir(), 'cmcp-worker-bundle-'));
  try {
    await buildBundle(wranglerBin, outdir);
    const { workerOptions } = unstable_getMiniflareWorkerOptions('wrangler.toml');
    const miniflare = new Miniflare({
      r2Buckets: workerOptions.r2Buckets,
      kvNamespaces: workerOptions.kvNamespaces,
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      bindings: { ...workerOptions.bindings, ...options.vars },
      name: 'compliance-mcp',
      modules: true,
      scriptPath: join(outdir, 'worker.js'),
      modulesRoot: outdir,
      host: '127.0.0.1',
      port,
      // The request's `cf` object from Miniflare's built-in fallback, not fetched from the network.
      cf: false,
      // The Worker's console and workerd's warnings (an isolate's restart, a request cancelled), as wrangler dev shows.
      log: new Log(LogLevel.INFO),
      ...(options.persistTo ? { defaultPersistRoot: options.persistTo } : {}),
    });
    const url = await miniflare.ready.then(
      (ready) => ready.origin,
      async (error: unknown) => {
        await miniflare.dispose();
        throw error;
      },
    );
    return {
      url,
      async dispose() {
        await miniflare.dispose();
        rmSync(outdir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}
