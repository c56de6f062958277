// The CLI's options, and what each command needs of them: a wrong or missing one is a usage error (exit 2).
import { parseArgs } from 'node:util';
import type { TokenService } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Database, Db } from '../db/client.ts';

/** A command line that does not say what to do: the message, then the usage, exit 2. */
export class UsageError extends Error {}

export const OPTIONS = {
  email: { type: 'string' },
  password: { type: 'string' },
  name: { type: 'string' },
  owner: { type: 'string' },
  org: { type: 'string', multiple: true },
  role: { type: 'string' },
  scope: { type: 'string' },
  'expires-in-days': { type: 'string' },
  'expires-at': { type: 'string' },
  id: { type: 'string' },
  demo: { type: 'boolean' },
  framework: { type: 'string' },
  version: { type: 'string' },
  format: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'remove-missing': { type: 'boolean' },
  kind: { type: 'string' },
  audit: { type: 'string' },
  'create-people': { type: 'boolean' },
  'date-format': { type: 'string' },
  sheet: { type: 'string' },
  to: { type: 'string' },
  title: { type: 'string' },
  verified: { type: 'boolean' },
  'earlier-tokens': { type: 'boolean' },
  link: { type: 'boolean' },
  'new-key': { type: 'boolean' },
  'drop-previous': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

export function parseCommandLine(argv: string[]): { values: Values; positionals: string[] } {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

export function need(values: Values, name: 'email' | 'password' | 'name' | 'owner' | 'role' | 'id'): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}`);
  return value;
}

/** The one `--org` of a command that acts in an organization. */
export function oneOrganization(values: Values): string {
  const organizationId = values.org?.[0];
  if (!organizationId || (values.org?.length ?? 0) > 1) throw new UsageError('Give exactly one --org');
  return organizationId;
}

/** What a command without a database is given. */
export interface CliCall {
  values: Values;
  /** The word after the command's name, when it takes one (its FILE or EMAIL). */
  argument: string | undefined;
  config: Config;
}

/** What a command on the database is given: the database, migrated, and the services the server also uses. */
export interface DatabaseCall extends CliCall {
  database: Database;
  db: Db;
  now: () => Date;
  tokens: TokenService;
}

interface CommandBase {
  /** Its words, e.g. `user verify`. */
  name: string;
  /** The word it takes after its name. */
  argument?: 'FILE' | 'EMAIL';
  /** Its lines in the usage text. */
  usage: string;
}

/** One command of the CLI; `database: false` runs without opening one. */
export type CliCommand =
  | (CommandBase & { database: false; run(call: CliCall): Promise<unknown> })
  | (CommandBase & {
      database?: true;
      /** Refused before opening a remote database (a copy of a file needs the file). */
      embeddedOnly?: boolean;
      run(call: DatabaseCall): Promise<unknown>;
    });
