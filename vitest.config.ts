// Test projects: `node` runs the suites in Node (in-process app and real sockets); `workers`, `worker-bundle` and
// `worker-node` the Worker's.
import { defineConfig } from 'vitest/config';
import { useMemoryTmpdir } from './test/memory-tmpdir.ts';
import { LongestFirstSequencer } from './test/sequencer.ts';

// Temporary files (every test database among them) on /dev/shm when it has room: test/memory-tmpdir.ts.
useMemoryTmpdir();

const WRANGLER_BUNDLE_SUITE = 'test/worker/node/bundle.test.ts';

// Every file records the assertions each test reached (npm run test:assertions adds them up), and hashes passwords
// at a cheap setting (test/password-cost.ts).
const setupFiles = ['test/assertion-count.ts', 'test/password-cost.ts'];

/** The Node suites: in-process app and real sockets (test:quick runs part of them, vitest.quick.config.ts). */
export const NODE_PROJECT = {
  name: 'node',
  include: ['test/**/*.test.ts'],
  exclude: ['test/worker/**', 'test/browser/**', 'node_modules/**'],
  environment: 'node',
  // A worker runs file after file with its modules loaded once (the app graph takes ~2 s to import):
  // nothing in src/ or test/ keeps state at module scope that one file could leave to the next.
  isolate: false,
  setupFiles,
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  test: {
    // Files of every project share these workers (vitest's default on two cores is one). One more than the cores:
    // the KV test waits about 60 s and the browser and wrangler files wait on their child processes.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { test: NODE_PROJECT },
      // The web interface in Chromium (playwright-core; test/browser/chromium.ts finds it) against the real Node server.
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/chromium.ts'],
          environment: 'node',
          // As the node project: one worker runs file after file with the app and playwright-core loaded once. Each
          // file in a process of its own took 150 s of CPU for the project; 72 s this way.
          isolate: false,
          setupFiles,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      // The Worker host: its suites inside workerd (vitest.workers.config.ts) and its Node-side checks (bundle,
      // remote migrations, `npm run dev:worker`).
      './vitest.workers.config.ts',
      // `wrangler deploy --dry-run` (bundle.test.ts) runs with the others, never beside `wrangler dev` (worker-node).
      {
        test: {
          name: 'worker-bundle',
          include: [WRANGLER_BUNDLE_SUITE],
          environment: 'node',
          setupFiles,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // `npm run dev:worker` (wrangler dev under 64 connections), then the remote migrations, after all the others
      // and one at a time, as before: beside other files wrangler dev restarted its Worker mid-request (503s to the
      // 64 connections), and so it did alone on a loaded machine.
      {
        test: {
          name: 'worker-node',
          include: ['test/worker/node/**/*.test.ts'],
          exclude: [WRANGLER_BUNDLE_SUITE],
          environment: 'node',
          setupFiles,
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
