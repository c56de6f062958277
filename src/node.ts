// Node host: embedded libSQL (migrated on start), in-process token cache, @hono/node-server, demo seed on first start.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { nodeSha256Hex } from './auth/node-hash.ts';
import { createMemoryTokenCache } from './auth/token-cache.ts';
import { type Config, redactDatabaseUrl } from './config.ts';
import { optimizeDatabase } from './db/client.ts';
import { migrateDatabase, openNodeDatabase } from './db/open-node.ts';
import { mergeSearchIndexes } from './db/search-maintenance.ts';
import { type DemoAccount, isEmptyDatabase, seedDemo } from './demo/seed.ts';
import { payloadTooLarge, toErrorBody } from './errors.ts';
import { announcedTooLarge } from './http/body-limit.ts';
import { isLoopbackHost } from './http/origin.ts';
import { nodeClientMetadataFetcher } from './oauth/client-metadata-node.ts';
import { purgeUnusedClients, UNUSED_CLIENT_DAYS } from './oauth/purge.ts';
import { createRuntime, type Runtime } from './runtime.ts';
import { nodeWebhookSender } from './webhooks/send-node.ts';

const USAGE_FLUSH_MS = 1000;
/**
 * `PRAGMA optimize` this often, so statistics follow registers that grow while the server runs; an embedded file's
 * search indexes are merged as often (and once at start), so searches stay as fast (src/db/search-maintenance.ts).
 */
const OPTIMIZE_MS = 60 * 60 * 1000;
/**
 * Bytes beyond MAX_BODY_BYTES that the server still reads and drops after a 413, so the keep-alive connection can
 * carry the next request. A body announced larger than that is refused with `Connection: close` instead.
 */
const DRAIN_ALLOWANCE_BYTES = 1024 * 1024;
/** How long the rest of a body answered before it was read may take to arrive (the request's own timeout if shorter). */
const DRAIN_TIMEOUT_MS = 5_000;

export type HttpLimits = Pick<
  Config,
  'maxBodyBytes' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
>;

/**
 * The Node host's HTTP edge around the app: timeouts for slow or idle clients, and bodies over the limit refused on
 * their announced length before anything reads them, with a clean 413 (never a reset connection).
 */
export function createHttpServer(
  fetch: Parameters<typeof getRequestListener>[0],
  limits: HttpLimits,
): Server {
  // The edge, not the adapter, decides what happens to a body left unread (the adapter drops the socket after 500 ms).
  const listener = getRequestListener(fetch, { autoCleanupIncoming: false });
  const drainBytes = limits.maxBodyBytes + DRAIN_ALLOWANCE_BYTES;
  const tooLarge = JSON.stringify(toErrorBody(payloadTooLarge(limits.maxBodyBytes)));

  function refuse(res: ServerResponse, close: boolean): void {
    res.writeHead(413, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(tooLarge),
      ...(close ? { connection: 'close' } : {}),
    });
    // Without `Connection: close` Node reads and drops the rest of the body (at most drainBytes, within the request
    // timeout), then parses the connection's next request.
    res.end(tooLarge);
  }

  /** After an answer given before the body was read (e.g. a chunked body stopped at the limit): drop the rest. */
  function dropRest(req: IncomingMessage): void {
    if (req.complete || req.destroyed) return;
    // The app stopped reading; whatever still listens would only buffer what nobody reads.
    req.removeAllListeners('data');
    let dropped = 0;
    // The answer is out: a client that keeps the rest of its body coming slowly is not waited for.
    const timer = setTimeout(() => req.socket.destroy(), Math.min(DRAIN_TIMEOUT_MS, limits.requestTimeoutMs));
    timer.unref();
    req.once('end', () => clearTimeout(timer));
    req.once('close', () => clearTimeout(timer));
    req.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > drainBytes) req.socket.destroy();
    });
    req.resume();
  }

  function tooLargeToRead(req: IncomingMessage): boolean {
    return (
      req.headers['transfer-encoding'] === undefined &&
      announcedTooLarge(req.headers['content-length'], limits.maxBodyBytes)
    );
  }

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the two timeouts above (default 30 s, which would let a slow client stay 30 s longer).
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
    },
    (req, res) => {
      if (tooLargeToRead(req)) {
        refuse(res, Number(req.headers['content-length']) > drainBytes);
        return;
      }
      res.once('finish', () => dropRest(req));
      void listener(req, res);
    },
  );
  // `Expect: 100-continue`: an oversized body is refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (tooLargeToRead(req)) {
      refuse(res, true);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  return server;
}

export interface RunningServer {
  url: string;
  runtime: Runtime;
  demo: DemoAccount | null;
  /** Resolves when the search index merge under way (at start, then hourly), if any, is done. */
  searchIndexesMerged(): Promise<void>;
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
    hashToken: nodeSha256Hex,
    webhookSender: nodeWebhookSender,
  });
  const empty = await isEmptyDatabase(database.db);
  const demo =
    config.seedDemo && empty ? await seedDemo(database.db, runtime.tokens, () => new Date()) : null;

  const server = createHttpServer(runtime.app.fetch, config);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  const flushTimer = setInterval(() => void runtime.usage.flush(), USAGE_FLUSH_MS);
  flushTimer.unref();
  // Webhook deliveries: at start (what a stopped process left), on this timer, and right after each write.
  runtime.webhooks.start(config.webhookPollMs);
  let closed = false;
  // One merge at a time, in steps between requests; close() stops it after its current step and waits for it.
  let merging: Promise<void> = Promise.resolve();
  const mergeIndexes = () => {
    if (database.client.protocol !== 'file') return;
    merging = merging
      .then(() => mergeSearchIndexes(database.client, { stopped: () => closed }))
      .then(
        () => undefined,
        (error: unknown) =>
          log(`Merging search indexes failed: ${error instanceof Error ? error.message : String(error)}`),
      );
  };
  mergeIndexes();
  // Registered OAuth clients unused for 90 days are forgotten (src/oauth/purge.ts), at start and then hourly.
  const purgeClients = () =>
    purgeUnusedClients(database.db, new Date()).then(
      (purged) => {
        if (purged.length > 0)
          log(`Forgot ${purged.length} OAuth client(s) unused for ${UNUSED_CLIENT_DAYS} days.`);
      },
      (error: unknown) =>
        log(`Purging unused OAuth clients failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  void purgeClients();
  const optimizeTimer = setInterval(() => {
    void purgeClients();
    optimizeDatabase(database.client, false).catch((error: unknown) =>
      log(`PRAGMA optimize failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    mergeIndexes();
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
  } else if (empty) {
    log('');
    log(
      `No account yet: sign up at ${url}/signup (it creates your organization too), then make a token under`,
    );
    log('Settings > API Tokens; or run');
    log("  npx compliance-mcp user create --email YOU@EXAMPLE.COM --password 'a long password'");
    log('  npx compliance-mcp org create --name "Your company" --owner YOU@EXAMPLE.COM');
    log('  npx compliance-mcp token create --email YOU@EXAMPLE.COM --name "Claude Desktop"');
    log('(A later start without SEED_DEMO=false seeds the demo into an empty database.)');
  } else {
    log('');
    log('Get a token: sign in at the web interface (Settings > API Tokens), or run');
    log('  npx compliance-mcp token create --email YOU@EXAMPLE.COM --name "Claude Desktop"');
  }

  return {
    url,
    runtime,
    demo,
    searchIndexesMerged: () => merging,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(flushTimer);
      clearInterval(optimizeTimer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open; the requests they carried are done.
        server.closeAllConnections();
      });
      await runtime.usage.flush();
      await runtime.webhooks.stop();
      await merging;
      database.client.close();
    },
  };
}
