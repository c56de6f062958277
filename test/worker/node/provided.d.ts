// Values the workers project's globalSetup (Node) hands to the pool options and to the tests in workerd: what
// serve-for-workers.ts prints, each provided under its own name.
import type { ContractWorld } from '../../contract/host.ts';

export interface WorkerTestServices {
  libsqlUrl: string;
  libsqlAuthToken: string;
  contractWorld: ContractWorld;
  /** A second database with a world of its own, for the Cron upkeep case (test/worker/worker-host.test.ts). */
  upkeepLibsqlUrl: string;
  upkeepWorld: ContractWorld;
  /** A real SMTP server on loopback, and the HTTP page listing the messages it received (JSON). */
  smtpPort: number;
  smtpInboxUrl: string;
  /** A webhook receiver on loopback: deliveries to `<url>/hook`, the list of them at `<url>/received` (JSON). */
  webhookSinkUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext extends WorkerTestServices {}
}
