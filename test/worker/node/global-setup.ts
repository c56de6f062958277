// Global setup of the `workers` project: starts serve-for-workers.ts (databases with the contract's world behind the
// Hrana dev server, SMTP and webhook receivers) in a child process and provides its addresses to the test files.
// A child process, because vitest imports a global setup through Vite, which took ~9 s to load the app's modules
// before any test file of any project could start; tsx loads them in ~1.5 s.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { WorkerTestServices } from './provided.d.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'test/worker/node/serve-for-workers.ts'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => String(line)),
    exited.then(([code]) => {
      throw new Error(`serve-for-workers.ts exited (${code}) before it served`);
    }),
  ]);
  const services = JSON.parse(first) as WorkerTestServices;
  for (const [key, value] of Object.entries(services))
    project.provide(key as keyof WorkerTestServices, value);
  return async () => {
    child.stdin.end();
    await exited;
  };
}
