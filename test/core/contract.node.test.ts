// The host contract (test/contract) against the Node host's app in process: the Worker runs the same code in workerd.
import { afterAll, beforeAll } from 'vitest';
import { type ContractHost, describeContract } from '../contract/index.ts';
import { seedContractWorld } from '../contract/seed.node.ts';
import { createTestRuntime, type TestRuntime } from '../helpers.ts';

let runtime: TestRuntime;
let host: ContractHost;

beforeAll(async () => {
  // Not loopback-only: the Worker's default, so both hosts answer Origin checks alike. No rate limit: Alice's token
  // calls every tool several times within a minute (the limit has tests of its own).
  runtime = await createTestRuntime({ loopbackOnly: false, env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const world = await seedContractWorld(runtime);
  host = { fetch: async (request) => runtime.app.fetch(request), world };
});

afterAll(async () => runtime.cleanup());

describeContract(() => host);
