// The order test files start in: on two cores a run ends soonest when the files that take longest start first.
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files started first, in this order: the longest (measured), with the KV test third (it waits about 60 s for an
 * entry to expire while the other workers use the cores; started first, its first request met the burst of module
 * loading at the start and took 18 to 30 s). The workerd files are kept together and so are the node project's, so
 * that their workers (not isolated) run file after file without loading everything again. Every other file follows
 * in vitest's own order; the worker-node project runs after all of these (vitest.config.ts).
 */
const FIRST = [
  'test/browser/pages.test.ts',
  'test/core/search-pages.test.ts',
  'test/browser/web.test.ts',
  'test/worker/kv-token-cache.test.ts',
  'test/browser/oauth.test.ts',
  'test/browser/records.test.ts',
  'test/worker/contract.test.ts',
  'test/worker/oauth.test.ts',
  'test/worker/exports.test.ts',
  'test/worker/worker-host.test.ts',
  'test/core/fields.test.ts',
  'test/core/fuzz.test.ts',
  'test/core/search.test.ts',
  'test/core/query-plans.test.ts',
  'test/core/conformance.test.ts',
  'test/web/accounts.test.ts',
  'test/worker/node/dev-worker.test.ts',
  'test/worker/node/remote-migrate.test.ts',
  'test/worker/node/bundle.test.ts',
];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => {
      const index = FIRST.indexOf(relative(root, spec.moduleId));
      return index === -1 ? FIRST.length : index;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
