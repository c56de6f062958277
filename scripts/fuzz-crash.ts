// Crash test of the Node host: kill -9 under write load, restart, check integrity, writes and their call-log rows.
// Then the same for stored files: kill -9 during uploads, upkeep, 0 rows without a blob and 0 blobs without a row.
// Usage: npm run fuzz:crash -- [--rounds N] [--writes N] [--concurrency N] [--uploads N] [--webhooks]
//        (exits 1 when something was lost)
import { parseArgs } from 'node:util';
import { crashPassed, runCrashTest } from './fuzz-crash-engine.ts';
import { runFileCrashTest } from './fuzz-crash-files.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    writes: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '16' },
    uploads: { type: 'string', default: '100' },
    webhooks: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const writesPerRound = Number(values.writes);
const concurrency = Number(values.concurrency);
if (![rounds, writesPerRound, concurrency].every((n) => Number.isInteger(n) && n > 0)) {
  console.error('usage: npm run fuzz:crash -- [--rounds N] [--writes N] [--concurrency N] [--webhooks]');
  process.exit(2);
}
const started = performance.now();
const report = await runCrashTest({
  rounds,
  writesPerRound,
  concurrency,
  webhooks: values.webhooks,
  log: (line) => console.error(line),
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`crash: ${report.rounds.length} kill -9 rounds, ${concurrency} writers, in ${seconds} s`);
console.log(`  acknowledged writes           ${report.acknowledged}`);
console.log(`  acknowledged writes lost      ${report.lostWrites}`);
console.log(`  writes without a call-log row ${report.missingLogRows}`);
console.log(`  call-log rows without a write ${report.extraLogRows}`);
console.log(`  integrity_check failures      ${report.integrityFailures}`);
console.log(`  restarted after the last kill ${report.restarted ? 'yes' : 'no'}`);
if (report.webhooks) {
  const hooks = report.webhooks;
  console.log(`  webhook events                ${hooks.events}`);
  console.log(`  webhook events lost           ${hooks.lost}`);
  console.log(`  repeated, same webhook-id     ${hooks.repeatedSameId}`);
  console.log(`  repeated under another id     ${hooks.repeatedOtherId}`);
  console.log(`  bad signatures                ${hooks.badSignatures}`);
}
const files = await runFileCrashTest({
  uploads: Number(values.uploads) || 100,
  concurrency,
  log: (line) => console.error(line),
});
console.log(`crash of stored files: kill -9 during uploads (${concurrency} uploaders), then upkeep`);
console.log(`  acknowledged uploads          ${files.acknowledged}`);
console.log(`  blobs without a row, before   ${files.orphanBlobsBeforeUpkeep}`);
console.log(`  rows without a blob           ${files.rowsWithoutBlob}`);
console.log(`  blobs without a row           ${files.blobsWithoutRow}`);
console.log(`  acknowledged uploads damaged  ${files.damagedUploads}`);
const filesPassed = files.rowsWithoutBlob === 0 && files.blobsWithoutRow === 0 && files.damagedUploads === 0;
process.exitCode = crashPassed(report) && filesPassed ? 0 : 1;
