// The libSQL client of an embedded `file:` database on Node, answering execute and batch as @libsql/client's own
// (same connection pool, rows, errors and transactions) but with each statement prepared once per connection and
// reused, its columns read once, and its rows built by a constructor made once per statement: @libsql/client
// prepares the SQL again, asks for its columns twice and defines every value of every row as a property one by one,
// on every call. Everything else (transaction, migrate, executeMultiple, close) is @libsql/client's.
import {
  type Client,
  ConnectionPool,
  type InArgs,
  type InStatement,
  type InValue,
  LibsqlBatchError,
  LibsqlError,
  type ResultSet,
  type Row,
  Sqlite3Client,
  type TransactionMode,
} from '@libsql/client/sqlite3';

type Connection = Awaited<ReturnType<ConnectionPool['acquire']>>;
type Statement = ReturnType<Connection['prepare']>;

/** A statement prepared on one connection, with what executing it needs. */
interface Prepared {
  statement: Statement;
  /** Returns rows (SELECT, RETURNING, most PRAGMAs): run with all(), else with run(). */
  reader: boolean;
  columns: string[];
  columnTypes: string[];
  /** A row of the result from the values libsql returns. */
  row: (values: unknown[]) => Row;
  /**
   * Where the statement's `LIMIT ?` argument is (its last one), when its SQL ends with one; with a limit of 1 it is
   * read with get(): one native call, where all() builds a row iterator and a batch of 100 rows (about 5 us more).
   */
  limitArgument: 'none' | 'last' | 'one';
}

/** Statements kept per connection; past it, the oldest is dropped (finalized when collected). */
const MAX_STATEMENTS = 500;
/** Longer SQL (many-row inserts, generated batches) is rarely run twice: prepared each time, not kept. */
const MAX_CACHED_SQL_LENGTH = 4000;
/** A statement that may change the schema: the kept statements (and their columns) are dropped after it runs. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * `url` when this client serves it: a plain file path (`file:path`, `file:/abs`, `file:///abs`), without query,
 * fragment, percent-encoding or `:memory:`. Other `file:` URLs keep @libsql/client's own client.
 */
export function embeddedFilePath(url: string): string | null {
  const match = /^file:(?:\/\/(?=\/))?([^?#%]+)$/.exec(url);
  const path = match?.[1];
  return path && path !== ':memory:' ? path : null;
}

/** The client of the embedded database at `path`: one connection, `timeoutMs` busy timeout. */
export function createEmbeddedClient(path: string, timeoutMs: number): Client {
  const pool = new ConnectionPool(path, { timeout: timeoutMs }, 1);
  // Fail fast if the database cannot be opened, as createClient does.
  const db = pool.acquireSync();
  try {
    execute(db, { sql: 'SELECT 1 AS checkThatTheDatabaseCanBeOpened', args: [] });
  } catch (error) {
    pool.close();
    throw error;
  } finally {
    pool.release(db);
  }
  return new EmbeddedClient(pool);
}

class EmbeddedClient extends Sqlite3Client {
  readonly #pool: ConnectionPool;

  constructor(pool: ConnectionPool) {
    super(pool, 'number');
    this.#pool = pool;
  }

  async #acquire(): Promise<Connection> {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
    const db = await this.#pool.acquire();
    if (this.closed || !db.open) {
      this.#pool.release(db);
      throw new LibsqlError(
        this.closed ? 'The client is closed' : 'The connection was closed while this operation was in flight',
        'CLIENT_CLOSED',
      );
    }
    return db;
  }

  override async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    const db = await this.#acquire();
    try {
      return execute(db, stmt);
    } finally {
      this.#pool.release(db);
    }
  }

  override async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = 'deferred',
  ): Promise<ResultSet[]> {
    const db = await this.#acquire();
    try {
      execute(db, beginStatement(mode));
      const results: ResultSet[] = [];
      for (let index = 0; index < stmts.length; index++) {
        try {
          if (!db.inTransaction)
            throw new LibsqlBatchError('The transaction has been rolled back', index, 'TRANSACTION_CLOSED');
          const stmt = stmts[index] as InStatement | [string, InArgs?];
          results.push(execute(db, Array.isArray(stmt) ? { sql: stmt[0], args: stmt[1] ?? [] } : stmt));
        } catch (error) {
          if (error instanceof LibsqlBatchError || !(error instanceof LibsqlError)) throw error;
          throw new LibsqlBatchError(
            error.message,
            index,
            error.code,
            error.extendedCode,
            error.rawCode,
            error.cause instanceof Error ? error.cause : undefined,
          );
        }
      }
      execute(db, COMMIT);
      return results;
    } finally {
      // Rolls back whatever is still open before the connection is used again.
      this.#pool.release(db);
    }
  }

  override async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    try {
      return await super.migrate(stmts);
    } finally {
      forgetStatements();
    }
  }

  override async executeMultiple(sql: string): Promise<void> {
    try {
      await super.executeMultiple(sql);
    } finally {
      forgetStatements();
    }
  }

  override close(): void {
    super.close();
    forgetStatements();
  }
}

const COMMIT: InStatement = { sql: 'COMMIT', args: [] };

function beginStatement(mode: TransactionMode): InStatement {
  if (mode === 'write') return { sql: 'BEGIN IMMEDIATE', args: [] };
  if (mode === 'read') return { sql: 'BEGIN TRANSACTION READONLY', args: [] };
  if (mode === 'deferred') return { sql: 'BEGIN DEFERRED', args: [] };
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

/** Each connection's prepared statements by SQL text. */
let statements = new WeakMap<Connection, Map<string, Prepared>>();

function forgetStatements(): void {
  statements = new WeakMap();
}

function preparedOf(db: Connection, sql: string): Prepared {
  let kept = statements.get(db);
  const found = kept?.get(sql);
  if (found) return found;
  const prepared = prepare(db, sql);
  if (sql.length <= MAX_CACHED_SQL_LENGTH && !SCHEMA_CHANGE.test(sql)) {
    if (!kept) {
      kept = new Map();
      statements.set(db, kept);
    }
    if (kept.size >= MAX_STATEMENTS) {
      const oldest = kept.keys().next().value;
      if (oldest !== undefined) kept.delete(oldest);
    }
    kept.set(sql, prepared);
  }
  return prepared;
}

function prepare(db: Connection, sql: string): Prepared {
  const statement = db.prepare(sql);
  statement.safeIntegers(true);
  let reader = true;
  try {
    statement.raw(true);
  } catch {
    // raw() throws when the statement returns no data.
    reader = false;
  }
  const limitArgument = reader ? limitOf(sql) : 'none';
  const prepared: Prepared = {
    statement,
    reader,
    columns: [],
    columnTypes: [],
    row: () => ({}) as Row,
    limitArgument,
  };
  if (reader) describe(prepared);
  return prepared;
}

/** Reads the statement's columns and makes its row constructor. */
function describe(prepared: Prepared): void {
  const described = prepared.statement.columns();
  prepared.columns = described.map((column) => column.name);
  prepared.columnTypes = described.map((column) => column.type ?? '');
  prepared.row = rowMaker(prepared.columns);
}

function execute(db: Connection, stmt: InStatement): ResultSet {
  const sql = typeof stmt === 'string' ? stmt : stmt.sql;
  const args = typeof stmt === 'string' ? [] : bindArguments(stmt.args);
  try {
    const prepared = preparedOf(db, sql);
    if (prepared.reader) {
      const values = readsOneRow(prepared, args)
        ? oneRow(prepared.statement.get(args) as unknown[] | undefined)
        : (prepared.statement.all(args) as unknown[][]);
      // Another connection changed the schema (SQLite prepared the statement again, maybe with other columns).
      if (values.length > 0 && values[0]?.length !== prepared.columns.length) describe(prepared);
      const rows = new Array<Row>(values.length);
      for (let index = 0; index < values.length; index++)
        rows[index] = prepared.row(values[index] as unknown[]);
      return new EmbeddedResultSet(prepared.columns, prepared.columnTypes, rows, 0, undefined);
    }
    const info = prepared.statement.run(args);
    if (SCHEMA_CHANGE.test(sql)) forgetStatements();
    return new EmbeddedResultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
  } catch (error) {
    throw fromSqliteError(error);
  }
}

/** SQL that ends with `LIMIT 1` / `LIMIT ?` (drizzle's `.limit(1)`), with no OFFSET after it. */
const LIMIT_ONE = /\blimit\s+1\s*;?\s*$/i;
const LIMIT_ARGUMENT = /\blimit\s+\?\s*;?\s*$/i;

function limitOf(sql: string): Prepared['limitArgument'] {
  if (LIMIT_ONE.test(sql)) return 'one';
  return LIMIT_ARGUMENT.test(sql) ? 'last' : 'none';
}

function readsOneRow(prepared: Prepared, args: unknown[] | Record<string, unknown>): boolean {
  if (prepared.limitArgument === 'one') return true;
  if (prepared.limitArgument === 'none' || !Array.isArray(args)) return false;
  const limit = args[args.length - 1];
  return limit === 1 || limit === 1n;
}

function oneRow(values: unknown[] | undefined): unknown[][] {
  return values === undefined ? [] : [values];
}

function bindArguments(args: InArgs | undefined): unknown[] | Record<string, unknown> {
  if (args === undefined) return [];
  if (Array.isArray(args)) return args.map(valueToSql);
  const named: Record<string, unknown> = {};
  for (const name in args) {
    const bare = name[0] === '@' || name[0] === '$' || name[0] === ':' ? name.substring(1) : name;
    named[bare] = valueToSql(args[name] as InValue);
  }
  return named;
}

const MIN_INTEGER = -9223372036854775808n;
const MAX_INTEGER = 9223372036854775807n;

function valueToSql(value: InValue): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return value;
  }
  if (typeof value === 'bigint') {
    if (value < MIN_INTEGER || value > MAX_INTEGER)
      throw new RangeError(
        'bigint is too large to be represented as a 64-bit integer and passed as argument',
      );
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError('undefined cannot be passed as argument to the database');
  return value;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A value as the client answers it (intMode "number"): integers as numbers, blobs as their ArrayBuffer. */
function valueFromSql(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (value < MIN_SAFE || value > MAX_SAFE)
      throw new RangeError('Received integer which cannot be safely represented as a JavaScript number');
    return Number(value);
  }
  if (value instanceof Buffer) return value.buffer;
  return value;
}

/**
 * How rows of these columns are made: as @libsql/client makes them (each column an enumerable property, the first of
 * a repeated name winning; the values by index and `length` not enumerable), by a constructor generated once. The
 * indexes and `length` live on its prototype, read from the named properties. Repeated names (or `__proto__`) take
 * the generic way.
 */
function rowMaker(columns: string[]): (values: unknown[]) => Row {
  const unique = new Set(columns).size === columns.length && !columns.includes('__proto__');
  if (!unique) return (values) => genericRow(values, columns);
  const assignments = columns
    .map((name, index) => `this[${JSON.stringify(name)}] = convert(values[${index}]);`)
    .join('\n');
  const RowOf = new Function('convert', `return function Row(values) {\n${assignments}\n};`)(
    valueFromSql,
  ) as new (
    values: unknown[],
  ) => Row;
  const prototype: PropertyDescriptorMap = { length: { value: columns.length } };
  columns.forEach((name, index) => {
    prototype[index] = {
      get(this: Record<string, unknown>) {
        return this[name];
      },
    };
  });
  Object.defineProperties(RowOf.prototype, prototype);
  return (values) => new RowOf(values);
}

function genericRow(values: unknown[], columns: string[]): Row {
  const row = {};
  Object.defineProperty(row, 'length', { value: values.length });
  for (let index = 0; index < values.length; index++) {
    const value = valueFromSql(values[index]);
    Object.defineProperty(row, index, { value });
    const column = columns[index] as string;
    if (!Object.hasOwn(row, column))
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
  }
  return row as Row;
}

class EmbeddedResultSet implements ResultSet {
  constructor(
    readonly columns: string[],
    readonly columnTypes: string[],
    readonly rows: Row[],
    readonly rowsAffected: number,
    readonly lastInsertRowid: bigint | undefined,
  ) {}

  toJSON() {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) => Array.prototype.map.call(row, valueToJson)),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid !== undefined ? `${this.lastInsertRowid}` : null,
    };
  }
}

function valueToJson(value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}`;
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  return value;
}

/** SQLite's base result codes by number, for an error's `code` (as @libsql/client names them). */
const SQLITE_CODES = [
  '',
  'SQLITE_ERROR',
  'SQLITE_INTERNAL',
  'SQLITE_PERM',
  'SQLITE_ABORT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_READONLY',
  'SQLITE_INTERRUPT',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTFOUND',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_EMPTY',
  'SQLITE_SCHEMA',
  'SQLITE_TOOBIG',
  'SQLITE_CONSTRAINT',
  'SQLITE_MISMATCH',
  'SQLITE_MISUSE',
  'SQLITE_NOLFS',
  'SQLITE_AUTH',
  'SQLITE_FORMAT',
  'SQLITE_RANGE',
  'SQLITE_NOTADB',
  'SQLITE_NOTICE',
  'SQLITE_WARNING',
];

/** libsql's SqliteError as the LibsqlError @libsql/client throws for it; anything else unchanged. */
function fromSqliteError(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== 'SqliteError') return error;
  const { code: extendedCode, rawCode } = error as Error & { code?: string; rawCode?: number };
  const base = rawCode === undefined ? undefined : rawCode & 0xff;
  const code = base === undefined ? 'SQLITE_UNKNOWN' : (SQLITE_CODES[base] ?? '') || `SQLITE_UNKNOWN_${base}`;
  return new LibsqlError(error.message, code, extendedCode, rawCode, error);
}
