// `compliance-mcp secrets rotate`: every stored secret encrypted again under the current key; with a key file, a new
// current key first (--new-key) or the previous keys forgotten once nothing is encrypted with them (--drop-previous).
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { endpointSecretKeyIds } from '../webhooks/secrets.ts';
import { createSecretKeyring, newSecretsKey } from './keyring.ts';
import { keyFilePathFor, prepareNodeSecrets, reencryptStoredSecrets, writeKeyFile } from './node-key.ts';

export type RotationStep = 'reencrypt' | 'new-key' | 'drop-previous';

export interface RotationReport {
  key_id: string;
  key_source: 'env' | 'file' | 'memory';
  /** Endpoint rows encrypted again by this command. */
  reencrypted: number;
  previous_key_ids: string[];
  /** Previous keys some stored secret is still encrypted with (none after a run that finished). */
  previous_keys_in_use: string[];
}

export async function rotateSecretsKey(
  config: Config,
  database: Database,
  step: RotationStep,
): Promise<RotationReport> {
  if (step !== 'reencrypt' && keyFilePathFor(config.databaseUrl) === null)
    throw new AppError(
      'invalid_arguments',
      `--${step} changes the key file, and this database has none beside it.`,
    );
  if (step !== 'reencrypt' && config.secretsKey !== undefined)
    throw new AppError(
      'invalid_arguments',
      `--${step} changes the key file, and the keys come from SECRETS_KEY: make a key with \`secrets new-key\`, ` +
        'set SECRETS_KEY to it and SECRETS_KEY_PREVIOUS to the old one, then run `secrets rotate`.',
    );
  const prepared = await prepareNodeSecrets(config, database);
  const current = prepared.config.secretsKey;
  const { source } = prepared;
  if (current === undefined || source.kind === 'none')
    throw new AppError(
      'invalid_arguments',
      'There is no key to encrypt with: set SECRETS_KEY (a remote database has no key file beside it).',
    );
  let { secrets, reencrypted } = prepared;
  if (step !== 'reencrypt' && source.kind === 'file') {
    const previous = prepared.config.secretsKeysPrevious;
    if (step === 'new-key') {
      // The file names the new key and keeps the old ones before anything is encrypted with the new one: a crash
      // at any point leaves every row readable.
      const key = newSecretsKey();
      writeKeyFile(source.path, [key, current, ...previous]);
      secrets = createSecretKeyring(key, [current, ...previous]);
      reencrypted += await reencryptStoredSecrets(database, secrets);
    } else {
      // prepareNodeSecrets left every row under the current key; the previous ones are forgotten only if so.
      const inUse = await endpointSecretKeyIds(database.db, secrets);
      const { current: currentId } = await secrets.keyIds();
      const others = [...inUse].filter((id) => id !== currentId);
      if (others.length > 0)
        throw new AppError(
          'conflict',
          `Stored secrets are still encrypted with ${others.map((id) => id ?? 'no key').join(', ')}; the previous keys are kept.`,
        );
      writeKeyFile(source.path, [current]);
      secrets = createSecretKeyring(current);
    }
  }
  const ids = await secrets.keyIds();
  const inUse = await endpointSecretKeyIds(database.db, secrets);
  return {
    key_id: ids.current ?? '',
    key_source: source.kind,
    reencrypted,
    previous_key_ids: ids.previous,
    previous_keys_in_use: ids.previous.filter((id) => inUse.has(id)),
  };
}
