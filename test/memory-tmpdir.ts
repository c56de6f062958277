// Where the test run keeps its temporary files. Every test database is a file in the temporary directory, written in
// WAL mode with a sync on each commit: on a disk those syncs were half the node project's time (test/core/records:
// 34 s of tests on /tmp, 14 s on /dev/shm). So the run keeps its temporary files in a directory of its own on
// /dev/shm when that is a memory file system with room to spare (containers often give it 64 MB), and removes the
// directory when the run ends. Nothing else changes: the files are the same files, synced the same way.
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** Room /dev/shm must have free before the run uses it: the largest suites write a few hundred MB. */
const NEEDED_BYTES = 2 * 1024 ** 3;
const MEMORY_FS = '/dev/shm';

/**
 * Points TMPDIR (read by os.tmpdir() in this process and every worker and child it starts) at a fresh directory on
 * /dev/shm, unless TMPDIR is set already or /dev/shm is absent or short of room. Returns the directory, or undefined.
 */
export function useMemoryTmpdir(): string | undefined {
  if (process.env.TMPDIR || process.platform !== 'linux') return undefined;
  try {
    const stats = statfsSync(MEMORY_FS);
    if (stats.bavail * stats.bsize < NEEDED_BYTES) return undefined;
    const dir = mkdtempSync(join(MEMORY_FS, 'cmcp-test-'));
    process.env.TMPDIR = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  } catch {
    return undefined;
  }
}
