// Secrets at rest: webhook signing secrets sealed with AES-GCM under SECRETS_KEY or the key file beside an embedded
// database; old plaintext rows encrypted at start with nothing left in the file; rotation by key list and CLI.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createUser } from '../../src/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import { migrateDatabase, openNodeDatabase } from '../../src/db/open-node.ts';
import { webhookEndpoints } from '../../src/db/schema.ts';
import { AppError } from '../../src/errors.ts';
import { startNodeServer } from '../../src/node.ts';
import {
  createSecretKeyring,
  NO_SECRETS_KEY_MESSAGE,
  parseSecretsKey,
  SecretUnreadableError,
} from '../../src/secrets/keyring.ts';
import { keyFilePathFor, prepareNodeSecrets, readKeyFile } from '../../src/secrets/node-key.ts';
import { openEndpointSecret } from '../../src/webhooks/secrets.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import { runCli } from '../cli-run.ts';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cmcp-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A migrated database file with one endpoint stored as before encryption: both secrets in plain text. */
async function legacyDatabase(name: string) {
  const path = join(dir, `${name}.db`);
  const url = `file:${path}`;
  const database = await openNodeDatabase(url);
  await migrateDatabase(database);
  const now = new Date();
  const owner = await createUser(database.db, now, {
    emailVerified: true,
    email: `${name}@example.com`,
    password: 'not used here',
    passwordHash: 'x',
  });
  const organization = await createOrganization(database.db, now, { name, ownerId: owner.id });
  const secret = newWebhookSecret();
  const previous = newWebhookSecret();
  const id = `whk_${name}legacy0000000000`;
  await database.db.insert(webhookEndpoints).values({
    id,
    organization_id: organization.id,
    url: 'https://hooks.example.com/in',
    events: ['*'],
    secret,
    previous_secret: previous,
    previous_secret_until: new Date(now.getTime() + 3600_000).toISOString(),
    enabled: true,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  await database.client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  database.client.close();
  return { path, url, id, secret, previous };
}

/** Every byte of the database as a dump would copy it: the file and its WAL. */
function dumpOf(path: string): Buffer {
  return Buffer.concat(
    [path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file)),
  );
}

async function storedRow(database: Database, id: string) {
  const [row] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  if (!row) throw new Error(`no endpoint ${id}`);
  return row;
}

describe('the keyring', () => {
  it('seals as enc:v1:<key id>:<iv>:<ciphertext> and opens only with the same context', async () => {
    const keyring = createSecretKeyring(KEY_A);
    const sealed = await keyring.seal('whsec_plain', 'webhook_endpoints whk_1');
    expect(sealed).toMatch(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('whsec_plain');
    expect(await keyring.open(sealed, 'webhook_endpoints whk_1')).toBe('whsec_plain');
    // The same plaintext twice: two ivs, two ciphertexts.
    expect(await keyring.seal('whsec_plain', 'webhook_endpoints whk_1')).not.toBe(sealed);
    // Copied into another endpoint's row, it does not open.
    await expect(keyring.open(sealed, 'webhook_endpoints whk_2')).rejects.toThrow(
      /does not decrypt with key [0-9a-f]{8}: it was altered or copied from another row/,
    );
    // One character of the ciphertext changed.
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.at(-1)}`;
    await expect(keyring.open(flipped, 'webhook_endpoints whk_1')).rejects.toBeInstanceOf(
      SecretUnreadableError,
    );
  });

  it('reads with a previous key, names a key it does not hold, and passes plaintext from before encryption', async () => {
    const old = createSecretKeyring(KEY_A);
    const sealed = await old.seal('whsec_old', 'ctx');
    const rotated = createSecretKeyring(KEY_B, [KEY_A]);
    expect(await rotated.open(sealed, 'ctx')).toBe('whsec_old');
    expect(await rotated.isCurrent(sealed)).toBe(false);
    expect(await rotated.isCurrent(await rotated.seal('x', 'ctx'))).toBe(true);
    const { current: oldId } = await old.keyIds();
    await expect(createSecretKeyring(KEY_B).open(sealed, 'ctx')).rejects.toThrow(
      `A stored secret is encrypted with key ${oldId}, which is neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS.`,
    );
    expect(await rotated.open('whsec_legacy', 'ctx')).toBe('whsec_legacy');
    await expect(rotated.open('enc:v2:abc:def:ghi', 'ctx')).rejects.toThrow(
      'not in a format this version reads',
    );
  });

  it('refuses to seal without a key, saying which setting is missing', async () => {
    const keyring = createSecretKeyring(undefined);
    expect(keyring.available).toBe(false);
    const refusal = await keyring.seal('x', 'ctx').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('conflict');
    expect((refusal as AppError).message).toBe(NO_SECRETS_KEY_MESSAGE);
    expect(NO_SECRETS_KEY_MESSAGE).toContain('SECRETS_KEY');
  });

  it('takes SECRETS_KEY as 32 bytes in hex, base64 or base64url, and refuses anything else without echoing it', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i));
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
      expect(Buffer.from(parseSecretsKey(text) ?? []).equals(bytes), text).toBe(true);
    for (const text of [bytes.subarray(1).toString('base64'), 'not a key', `${bytes.toString('hex')}00`])
      expect(parseSecretsKey(text), text).toBeNull();
    const refused = 'short-secret-value';
    expect(() => loadConfig({ SECRETS_KEY: refused })).toThrow(/SECRETS_KEY: must be 32 bytes in base64/);
    expect(() => loadConfig({ SECRETS_KEY: refused })).not.toThrow(refused);
    expect(() => loadConfig({ SECRETS_KEY: KEY_A, SECRETS_KEY_PREVIOUS: `${KEY_B},nope` })).toThrow(
      /SECRETS_KEY_PREVIOUS: must be 32 bytes/,
    );
    expect(loadConfig({ SECRETS_KEY: KEY_A, SECRETS_KEY_PREVIOUS: ` ${KEY_B} ` })).toMatchObject({
      secretsKey: KEY_A,
      secretsKeysPrevious: [KEY_B],
    });
  });
});

describe('the Node host with an embedded database', () => {
  it('encrypts plaintext secrets at start: a dump of the file holds no whsec_, the key file is 0600', async () => {
    const legacy = await legacyDatabase('dump');
    // The attack: read the database file's bytes. Before the start, the secrets are there.
    expect(dumpOf(legacy.path).includes('whsec_')).toBe(true);
    const lines: string[] = [];
    const server = await startNodeServer(
      loadConfig({ DATABASE_URL: legacy.url, PORT: '0', SEED_DEMO: 'false' }),
      (line) => lines.push(line),
    );
    try {
      const keyPath = `${legacy.path}.secrets-key`;
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
      expect(readKeyFile(keyPath)).toHaveLength(1);
      expect(lines).toContain(
        `Made the secrets key ${keyPath} (mode 0600): back it up apart from the database.`,
      );
      expect(
        lines.some((line) => /^Encrypted 1 webhook endpoint secret\(s\) under key [0-9a-f]{8}\.$/.test(line)),
      ).toBe(true);
      const dump = dumpOf(legacy.path);
      expect(dump.includes('whsec_')).toBe(false);
      expect(dump.includes(legacy.secret.slice('whsec_'.length))).toBe(false);
      expect(dump.includes(legacy.previous.slice('whsec_'.length))).toBe(false);
      // Still the same secrets to the receiver: both open to what they were.
      const row = await storedRow(server.runtime.database, legacy.id);
      expect(row.secret).toMatch(/^enc:v1:/);
      expect(await openEndpointSecret(server.runtime.secrets, legacy.id, row.secret)).toBe(legacy.secret);
      expect(await openEndpointSecret(server.runtime.secrets, legacy.id, row.previous_secret ?? '')).toBe(
        legacy.previous,
      );
    } finally {
      await server.close();
    }

    // The key file gone, the database holding encrypted secrets: the host refuses to start and says why.
    unlinkSync(`${legacy.path}.secrets-key`);
    await expect(
      startNodeServer(loadConfig({ DATABASE_URL: legacy.url, PORT: '0', SEED_DEMO: 'false' }), () => {}),
    ).rejects.toThrow(
      new RegExp(
        `holds webhook secrets encrypted with key [0-9a-f]{8}, and neither SECRETS_KEY nor the key file ${legacy.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.secrets-key is there\\. Restore the key file`,
      ),
    );
    // No new key was made in its place.
    expect(existsSync(`${legacy.path}.secrets-key`)).toBe(false);
  });

  it('rotates SECRETS_KEY: refuses a start without the old key, re-encrypts with SECRETS_KEY_PREVIOUS', async () => {
    const legacy = await legacyDatabase('rotate');
    const database = await openNodeDatabase(legacy.url);
    try {
      const first = await prepareNodeSecrets(
        loadConfig({ DATABASE_URL: legacy.url, SECRETS_KEY: KEY_A }),
        database,
      );
      expect(first).toMatchObject({ reencrypted: 1, source: { kind: 'env' } });
      // SECRETS_KEY wins over a key file: none was made.
      expect(existsSync(`${legacy.path}.secrets-key`)).toBe(false);
      const idA = (await first.secrets.keyIds()).current;
      await expect(
        prepareNodeSecrets(loadConfig({ DATABASE_URL: legacy.url, SECRETS_KEY: KEY_B }), database),
      ).rejects.toThrow(
        `The database holds webhook secrets encrypted with key ${idA}; SECRETS_KEY and SECRETS_KEY_PREVIOUS hold `,
      );
      const second = await prepareNodeSecrets(
        loadConfig({ DATABASE_URL: legacy.url, SECRETS_KEY: KEY_B, SECRETS_KEY_PREVIOUS: KEY_A }),
        database,
      );
      expect(second.reencrypted).toBe(1);
      const idB = (await second.secrets.keyIds()).current;
      const row = await storedRow(database, legacy.id);
      expect([row.secret.split(':')[2], row.previous_secret?.split(':')[2]]).toEqual([idB, idB]);
      // The previous key is no longer needed.
      const third = await prepareNodeSecrets(
        loadConfig({ DATABASE_URL: legacy.url, SECRETS_KEY: KEY_B }),
        database,
      );
      expect(third.reencrypted).toBe(0);
      expect(await openEndpointSecret(third.secrets, legacy.id, row.secret)).toBe(legacy.secret);
    } finally {
      database.client.close();
    }
  });

  it('has the CLI make keys and rotate the key file: a new key first, then the old one forgotten', async () => {
    const legacy = await legacyDatabase('cli');
    const env = { DATABASE_URL: legacy.url };
    const made = await runCli({}, 'secrets', 'new-key');
    expect(made.code).toBe(0);
    const { key } = JSON.parse(made.out[0] ?? '{}') as { key: string };
    expect(parseSecretsKey(key)?.length).toBe(32);

    const first = await runCli(env, 'secrets', 'rotate');
    expect(first.code, first.err.join('\n')).toBe(0);
    const before = JSON.parse(first.out[0] ?? '{}') as { key_id: string };
    expect(before).toMatchObject({ key_source: 'file', reencrypted: 1, previous_key_ids: [] });

    const rotated = await runCli(env, 'secrets', 'rotate', '--new-key');
    expect(rotated.code, rotated.err.join('\n')).toBe(0);
    const report = JSON.parse(rotated.out[0] ?? '{}') as { key_id: string };
    expect(report).toMatchObject({
      reencrypted: 1,
      previous_key_ids: [before.key_id],
      previous_keys_in_use: [],
    });
    expect(report.key_id).not.toBe(before.key_id);
    const keyPath = keyFilePathFor(legacy.url) ?? '';
    expect(readKeyFile(keyPath)).toHaveLength(2);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);

    const dropped = await runCli(env, 'secrets', 'rotate', '--drop-previous');
    expect(dropped.code, dropped.err.join('\n')).toBe(0);
    expect(JSON.parse(dropped.out[0] ?? '{}')).toMatchObject({ key_id: report.key_id, previous_key_ids: [] });
    const keys = readKeyFile(keyPath);
    expect(keys).toHaveLength(1);
    const database = await openNodeDatabase(legacy.url);
    try {
      const row = await storedRow(database, legacy.id);
      expect(await openEndpointSecret(createSecretKeyring(keys[0]), legacy.id, row.secret)).toBe(
        legacy.secret,
      );
    } finally {
      database.client.close();
    }

    // With SECRETS_KEY set the file is not the CLI's to change.
    const refused = await runCli({ ...env, SECRETS_KEY: KEY_A }, 'secrets', 'rotate', '--new-key');
    expect(refused.code).toBe(1);
    expect(refused.err.join('\n')).toContain(
      '--new-key changes the key file, and the keys come from SECRETS_KEY',
    );
  });
});
