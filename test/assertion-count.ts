// Records in each test's meta how many assertions it reached (expect calls, hooks included), for vitest's JSON
// report: npm run test:assertions adds them up.
import { afterEach, expect } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    assertionCalls?: number;
  }
}

afterEach((context) => {
  // A test that uses the `expect` of its context counts there, not in the global one.
  const local = (context as unknown as { _local?: boolean })._local === true;
  context.task.meta.assertionCalls = (local ? context.expect : expect).getState().assertionCalls;
});
