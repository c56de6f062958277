// Node's BlobStore: one file per blob under FILES_DIR (default ./data/files), written to `<key>.part` and renamed
// when complete, so a reader never sees half a blob; a crash leaves only the `.part`, which upkeep removes.
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type BlobStore, checkStorageKey, isStorageKey } from './store.ts';

const PARTIAL = '.part';

export function createDiskBlobStore(directory: string): BlobStore {
  const pathOf = (key: string) => join(directory, checkStorageKey(key));

  return {
    async put(key, body) {
      const path = pathOf(key);
      const partial = path + PARTIAL;
      await mkdir(join(path, '..'), { recursive: true });
      try {
        await pipeline(
          Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>),
          createWriteStream(partial, { flags: 'wx' }),
        );
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },

    async get(key, range) {
      const handle = await open(pathOf(key), 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
      if (!handle) return null;
      try {
        const { size } = await handle.stat();
        const stream = handle.createReadStream({
          start: range?.start ?? 0,
          ...(range?.end !== undefined || size > 0 ? { end: range?.end ?? size - 1 } : {}),
          autoClose: true,
          highWaterMark: 256 * 1024,
        });
        return { body: Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>, size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async delete(key) {
      const path = pathOf(key);
      await rm(path, { force: true });
      await rm(path + PARTIAL, { force: true });
    },

    async *list(prefix = '') {
      const fanOut = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw error;
      });
      for (const branch of fanOut) {
        if (!/^[0-9a-z]{2}$/.test(branch)) continue;
        for (const name of await readdir(join(directory, branch)).catch(() => [] as string[])) {
          // A `.part` is listed under its key: an upload under way, or one a crash cut short.
          const key = `${branch}/${name.endsWith(PARTIAL) ? name.slice(0, -PARTIAL.length) : name}`;
          if (!isStorageKey(key) || !key.startsWith(prefix)) continue;
          const info = await stat(join(directory, branch, name)).catch(() => null);
          if (info) yield { key, uploadedAt: info.mtime };
        }
      }
    },
  };
}
