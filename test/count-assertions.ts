// Runs every test project and adds up the assertions each test reached (test/assertion-count.ts records them):
// `npm run test:assertions` prints the total, tests and assertions per file, and with `-- --tests` one line a test.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

interface Report {
  success: boolean;
  testResults: {
    name: string;
    assertionResults: { fullName: string; status: string; meta?: { assertionCalls?: number } }[];
  }[];
}

const dir = mkdtempSync(join(tmpdir(), 'cmcp-assertions-'));
const output = join(dir, 'report.json');
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${output}`],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const report = JSON.parse(readFileSync(output, 'utf8')) as Report;
rmSync(dir, { recursive: true, force: true });

let total = 0;
let tests = 0;
const rows: string[] = [];
for (const file of report.testResults) {
  const name = relative(process.cwd(), file.name);
  let sum = 0;
  for (const test of file.assertionResults) {
    const count = test.meta?.assertionCalls ?? 0;
    sum += count;
    tests += 1;
    if (process.argv.includes('--tests')) console.log(`${count}\t${name}\t${test.fullName}`);
  }
  total += sum;
  rows.push(
    `${String(file.assertionResults.length).padStart(5)} tests ${String(sum).padStart(6)} assertions  ${name}`,
  );
}
if (!process.argv.includes('--tests'))
  console.log(rows.sort((a, b) => a.slice(30).localeCompare(b.slice(30))).join('\n'));
console.log(`${report.testResults.length} files, ${tests} tests, ${total} assertions reached`);
process.exit(run.status ?? 1);
