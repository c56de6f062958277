// Dev/test Hrana-over-HTTP v2 (JSON) server over an embedded libSQL file, for clients that can only speak HTTP.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { serve } from '@hono/node-server';
import {
  type Client,
  createClient,
  type InArgs,
  type InValue,
  LibsqlError,
  type ResultSet,
  type Transaction,
  type TransactionMode,
  type Value,
} from '@libsql/client';

export interface HranaHandlerOptions {
  /** Embedded database, e.g. `file:./data/compliance.db`. */
  databaseUrl: string;
  /** When set, pipelines need `Authorization: Bearer <token>`. */
  authToken?: string;
  /** A stream left open this long without a request is closed and its transaction rolled back. */
  streamIdleMs?: number;
}

export interface HranaHandler {
  fetch(req: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface HranaServerOptions {
  databaseUrl: string;
  host?: string;
  port?: number;
  authToken?: string;
}

export interface HranaServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DEFAULT_STREAM_IDLE_MS = 10_000;
const KEEP_ALIVE_TIMEOUT_MS = 300_000;
// Connections of closed streams kept for the next streams: opening one costs about 2 ms of this single thread, ~7x a
// typical statement, and `@libsql/client/web` opens a stream for every statement outside a batch.
const MAX_IDLE_CONNECTIONS = 32;
/** Statements that leave state on the connection itself, beyond the database file. */
const CONNECTION_STATE = /^(?:ATTACH|DETACH|CREATE\s+TEMP(?:ORARY)?\b)/i;
// Short because the wait blocks the event loop, where the stream holding the lock may be the one that must run.
const BUSY_TIMEOUT_MS = 20;
// Longer lock waits happen as async retries, so other streams keep running meanwhile.
const BUSY_RETRY_DEADLINE_MS = 5_000;
const MIN_INTEGER = -9223372036854775808n;
const MAX_INTEGER = 9223372036854775807n;

// ---------------------------------------------------------------------------------------------------------
// Protocol shapes (hrana-client's lib-esm/http/json_encode.js and shared/json_*.js)

type HranaValue = null | bigint | number | string | Uint8Array;

interface StmtRequest {
  sql: string | undefined;
  sqlId: number | undefined;
  args: HranaValue[];
  namedArgs: Array<{ name: string; value: HranaValue }>;
  wantRows: boolean;
}

type BatchCond =
  | { type: 'ok' | 'error'; step: number }
  | { type: 'not'; cond: BatchCond }
  | { type: 'and' | 'or'; conds: BatchCond[] }
  | { type: 'is_autocommit' };

interface BatchStep {
  condition: BatchCond | undefined;
  stmt: StmtRequest;
}

type StreamRequest =
  | { type: 'close' }
  | { type: 'execute'; stmt: StmtRequest }
  | { type: 'batch'; steps: BatchStep[] }
  | { type: 'sequence' | 'describe'; sql: string | undefined; sqlId: number | undefined }
  | { type: 'store_sql'; sqlId: number; sql: string }
  | { type: 'close_sql'; sqlId: number }
  | { type: 'get_autocommit' };

interface PipelineRequest {
  baton: string | null;
  requests: StreamRequest[];
}

type JsonValue =
  | { type: 'null' }
  | { type: 'integer'; value: string }
  | { type: 'float'; value: number }
  | { type: 'text'; value: string }
  | { type: 'blob'; base64: string };

interface JsonStmtResult {
  cols: Array<{ name: string; decltype: string | null }>;
  rows: JsonValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}

interface JsonError {
  message: string;
  code?: string;
}

type StreamResponse =
  | { type: 'close' | 'sequence' | 'store_sql' | 'close_sql' }
  | { type: 'execute'; result: JsonStmtResult }
  | {
      type: 'batch';
      result: { step_results: Array<JsonStmtResult | null>; step_errors: Array<JsonError | null> };
    }
  | { type: 'get_autocommit'; is_autocommit: boolean };

type StreamResult = { type: 'ok'; response: StreamResponse } | { type: 'error'; error: JsonError };

/** The whole pipeline body is invalid: answered with HTTP 400. */
class ProtocolError extends Error {}

/** One request failed for a reason other than SQLite: answered as that request's error result. */
class RequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Parsing the request body

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new ProtocolError(`${what} must be an object`);
  return value;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new ProtocolError(`${what} must be an array`);
  return value;
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ProtocolError(`${what} must be a string`);
  return value;
}

function requiredString(value: unknown, what: string): string {
  const text = optionalString(value, what);
  if (text === undefined) throw new ProtocolError(`${what} is required`);
  return text;
}

function optionalSqlId(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) {
    throw new ProtocolError(`${what} must be a 32-bit integer`);
  }
  return value;
}

function requiredSqlId(value: unknown, what: string): number {
  const id = optionalSqlId(value, what);
  if (id === undefined) throw new ProtocolError(`${what} is required`);
  return id;
}

function parseValue(input: unknown, what: string): HranaValue {
  const value = record(input, what);
  switch (value.type) {
    case 'null':
      return null;
    case 'integer': {
      const raw = value.value;
      const text = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
      if (typeof text === 'string' && /^-?\d{1,20}$/.test(text)) {
        const integer = BigInt(text);
        if (integer >= MIN_INTEGER && integer <= MAX_INTEGER) return integer;
      }
      throw new ProtocolError(`${what} is not a 64-bit integer`);
    }
    case 'float':
      if (typeof value.value !== 'number') throw new ProtocolError(`${what} must hold a number`);
      return value.value;
    case 'text':
      if (typeof value.value !== 'string') throw new ProtocolError(`${what} must hold a string`);
      return value.value;
    case 'blob': {
      const base64 = value.base64 ?? '';
      if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(base64)) {
        throw new ProtocolError(`${what} must hold base64 data`);
      }
      return Buffer.from(base64, 'base64');
    }
    default:
      throw new ProtocolError(`${what} has an unknown type`);
  }
}

function parseStmt(input: unknown, what: string): StmtRequest {
  const stmt = record(input, what);
  const sql = optionalString(stmt.sql, `${what}.sql`);
  const sqlId = optionalSqlId(stmt.sql_id, `${what}.sql_id`);
  if ((sql === undefined) === (sqlId === undefined)) {
    throw new ProtocolError(`${what} needs exactly one of sql and sql_id`);
  }
  const args = stmt.args === undefined ? [] : array(stmt.args, `${what}.args`);
  const namedArgs = stmt.named_args === undefined ? [] : array(stmt.named_args, `${what}.named_args`);
  if (stmt.want_rows !== undefined && typeof stmt.want_rows !== 'boolean') {
    throw new ProtocolError(`${what}.want_rows must be a boolean`);
  }
  return {
    sql,
    sqlId,
    args: args.map((arg, i) => parseValue(arg, `${what}.args[${i}]`)),
    namedArgs: namedArgs.map((input, i) => {
      const arg = record(input, `${what}.named_args[${i}]`);
      return {
        name: requiredString(arg.name, `${what}.named_args[${i}].name`),
        value: parseValue(arg.value, `${what}.named_args[${i}].value`),
      };
    }),
    wantRows: stmt.want_rows ?? true,
  };
}

function parseCond(input: unknown, stepIndex: number, what: string): BatchCond {
  const cond = record(input, what);
  switch (cond.type) {
    case 'ok':
    case 'error': {
      const step = cond.step;
      // A condition can only look back: later steps have no outcome yet.
      if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step >= stepIndex) {
        throw new ProtocolError(`${what}.step must refer to an earlier step`);
      }
      return { type: cond.type, step };
    }
    case 'not':
      return { type: 'not', cond: parseCond(cond.cond, stepIndex, `${what}.cond`) };
    case 'and':
    case 'or':
      return {
        type: cond.type,
        conds: array(cond.conds, `${what}.conds`).map((c, i) =>
          parseCond(c, stepIndex, `${what}.conds[${i}]`),
        ),
      };
    case 'is_autocommit':
      return { type: 'is_autocommit' };
    default:
      throw new ProtocolError(`${what} has an unknown type`);
  }
}

function parseRequest(input: unknown, what: string): StreamRequest {
  const req = record(input, what);
  switch (req.type) {
    case 'close':
    case 'get_autocommit':
      return { type: req.type };
    case 'execute':
      return { type: 'execute', stmt: parseStmt(req.stmt, `${what}.stmt`) };
    case 'batch': {
      const batch = record(req.batch, `${what}.batch`);
      const steps = array(batch.steps, `${what}.batch.steps`).map((input, i) => {
        const step = record(input, `${what}.batch.steps[${i}]`);
        return {
          condition:
            step.condition === undefined || step.condition === null
              ? undefined
              : parseCond(step.condition, i, `${what}.batch.steps[${i}].condition`),
          stmt: parseStmt(step.stmt, `${what}.batch.steps[${i}].stmt`),
        };
      });
      return { type: 'batch', steps };
    }
    case 'sequence':
    case 'describe': {
      const sql = optionalString(req.sql, `${what}.sql`);
      const sqlId = optionalSqlId(req.sql_id, `${what}.sql_id`);
      if ((sql === undefined) === (sqlId === undefined)) {
        throw new ProtocolError(`${what} needs exactly one of sql and sql_id`);
      }
      return { type: req.type, sql, sqlId };
    }
    case 'store_sql':
      return {
        type: 'store_sql',
        sqlId: requiredSqlId(req.sql_id, `${what}.sql_id`),
        sql: requiredString(req.sql, `${what}.sql`),
      };
    case 'close_sql':
      return { type: 'close_sql', sqlId: requiredSqlId(req.sql_id, `${what}.sql_id`) };
    default:
      throw new ProtocolError(`${what} has an unknown type`);
  }
}

function parsePipeline(input: unknown): PipelineRequest {
  const body = record(input, 'pipeline body');
  const baton = optionalString(body.baton, 'baton') ?? null;
  const requests = array(body.requests, 'requests').map((req, i) => parseRequest(req, `requests[${i}]`));
  return { baton, requests };
}

// ---------------------------------------------------------------------------------------------------------
// SQL helpers

type TxControl = { kind: 'begin'; mode: TransactionMode } | { kind: 'savepoint' } | { kind: 'other' };

function stripLeadingTrivia(sql: string): string {
  let rest = sql;
  for (;;) {
    rest = rest.trimStart();
    if (rest.startsWith('--')) {
      const newline = rest.indexOf('\n');
      rest = newline === -1 ? '' : rest.slice(newline + 1);
    } else if (rest.startsWith('/*')) {
      const end = rest.indexOf('*/', 2);
      rest = end === -1 ? '' : rest.slice(end + 2);
    } else {
      return rest;
    }
  }
}

/** BEGIN must become a held transaction: the embedded client rolls back whatever a plain execute leaves open. */
function classifyTxControl(sql: string): TxControl {
  const head = stripLeadingTrivia(sql).replace(/[\s;]+$/, '');
  if (/^BEGIN\b/i.test(head)) {
    const match =
      /^BEGIN(?:\s+(DEFERRED|IMMEDIATE|EXCLUSIVE|READONLY))?(?:\s+TRANSACTION)?(?:\s+(READONLY))?$/i.exec(
        head,
      );
    if (!match) throw new RequestError(`This dev server does not understand "${head}"`, 'NOT_SUPPORTED');
    const word = (match[1] ?? match[2] ?? 'DEFERRED').toUpperCase();
    // In WAL mode EXCLUSIVE behaves like IMMEDIATE, which is the closest mode the client offers.
    const mode: TransactionMode =
      word === 'IMMEDIATE' || word === 'EXCLUSIVE' ? 'write' : word === 'READONLY' ? 'read' : 'deferred';
    return { kind: 'begin', mode };
  }
  if (/^SAVEPOINT\b/i.test(head)) return { kind: 'savepoint' };
  return { kind: 'other' };
}

/** libsql panics (aborting the process) when named arguments meet a bare `?`, so such statements are refused. */
function hasAnonymousParam(sql: string): boolean {
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const end = sql.indexOf(ch === '[' ? ']' : ch, i + 1);
      if (end === -1) return false;
      i = end;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      if (end === -1) return false;
      i = end;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return false;
      i = end + 1;
    } else if (ch === '?' && !/[0-9]/.test(sql[i + 1] ?? '')) {
      return true;
    }
  }
  return false;
}

function toInArgs(sql: string, stmt: StmtRequest): InArgs {
  if (stmt.namedArgs.length === 0) return stmt.args;
  if (stmt.args.length > 0) {
    throw new RequestError(
      'Mixing positional and named arguments is not supported by this dev server',
      'ARGS_INVALID',
    );
  }
  if (hasAnonymousParam(sql)) {
    throw new RequestError(
      'Named arguments cannot be bound to a statement with a bare ? parameter',
      'ARGS_INVALID',
    );
  }
  const named: Record<string, InValue> = {};
  for (const { name, value } of stmt.namedArgs) named[name] = value;
  return named;
}

function encodeValue(value: Value | undefined): JsonValue {
  if (value === null || value === undefined) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  return { type: 'blob', base64: Buffer.from(value).toString('base64') };
}

function encodeResult(
  rs: ResultSet,
  wantRows: boolean,
  affected: number,
  rowid: bigint | undefined,
): JsonStmtResult {
  return {
    cols: rs.columns.map((name, i) => ({ name, decltype: rs.columnTypes[i] || null })),
    rows: wantRows
      ? rs.rows.map((row) => Array.from({ length: row.length }, (_, i) => encodeValue(row[i])))
      : [],
    affected_row_count: affected,
    last_insert_rowid: rowid === undefined ? null : rowid.toString(),
  };
}

const EMPTY_RESULT: JsonStmtResult = { cols: [], rows: [], affected_row_count: 0, last_insert_rowid: null };

function toJsonError(error: unknown): JsonError {
  if (error instanceof RequestError) return { message: error.message, code: error.code };
  if (error instanceof LibsqlError) return { message: error.message, code: error.code };
  if (error instanceof Error) return { message: error.message };
  return { message: String(error) };
}

function isBusy(error: unknown): boolean {
  return error instanceof LibsqlError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

// ---------------------------------------------------------------------------------------------------------
// Browser guards: a web page the developer visits must not reach the database through this server

// `localhost`, 127.0.0.0/8 or [::1], with any port. A DNS-rebinding page is served under its own name, never these.
const LOOPBACK_HOST = /^(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\])(?::\d{1,5})?$/i;

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

/** `application/json`, with or without parameters: what `@libsql/client/web` sends (hrana-client http/stream.js). */
function isJsonContentType(value: string | null): boolean {
  return value?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * libSQL clients send neither an Origin header nor a non-loopback Host. Browsers send Origin on every cross-origin
 * request (a "simple" text/plain POST included, which gets no preflight), and a DNS-rebinding page's Host is the
 * attacker's name.
 */
function refuseBrowserRequest(req: Request): Response | undefined {
  if (req.headers.has('origin')) {
    return jsonResponse(403, {
      message: 'Requests with an Origin header (from web pages) are refused by the libsql dev server',
      code: 'FORBIDDEN',
    });
  }
  // Behind @hono/node-server the URL comes from the Host header, or from an absolute request target that the
  // Host header may contradict, so both must be loopback.
  const hostHeader = req.headers.get('host');
  if (!isLoopbackHost(new URL(req.url).host) || (hostHeader !== null && !isLoopbackHost(hostHeader))) {
    return jsonResponse(403, {
      message: 'The libsql dev server only answers requests for localhost, 127.0.0.0/8 or [::1]',
      code: 'FORBIDDEN',
    });
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Streams

interface Stream {
  /** Its own single-connection client, so no other stream's statements ever run inside its transaction. */
  client: Client | undefined;
  /** Set while the stream is inside a transaction; the handle below may be re-begun lazily after a BUSY retry. */
  txMode: TransactionMode | undefined;
  tx: Transaction | undefined;
  /** No statement has succeeded since BEGIN, so the transaction may be replayed on a new connection. */
  txFresh: boolean;
  /** libsql leaves a statement that hit SQLITE_BUSY un-reset (holding its snapshot), so the connection is replaced. */
  poisoned: boolean;
  sqls: Map<number, string>;
  /** PRAGMA assignments run outside transactions, replayed when a BUSY forces a new connection. */
  settings: string[];
  /** A script, ATTACH/DETACH or a TEMP object left state on the connection: it is not reused by other streams. */
  tainted: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  closed: boolean;
}

interface Executor {
  execute(stmt: { sql: string; args: InArgs }): Promise<ResultSet>;
  executeMultiple(sql: string): Promise<void>;
}

function assertEmbeddedUrl(databaseUrl: string): void {
  if (!databaseUrl.startsWith('file:')) {
    throw new Error(`The libsql dev server needs a file: database URL, got ${JSON.stringify(databaseUrl)}`);
  }
  if (/^file:(\/\/)?:memory:/.test(databaseUrl) || databaseUrl.includes('mode=memory')) {
    throw new Error('The libsql dev server needs a database file: every stream opens its own connection');
  }
}

interface InternalHandler extends HranaHandler {
  ready: Promise<void>;
}

function createInternalHandler(options: HranaHandlerOptions): InternalHandler {
  const { databaseUrl } = options;
  assertEmbeddedUrl(databaseUrl);
  const streamIdleMs = options.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS;
  const expectedAuth = options.authToken ? sha256(options.authToken) : undefined;
  const batons = new Map<string, Stream>();
  const streams = new Set<Stream>();
  /** Connections in autocommit with only the default settings, ready for the next stream. */
  const idle: Client[] = [];
  let closed = false;

  // Held for the server's lifetime so WAL is set once and the -wal file is not checkpointed away on every stream close.
  const keeper = createClient({ url: databaseUrl });
  const ready = (async () => {
    await keeper.execute('PRAGMA busy_timeout = 5000');
    await keeper.execute('PRAGMA journal_mode = WAL');
  })();
  // Surfaced by the first request or by startHranaServer; this only keeps it from being an unhandled rejection.
  ready.catch(() => undefined);

  async function openClient(settings: string[]): Promise<Client> {
    const client = createClient({ url: databaseUrl, intMode: 'bigint', concurrency: 1 });
    try {
      await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      for (const setting of settings) await client.execute(setting);
    } catch (error) {
      client.close();
      throw error;
    }
    return client;
  }

  function dropConnection(stream: Stream): void {
    const { tx, client } = stream;
    stream.tx = undefined;
    stream.client = undefined;
    stream.poisoned = false;
    try {
      tx?.close();
    } catch {
      // closing the client below rolls back whatever the transaction still holds
    }
    client?.close();
  }

  async function connection(stream: Stream): Promise<Client> {
    if (stream.poisoned && stream.txMode === undefined) dropConnection(stream);
    if (stream.client === undefined && stream.settings.length === 0) stream.client = idle.pop();
    stream.client ??= await openClient(stream.settings);
    return stream.client;
  }

  /** A closing stream's connection goes back to the idle list if nothing the stream did can leak into the next one. */
  function releaseConnection(stream: Stream): void {
    const reusable =
      stream.client !== undefined &&
      !stream.client.closed &&
      !stream.poisoned &&
      !stream.tainted &&
      stream.txMode === undefined &&
      stream.tx === undefined &&
      stream.settings.length === 0 &&
      !closed &&
      idle.length < MAX_IDLE_CONNECTIONS;
    if (reusable && stream.client) {
      idle.push(stream.client);
      stream.client = undefined;
    }
    dropConnection(stream);
  }

  async function transaction(stream: Stream): Promise<Transaction> {
    if (stream.txMode === undefined) throw new Error('transaction() outside a transaction');
    stream.tx ??= await (await connection(stream)).transaction(stream.txMode);
    return stream.tx;
  }

  /** Called after every statement in a transaction: COMMIT, ROLLBACK or a failure may have ended it. */
  function settleTransaction(stream: Stream): void {
    if (stream.tx?.closed) {
      stream.tx.close();
      stream.tx = undefined;
      stream.txMode = undefined;
      stream.txFresh = false;
    }
  }

  async function withBusyRetry<T>(
    stream: Stream,
    attempt: () => Promise<T>,
    retryable: () => boolean,
  ): Promise<T> {
    const deadline = Date.now() + BUSY_RETRY_DEADLINE_MS;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      try {
        return await attempt();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (!retryable()) {
          stream.poisoned = true;
          throw error;
        }
        // Nothing took effect yet, so a new connection (re-beginning a fresh transaction) is equivalent.
        dropConnection(stream);
        if (Date.now() + delay > deadline || closed || stream.closed) throw error;
        await sleep(delay);
      }
    }
  }

  function resolveSql(stream: Stream, sql: string | undefined, sqlId: number | undefined): string {
    if (sql !== undefined) return sql;
    const stored = sqlId === undefined ? undefined : stream.sqls.get(sqlId);
    if (stored === undefined)
      throw new RequestError(`No SQL text stored under id ${String(sqlId)}`, 'SQL_NOT_FOUND');
    return stored;
  }

  async function run(
    executor: Executor,
    sql: string,
    args: InArgs,
    wantRows: boolean,
  ): Promise<JsonStmtResult> {
    const rs = await executor.execute({ sql, args });
    let affected = rs.rowsAffected;
    let rowid = rs.lastInsertRowid;
    if (rs.columns.length > 0 && /\bRETURNING\b/i.test(sql)) {
      // The embedded client reports no counts for statements that return rows; the same connection still knows them.
      const info = await executor.execute({ sql: 'SELECT changes(), last_insert_rowid()', args: [] });
      const changes = info.rows[0]?.[0];
      const lastRowid = info.rows[0]?.[1];
      if (typeof changes === 'bigint') affected = Number(changes);
      if (typeof lastRowid === 'bigint') rowid = lastRowid;
    }
    return encodeResult(rs, wantRows, affected, rowid);
  }

  async function executeStmt(stream: Stream, stmt: StmtRequest): Promise<JsonStmtResult> {
    const sql = resolveSql(stream, stmt.sql, stmt.sqlId);
    const args = toInArgs(sql, stmt);
    const control = classifyTxControl(sql);
    if (CONNECTION_STATE.test(stripLeadingTrivia(sql))) stream.tainted = true;
    if (stream.txMode === undefined) {
      if (control.kind === 'begin') {
        stream.txMode = control.mode;
        stream.txFresh = true;
        try {
          await withBusyRetry(
            stream,
            () => transaction(stream),
            () => true,
          );
        } catch (error) {
          stream.txMode = undefined;
          throw error;
        }
        return EMPTY_RESULT;
      }
      if (control.kind === 'savepoint') {
        throw new RequestError(
          'SAVEPOINT outside a transaction is not supported by this dev server',
          'NOT_SUPPORTED',
        );
      }
      const result = await withBusyRetry(
        stream,
        async () => run(await connection(stream), sql, args, stmt.wantRows),
        () => true,
      );
      // Settings such as the `PRAGMA foreign_keys=off` that wraps drizzle migrations must survive a connection swap.
      if (/^PRAGMA\s+[\w.]+\s*=/i.test(stripLeadingTrivia(sql)) && stream.settings.length < 64) {
        stream.settings.push(sql);
      }
      return result;
    }
    try {
      const result = await withBusyRetry(
        stream,
        async () => run(await transaction(stream), sql, args, stmt.wantRows),
        () => stream.txFresh,
      );
      stream.txFresh = false;
      return result;
    } finally {
      settleTransaction(stream);
    }
  }

  async function executeSequence(stream: Stream, sql: string): Promise<void> {
    // libsql's exec() fails on an empty script instead of doing nothing.
    if (stripLeadingTrivia(sql).replace(/[\s;]+/g, '') === '') return;
    stream.tainted = true;
    // A script may have run partly before SQLITE_BUSY, so it is never replayed.
    if (stream.txMode === undefined) {
      // A transaction the script leaves open is rolled back when the embedded client takes the connection back.
      await withBusyRetry(
        stream,
        async () => (await connection(stream)).executeMultiple(sql),
        () => false,
      );
      return;
    }
    try {
      await withBusyRetry(
        stream,
        async () => (await transaction(stream)).executeMultiple(sql),
        () => false,
      );
      stream.txFresh = false;
    } finally {
      settleTransaction(stream);
    }
  }

  function evaluate(cond: BatchCond, outcomes: Array<'ok' | 'error' | 'skipped'>, stream: Stream): boolean {
    switch (cond.type) {
      case 'ok':
      case 'error':
        return outcomes[cond.step] === cond.type;
      case 'not':
        return !evaluate(cond.cond, outcomes, stream);
      case 'and':
        return cond.conds.every((c) => evaluate(c, outcomes, stream));
      case 'or':
        return cond.conds.some((c) => evaluate(c, outcomes, stream));
      case 'is_autocommit':
        return stream.txMode === undefined;
    }
  }

  async function executeBatch(stream: Stream, steps: BatchStep[]): Promise<StreamResponse> {
    const outcomes: Array<'ok' | 'error' | 'skipped'> = [];
    const stepResults: Array<JsonStmtResult | null> = [];
    const stepErrors: Array<JsonError | null> = [];
    for (const step of steps) {
      if (step.condition !== undefined && !evaluate(step.condition, outcomes, stream)) {
        outcomes.push('skipped');
        stepResults.push(null);
        stepErrors.push(null);
        continue;
      }
      try {
        stepResults.push(await executeStmt(stream, step.stmt));
        stepErrors.push(null);
        outcomes.push('ok');
      } catch (error) {
        stepResults.push(null);
        stepErrors.push(toJsonError(error));
        outcomes.push('error');
      }
    }
    return { type: 'batch', result: { step_results: stepResults, step_errors: stepErrors } };
  }

  function closeStream(stream: Stream): void {
    if (stream.closed) return;
    stream.closed = true;
    if (stream.timer !== undefined) clearTimeout(stream.timer);
    stream.timer = undefined;
    releaseConnection(stream);
    stream.txMode = undefined;
    stream.sqls.clear();
    stream.settings = [];
    streams.delete(stream);
  }

  async function handleRequest(stream: Stream, req: StreamRequest): Promise<StreamResult> {
    if (stream.closed)
      return { type: 'error', error: { message: 'The stream is closed', code: 'STREAM_CLOSED' } };
    try {
      switch (req.type) {
        case 'close':
          closeStream(stream);
          return { type: 'ok', response: { type: 'close' } };
        case 'execute':
          return { type: 'ok', response: { type: 'execute', result: await executeStmt(stream, req.stmt) } };
        case 'batch':
          return { type: 'ok', response: await executeBatch(stream, req.steps) };
        case 'sequence':
          await executeSequence(stream, resolveSql(stream, req.sql, req.sqlId));
          return { type: 'ok', response: { type: 'sequence' } };
        case 'describe':
          throw new RequestError('describe is not supported by this dev server', 'NOT_SUPPORTED');
        case 'store_sql':
          if (stream.sqls.has(req.sqlId)) {
            throw new RequestError(`SQL id ${req.sqlId} is already in use`, 'SQL_ID_IN_USE');
          }
          stream.sqls.set(req.sqlId, req.sql);
          return { type: 'ok', response: { type: 'store_sql' } };
        case 'close_sql':
          stream.sqls.delete(req.sqlId);
          return { type: 'ok', response: { type: 'close_sql' } };
        case 'get_autocommit':
          return {
            type: 'ok',
            response: { type: 'get_autocommit', is_autocommit: stream.txMode === undefined },
          };
      }
    } catch (error) {
      return { type: 'error', error: toJsonError(error) };
    }
  }

  function authorized(req: Request): boolean {
    if (expectedAuth === undefined) return true;
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.get('authorization') ?? '');
    return match?.[1] !== undefined && timingSafeEqual(sha256(match[1].trim()), expectedAuth);
  }

  async function handlePipeline(req: Request): Promise<Response> {
    // A form or a text/plain fetch from a page must never be parsed as a pipeline, whatever it carries.
    if (!isJsonContentType(req.headers.get('content-type'))) {
      return jsonResponse(415, {
        message: 'A pipeline must be sent as Content-Type: application/json',
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    }
    if (!authorized(req))
      return jsonResponse(401, { message: 'Missing or wrong bearer token', code: 'UNAUTHORIZED' });
    let pipeline: PipelineRequest;
    try {
      pipeline = parsePipeline(await req.json());
    } catch (error) {
      const message = error instanceof ProtocolError ? error.message : 'The body is not valid JSON';
      return jsonResponse(400, { message: `Malformed pipeline: ${message}`, code: 'PROTOCOL_ERROR' });
    }
    try {
      await ready;
    } catch (error) {
      return jsonResponse(500, {
        message: `The database could not be opened: ${toJsonError(error).message}`,
      });
    }

    let stream: Stream;
    if (pipeline.baton === null) {
      stream = {
        client: undefined,
        txMode: undefined,
        tx: undefined,
        txFresh: false,
        poisoned: false,
        sqls: new Map(),
        settings: [],
        tainted: false,
        timer: undefined,
        closed: false,
      };
      streams.add(stream);
    } else {
      const found = batons.get(pipeline.baton);
      if (found === undefined) {
        return jsonResponse(400, { message: 'Unknown or expired baton', code: 'STREAM_EXPIRED' });
      }
      // A baton is good for one pipeline, which keeps each stream's pipelines strictly in order.
      batons.delete(pipeline.baton);
      stream = found;
    }
    if (stream.timer !== undefined) clearTimeout(stream.timer);
    stream.timer = undefined;

    const results: StreamResult[] = [];
    for (const request of pipeline.requests) results.push(await handleRequest(stream, request));

    let baton: string | null = null;
    if (!stream.closed && !closed) {
      const next = randomBytes(18).toString('base64url');
      baton = next;
      batons.set(next, stream);
      const timer = setTimeout(() => {
        batons.delete(next);
        closeStream(stream);
      }, streamIdleMs);
      timer.unref();
      stream.timer = timer;
    } else {
      closeStream(stream);
    }
    return jsonResponse(200, { baton, base_url: null, results });
  }

  async function fetch(req: Request): Promise<Response> {
    const refused = refuseBrowserRequest(req);
    if (refused) return refused;
    if (closed) return jsonResponse(503, { message: 'The libsql dev server is shutting down' });
    const path = new URL(req.url).pathname.replace(/\/+$/, '');
    if (path === '/v2/pipeline') {
      if (req.method !== 'POST')
        return new Response('Method Not Allowed', { status: 405, headers: { allow: 'POST' } });
      try {
        return await handlePipeline(req);
      } catch (error) {
        return jsonResponse(500, { message: `Internal error: ${toJsonError(error).message}` });
      }
    }
    // Version probes: 200 for v2 and 404 for everything newer, so a probing client settles on v2 JSON.
    if (
      (path === '' || path === '/v2' || path === '/health') &&
      (req.method === 'GET' || req.method === 'HEAD')
    ) {
      return new Response(req.method === 'HEAD' ? null : 'libsql dev server (hrana v2 over HTTP)\n', {
        status: 200,
        headers: { 'content-type': 'text/plain' },
      });
    }
    return new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain' } });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const stream of [...streams]) closeStream(stream);
    for (const client of idle.splice(0)) client.close();
    batons.clear();
    await ready.catch(() => undefined);
    keeper.close();
  }

  return { fetch, close, ready };
}

/**
 * Web-standard handler, usable in process (e.g. as a custom `fetch` for the libSQL client) or behind any server.
 * It answers only requests without an Origin header, for a loopback host (so an in-process client's URL must be
 * e.g. `http://localhost`), and pipelines sent as `application/json`.
 */
export function createHranaHandler(options: HranaHandlerOptions): HranaHandler {
  const { fetch, close } = createInternalHandler(options);
  return { fetch, close };
}

/**
 * Listens on 127.0.0.1 by default: the server has no TLS and is meant for one developer's machine. On any other
 * address it still answers only requests for a loopback Host (e.g. through a forwarded port).
 */
export async function startHranaServer(options: HranaServerOptions): Promise<HranaServer> {
  const handler = createInternalHandler({
    databaseUrl: options.databaseUrl,
    ...(options.authToken ? { authToken: options.authToken } : {}),
  });
  try {
    await handler.ready;
  } catch (error) {
    await handler.close();
    throw error;
  }
  const host = options.host ?? '127.0.0.1';
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      // Global Request/Response stay untouched: tests run libSQL clients in the same process.
      const listening = serve(
        {
          fetch: (req) => handler.fetch(req),
          hostname: host,
          port: options.port ?? 0,
          overrideGlobalObjects: false,
        },
        () => resolve(listening),
      );
      listening.once('error', reject);
    });
  } catch (error) {
    await handler.close();
    throw error;
  }
  // Idle keep-alive connections stay open longer than clients keep them (Node's 5 s default): a client reusing one just
  // as the server closes it loses its request ("Network connection lost" in workerd), and a POST is not retried.
  // A stalled event loop fires many such timers at once, over connections with requests already waiting.
  if ('keepAliveTimeout' in server) server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The server has no TCP address');
  const port = address.port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      await handler.close();
      // Keep-alive sockets with a request still in flight would otherwise hold close() open.
      const force = setTimeout(() => {
        if ('closeAllConnections' in server) server.closeAllConnections();
      }, 1_000);
      force.unref();
      await stopped;
      clearTimeout(force);
    })();
    return closing;
  }

  return { url: `http://${urlHost}:${port}`, port, close };
}
