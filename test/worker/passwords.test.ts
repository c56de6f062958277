// Password hashes in workerd, at the production setting: the plain-JavaScript scrypt verifies a hash node:crypto made
// (a database shared with a Node host), hashes its own, and replaces a PBKDF2 hash of earlier versions at sign-in.
import { exports } from 'cloudflare:workers';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts.ts';
import { hashPassword, passwordNeedsRehash, verifyPassword } from '../../src/auth/passwords.ts';
import { users } from '../../src/db/schema.ts';
import { browserSession } from '../browser-session.ts';
import { BASE } from '../contract/host.ts';
import { HASHED_PASSWORD, LEGACY_PBKDF2_HASH, NODE_SCRYPT_HASH } from '../password-hashes.ts';
import { testDatabase } from './helpers.ts';

describe('password hashes on the Worker', () => {
  it('verifies a hash made by node:crypto and makes ones at the same setting', async () => {
    expect(await verifyPassword(HASHED_PASSWORD, NODE_SCRYPT_HASH)).toBe(true);
    expect(await verifyPassword('not the password', NODE_SCRYPT_HASH)).toBe(false);
    const made = await hashPassword(HASHED_PASSWORD);
    expect(made).toMatch(/^scrypt\$n=16384,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(await verifyPassword(HASHED_PASSWORD, made)).toBe(true);
    expect(passwordNeedsRehash(made)).toBe(false);
  });

  it('replaces a PBKDF2 hash of earlier versions at the next sign-in through the Worker', async () => {
    const database = testDatabase();
    const email = `legacy-${crypto.randomUUID()}@example.com`;
    const user = await createUser(database.db, new Date(), {
      emailVerified: true,
      email,
      password: HASHED_PASSWORD,
      passwordHash: LEGACY_PBKDF2_HASH,
    });
    const session = browserSession((request) => exports.default.fetch(request), BASE);
    expect((await session.signIn({ email, password: HASHED_PASSWORD })).status).toBe(303);
    const [row] = await database.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.password_hash).toMatch(/^scrypt\$n=16384,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(await verifyPassword(HASHED_PASSWORD, row?.password_hash ?? '')).toBe(true);
    database.client.close();
  });
});
