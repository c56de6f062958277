// Crash test of stored files: the Node host (a child process, files in a directory beside its file database) is
// killed with kill -9 while uploads stream in; after upkeep (run as an hour later) there must be 0 rows without a
// blob and 0 blobs without a row, and every acknowledged upload must be there whole (size and SHA-256).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openNodeDatabase } from '../src/db/open-node.ts';
import { storedFiles } from '../src/db/schema.ts';
import { createDiskBlobStore } from '../src/files/disk.ts';
import { fileUpkeep } from '../src/files/upkeep.ts';
import { call, killHard, startHost } from './fuzz-crash-engine.ts';

export interface FileCrashOptions {
  /** Kill once this many uploads were acknowledged. */
  uploads: number;
  /** Concurrent uploaders. */
  concurrency: number;
  log?: (line: string) => void;
}

export interface FileCrashReport {
  acknowledged: number;
  /** Before upkeep: blobs (or partial blobs) a kill left without a row. */
  orphanBlobsBeforeUpkeep: number;
  rowsWithoutBlob: number;
  blobsWithoutRow: number;
  /** Acknowledged uploads missing, or stored with another size or SHA-256. */
  damagedUploads: number;
}

function bodyOf(size: number, seed: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(size).map((_, index) => (index * 31 + seed) % 256);
}

export async function runFileCrashTest(options: FileCrashOptions): Promise<FileCrashReport> {
  const log = options.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'cmcp-crash-files-'));
  const databaseUrl = `file:${join(dir, 'crash.db')}`;
  const store = createDiskBlobStore(join(dir, 'files'));
  const acknowledged = new Map<string, { size: number; sha256: string }>();
  try {
    const host = await startHost(databaseUrl);
    try {
      const token = host.token ?? '';
      const { body } = await call(host.url, token, 'listOrganizations', {});
      const org = String((body.organizations as { id: string }[])[0]?.id);
      let started = 0;
      let stop = false;
      const uploader = async () => {
        while (!stop) {
          const seed = started++;
          const bytes = bodyOf(64 * 1024 + ((seed * 7919) % (1024 * 1024)), seed);
          try {
            const response = await fetch(`${host.url}/api/v1/orgs/${org}/files?name=crash-${seed}.bin`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}` },
              body: bytes,
            });
            const json = (await response.json()) as { file?: { id: string } };
            if (response.status === 201 && json.file)
              acknowledged.set(json.file.id, {
                size: bytes.byteLength,
                sha256: createHash('sha256').update(bytes).digest('hex'),
              });
          } catch {
            // The host died under this upload.
          }
          if (acknowledged.size >= options.uploads) stop = true;
        }
      };
      const running = Array.from({ length: options.concurrency }, uploader);
      while (acknowledged.size < options.uploads) await new Promise((resolve) => setTimeout(resolve, 5));
      await killHard(host.child);
      stop = true;
      await Promise.all(running);
    } finally {
      await killHard(host.child);
    }
    log(`${acknowledged.size} uploads acknowledged before kill -9`);

    const database = await openNodeDatabase(databaseUrl);
    try {
      const keysOfRows = async () =>
        new Set(
          (await database.db.select({ key: storedFiles.storage_key }).from(storedFiles)).map(
            (row) => row.key,
          ),
        );
      const blobs = async () => {
        const keys: string[] = [];
        for await (const blob of store.list()) keys.push(blob.key);
        return keys;
      };
      const before = await keysOfRows();
      const orphanBlobsBeforeUpkeep = (await blobs()).filter((key) => !before.has(key)).length;
      await fileUpkeep(database.db, store, new Date(Date.now() + 2 * 3_600_000));
      const rows = await database.db.select().from(storedFiles);
      const keys = new Set(rows.map((row) => row.storage_key));
      const present = await blobs();
      let rowsWithoutBlob = 0;
      for (const row of rows) if (!(await store.get(row.storage_key))) rowsWithoutBlob += 1;
      const blobsWithoutRow = present.filter((key) => !keys.has(key)).length;
      let damagedUploads = 0;
      for (const [id, expected] of acknowledged) {
        const row = rows.find((candidate) => candidate.id === id);
        if (!row || row.size !== expected.size || row.sha256 !== expected.sha256) damagedUploads += 1;
      }
      const report = {
        acknowledged: acknowledged.size,
        orphanBlobsBeforeUpkeep,
        rowsWithoutBlob,
        blobsWithoutRow,
        damagedUploads,
      };
      log(
        `after upkeep: ${rowsWithoutBlob} rows without a blob, ${blobsWithoutRow} blobs without a row (${orphanBlobsBeforeUpkeep} before upkeep), ${damagedUploads} acknowledged uploads missing or damaged`,
      );
      return report;
    } finally {
      database.client.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
