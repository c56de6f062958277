// `npm run dev:worker`: migrates (and seeds) the local database, serves it over Hrana HTTP, runs `wrangler dev` on it
// (`--workerd`: serves the deployable bundle by workerd through Miniflare instead, without wrangler dev's proxy).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { noTokenCache } from '../src/auth/token-cache.ts';
import { createTokenService } from '../src/auth/tokens.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { type DemoAccount, isEmptyDatabase, seedDemo } from '../src/demo/seed.ts';
import { prepareNodeSecrets } from '../src/secrets/node-key.ts';
import { type HranaServer, startHranaServer } from './dev/hrana-server.ts';
import { serveWorkerdDirect } from './dev/workerd-direct.ts';

const STOP_GRACE_MS = 5_000;
const log = (line: string) => console.log(`[dev:worker] ${line}`);

/** Migrates and seeds as `npm start` does, and finds the secrets keys as it does (SECRETS_KEY, else the key file). */
async function prepareDatabase(config: Config): Promise<{ demo: DemoAccount | null; keys: string[] }> {
  const database = await openNodeDatabase(config.databaseUrl, config.databaseAuthToken);
  try {
    await migrateDatabase(database);
    const { config: keyed } = await prepareNodeSecrets(config, database, log);
    const keys = keyed.secretsKey === undefined ? [] : [keyed.secretsKey, ...keyed.secretsKeysPrevious];
    if (!config.seedDemo || !(await isEmptyDatabase(database.db))) return { demo: null, keys };
    const now = () => new Date();
    // Same demo data as `npm start` on an empty database.
    const tokens = createTokenService({ db: database.db, cache: noTokenCache, cacheTtlSeconds: 0, now });
    return { demo: await seedDemo(database.db, tokens, now), keys };
  } finally {
    database.client.close();
  }
}

/** A `LIBSQL_AUTH_TOKEN` the user passes on to wrangler (`npm run dev:worker -- --var LIBSQL_AUTH_TOKEN:...`). */
function tokenInWranglerArgs(args: string[]): string | undefined {
  let token: string | undefined;
  for (const arg of args) {
    const match = /^(?:--var=)?LIBSQL_AUTH_TOKEN:(.+)$/.exec(arg);
    if (match?.[1]) token = match[1];
  }
  return token;
}

function wranglerBin(): string {
  return createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
}

function printBanner(
  workerUrl: string,
  databaseUrl: string,
  libsqlUrl: string,
  demo: DemoAccount | null,
  devServer: boolean,
): void {
  log(
    `database ${databaseUrl} served over Hrana HTTP at ${libsqlUrl} (development only: use Turso or sqld in production)`,
  );
  if (devServer) {
    log(
      '  behind a bearer token (LIBSQL_DEV_AUTH_TOKEN, else a random one for this session), given to the Worker as LIBSQL_AUTH_TOKEN',
    );
  }
  log(`Worker starting on ${workerUrl}  (MCP endpoint: ${workerUrl}/api/mcp/v1)`);
  if (demo) {
    log('Demo data seeded (SEED_DEMO=false skips this). This token is shown once:');
    log(`  ${demo.token}`);
    log(`  Web sign-in: ${demo.email} / ${demo.password}`);
    log(
      `  curl -s -X POST ${workerUrl}/api/mcp/tools/listOrganizations -H "Authorization: Bearer ${demo.token}"`,
    );
  } else {
    log('Get a token with: npx compliance-mcp token create --email YOU@EXAMPLE.COM --name "Claude Desktop"');
  }
}

async function main(): Promise<number> {
  const config = loadConfig(process.env);
  const port = process.env.PORT ? config.port : 8787;
  const embedded = config.databaseUrl.startsWith('file:');
  const { demo, keys } = await prepareDatabase(config);

  const direct = process.argv.includes('--workerd');
  const extraArgs = process.argv.slice(2).filter((arg) => arg !== '--workerd');
  // A file database is served by the dev server; a remote one (sqld, Turso) is used by the Worker directly.
  let hrana: HranaServer | null = null;
  let devAuthToken: string | undefined;
  const userArgToken = embedded ? tokenInWranglerArgs(extraArgs) : undefined;
  if (embedded) {
    // Always behind a token, so no other local program or page gets in without it: the user's own
    // (--var LIBSQL_AUTH_TOKEN:... for wrangler, or LIBSQL_DEV_AUTH_TOKEN), else a random one for this session.
    devAuthToken = userArgToken || process.env.LIBSQL_DEV_AUTH_TOKEN || randomBytes(32).toString('base64url');
    hrana = await startHranaServer({
      databaseUrl: config.databaseUrl,
      host: '127.0.0.1',
      port: 0,
      authToken: devAuthToken,
    });
  }
  const libsqlUrl = hrana?.url ?? config.databaseUrl;

  const workerUrl = `http://127.0.0.1:${port}`;
  printBanner(workerUrl, config.databaseUrl, libsqlUrl, demo, hrana !== null);

  const vars = [`LIBSQL_URL:${libsqlUrl}`, 'LOOPBACK_ONLY:true'];
  // Tokens go in as variables for this session only (never written to disk): the dev server's (unless the user's
  // own --var, passed on below, already carries it), or a remote database's.
  if (devAuthToken !== undefined && userArgToken === undefined)
    vars.push(`LIBSQL_AUTH_TOKEN:${devAuthToken}`);
  if (!embedded && config.databaseAuthToken) vars.push(`LIBSQL_AUTH_TOKEN:${config.databaseAuthToken}`);
  // The keys `npm start` uses on this database (its key file, or SECRETS_KEY), as Worker secrets for this session.
  const [secretsKey, ...previousKeys] = keys;
  if (secretsKey !== undefined && !extraArgs.some((arg) => /^(?:--var=)?SECRETS_KEY:/.test(arg))) {
    vars.push(`SECRETS_KEY:${secretsKey}`);
    if (previousKeys.length > 0) vars.push(`SECRETS_KEY_PREVIOUS:${previousKeys.join(',')}`);
  }
  const varArgs = vars.flatMap((pair) => ['--var', pair]);
  if (direct) return serveDirect(port, [...varArgs, ...extraArgs], hrana);

  const args = [wranglerBin(), 'dev', '--port', String(port), '--ip', '127.0.0.1', ...varArgs, ...extraArgs];
  const wrangler: ChildProcess = spawn(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });

  let stopping = false;
  const exited = new Promise<number>((resolve) => {
    wrangler.once('exit', (code, signal) => resolve(code ?? (signal ? 0 : 1)));
    wrangler.once('error', (error) => {
      console.error(`[dev:worker] could not start wrangler: ${error.message}`);
      resolve(1);
    });
  });

  function stop(signal: NodeJS.Signals): void {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping wrangler and the database server`);
    // Ctrl-C in a terminal already reached wrangler (same process group); SIGTERM from a supervisor did not.
    if (wrangler.exitCode === null) wrangler.kill(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM');
    setTimeout(() => {
      if (wrangler.exitCode === null) wrangler.kill('SIGKILL');
    }, STOP_GRACE_MS).unref();
  }
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  const code = await exited;
  await hrana?.close();
  log('stopped');
  return stopping ? 0 : code;
}

/** `--workerd`: the bundle served by workerd through Miniflare until SIGINT or SIGTERM. */
async function serveDirect(port: number, args: string[], hrana: HranaServer | null): Promise<number> {
  const worker = await serveWorkerdDirect(wranglerBin(), port, args).catch(async (error: unknown) => {
    await hrana?.close();
    throw error;
  });
  log(`Ready on ${worker.url} (workerd through Miniflare, no wrangler dev proxy)`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  log(`${signal}: stopping workerd and the database server`);
  await worker.dispose();
  await hrana?.close();
  log('stopped');
  return 0;
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(`[dev:worker] ${error instanceof Error ? error.message : String(error)}`);
  return 1;
});
