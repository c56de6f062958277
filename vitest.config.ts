// Test projects: `node` runs the suites in Node (in-process app and real sockets); `workers` and `worker-node` the Worker's.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/worker/**', 'test/browser/**', 'node_modules/**'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // The web interface in Debian's Chromium (playwright-core, /usr/bin/chromium) against the real Node server.
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      // The Worker host: its suites inside workerd (vitest.workers.config.ts) and its Node-side checks
      // (bundle, remote migrations, `npm run dev:worker`).
      './vitest.workers.config.ts',
      {
        test: {
          name: 'worker-node',
          include: ['test/worker/node/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
