// Node processes (server, CLI): where SECRETS_KEY comes from when it is not set (a key file beside an embedded
// database, made on first start with mode 0600), the refusal to start when stored secrets have no key, and the pass
// that leaves every stored secret encrypted under the current key with no plaintext left in the file.
import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { endpointSecretKeyIds, reencryptEndpointSecrets } from '../webhooks/secrets.ts';
import { createSecretKeyring, newSecretsKey, parseSecretsKey, type SecretKeyring } from './keyring.ts';

/** Where the keys come from: the environment, a key file, this process only (in-memory database), or nowhere. */
export type KeySource =
  | { kind: 'env' }
  | { kind: 'file'; path: string }
  | { kind: 'memory' }
  | { kind: 'none' };

export interface NodeSecrets {
  config: Config;
  secrets: SecretKeyring;
  source: KeySource;
  /** Secrets this start encrypted (plaintext from before encryption, or under a previous key). */
  reencrypted: number;
}

/** `file:./data/compliance.db` -> `./data/compliance.db.secrets-key`; null for an in-memory or remote database. */
export function keyFilePathFor(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('file:')) return null;
  const path = databaseUrl
    .slice('file:'.length)
    .replace(/\?.*$/, '')
    .replace(/^\/\/(?=\/)/, '');
  return path === '' || path === ':memory:' ? null : `${path}.secrets-key`;
}

const KEY_FILE_HEADER =
  '# compliance-mcp secrets key of the database beside it (docs/security.md, "Secrets at rest").\n' +
  '# First key: the current one; any below it only read what they encrypted before a rotation.\n' +
  '# Back it up apart from the database: without it the webhook signing secrets cannot be read.\n';

/** The keys of a key file, current first; throws on a line that is not a key. */
export function readKeyFile(path: string): string[] {
  const keys = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (keys.length === 0 || keys.some((key) => parseSecretsKey(key) === null))
    throw new Error(
      `The key file ${path} does not hold a secrets key (32 bytes in base64 or hex, one a line).`,
    );
  return keys;
}

/** Writes the key file whole or not at all (a temporary file renamed over it), readable by its owner only. */
export function writeKeyFile(path: string, keys: readonly string[], exclusive = false): void {
  const text = `${KEY_FILE_HEADER}${keys.join('\n')}\n`;
  if (exclusive) {
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return;
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600, flag: 'w' });
  renameSync(temporary, path);
}

/** Where the keys were found, as the subject of "... hold <key ids>". */
function describeSource(source: KeySource): string {
  if (source.kind === 'file') return `the key file ${source.path} and SECRETS_KEY_PREVIOUS`;
  if (source.kind === 'env') return 'SECRETS_KEY and SECRETS_KEY_PREVIOUS';
  return "this process's own key and SECRETS_KEY_PREVIOUS";
}

/** The keys to use: SECRETS_KEY, else the key file beside an embedded database (made now when there is none). */
async function keysFor(
  config: Config,
  database: Database,
  log: (line: string) => void,
): Promise<{ current: string | undefined; previous: string[]; source: KeySource }> {
  if (config.secretsKey !== undefined)
    return { current: config.secretsKey, previous: config.secretsKeysPrevious, source: { kind: 'env' } };
  if (config.databaseUrl === 'file::memory:' || config.databaseUrl === ':memory:')
    return { current: newSecretsKey(), previous: [], source: { kind: 'memory' } };
  const path = keyFilePathFor(config.databaseUrl);
  if (path === null)
    return { current: undefined, previous: config.secretsKeysPrevious, source: { kind: 'none' } };
  if (existsSync(path)) {
    if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
      chmodSync(path, 0o600);
      log(`The key file ${path} was readable by others; it is now readable by its owner only.`);
    }
    const [current, ...previous] = readKeyFile(path);
    return {
      current,
      previous: [...previous, ...config.secretsKeysPrevious],
      source: { kind: 'file', path },
    };
  }
  // No key file: a database that already holds encrypted secrets lost its key, and a new one would not read them.
  const sealed = [...(await endpointSecretKeyIds(database.db, createSecretKeyring(undefined)))].filter(
    Boolean,
  );
  if (sealed.length > 0)
    throw new Error(
      `The database holds webhook secrets encrypted with key ${sealed.join(', ')}, and neither SECRETS_KEY nor the ` +
        `key file ${path} is there. Restore the key file from your backup (or set SECRETS_KEY to that key); ` +
        'without it those secrets cannot be read (docs/security.md, "Secrets at rest").',
    );
  const key = newSecretsKey();
  writeKeyFile(path, [key], true);
  log(`Made the secrets key ${path} (mode 0600): back it up apart from the database.`);
  return { current: key, previous: config.secretsKeysPrevious, source: { kind: 'file', path } };
}

/**
 * Encrypts every stored secret not under the current key, with SQLite's secure_delete on so the plaintext it
 * replaces is zeroed in the file, then empties the WAL (which may hold older copies of the pages).
 */
export async function reencryptStoredSecrets(database: Database, secrets: SecretKeyring): Promise<number> {
  const embedded = database.client.protocol === 'file';
  if (embedded) await database.client.execute('PRAGMA secure_delete = ON');
  try {
    const changed = await reencryptEndpointSecrets(database.db, secrets);
    if (changed > 0 && embedded) await database.client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    return changed;
  } finally {
    if (embedded) await database.client.execute('PRAGMA secure_delete = OFF');
  }
}

/**
 * The Node host's keys, checked against what the database holds before anything is served: a secret under a key
 * that is not configured stops the start with a message saying which key and where it was looked for. Then every
 * secret is encrypted under the current key (plaintext rows from before encryption too).
 */
export async function prepareNodeSecrets(
  config: Config,
  database: Database,
  log: (line: string) => void = () => {},
): Promise<NodeSecrets> {
  const { current, previous, source } = await keysFor(config, database, log);
  const secrets = createSecretKeyring(current, previous);
  const { current: currentId, previous: previousIds } = await secrets.keyIds();
  const known = new Set([currentId, ...previousIds]);
  const unknown = [...(await endpointSecretKeyIds(database.db, secrets))].filter(
    (id): id is string => id !== null && !known.has(id),
  );
  if (unknown.length > 0) {
    const held = [...known].filter(Boolean).join(', ');
    const where =
      source.kind === 'none' ? 'SECRETS_KEY is not set' : `${describeSource(source)} hold ${held}`;
    throw new Error(
      `The database holds webhook secrets encrypted with key ${unknown.join(', ')}; ${where}. Set ` +
        'SECRETS_KEY_PREVIOUS (or SECRETS_KEY) to that key, or restore it, so they can be read ' +
        '(docs/security.md, "Secrets at rest").',
    );
  }
  const reencrypted = current === undefined ? 0 : await reencryptStoredSecrets(database, secrets);
  if (reencrypted > 0) log(`Encrypted ${reencrypted} webhook endpoint secret(s) under key ${currentId}.`);
  return {
    config: { ...config, secretsKey: current, secretsKeysPrevious: previous },
    secrets,
    source,
    reencrypted,
  };
}
