// The `workers` test project: test/worker/*.test.ts run inside workerd against the Worker entry (src/worker.ts),
// with bindings from wrangler.toml and LIBSQL_URL pointing at the Hrana dev server started by globalSetup.
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import type { Plugin } from 'vite';
import { defineProject } from 'vitest/config';

// Vite inlines node_modules for workerd and warns about each package that ships sourcemaps without their sources.
const quietMissingSourcemapSources: Plugin = {
  name: 'quiet-missing-sourcemap-sources',
  configResolved(config) {
    const warnOnce = config.logger.warnOnce.bind(config.logger);
    config.logger.warnOnce = (message, options) => {
      if (!message.includes('points to missing source files')) warnOnce(message, options);
    };
  },
};

export default defineProject({
  plugins: [
    quietMissingSourcemapSources,
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          LIBSQL_URL: inject('libsqlUrl'),
          LIBSQL_AUTH_TOKEN: inject('libsqlAuthToken'),
          // The Worker needs its public URL (the OAuth issuer): the address the tests send requests to.
          PUBLIC_URL: 'http://127.0.0.1:8787',
          // A Worker secret in production (wrangler secret put SECRETS_KEY); a fixed test key here.
          SECRETS_KEY: 'dGVzdCBrZXkgb2YgdGhlIHdvcmtlcmQgdGVzdHMgLS0=',
          // No per-token call limit: the contract calls each of the 144 tools on three surfaces with one token
          // within a minute; test/worker/worker-host.test.ts tests the limit with a runtime of its own.
          RATE_LIMIT_PER_MINUTE: '0',
        },
      },
    })),
  ],
  test: {
    name: 'workers',
    include: ['test/worker/*.test.ts'],
    globalSetup: ['test/worker/node/global-setup.ts'],
    setupFiles: ['test/assertion-count.ts'],
    // One Miniflare runs file after file with the Worker's modules loaded once (each file took ~5 s to load them):
    // the files share the database already, and KV holds only entries keyed by hashes of their own tokens.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
