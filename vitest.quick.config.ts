// `npm run test:quick`: the node project's in-process suites (tools on every surface, auth, tokens, the web pages
// rendered) without the files that are slow or drive real sockets, child processes and large data sets; about a
// minute on two cores. `npm test` stays the whole truth: run it before pushing.
import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { NODE_PROJECT } from './vitest.config.ts';

/** Left out of the quick run, each for its time (seconds measured in a whole run) or its real sockets and processes. */
const SLOW = [
  'test/webhooks/crash.test.ts', // kill -9 of a child host, 60 s
  'test/core/search-pages.test.ts', // thousands of records read each way, 40 s
  'test/core/query-plans.test.ts', // every list query explained, 17 s
  'test/core/fields.test.ts', // every field's edge values, 12 s
  'test/core/http-edge.test.ts', // slow clients on real sockets, 12 s
  'test/core/fuzz.test.ts', // 600 hostile calls, 10 s
  'test/core/search.test.ts', // search over large registers, 10 s
  'test/core/conformance.test.ts', // the MCP conformance suite in a child process
  'test/core/filters.test.ts', // every filter of every register, 9 s
  'test/core/mcp-differential.test.ts', // 600 requests two ways
  'test/core/idempotency-kill.test.ts', // kill -9 of a child host
  'test/core/node-build.test.ts', // esbuild of the Node host
  'test/core/upload-backpressure.test.ts', // real sockets
  'test/core/files-http.test.ts', // real sockets, 100 MB bodies
  'test/core/client-limits.test.ts', // every toolset selection against client limits
  'test/core/list-statements.test.ts',
  'test/dev/hrana-server.test.ts', // the Worker's dev database server
  'test/oauth/flow.test.ts', // whole OAuth flows, 9 s
  'test/webhooks/delivery.test.ts', // real receivers and retries
  'test/core/notifications.test.ts', // a real SMTP server
  'test/web/accounts.test.ts', // sign-in limits over windows of time, 18 s
  'test/core/input-limits-host.test.ts', // a Node host in its own process, 9 s
  'test/core/patterns.test.ts', // every pattern timed on its worst inputs, 7 s
];
for (const file of SLOW) if (!existsSync(file)) throw new Error(`vitest.quick.config.ts: no file ${file}`);

export default defineConfig({
  test: {
    maxWorkers: 3,
    // Modules transformed once are kept in node_modules/.experimental-vitest-cache for the next quick run (the habit
    // before each commit). npm test does not use it: it transforms everything afresh.
    experimental: { fsModuleCache: true },
    projects: [{ test: { ...NODE_PROJECT, name: 'quick', exclude: [...NODE_PROJECT.exclude, ...SLOW] } }],
  },
});
