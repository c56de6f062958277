// The Node side of the Worker tests, run as a child process by global-setup.ts: migrated temp databases with the
// contract's world, served by the Hrana dev server, and loopback SMTP and webhook receivers. It prints one JSON line
// of what the test files need (addresses, worlds), serves until its standard input closes, then stops everything.
import { startHranaServer } from '../../../scripts/dev/hrana-server.ts';
import { seedContractWorld } from '../../contract/seed.node.ts';
import { createTestRuntime } from '../../helpers.ts';
import type { WorkerTestServices } from './provided.d.ts';
import { startSmtpSink } from './smtp-sink.ts';
import { startWebhookSink } from './webhook-sink.ts';

/** A database seeded with the contract's world, served over Hrana HTTP behind the auth token. */
async function servedWorld(authToken: string) {
  const runtime = await createTestRuntime({ loopbackOnly: false });
  const world = await seedContractWorld(runtime);
  const server = await startHranaServer({ databaseUrl: runtime.config.databaseUrl, authToken });
  return {
    url: server.url,
    world,
    async close() {
      await server.close();
      await runtime.cleanup();
    },
  };
}

// The Worker must send LIBSQL_AUTH_TOKEN, as it would to Turso or sqld.
const authToken = `dev-${crypto.randomUUID()}`;
// The Worker's database, which the test files share as they run side by side, and one for the Cron upkeep case
// alone (test/worker/worker-host.test.ts): it counts the b-trees of a search index the others write to.
const [shared, upkeep] = await Promise.all([servedWorld(authToken), servedWorld(authToken)]);
// Notification emails from the Worker go to a real SMTP server on loopback (test/worker/notifications.test.ts).
const smtp = await startSmtpSink();
// Webhook deliveries from the Worker go to a receiver on loopback (test/worker/webhooks.test.ts).
const hooks = await startWebhookSink();

const services: WorkerTestServices = {
  webhookSinkUrl: hooks.url,
  smtpPort: smtp.smtpPort,
  smtpInboxUrl: smtp.inboxUrl,
  libsqlUrl: shared.url,
  libsqlAuthToken: authToken,
  contractWorld: shared.world,
  upkeepLibsqlUrl: upkeep.url,
  upkeepWorld: upkeep.world,
};
process.stdout.write(`${JSON.stringify(services)}\n`);

// Served until the parent closes our standard input (or ends, which closes it too).
process.stdin.resume();
process.stdin.once('end', async () => {
  await Promise.all([shared.close(), upkeep.close(), smtp.close(), hooks.close()]);
  process.exit(0);
});
