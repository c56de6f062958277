// The Worker's BlobStore: its R2 bucket binding (wrangler.toml [[r2_buckets]] FILES; miniflare's R2 in tests and
// `npm run dev:worker`). R2 wants a body of known length: a file goes up in one put when it fits in a part, else as a
// multipart upload of equal parts, one part in memory at a time.
import type { R2Bucket } from '@cloudflare/workers-types';
import { PART_BYTES } from './s3.ts';
import { type BlobStore, checkStorageKey, isStorageKey, partsOf } from './store.ts';

export function createR2BlobStore(bucket: R2Bucket, options: { partBytes?: number } = {}): BlobStore {
  const partBytes = options.partBytes ?? PART_BYTES;
  return {
    async put(key, body, { contentType }) {
      checkStorageKey(key);
      const httpMetadata = { contentType };
      const parts = partsOf(body, partBytes);
      const first = await parts.next();
      const firstPart = first.done ? new Uint8Array(0) : first.value;
      if (firstPart.byteLength < partBytes) {
        await parts.return(undefined);
        await bucket.put(key, firstPart, { httpMetadata });
        return;
      }
      const upload = await bucket.createMultipartUpload(key, { httpMetadata });
      try {
        const uploaded = [await upload.uploadPart(1, firstPart)];
        for await (const part of parts) uploaded.push(await upload.uploadPart(uploaded.length + 1, part));
        await upload.complete(uploaded);
      } catch (error) {
        await upload.abort().catch(() => undefined);
        throw error;
      }
    },

    async get(key, range) {
      const object = await bucket.get(
        checkStorageKey(key),
        range
          ? {
              range: {
                offset: range.start,
                ...(range.end !== undefined ? { length: range.end - range.start + 1 } : {}),
              },
            }
          : {},
      );
      if (!object) return null;
      return { body: object.body as unknown as ReadableStream<Uint8Array>, size: object.size };
    },

    async delete(key) {
      await bucket.delete(checkStorageKey(key));
    },

    async *list(prefix = '') {
      let cursor: string | undefined;
      for (;;) {
        const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
        for (const object of page.objects)
          if (isStorageKey(object.key)) yield { key: object.key, uploadedAt: object.uploaded };
        if (!page.truncated) return;
        cursor = page.cursor;
      }
    },
  };
}
