// Secrets the service must read back (webhook signing secrets) are kept encrypted: AES-256-GCM by WebCrypto (Node and
// workerd alike) under SECRETS_KEY, as `enc:v1:<key id>:<iv>:<ciphertext>`, so a row names the key that reads it and
// keys from before a rotation (SECRETS_KEY_PREVIOUS) still read their rows until they are encrypted again.

import { fromBase64, toBase64Url, toHex, utf8 } from '../auth/crypto.ts';
import { AppError } from '../errors.ts';

const FORMAT = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/** What the operator is told when a secret must be stored and no key is set (the Worker without its secret). */
export const NO_SECRETS_KEY_MESSAGE =
  'Webhook signing secrets are stored encrypted and this server has no SECRETS_KEY: the operator must set one ' +
  '(docs/security.md, "Secrets at rest") before webhook endpoints can be added or their secrets rotated.';

/** The 32 key bytes of SECRETS_KEY text (64 hex digits, or base64/base64url of 32 bytes); null for anything else. */
export function parseSecretsKey(text: string): Uint8Array<ArrayBuffer> | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value))
    return Uint8Array.from(value.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  const bytes = fromBase64(value);
  return bytes?.length === KEY_BYTES ? bytes : null;
}

/** A new key as SECRETS_KEY takes it (base64 of 32 random bytes): what `compliance-mcp secrets new-key` prints. */
export function newSecretsKey(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(KEY_BYTES))));
}

/** A secret that cannot be read: its key is not configured, or the ciphertext does not decrypt (altered or moved). */
export class SecretUnreadableError extends Error {}

export interface SecretKeyring {
  /** A current key is set: secrets can be stored. Without one, stored ones from before encryption are still read. */
  readonly available: boolean;
  /** Encrypts under the current key; `context` (e.g. the row's table and id) must be given again to decrypt. */
  seal(plaintext: string, context: string): Promise<string>;
  /** The plaintext of a sealed value; a value without the `enc:` prefix was stored before encryption and is returned as is. */
  open(stored: string, context: string): Promise<string>;
  /** Whether `stored` is sealed under the current key (false for plaintext and for a previous key's values). */
  isCurrent(stored: string): Promise<boolean>;
  /** The key id `stored` names, or null for plaintext. */
  keyIdOf(stored: string): string | null;
  /** The ids of the current key (null without one) and of the previous keys. */
  keyIds(): Promise<{ current: string | null; previous: string[] }>;
}

interface LoadedKey {
  id: string;
  key: CryptoKey;
}

/** The key's id: 8 hex digits of a labelled SHA-256 of it (names the key in each value, reveals nothing of it). */
async function loadKey(bytes: Uint8Array<ArrayBuffer>): Promise<LoadedKey> {
  const label = utf8('compliance-mcp secrets key id\n');
  const labelled = new Uint8Array(label.length + bytes.length);
  labelled.set(label);
  labelled.set(bytes, label.length);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', labelled));
  const key = await crypto.subtle.importKey('raw', bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
  return { id: toHex(digest.subarray(0, 4)), key };
}

/** The associated data: the format, the key id and the caller's context, so a value moved to another row fails. */
function associatedData(keyId: string, context: string): Uint8Array<ArrayBuffer> {
  return utf8(`${FORMAT}${keyId}\n${context}`);
}

/**
 * A keyring over the key texts of the configuration (already checked by loadConfig): `current` encrypts and reads,
 * `previous` only read. The keys are imported on first use and kept (never a pending promise shared by requests).
 */
export function createSecretKeyring(
  current: string | undefined,
  previous: readonly string[] = [],
): SecretKeyring {
  const texts = [current, ...previous].filter((text): text is string => text !== undefined);
  const bytes = texts.map((text) => {
    const parsed = parseSecretsKey(text);
    if (!parsed) throw new Error('A secrets key is not 32 bytes in base64 or hex.');
    return parsed;
  });
  let loaded: LoadedKey[] | undefined;
  const keys = async () => {
    loaded ??= await Promise.all(bytes.map(loadKey));
    return loaded;
  };
  const currentKey = async () => (current === undefined ? undefined : (await keys())[0]);
  const keyIdOf = (stored: string) =>
    stored.startsWith(FORMAT) ? (stored.slice(FORMAT.length).split(':')[0] ?? null) : null;

  return {
    available: current !== undefined,
    async seal(plaintext, context) {
      const key = await currentKey();
      if (!key) throw new AppError('conflict', NO_SECRETS_KEY_MESSAGE);
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: associatedData(key.id, context) },
        key.key,
        utf8(plaintext),
      );
      return `${FORMAT}${key.id}:${toBase64Url(iv)}:${toBase64Url(new Uint8Array(sealed))}`;
    },
    async open(stored, context) {
      if (!stored.startsWith('enc:')) return stored;
      const [keyId = '', ivText = '', sealedText = '', ...rest] = stored.slice(FORMAT.length).split(':');
      const iv = fromBase64(ivText);
      const sealed = fromBase64(sealedText);
      if (!stored.startsWith(FORMAT) || rest.length > 0 || !iv || iv.length !== IV_BYTES || !sealed)
        throw new SecretUnreadableError(
          'A stored secret is not in a format this version reads (enc:v1:...).',
        );
      const key = (await keys()).find((candidate) => candidate.id === keyId);
      if (!key)
        throw new SecretUnreadableError(
          `A stored secret is encrypted with key ${keyId}, which is neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS.`,
        );
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv, additionalData: associatedData(keyId, context) },
          key.key,
          sealed,
        );
        return new TextDecoder().decode(plain);
      } catch {
        throw new SecretUnreadableError(
          `A stored secret does not decrypt with key ${keyId}: it was altered or copied from another row.`,
        );
      }
    },
    async isCurrent(stored) {
      const key = await currentKey();
      return key !== undefined && keyIdOf(stored) === key.id;
    },
    keyIdOf,
    async keyIds() {
      const all = (await keys()).map((key) => key.id);
      return current === undefined
        ? { current: null, previous: all }
        : { current: all[0] ?? null, previous: all.slice(1) };
    },
  };
}
