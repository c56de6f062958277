// Serves the local libSQL file over Hrana HTTP so a Worker under `wrangler dev` shares the database the CLI writes.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { startHranaServer } from './dev/hrana-server.ts';

const databaseUrl = process.env.DATABASE_URL || 'file:./data/compliance.db';
const host = process.env.LIBSQL_DEV_HOST || '127.0.0.1';
const portText = process.env.LIBSQL_DEV_PORT || '8080';
const authToken = process.env.LIBSQL_DEV_AUTH_TOKEN || undefined;

const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65535) {
  console.error(`LIBSQL_DEV_PORT must be a port number, got ${JSON.stringify(portText)}`);
  process.exit(2);
}

// SQLite creates the file but not its folder (./data on a fresh checkout).
if (databaseUrl.startsWith('file:')) {
  const path = databaseUrl
    .slice('file:'.length)
    .replace(/^\/\/(?=\/)/, '')
    .replace(/\?.*$/, '');
  if (path !== '' && !path.startsWith(':memory:')) mkdirSync(dirname(resolve(path)), { recursive: true });
}

let server: Awaited<ReturnType<typeof startHranaServer>>;
try {
  server = await startHranaServer({ databaseUrl, host, port, ...(authToken ? { authToken } : {}) });
} catch (error) {
  console.error(
    `libsql dev server failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
console.log(`libsql dev server on ${server.url} (${databaseUrl})`);
// Browsers are kept out whatever the token: requests with an Origin header, a non-loopback Host or a body other than
// application/json are refused.
console.log(
  authToken
    ? 'Clients need Authorization: Bearer $LIBSQL_DEV_AUTH_TOKEN (wrangler dev: --var LIBSQL_AUTH_TOKEN:...).'
    : 'No token required (LIBSQL_DEV_AUTH_TOKEN sets one): any program that reaches the port can use the database.',
);
if (!/^(?:localhost|127(?:\.\d{1,3}){3}|::1)$/i.test(host)) {
  console.warn(
    `Listening on ${host}, but only requests for localhost, 127.0.0.0/8 or [::1] are answered (DNS-rebinding guard).`,
  );
}

let stopping = false;
function stop(signal: NodeJS.Signals): void {
  // A second signal means the graceful stop is stuck; leave at once.
  if (stopping) process.exit(1);
  stopping = true;
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`libsql dev server did not stop cleanly after ${signal}:`, error);
      process.exit(1);
    },
  );
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
