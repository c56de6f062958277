// Types of `cloudflare:workers` in the workerd-side tests: the Worker's bindings and its main module's exports.
import type { Env as WorkerEnv } from '../../src/worker.ts';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
    interface GlobalProps {
      mainModule: typeof import('../../src/worker.ts');
    }
  }
}
