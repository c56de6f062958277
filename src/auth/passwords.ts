// Password hashing with PBKDF2-SHA256 from WebCrypto (100,000 iterations, the Workers maximum) and a per-user salt.
import { constantTimeEqual, toHex } from './crypto.ts';

const ITERATIONS = 100_000;
const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    key,
    256,
  );
  return toHex(new Uint8Array(bits));
}

/** Returns `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `pbkdf2-sha256$${ITERATIONS}$${toHex(salt)}$${await derive(password, salt, ITERATIONS)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, iterationsText, saltHex, hashHex] = stored.split('$');
  if (algorithm !== 'pbkdf2-sha256' || !iterationsText || !saltHex || !hashHex) return false;
  const iterations = Number(iterationsText);
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > ITERATIONS) return false;
  const salt = new Uint8Array(saltHex.match(/../g)?.map((pair) => Number.parseInt(pair, 16)) ?? []);
  return constantTimeEqual(await derive(password, salt, iterations), hashHex);
}

export const MIN_PASSWORD_LENGTH = 10;
