// Password hashing: scrypt at one of OWASP's settings (N=2^14, r=8, p=5: 16 MiB) on both hosts, so a hash made by one
// verifies on the other over a shared database; native on Node (node:crypto, off the event loop), plain JavaScript
// in the Worker (src/auth/scrypt.ts). PBKDF2-SHA256 hashes of earlier versions still verify and are replaced at the
// next sign-in (passwordNeedsRehash).
import { constantTimeEqual, toHex, utf8 } from './crypto.ts';
import { type ScryptParameters, scryptWeb } from './scrypt.ts';

/** The setting every new hash gets; 128 * N * r = 16 MiB of work area per hash. */
export const SCRYPT_PARAMETERS: ScryptParameters = { N: 16_384, r: 8, p: 5 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** The most a stored hash may ask for: 32 MiB of work area (what the Worker can spare) and 4x the CPU of ours. */
const MAX_WORK_BYTES = 32 * 1024 * 1024;
const MAX_COST = 4 * SCRYPT_PARAMETERS.N * SCRYPT_PARAMETERS.r * SCRYPT_PARAMETERS.p;
/** PBKDF2 of earlier versions: read only; workerd caps an iteration count at 100,000. */
const LEGACY_PBKDF2_MAX_ITERATIONS = 100_000;
/** Native hashes running at once on Node: each holds a libuv pool thread (4 by default, shared with file I/O). */
const NATIVE_AT_ONCE = 2;

/** The setting hashPassword uses: SCRYPT_PARAMETERS, except in the Node test suite (setScryptParametersForTests). */
let current: ScryptParameters = SCRYPT_PARAMETERS;

/**
 * Tests only: the Node suite makes hundreds of hashes and lowers the setting for them (test/password-cost.ts); the
 * production setting is tested by test/auth/passwords.test.ts and in workerd. Answers the setting it replaces.
 */
export function setScryptParametersForTests(parameters: ScryptParameters): ScryptParameters {
  const previous = current;
  current = parameters;
  return previous;
}

/** The part of node:crypto used here (declared, so the Worker's type check, without Node's types, reads it too). */
interface NodeScrypt {
  scrypt(
    password: Uint8Array,
    salt: Uint8Array,
    keyLength: number,
    options: { N: number; r: number; p: number; maxmem: number },
    callback: (error: Error | null, key: Uint8Array) => void,
  ): void;
}

type Scrypt = (
  password: Uint8Array<ArrayBuffer>,
  salt: Uint8Array<ArrayBuffer>,
  parameters: ScryptParameters,
  keyLength: number,
) => Promise<Uint8Array<ArrayBuffer>>;

/**
 * node:crypto's scrypt where the process is Node (process.getBuiltinModule, Node 20.16+): workerd is ruled out by
 * its user agent, as the production Worker has no node:crypto and its tests must run the code it runs.
 */
function nativeScrypt(): Scrypt | undefined {
  const host = globalThis as {
    navigator?: { userAgent?: string };
    process?: { getBuiltinModule?: (id: string) => unknown };
  };
  if (host.navigator?.userAgent === 'Cloudflare-Workers') return undefined;
  const nodeCrypto = host.process?.getBuiltinModule?.('node:crypto') as NodeScrypt | undefined;
  if (!nodeCrypto) return undefined;
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (password, salt, { N, r, p }, keyLength) => {
    // A burst of sign-ins queues here, not in the thread pool, and holds at most NATIVE_AT_ONCE work areas.
    if (running >= NATIVE_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) =>
        nodeCrypto.scrypt(
          password,
          salt,
          keyLength,
          // The work area plus the p blocks and some room; it refuses anything larger rather than allocate it.
          { N, r, p, maxmem: 2 * 128 * N * r + 128 * r * p },
          (error, key) => (error ? reject(error) : resolve(new Uint8Array(key))),
        ),
      );
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

const scrypt: Scrypt = nativeScrypt() ?? scryptWeb;

function fromHex(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^(?:[0-9a-f]{2})+$/.test(text)) return null;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function scryptPrefix({ N, r, p }: ScryptParameters): string {
  return `scrypt$n=${N},r=${r},p=${p}$`;
}

/** Returns `scrypt$n=16384,r=8,p=5$<salt hex>$<hash hex>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const key = await scrypt(utf8(password), salt, current, KEY_BYTES);
  return `${scryptPrefix(current)}${toHex(salt)}$${toHex(key)}`;
}

/** Whether a stored hash is of another kind or setting than hashPassword makes now (to replace after a sign-in). */
export function passwordNeedsRehash(stored: string): boolean {
  return !stored.startsWith(scryptPrefix(current));
}

/** The parameters of a stored scrypt hash, or null when they are malformed or beyond what is allowed. */
function storedScryptParameters(text: string): ScryptParameters | null {
  const match = /^n=(\d{1,10}),r=(\d{1,3}),p=(\d{1,3})$/.exec(text);
  if (!match) return null;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const valid =
    N >= 2 &&
    (N & (N - 1)) === 0 &&
    r >= 1 &&
    p >= 1 &&
    128 * N * r <= MAX_WORK_BYTES &&
    N * r * p <= MAX_COST;
  return valid ? { N, r, p } : null;
}

async function pbkdf2Hex(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<string> {
  const key = await crypto.subtle.importKey('raw', utf8(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    256,
  );
  return toHex(new Uint8Array(bits));
}

/** Whether `password` matches `stored` (scrypt, or PBKDF2-SHA256 of earlier versions); the hashes compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, settings = '', saltHex = '', hashHex = '', ...rest] = stored.split('$');
  const salt = fromHex(saltHex);
  const hash = fromHex(hashHex);
  if (rest.length > 0 || !salt || !hash || hash.length < 16 || hash.length > 64) return false;
  if (algorithm === 'scrypt') {
    const parameters = storedScryptParameters(settings);
    if (!parameters) return false;
    const key = await scrypt(utf8(password), salt, parameters, hash.length);
    return constantTimeEqual(toHex(key), hashHex);
  }
  if (algorithm === 'pbkdf2-sha256') {
    const iterations = Number(settings);
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > LEGACY_PBKDF2_MAX_ITERATIONS)
      return false;
    return constantTimeEqual(await pbkdf2Hex(password, salt, iterations), hashHex);
  }
  return false;
}

export const MIN_PASSWORD_LENGTH = 10;
