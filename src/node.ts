// Node host: embedded libSQL (migrated on start), in-process token cache, @hono/node-server, demo seed on first start.
import { serve } from '@hono/node-server';
import { createMemoryTokenCache } from './auth/token-cache.ts';
import { type Config, redactDatabaseUrl } from './config.ts';
import { optimizeDatabase } from './db/client.ts';
import { migrateDatabase, openNodeDatabase } from './db/open-node.ts';
import { type DemoAccount, isEmptyDatabase, seedDemo } from './demo.ts';
import { nodeClientMetadataFetcher } from './oauth/client-metadata-node.ts';
import { createRuntime, type Runtime } from './runtime.ts';
import { isLoopbackHost } from './surfaces/origin.ts';

const USAGE_FLUSH_MS = 1000;
/** `PRAGMA optimize` this often, so statistics follow registers that grow while the server runs. */
const OPTIMIZE_MS = 60 * 60 * 1000;

export interface RunningServer {
  url: string;
  runtime: Runtime;
  demo: DemoAccount | null;
  close(): Promise<void>;
}

export async function startNodeServer(
  config: Config,
  log: (line: string) => void = console.log,
): Promise<RunningServer> {
  const database = await openNodeDatabase(config.databaseUrl, config.databaseAuthToken);
  await migrateDatabase(database);
  const runtime = createRuntime({
    config,
    database,
    cache: createMemoryTokenCache(),
    loopbackOnly: isLoopbackHost(config.host),
    usageFlush: 'host',
    clientMetadataFetcher: nodeClientMetadataFetcher,
  });
  const demo =
    config.seedDemo && (await isEmptyDatabase(database.db))
      ? await seedDemo(database.db, runtime.tokens, () => new Date())
      : null;

  const server = serve({ fetch: runtime.app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  const flushTimer = setInterval(() => void runtime.usage.flush(), USAGE_FLUSH_MS);
  flushTimer.unref();
  const optimizeTimer = setInterval(() => {
    optimizeDatabase(database.client, false).catch((error: unknown) =>
      log(`PRAGMA optimize failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }, OPTIMIZE_MS);
  optimizeTimer.unref();

  log(`compliance-mcp ${config.version} listening on ${url}`);
  log(`  MCP endpoint (Streamable HTTP): ${url}/api/mcp/v1`);
  log(`  Direct calls:                   POST ${url}/api/mcp/tools/<tool>`);
  log(`  OpenAPI:                        ${url}/api/mcp/openapi.json`);
  log(`  Database:                       ${redactDatabaseUrl(config.databaseUrl)}`);
  if (demo) {
    log('');
    log('Demo data seeded (SEED_DEMO=false skips this). This token is shown once:');
    log(`  ${demo.token}`);
    log(`  Web sign-in: ${demo.email} / ${demo.password}`);
    log('Try it:');
    log(`  curl -s -X POST ${url}/api/mcp/tools/listOrganizations -H "Authorization: Bearer ${demo.token}"`);
  } else {
    log('');
    log('Get a token: sign in at the web interface (Settings > API Tokens), or run');
    log('  npx compliance-mcp token create --email YOU@EXAMPLE.COM --name "Claude Desktop"');
  }

  let closed = false;
  return {
    url,
    runtime,
    demo,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(flushTimer);
      clearInterval(optimizeTimer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open; the requests they carried are done.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await runtime.usage.flush();
      database.client.close();
    },
  };
}
