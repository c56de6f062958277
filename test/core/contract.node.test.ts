// The host contract (test/contract) against the Node host's app in process: the Worker runs the same code in workerd.
import { afterAll, beforeAll } from 'vitest';
import { type ContractHost, describeContract } from '../contract/index.ts';
import { seedContractWorld } from '../contract/seed.node.ts';
import { createTestRuntime, type TestRuntime } from '../helpers.ts';

let runtime: TestRuntime;
let host: ContractHost;

beforeAll(async () => {
  // Not loopback-only: the Worker's default, so both hosts answer Origin checks alike.
  // The contract calls each of the 138 tools on three surfaces with one token within a minute, above the default 600
  // calls a minute; test/core/http.test.ts tests the limit.
  runtime = await createTestRuntime({ loopbackOnly: false, env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const world = await seedContractWorld(runtime);
  host = { fetch: async (request) => runtime.app.fetch(request), world };
});

afterAll(async () => runtime.cleanup());

describeContract(() => host);
