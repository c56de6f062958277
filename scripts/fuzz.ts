// Fuzzes every tool on both surfaces from the published input schemas and prints what must never happen.
// Usage: npm run fuzz -- [--seed N] [--count N]   (exits 1 when a count that must be 0 is not)
import { parseArgs } from 'node:util';
import { fuzzPassed, runFuzz } from './fuzz-engine.ts';

const { values } = parseArgs({
  options: { seed: { type: 'string', default: '1' }, count: { type: 'string', default: '2000' } },
});
const seed = Number(values.seed);
const count = Number(values.count);
if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
  console.error('usage: npm run fuzz -- [--seed N] [--count N]');
  process.exit(2);
}
const started = performance.now();
const report = await runFuzz({ seed, count, log: (line) => console.error(line) });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `fuzz: seed ${report.seed}, ${report.calls} calls (direct ${report.bySurface.direct}, mcp ${report.bySurface.mcp}) in ${seconds} s`,
);
console.log(`  succeeded               ${report.succeeded}`);
console.log(`  error codes             ${JSON.stringify(report.codes)}`);
console.log(`  5xx                     ${report.serverErrors}`);
console.log(`  internal                ${report.internal}`);
console.log(`  codes outside the set   ${report.unknownCodes}`);
console.log(`  output-schema failures  ${report.outputSchemaFailures}`);
console.log(`  cross-organization leaks ${report.leaks}`);
console.log(
  `  JSON-RPC refusals       ${report.protocolRefusals} (arguments that are not an object; not failures)`,
);
process.exitCode = fuzzPassed(report) ? 0 : 1;
