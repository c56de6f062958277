// Operator CLI: `npx compliance-mcp <command>`; prints one JSON line on stdout, errors on stderr, exit != 0.
// Each command lives with its kind (operations, accounts, access, records); this file finds and runs one.
import { noTokenCache } from '../auth/token-cache.ts';
import { createTokenService } from '../auth/tokens.ts';
import { loadConfig } from '../config.ts';
import { requireEmbedded } from '../db/backup.ts';
import { migrateDatabase, openNodeDatabase } from '../db/open-node.ts';
import { AppError } from '../errors.ts';
import { ACCESS_COMMANDS } from './access.ts';
import { ACCOUNT_COMMANDS } from './accounts.ts';
import { type CliCommand, parseCommandLine, UsageError } from './args.ts';
import { OPERATION_COMMANDS } from './operations.ts';
import { RECORD_COMMANDS } from './records.ts';

export const COMMANDS: readonly CliCommand[] = [
  ...OPERATION_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...ACCESS_COMMANDS,
  ...RECORD_COMMANDS,
];

export const USAGE = `Usage: compliance-mcp <command> [options]   (database: DATABASE_URL, default file:./data/compliance.db)

${COMMANDS.map((command) => `  ${command.usage}`).join('\n')}

A token revoked here stops working on a running Node server within TOKEN_CACHE_TTL_SECONDS (default 10 s).`;

/** The command the words name (the longest that matches), and the word after it. */
function commandOf(positionals: string[]): { command: CliCommand; argument: string | undefined } {
  if (positionals.length === 0) throw new UsageError('');
  let found: CliCommand | undefined;
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    const matches = words.every((word, index) => positionals[index] === word);
    if (matches && words.length > (found?.name.split(' ').length ?? 0)) found = command;
  }
  if (!found) throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
  const rest = positionals.slice(found.name.split(' ').length);
  if (rest.length > (found.argument ? 1 : 0))
    throw new UsageError(`Unexpected: ${rest.slice(found.argument ? 1 : 0).join(' ')}`);
  return { command: found, argument: rest[0] };
}

async function run(argv: string[], env: Record<string, string | undefined>): Promise<unknown> {
  const { values, positionals } = parseCommandLine(argv);
  const { command, argument } = commandOf(positionals);
  const config = loadConfig(env);
  if (command.database === false) return await command.run({ values, argument, config });
  if (command.embeddedOnly) requireEmbedded(config.databaseUrl);
  const database = await openNodeDatabase(config.databaseUrl, config.databaseAuthToken);
  try {
    await migrateDatabase(database);
    const { db } = database;
    const now = () => new Date();
    // The CLI has no cache to keep: the server's own cache expires revoked tokens within its TTL.
    const tokens = createTokenService({ db, cache: noTokenCache, cacheTtlSeconds: 0, now });
    return await command.run({ values, argument, config, database, db, now, tokens });
  } finally {
    database.client.close();
  }
}

/** Runs one command; returns the process exit code. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    out(USAGE);
    return 0;
  }
  try {
    const result = await run(argv, env);
    if (result !== undefined) out(JSON.stringify(result));
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      if (error.message) err(`error: ${error.message}`);
      err(USAGE);
      return 2;
    }
    if (error instanceof AppError) {
      err(`error: ${error.message}`);
      return 1;
    }
    err(`error: ${describeError(error)}`);
    return 1;
  }
}

// drizzle wraps driver errors ("Failed query: <sql>"): lead with the innermost cause, e.g. a remote server's 401.
function describeError(error: unknown): string {
  const chain: string[] = [];
  for (let current: unknown = error; current !== undefined && chain.length < 5; ) {
    chain.push((current instanceof Error ? current.message : String(current)).replace(/\s+/g, ' ').trim());
    current = current instanceof Error ? current.cause : undefined;
  }
  const distinct = chain
    .reverse()
    .filter((message, index) => !chain.slice(index + 1).some((other) => other.includes(message)));
  const [cause = '', ...context] = distinct;
  const shorten = (text: string) => (text.length > 100 ? `${text.slice(0, 99)}…` : text);
  return context.length > 0 ? `${cause} (in: ${context.map(shorten).join('; ')})` : cause;
}
