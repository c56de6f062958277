// The TypeScript files under a folder, recursively: what the tests that read the source itself walk
// (test/core/patterns.test.ts, test/web/structure.test.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}
