// Operator CLI: `npx compliance-mcp <command>`; prints one JSON line on stdout, errors on stderr, exit != 0.
import { parseArgs } from 'node:util';
import {
  completeSignUp,
  issueLink,
  type LinkPurpose,
  linkPath,
  type PendingSignUp,
  pendingSignUpOf,
  signUpOf,
} from './account-links.ts';
import {
  countUsers,
  createOrganization,
  createUser,
  findUserByEmail,
  markEmailVerified,
  normalizeEmail,
  requireUserByEmail,
  setMembership,
} from './accounts.ts';
import { ROLES, type Role, type TokenScope } from './auth/principal.ts';
import { noTokenCache } from './auth/token-cache.ts';
import { createTokenService } from './auth/tokens.ts';
import { type Config, loadConfig, redactDatabaseUrl } from './config.ts';
import { backupDatabase, requireEmbedded } from './db/backup.ts';
import type { Db } from './db/client.ts';
import { migrateDatabase, openNodeDatabase } from './db/open-node.ts';
import { mergeSearchIndexes } from './db/search-maintenance.ts';
import { seedDemo } from './demo/seed.ts';
import { AppError } from './errors.ts';
import { nodeMailer } from './notify/mailer-node.ts';
import { notifyOnce } from './notify/schedule.ts';
import { createGrantService } from './oauth/grants.ts';
import { purgeUnusedClients, UNUSED_CLIENT_DAYS } from './oauth/purge.ts';
import { newSecretsKey } from './secrets/keyring.ts';
import { rotateSecretsKey } from './secrets/rotate.ts';
import { importFrameworkFile } from './tools/catalogs/cli-import.ts';
import { addEvidenceFile } from './tools/evidence-cli.ts';
import { importRecordsFile } from './tools/imports/cli-import.ts';
import { REGISTER_SPECS } from './tools/index.ts';
import { kindNamed } from './tools/registers/spec.ts';

export const USAGE = `Usage: compliance-mcp <command> [options]   (database: DATABASE_URL, default file:./data/compliance.db)

  serve                                                   start the server (HOST, PORT, DATABASE_URL, SEED_DEMO)
  migrate                                                 apply database migrations, merge the search indexes
  backup --to FILE                                        -> {"ok":true,"to":"...","bytes":N} a consistent copy of
                                                             an embedded database, taken while the server runs
  user create --email E --password P [--name N] [--verified]   -> {"id":"usr_...","email_verified":...}
               the first account of an instance has its address confirmed; later ones with --verified
  user verify E [--link]                                  -> {"email","verified":true} confirms the address of an
               account, or makes the account of a sign-up waiting for its link (with the password chosen);
               --link prints a confirmation link to send instead: {"email","link","expires_at"}
  user reset-link E                                       -> {"email","link","expires_at"} a one-hour link to choose
               a new password (the web's "Forgot your password?" without email)
  org create --name N --owner EMAIL                       -> {"id":"org_..."}
  member add --org ORG_ID --email E --role OWNER|ADMIN|EDITOR|VIEWER [--earlier-tokens]   -> {"ok":true}
               the operator's direct add, without an invitation (an existing member: role set); the person's
               tokens for all organizations reach it only if made later, or with --earlier-tokens
  token create --email E --name N [--scope read|read_write, default read_write] [--org ORG_ID]...
               [--expires-in-days 1..365 | --expires-at ISO]   -> {"id":"tok_...","token":"...","expires_at":"..."}
  token revoke --id TOKEN_ID                              -> {"ok":true}
  token list --email E                                    -> {"tokens":[...]}
  client list --email E                                   -> {"clients":[...]} the person's connected OAuth clients
  client revoke --email E --id GRANT_ID                   -> {"ok":true} ends that connection and its tokens
  client purge                                            -> {"purged":[...]} OAuth clients never used (24 h) or unused (90 days)
  notify run                                              -> {"notifications_created",...,"emails_sent",...} one run
                                                             of the notification engine (SMTP_* and MAIL_FROM)
  seed --demo                                             -> {"email","password","organization_id","token"}
  secrets new-key                                         -> {"key":"..."} a new SECRETS_KEY (32 random bytes, base64)
  secrets rotate [--new-key] [--drop-previous]            -> {"key_id","reencrypted","previous_key_ids",...}
               encrypts every stored secret under the current key (SECRETS_KEY, else the key file beside an
               embedded database), reading the previous ones (SECRETS_KEY_PREVIOUS, the key file's later lines);
               key file only: --new-key makes a new current key first, --drop-previous forgets the previous keys
               once nothing needs them (docs/security.md, "Secrets at rest")
  framework import --org ORG_ID (--framework FWK_ID | --name N [--version V]) [--format oscal|csv]
               [--dry-run] [--remove-missing] FILE        -> {"framework":{...},"counts":{"created",...},...}
               loads an OSCAL catalog (.json) or a CSV (ref,title,description,parent,section) by reference;
               --name finds the organization's framework of that name or creates it
  import --org ORG_ID --kind risks [--dry-run] [--create-people] [--date-format DD/MM/YYYY|MM/DD/YYYY]
               [--sheet NAME] FILE                        -> {"counts":{"created","updated","refused",...},...}
               a CSV (UTF-8 or UTF-16, comma, semicolon or tab) or XLSX file of any size, streamed, written in
               one transaction: every row or none; a dry run reports the refused rows without writing
  evidence add --org ORG_ID --to RECORD_ID [--title T] FILE   -> {"evidence":{...}}
               stores the file (FILES_DIR or FILES_S3_*) and attaches it as evidence to a measure, requirement,
               risk, vendor, audit, nonconformity or obligation; the title defaults to the file name

A token revoked here stops working on a running Node server within TOKEN_CACHE_TTL_SECONDS (default 10 s).`;

class UsageError extends Error {}

const OPTIONS = {
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

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function need(values: Values, name: 'email' | 'password' | 'name' | 'owner' | 'role' | 'id'): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}`);
  return value;
}

/** The longest an API token lives, as in the web form (README, "Tokens"); the CLI also allows shorter than 7 days. */
const MAX_TOKEN_DAYS = 365;

function expiryFrom(values: Values, now: Date): string | null {
  const days = values['expires-in-days'];
  const at = values['expires-at'];
  if (days !== undefined && at !== undefined)
    throw new UsageError('Give --expires-in-days or --expires-at, not both');
  if (at !== undefined) {
    const time = Date.parse(at);
    if (Number.isNaN(time)) throw new UsageError(`--expires-at is not an ISO date: ${at}`);
    if (time <= now.getTime()) throw new UsageError(`--expires-at is not in the future: ${at}`);
    if (time > now.getTime() + MAX_TOKEN_DAYS * 86_400_000)
      throw new UsageError(
        `--expires-at is more than ${MAX_TOKEN_DAYS} days away: API tokens live at most a year`,
      );
    return new Date(time).toISOString();
  }
  const count = days === undefined ? 90 : Number(days);
  if (!Number.isInteger(count) || count < 1 || count > MAX_TOKEN_DAYS)
    throw new UsageError(`--expires-in-days must be 1..${MAX_TOKEN_DAYS}`);
  return new Date(now.getTime() + count * 86_400_000).toISOString();
}

async function run(argv: string[], env: Record<string, string | undefined>): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  // `framework import FILE`, `import FILE`: the file is the last word, not part of the command; so is the address of
  // `user verify E` and `user reset-link E`.
  const fileArgument =
    positionals[0] === 'framework' ||
    positionals[0] === 'evidence' ||
    (positionals[0] === 'user' && (positionals[1] === 'verify' || positionals[1] === 'reset-link'))
      ? positionals[2]
      : positionals[0] === 'import'
        ? positionals[1]
        : undefined;
  const command = (
    fileArgument === undefined ? positionals : positionals.slice(0, positionals[0] === 'import' ? 1 : 2)
  ).join(' ');
  if (positionals.length > 3) throw new UsageError(`Unexpected: ${positionals.slice(3).join(' ')}`);
  if (command === '') throw new UsageError('');
  const config = loadConfig(env);

  if (command === 'serve') {
    const { startNodeServer } = await import('./node.ts');
    const server = await startNodeServer(config);
    const stop = () => {
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return undefined;
  }
  // Needs no database: a key to put in SECRETS_KEY (or a Worker secret).
  if (command === 'secrets new-key') return { key: newSecretsKey() };

  if (command === 'backup') requireEmbedded(config.databaseUrl);
  const database = await openNodeDatabase(config.databaseUrl, config.databaseAuthToken);
  try {
    await migrateDatabase(database);
    const { db } = database;
    const now = () => new Date();
    // The CLI has no cache to keep: the server's own cache expires revoked tokens within its TTL.
    const tokens = createTokenService({ db, cache: noTokenCache, cacheTtlSeconds: 0, now });
    switch (command) {
      case 'migrate': {
        // What the Node host does at start and hourly, for a database no Node host serves (the Worker's).
        const merged = await mergeSearchIndexes(database.client, { pause: async () => {} });
        return { ok: true, database: redactDatabaseUrl(config.databaseUrl), search_indexes_merged: merged };
      }
      case 'backup':
        return await backupDatabase(database.client, config.databaseUrl, values.to);
      case 'user create': {
        // The first account of an instance is the operator's own: its address counts as confirmed.
        const verified = values.verified === true || (await countUsers(db)) === 0;
        const user = await createUser(db, now(), {
          email: need(values, 'email'),
          password: need(values, 'password'),
          name: values.name ?? null,
          emailVerified: verified,
        });
        return { id: user.id, email_verified: verified };
      }
      case 'user verify': {
        const email = normalizeEmail(addressArgument(values, fileArgument));
        const user = await findUserByEmail(db, email);
        if (user) {
          if (user.email_verified_at) return { email, verified: true, already: true };
          if (values.link) return await printedLink(db, config, 'verify', email, user.id);
          await markEmailVerified(db, user.id, now());
          return { email, verified: true };
        }
        const pending = await pendingSignUpOf(db, email, now());
        if (!pending)
          throw new AppError('not_found', `No account, and no sign-up waiting for its link, for ${email}.`);
        if (values.link) {
          const signUp = signUpOf(pending);
          if (!signUp) throw new AppError('not_found', `No sign-up waiting for its link for ${email}.`);
          return await printedLink(db, config, 'signup', email, null, signUp);
        }
        // The operator vouches for the address: the sign-up's own link need not be opened.
        const made = await completeSignUp(db, now(), pending, 'operator');
        return { id: made.userId, email, verified: true };
      }
      case 'user reset-link': {
        const email = normalizeEmail(addressArgument(values, fileArgument));
        const user = await requireUserByEmail(db, email);
        return await printedLink(db, config, 'reset', email, user.id);
      }
      case 'org create': {
        const owner = await requireUserByEmail(db, need(values, 'owner'));
        return await createOrganization(db, now(), { name: need(values, 'name'), ownerId: owner.id });
      }
      case 'member add': {
        const role = need(values, 'role').toUpperCase();
        if (!ROLES.includes(role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
        const organizationId = values.org?.[0];
        if (!organizationId || (values.org?.length ?? 0) > 1) throw new UsageError('Give exactly one --org');
        const user = await requireUserByEmail(db, need(values, 'email'));
        await setMembership(db, now(), organizationId, user.id, role as Role, {
          earlierTokens: values['earlier-tokens'] === true,
        });
        return { ok: true };
      }
      case 'token create': {
        const scope = (values.scope ?? 'read_write').toLowerCase();
        if (scope !== 'read' && scope !== 'read_write')
          throw new UsageError('--scope must be read or read_write');
        const user = await requireUserByEmail(db, need(values, 'email'));
        const created = await tokens.create({
          userId: user.id,
          name: need(values, 'name'),
          scope: scope as TokenScope,
          organizationIds: values.org && values.org.length > 0 ? values.org : null,
          expiresAt: expiryFrom(values, now()),
        });
        return { id: created.id, token: created.token, expires_at: created.expires_at };
      }
      case 'token revoke': {
        const revoked = await tokens.revoke(need(values, 'id'));
        if (!revoked) throw new AppError('not_found', 'No active token with that id.');
        return { ok: true };
      }
      case 'token list': {
        const user = await requireUserByEmail(db, need(values, 'email'));
        return { tokens: await tokens.list(user.id) };
      }
      case 'client list': {
        // The OAuth clients a person connected (Settings > API Tokens > Connected clients).
        const user = await requireUserByEmail(db, need(values, 'email'));
        return { clients: await createGrantService({ db, tokens, now }).listForUser(user.id) };
      }
      case 'client revoke': {
        // Ends the connection (grant) and every token it issued, as the web page's Revoke does.
        const user = await requireUserByEmail(db, need(values, 'email'));
        const ended = await createGrantService({ db, tokens, now }).endGrant(need(values, 'id'), user.id);
        if (!ended) throw new AppError('not_found', 'No active connected client with that id for this user.');
        return { ok: true };
      }
      case 'client purge': {
        // What the Node host does at start and hourly, for a database no Node host serves (the Worker's).
        return { purged: await purgeUnusedClients(db, now()), unused_days: UNUSED_CLIENT_DAYS };
      }
      case 'notify run': {
        // What the Node host does on its timer, for a one-off run or a database no Node host serves.
        return await notifyOnce({ db, config, mailer: nodeMailer, now: now() });
      }
      case 'framework import': {
        if (!fileArgument) throw new UsageError('framework import needs a FILE');
        const organizationId = values.org?.[0];
        if (!organizationId || (values.org?.length ?? 0) > 1) throw new UsageError('Give exactly one --org');
        const format = values.format ?? (/\.csv$/i.test(fileArgument) ? 'csv' : 'oscal');
        if (format !== 'oscal' && format !== 'csv') throw new UsageError('--format must be oscal or csv');
        return await importFrameworkFile(db, now, {
          organizationId,
          frameworkId: values.framework,
          name: values.name,
          version: values.version,
          format,
          file: fileArgument,
          dryRun: values['dry-run'] === true,
          removeMissing: values['remove-missing'] === true,
        });
      }
      case 'import': {
        if (!fileArgument) throw new UsageError('import needs a FILE');
        const organizationId = values.org?.[0];
        if (!organizationId || (values.org?.length ?? 0) > 1) throw new UsageError('Give exactly one --org');
        const kind = kindNamed(REGISTER_SPECS, values.kind ?? '');
        if (!kind) throw new UsageError('--kind must name a register, e.g. risks, vendors, people');
        const dateFormat = values['date-format']?.toUpperCase();
        if (dateFormat !== undefined && dateFormat !== 'DD/MM/YYYY' && dateFormat !== 'MM/DD/YYYY')
          throw new UsageError('--date-format must be DD/MM/YYYY or MM/DD/YYYY');
        return await importRecordsFile(db, now, {
          organizationId,
          kind,
          file: fileArgument,
          dryRun: values['dry-run'] === true,
          createPeople: values['create-people'] === true,
          ...(dateFormat ? { dateFormat } : {}),
          ...(values.sheet !== undefined ? { sheet: values.sheet } : {}),
        });
      }
      case 'evidence add': {
        if (!fileArgument) throw new UsageError('evidence add needs a FILE');
        const organizationId = values.org?.[0];
        if (!organizationId || (values.org?.length ?? 0) > 1) throw new UsageError('Give exactly one --org');
        if (!values.to) throw new UsageError('Missing --to (the id of the record it is evidence for)');
        const { nodeFileRuntime } = await import('./files/node.ts');
        return await addEvidenceFile(db, nodeFileRuntime(config), now, {
          organizationId,
          recordId: values.to,
          file: fileArgument,
          ...(values.title !== undefined ? { title: values.title } : {}),
        });
      }
      case 'secrets rotate': {
        if (values['new-key'] && values['drop-previous'])
          throw new UsageError(
            'Give --new-key or --drop-previous, not both (restart the server between them)',
          );
        const step = values['new-key'] ? 'new-key' : values['drop-previous'] ? 'drop-previous' : 'reencrypt';
        return await rotateSecretsKey(config, database, step);
      }
      case 'seed': {
        if (!values.demo) throw new UsageError('seed needs --demo');
        return await seedDemo(db, tokens, now);
      }
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } finally {
    database.client.close();
  }
}

/** The address of `user verify E` / `user reset-link E` (or `--email E`). */
function addressArgument(values: Values, positional: string | undefined): string {
  const email = positional ?? values.email;
  if (!email) throw new UsageError('Give the email address, e.g. user verify alice@example.com');
  return email;
}

/** Makes a link and prints it for the operator to pass on: PUBLIC_URL, else the Node host's own address. */
async function printedLink(
  db: Db,
  config: Config,
  purpose: LinkPurpose,
  email: string,
  userId: string | null,
  signUp?: PendingSignUp,
): Promise<{ email: string; link: string; expires_at: string }> {
  const { secret, expiresAt } = await issueLink(db, new Date(), {
    purpose,
    email,
    userId,
    ...(signUp ? { signUp } : {}),
  });
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = config.publicUrl ?? `http://${host}:${config.port}`;
  return { email, link: `${base}${linkPath(purpose, secret)}`, expires_at: expiresAt };
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
