// Node side of the Worker tests: a migrated temp database with the contract's world, served by the Hrana dev server.
import type { TestProject } from 'vitest/node';
import { startHranaServer } from '../../../scripts/dev/hrana-server.ts';
import { seedContractWorld } from '../../contract/seed.node.ts';
import { createTestRuntime } from '../../helpers.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runtime = await createTestRuntime({ loopbackOnly: false });
  const world = await seedContractWorld(runtime);
  // The Worker must send LIBSQL_AUTH_TOKEN, as it would to Turso or sqld.
  const authToken = `dev-${crypto.randomUUID()}`;
  const server = await startHranaServer({ databaseUrl: runtime.config.databaseUrl, authToken });
  project.provide('libsqlUrl', server.url);
  project.provide('libsqlAuthToken', authToken);
  project.provide('contractWorld', world);
  // Opt-in: waits for a CLI-revoked token's KV entry to expire (about 60 s).
  return async () => {
    await server.close();
    await runtime.cleanup();
  };
}
