// The memory of another process as Linux reports it (/proc/<pid>/status): for the tests and benches that watch a
// host they started.
import { readFile } from 'node:fs/promises';

export interface ProcessMemory {
  /** Resident set now, bytes. */
  rss: number;
  /** The highest resident set since the process started (VmHWM), bytes. */
  peak: number;
}

export async function memoryOf(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kilobytes('VmRSS'), peak: kilobytes('VmHWM') };
}
