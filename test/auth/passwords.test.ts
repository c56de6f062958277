// Password hashes at the production setting: scrypt N=2^14, r=8, p=5 (OWASP), the same bytes from node:crypto and
// from the plain-JavaScript scrypt the Worker runs; PBKDF2 hashes of earlier versions verified and replaced at sign-in.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts.ts';
import {
  hashPassword,
  passwordNeedsRehash,
  SCRYPT_PARAMETERS,
  setScryptParametersForTests,
  verifyPassword,
} from '../../src/auth/passwords.ts';
import { type ScryptParameters, scryptWeb } from '../../src/auth/scrypt.ts';
import { users } from '../../src/db/schema.ts';
import { createTestRuntime } from '../helpers.ts';
import { HASHED_PASSWORD, LEGACY_PBKDF2_HASH, NODE_SCRYPT_HASH } from '../password-hashes.ts';
import { WebClient } from '../web/web-client.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const hex = (value: Uint8Array) => Buffer.from(value).toString('hex');

// This file tests the production setting; the rest of the suite hashes at a cheap one (test/password-cost.ts).
let suiteSetting: ScryptParameters;
beforeAll(() => {
  suiteSetting = setScryptParametersForTests(SCRYPT_PARAMETERS);
});
afterAll(() => {
  setScryptParametersForTests(suiteSetting);
});

describe('password hashes', () => {
  it('hashes with scrypt at N=2^14, r=8, p=5 and a random salt, and verifies only the right password', async () => {
    expect(SCRYPT_PARAMETERS).toEqual({ N: 16_384, r: 8, p: 5 });
    const first = await hashPassword(HASHED_PASSWORD);
    const second = await hashPassword(HASHED_PASSWORD);
    expect(first).toMatch(/^scrypt\$n=16384,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword(HASHED_PASSWORD, first)).toBe(true);
    expect(await verifyPassword(HASHED_PASSWORD, second)).toBe(true);
    expect(await verifyPassword(`${HASHED_PASSWORD} `, first)).toBe(false);
    expect(await verifyPassword('', first)).toBe(false);
    expect(passwordNeedsRehash(first)).toBe(false);
  });

  it('gets the bytes of node:crypto from the plain-JavaScript scrypt the Worker runs (RFC 7914 vectors too)', async () => {
    expect(await verifyPassword(HASHED_PASSWORD, NODE_SCRYPT_HASH)).toBe(true);
    const [, , saltHex = '', hashHex = ''] = NODE_SCRYPT_HASH.split('$');
    const salt = Uint8Array.from(Buffer.from(saltHex, 'hex'));
    expect(hex(await scryptWeb(bytes(HASHED_PASSWORD), salt, SCRYPT_PARAMETERS, 32))).toBe(hashHex);
    expect(hex(await scryptWeb(bytes(''), bytes(''), { N: 16, r: 1, p: 1 }, 64))).toBe(
      '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
    );
    expect(hex(await scryptWeb(bytes('password'), bytes('NaCl'), { N: 1024, r: 8, p: 16 }, 64))).toBe(
      'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
    );
  });

  it('verifies a PBKDF2-SHA256 hash of earlier versions and marks it for a new hash', async () => {
    expect(await verifyPassword(HASHED_PASSWORD, LEGACY_PBKDF2_HASH)).toBe(true);
    expect(await verifyPassword('wrong password', LEGACY_PBKDF2_HASH)).toBe(false);
    expect(passwordNeedsRehash(LEGACY_PBKDF2_HASH)).toBe(true);
    expect(passwordNeedsRehash('scrypt$n=1024,r=8,p=1$00$00')).toBe(true);
  });

  it('refuses malformed hashes and settings beyond its bounds without computing them', async () => {
    const [, , salt = '', hash = ''] = NODE_SCRYPT_HASH.split('$');
    for (const stored of [
      `scrypt$n=1048576,r=8,p=1$${salt}$${hash}`, // 1 GiB of work area
      `scrypt$n=16384,r=8,p=50$${salt}$${hash}`, // 10x the CPU
      `scrypt$n=16383,r=8,p=5$${salt}$${hash}`, // not a power of two
      `scrypt$n=16384,r=8,p=5$${salt}$${hash}$`,
      `scrypt$n=16384,r=8,p=5$${salt}$${hash.slice(1)}`,
      `scrypt$n=16384,r=8,p=5$$${hash}`,
      `pbkdf2-sha256$1000000$${salt}$${hash}`,
      `md5$1$${salt}$${hash}`,
      'x',
      '',
    ])
      expect(await verifyPassword(HASHED_PASSWORD, stored), stored).toBe(false);
  });

  it('replaces a PBKDF2 hash at the next sign-in with the right password, and not after a wrong one', async () => {
    const runtime = await createTestRuntime();
    try {
      const user = await createUser(runtime.database.db, new Date(), {
        emailVerified: true,
        email: 'legacy@example.com',
        password: HASHED_PASSWORD,
        passwordHash: LEGACY_PBKDF2_HASH,
      });
      const storedHash = async () =>
        (await runtime.database.db.select().from(users).where(eq(users.id, user.id)))[0]?.password_hash;
      expect((await new WebClient(runtime).signIn('legacy@example.com', 'not the password')).status).toBe(
        422,
      );
      expect(await storedHash()).toBe(LEGACY_PBKDF2_HASH);
      expect((await new WebClient(runtime).signIn('legacy@example.com', HASHED_PASSWORD)).status).toBe(303);
      const upgraded = (await storedHash()) ?? '';
      expect(upgraded).toMatch(/^scrypt\$n=16384,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
      expect(await verifyPassword(HASHED_PASSWORD, upgraded)).toBe(true);
      // The new hash signs in, and is kept as it is.
      expect((await new WebClient(runtime).signIn('legacy@example.com', HASHED_PASSWORD)).status).toBe(303);
      expect(await storedHash()).toBe(upgraded);
    } finally {
      await runtime.cleanup();
    }
  });
});
