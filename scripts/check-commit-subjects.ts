// Commit subjects a reader can scan: every commit after BASELINE has a subject under 72 characters (the detail goes in
// the body). Run by `npm run lint`. Older commits are left as they are: history is not rewritten.
import { execFileSync } from 'node:child_process';

/** The last commit before the rule (older subjects ran to a median of 145 characters). */
const BASELINE = '2e40cda7c65b156ba686189a4f9a78422c624d8c';
const MAX_SUBJECT = 71;

function git(...args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The subjects over the limit among `lines` (`<hash> <subject>`). */
function tooLong(lines: string[]): string[] {
  return lines.filter((line) => line.slice(line.indexOf(' ') + 1).length > MAX_SUBJECT);
}

function main(): void {
  try {
    git('cat-file', '-e', `${BASELINE}^{commit}`);
  } catch {
    // A shallow clone or an export without history: say so rather than pass quietly.
    console.log(
      `check-commit-subjects: commit ${BASELINE.slice(0, 7)} is not in this history; nothing checked.`,
    );
    return;
  }
  const lines = git('log', '--format=%h %s', `${BASELINE}..HEAD`).split('\n').filter(Boolean);
  const long = tooLong(lines);
  if (long.length === 0) {
    console.log(
      `check-commit-subjects: ${lines.length} commits since ${BASELINE.slice(0, 7)}, every subject under 72.`,
    );
    return;
  }
  console.error(`Commit subjects over ${MAX_SUBJECT} characters (put the detail in the body):`);
  for (const line of long) console.error(`  ${line}`);
  process.exitCode = 1;
}

main();
