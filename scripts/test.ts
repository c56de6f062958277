// `npm test`: the type checks (tsconfig.json, then test/worker/tsconfig.json) run beside the whole vitest run instead
// of before it, their output held and printed after vitest's summary. The run is CPU-bound on two cores but leaves
// one idle at times (modules loading at the start, the KV file's wait, `wrangler dev` alone at the end), and the type
// checks fill that. Arguments go to vitest (`npm test -- test/core/records.test.ts`). Exits non-zero when either fails.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(process.cwd(), 'node_modules', '.bin');

/** Runs a command; its output is inherited, or collected and answered when `hold` is set. */
function run(command: string, args: string[], hold: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', (error) => resolve({ code: 1, output: `${command}: ${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function typeChecks(): Promise<{ code: number; output: string }> {
  const tsc = join(BIN, 'tsc');
  const root = await run(tsc, ['--noEmit'], true);
  const worker = await run(tsc, ['--noEmit', '-p', 'test/worker/tsconfig.json'], true);
  return { code: root.code || worker.code, output: root.output + worker.output };
}

const [checked, tested] = await Promise.all([
  typeChecks(),
  run(join(BIN, 'vitest'), ['run', ...process.argv.slice(2)], false),
]);
if (checked.code !== 0) {
  process.stdout.write(
    `\nType checks failed (tsc --noEmit, then -p test/worker/tsconfig.json):\n${checked.output}`,
  );
} else {
  process.stdout.write('\nType checks passed (tsconfig.json and test/worker/tsconfig.json).\n');
}
process.exit(checked.code !== 0 ? 1 : tested.code);
