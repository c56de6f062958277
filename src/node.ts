// Node host: embedded libSQL (migrated on start), in-process token cache, @hono/node-server, demo seed on first start.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { nodeSha256Hex } from './auth/node-hash.ts';
import { createMemoryTokenCache } from './auth/token-cache.ts';
import { type Config, redactDatabaseUrl } from './config.ts';
import { optimizeDatabase } from './db/client.ts';
import { migrateDatabase, openNodeDatabase } from './db/open-node.ts';
import { mergeSearchIndexes } from './db/search-maintenance.ts';
import { type DemoAccount, isEmptyDatabase, seedDemo } from './demo/seed.ts';
import { payloadTooLarge, toErrorBody } from './errors.ts';
import { nodeFileRuntime } from './files/node.ts';
import { fileTooLarge } from './files/receive.ts';
import { DEFAULT_FILE_MAX_BYTES } from './files/store.ts';
import { fileUpkeep } from './files/upkeep.ts';
import { isFileUploadPath, uploadBodyLimit } from './files/upload-limits.ts';
import { announcedTooLarge } from './http/body-limit.ts';
import { proxiedClientAddress, socketClientAddress } from './http/client-address.ts';
import { nodeRequestBodyPort } from './http/node-body.ts';
import { isLoopbackHost } from './http/origin.ts';
import { nodeMailer } from './notify/mailer-node.ts';
import { describeReport, notifyOnce } from './notify/schedule.ts';
import { nodeClientMetadataFetcher } from './oauth/client-metadata-node.ts';
import { purgeUnusedClients, UNUSED_CLIENT_DAYS } from './oauth/purge.ts';
import { createRuntime, type Runtime } from './runtime.ts';
import { prepareNodeSecrets } from './secrets/node-key.ts';
import { purgeExpiredIdempotencyKeys } from './surfaces/idempotency.ts';
import { isWebFileUpload } from './web/uploads.ts';
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
/**
 * A body announced up to this size and refused with `Connection: close` is still read and dropped, to its announced
 * end, before the connection is half-closed: a client that writes its whole body before reading the answer (Node's
 * `http` under axios and got, a raw socket) then finishes writing and reads the 413. Reading stops at the request's
 * own timeout, or after DRAIN_BEFORE_CLOSE_MS, whichever comes first. A body announced larger gets the lingering close
 * at once.
 */
const DRAIN_BEFORE_CLOSE_BYTES = 64 * 1024 * 1024;
const DRAIN_BEFORE_CLOSE_MS = 30_000;
/**
 * Lingering close (as nginx's): a connection closed while the client may still be sending is first half-closed (the
 * answer, then FIN) and what still arrives is read and dropped, for at most LINGER_MS, LINGER_IDLE_MS without a byte,
 * or LINGER_BYTES; then it is closed. Closing at once would make the kernel reset the connection on the unread bytes,
 * and a client still writing (Node's `http`, as axios and got use it) would get EPIPE instead of the answer.
 */
const LINGER_MS = 30_000;
const LINGER_IDLE_MS = 5_000;
const LINGER_BYTES = 256 * 1024 * 1024;
/**
 * An idle keep-alive connection is closed KEEP_ALIVE_TIMEOUT_MS + this after its last answer, while the answers
 * advertise KEEP_ALIVE_TIMEOUT_MS (`Keep-Alive: timeout=N`). A client stops reusing a connection at about the advertised
 * time (undici: a second before), but a busy client's timers run late: under 100 parallel uploads on 2 loaded cores,
 * connections idle for 6.3 s were reused with 5 s advertised. Closing at the advertised time, the server closed some of
 * them as the client began a request on them, and the client got EPIPE writing its body (bench: 1 to 30 of 100).
 */
export const KEEP_ALIVE_GRACE_MS = 5_000;

export type HttpLimits = Pick<
  Config,
  'maxBodyBytes' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
> &
  Partial<Pick<Config, 'fileMaxBytes'>>;

/** What Node answers to a request it could not parse, by its parser's error code (else 400). */
const CLIENT_ERROR_ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

const lingering = new WeakSet<Socket>();

/** Half-closes the socket and drops what still arrives, within LINGER_* bounds, before closing it. */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  let received = 0;
  const close = () => {
    clearTimeout(total);
    clearTimeout(idle);
    socket.destroy();
  };
  const total = setTimeout(close, LINGER_MS);
  total.unref();
  const idle = setTimeout(close, LINGER_IDLE_MS);
  idle.unref();
  const drop = (chunk: Buffer) => {
    received += chunk.length;
    if (received > LINGER_BYTES) close();
    else idle.refresh();
  };
  socket.once('end', close);
  socket.once('close', () => {
    clearTimeout(total);
    clearTimeout(idle);
  });
  socket.end();
  // Node's HTTP parser reads the socket's handle itself until a 'data' listener takes the socket back. If the request it
  // fed had paused the socket, the handle has stopped reading and only the parser's own 'resume' handler restarts it:
  // a listener added before that would never get a byte, and the client's next writes would meet a reset
  // (test/core/http-edge.test.ts, "a client that writes its whole body before reading").
  if (socket.isPaused()) socket.once('resume', () => socket.on('data', drop));
  else socket.on('data', drop);
  socket.resume();
}

/**
 * After an answer given before the body was read: reads and drops the rest of it (Node's parser reads it, nothing is
 * kept), for at most `bytes` or `ms`, then leaves the connection to the lingering close; with `close`, also once the
 * body has ended (the answer said `Connection: close`).
 */
function dropRest(req: IncomingMessage, bytes: number, ms: number, close: boolean): void {
  if (req.destroyed) return;
  if (req.complete) {
    if (close) lingeringClose(req.socket);
    return;
  }
  // The app stopped reading; whatever still listens would only buffer what nobody reads.
  req.removeAllListeners('data');
  let dropped = 0;
  // A client that keeps the rest of its body coming slowly or at length is not waited for.
  const timer = setTimeout(() => stop(), ms);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    req.removeAllListeners('data');
    lingeringClose(req.socket);
  };
  req.once('end', () => {
    clearTimeout(timer);
    if (close) lingeringClose(req.socket);
  });
  req.once('close', () => clearTimeout(timer));
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bytes) stop();
  });
  req.resume();
}

/**
 * The Node host's HTTP edge around the app: timeouts for slow or idle clients, and bodies over the limit refused on
 * their announced length before anything reads them, with a clean 413 (never a reset connection).
 */
export function createHttpServer(
  fetch: Parameters<typeof getRequestListener>[0],
  limits: HttpLimits,
): Server {
  // The edge, not the adapter, decides what happens to a body left unread (the adapter drops the socket after 500 ms).
  // Routes that stream a body read it through the env's port (src/http/request-body.ts), not the adapter's Request.
  const listener = getRequestListener(
    (request, env) =>
      fetch(request, Object.assign(env, nodeRequestBodyPort(env.incoming as IncomingMessage))),
    { autoCleanupIncoming: false },
  );
  const fileMaxBytes = limits.fileMaxBytes ?? DEFAULT_FILE_MAX_BYTES;
  const bodyTooLarge = JSON.stringify(toErrorBody(payloadTooLarge(limits.maxBodyBytes)));
  const fileTooLargeBody = JSON.stringify(toErrorBody(fileTooLarge(fileMaxBytes)));
  /** The largest body a request may send: an upload route's is a file's (src/routes/files.ts, src/web/uploads.ts). */
  const limitOf = (req: IncomingMessage) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    return isFileUploadPath(path) || isWebFileUpload(path)
      ? uploadBodyLimit(fileMaxBytes)
      : limits.maxBodyBytes;
  };

  /**
   * The 413 to a body announced over its limit, sent before any of it is read. Up to the drain allowance, the body is
   * dropped and the connection kept; up to DRAIN_BEFORE_CLOSE_BYTES, it is dropped and then the connection closed;
   * beyond that, or when the client waits for `100 Continue` (it will not send the body), the connection lingers and
   * closes.
   */
  function refuse(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void {
    const limit = limitOf(req);
    const announced = Number(req.headers['content-length']);
    const body = limit === limits.maxBodyBytes ? bodyTooLarge : fileTooLargeBody;
    const keep = !expectsContinue && announced <= limit + DRAIN_ALLOWANCE_BYTES;
    res.writeHead(413, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(keep ? {} : { connection: 'close' }),
    });
    // Kept: Node reads and drops the rest of the body (`_dump`), within the request timeout, then parses the
    // connection's next request. Closed: Node calls `destroySoon` once the answer is out.
    const socket = res.socket;
    if (!keep && socket) {
      const drain = !expectsContinue && announced <= DRAIN_BEFORE_CLOSE_BYTES;
      socket.destroySoon = drain
        ? () => dropRest(req, announced, Math.min(DRAIN_BEFORE_CLOSE_MS, limits.requestTimeoutMs), true)
        : () => lingeringClose(socket);
    }
    res.end(body);
  }

  const keepAliveHeader = `timeout=${Math.floor(limits.keepAliveTimeoutMs / 1000)}`;

  function tooLargeToRead(req: IncomingMessage): boolean {
    return (
      req.headers['transfer-encoding'] === undefined &&
      announcedTooLarge(req.headers['content-length'], limitOf(req))
    );
  }

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs + KEEP_ALIVE_GRACE_MS,
      // How often Node checks the two timeouts above (default 30 s, which would let a slow client stay 30 s longer).
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
    },
    (req, res) => {
      // Node would advertise the server's timeout, grace included; a header of our own replaces its one.
      res.setHeader('keep-alive', keepAliveHeader);
      if (tooLargeToRead(req)) {
        refuse(req, res, false);
        return;
      }
      // After an answer given before the body was read (e.g. a chunked body stopped at the limit): drop the rest.
      res.once('finish', () =>
        dropRest(
          req,
          limitOf(req) + DRAIN_ALLOWANCE_BYTES,
          Math.min(DRAIN_TIMEOUT_MS, limits.requestTimeoutMs),
          false,
        ),
      );
      void listener(req, res);
    },
  );
  // `Expect: 100-continue`: an oversized body is refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (tooLargeToRead(req)) {
      refuse(req, res, true);
      return;
    }
    res.writeContinue();
    server.emit('request', req, res);
  });
  // Node's own answers to a request it could not parse (as its default), but headers over its limit (16 KB by default)
  // get their 431 followed by a lingering close, as a 413 does, so a client still sending can read it.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable && socket.bytesWritten === 0) {
      const status = CLIENT_ERROR_ANSWERS[error.code ?? ''] ?? '400 Bad Request';
      socket.write(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      if (error.code === 'HPE_HEADER_OVERFLOW') {
        lingeringClose(socket);
        return;
      }
    }
    socket.destroy(error);
  });
  return server;
}

export interface RunningServer {
  url: string;
  runtime: Runtime;
  demo: DemoAccount | null;
  /** Resolves when the search index merge under way (at start, then hourly), if any, is done. */
  searchIndexesMerged(): Promise<void>;
  /** Runs the notification engine now (after any run under way) and resolves when it is done. */
  notificationsRun(): Promise<void>;
  close(): Promise<void>;
}

export async function startNodeServer(
  given: Config,
  log: (line: string) => void = console.log,
): Promise<RunningServer> {
  // The OAuth issuer and the resource tokens are bound to must not come from a Host header anyone can send.
  if (!given.publicUrl && !isLoopbackHost(given.host))
    throw new Error(
      `PUBLIC_URL is not set and HOST ${given.host} is not a loopback address: set PUBLIC_URL to the URL clients reach this server at (e.g. https://compliance.example.com), so the OAuth issuer and token audience never come from a request's Host header.`,
    );
  const database = await openNodeDatabase(given.databaseUrl, given.databaseAuthToken);
  let config: Config;
  try {
    await migrateDatabase(database);
    // SECRETS_KEY or the key file beside the database; refuses to start when stored secrets have no key here.
    const prepared = await prepareNodeSecrets(given, database, log);
    config = prepared.config;
    if (prepared.source.kind === 'none')
      log(
        'No SECRETS_KEY: webhook endpoints cannot be added until it is set (docs/security.md, "Secrets at rest").',
      );
  } catch (error) {
    database.client.close();
    throw error;
  }
  const runtime = createRuntime({
    config,
    database,
    cache: createMemoryTokenCache(),
    loopbackOnly: isLoopbackHost(config.host),
    usageFlush: 'host',
    clientMetadataFetcher: nodeClientMetadataFetcher,
    clientAddress: config.clientAddressHeader
      ? proxiedClientAddress(config.clientAddressHeader)
      : socketClientAddress,
    hashToken: nodeSha256Hex,
    // The kill -9 test of idempotent writes: the write is committed, its answer never sent nor stored.
    ...(config.testKillAfterKeyedCommit && {
      afterKeyedCommit: () => process.kill(process.pid, 'SIGKILL'),
    }),
    files: nodeFileRuntime(config),
    webhookSender: nodeWebhookSender,
    mailer: nodeMailer,
  });
  const empty = await isEmptyDatabase(database.db);
  const demo =
    config.seedDemo && empty
      ? await seedDemo(database.db, runtime.tokens, () => new Date(), runtime.files)
      : null;

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
  // Registered OAuth clients unused for 90 days are forgotten (src/oauth/purge.ts), and idempotency keys older than
  // 24 hours (src/surfaces/idempotency.ts), at start and then hourly.
  const purgeClients = () =>
    Promise.all([
      purgeUnusedClients(database.db, new Date()).then(
        (purged) => {
          if (purged.length > 0)
            log(`Forgot ${purged.length} OAuth client(s) unused for ${UNUSED_CLIENT_DAYS} days.`);
        },
        (error: unknown) =>
          log(
            `Purging unused OAuth clients failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      ),
      purgeExpiredIdempotencyKeys(database.db, new Date()).catch((error: unknown) =>
        log(
          `Purging expired idempotency keys failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      ),
    ]);
  void purgeClients();
  // Stored files: blobs a crash left without a row, and uploads nothing references (src/files/upkeep.ts).
  const fileUpkeepRun = () =>
    fileUpkeep(database.db, runtime.files.store, new Date()).then(
      ({ rowsDeleted, blobsDeleted }) => {
        if (rowsDeleted + blobsDeleted > 0)
          log(
            `Stored files upkeep: ${rowsDeleted} unreferenced file(s) and ${blobsDeleted} blob(s) without a row removed.`,
          );
      },
      (error: unknown) =>
        log(`Stored files upkeep failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  void fileUpkeepRun();
  const optimizeTimer = setInterval(() => {
    void purgeClients();
    void fileUpkeepRun();
    optimizeDatabase(database.client, false).catch((error: unknown) =>
      log(`PRAGMA optimize failed: ${error instanceof Error ? error.message : String(error)}`),
    );
    mergeIndexes();
  }, OPTIMIZE_MS);
  optimizeTimer.unref();
  // Notifications (src/notify/engine.ts) every NOTIFY_INTERVAL_SECONDS, one run at a time; close() waits for the run.
  let notifying: Promise<void> = Promise.resolve();
  const notify = () => {
    notifying = notifying
      .then(() => notifyOnce({ db: database.db, config, mailer: nodeMailer, now: new Date(), log }))
      .then(
        (report) => {
          if (report.notifications_created > 0 || report.emails_failed > 0 || report.webhook_events > 0)
            log(describeReport(report));
        },
        (error: unknown) =>
          log(`Notifications failed: ${error instanceof Error ? error.message : String(error)}`),
      );
  };
  const notifyTimer = setInterval(() => {
    if (!closed) notify();
  }, config.notifyIntervalMs);
  notifyTimer.unref();

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
    if (config.signUp === 'closed') log('No account yet, and sign-up is closed (SIGNUP=closed): run');
    else {
      log(
        `No account yet: sign up at ${url}/signup (it creates your organization too), then make a token under`,
      );
      log('Settings > API Tokens; or run');
    }
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
    notificationsRun: () => {
      notify();
      return notifying;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(flushTimer);
      clearInterval(optimizeTimer);
      clearInterval(notifyTimer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections would hold close() open; the requests they carried are done.
        server.closeAllConnections();
      });
      await runtime.usage.flush();
      await runtime.webhooks.stop();
      await merging;
      await notifying;
      database.client.close();
    },
  };
}
