// A runtime on a freshly migrated database file in a temporary directory, without rate limit unless `env` sets one:
// for the benchmarks and the fuzzer, which drive the app in process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrganization, createUser } from '../src/accounts.ts';
import { nodeSha256Hex } from '../src/auth/node-hash.ts';
import { createMemoryTokenCache } from '../src/auth/token-cache.ts';
import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openNodeDatabase } from '../src/db/open-node.ts';
import { nodeFileRuntime } from '../src/files/node.ts';
import { createRuntime } from '../src/runtime.ts';

export async function createScratchRuntime(name: string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), `cmcp-${name}-`));
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
    RATE_LIMIT_PER_MINUTE: '0',
    FILES_DIR: join(dir, 'files'),
    ...env,
  });
  const database = await openNodeDatabase(config.databaseUrl);
  await migrateDatabase(database);
  const runtime = createRuntime({
    config,
    database,
    cache: createMemoryTokenCache(),
    loopbackOnly: true,
    // As the Node host hashes tokens (src/node.ts).
    hashToken: nodeSha256Hex,
    usageFlush: 'host',
    log: () => {},
    // As the Node host stores files (src/node.ts): in FILES_DIR, hashed while they stream in.
    files: nodeFileRuntime(config),
  });
  return {
    runtime,
    database,
    /** A user (their password returned) who owns a new organization and holds a read_write token for all of theirs. */
    async owner(email: string, organizationName: string) {
      const now = new Date();
      const password = `${email} password`;
      const user = await createUser(database.db, now, { emailVerified: true, email, password });
      const organization = await createOrganization(database.db, now, {
        name: organizationName,
        ownerId: user.id,
      });
      const { token } = await runtime.tokens.create({
        userId: user.id,
        name: 'bench',
        scope: 'read_write',
        organizationIds: null,
        expiresAt: null,
      });
      return { userId: user.id, organizationId: organization.id, token, password };
    },
    /** Closes the database and removes the directory. */
    close() {
      database.client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
